#include "core/sample_parser.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace perfhound::core {
namespace {

TEST(SampleParser, OneValuePerLineWithCommentsAndBlanks) {
  const auto r = parse_sample_column("# latencies\n1.5\n\n2\n  3e2  \r\n-4\n", {}, "'x'");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->values, (std::vector<double>{1.5, 2, 300, -4}));
  EXPECT_EQ(r->column_name, "column 1");
  EXPECT_EQ(r->lines_skipped, 2u);
}

TEST(SampleParser, CsvWithHeaderByNameAndIndex) {
  const std::string csv = "name,dur_us,bytes\nk1,1.25,10\nk2,2.5,20\n";
  auto by_name = parse_sample_column(csv, {"dur_us"}, "'k.csv'");
  ASSERT_TRUE(by_name.ok()) << by_name.error().message;
  EXPECT_EQ(by_name->column_name, "dur_us");
  EXPECT_EQ(by_name->values, (std::vector<double>{1.25, 2.5}));
  auto by_index = parse_sample_column(csv, {"3"}, "'k.csv'");
  ASSERT_TRUE(by_index.ok()) << by_index.error().message;
  EXPECT_EQ(by_index->column_name, "bytes");
  EXPECT_EQ(by_index->values, (std::vector<double>{10, 20}));
}

TEST(SampleParser, TabSeparatedWithoutHeader) {
  const auto r = parse_sample_column("1\t10\n2\t20\n", {"2"}, "'t.tsv'");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->values, (std::vector<double>{10, 20}));
  EXPECT_EQ(r->column_name, "column 2");
}

TEST(SampleParser, ErrorsNameSourceLineAndText) {
  auto r = parse_sample_column("1\n2\nabc\n", {}, "'x.txt'");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "'x.txt' line 3: cannot parse 'abc' as a number in column 1");

  r = parse_sample_column("a,b\n1,2\n", {"c"}, "'y.csv'");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "'y.csv' line 1: no column named 'c' in the header 'a,b'");

  r = parse_sample_column("a,b\n1,2\n", {"5"}, "'y.csv'");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "'y.csv' line 1: --column 5 is out of range (the line has 2 columns)");

  r = parse_sample_column("a,b\n1,2\n3\n", {"2"}, "'y.csv'");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "'y.csv' line 3: has 1 column, expected at least 2");

  r = parse_sample_column("1\nnan\n", {}, "'z'");
  ASSERT_FALSE(r.ok()) << "NaN is not a sample";
  r = parse_sample_column("1\n2x\n", {}, "'z'");
  ASSERT_FALSE(r.ok()) << "trailing garbage is not a number";

  // A first line that is a value that cannot be read is not a header to drop: 1e-400 and 1e400 are outside a
  // double's range, 12ms and 3.5us carry a unit.
  for (const char* first : {"1e-400", "1e400", "12ms", "3.5us"}) {
    r = parse_sample_column(std::string(first) + "\n2\n3\n", {}, "'t'");
    ASSERT_FALSE(r.ok()) << first;
    EXPECT_EQ(r.error().message, fmt::format("'t' line 1: cannot parse '{}' as a number (out of range, or a unit after "
                                             "it?), and it is not a column name", first));
  }
  // A name is still a header, one that starts with a digit too.
  for (const char* name : {"step_ms", "99p_ms", "1st_run"}) {
    r = parse_sample_column(std::string(name) + "\n2\n3\n", {}, "'t'");
    ASSERT_TRUE(r.ok()) << name;
    EXPECT_EQ(r->column_name, name);
    EXPECT_EQ(r->values.size(), 2u);
  }
}

TEST(SampleParser, EmptyInputGivesNoValues) {
  const auto r = parse_sample_column("# nothing\n", {}, "'e'");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->values.empty());
}

}  // namespace
}  // namespace perfhound::core
