#include "report/table_writer.h"

#include <gtest/gtest.h>

namespace perfhound::report {
namespace {

TEST(TableWriter, PadsColumnsAndAligns) {
  TableWriter t({{"statistic", Align::kLeft}, {"value"}});
  t.add_row({"p50", "1.23 ms"});
  t.add_row({"p99.9", "12.0 s"});
  EXPECT_EQ(t.render(),
            "statistic    value\n"
            "------------------\n"
            "p50        1.23 ms\n"
            "p99.9       12.0 s\n");
}

TEST(TableWriter, WidthCountsCodePointsNotBytes) {
  TableWriter t({{"k", Align::kLeft}, {"v"}});
  t.add_row({"µs", "1"});  // 'µ' is two bytes in UTF-8, one column
  EXPECT_EQ(t.render(), "k   v\n-----\nµs  1\n");
}

TEST(TableWriter, NoTrailingBlanksForEmptyLastCells) {
  TableWriter t({{"a", Align::kLeft}, {"b", Align::kLeft}});
  t.add_row({"x", ""});
  EXPECT_EQ(t.render(), "a  b\n----\nx\n");
}

}  // namespace
}  // namespace perfhound::report
