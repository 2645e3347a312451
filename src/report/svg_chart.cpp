#include "report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace perfhound::report {
namespace {

std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// 1e12 -> "1T": decade labels with SI prefixes, short enough for an axis.
std::string decade_label(int exponent) {
  static constexpr const char* kPrefixes[] = {"p", "n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
  const int group = static_cast<int>(std::floor(exponent / 3.0));
  const int index = group + 4;
  const double mantissa = std::pow(10.0, exponent - 3 * group);
  if (index < 0 || index >= static_cast<int>(std::size(kPrefixes))) return fmt::format("1e{}", exponent);
  return fmt::format("{:g}{}", mantissa, kPrefixes[index]);
}

// A colour per line, distinguishable in print and for the common forms of colour blindness (Okabe & Ito 2008).
constexpr const char* kColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"};

}  // namespace

double log_position(double value, double lo, double hi, double pixel_lo, double pixel_hi) {
  const double t = (std::log10(value) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
  return pixel_lo + t * (pixel_hi - pixel_lo);
}

std::string render_svg(const LogLogChart& chart) {
  double x_min = std::numeric_limits<double>::max(), x_max = 0, y_min = std::numeric_limits<double>::max(), y_max = 0;
  auto extend = [&](double x, double y) {
    if (!(x > 0) || !(y > 0) || !std::isfinite(x) || !std::isfinite(y)) return;
    x_min = std::min(x_min, x);
    x_max = std::max(x_max, x);
    y_min = std::min(y_min, y);
    y_max = std::max(y_max, y);
  };
  for (const auto& line : chart.lines) {
    for (const auto& [x, y] : line.points) extend(x, y);
  }
  for (const auto& p : chart.points) extend(p.x, p.y);
  if (x_max == 0) {  // nothing drawable: an empty frame over one decade
    x_min = y_min = 1;
    x_max = y_max = 10;
  }
  const int x_lo_exp = static_cast<int>(std::floor(std::log10(x_min)));
  const int x_hi_exp = std::max(x_lo_exp + 1, static_cast<int>(std::ceil(std::log10(x_max))));
  const int y_lo_exp = static_cast<int>(std::floor(std::log10(y_min)));
  const int y_hi_exp = std::max(y_lo_exp + 1, static_cast<int>(std::ceil(std::log10(y_max))));
  const double xl = std::pow(10.0, x_lo_exp), xh = std::pow(10.0, x_hi_exp);
  const double yl = std::pow(10.0, y_lo_exp), yh = std::pow(10.0, y_hi_exp);

  // The legend sits right of the plot, as wide as its longest label (about 6.6 px a character at 12 px).
  std::size_t longest = 0;
  for (const auto& line : chart.lines) longest = std::max(longest, line.label.size());
  const double legend = chart.lines.empty() ? 20.0 : 60.0 + 6.6 * static_cast<double>(longest);
  const double left = 90, right = std::max(left + 200.0, chart.width - legend), top = 50, bottom = chart.height - 60.0;
  auto px = [&](double x) { return log_position(x, xl, xh, left, right); };
  auto py = [&](double y) { return log_position(y, yl, yh, bottom, top); };

  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      chart.width, chart.height);
  // The title fits the width: its font shrinks down to 11 px (about 0.6 em a character in bold sans-serif),
  // then the middle of the text gives way to "...", so a long file name keeps its start and its end.
  const double title_room = chart.width - left - 10;
  std::string title = chart.title;
  double title_px = 16;
  const auto title_width = [&](double px) { return 0.6 * px * static_cast<double>(title.size()); };
  if (title_width(title_px) > title_room) title_px = std::max(11.0, title_room / (0.6 * static_cast<double>(title.size())));
  if (title_width(title_px) > title_room) {
    const auto fits = static_cast<std::size_t>(std::max(0.0, title_room / (0.6 * title_px)));
    const std::size_t keep = fits > 3 ? fits - 3 : 0;
    // Cuts on character boundaries: a UTF-8 continuation byte (10xxxxxx) never starts or ends a kept part.
    const auto continuation = [&](std::size_t i) { return i < title.size() && (title[i] & 0xC0) == 0x80; };
    std::size_t head = keep / 2, tail = title.size() - (keep - keep / 2);
    while (head > 0 && continuation(head)) --head;
    while (continuation(tail)) ++tail;
    title = title.substr(0, head) + "..." + title.substr(tail);
  }
  svg += fmt::format("<text x=\"{}\" y=\"28\" font-size=\"{:.0f}\" font-weight=\"bold\">{}<title>{}</title></text>\n",
                     left, title_px, escape(title), escape(chart.title));
  for (int e = x_lo_exp; e <= x_hi_exp; ++e) {
    const double x = px(std::pow(10.0, e));
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/>\n", x, top, bottom);
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x, bottom + 18, decade_label(e));
  }
  for (int e = y_lo_exp; e <= y_hi_exp; ++e) {
    const double y = py(std::pow(10.0, e));
    svg += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>\n", left, y, right);
    svg += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", left - 6, y + 4, decade_label(e));
  }
  svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333\"/>\n", left, top,
                     right - left, bottom - top);
  svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", (left + right) / 2,
                     chart.height - 18, escape(chart.x_label));
  svg += fmt::format("<text transform=\"translate(22 {:.1f}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
                     (top + bottom) / 2, escape(chart.y_label));
  for (std::size_t i = 0; i < chart.lines.size(); ++i) {
    const auto& line = chart.lines[i];
    const char* colour = kColours[i % std::size(kColours)];
    std::string points;
    for (const auto& [x, y] : line.points) {
      if (!(x > 0) || !(y > 0)) continue;
      points += fmt::format("{:.1f},{:.1f} ", px(x), py(y));
    }
    svg += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>\n", points, colour,
                       line.dashed ? " stroke-dasharray=\"6 4\"" : "");
    const double ly = top + 14 + 18.0 * static_cast<double>(i);
    svg += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"{3}\" stroke-width=\"2\"/>\n",
                       right + 12, ly, right + 36, colour);
    svg += fmt::format("<text x=\"{}\" y=\"{:.1f}\">{}</text>\n", right + 42, ly + 4, escape(line.label));
  }
  // Points closer than a label's height share one label ("0,1"): two kernels of one shape land on one spot,
  // and their labels printed over each other read as neither. Each circle keeps its own tooltip.
  struct Label {
    double x, y;
    std::string text;
  };
  std::vector<Label> labels;
  for (const auto& p : chart.points) {
    if (!(p.x > 0) || !(p.y > 0)) continue;
    const double x = px(p.x), y = py(p.y);
    svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"#222\"><title>{}</title></circle>\n", x, y,
                       escape(p.label));
    const auto near = std::find_if(labels.begin(), labels.end(),
                                   [&](const Label& l) { return std::abs(l.x - x) < 8 && std::abs(l.y - y) < 8; });
    if (near != labels.end()) {
      near->text += "," + p.label;
    } else {
      labels.push_back({x, y, p.label});
    }
  }
  for (const Label& l : labels) {
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\">{}</text>\n", l.x + 6, l.y - 6, escape(l.text));
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace perfhound::report
