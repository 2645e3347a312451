#include "cli/stats_command.h"

#include <array>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/number_checks.h"
#include "cli/output.h"
#include "core/bootstrap.h"
#include "core/conditions.h"
#include "core/diagnostics.h"
#include "core/percentile.h"
#include "core/sample_parser.h"
#include "core/units.h"
#include "report/json_document.h"
#include "report/table_writer.h"

namespace perfhound::cli {
namespace {

// How the numbers in the file are read and printed. JSON always holds SI base units (s, bytes).
struct UnitSpec {
  std::string_view name;
  double to_si;              // multiply a file value by this to get SI base units
  std::string_view si_unit;  // "s", "bytes" or "" (plain number)
};

constexpr UnitSpec kUnits[] = {
    {"ns", 1e-9, "s"}, {"us", 1e-6, "s"}, {"ms", 1e-3, "s"}, {"s", 1, "s"}, {"bytes", 1, "bytes"}, {"none", 1, ""}};

// Coefficient of variation above which we say the samples are noisy; 0.2 is where hyperfine's outlier and
// nvbench's noise warnings start to matter for A/B claims of a few percent.
constexpr double kHighVariabilityCv = 0.2;

class StatsCommand final : public Command {
 public:
  std::string_view name() const override { return "stats"; }
  std::string_view summary() const override {
    return "Summary statistics of a column of samples: percentiles, bootstrap CIs, warm-up discarded";
  }

  void add_flags(CLI::App& app) override {
    app.add_option("file", path_, "Text or CSV/TSV file of samples, one per line ('-' for stdin)")->required();
    app.add_option("--column", column_, "Column to read: a header name or a 1-based index (default: the first)");
    app.add_option("--unit", unit_, "Unit of the values: ns, us, ms, s, bytes or none")
        ->check(CLI::IsMember({"ns", "us", "ms", "s", "bytes", "none"}))
        ->default_val("none");
    app.add_option("--warmup", warmup_, "Discard this many leading samples as warm-up (reported)")
        ->check(whole_number_in(0))
        ->default_val(0);
    app.add_option("--confidence", confidence_, "Confidence level of the bootstrap intervals, in (0, 1)")
        ->check(number_in(0.5, 0.999))
        ->default_val(0.95);
    app.add_option("--resamples", resamples_, "Bootstrap resamples per interval")
        ->check(whole_number_in(100, 1000000))
        ->default_val(2000);
    app.add_option("--hardware", hardware_, "What the samples were measured on, e.g. 'NVIDIA H200' (audit asks for it)")
        ->check(condition_text());
    app.add_option("--seed", seed_, "Seed of the bootstrap resampling (written into the result)")->default_val(1)->check(whole_number_in(0));
    add_output_flags(app, output_);
  }

  core::Result<int> run(const Context& context) override {
    if (path_ != "-") PH_TRY(check_not_an_input("-o", output_.output_path, {path_}));
    PH_ASSIGN_OR_RETURN(const std::string input, read_input());
    PH_ASSIGN_OR_RETURN(core::SampleColumn column, core::parse_sample_column(input, {column_}, source_name()));
    const UnitSpec& unit = find_unit(unit_);
    if (column.values.empty()) {
      return core::Error{fmt::format("{} holds no numbers in {} (a first line that is not a number is read as "
                                     "the header)",
                                     source_name(), column.column_name.empty() ? "it" : "'" + column.column_name + "'")};
    }
    if (column.values.size() <= warmup_) {
      return core::Error{fmt::format("{}: --warmup {} discards all {} samples", source_name(), warmup_,
                                     column.values.size())};
    }
    std::vector<double> values(column.values.begin() + static_cast<std::ptrdiff_t>(warmup_), column.values.end());
    for (double& v : values) v *= unit.to_si;
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    const core::Summary summary = core::summarize_sorted(sorted);

    nlohmann::ordered_json ci = nullptr;
    core::Interval p50_ci{}, p99_ci{};
    const bool have_ci = sorted.size() >= 2;
    if (have_ci) {
      PH_ASSIGN_OR_RETURN(p50_ci, core::bootstrap_percentile_ci(values, 50, confidence_, resamples_, seed_));
      PH_ASSIGN_OR_RETURN(p99_ci, core::bootstrap_percentile_ci(values, 99, confidence_, resamples_, seed_));
    }

    std::vector<core::Diagnostic> diagnostics = diagnose(summary);
    core::Conditions conditions = core::Conditions::capture(context.argc, context.argv);
    conditions.set("source", path_ == "-" ? std::string("<stdin>") : path_);  // the path itself, not quoted
    conditions.set("column", column.column_name);
    conditions.set("unit", unit_);
    conditions.set("warmup_discarded", warmup_);
    if (!hardware_.empty()) conditions.set("hardware", hardware_);
    conditions.set("bootstrap", {{"confidence", confidence_}, {"resamples", resamples_}, {"seed", seed_}});

    nlohmann::ordered_json result = summary_json(summary, unit);
    result["warmup_discarded"] = warmup_;
    if (have_ci) {
      result["confidence_intervals"] = {
          {"confidence", confidence_},
          {"method", "percentile bootstrap (Efron & Tibshirani 1993)"},
          {"p50", {{"lo", p50_ci.lo}, {"hi", p50_ci.hi}}},
          {"p99", {{"lo", p99_ci.lo}, {"hi", p99_ci.hi}}}};
    }
    const auto document =
        report::make_json_document("stats", conditions, result, core::diagnostics_to_json(diagnostics));
    const std::string text = render_text(column, summary, unit, have_ci, p50_ci, p99_ci, diagnostics, conditions);
    PH_TRY(emit_result(context, output_, document, text));
    return kExitOk;
  }

 private:
  std::string source_name() const { return path_ == "-" ? std::string("<stdin>") : fmt::format("'{}'", path_); }

  core::Result<std::string> read_input() const {
    std::ostringstream buffer;
    if (path_ == "-") {
      buffer << std::cin.rdbuf();
      return buffer.str();
    }
    std::error_code ec;
    if (std::filesystem::is_directory(path_, ec)) {
      return core::Error{fmt::format("{} is a folder: give a file of samples", source_name())};
    }
    std::ifstream in(path_, std::ios::binary);
    if (!in) return core::Error{fmt::format("cannot open {}: no such file or not readable", source_name())};
    buffer << in.rdbuf();
    return buffer.str();
  }

  static const UnitSpec& find_unit(std::string_view name) {
    for (const auto& u : kUnits) {
      if (u.name == name) return u;
    }
    return kUnits[std::size(kUnits) - 1];
  }

  static std::string format_value(double si_value, const UnitSpec& unit) {
    if (unit.si_unit == "s") return core::format_duration_ns(si_value * 1e9);
    if (unit.si_unit == "bytes") return core::format_bytes(si_value);
    return core::format_number(si_value);
  }

  static nlohmann::ordered_json summary_json(const core::Summary& s, const UnitSpec& unit) {
    const std::string suffix = unit.si_unit == "s" ? "_s" : unit.si_unit == "bytes" ? "_bytes" : "";
    nlohmann::ordered_json j;
    j["count"] = s.count;
    j["unit"] = unit.si_unit;
    const std::pair<const char*, double> fields[] = {{"mean", s.mean}, {"stddev", s.stddev}, {"min", s.min},
                                                     {"p50", s.p50},   {"p90", s.p90},       {"p95", s.p95},
                                                     {"p99", s.p99},   {"p99_9", s.p999},    {"max", s.max}};
    for (const auto& [name, value] : fields) j[std::string(name) + suffix] = value;
    return j;
  }

  std::vector<core::Diagnostic> diagnose(const core::Summary& s) const {
    std::vector<core::Diagnostic> out;
    // The tails the table quotes.
    if (const std::string tails = core::short_tails(s.count, std::array{90.0, 95.0, 99.0, 99.9}); !tails.empty()) {
      out.push_back({&core::kFewSamplesForTail, fmt::format("{} from {} samples", tails, s.count)});
    }
    if (warmup_ == 0) out.push_back({&core::kNoWarmupDiscarded, "all samples were kept"});
    if (s.count > 1 && s.mean != 0 && s.stddev / std::fabs(s.mean) > kHighVariabilityCv) {
      out.push_back({&core::kHighVariability, fmt::format("coefficient of variation {:.2f}", s.stddev / std::fabs(s.mean))});
    }
    return out;
  }

  std::string render_text(const core::SampleColumn& column, const core::Summary& s, const UnitSpec& unit, bool have_ci,
                          const core::Interval& p50_ci, const core::Interval& p99_ci,
                          const std::vector<core::Diagnostic>& diagnostics, const core::Conditions& conditions) const {
    std::string out = fmt::format("perfhound stats: {} ({}), {} samples after {} warm-up discarded\n\n", source_name(),
                                  column.column_name, s.count, warmup_);
    const std::string ci_header = fmt::format("{:g}% CI (bootstrap)", confidence_ * 100);
    report::TableWriter table({{"statistic", report::Align::kLeft}, {"value"}, {ci_header}});
    auto interval = [&](const core::Interval& i) {
      return fmt::format("[{}, {}]", format_value(i.lo, unit), format_value(i.hi, unit));
    };
    table.add_row({"count", std::to_string(s.count), ""});
    table.add_row({"mean", format_value(s.mean, unit), ""});
    table.add_row({"stddev", format_value(s.stddev, unit), ""});
    table.add_row({"min", format_value(s.min, unit), ""});
    table.add_row({"p50", format_value(s.p50, unit), have_ci ? interval(p50_ci) : ""});
    table.add_row({"p90", format_value(s.p90, unit), ""});
    table.add_row({"p95", format_value(s.p95, unit), ""});
    table.add_row({"p99", format_value(s.p99, unit), have_ci ? interval(p99_ci) : ""});
    table.add_row({"p99.9", format_value(s.p999, unit), ""});
    table.add_row({"max", format_value(s.max, unit), ""});
    out += table.render();
    if (!diagnostics.empty()) {
      out += "\n";
      for (const auto& d : diagnostics) out += core::format_diagnostic(d);
    }
    out += conditions_block(conditions);
    return out;
  }

  std::string path_;
  std::string column_;
  std::string unit_ = "none";
  std::size_t warmup_ = 0;
  std::string hardware_;
  double confidence_ = 0.95;
  int resamples_ = 2000;
  std::uint64_t seed_ = 1;
  OutputOptions output_;
};

}  // namespace

std::unique_ptr<Command> make_stats_command() { return std::make_unique<StatsCommand>(); }

}  // namespace perfhound::cli
