#include "core/units.h"

#include <cmath>
#include <gtest/gtest.h>

namespace perfhound::core {
namespace {

TEST(FormatDuration, PicksPrefixAndThreeSignificantDigits) {
  EXPECT_EQ(format_duration_ns(0), "0 ns");
  EXPECT_EQ(format_duration_ns(850), "850 ns");
  EXPECT_EQ(format_duration_ns(1234567), "1.23 ms");
  EXPECT_EQ(format_duration_ns(12.5e3), "12.5 us");
  EXPECT_EQ(format_duration_ns(2.5e9), "2.50 s");
  EXPECT_EQ(format_duration_ns(3600e9), "3600 s");
  EXPECT_EQ(format_duration_ns(-1500), "-1.50 us");
  EXPECT_EQ(format_duration_ns(std::nan("")), "n/a");
}

TEST(FormatDuration, RoundsUpIntoTheNextPrefixInsteadOfPrintingOneThousand) {
  // 999.7 ns rounds to 1000 at three digits; the next prefix shows it as 1.00 us.
  EXPECT_EQ(format_duration_ns(999.7), "1.00 us");
  EXPECT_EQ(format_duration_ns(999.4), "999 ns");
  EXPECT_EQ(format_duration_ns(0.5), "0.50 ns");  // below the smallest prefix the mantissa goes under 1
}

TEST(FormatSi, RatesFromTheReferenceH200Figures) {
  // shared/data/traces/h200/info.json: copy 4.0635 TB/s, bf16 GEMM 758.51 TFLOP/s.
  EXPECT_EQ(format_si(4.063509830172095e12, "B/s"), "4.06 TB/s");
  EXPECT_EQ(format_si(758.5098474714733e12, "FLOP/s"), "759 TFLOP/s");
  EXPECT_EQ(format_si(0, "B/s"), "0 B/s");
  EXPECT_EQ(format_si(12, "req/s"), "12.0 req/s");
  EXPECT_EQ(format_si(0.004, "s"), "4.00 ms");
}

TEST(FormatBytes, BinaryPrefixes) {
  EXPECT_EQ(format_bytes(268435456), "256 MiB");
  EXPECT_EQ(format_bytes(150109880320.0), "140 GiB");  // the H200's cudaGetDeviceProperties totalGlobalMem
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
}

TEST(FormatPercent, OneOrTwoDecimals) {
  EXPECT_EQ(format_percent(0.4213), "42.1%");
  EXPECT_EQ(format_percent(0.0512), "5.12%");
  EXPECT_EQ(format_percent(1.0), "100.0%");
  EXPECT_EQ(format_percent(0), "0.0%");
  EXPECT_EQ(format_percent(0.0000418), "0.0042%");  // two significant digits, not 0.00%
  EXPECT_EQ(format_percent(0.00123), "0.12%");
}

// Three significant digits below 1000; whole digits from there to a billion (a token total of 51,400 printed as
// 5.14e+04 in the --compat view lost its last digits); the exponent again beyond.
TEST(FormatNumber, ThreeDigitsThenWholeNumbers) {
  EXPECT_EQ(format_number(0.012345), "0.0123");
  EXPECT_EQ(format_number(7.4812), "7.48");
  EXPECT_EQ(format_number(999.4), "999");
  EXPECT_EQ(format_number(8643.21), "8643");
  EXPECT_EQ(format_number(51400), "51400");
  EXPECT_EQ(format_number(-2048), "-2048");
  EXPECT_EQ(format_number(2.5e9), "2.5e+09");
  EXPECT_EQ(format_number(std::nan("")), "n/a");
}

// parse_duration_with_unit_ns: a bare number is refused (mfu --tpot 12, roofline --time 1), the rest as
// parse_duration_ns.
TEST(ParseDuration, WithUnitRefusesABareNumber) {
  EXPECT_EQ(parse_duration_with_unit_ns("300").error().message, "'300' has no unit (write e.g. 300us, 300ms or 300s)");
  EXPECT_EQ(parse_duration_with_unit_ns("1.").error().message, "'1.' has no unit (write e.g. 1.us, 1.ms or 1.s)");
  EXPECT_EQ(*parse_duration_with_unit_ns("300us"), 300'000);
  EXPECT_EQ(*parse_duration_with_unit_ns("0"), 0);
  EXPECT_EQ(*parse_duration_with_unit_ns("1.5s"), 1'500'000'000);
  EXPECT_FALSE(parse_duration_with_unit_ns("soon").ok());
}

TEST(ParseSiNumber, SuffixesAndErrors) {
  EXPECT_DOUBLE_EQ(parse_si_number("50").value(), 50);
  EXPECT_DOUBLE_EQ(parse_si_number("1.5k").value(), 1500);
  EXPECT_DOUBLE_EQ(parse_si_number("2M").value(), 2e6);
  EXPECT_DOUBLE_EQ(parse_si_number("3e3").value(), 3000);
  const auto bad = parse_si_number("12q");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("'12q'"), std::string::npos) << bad.error().message;
  EXPECT_FALSE(parse_si_number("").ok());
  EXPECT_FALSE(parse_si_number("k").ok());
}

TEST(ParseDuration, UnitsToNanoseconds) {
  EXPECT_EQ(parse_duration_ns("250ms").value(), 250'000'000);
  EXPECT_EQ(parse_duration_ns("1.5s").value(), 1'500'000'000);
  EXPECT_EQ(parse_duration_ns("10us").value(), 10'000);
  EXPECT_EQ(parse_duration_ns("800ns").value(), 800);
  EXPECT_EQ(parse_duration_ns("2m").value(), 120'000'000'000);
  EXPECT_EQ(parse_duration_ns("2h").value(), 7'200'000'000'000);
  EXPECT_EQ(parse_duration_ns("3").value(), 3'000'000'000);
  EXPECT_FALSE(parse_duration_ns("-1s").ok());
  const auto bad = parse_duration_ns("5 parsecs");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("unknown unit"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace perfhound::core
