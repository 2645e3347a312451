// The HTML report of `perfhound report`: one self-contained file (no network needed to view it) holding, at
// the top, the conditions block of every input (each condition key and value, the status, the diagnostics),
// then the charts of report/report_charts.h drawn by Vega-Lite, whose JavaScript is inlined. Pure: documents
// and library text in, one HTML string out.
//
// Safety: text from the documents is HTML-escaped; JSON inside <script> has "</" written as "<\/", "<!--" as
// "<\u0021--" and "<script" as "\u003cscript" (all still the same JSON), so no value can end the script
// element or open another; in the inlined libraries "</script" becomes "<\/script".
//
// The page records every uncaught error, unhandled rejection and console.error in <body data-errors="N">
// (and lists them at the top of the page), and counts drawn charts in data-charts-rendered against
// data-charts, so a headless browser can tell that the report drew.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>

#include "report/report_input.h"

namespace perfhound::report {

// The charting libraries as the browser loads them (UMD bundles that define the globals vega, vegaLite
// and vegaEmbed), and a line naming their versions for the page's footer.
struct HtmlAssets {
  std::string_view vega_js;
  std::string_view vega_lite_js;
  std::string_view vega_embed_js;
  std::string_view versions;  // e.g. "vega 6.4.0, vega-lite 6.4.3, vega-embed 7.3.0"
};

struct HtmlReportOptions {
  std::string title;  // empty: "perfhound report: " and the input labels
};

std::string render_html_report(std::span<const ReportInput> inputs, const HtmlAssets& assets,
                               const HtmlReportOptions& options = {});

// A page with one chart and nothing else, sized to it, for a screenshot (--format png).
std::string render_chart_html(const nlohmann::ordered_json& spec, const HtmlAssets& assets, std::string_view title);

// &, <, >, " and ' as character references.
std::string html_escape(std::string_view text);
// The JSON as text that is safe inside <script>...</script> and parses to the same value.
std::string json_for_script(const nlohmann::ordered_json& value);

}  // namespace perfhound::report
