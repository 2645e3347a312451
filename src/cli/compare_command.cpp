#include "cli/compare_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "cli/number_checks.h"
#include "cli/output.h"
#include "compare/compare_conditions.h"
#include "compare/compare_samples.h"
#include "core/conditions.h"
#include "core/json_error.h"
#include "core/text_file.h"
#include "core/diagnostics.h"
#include "core/percentile.h"
#include "core/sample_parser.h"
#include "core/units.h"
#include "load/record_io.h"
#include "load/request_latencies.h"
#include "report/json_document.h"
#include "report/report_input.h"
#include "report/table_writer.h"

namespace perfhound::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using compare::Direction;
using compare::MetricComparison;
using compare::Verdict;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---------------------------------------------------------------------------------------------- inputs

enum class InputKind { kLoad, kStats, kSweep, kBench, kSamples };

std::string_view kind_name(InputKind k) {
  switch (k) {
    case InputKind::kLoad: return "perfhound.load";
    case InputKind::kStats: return "perfhound.stats";
    case InputKind::kSweep: return "perfhound.sweep";
    case InputKind::kBench: return "perfhound.bench";
    case InputKind::kSamples: return "samples";
  }
  return "samples";
}

// The units `perfhound stats --unit` reads, to re-read a stats document's source file as it did.
struct StatsUnit {
  std::string_view name;
  double to_si;
};
constexpr StatsUnit kStatsUnits[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}, {"bytes", 1}, {"none", 1}};

double stats_unit_to_si(std::string_view name) {
  for (const auto& u : kStatsUnits) {
    if (u.name == name) return u.to_si;
  }
  return 1;
}

std::string si_unit_of(std::string_view stats_unit) {
  if (stats_unit == "ns" || stats_unit == "us" || stats_unit == "ms" || stats_unit == "s") return "s";
  if (stats_unit == "bytes") return "bytes";
  return "";
}

// j[k1][k2]... without inserting or asserting: null where any step is missing.
const Json& at_path(const Json& j, std::initializer_list<std::string_view> path) {
  static const Json kNull;
  const Json* cur = &j;
  for (std::string_view key : path) {
    if (!cur->is_object()) return kNull;
    const auto it = cur->find(std::string(key));
    if (it == cur->end()) return kNull;
    cur = &*it;
  }
  return *cur;
}

double number_or_nan(const Json& j) { return j.is_number() ? j.get<double>() : kNaN; }

// One measured run: one side's evidence for one benchmark.
struct Run {
  std::string path;
  Json conditions;  // null for a raw sample file
  Json result;      // the document's result; null for a raw sample file
  // Values by sample set ("ttft", "tpot", "itl", "e2e" for load runs; "samples" otherwise); SI units.
  std::map<std::string, std::vector<double>> samples;
  bool has_samples = false;
  std::string samples_source;  // the records or sample file read, or why there are no samples
  Json diagnostics = Json::array();
  // The warm-up discarded before the figures (seed section 7: discarded and reported), as the document or
  // --warmup says; unset where the input does not say.
  std::optional<std::uint64_t> warmup_discarded;
  const char* warmup_unit = "sample";  // a load run's are requests
};

// `json`'s whole number, when it is one.
std::optional<std::uint64_t> whole_number(const Json& json) {
  if (json.is_number_unsigned()) return json.get<std::uint64_t>();
  return std::nullopt;
}

// "a.json (no samples; 10 warm-up requests discarded)": a run as the text report lists it.
std::string describe_run(const Run& r) {
  std::vector<std::string> parts;
  if (!r.has_samples) {
    parts.push_back("no samples");
  } else if (r.samples_source != r.path) {
    parts.push_back("samples: " + r.samples_source);
  }
  parts.push_back(r.warmup_discarded ? fmt::format("{} warm-up {}{} discarded", *r.warmup_discarded, r.warmup_unit,
                                                   *r.warmup_discarded == 1 ? "" : "s")
                                     : std::string("warm-up not stated"));
  return fmt::format("{} ({})", r.path, fmt::join(parts, "; "));
}

struct Benchmark {
  std::string name;
  std::vector<Run> a, b;
};

// The file as given, else beside the document that names it: a path recorded by another command is relative
// to that command's working directory, which is usually the document's folder or its parent.
std::optional<fs::path> resolve_beside(const std::string& file, const fs::path& document) {
  const fs::path p(file);
  std::vector<fs::path> candidates;
  if (p.is_absolute()) {
    candidates.push_back(p);
  } else {
    const fs::path dir = document.parent_path();
    candidates = {dir / p, p, dir / p.filename()};
  }
  for (const fs::path& c : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(c, ec)) return c;
  }
  return std::nullopt;
}

core::Result<Json> read_document(const fs::path& path) {
  PH_ASSIGN_OR_RETURN(const std::string text, core::read_text_file(path.string()));
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::exception& e) {  // parse_error, or out_of_range for a number too large
    return core::Error{fmt::format("'{}'{}: not valid JSON (compare reads perfhound result documents; raw "
                                   "sample files need --samples): {}",
                                   path.string(), core::json_error_byte(e) ? fmt::format(" byte {}", *core::json_error_byte(e)) : "",
                                   core::json_error_text(e))};
  }
  if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string()) {
    return core::Error{fmt::format("'{}': not a perfhound result document (no \"kind\")", path.string())};
  }
  if (!j.contains("schema_version") || !j["schema_version"].is_number_integer() ||
      j["schema_version"].get<int>() != report::kSchemaVersion) {
    return core::Error{fmt::format("'{}': schema_version {} is not the {} this perfhound reads", path.string(),
                                   j.contains("schema_version") ? j["schema_version"].dump() : "missing",
                                   report::kSchemaVersion)};
  }
  if (!j.contains("result") || !j["result"].is_object() || !j.contains("conditions") ||
      !j["conditions"].is_object()) {
    return core::Error{fmt::format("'{}': a {} document without its result or conditions", path.string(),
                                   j["kind"].get<std::string>())};
  }
  return j;
}

core::Result<InputKind> kind_of(const fs::path& path, const Json& doc) {
  const std::string kind = doc["kind"].get<std::string>();
  if (kind == "perfhound.load") return InputKind::kLoad;
  if (kind == "perfhound.stats") return InputKind::kStats;
  if (kind == "perfhound.sweep") return InputKind::kSweep;
  if (kind == "perfhound.bench") return InputKind::kBench;
  return core::Error{fmt::format("'{}' is a {} document; compare reads perfhound.load, perfhound.sweep, "
                                 "perfhound.stats and perfhound.bench results (or raw sample files with --samples)",
                                 path.string(), kind)};
}

// Per-request samples from a load run's records: completed, measured requests only, from the start the run
// reports its latencies from (docs/metrics.md).
core::Status read_load_samples(Run& run, const fs::path& document) {
  const Json& file = at_path(run.result, {"records_file"});
  if (!file.is_string()) {
    run.samples_source = "the run kept no records (perfhound load --records FILE.jsonl)";
    return {};
  }
  const std::string name = file.get<std::string>();
  const auto resolved = resolve_beside(name, document);
  if (!resolved) {
    run.samples_source = fmt::format("its records '{}' were not found", name);
    return {};
  }
  if (load::record_format_for_path(resolved->string()).ok() &&
      *load::record_format_for_path(resolved->string()) == load::RecordFormat::kCsv) {
    run.samples_source = fmt::format("its records '{}' are CSV, which does not say which run they are", name);
    return {};
  }
  Json header;
  PH_ASSIGN_OR_RETURN(const auto records, load::read_records_jsonl(resolved->string(), &header));
  // The records must be this run's: the writer stores the run's conditions as the header.
  if (header != run.conditions) {
    compare::ConditionsRule exact;
    exact.ignored.clear();
    const auto diff = compare::diff_conditions(run.conditions, header, exact);
    std::string keys;
    if (diff.ok()) {
      for (const auto& d : diff->differing) keys += (keys.empty() ? "" : ", ") + d.key;
    }
    return core::Error{fmt::format("'{}' holds the records of another run than '{}' (their conditions differ in {}); "
                                   "point records_file at this run's records",
                                   resolved->string(), run.path, keys.empty() ? "their header" : keys)};
  }
  const bool intended = at_path(run.conditions, {"parameters", "latency_from"}) == "intended send time";
  const load::LatencyStart start = intended ? load::LatencyStart::kIntended : load::LatencyStart::kSent;
  auto& ttft = run.samples["ttft"];
  auto& tpot = run.samples["tpot"];
  auto& itl = run.samples["itl"];
  auto& e2e = run.samples["e2e"];
  for (const load::RequestRecord& r : records) {
    if (r.warmup || !r.ok()) continue;
    const load::RequestLatencies l = load::compute_latencies(r, start);
    if (std::isfinite(l.ttft_s)) ttft.push_back(l.ttft_s);
    if (std::isfinite(l.tpot_s)) tpot.push_back(l.tpot_s);
    if (std::isfinite(l.e2e_s)) e2e.push_back(l.e2e_s);
    for (std::size_t i = 1; i < r.chunk_ns.size(); ++i) {
      itl.push_back(core::ns_to_seconds(r.chunk_ns[i] - r.chunk_ns[i - 1]));
    }
  }
  run.has_samples = true;
  run.samples_source = resolved->string();
  return {};
}

// The figures compare reads from a load document are numbers of 0 or more where present (a partial run may
// lack some: null). A damaged one (text, a negative rate, no summary) was read as "n/a" or compared as is.
core::Status check_load_figures(const fs::path& path, const Json& result) {
  if (!result.contains("summary") || !result["summary"].is_object()) {
    return core::Error{fmt::format("'{}': a perfhound.load document without result.summary", path.string())};
  }
  return report::check_load_summary(path.string(), result["summary"], "result.summary");
}

core::Result<Run> load_run(const fs::path& path, const Json& doc) {
  PH_TRY(check_load_figures(path, doc["result"]));
  Run run;
  run.path = path.string();
  run.conditions = doc["conditions"];
  run.result = doc["result"];
  if (doc.contains("diagnostics") && doc["diagnostics"].is_array()) run.diagnostics = doc["diagnostics"];
  run.warmup_discarded = whole_number(at_path(run.result, {"summary", "requests", "warmup_discarded"}));
  run.warmup_unit = "request";
  PH_TRY(read_load_samples(run, path));
  return run;
}

// A stats document holds its summary only; its samples are re-read from the source file it names, with the
// column, warm-up and unit it was read with, when that file is still there and still holds as many.
core::Result<Run> stats_run(const fs::path& path, const Json& doc) {
  Run run;
  run.path = path.string();
  run.conditions = doc["conditions"];
  run.result = doc["result"];
  if (!at_path(run.result, {"count"}).is_number_unsigned()) {
    return core::Error{fmt::format("'{}': result.count: missing or not a whole number (a stats result counts its samples)",
                                   path.string())};
  }
  if (doc.contains("diagnostics") && doc["diagnostics"].is_array()) run.diagnostics = doc["diagnostics"];
  run.warmup_discarded = whole_number(at_path(run.result, {"warmup_discarded"}));
  static const Json kEmpty = Json::object();
  const Json& found = at_path(run.conditions, {"parameters"});
  const Json& parameters = found.is_object() ? found : kEmpty;
  const auto text_of = [&](const char* key) {
    const Json& v = at_path(parameters, {key});
    return v.is_string() ? v.get<std::string>() : std::string();
  };
  std::string source = text_of("source");
  if (source.size() >= 2 && source.front() == '\'' && source.back() == '\'') source = source.substr(1, source.size() - 2);
  if (source.empty() || source == "<stdin>") {
    run.samples_source = "its samples came from stdin; give the files with --samples";
    return run;
  }
  const auto resolved = resolve_beside(source, path);
  if (!resolved) {
    run.samples_source = fmt::format("its source '{}' was not found; give the files with --samples", source);
    return run;
  }
  PH_ASSIGN_OR_RETURN(const std::string text, core::read_text_file(resolved->string()));
  std::string column = text_of("column");
  if (column.starts_with("column ")) column = column.substr(std::strlen("column "));
  PH_ASSIGN_OR_RETURN(const core::SampleColumn values,
                      core::parse_sample_column(text, {column}, fmt::format("'{}'", resolved->string())));
  const Json& warmup_json = at_path(parameters, {"warmup_discarded"});
  const Json& count_json = at_path(run.result, {"count"});
  const std::uint64_t warmup = warmup_json.is_number_unsigned() ? warmup_json.get<std::uint64_t>() : 0;
  const std::uint64_t expected = count_json.is_number_unsigned() ? count_json.get<std::uint64_t>() : 0;
  if (values.values.size() < warmup || values.values.size() - warmup != expected) {
    run.samples_source = fmt::format("its source '{}' now holds {} samples, not the {} it summarised",
                                     resolved->string(), values.values.size(), expected + warmup);
    return run;
  }
  const double to_si = stats_unit_to_si(text_of("unit"));
  auto& out = run.samples["samples"];
  for (std::size_t i = warmup; i < values.values.size(); ++i) out.push_back(values.values[i] * to_si);
  run.has_samples = true;
  run.samples_source = resolved->string();
  return run;
}

// ---------------------------------------------------------------------------------------------- metrics

enum class Shape { kDistribution, kPercentile, kRunValue };

struct MetricSpec {
  std::string name;   // --fail-on and JSON: "ttft", "ttft_p99", "requests_per_s"
  std::string label;  // the table: "TTFT", "TTFT p99", "requests/s"
  Shape shape = Shape::kDistribution;
  std::string sample_set;  // Run::samples key (distribution and percentile rows)
  double q = 50;           // percentile rows
  std::function<double(const Run&)> reported;  // the run's own number (percentile and run-value rows)
  std::string unit;        // "s", "bytes", "req/s", "tok/s" or "" (plain number)
  Direction direction = Direction::kLowerIsBetter;
};

const Json& latency_block(const Run& run, const std::string& metric) {
  if (metric == "itl") return at_path(run.result, {"summary", "itl"});
  const bool intended = at_path(run.conditions, {"parameters", "latency_from"}) == "intended send time";
  return at_path(run.result, {"summary", "latency", intended ? "from_intended" : "from_sent", metric});
}

std::vector<MetricSpec> load_specs() {
  std::vector<MetricSpec> specs;
  const std::pair<const char*, const char*> latencies[] = {{"ttft", "TTFT"}, {"tpot", "TPOT"}, {"itl", "ITL"},
                                                            {"e2e", "E2E"}};
  for (const auto& [name, label] : latencies) {
    const std::string metric = name;
    specs.push_back({metric, label, Shape::kDistribution, metric, 50, nullptr, "s", Direction::kLowerIsBetter});
    for (int q : {50, 95, 99}) {
      const std::string field = fmt::format("p{}_s", q);
      specs.push_back({fmt::format("{}_p{}", metric, q), fmt::format("{} p{}", label, q), Shape::kPercentile, metric,
                       static_cast<double>(q),
                       [metric, field](const Run& r) { return number_or_nan(at_path(latency_block(r, metric), {field})); }, "s",
                       Direction::kLowerIsBetter});
    }
  }
  specs.push_back({"requests_per_s", "requests/s", Shape::kRunValue, "", 0,
                   [](const Run& r) { return number_or_nan(at_path(r.result, {"summary", "throughput", "requests_per_s"})); },
                   "req/s", Direction::kHigherIsBetter});
  specs.push_back({"output_tokens_per_s", "output tok/s", Shape::kRunValue, "", 0,
                   [](const Run& r) {
                     return number_or_nan(at_path(r.result, {"summary", "throughput", "output_tokens_per_s"}));
                   },
                   "tok/s", Direction::kHigherIsBetter});
  return specs;
}

// Stats documents and raw sample files: the distribution and its percentiles; the reported numbers are the
// stats document's, or computed from the samples of a raw file.
std::vector<MetricSpec> sample_specs(const std::string& unit, Direction direction) {
  const std::string suffix = unit == "s" ? "_s" : unit == "bytes" ? "_bytes" : "";
  std::vector<MetricSpec> specs;
  specs.push_back({"samples", "samples", Shape::kDistribution, "samples", 50, nullptr, unit, direction});
  for (int q : {50, 90, 95, 99}) {
    const std::string field = fmt::format("p{}{}", q, suffix);
    specs.push_back({fmt::format("p{}", q), fmt::format("p{}", q), Shape::kPercentile, "samples",
                     static_cast<double>(q),
                     [field, q](const Run& r) {
                       if (r.result.is_object()) return number_or_nan(at_path(r.result, {field}));
                       const auto it = r.samples.find("samples");
                       if (it == r.samples.end() || it->second.empty()) return kNaN;
                       std::vector<double> sorted = it->second;
                       std::sort(sorted.begin(), sorted.end());
                       return core::percentile_of_sorted(sorted, q);
                     },
                     unit, direction});
  }
  return specs;
}

std::string format_value(double v, const std::string& unit) {
  if (std::isnan(v)) return "n/a";
  if (unit == "s") return core::format_duration_ns(v * 1e9);
  if (unit == "bytes") return core::format_bytes(v);
  if (unit.empty()) return core::format_number(v);
  return core::format_si(v, unit);
}

std::string format_change(double change) {
  if (std::isnan(change)) return "";
  return fmt::format("{:+.1f}%", change * 100);
}

// A's center is 0 (ITL gaps of chunks that arrived together): no relative change, so the shift itself.
std::string format_shift(double shift, const std::string& unit) {
  if (std::isnan(shift)) return "";
  return (shift > 0 ? "+" : "") + format_value(shift, unit);
}

std::string format_p(double p) {
  if (std::isnan(p)) return "";
  if (p < 0.001) return "<0.001";
  return fmt::format("{:.3f}", p);
}

constexpr std::string_view kOneRunNote =
    "one run per side: the ratio alone (give several runs a side, A1 A2 A3 -- B1 B2 B3, to test it)";

struct Row {
  const MetricSpec* spec = nullptr;
  MetricComparison c;
  std::string basis;  // what the n counts: "requests", "values", "runs"
};

std::vector<double> pooled(const std::vector<Run>& runs, const std::string& set) {
  std::vector<double> out;
  for (const Run& r : runs) {
    const auto it = r.samples.find(set);
    if (it != r.samples.end()) out.insert(out.end(), it->second.begin(), it->second.end());
  }
  return out;
}

std::vector<double> run_values(const std::vector<Run>& runs, const MetricSpec& spec) {
  std::vector<double> out;
  for (const Run& r : runs) {
    const double v = spec.reported(r);
    if (std::isfinite(v)) out.push_back(v);
  }
  return out;
}

const Run* without_samples(const std::vector<Run>& a, const std::vector<Run>& b) {
  for (const auto* side : {&a, &b}) {
    for (const Run& r : *side) {
      if (!r.has_samples) return &r;
    }
  }
  return nullptr;
}

core::Result<Row> compare_metric(const MetricSpec& spec, const Benchmark& bm, InputKind kind,
                                 const compare::CompareOptions& options) {
  Row row;
  row.spec = &spec;
  const bool one_each = bm.a.size() == 1 && bm.b.size() == 1;
  const Run* missing = without_samples(bm.a, bm.b);
  const std::string sample_unit = kind == InputKind::kLoad ? (spec.sample_set == "itl" ? "gaps" : "requests") : "values";
  if (spec.shape == Shape::kRunValue || (spec.shape == Shape::kPercentile && !one_each)) {
    if (one_each) {
      row.c = compare::compare_values(spec.reported(bm.a[0]), spec.reported(bm.b[0]), std::string(kOneRunNote));
    } else {
      PH_ASSIGN_OR_RETURN(row.c, compare::compare_distributions(run_values(bm.a, spec), run_values(bm.b, spec),
                                                                spec.direction, options));
    }
    row.basis = "runs";
    return row;
  }
  if (spec.shape == Shape::kPercentile) {  // one run a side
    if (missing != nullptr) {
      row.c = compare::compare_values(spec.reported(bm.a[0]), spec.reported(bm.b[0]),
                                      fmt::format("no samples, the reported numbers alone: '{}': {}", missing->path,
                                                  missing->samples_source));
      row.basis = "runs";
      return row;
    }
    PH_ASSIGN_OR_RETURN(row.c, compare::compare_percentiles(pooled(bm.a, spec.sample_set), pooled(bm.b, spec.sample_set),
                                                            spec.q, spec.direction, options));
    row.basis = sample_unit;
    return row;
  }
  if (missing != nullptr) {
    row.c.note = fmt::format("no samples: '{}': {}", missing->path, missing->samples_source);
    row.basis = sample_unit;
    return row;
  }
  PH_ASSIGN_OR_RETURN(row.c, compare::compare_distributions(pooled(bm.a, spec.sample_set), pooled(bm.b, spec.sample_set),
                                                            spec.direction, options));
  row.basis = sample_unit;
  return row;
}

// ---------------------------------------------------------------------------------------------- conditions

struct BenchmarkConditions {
  compare::ConditionsDiff across;                // A's first run against B's first run
  std::vector<std::string> refused;              // "A 'x' vs B 'y': key (a vs b), ..." for every pair that differs
  std::vector<compare::KeyDifference> differing;  // all keys that differ beyond the variable, any pair
};

core::Result<BenchmarkConditions> diff_benchmark(const Benchmark& bm, const compare::ConditionsRule& rule) {
  BenchmarkConditions out;
  PH_ASSIGN_OR_RETURN(out.across, compare::diff_conditions(bm.a[0].conditions, bm.b[0].conditions, rule));
  if (!out.across.comparable()) {
    out.refused.push_back(fmt::format("'{}' vs '{}': {}", bm.a[0].path, bm.b[0].path,
                                      compare::describe_differences(out.across.differing)));
    out.differing = out.across.differing;
  }
  // Runs of one side are repeats: only the ignored keys may differ among them.
  compare::ConditionsRule repeats = rule;
  repeats.variables.clear();
  for (const auto* side : {&bm.a, &bm.b}) {
    for (std::size_t i = 1; i < side->size(); ++i) {
      PH_ASSIGN_OR_RETURN(const auto d, compare::diff_conditions((*side)[0].conditions, (*side)[i].conditions, repeats));
      if (d.comparable()) continue;
      out.refused.push_back(fmt::format("repeats '{}' vs '{}': {}", (*side)[0].path, (*side)[i].path,
                                        compare::describe_differences(d.differing)));
      out.differing.insert(out.differing.end(), d.differing.begin(), d.differing.end());
    }
  }
  return out;
}

std::string describe_variables(const compare::ConditionsDiff& d) {
  std::string out;
  if (d.variable.empty() && d.differing.empty()) {
    out = "identical";
  } else if (d.differing.empty()) {
    out = "the same but the variable: " + compare::describe_differences(d.variable);
  } else {
    // Only --force gets here: the table must say so, not read as a clean comparison.
    out = "DIFFER (compared anyway, --force): " + compare::describe_differences(d.differing);
    if (!d.variable.empty()) out += "; the variable: " + compare::describe_differences(d.variable);
  }
  if (!d.ignored.empty()) {
    out += "; ignored:";
    for (std::size_t i = 0; i < d.ignored.size(); ++i) out += (i ? ", " : " ") + d.ignored[i];
  }
  return out;
}

// ---------------------------------------------------------------------------------------------- the command

class CompareCommand final : public Command {
 public:
  std::string_view name() const override { return "compare"; }
  std::string_view summary() const override {
    return "A against B after one change: per metric the change with its CI, the p-value and a verdict; refuses "
           "runs whose conditions differ in more than --variable";
  }

  void add_flags(CLI::App& app) override {
    app.add_option("files", files_,
                   "Result documents in pairs: A.json B.json [C.json D.json ...] (load, sweep, stats or bench results of "
                   "one kind); or several runs a side: A1.json A2.json -- B1.json B2.json")
        ->required();
    // CLI11 2.1 hands the words after a subcommand's "--" to the parent app once the subcommand's positionals
    // have their minimum; this second positional keeps one unfilled, so "--" stays here. The words after it
    // still land in `files` (which takes any number), and split_sides() finds where B starts.
    app.add_option("b_files", b_files_, "The runs of B, after '--' (A1.json A2.json -- B1.json B2.json)");
    app.add_option("--variable", variables_,
                   "A condition key that is the change under test and may differ (repeatable or comma-separated; a "
                   "prefix names a subtree: 'tool', 'workload')")
        ->delimiter(',')
        ->allow_extra_args(false);  // one word per --variable, so the files after it stay files
    app.add_flag("--force", force_, "Compare even when the conditions differ in more than --variable (warns loudly)");
    app.add_option("--alpha", alpha_, "Significance level of the tests; the intervals are at 1 - alpha")
        ->check(number_in(0.0001, 0.5))
        ->default_val(compare::kDefaultAlpha);
    app.add_option("--fail-on", fail_on_,
                   "Exit 1 when one of these metrics is significantly worse (comma-separated, e.g. "
                   "ttft_p99,throughput; 'throughput' means requests_per_s and output_tokens_per_s)")
        ->delimiter(',')
        ->allow_extra_args(false);
    app.add_flag("--samples", samples_mode_,
                 "The files are raw samples (one number per line, or CSV/TSV), as perfhound stats reads them");
    app.add_option("--column", column_, "--samples: the column to read, a header name or 1-based index");
    app.add_option("--unit", unit_, "--samples: unit of the values: ns, us, ms, s, bytes or none")
        ->check(CLI::IsMember({"ns", "us", "ms", "s", "bytes", "none"}))
        ->default_val("none");
    app.add_option("--warmup", warmup_, "--samples: discard this many leading samples of each file")
        ->check(whole_number_in(0))
        ->default_val(0);
    app.add_flag("--higher-is-better", higher_is_better_,
                 "Stats documents and --samples: higher values are better (a rate), not lower (a latency)");
    app.add_option("--resamples", resamples_, "Bootstrap resamples for the percentile rows of one run a side")
        ->check(whole_number_in(100, 1000000))
        ->default_val(2000);
    app.add_option("--seed", seed_, "Seed of the bootstrap resampling (written into the result)")->default_val(1)->check(whole_number_in(0));
    add_output_flags(app, output_);
  }

  core::Result<int> run(const Context& context) override {
    if (!samples_mode_ && (!column_.empty() || warmup_ != 0 || unit_ != "none")) {
      return core::Error{"--column, --unit and --warmup describe raw sample files: add --samples"};
    }
    PH_TRY(check_not_an_input("-o", output_.output_path, files_));
    PH_TRY(check_not_an_input("-o", output_.output_path, b_files_));
    PH_ASSIGN_OR_RETURN(const auto sides, split_sides(context));
    PH_ASSIGN_OR_RETURN(InputKind kind, read_inputs());
    if (higher_is_better_ && (kind == InputKind::kLoad || kind == InputKind::kSweep || kind == InputKind::kBench)) {
      return core::Error{"--higher-is-better: load and bench metrics have their own direction (bench samples are "
                         "seconds per operation); the flag is for stats documents and --samples"};
    }
    PH_ASSIGN_OR_RETURN(std::vector<Benchmark> benchmarks, build_benchmarks(kind, sides));
    PH_ASSIGN_OR_RETURN(const std::vector<MetricSpec> specs, make_specs(kind, benchmarks));
    PH_ASSIGN_OR_RETURN(const std::vector<std::string> gate_metrics, resolve_fail_on(specs));

    // --- the conditions rule
    compare::ConditionsRule rule;
    rule.variables = variables_;
    if (kind == InputKind::kStats) rule.ignored.push_back("source");  // the files compared differ by nature
    std::vector<BenchmarkConditions> conditions(benchmarks.size());
    std::vector<core::Diagnostic> diagnostics;
    if (kind != InputKind::kSamples) {
      std::set<std::string> unknown(variables_.begin(), variables_.end());
      std::vector<std::string> refusals;
      std::vector<compare::KeyDifference> differing;
      for (std::size_t i = 0; i < benchmarks.size(); ++i) {
        PH_ASSIGN_OR_RETURN(conditions[i], diff_benchmark(benchmarks[i], rule));
        std::set<std::string> still;
        for (const auto& v : conditions[i].across.unknown_variables) {
          if (unknown.count(v)) still.insert(v);
        }
        unknown = std::move(still);
        refusals.insert(refusals.end(), conditions[i].refused.begin(), conditions[i].refused.end());
        differing.insert(differing.end(), conditions[i].differing.begin(), conditions[i].differing.end());
      }
      if (!unknown.empty()) {
        return core::Error{fmt::format("--variable '{}': no such key in the conditions of A or B (keys look like "
                                       "'precision', 'workload.input_len', 'tool.git_sha'; see \"parameters\" in the "
                                       "result documents)",
                                       *unknown.begin())};
      }
      if (!refusals.empty()) {
        std::set<std::string> keys;
        std::string key_list;
        for (const auto& d : differing) {
          if (keys.insert(d.key).second) key_list += (key_list.empty() ? "" : ", ") + d.key;
        }
        if (!force_) {
          return core::Error{fmt::format("refusing to compare: the conditions differ in more than the variable: {}. "
                                         "Declare the change with --variable KEY, or pass --force to compare anyway",
                                         refusals.front() + (refusals.size() > 1
                                                                 ? fmt::format(" (and {} more pairs)", refusals.size() - 1)
                                                                 : ""))};
        }
        diagnostics.push_back({&core::kConditionsDiffer, fmt::format("--force: compared although {} differ", key_list)});
        for (const auto& r : refusals) {
          *context.err << fmt::format("perfhound compare: WARNING: conditions differ beyond the variable: {}; "
                                      "the comparison is NOT one change (--force)\n",
                                      r);
        }
      }
      for (std::size_t i = 0; i < benchmarks.size(); ++i) {
        for (const auto& v : conditions[i].across.unchanged_variables) {
          *context.err << fmt::format("perfhound compare: note: --variable {} is the same in '{}' and '{}': the change "
                                      "under test is not in the conditions\n",
                                      v, benchmarks[i].a[0].path, benchmarks[i].b[0].path);
        }
      }
    }
    for (const Benchmark& bm : benchmarks) carry_diagnostics(bm, diagnostics);

    // --- the comparisons
    compare::CompareOptions options;
    options.alpha = alpha_;
    options.resamples = resamples_;
    options.seed = seed_;
    std::vector<std::vector<Row>> rows(benchmarks.size());
    for (std::size_t i = 0; i < benchmarks.size(); ++i) {
      for (const MetricSpec& spec : specs) {
        PH_ASSIGN_OR_RETURN(Row row, compare_metric(spec, benchmarks[i], kind, options).with_context(spec.name));
        rows[i].push_back(std::move(row));
      }
    }

    // --- geomean over benchmarks, the gate
    const Json geomeans = geomean_json(specs, rows);
    Json regressions = Json::array(), untested = Json::array();
    for (std::size_t i = 0; i < benchmarks.size(); ++i) {
      for (const Row& row : rows[i]) {
        if (std::find(gate_metrics.begin(), gate_metrics.end(), row.spec->name) == gate_metrics.end()) continue;
        if (row.c.verdict == Verdict::kWorse) {
          regressions.push_back({{"benchmark", benchmarks[i].name}, {"metric", row.spec->name},
                                 {"change", json_number(row.c.change)}, {"p_value", json_number(row.c.p_value)}});
        } else if (row.c.verdict == Verdict::kNoTest) {
          untested.push_back({{"benchmark", benchmarks[i].name}, {"metric", row.spec->name}, {"reason", row.c.note}});
        }
      }
    }
    for (const auto& u : untested) {
      *context.err << fmt::format("perfhound compare: warning: --fail-on {} cannot gate '{}', it has no test: {}\n",
                                  u["metric"].get<std::string>(), u["benchmark"].get<std::string>(),
                                  u["reason"].get<std::string>());
    }
    const bool gate_failed = !regressions.empty();

    // --- output
    core::Conditions own = core::Conditions::capture(context.argc, context.argv);
    own.set("input_kind", std::string(kind_name(kind)));
    own.set("inputs", {{"a", sides.a}, {"b", sides.b}, {"paired", !sides.split}});
    own.set("alpha", alpha_);
    own.set("confidence", 1 - alpha_);
    own.set("variables", variables_);
    own.set("force", force_);
    own.set("fail_on", fail_on_);
    own.set("bootstrap", {{"resamples", resamples_}, {"seed", seed_}});
    if (kind == InputKind::kSamples) {
      own.set("samples", {{"column", column_}, {"unit", unit_}, {"warmup_discarded", warmup_},
                          {"direction", higher_is_better_ ? "higher is better" : "lower is better"}});
    }

    Json result;
    result["input_kind"] = kind_name(kind);
    result["alpha"] = alpha_;
    result["confidence"] = 1 - alpha_;
    result["method"] = {
        {"distributions", "Mann-Whitney U, two-sided, normal approximation with tie and continuity correction; "
                          "Hodges-Lehmann shift of B - A with the Moses interval (docs/compare.md)"},
        {"percentiles_one_run_a_side", "two-sample percentile bootstrap of pQ(B) - pQ(A), p by the test-interval "
                                       "duality"},
        {"several_runs_a_side", "the per-run numbers tested as above (Mann-Whitney, Hodges-Lehmann over runs)"},
        {"verdict", "better or worse when p < alpha, by the direction B moved; else no significant difference"}};
    Json bms = Json::array();
    for (std::size_t i = 0; i < benchmarks.size(); ++i) {
      bms.push_back(benchmark_json(benchmarks[i], kind == InputKind::kSamples ? nullptr : &conditions[i], rows[i]));
    }
    result["benchmarks"] = std::move(bms);
    result["unpaired"] = unpaired_;
    result["geomean"] = geomeans;
    result["gate"] = {{"fail_on", gate_metrics}, {"passed", !gate_failed}, {"regressions", regressions},
                      {"untested", untested}};
    const Json document = report::make_json_document("compare", own, result, core::diagnostics_to_json(diagnostics));
    const std::string text = render_text(kind, sides, benchmarks, conditions, rows, specs, geomeans, gate_metrics,
                                         regressions, diagnostics, own);
    PH_TRY(emit_result(context, output_, document, text));
    return gate_failed ? kExitCheckFailed : kExitOk;
  }

 private:
  struct Sides {
    std::vector<std::string> a, b;
    bool split = false;  // "A... -- B...", else pairs
  };

  // CLI11 takes "--" as the end of the flags and hands every word after it to the positionals: the words after
  // the last "--" of argv are exactly the B side.
  core::Result<Sides> split_sides(const Context& context) {
    Sides s;
    files_.insert(files_.end(), b_files_.begin(), b_files_.end());
    for (const std::string& f : files_) {
      if (f.size() > 1 && f[0] == '-') {
        return core::Error{fmt::format("'{}' came after '--', where every word is a file: put the flags before '--'", f)};
      }
    }
    std::size_t after = 0;
    bool seen = false;
    for (int i = 0; i < context.argc; ++i) {
      if (std::strcmp(context.argv[i], "--") == 0) {
        seen = true;
        after = static_cast<std::size_t>(context.argc - i - 1);
        break;
      }
    }
    if (seen) {
      if (after == 0 || after >= files_.size()) {
        return core::Error{"'--' separates the runs of A from those of B: give files on both sides (A1.json A2.json "
                           "-- B1.json B2.json)"};
      }
      s.split = true;
      s.a.assign(files_.begin(), files_.end() - static_cast<std::ptrdiff_t>(after));
      s.b.assign(files_.end() - static_cast<std::ptrdiff_t>(after), files_.end());
      return s;
    }
    if (files_.size() < 2 || files_.size() % 2 != 0) {
      return core::Error{fmt::format("compare takes files in pairs, A.json B.json [C.json D.json ...], got {} file{}; "
                                     "for several runs a side separate them with --: A1.json A2.json -- B1.json B2.json",
                                     files_.size(), files_.size() == 1 ? "" : "s")};
    }
    for (std::size_t i = 0; i < files_.size(); i += 2) {
      s.a.push_back(files_[i]);
      s.b.push_back(files_[i + 1]);
    }
    return s;
  }

  // Reads every file once; all must be of one kind.
  core::Result<InputKind> read_inputs() {
    if (samples_mode_) {
      for (const std::string& f : files_) {
        PH_ASSIGN_OR_RETURN(Run run, sample_file_run(f));
        sample_runs_.emplace(f, std::move(run));
      }
      return InputKind::kSamples;
    }
    std::optional<InputKind> kind;
    std::string first;
    for (const std::string& f : files_) {
      PH_ASSIGN_OR_RETURN(Json doc, read_document(f));
      PH_ASSIGN_OR_RETURN(const InputKind k, kind_of(f, doc));
      if (kind && *kind != k) {
        return core::Error{fmt::format("'{}' is a {} result and '{}' a {} result: compare needs results of one kind",
                                       f, kind_name(k), first, kind_name(*kind))};
      }
      if (!kind) first = f;
      kind = k;
      documents_.emplace(f, std::move(doc));
    }
    return *kind;
  }

  core::Result<Run> sample_file_run(const std::string& path) const {
    PH_ASSIGN_OR_RETURN(const std::string text, core::read_text_file(path));
    PH_ASSIGN_OR_RETURN(const core::SampleColumn column,
                        core::parse_sample_column(text, {column_}, fmt::format("'{}'", path)));
    if (column.values.size() <= warmup_) {
      return core::Error{fmt::format("'{}': --warmup {} leaves none of its {} samples", path, warmup_,
                                     column.values.size())};
    }
    Run run;
    run.path = path;
    const double to_si = stats_unit_to_si(unit_);
    auto& out = run.samples["samples"];
    for (std::size_t i = warmup_; i < column.values.size(); ++i) out.push_back(column.values[i] * to_si);
    run.has_samples = true;
    run.samples_source = path;
    run.warmup_discarded = warmup_;
    return run;
  }

  core::Result<Run> single_run(InputKind kind, const std::string& path) const {
    if (kind == InputKind::kSamples) return sample_runs_.at(path);
    const Json& doc = documents_.at(path);
    if (kind == InputKind::kStats) return stats_run(path, doc);
    return load_run(path, doc);
  }

  // A sweep's points by label, in the sweep's order: each a load run read from its result file.
  core::Result<std::vector<std::pair<std::string, Run>>> sweep_points(const std::string& path) const {
    const Json& points = at_path(documents_.at(path), {"result", "points"});
    if (!points.is_array()) return core::Error{fmt::format("'{}': a sweep without result.points", path)};
    std::vector<std::pair<std::string, Run>> out;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const Json& p = points[i];
      if (!p.is_object() || !p.contains("label") || !p["label"].is_string() || !p.contains("result_file") ||
          !p["result_file"].is_string()) {
        return core::Error{fmt::format("'{}' point {}: needs a string label and result_file", path, i)};
      }
      const std::string label = p["label"].get<std::string>();
      const std::string file = p["result_file"].get<std::string>();
      const auto resolved = resolve_beside(file, path);
      if (!resolved) {
        return core::Error{fmt::format("'{}' point '{}': its result file '{}' was not found (looked beside the sweep "
                                       "too)",
                                       path, label, file)};
      }
      PH_ASSIGN_OR_RETURN(const Json doc, read_document(*resolved).with_context(fmt::format("'{}' point '{}'", path, label)));
      if (doc["kind"] != "perfhound.load") {
        return core::Error{fmt::format("'{}' point '{}': '{}' is not a perfhound.load result", path, label,
                                       resolved->string())};
      }
      PH_ASSIGN_OR_RETURN(Run run, load_run(*resolved, doc));
      out.emplace_back(label, std::move(run));
    }
    return out;
  }

  // A perfhound::bench document's benchmarks by name, each a run of its own samples (seconds per operation).
  core::Result<std::vector<std::pair<std::string, Run>>> bench_points(const std::string& path) const {
    const Json& doc = documents_.at(path);
    const Json& list = at_path(doc, {"result", "benchmarks"});
    if (!list.is_array()) return core::Error{fmt::format("'{}': a bench result without result.benchmarks", path)};
    std::vector<std::pair<std::string, Run>> out;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Json& b = list[i];
      if (!b.is_object() || !b.contains("name") || !b["name"].is_string() || !b.contains("samples_s") ||
          !b["samples_s"].is_array()) {
        return core::Error{fmt::format("'{}' benchmark {}: needs a string name and a samples_s array", path, i)};
      }
      Run run;
      run.path = path;
      run.conditions = doc["conditions"];
      run.result = b;
      if (b.contains("diagnostics") && b["diagnostics"].is_array()) run.diagnostics = b["diagnostics"];
      run.warmup_discarded = whole_number(at_path(b, {"warmup_discarded"}));
      auto& values = run.samples["samples"];
      for (const Json& v : b["samples_s"]) {
        if (!v.is_number()) {
          return core::Error{fmt::format("'{}' benchmark '{}': samples_s holds a {}, not a number", path,
                                         b["name"].get<std::string>(), v.type_name())};
        }
        values.push_back(v.get<double>());
      }
      run.has_samples = !values.empty();
      run.samples_source = run.has_samples ? path : "the benchmark has no samples";
      const std::string name = b["name"].get<std::string>();
      for (std::size_t k = 0; k < out.size(); ++k) {
        // Pairing is by name: a second benchmark of one name would be pooled with the first.
        if (out[k].first == name) {
          return core::Error{fmt::format("'{}': benchmarks {} and {} are both named '{}': bench results pair by name",
                                         path, k, i, name)};
        }
      }
      out.emplace_back(name, std::move(run));
    }
    return out;
  }

  core::Result<std::vector<Benchmark>> build_benchmarks(InputKind kind, const Sides& sides) {
    std::vector<Benchmark> out;
    if (kind != InputKind::kSweep && kind != InputKind::kBench) {
      if (sides.split) {
        Benchmark bm;
        bm.name = fmt::format("{} run{} vs {} run{}", sides.a.size(), sides.a.size() == 1 ? "" : "s", sides.b.size(),
                              sides.b.size() == 1 ? "" : "s");
        for (const auto& f : sides.a) {
          PH_ASSIGN_OR_RETURN(Run r, single_run(kind, f));
          bm.a.push_back(std::move(r));
        }
        for (const auto& f : sides.b) {
          PH_ASSIGN_OR_RETURN(Run r, single_run(kind, f));
          bm.b.push_back(std::move(r));
        }
        out.push_back(std::move(bm));
      } else {
        for (std::size_t i = 0; i < sides.a.size(); ++i) {
          Benchmark bm;
          bm.name = fmt::format("{} vs {}", sides.a[i], sides.b[i]);
          PH_ASSIGN_OR_RETURN(Run ra, single_run(kind, sides.a[i]));
          PH_ASSIGN_OR_RETURN(Run rb, single_run(kind, sides.b[i]));
          bm.a.push_back(std::move(ra));
          bm.b.push_back(std::move(rb));
          out.push_back(std::move(bm));
        }
      }
      return out;
    }
    // Sweeps: points pair by label (bench documents: benchmarks by name); with several files a side, a label's
    // points are that side's runs.
    const auto group = [&](const std::vector<std::string>& files, const std::string& side)
        -> core::Result<std::vector<std::pair<std::string, std::vector<Run>>>> {
      std::vector<std::pair<std::string, std::vector<Run>>> by_label;
      for (const auto& f : files) {
        PH_ASSIGN_OR_RETURN(auto points, kind == InputKind::kBench ? bench_points(f) : sweep_points(f));
        for (auto& [label, run] : points) {
          // (An init-capture: clang 14 cannot capture a structured binding.)
          auto it = std::find_if(by_label.begin(), by_label.end(),
                                 [&wanted = label](const auto& e) { return e.first == wanted; });
          if (it == by_label.end()) {
            by_label.push_back({label, {}});
            it = by_label.end() - 1;
          }
          it->second.push_back(std::move(run));
        }
      }
      if (by_label.empty()) {
        return core::Error{fmt::format("the {} {} has no {}", side, kind == InputKind::kBench ? "bench result" : "sweep",
                                       kind == InputKind::kBench ? "benchmarks" : "points")};
      }
      return by_label;
    };
    const auto pair_up = [&](const std::vector<std::string>& fa, const std::vector<std::string>& fb,
                             const std::string& prefix) -> core::Status {
      PH_ASSIGN_OR_RETURN(auto a, group(fa, "A"));
      PH_ASSIGN_OR_RETURN(auto b, group(fb, "B"));
      for (auto& [label, runs] : a) {
        const auto it = std::find_if(b.begin(), b.end(), [&wanted = label](const auto& e) { return e.first == wanted; });
        if (it == b.end()) {
          unpaired_.push_back({{"label", label}, {"only_in", "A"}, {"files", fa}});
          continue;
        }
        out.push_back({prefix + label, std::move(runs), std::move(it->second)});
      }
      for (const auto& [label, runs] : b) {
        if (std::none_of(a.begin(), a.end(), [&wanted = label](const auto& e) { return e.first == wanted; })) {
          unpaired_.push_back({{"label", label}, {"only_in", "B"}, {"files", fb}});
        }
      }
      return {};
    };
    if (sides.split) {
      PH_TRY(pair_up(sides.a, sides.b, ""));
    } else {
      for (std::size_t i = 0; i < sides.a.size(); ++i) {
        PH_TRY(pair_up({sides.a[i]}, {sides.b[i]},
                       sides.a.size() > 1 ? fmt::format("{} vs {}: ", sides.a[i], sides.b[i]) : ""));
      }
    }
    if (out.empty() && kind == InputKind::kBench) {
      return core::Error{"no benchmark of A has a name that B has too: bench results pair by benchmark name"};
    }
    if (out.empty()) {
      return core::Error{"no sweep point of A has a label that B has too: sweeps pair by label (e.g. 'concurrency 8')"};
    }
    return out;
  }

  core::Result<std::vector<MetricSpec>> make_specs(InputKind kind, const std::vector<Benchmark>& benchmarks) const {
    const Direction direction = higher_is_better_ ? Direction::kHigherIsBetter : Direction::kLowerIsBetter;
    if (kind == InputKind::kLoad || kind == InputKind::kSweep) return load_specs();
    if (kind == InputKind::kSamples) return sample_specs(si_unit_of(unit_), direction);
    if (kind == InputKind::kBench) return sample_specs("s", Direction::kLowerIsBetter);  // seconds per operation
    // Stats documents: one unit across all, or the numbers do not compare.
    std::optional<std::string> unit;
    for (const Benchmark& bm : benchmarks) {
      for (const auto* side : {&bm.a, &bm.b}) {
        for (const Run& r : *side) {
          const Json& uj = at_path(r.result, {"unit"});
          const std::string u = uj.is_string() ? uj.get<std::string>() : "";
          if (unit && *unit != u) {
            return core::Error{fmt::format("'{}' is in '{}' and another input in '{}': stats results compare in one "
                                           "unit",
                                           r.path, u, *unit)};
          }
          unit = u;
        }
      }
    }
    return sample_specs(unit.value_or(""), direction);
  }

  core::Result<std::vector<std::string>> resolve_fail_on(const std::vector<MetricSpec>& specs) const {
    std::vector<std::string> out;
    for (const std::string& raw : fail_on_) {
      const std::string m = raw;
      if (m == "throughput" && std::any_of(specs.begin(), specs.end(), [](const auto& s) { return s.name == "requests_per_s"; })) {
        out.push_back("requests_per_s");
        out.push_back("output_tokens_per_s");
        continue;
      }
      if (std::none_of(specs.begin(), specs.end(), [&](const MetricSpec& s) { return s.name == m; })) {
        std::string names;
        for (const MetricSpec& s : specs) names += (names.empty() ? "" : ", ") + s.name;
        return core::Error{fmt::format("--fail-on: no metric '{}' here (use {}{})", m, names,
                                       std::any_of(specs.begin(), specs.end(),
                                                   [](const auto& s) { return s.name == "requests_per_s"; })
                                           ? ", throughput"
                                           : "")};
      }
      out.push_back(m);
    }
    return out;
  }

  // The inputs' own warnings (a client-limited or partial run, failed requests) travel with the comparison.
  static void carry_diagnostics(const Benchmark& bm, std::vector<core::Diagnostic>& out) {
    for (const auto& [side, runs] : {std::pair{"A", &bm.a}, std::pair{"B", &bm.b}}) {
      for (const Run& r : *runs) {
        for (const Json& d : r.diagnostics) {
          if (!d.is_object() || d.value("severity", "") == "info") continue;
          const std::string id = d.value("id", "");
          for (const core::DiagnosticKind& k : core::all_diagnostic_kinds()) {
            if (k.id == id) out.push_back({&k, fmt::format("{} '{}': {}", side, r.path, d.value("message", ""))});
          }
        }
      }
    }
  }

  static Json json_number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

  static Json row_json(const Row& row) {
    const MetricComparison& c = row.c;
    Json j;
    j["metric"] = row.spec->name;
    j["unit"] = row.spec->unit;
    j["direction"] = compare::direction_name(row.spec->direction);
    j["statistic"] = row.spec->shape == Shape::kDistribution ? "distribution"
                     : row.spec->shape == Shape::kPercentile ? fmt::format("p{:g}", row.spec->q)
                                                             : "run value";
    j["basis"] = row.basis;
    j["n_a"] = c.n_a;
    j["n_b"] = c.n_b;
    j["a"] = json_number(c.a);
    j["b"] = json_number(c.b);
    j["ratio"] = json_number(c.ratio);
    j["shift"] = json_number(c.shift);
    j["shift_lo"] = json_number(c.shift_lo);
    j["shift_hi"] = json_number(c.shift_hi);
    j["change"] = json_number(c.change);
    j["change_lo"] = json_number(c.change_lo);
    j["change_hi"] = json_number(c.change_hi);
    j["test"] = compare::test_name(c.method);
    j["p_value"] = json_number(c.p_value);
    j["min_p_value"] = json_number(c.min_p_value);
    j["verdict"] = compare::verdict_name(c.verdict);
    j["note"] = c.note;
    return j;
  }

  static Json benchmark_json(const Benchmark& bm, const BenchmarkConditions* conditions, const std::vector<Row>& rows) {
    Json j;
    j["name"] = bm.name;
    const auto side = [](const std::vector<Run>& runs) {
      Json out = Json::array();
      for (const Run& r : runs) {
        out.push_back({{"file", r.path},
                       {"samples_from", r.has_samples ? Json(r.samples_source) : Json(nullptr)},
                       {"no_samples_because", r.has_samples ? Json(nullptr) : Json(r.samples_source)},
                       {"warmup_discarded", r.warmup_discarded ? Json(*r.warmup_discarded) : Json(nullptr)},
                       {"warmup_unit", r.warmup_unit},
                       {"conditions", r.conditions}});
      }
      return out;
    };
    j["a"] = side(bm.a);
    j["b"] = side(bm.b);
    if (conditions != nullptr) {
      Json c = compare::to_json(conditions->across);
      c["comparable"] = conditions->differing.empty();
      c["forced"] = !conditions->differing.empty();
      c["refused_pairs"] = conditions->refused;
      j["conditions_diff"] = std::move(c);
    } else {
      j["conditions_diff"] = nullptr;
    }
    Json metrics = Json::array();
    for (const Row& row : rows) metrics.push_back(row_json(row));
    j["metrics"] = std::move(metrics);
    return j;
  }

  // benchstat's summary over benchmarks: per metric the geometric mean of the ratios B / A, over the
  // benchmarks where both centers are positive.
  static Json geomean_json(const std::vector<MetricSpec>& specs, const std::vector<std::vector<Row>>& rows) {
    Json out = Json::array();
    if (rows.size() < 2) return out;
    for (std::size_t m = 0; m < specs.size(); ++m) {
      std::vector<double> ratios;
      for (const auto& bm_rows : rows) {
        const double r = bm_rows[m].c.ratio;
        if (std::isfinite(r) && r > 0) ratios.push_back(r);
      }
      const auto g = compare::geomean(ratios);
      out.push_back({{"metric", specs[m].name},
                     {"ratio", g.ok() ? Json(*g) : Json(nullptr)},
                     {"change", g.ok() ? Json(*g - 1) : Json(nullptr)},
                     {"benchmarks", ratios.size()},
                     {"of", rows.size()}});
    }
    return out;
  }

  std::string render_text(InputKind kind, const Sides& sides, const std::vector<Benchmark>& benchmarks,
                          const std::vector<BenchmarkConditions>& conditions, const std::vector<std::vector<Row>>& rows,
                          const std::vector<MetricSpec>& specs, const Json& geomeans,
                          const std::vector<std::string>& gate_metrics, const Json& regressions,
                          const std::vector<core::Diagnostic>& diagnostics, const core::Conditions& own) const {
    const double confidence_pct = (1 - alpha_) * 100;
    std::string out = fmt::format("perfhound compare: {} ({}), {} benchmark{}; alpha {:g}, {:g}% intervals\n",
                                  kind_name(kind), sides.split ? "runs: A -- B" : "pairs", benchmarks.size(),
                                  benchmarks.size() == 1 ? "" : "s", alpha_, confidence_pct);
    std::vector<std::string> notes;
    const auto note_mark = [&](const std::string& note) -> std::string {
      if (note.empty()) return "";
      auto it = std::find(notes.begin(), notes.end(), note);
      if (it == notes.end()) {
        notes.push_back(note);
        it = notes.end() - 1;
      }
      return fmt::format(" ({})", it - notes.begin() + 1);
    };
    for (std::size_t i = 0; i < benchmarks.size(); ++i) {
      const Benchmark& bm = benchmarks[i];
      out += fmt::format("\n{}\n", bm.name);
      for (const auto& [label, runs] : {std::pair{"A", &bm.a}, std::pair{"B", &bm.b}}) {
        for (const Run& r : *runs) {
          out += fmt::format("  {}: {}\n", label, describe_run(r));
        }
      }
      if (kind != InputKind::kSamples) {
        const BenchmarkConditions& c = conditions[i];
        out += "  conditions: " + describe_variables(c.across) + "\n";
        for (const auto& r : c.refused) out += "  WARNING (--force): conditions differ beyond the variable: " + r + "\n";
      } else {
        out += "  conditions: none (raw sample files): make sure only the change differs\n";
      }
      const std::string ci_header = fmt::format("{:g}% CI", confidence_pct);
      report::TableWriter table({{"metric", report::Align::kLeft},
                                 {"better", report::Align::kLeft},
                                 {"A"},
                                 {"B"},
                                 {"delta"},
                                 {ci_header},
                                 {"p"},
                                 {"n"},
                                 {"verdict", report::Align::kLeft}});
      for (const Row& row : rows[i]) {
        const MetricComparison& c = row.c;
        const bool relative = !std::isnan(c.change);
        const std::string& unit = row.spec->unit;
        const std::string delta = relative ? format_change(c.change) : format_shift(c.shift, unit);
        std::string ci;
        if (relative && !std::isnan(c.change_lo)) {
          ci = fmt::format("[{}, {}]", format_change(c.change_lo), format_change(c.change_hi));
        } else if (!relative && !std::isnan(c.shift_lo)) {
          ci = fmt::format("[{}, {}]", format_shift(c.shift_lo, unit), format_shift(c.shift_hi, unit));
        }
        std::string verdict;
        switch (c.verdict) {
          case Verdict::kBetter: verdict = "better"; break;
          case Verdict::kWorse: verdict = "WORSE"; break;
          case Verdict::kNoDifference: verdict = "~"; break;
          case Verdict::kNoTest: verdict = "no test"; break;
        }
        verdict += note_mark(c.note);
        const std::string n = row.basis == "runs" ? fmt::format("{}+{} runs", c.n_a, c.n_b)
                                                  : fmt::format("{}+{}", c.n_a, c.n_b);
        table.add_row({row.spec->label, row.spec->direction == Direction::kLowerIsBetter ? "lower" : "higher",
                       format_value(c.a, row.spec->unit), format_value(c.b, row.spec->unit), delta, ci,
                       format_p(c.p_value), n, verdict});
      }
      std::string rendered = table.render();
      std::istringstream lines(rendered);
      out += "\n";
      for (std::string line; std::getline(lines, line);) out += "  " + line + "\n";
    }
    if (!notes.empty()) {
      out += "\n";
      for (std::size_t i = 0; i < notes.size(); ++i) out += fmt::format("({}) {}\n", i + 1, notes[i]);
    }
    if (!unpaired_.empty()) {
      // Named in the text too: a benchmark renamed or dropped on one side is not compared at all.
      out += "\nnot compared (on one side only):";
      for (const Json& u : unpaired_) {
        out += fmt::format(" '{}' (only in {}){}", u["label"].get<std::string>(), u["only_in"].get<std::string>(),
                           &u == &unpaired_.back() ? "" : ",");
      }
      out += "\n";
    }
    out += fmt::format(
        "\ndelta: B against A, relative to A (absolute where A is 0). Distribution rows ({}): the Hodges-Lehmann shift of B - A over A's "
        "median, p from Mann-Whitney U; pNN rows with one run a side: bootstrap of pNN(B) - pNN(A); rows over runs: "
        "the same tests over each run's number. ~ = no significant difference at alpha {:g}. docs/compare.md\n",
        kind == InputKind::kLoad || kind == InputKind::kSweep ? "TTFT, TPOT, ITL, E2E" : "samples", alpha_);
    if (std::any_of(benchmarks.begin(), benchmarks.end(),
                    [](const Benchmark& bm) { return bm.a.size() == 1 && bm.b.size() == 1; })) {
      out += "One run a side: the tests see the variation between the requests of a run, not between runs (often "
             "larger: two runs of one setup can differ); give several runs a side before claiming a change.\n";
    }
    if (!geomeans.empty()) {
      out += fmt::format("\ngeomean of B / A over the {} benchmarks\n", benchmarks.size());
      report::TableWriter table({{"metric", report::Align::kLeft}, {"ratio"}, {"delta"}, {"benchmarks"}});
      for (std::size_t m = 0; m < specs.size(); ++m) {
        const Json& g = geomeans[m];
        const double ratio = g["ratio"].is_number() ? g["ratio"].get<double>() : kNaN;
        table.add_row({specs[m].label, std::isnan(ratio) ? "n/a" : fmt::format("{:.3f}", ratio),
                       format_change(ratio - 1),
                       fmt::format("{} of {}", g["benchmarks"].get<std::size_t>(), g["of"].get<std::size_t>())});
      }
      std::istringstream lines(table.render());
      for (std::string line; std::getline(lines, line);) out += "  " + line + "\n";
    }
    if (!gate_metrics.empty()) {
      std::string names;
      for (const auto& m : gate_metrics) names += (names.empty() ? "" : ",") + m;
      if (regressions.empty()) {
        out += fmt::format("\ngate --fail-on {}: passed (no significant regression)\n", names);
      } else {
        out += fmt::format("\ngate --fail-on {}: FAILED:", names);
        for (const auto& r : regressions) {
          out += fmt::format(" {} worse in {}{};", r["metric"].get<std::string>(), r["benchmark"].get<std::string>(),
                             r["change"].is_number() ? fmt::format(" ({})", format_change(r["change"].get<double>())) : "");
        }
        out.back() = '\n';
      }
    }
    if (!diagnostics.empty()) {
      out += "\n";
      for (const auto& d : diagnostics) out += core::format_diagnostic(d);
    }
    out += conditions_block(own);
    return out;
  }

  std::vector<std::string> files_;
  std::vector<std::string> b_files_;  // see add_flags(): stays empty
  std::vector<std::string> variables_;
  bool force_ = false;
  double alpha_ = compare::kDefaultAlpha;
  std::vector<std::string> fail_on_;
  bool samples_mode_ = false;
  std::string column_;
  std::string unit_ = "none";
  std::size_t warmup_ = 0;
  bool higher_is_better_ = false;
  int resamples_ = 2000;
  std::uint64_t seed_ = 1;
  OutputOptions output_;

  std::map<std::string, Json> documents_;
  std::map<std::string, Run> sample_runs_;
  Json unpaired_ = Json::array();
};

}  // namespace

std::unique_ptr<Command> make_compare_command() { return std::make_unique<CompareCommand>(); }

}  // namespace perfhound::cli
