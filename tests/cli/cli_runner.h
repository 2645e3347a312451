// Runs the perfhound command line in-process for the CLI tests: argv in, exit code and both streams out.
#pragma once

#include <sstream>
#include <string>
#include <vector>

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

}  // namespace perfhound::cli
