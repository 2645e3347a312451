// A log-log chart as a standalone SVG document: the charting path perfhound's charts share (the roofline
// now; the HTML report embeds the same SVG). Pure: a description in, SVG text out; no fonts, scripts or
// external assets, so the file opens anywhere (a browser, an image viewer, an HTML page).
#pragma once

#include <string>
#include <vector>

namespace perfhound::report {

struct ChartLine {
  std::string label;
  std::vector<std::pair<double, double>> points;  // data coordinates, > 0 (log axes)
  bool dashed = false;
};

struct ChartPoint {
  double x = 0;
  double y = 0;  // > 0
  std::string label;
};

struct LogLogChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<ChartLine> lines;
  std::vector<ChartPoint> points;
  int width = 900;
  int height = 560;
};

// The axes span whole decades around every line point and chart point. Non-positive coordinates (not
// drawable on a log axis) are skipped. Text is XML-escaped.
std::string render_svg(const LogLogChart& chart);

// Where a data value lands between two pixel positions on a log axis spanning [lo, hi] (both > 0).
double log_position(double value, double lo, double hi, double pixel_lo, double pixel_hi);

}  // namespace perfhound::report
