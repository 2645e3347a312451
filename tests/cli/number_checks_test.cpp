// The number-flag checks: what they accept and the one-line reason for what they do not, bounds included.
#include "cli/number_checks.h"

#include <gtest/gtest.h>

#include <string>

namespace perfhound::cli {
namespace {

std::string check(const CLI::Validator& v, std::string text) { return v(text); }

TEST(NumberChecks, WholeNumbers) {
  const CLI::Validator device = whole_number_in(0, 1023);
  EXPECT_EQ(check(device, "0"), "");
  EXPECT_EQ(check(device, "1023"), "");
  EXPECT_EQ(check(device, "+3"), "");
  EXPECT_EQ(check(device, "1024"), "must be 0 to 1023, got 1024");
  EXPECT_EQ(check(device, "-1"), "must be 0 to 1023, got -1");
  EXPECT_EQ(check(device, "abc"), "must be a whole number, got 'abc'");
  EXPECT_EQ(check(device, "1.5"), "must be a whole number, got '1.5'");
  EXPECT_EQ(check(device, ""), "must be a whole number, got ''");
  EXPECT_EQ(check(whole_number_in(1), "99999999999"), "");
  EXPECT_EQ(check(whole_number_in(1), "0"), "must be 1 or more, got 0");
  // Past a long long (2^63 - 1 = 9223372036854775807): a whole number, out of range, and the bound it broke named.
  EXPECT_EQ(check(whole_number_in(0), "18446744073709551615"),
            "must be 0 to 9223372036854775807, got 18446744073709551615");
  EXPECT_EQ(check(device, "-99999999999999999999"), "must be 0 to 1023, got -99999999999999999999");
}

TEST(NumberChecks, RealNumbers) {
  const CLI::Validator alpha = number_in(0.0001, 0.5);
  EXPECT_EQ(check(alpha, "0.05"), "");
  EXPECT_EQ(check(alpha, "0.5"), "");
  EXPECT_EQ(check(alpha, "+0.05"), "");
  EXPECT_EQ(check(alpha, "+-0.05"), "must be a number, got '+-0.05'");
  EXPECT_EQ(check(alpha, "2"), "must be 0.0001 to 0.5, got 2");
  EXPECT_EQ(check(alpha, "nan"), "must be a number, got 'nan'");
  EXPECT_EQ(check(alpha, "5%"), "must be a number, got '5%'");
  EXPECT_EQ(check(number_in(0), "-0.1"), "must be 0 or more, got -0.1");
  EXPECT_EQ(check(positive_number(), "1e-9"), "");
  EXPECT_EQ(check(positive_number(), "0"), "must be above 0, got 0");
  EXPECT_EQ(check(positive_number(), "fast"), "must be a number, got 'fast'");
  EXPECT_EQ(check(positive_number(), "inf"), "must be a finite number, got inf");  // mfu printed "MFU inf%"
  EXPECT_EQ(check(positive_number(), "Infinity"), "must be a finite number, got Infinity");
  // Past a double (max about 1.8e308): not infinity, an error that says why.
  EXPECT_EQ(check(number_in(0), "1e999"), "out of a double's range, got '1e999'");
  EXPECT_EQ(check(positive_number(), "1e999"), "out of a double's range, got '1e999'");
}

}  // namespace
}  // namespace perfhound::cli
