// The registry is one list (core::all_diagnostic_kinds): compare re-raises an input's diagnostics by looking their
// ids up there, and docs/diagnostics.md promises every id scripts may match. Both are checked against the header's
// own declarations, read as text (tests run from tests/).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>

#include "core/diagnostics.h"

namespace perfhound::core {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(DiagnosticsRegistry, EveryDeclaredKindIsListedAndDocumented) {
  const std::string header = read("../src/core/diagnostics.h");
  const std::string docs = read("../docs/diagnostics.md");
  ASSERT_FALSE(header.empty());
  ASSERT_FALSE(docs.empty());
  // `inline constexpr DiagnosticKind kName{\n    "the-id", Severity::...`
  const std::regex declared(R"re(inline constexpr DiagnosticKind \w+\{\s*"([a-z0-9-]+)")re");
  std::set<std::string> declared_ids;
  for (auto it = std::sregex_iterator(header.begin(), header.end(), declared); it != std::sregex_iterator(); ++it) {
    declared_ids.insert((*it)[1]);
  }
  std::set<std::string> listed_ids;
  for (const DiagnosticKind& k : all_diagnostic_kinds()) listed_ids.insert(std::string(k.id));
  EXPECT_EQ(listed_ids, declared_ids);
  EXPECT_EQ(all_diagnostic_kinds().size(), declared_ids.size()) << "an id listed twice";
  for (const std::string& id : declared_ids) {
    EXPECT_NE(docs.find("| `" + id + "` |"), std::string::npos) << id << " has no row in docs/diagnostics.md";
  }
}

// One line, one full stop before "Remedy", even when the message is another tool's sentence (ncu's warnings end
// in '.': "may be inconsistent.. Remedy" before).
TEST(DiagnosticsFormat, OneLineOneFullStop) {
  EXPECT_EQ(format_diagnostic({&kUnlockedClocks, "ncu said: clocks may be inconsistent."}),
            "warning [unlocked-clocks]: ncu said: clocks may be inconsistent. Remedy: " + std::string(kUnlockedClocks.remedy) + ".\n");
  EXPECT_EQ(format_diagnostic({&kFewSamplesForTail, "p99 from 8 completed requests"}),
            "warning [few-samples-for-tail]: p99 from 8 completed requests. Remedy: " +
                std::string(kFewSamplesForTail.remedy) + ".\n");
}

}  // namespace
}  // namespace perfhound::core
