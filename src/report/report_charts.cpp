#include "report/report_charts.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <optional>

#include "core/units.h"

namespace perfhound::report {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kSchema = "https://vega.github.io/schema/vega-lite/v6.json";
constexpr int kWidth = 520;
constexpr int kHeight = 320;
constexpr int kFacetHeight = 130;  // one row of a faceted chart (latency / concurrency over time)

constexpr ChartInfo kCharts[] = {
    {ChartId::kPareto, "pareto", "a perfhound.sweep input"},
    {ChartId::kTtftCdf, "ttft_cdf", "a perfhound.load or perfhound.sweep input with TTFT percentiles"},
    {ChartId::kTpotCdf, "tpot_cdf", "a perfhound.load or perfhound.sweep input with TPOT percentiles"},
    {ChartId::kLatencyOverTime, "latency_over_time", "an input with result.windows"},
    {ChartId::kConcurrencyOverTime, "concurrency_over_time",
     "an input with summary.concurrency.bins or result.windows"},
};

constexpr std::string_view kLoadKind = "perfhound.load";
constexpr std::string_view kSweepKind = "perfhound.sweep";

// Member `key` of an object, or null when `j` is null, not an object, or lacks it.
const Json* child(const Json* j, std::string_view key) {
  if (j == nullptr || !j->is_object()) return nullptr;
  const auto it = j->find(std::string(key));
  return it == j->end() ? nullptr : &*it;
}

const Json* at_path(const Json* j, std::initializer_list<std::string_view> keys) {
  for (const std::string_view key : keys) j = child(j, key);
  return j;
}

std::optional<double> number(const Json* j) {
  if (j == nullptr || !j->is_number()) return std::nullopt;
  return j->get<double>();
}

std::string string_or(const Json* j, std::string_view fallback) {
  return j != nullptr && j->is_string() ? j->get<std::string>() : std::string(fallback);
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string format_seconds(double s) { return core::format_duration_ns(s * 1e9); }

// "from_intended" or "from_sent": the latency block the run (or the sweep point) says its numbers start from.
std::string latency_key(const ReportInput& input, const Json* point = nullptr) {
  const std::string text = string_or(stated_latency_from(input, point), "");
  if (text == "actual send time") return "from_sent";
  if (text == "intended send time") return "from_intended";
  // A closed-loop sweep (fixed concurrency) sends when a slot frees: there is no separate intended time.
  if (input.kind() == kSweepKind && string_or(child(&input.result(), "mode"), "") == "concurrency") {
    return "from_sent";
  }
  return "from_intended";
}

std::string load_label(const Json* load, std::string_view mode) {
  const auto v = number(load);
  if (!v) return "?";
  if (mode == "concurrency") return fmt::format("c={:g}", *v);
  if (mode == "rate") return fmt::format("{:g} req/s", *v);
  return fmt::format("{:g}", *v);
}

// The short label of a sweep point on the chart: its load ("c=8", "4.5 req/s"), or the sweep's own label
// when it has no number (perfhound sweep's "synchronous" and "throughput" points).
std::string point_label(const Json& point, std::string_view mode) {
  if (number(child(&point, "load"))) return load_label(child(&point, "load"), mode);
  if (const Json* label = child(&point, "label"); label != nullptr && label->is_string()) return label->get<std::string>();
  return "?";
}

// A load run, or one point of a sweep: what the distribution and over-time charts draw a series for.
struct Series {
  std::string label;
  const Json* summary = nullptr;
  const Json* windows = nullptr;
  std::string latency_key;
};

// " (INVALID)" for a run or point that judged itself INVALID (client-limited, too many failures): its figures
// describe the client as much as the server, so every series and point label says so where it is drawn.
std::string invalid_mark(const Json& run) { return string_or(child(&run, "status"), "") == "INVALID" ? " (INVALID)" : ""; }

std::vector<Series> all_series(std::span<const ReportInput> inputs) {
  std::vector<Series> out;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const ReportInput& input = inputs[i];
    const Json& result = input.result();
    if (input.kind() == kLoadKind) {
      out.push_back({input_label(inputs, i) + invalid_mark(result), child(&result, "summary"), child(&result, "windows"),
                     latency_key(input)});
    } else if (input.kind() == kSweepKind) {
      const Json* points = child(&result, "points");
      if (points == nullptr || !points->is_array()) continue;
      const std::string mode = string_or(child(&result, "mode"), "");
      for (const Json& point : *points) {
        out.push_back({fmt::format("{} {}{}", input_label(inputs, i), point_label(point, mode), invalid_mark(point)),
                       child(&point, "summary"), child(&point, "windows"), latency_key(input, &point)});
      }
    }
  }
  return out;
}

Json base_spec(std::string_view title, std::string_view subtitle) {
  Json spec;
  spec["$schema"] = kSchema;
  spec["title"] = {{"text", title}, {"subtitle", subtitle}, {"anchor", "start"}};
  return spec;
}

Json quantitative(std::string_view field, std::string_view title) {
  return {{"field", field}, {"type", "quantitative"}, {"title", title}};
}

Json nominal(std::string_view field, std::string_view title) {
  return {{"field", field}, {"type", "nominal"}, {"title", title}};
}

// A color per series, listed in the order of the inputs (a sweep's points by load), not alphabetically.
Json series_color(std::string_view field, std::string_view title) {
  Json color = nominal(field, title);
  color["sort"] = nullptr;
  return color;
}

// ---- pareto ----

// The SampleSummary field of a percentile (99.9 -> "p99_9_s"), or nothing when load_metrics writes no such
// field.
std::optional<std::string> percentile_field(double percentile) {
  for (const double p : {1.0, 5.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.9}) {
    if (percentile == p) {
      std::string name = fmt::format("p{:g}_s", p);
      std::replace(name.begin(), name.end(), '.', '_');
      return name;
    }
  }
  return std::nullopt;
}

ChartSpec pareto_spec(std::span<const ReportInput> inputs) {
  ChartSpec out;
  Json points = Json::array(), slo = Json::array(), knees = Json::array(), operating = Json::array();
  std::vector<std::string> y_parts;
  std::vector<std::string> modes;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const ReportInput& input = inputs[i];
    if (input.kind() != kSweepKind) continue;
    const std::string label = input_label(inputs, i);
    const Json& result = input.result();
    const std::string mode = string_or(child(&result, "mode"), "");
    if (std::find(modes.begin(), modes.end(), mode) == modes.end()) modes.push_back(mode);
    std::string metric = string_or(child(&result, "latency_metric"), "");
    if (metric.empty()) {
      metric = "ttft";
      out.notes.push_back(fmt::format("{} names no latency_metric; its TTFT is plotted", label));
    }

    // The curve is at the percentile the sweep judged its knee on (result.latency_percentile, p95 for
    // perfhound sweep); a document without one is drawn at its SLO term's percentile, so a point inside
    // the box is within that term, else at p95.
    const auto stated = number(child(&result, "latency_percentile"));
    double percentile = stated.value_or(95);
    std::optional<double> threshold;
    std::optional<double> term_percentile;
    const Json* terms = at_path(&result, {"slo", "terms"});
    if (terms != nullptr && terms->is_array()) {
      for (const Json& term : *terms) {
        if (string_or(child(&term, "metric"), "") != metric) continue;
        threshold = number(child(&term, "threshold_s"));
        term_percentile = number(child(&term, "percentile"));
        break;
      }
    }
    if (!stated && term_percentile) percentile = *term_percentile;
    if (threshold && term_percentile && *term_percentile != percentile) {
      out.notes.push_back(fmt::format("{}: the SLO's {} term is at p{:g} and the curve at p{:g} (the sweep's "
                                      "latency_percentile): the box shows the threshold, the point shapes the "
                                      "sweep's SLO verdict",
                                      label, upper(metric), *term_percentile, percentile));
    }
    std::optional<std::string> field = percentile_field(percentile);
    if (!field) {
      out.notes.push_back(fmt::format("{}: results carry no p{:g}; p95 is plotted against the SLO threshold",
                                      label, percentile));
      percentile = 95;
      field = percentile_field(percentile);
    }
    const std::string y_part = fmt::format("p{:g} {}", percentile, upper(metric));
    if (std::find(y_parts.begin(), y_parts.end(), y_part) == y_parts.end()) y_parts.push_back(y_part);

    const Json* sweep_points = child(&result, "points");
    std::vector<std::optional<std::pair<double, double>>> placed;  // (requests/s, latency) per point index
    std::size_t skipped = 0;
    if (sweep_points != nullptr && sweep_points->is_array()) {
      for (std::size_t j = 0; j < sweep_points->size(); ++j) {
        const Json& point = (*sweep_points)[j];
        const Json* summary = child(&point, "summary");
        const std::string key = latency_key(input, &point);
        const Json* block = metric == "itl" ? child(summary, "itl") : at_path(summary, {"latency", key, metric});
        const auto rps = number(at_path(summary, {"throughput", "requests_per_s"}));
        const auto latency = number(child(block, *field));
        placed.emplace_back();
        if (!rps || !latency) {
          ++skipped;
          continue;
        }
        placed.back() = std::make_pair(*rps, *latency);
        const Json* in_slo = child(&point, "in_slo");
        const bool has_verdict = in_slo != nullptr && in_slo->is_boolean();
        Json row;
        row["run"] = label;
        row["index"] = j;
        row["load"] = child(&point, "load") != nullptr ? *child(&point, "load") : Json(nullptr);
        row["load_label"] = point_label(point, mode) + invalid_mark(point);
        row["requests_per_s"] = *rps;
        const auto tokens = number(at_path(summary, {"throughput", "output_tokens_per_s"}));
        row["output_tokens_per_s"] = tokens ? Json(*tokens) : Json(nullptr);
        row["latency_s"] = *latency;
        row["status"] = string_or(child(&point, "status"), "unknown");
        row["in_slo"] = has_verdict ? *in_slo : Json(nullptr);
        const Json* client_limited = child(&point, "client_limited");
        row["client_limited"] = client_limited != nullptr ? *client_limited : Json(nullptr);
        row["slo"] = !has_verdict ? "no SLO" : in_slo->get<bool>() ? "within SLO" : "outside SLO";
        points.push_back(std::move(row));
      }
    }
    if (skipped > 0) {
      out.notes.push_back(fmt::format("{}: {} of {} points have no requests/s or {} and are not plotted", label,
                                      skipped, placed.size(), y_part));
    }
    if (threshold) {
      slo.push_back({{"run", label},
                     {"lo", 0.0},
                     {"threshold_s", *threshold},
                     {"label", fmt::format("{}: p{:g} {} \u2264 {}", label, term_percentile.value_or(percentile),
                                           upper(metric), format_seconds(*threshold))}});
    }

    // A mark sits on its sweep point; a knee the sweep placed between points (no usable index) sits where
    // the sweep says it is.
    const auto mark_row = [&](const Json* mark, std::string_view what, std::optional<double> own_rps,
                              std::optional<double> own_latency) -> std::optional<Json> {
      const auto index = number(child(mark, "index"));
      Json row;
      row["run"] = label;
      if (index && *index >= 0 && static_cast<std::size_t>(*index) < placed.size() &&
          placed[static_cast<std::size_t>(*index)]) {
        const auto [rps, latency] = *placed[static_cast<std::size_t>(*index)];
        const Json& point = (*sweep_points)[static_cast<std::size_t>(*index)];
        row["index"] = static_cast<std::size_t>(*index);
        row["load_label"] = point_label(point, mode);
        row["requests_per_s"] = rps;
        row["latency_s"] = latency;
      } else if (own_rps && own_latency) {
        row["index"] = nullptr;
        row["load_label"] = "between points";
        row["requests_per_s"] = *own_rps;
        row["latency_s"] = *own_latency;
      } else {
        out.notes.push_back(fmt::format("{}: the {} names no plotted point and no coordinates; not marked", label, what));
        return std::nullopt;
      }
      row["label"] = fmt::format("{} ({})", what, row["load_label"].get<std::string>());
      return row;
    };
    const Json* knee = child(&result, "knee");
    if (knee != nullptr && knee->is_object()) {
      if (auto row = mark_row(knee, "knee", number(child(knee, "throughput_rps")), number(child(knee, "latency_s")))) {
        (*row)["rule"] = string_or(child(knee, "rule"), string_or(child(&result, "knee_rule"), ""));
        knees.push_back(std::move(*row));
      }
    }
    const Json* op = child(&result, "operating_point");
    if (op != nullptr && op->is_object()) {
      if (auto row = mark_row(op, "operating point", std::nullopt, std::nullopt)) {
        const auto tokens = number(child(op, "output_tokens_per_s"));
        (*row)["output_tokens_per_s"] = tokens ? Json(*tokens) : Json(nullptr);
        operating.push_back(std::move(*row));
      }
    }
  }
  out.has_data = !points.empty();

  std::string y_title;
  for (const auto& part : y_parts) y_title += (y_title.empty() ? "" : " / ") + part;
  y_title = (y_title.empty() ? std::string("p95 latency") : y_title) + " (s)";
  std::string load_word = "load";
  if (modes.size() == 1 && modes[0] == "concurrency") load_word = "concurrency";
  if (modes.size() == 1 && modes[0] == "rate") load_word = "offered rate";
  Json spec = base_spec("Goodput Pareto curve: achieved throughput against tail latency",
                        fmt::format("point labels: {}; shaded: within the SLO; \u25c7 knee; \u25a1 operating point",
                                    load_word));
  spec["width"] = kWidth;
  spec["height"] = kHeight;
  spec["datasets"] = {{"pareto_points", points}, {"slo", slo}, {"knee", knees}, {"operating_point", operating}};
  Json x = quantitative("requests_per_s", "achieved throughput (requests/s)");
  x["scale"] = {{"zero", true}};  // throughput from nothing: the box and the curve start at the origin
  const Json y = quantitative("latency_s", y_title);
  const Json color = nominal("run", "sweep");
  Json layers = Json::array();
  if (!slo.empty()) {
    layers.push_back({{"name", "slo_box"},
                      {"data", {{"name", "slo"}}},
                      {"mark", {{"type", "rect"}, {"color", "#2ca02c"}, {"opacity", 0.12}}},
                      {"encoding",
                       {{"y", quantitative("lo", y_title)},
                        {"y2", {{"field", "threshold_s"}}},
                        {"tooltip", Json::array({nominal("label", "SLO")})}}}});
    layers.push_back({{"name", "slo_threshold"},
                      {"data", {{"name", "slo"}}},
                      {"mark", {{"type", "rule"}, {"color", "#2ca02c"}, {"strokeDash", {4, 3}}}},
                      {"encoding", {{"y", quantitative("threshold_s", y_title)}}}});
  }
  const Json tooltip = Json::array({nominal("run", "sweep"), nominal("load_label", "load"),
                                    quantitative("requests_per_s", "requests/s"),
                                    quantitative("output_tokens_per_s", "output tokens/s"),
                                    quantitative("latency_s", y_title), nominal("status", "status"),
                                    nominal("slo", "SLO"), nominal("client_limited", "client limited")});
  layers.push_back({{"name", "pareto_curve"},
                    {"data", {{"name", "pareto_points"}}},
                    {"mark", {{"type", "line"}, {"opacity", 0.6}}},
                    {"encoding", {{"x", x}, {"y", y}, {"color", color}, {"order", quantitative("index", "point")}}}});
  layers.push_back(
      {{"name", "pareto_points"},
       {"data", {{"name", "pareto_points"}}},
       {"mark", {{"type", "point"}, {"filled", true}, {"size", 70}, {"opacity", 0.9}}},
       {"encoding",
        {{"x", x},
         {"y", y},
         {"color", color},
         {"shape",
          {{"field", "slo"},
           {"type", "nominal"},
           {"title", "SLO"},
           {"scale",
            {{"domain", {"within SLO", "outside SLO", "no SLO"}}, {"range", {"circle", "cross", "triangle-down"}}}}}},
         {"tooltip", tooltip}}}});
  layers.push_back({{"name", "load_labels"},
                    {"data", {{"name", "pareto_points"}}},
                    {"mark", {{"type", "text"}, {"dy", -11}, {"fontSize", 10}, {"color", "#444"}}},
                    {"encoding", {{"x", x}, {"y", y}, {"text", {{"field", "load_label"}}}}}});
  const auto add_mark = [&](std::string_view name, std::string_view dataset, std::string_view shape,
                            std::string_view mark_color, int label_dy) {
    layers.push_back({{"name", name},
                      {"data", {{"name", dataset}}},
                      {"mark",
                       {{"type", "point"},
                        {"shape", shape},
                        {"size", 320},
                        {"filled", false},
                        {"strokeWidth", 2.5},
                        {"color", mark_color}}},
                      {"encoding",
                       {{"x", x},
                        {"y", y},
                        {"tooltip", Json::array({nominal("label", "mark"), nominal("run", "sweep"),
                                                 quantitative("requests_per_s", "requests/s"),
                                                 quantitative("latency_s", y_title)})}}}});
    layers.push_back({{"name", std::string(name) + "_label"},
                      {"data", {{"name", dataset}}},
                      {"mark",
                       {{"type", "text"}, {"align", "left"}, {"dx", 13}, {"dy", label_dy}, {"fontSize", 11},
                        {"fontWeight", "bold"}, {"color", mark_color}}},
                      {"encoding", {{"x", x}, {"y", y}, {"text", {{"field", "label"}}}}}});
  };
  if (!knees.empty()) add_mark("knee", "knee", "diamond", "#d62728", 0);
  if (!operating.empty()) add_mark("operating_point", "operating_point", "square", "#6a3d9a", 14);
  spec["layer"] = std::move(layers);
  out.spec = std::move(spec);
  return out;
}

// ---- distributions ----

struct QuantileField {
  std::string_view field;
  double quantile;
  std::string_view name;
};
constexpr QuantileField kQuantiles[] = {
    {"min_s", 0.0, "min"},    {"p1_s", 0.01, "p1"},   {"p5_s", 0.05, "p5"},   {"p10_s", 0.10, "p10"},
    {"p25_s", 0.25, "p25"},   {"p50_s", 0.50, "p50"}, {"p75_s", 0.75, "p75"}, {"p90_s", 0.90, "p90"},
    {"p95_s", 0.95, "p95"},   {"p99_s", 0.99, "p99"}, {"p99_9_s", 0.999, "p99.9"}, {"max_s", 1.0, "max"},
};

std::string latency_from_words(const std::vector<std::string>& keys) {
  const bool intended = std::find(keys.begin(), keys.end(), "from_intended") != keys.end();
  const bool sent = std::find(keys.begin(), keys.end(), "from_sent") != keys.end();
  if (intended && sent) return "latency from the intended send time (open loop) or the actual one, as each run says";
  if (sent) return "latency from the actual send time";
  return "latency from the intended send time";
}

ChartSpec cdf_spec(std::span<const ReportInput> inputs, std::string_view metric, std::string_view dataset) {
  ChartSpec out;
  Json rows = Json::array();
  std::vector<std::string> keys;
  std::vector<std::string> without;
  for (const Series& s : all_series(inputs)) {
    const Json* block = at_path(s.summary, {"latency", s.latency_key, metric});
    std::size_t added = 0;
    for (const QuantileField& q : kQuantiles) {
      const auto v = number(child(block, q.field));
      if (!v) continue;
      rows.push_back({{"series", s.label}, {"percentile", q.name}, {"quantile", q.quantile}, {"latency_s", *v}});
      ++added;
    }
    if (added == 0) {
      without.push_back(s.label);
    } else if (std::find(keys.begin(), keys.end(), s.latency_key) == keys.end()) {
      keys.push_back(s.latency_key);
    }
  }
  if (!without.empty()) {
    std::string names;
    for (const auto& n : without) names += (names.empty() ? "" : ", ") + n;
    out.notes.push_back(fmt::format("no {} percentiles in {}", upper(std::string(metric)), names));
  }
  out.has_data = !rows.empty();
  const std::string name = upper(std::string(metric));
  Json spec = base_spec(fmt::format("{} distribution (CDF)", name),
                        fmt::format("from the percentiles each run reports (min, p1 \u2026 p99.9, max); {}",
                                    latency_from_words(keys)));
  spec["width"] = kWidth;
  spec["height"] = kHeight;
  spec["datasets"] = {{dataset, rows}};
  spec["data"] = {{"name", dataset}};
  const Json x = quantitative("latency_s", fmt::format("{} (s)", name));
  Json y = quantitative("quantile", "fraction of requests at or below");
  y["scale"] = {{"domain", {0, 1}}};
  y["axis"] = {{"format", "%"}};
  const Json color = series_color("series", "run");
  spec["layer"] = Json::array(
      {{{"name", std::string(dataset) + "_lines"},
        {"mark", {{"type", "line"}}},
        {"encoding", {{"x", x}, {"y", y}, {"color", color}, {"order", quantitative("quantile", "quantile")}}}},
       {{"name", std::string(dataset) + "_points"},
        {"mark", {{"type", "point"}, {"filled", true}, {"size", 28}}},
        {"encoding",
         {{"x", x},
          {"y", y},
          {"color", color},
          {"tooltip", Json::array({nominal("series", "run"), nominal("percentile", "percentile"),
                                   quantitative("latency_s", fmt::format("{} (s)", name))})}}}}});
  out.spec = std::move(spec);
  return out;
}

// ---- over time ----

// The window's midpoint, or its start when it has no end.
std::optional<double> window_time(const Json& window) {
  const auto start = number(child(&window, "start_s"));
  const auto end = number(child(&window, "end_s"));
  if (start && end) return (*start + *end) / 2;
  return start;
}

Json faceted(Json spec, std::string_view dataset, std::string_view row_field, const std::vector<std::string>& order,
             Json inner_layers) {
  spec["data"] = {{"name", dataset}};
  spec["facet"] = {{"row", {{"field", row_field}, {"type", "nominal"}, {"title", nullptr}, {"sort", order}}}};
  spec["spec"] = {{"width", kWidth}, {"height", kFacetHeight}, {"layer", std::move(inner_layers)}};
  spec["resolve"] = {{"scale", {{"y", "independent"}}}};
  return spec;
}

ChartSpec latency_over_time_spec(std::span<const ReportInput> inputs) {
  ChartSpec out;
  Json rows = Json::array();
  std::size_t nulls = 0, untimed = 0;
  for (const Series& s : all_series(inputs)) {
    if (s.windows == nullptr || !s.windows->is_array()) continue;
    for (const Json& w : *s.windows) {
      const auto t = window_time(w);
      if (!t) {
        ++untimed;
        continue;
      }
      for (const std::string_view metric : {"ttft", "tpot", "e2e"}) {
        for (const std::string_view p : {"p50", "p95", "p99"}) {
          const auto v = number(child(&w, fmt::format("{}_{}_s", metric, p)));
          if (!v) {
            ++nulls;
            continue;
          }
          rows.push_back({{"series", s.label},
                          {"metric", upper(std::string(metric))},
                          {"percentile", p},
                          {"t_s", *t},
                          {"latency_s", *v}});
        }
      }
    }
  }
  if (nulls > 0) {
    out.notes.push_back(fmt::format("{} window latencies are null (no request of that kind finished in the "
                                    "window) and are not drawn",
                                    nulls));
  }
  if (untimed > 0) out.notes.push_back(fmt::format("{} windows have no start_s and are not drawn", untimed));
  out.has_data = !rows.empty();
  Json spec = base_spec("Latency over time", "per window of the run: p50, p95 and p99 at the window's midpoint");
  spec["datasets"] = {{"latency_over_time", rows}};
  const Json x = quantitative("t_s", "time in the run (s)");
  const Json y = quantitative("latency_s", "latency (s)");
  Json layers = Json::array(
      {{{"name", "latency_over_time_lines"},
        {"mark", {{"type", "line"}, {"point", true}}},
        {"encoding",
         {{"x", x},
          {"y", y},
          {"color", series_color("series", "run")},
          {"strokeDash", nominal("percentile", "percentile")},
          {"tooltip", Json::array({nominal("series", "run"), nominal("metric", "metric"),
                                   nominal("percentile", "percentile"), quantitative("t_s", "time (s)"),
                                   quantitative("latency_s", "latency (s)")})}}}}});
  out.spec = faceted(std::move(spec), "latency_over_time", "metric", {"TTFT", "TPOT", "E2E"}, std::move(layers));
  return out;
}

ChartSpec concurrency_over_time_spec(std::span<const ReportInput> inputs) {
  ChartSpec out;
  Json rows = Json::array();
  std::size_t nulls = 0;
  constexpr std::string_view kInFlight = "requests in flight (mean)";
  constexpr std::string_view kRequests = "completed requests/s";
  constexpr std::string_view kTokens = "output tokens/s";
  for (const Series& s : all_series(inputs)) {
    const Json* concurrency = child(s.summary, "concurrency");
    const Json* bins = child(concurrency, "bins");
    const auto bin_s = number(child(concurrency, "bin_s"));
    if (bins != nullptr && bins->is_array()) {
      for (const Json& b : *bins) {
        const auto start = number(child(&b, "start_s"));
        const auto v = number(child(&b, "mean_in_flight"));
        if (!start || !v) {
          ++nulls;
          continue;
        }
        // A bin's mean belongs to its middle.
        const double t = *start + (bin_s ? *bin_s / 2 : 0.0);
        rows.push_back({{"series", s.label}, {"quantity", kInFlight}, {"t_s", t}, {"value", *v}});
      }
    }
    if (s.windows != nullptr && s.windows->is_array()) {
      for (const Json& w : *s.windows) {
        const auto t = window_time(w);
        for (const auto& [field, quantity] : {std::pair{"requests_per_s", kRequests}, {"output_tokens_per_s", kTokens}}) {
          const auto v = number(child(&w, field));
          if (!t || !v) {
            ++nulls;
            continue;
          }
          rows.push_back({{"series", s.label}, {"quantity", quantity}, {"t_s", *t}, {"value", *v}});
        }
      }
    }
  }
  if (nulls > 0) out.notes.push_back(fmt::format("{} bin or window values are null and are not drawn", nulls));
  out.has_data = !rows.empty();
  Json spec = base_spec("Concurrency and throughput over time",
                        "mean requests in flight per bin (summary.concurrency); throughput per window");
  spec["datasets"] = {{"concurrency_over_time", rows}};
  Json layers = Json::array(
      {{{"name", "concurrency_over_time_lines"},
        {"mark", {{"type", "line"}, {"point", true}}},
        {"encoding",
         {{"x", quantitative("t_s", "time in the run (s)")},
          {"y", quantitative("value", "")},
          {"color", series_color("series", "run")},
          {"tooltip", Json::array({nominal("series", "run"), nominal("quantity", "quantity"),
                                   quantitative("t_s", "time (s)"), quantitative("value", "value")})}}}}});
  out.spec = faceted(std::move(spec), "concurrency_over_time", "quantity",
                     {std::string(kInFlight), std::string(kRequests), std::string(kTokens)}, std::move(layers));
  return out;
}

}  // namespace

std::span<const ChartInfo> chart_catalogue() { return kCharts; }

const ChartInfo& chart_info(ChartId id) {
  for (const ChartInfo& c : kCharts) {
    if (c.id == id) return c;
  }
  PH_CHECK(false);
  return kCharts[0];
}

core::Result<ChartId> chart_from_name(std::string_view name) {
  std::string names;
  for (const ChartInfo& c : kCharts) {
    if (c.name == name) return c.id;
    names += (names.empty() ? "" : ", ") + std::string(c.name);
  }
  return core::Error{fmt::format("no chart named '{}' (charts: {})", name, names)};
}

ChartId default_chart(std::span<const ReportInput> inputs) {
  for (const ReportInput& input : inputs) {
    if (input.kind() == kSweepKind) return ChartId::kPareto;
  }
  return ChartId::kTtftCdf;
}

ChartSpec chart_spec(ChartId chart, std::span<const ReportInput> inputs) {
  switch (chart) {
    case ChartId::kPareto: return pareto_spec(inputs);
    case ChartId::kTtftCdf: return cdf_spec(inputs, "ttft", "ttft_cdf");
    case ChartId::kTpotCdf: return cdf_spec(inputs, "tpot", "tpot_cdf");
    case ChartId::kLatencyOverTime: return latency_over_time_spec(inputs);
    case ChartId::kConcurrencyOverTime: return concurrency_over_time_spec(inputs);
  }
  PH_CHECK(false);
  return {};
}

std::string input_label(std::span<const ReportInput> inputs, std::size_t i) {
  const auto short_name = [](const std::string& path) {
    std::string name = std::filesystem::path(path).filename().string();
    if (name.ends_with(".json") && name.size() > 5) name.resize(name.size() - 5);
    return name;
  };
  const std::string mine = short_name(inputs[i].path);
  for (std::size_t j = 0; j < inputs.size(); ++j) {
    if (j != i && short_name(inputs[j].path) == mine) return inputs[i].path;
  }
  return mine;
}

}  // namespace perfhound::report
