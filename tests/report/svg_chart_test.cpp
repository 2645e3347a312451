#include "report/svg_chart.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "report/roofline_chart.h"

namespace perfhound::report {
namespace {

using ::testing::HasSubstr;

std::size_t count(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = haystack.find(needle); pos != std::string::npos; pos = haystack.find(needle, pos + 1)) ++n;
  return n;
}

TEST(SvgChart, LogPositionIsLinearInTheExponent) {
  EXPECT_DOUBLE_EQ(log_position(10, 1, 100, 0, 200), 100);   // one decade of two: halfway
  EXPECT_DOUBLE_EQ(log_position(1, 1, 100, 0, 200), 0);
  EXPECT_DOUBLE_EQ(log_position(100, 1, 100, 500, 100), 100);  // an inverted (y) axis
  EXPECT_NEAR(log_position(1e3, 1e2, 1e6, 0, 400), 100, 1e-9);
}

TEST(SvgChart, DrawsEveryLineAndPointWithEscapedText) {
  LogLogChart c;
  c.title = "a <b> & c";
  c.lines = {{"roof 1", {{0.1, 1e11}, {10, 1e13}}, false}, {"roof 2", {{0.1, 2e11}, {10, 2e13}}, true}};
  c.points = {{1, 1e12, "k<1>"}, {5, 3e12, "k2"}, {-1, 1e12, "not drawable"}};
  const std::string svg = render_svg(c);
  EXPECT_THAT(svg, ::testing::StartsWith("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_THAT(svg, HasSubstr("a &lt;b&gt; &amp; c"));
  EXPECT_EQ(count(svg, "<polyline"), 2u);
  EXPECT_EQ(count(svg, "stroke-dasharray"), 1u);  // only the second line is dashed
  EXPECT_EQ(count(svg, "<circle"), 2u);           // the point at x = -1 cannot go on a log axis
  EXPECT_THAT(svg, HasSubstr("k&lt;1&gt;"));
  // Axes span whole decades around the data: x from 0.1 (100m) to 10, y from 100G to 100T.
  EXPECT_THAT(svg, HasSubstr(">100m<"));
  EXPECT_THAT(svg, HasSubstr(">100G<"));
  EXPECT_THAT(svg, HasSubstr(">100T<"));
  EXPECT_THAT(svg, ::testing::EndsWith("</svg>\n"));
}

// Two kernels of one shape land on one spot: one label "0,1", not two printed over each other.
TEST(SvgChart, CoincidentPointsShareOneLabel) {
  LogLogChart c;
  c.points = {{6.63, 1.02e13, "0"}, {6.62, 1.02e13, "1"}, {100, 1e14, "2"}};
  const std::string svg = render_svg(c);
  EXPECT_EQ(count(svg, "<circle"), 3u);
  EXPECT_THAT(svg, HasSubstr(">0,1</text>"));
  EXPECT_THAT(svg, HasSubstr(">2</text>"));
  EXPECT_THAT(svg, ::testing::Not(HasSubstr(">0</text>")));
}

// A title longer than the chart is wide shrinks to 11 px, then loses its middle: the full text stays as a
// tooltip. At 900 px wide and a 90 px margin, 800 px hold 800 / (0.6 x 11) = 121 characters.
TEST(SvgChart, ALongTitleFitsTheWidth) {
  LogLogChart c;
  c.title = "Roofline: 9 kernels from " + std::string(200, 'x') + "/kernels.csv";
  const std::string svg = render_svg(c);
  EXPECT_THAT(svg, HasSubstr("font-size=\"11\" font-weight=\"bold\">Roofline: 9 kernels"));
  EXPECT_THAT(svg, HasSubstr("xxx...xxx"));                                      // the middle gives way
  EXPECT_THAT(svg, HasSubstr("/kernels.csv<title>" + c.title + "</title>"));  // the end stays; all in the tooltip
  const auto start = svg.find("font-weight=\"bold\">") + std::string("font-weight=\"bold\">").size();
  EXPECT_LE(svg.find("<title>", start) - start, 121u);
  // A name of two-byte characters is cut between characters, never inside one (the SVG stays valid UTF-8).
  c.title = "Roofline: " + [] {
    std::string s;
    for (int i = 0; i < 150; ++i) s += "\xC3\xA9";  // U+00E9
    return s;
  }();
  const std::string utf8 = render_svg(c);
  const auto from = utf8.find("font-weight=\"bold\">") + std::string("font-weight=\"bold\">").size();
  const std::string shown = utf8.substr(from, utf8.find("<title>", from) - from);
  const auto dots = shown.find("...");
  ASSERT_NE(dots, std::string::npos);
  EXPECT_EQ((dots - std::string("Roofline: ").size()) % 2, 0u);      // whole characters before the cut
  EXPECT_EQ((shown.size() - dots - 3) % 2, 0u);                         // and after it
  c.title = "Short";
  EXPECT_THAT(render_svg(c), HasSubstr("font-size=\"16\" font-weight=\"bold\">Short<title>"));
}

TEST(RooflineChart, EachRoofBendsAtItsRidge) {
  // H100-like: 989e12 FLOP/s and 3.35e12 B/s -> ridge 295.2 FLOP/byte; one kernel at intensity 2730.
  const auto chart = roofline_chart("t", {{"bf16", 989e12, 3.35e12, true}, {"fp32", 67e12, 3.35e12, false}},
                                    {{2730.0, 733e12, "gemm"}});
  ASSERT_EQ(chart.lines.size(), 2u);
  const auto& bf16 = chart.lines[0].points;
  ASSERT_EQ(bf16.size(), 3u);
  EXPECT_DOUBLE_EQ(bf16[1].first, 989e12 / 3.35e12);  // the ridge
  EXPECT_DOUBLE_EQ(bf16[1].second, 989e12);
  // The x range runs a decade beyond the extremes: fp32's ridge 20.0 and the kernel's 2730.
  EXPECT_DOUBLE_EQ(bf16[0].first, (67e12 / 3.35e12) / 10);
  EXPECT_DOUBLE_EQ(bf16[0].second, bf16[0].first * 3.35e12);  // on the memory slope
  EXPECT_DOUBLE_EQ(bf16[2].first, 27300.0);
  EXPECT_FALSE(chart.lines[0].dashed);
  EXPECT_TRUE(chart.lines[1].dashed);
  ASSERT_EQ(chart.points.size(), 1u);
  EXPECT_EQ(chart.points[0].label, "gemm");
}

}  // namespace
}  // namespace perfhound::report
