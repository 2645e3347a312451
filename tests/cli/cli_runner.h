// Runs the perfhound command line in-process for the CLI tests: argv in, exit code and both streams out.
#pragma once

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/app.h"

namespace perfhound::cli {

struct CliRun {
  int code;
  std::string out;
  std::string err;
};

// `args` without the program name.
inline CliRun run(std::vector<std::string> args) {
  args.insert(args.begin(), "perfhound");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int code = run_app(static_cast<int>(argv.size()), argv.data(), out, err);
  return {code, out.str(), err.str()};
}

// The bad-input contract (DESIGN.md): exit 2 and exactly one line on stderr, which contains every one of
// `needles`. An assertion result, not an EXPECT inside, so a failure is reported at the caller's line:
//   EXPECT_TRUE(is_one_line_error(run({...}), {"--flag", "what is wrong"})) << context;
inline ::testing::AssertionResult is_one_line_error(const CliRun& r, const std::vector<std::string>& needles) {
  if (r.code != 2) return ::testing::AssertionFailure() << "exit " << r.code << ", not 2; stderr: " << r.err;
  const auto lines = std::count(r.err.begin(), r.err.end(), '\n');
  if (lines != 1 || r.err.back() != '\n') {
    return ::testing::AssertionFailure() << "stderr is not one line ending in a newline: " << r.err;
  }
  for (const auto& needle : needles) {
    if (r.err.find(needle) == std::string::npos) {
      return ::testing::AssertionFailure() << "stderr lacks '" << needle << "': " << r.err;
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace perfhound::cli
