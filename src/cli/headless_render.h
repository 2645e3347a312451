// One chart of `perfhound report` as a file for CI logs and papers, drawn by tools outside this process:
//   SVG: Node.js runs the embedded vega and vega-lite bundles and vega's own SVG serializer
//        (new vega.View(vega.parse(vegaLite.compile(spec).spec), {renderer: 'none'}).toSVG()), so no canvas
//        package is needed;
//   PNG: headless Chromium loads the one-chart page (report::render_chart_html) and takes a screenshot the
//        size of the drawn chart.
// Both programs are looked up on PATH (node or nodejs; chromium, chromium-browser, google-chrome); when one
// is missing the error names it and scripts/install-deps. Each run gets a fresh temporary directory (the
// inputs, Chromium's profile) that is removed afterwards, and a time limit.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "report/html_report.h"

namespace perfhound::cli {

// Chromium's flags for every run: headless, no sandbox (containers, root), no GPU, and none of the
// background traffic (component updates, sync, field trials) a first start makes, in a throwaway profile.
std::vector<std::string> chromium_base_flags(const std::string& user_data_dir);

// The SVG document of a Vega-Lite spec.
core::Result<std::string> render_svg_with_node(const nlohmann::ordered_json& spec, const report::HtmlAssets& assets);

// The PNG bytes of the chart drawn by `spec`; an error when it drew with errors (they are quoted).
core::Result<std::string> render_png_with_chromium(const nlohmann::ordered_json& spec, const report::HtmlAssets& assets,
                                                   std::string_view title);

}  // namespace perfhound::cli
