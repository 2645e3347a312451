#include "trace/json_scan.h"

#include <gtest/gtest.h>

namespace perfhound::trace {
namespace {

ScanResult scan(std::string_view text) { return scan_json_value(text, 0); }

TEST(JsonScan, ObjectsAndArraysEndAtTheirMatchingBracket) {
  EXPECT_EQ(scan(R"({"a": [1, {"b": 2}]}, {"next": 1})").end, 20u);
  EXPECT_EQ(scan(R"({"a": [1, {"b": 2}]}, {"next": 1})").status, ScanStatus::kComplete);
  EXPECT_EQ(scan("[[], {}]x").end, 8u);
}

TEST(JsonScan, BracketsAndEscapedQuotesInsideStringsAreText) {
  // The string holds  }]{[" \  : an escaped quote, brackets, and an escaped backslash before the closing quote.
  const std::string_view text = R"({"name": "}]{[\" \\", "x": 1} tail)";
  const auto r = scan(text);
  EXPECT_EQ(r.status, ScanStatus::kComplete);
  EXPECT_EQ(text.substr(r.end), " tail");
}

TEST(JsonScan, StringsAndScalars) {
  EXPECT_EQ(scan(R"("ab\"c", 1)").end, 7u);
  EXPECT_EQ(scan("12.5,").end, 4u);
  EXPECT_EQ(scan("true}").end, 4u);
  EXPECT_EQ(scan("12.5").status, ScanStatus::kNeedMoreData);  // more digits may follow
}

TEST(JsonScan, NeedsMoreDataWhenCutAnywhere) {
  const std::string_view full = R"({"name": "k\"x", "args": {"v": [1, 2]}})";
  for (std::size_t cut = 1; cut < full.size(); ++cut) {
    EXPECT_EQ(scan(full.substr(0, cut)).status, ScanStatus::kNeedMoreData) << cut;
  }
  EXPECT_EQ(scan(full).status, ScanStatus::kComplete);
}

TEST(JsonScan, MismatchedBracketsAreReportedWithTheirPosition) {
  const auto r = scan(R"({"a": [1, 2}})");
  EXPECT_EQ(r.status, ScanStatus::kUnbalanced);
  EXPECT_EQ(r.end, 11u);
  EXPECT_EQ(scan("]").status, ScanStatus::kUnbalanced);
}

TEST(JsonScan, DepthBeyondTheLimitIsUnbalancedNotAnOverflow) {
  const std::string deep(100, '[');
  EXPECT_EQ(scan(deep).status, ScanStatus::kUnbalanced);
}

}  // namespace
}  // namespace perfhound::trace
