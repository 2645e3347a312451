#include "cli/trace_command.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <optional>
#include <ostream>

#include "cli/input_diagnostics.h"
#include "cli/number_checks.h"
#include "cli/output.h"
#include "core/conditions.h"
#include "core/diagnostics.h"
#include "core/units.h"
#include "report/json_document.h"
#include "report/table_writer.h"
#include "report/trace_report_writer.h"
#include "trace/annotated_trace_writer.h"
#include "trace/importer.h"
#include "trace/range_window.h"
#include "trace/rank_comparison.h"
#include "trace/trace_analysis.h"

namespace perfhound::cli {
namespace {

namespace fs = std::filesystem;
using core::format_duration_ns;

bool looks_like_trace_file(const fs::path& p) {
  const std::string name = p.filename().string();
  auto ends_with = [&](std::string_view s) { return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0; };
  return ends_with(".json") || ends_with(".json.gz") || ends_with(".sqlite") || ends_with(".sqlite3");
}

void fill_conditions(core::Conditions& c, const trace::Timeline& t) {
  c.set("trace", t.info.source);
  c.set("trace_format", t.info.format);
  if (!t.info.devices.empty()) {
    c.set("gpu", t.info.devices.front().name);
    c.set("gpu_count_in_trace", t.info.devices.size());
  }
  if (!t.info.cuda_runtime_version.empty()) c.set("cuda_runtime", t.info.cuda_runtime_version);
  if (!t.info.cuda_driver_version.empty()) c.set("cuda_driver_api", t.info.cuda_driver_version);
  if (t.info.rank) c.set("rank", *t.info.rank);
  if (t.info.world_size) c.set("world_size", *t.info.world_size);
  if (t.info.recorder_dropped_records) c.set("recorder_dropped_records", *t.info.recorder_dropped_records);
  if (!t.info.recorder.empty()) c.set("recorded_by", t.info.recorder);
  c.set("window_s", core::ns_to_seconds(t.window_end_ns - t.window_start_ns));
}

// Warnings are printed as well as written into the JSON; notes (severity info) only into the JSON.
std::vector<core::Diagnostic> warnings_of(const std::vector<core::Diagnostic>& diagnostics) {
  std::vector<core::Diagnostic> warnings;
  for (const auto& d : diagnostics) {
    if (d.kind->severity != core::Severity::kInfo) warnings.push_back(d);
  }
  return warnings;
}

std::string import_summary(const trace::Timeline& t) {
  std::string s = fmt::format("\nread {} events ({} GPU, {} host, {} ignored: flows, metadata, instants)",
                              t.stats.events_read, t.gpu.size(), t.host.size(), t.stats.events_ignored);
  for (const auto& [category, count] : t.stats.unknown_categories) s += fmt::format("; {} of unknown category '{}'", count, category);
  return s + "\n";
}

class TraceCommand final : public Command {
 public:
  std::string_view name() const override { return "trace"; }
  std::string_view summary() const override {
    return "Name the bottleneck in a PyTorch-profiler or nsys trace (or a folder of per-rank traces)";
  }

  void add_flags(CLI::App& app) override {
    app.add_option("path", path_,
                   "Trace file (Kineto .json / .json.gz, nsys .sqlite) or a folder of per-rank trace files")
        ->required();
    app.add_option("--top", top_, "How many kernels the kernel table lists (0 lists all)")
        ->check(whole_number_in(0, 1000000))
        ->default_val(10);
    app.add_option("--gaps", longest_gaps_, "How many of the longest idle gaps to list per GPU")
        ->check(whole_number_in(0, 1000000))
        ->default_val(5);
    app.add_option("--range", range_,
                   "Analyze only the span of the user annotation / NVTX range of this exact name (e.g. 'loop', "
                   "'ProfilerStep#3'): the steady state without the start-up around it")
        ->check(CLI::Validator([](std::string& text) { return text.empty() ? std::string("give a range name, not ''") : std::string(); },
                               "NAME"));
    app.add_option("--range-index", range_index_, "With --range: which range of that name, 1-based (default 1)")
        ->check(whole_number_in(1, 1000000000))
        ->default_val(1);
    app.add_option("--annotate", annotate_path_,
                   "Write the trace with the idle gaps and the verdict added as events, for the Perfetto UI "
                   "(gzip if it ends in .gz)");
    add_output_flags(app, output_);
  }

  core::Result<int> run(const Context& context) override {
    PH_TRY(check_not_an_input("-o", output_.output_path, {path_}));
    PH_TRY(check_not_an_input("--annotate", annotate_path_, {path_}));
    PH_TRY(check_distinct_outputs("--annotate", annotate_path_, "-o", output_.output_path));
    std::error_code ec;
    if (range_index_ != 1 && range_.empty()) return core::Error{"--range-index needs --range NAME"};
    if (fs::is_directory(path_, ec)) {
      if (!range_.empty()) return core::Error{fmt::format("--range takes one trace file, not the folder '{}'", path_)};
      return run_ranks(context);
    }
    PH_ASSIGN_OR_RETURN(trace::Timeline timeline, trace::import_trace(path_));
    std::optional<trace::RangeWindow> window;
    if (!range_.empty()) {
      if (!annotate_path_.empty()) {
        return core::Error{"--annotate writes the whole trace back; it does not combine with --range"};
      }
      PH_ASSIGN_OR_RETURN(window, trace::restrict_to_range(timeline, range_, range_index_).with_context(
                                      fmt::format("'{}'", path_)));
    }
    const trace::TraceAnalysis analysis = trace::analyze_trace(timeline, static_cast<std::size_t>(top_));
    core::Conditions conditions = core::Conditions::capture(context.argc, context.argv);
    fill_conditions(conditions, timeline);
    if (window) {
      conditions.set("range", {{"name", window->name},
                               {"occurrence", window->occurrence},
                               {"occurrences", window->occurrences},
                               {"duration_s", core::ns_to_seconds(window->end_ns - window->start_ns)},
                               {"gpu_events_dropped", window->gpu_dropped},
                               {"gpu_events_clipped", window->gpu_clipped},
                               {"host_events_dropped", window->host_dropped},
                               {"host_events_clipped", window->host_clipped}});
    }
    if (!annotate_path_.empty()) {
      PH_TRY(trace::write_annotated_trace(timeline, analysis, annotate_path_));
      *context.err << fmt::format("perfhound trace: wrote the annotated trace to '{}' (open it in ui.perfetto.dev)\n",
                                  annotate_path_);
    }
    const std::vector<core::Diagnostic> diagnostics = trace_diagnostics(timeline);
    const auto document = report::make_json_document("trace", conditions, trace::to_json(analysis, static_cast<std::size_t>(longest_gaps_)),
                                                     core::diagnostics_to_json(diagnostics));
    std::string text = report::render_trace_report(timeline, analysis, {static_cast<std::size_t>(longest_gaps_)});
    text += import_summary(timeline);
    if (window) {
      text += fmt::format("window: range '{}' ({} of {}), {}; outside it {} GPU and {} host events left out, {} and {} "
                          "cut at its edges\n",
                          window->name, window->occurrence, window->occurrences,
                          format_duration_ns(static_cast<double>(window->end_ns - window->start_ns)), window->gpu_dropped,
                          window->host_dropped, window->gpu_clipped, window->host_clipped);
    }
    text += conditions_block(conditions);
    PH_TRY(emit_result(context, output_, document, text, diagnostic_lines(warnings_of(diagnostics))));
    return kExitOk;
  }

 private:
  core::Result<int> run_ranks(const Context& context) {
    if (!annotate_path_.empty()) {
      return core::Error{fmt::format("--annotate takes one trace file, not the folder '{}'", path_)};
    }
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(path_)) {
      if (entry.is_regular_file() && looks_like_trace_file(entry.path())) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) {
      return core::Error{fmt::format("folder '{}' holds no trace files (*.json, *.json.gz, *.sqlite)", path_)};
    }
    core::Conditions conditions = core::Conditions::capture(context.argc, context.argv);
    conditions.set("trace_folder", path_);
    conditions.set("rank_count", files.size());
    std::vector<trace::RankSummary> summaries;
    bool ranks_stated = false;  // some trace carries distributedInfo: these are ranks of one job, not just files
    auto per_rank = nlohmann::ordered_json::array();
    auto diagnostics = nlohmann::ordered_json::array();
    std::vector<core::Diagnostic> warnings;
    std::string verdicts;
    for (std::size_t i = 0; i < files.size(); ++i) {
      auto timeline = trace::import_trace(files[i].string());
      if (!timeline.ok()) return std::move(timeline).with_context(fmt::format("rank file {} of {}", i + 1, files.size())).error();
      const trace::TraceAnalysis analysis = trace::analyze_trace(*timeline, static_cast<std::size_t>(top_));
      if (i == 0 && !timeline->info.devices.empty()) conditions.set("gpu", timeline->info.devices.front().name);
      summaries.push_back(trace::summarize_rank(*timeline, analysis, static_cast<int>(i)));
      nlohmann::ordered_json r;
      r["source"] = timeline->info.source;
      r["rank"] = summaries.back().rank;
      r["analysis"] = trace::to_json(analysis, static_cast<std::size_t>(longest_gaps_));
      per_rank.push_back(std::move(r));
      const std::vector<core::Diagnostic> rank_diagnostics = trace_diagnostics(*timeline);
      for (const auto& d : warnings_of(rank_diagnostics)) warnings.push_back(d);
      for (auto& d : core::diagnostics_to_json(rank_diagnostics)) diagnostics.push_back(std::move(d));
      verdicts += fmt::format("  rank {}: {}\n", summaries.back().rank, analysis.verdict.summary);
      ranks_stated = ranks_stated || timeline->info.rank.has_value();
    }
    for (std::size_t i = 0; i < summaries.size(); ++i) {
      for (std::size_t j = i + 1; j < summaries.size(); ++j) {
        if (summaries[i].rank == summaries[j].rank) {
          return core::Error{fmt::format("'{}' and '{}' are both rank {}: one trace per rank", summaries[i].source,
                                         summaries[j].source, summaries[i].rank)};
        }
      }
    }
    const trace::RankComparison comparison = trace::compare_ranks(std::move(summaries));
    nlohmann::ordered_json result;
    result["comparison"] = trace::to_json(comparison);
    result["ranks"] = std::move(per_rank);
    const auto document = report::make_json_document("trace", conditions, std::move(result), std::move(diagnostics));

    std::string text = fmt::format("perfhound trace: folder '{}', {} ranks\n\n", path_, comparison.ranks.size());
    if (comparison.ranks.size() == 1) {
      text += "VERDICT: one rank: nothing to compare (its own verdict is below)\n";
    } else if (comparison.straggler) {
      // "Every collective waits for it" holds for ranks of one synchronous job; traces with no communication
      // and no distributedInfo may be unrelated runs, and the slowest of them is only that.
      const bool one_job = ranks_stated || comparison.least_comm_rank >= 0;
      text += fmt::format("VERDICT: straggler: rank {} takes {:.2f}x the median rank's time ({} vs {}); {}\n",
                          comparison.slowest_rank, comparison.slowest_over_median,
                          format_duration_ns(static_cast<double>(comparison.slowest_time_ns)),
                          format_duration_ns(static_cast<double>(comparison.median_time_ns)),
                          one_job ? "every collective waits for it"
                                  : "but no trace has communication or distributedInfo (ranks are the files' order): "
                                    "if these are not ranks of one job, it is only the slowest file");
      text += "  next steps: profile that rank alone (its verdict below), check its data shard, host and GPU clocks\n";
    } else {
      text += fmt::format("VERDICT: no straggler: the slowest rank (rank {}) is within {:.0f}% of the median\n",
                          comparison.slowest_rank, (trace::kStragglerRatio - 1.0) * 100.0);
    }
    if (comparison.ranks.size() > 1 && comparison.least_comm_rank >= 0) {
      text += fmt::format("  rank {} spends the least time in communication: in a synchronous job the others wait for "
                          "the slowest rank inside their collectives, so this is the rank to look at first\n",
                          comparison.least_comm_rank);
    }
    text += "\nper-rank verdicts:\n" + verdicts + "\n";
    report::TableWriter t({{"rank", report::Align::kLeft}, {"time"}, {"measured as", report::Align::kLeft}, {"GPU busy"},
                           {"communication"}, {"exposed comm"}, {"bottleneck", report::Align::kLeft}});
    for (const auto& r : comparison.ranks) {
      t.add_row({std::to_string(r.rank), format_duration_ns(static_cast<double>(r.time_ns)),
                 r.from_steps ? "median step" : "active span", format_duration_ns(static_cast<double>(r.busy_ns)),
                 format_duration_ns(static_cast<double>(r.comm_ns)), format_duration_ns(static_cast<double>(r.exposed_comm_ns)),
                 std::string(trace::bottleneck_kind_name(r.verdict))});
    }
    text += t.render();
    text += conditions_block(conditions);
    PH_TRY(emit_result(context, output_, document, text, diagnostic_lines(warnings)));
    return kExitOk;
  }

  std::string path_;
  int top_ = 10;  // int, not size_t: CLI11 would wrap "-1" into a huge size_t before any check could see it
  int longest_gaps_ = 5;
  std::string annotate_path_;
  std::string range_;
  int range_index_ = 1;
  OutputOptions output_;
};

}  // namespace

std::unique_ptr<Command> make_trace_command() { return std::make_unique<TraceCommand>(); }

}  // namespace perfhound::cli
