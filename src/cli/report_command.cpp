#include "cli/report_command.h"

#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "cli/headless_render.h"
#include "cli/output.h"
#include "core/text_file.h"
#include "report/html_report.h"
#include "report/json_document.h"
#include "report/report_assets.h"
#include "report/report_charts.h"
#include "report/report_input.h"

namespace perfhound::cli {
namespace {

std::string chart_names() {
  std::string names;
  for (const auto& c : report::chart_catalogue()) names += (names.empty() ? "" : ", ") + std::string(c.name);
  return names;
}

class ReportCommand final : public Command {
 public:
  std::string_view name() const override { return "report"; }
  std::string_view summary() const override {
    return "Charts of result JSON files (load runs, sweeps) in one self-contained HTML file, or one chart as SVG/PNG";
  }

  void add_flags(CLI::App& app) override {
    app.add_option("files", paths_, "Result JSON files perfhound wrote (-o / --json): load runs, sweeps, others")
        ->required()
        ->expected(1, -1);
    app.add_option("-o,--output", output_path_, "File to write (default: report.html, report.svg or report.png)");
    app.add_option("--title", title_, "Title of the report or chart (default: from the input file names)");
    app.add_option("--format", format_, "html: the whole report; svg or png: one chart (--chart)")
        ->check(CLI::IsMember({"html", "svg", "png"}))
        ->default_val("html");
    app.add_option("--chart", chart_, fmt::format("The chart of --format svg|png: {} (default: pareto when an input "
                                                  "is a sweep, else ttft_cdf)",
                                                  chart_names()));
  }

  core::Result<int> run(const Context& context) override {
    PH_TRY(check_not_an_input("-o", output_path_, paths_));
    // An -o whose extension names another format (an SVG in r.png) opens as neither.
    for (const std::string ext : {"html", "htm", "svg", "png"}) {
      if (output_path_.ends_with("." + ext) && ext.substr(0, 3) != format_.substr(0, 3)) {
        return core::Error{fmt::format("-o '{}' is named .{}, but --format is {}: give --format {} or another name",
                                       output_path_, ext, format_, ext == "htm" ? "html" : ext)};
      }
    }
    std::vector<report::ReportInput> inputs;
    for (const std::string& path : paths_) {
      PH_ASSIGN_OR_RETURN(const std::string text, core::read_text_file(path));
      PH_ASSIGN_OR_RETURN(report::ReportInput input, report::parse_report_input(path, text));
      inputs.push_back(std::move(input));
    }
    const std::string output = output_path_.empty() ? "report." + format_ : output_path_;
    const report::HtmlAssets& assets = report::embedded_report_assets();
    if (format_ == "html") {
      if (!chart_.empty()) {
        return core::Error{"--chart picks the one chart of --format svg or png; the HTML report holds them all"};
      }
      std::size_t charts = 0;
      for (const auto& c : report::chart_catalogue()) charts += report::chart_spec(c.id, inputs).has_data;
      for (const auto& input : inputs) {
        if (input.kind() != "perfhound.load" && input.kind() != "perfhound.sweep") {
          *context.err << fmt::format("perfhound report: '{}': no charts for kind {} yet; its conditions are in "
                                      "the report\n",
                                      input.path, input.kind());
        }
      }
      PH_TRY(report::write_text_file(output, report::render_html_report(inputs, assets, {title_})).with_context("-o"));
      *context.err << fmt::format("perfhound report: wrote '{}' ({} input{}, {} chart{}; open it in a browser, no "
                                  "network needed)\n",
                                  output, inputs.size(), inputs.size() == 1 ? "" : "s", charts, charts == 1 ? "" : "s");
      return kExitOk;
    }

    report::ChartId chart = report::default_chart(inputs);
    if (!chart_.empty()) {
      PH_ASSIGN_OR_RETURN(chart, report::chart_from_name(chart_).with_context("--chart"));
    }
    const report::ChartInfo& info = report::chart_info(chart);
    report::ChartSpec spec = report::chart_spec(chart, inputs);
    if (!spec.has_data) {
      return core::Error{fmt::format("--chart {}: no input has its data (it needs {})", info.name, info.needs)};
    }
    if (!title_.empty()) spec.spec["title"]["text"] = title_;
    for (const auto& note : spec.notes) *context.err << fmt::format("perfhound report: {}: {}\n", info.name, note);
    std::string bytes;
    if (format_ == "svg") {
      PH_ASSIGN_OR_RETURN(bytes, render_svg_with_node(spec.spec, assets));
    } else {
      PH_ASSIGN_OR_RETURN(bytes, render_png_with_chromium(spec.spec, assets, title_.empty() ? info.name : title_));
    }
    PH_TRY(report::write_text_file(output, bytes).with_context("-o"));
    *context.err << fmt::format("perfhound report: wrote {} chart to '{}'\n", info.name, output);
    return kExitOk;
  }

 private:
  std::vector<std::string> paths_;
  std::string output_path_;
  std::string title_;
  std::string format_ = "html";
  std::string chart_;
};

}  // namespace

std::unique_ptr<Command> make_report_command() { return std::make_unique<ReportCommand>(); }

}  // namespace perfhound::cli
