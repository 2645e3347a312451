#include "diagnose/evidence_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "compare/compare_conditions.h"
#include "core/units.h"
#include "roofline/roofline.h"

namespace perfhound::diagnose {
namespace {

using Json = nlohmann::ordered_json;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A field the playbook cannot do without is absent, or a field is of the wrong type: thrown inside the readers,
// turned into one error naming the file and the field by add_document.
struct BadField {
  std::string path;     // as the reader knows it: the whole path of a required field, the key of an optional one
  std::string problem;  // empty: absent; else "is a string, not a number"
  const Json* node = nullptr;  // the offending value, inside the document, so its whole path can be found
};

// Where `node` sits under `root`, as "result.measured.mfu" or "result.points[2].status" (`prefix` names root);
// empty when it is not there.
std::string path_to(const Json& root, const Json* node, const std::string& prefix) {
  if (&root == node) return prefix;
  if (root.is_object()) {
    for (auto it = root.begin(); it != root.end(); ++it) {
      std::string found = path_to(it.value(), node, prefix.empty() ? it.key() : prefix + "." + it.key());
      if (!found.empty()) return found;
    }
  } else if (root.is_array()) {
    for (std::size_t i = 0; i < root.size(); ++i) {
      std::string found = path_to(root[i], node, fmt::format("{}[{}]", prefix, i));
      if (!found.empty()) return found;
    }
  }
  return {};
}

// "lacks 'result.bound'", "has 'result.measured.mfu' that is a string, not a number": the field by its whole path
// under `root` (named `prefix`), where the reader knew only its key.
std::string describe(const BadField& f, const Json& root, const std::string& prefix) {
  std::string path = f.node != nullptr ? path_to(root, f.node, prefix) : std::string();
  if (path.empty()) path = f.path;
  return f.problem.empty() ? fmt::format("lacks '{}'", path) : fmt::format("has '{}' that {}", path, f.problem);
}

const Json& at(const Json& j, std::string_view key, std::string_view path) {
  const auto it = j.is_object() ? j.find(key) : j.end();
  if (it == j.end()) throw BadField{std::string(path), ""};
  return *it;
}

// `value`, found under `path`, is not the `wanted` type ("number", "string").
[[noreturn]] void wrong_type(const Json& value, std::string_view path, std::string_view wanted) {
  throw BadField{std::string(path), fmt::format("is a {}, not a {}", value.type_name(), wanted), &value};
}

std::string string_at(const Json& j, std::string_view key, std::string_view path) {
  const Json& v = at(j, key, path);
  if (!v.is_string()) wrong_type(v, path, "string");
  return v.get<std::string>();
}

// A number, or NaN when the field is absent or null (JSON writes NaN as null). A field of another type is
// refused, not read as absent: an "mfu": "high" had left the diagnosis without its MFU and without a word.
double number_or_nan(const Json& j, std::string_view key) {
  if (!j.is_object()) return kNaN;
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return kNaN;
  if (!it->is_number()) wrong_type(*it, key, "number");
  return it->get<double>();
}

std::optional<double> optional_number(const Json& j, std::string_view key) {
  const double v = number_or_nan(j, key);
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

// Text, or `fallback` when absent or null; another type is refused, as number_or_nan does ("status": 0 had read
// as no status and the load point as trusted).
std::string string_or(const Json& j, std::string_view key, std::string fallback = {}) {
  if (!j.is_object()) return fallback;
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_string()) wrong_type(*it, key, "string");
  return it->get<std::string>();
}

// A count, or 0 when absent or null; anything but a whole number of 0 or more is refused ("completed": "40").
std::uint64_t count_or_zero(const Json& j, std::string_view key) {
  if (!j.is_object()) return 0;
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return 0;
  if (!it->is_number_unsigned()) {
    const std::string what = it->is_number() ? "a number below 0 or with a fraction" : fmt::format("a {}", it->type_name());
    throw BadField{std::string(key), fmt::format("is {}, not a count", what), &*it};
  }
  return it->get<std::uint64_t>();
}

const Json& object_or_empty(const Json& j, std::string_view key) {
  static const Json kEmpty = Json::object();
  if (!j.is_object()) return kEmpty;
  const auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : kEmpty;
}

const Json& array_or_empty(const Json& j, std::string_view key) {
  static const Json kEmpty = Json::array();
  if (!j.is_object()) return kEmpty;
  const auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : kEmpty;
}

const Json* device_entry(const Json& list, std::int32_t device) {
  if (!list.is_array()) return nullptr;
  for (const auto& d : list) {
    if (d.is_object() && d.value("device", -1) == device) return &d;
  }
  return nullptr;
}

core::Error second_input(std::string_view kind, std::string_view first, std::string_view source) {
  return core::Error{
      fmt::format("'{}': a second {} input (the first was '{}'); diagnose reads one trace, one mfu and "
                  "one roofline result, and any number of load results",
                  source, kind, first)};
}

// ---- perfhound.trace

TraceEvidence read_trace(const Json& r, std::string_view source) {
  TraceEvidence t;
  t.source = std::string(source);
  const Json& v = at(r, "verdict", "result.verdict");
  t.bottleneck = string_at(v, "bottleneck", "result.verdict.bottleneck");
  t.summary = string_or(v, "summary");
  t.device = v.value("device", 0);
  if (v.contains("evidence") && v["evidence"].is_array())
    t.verdict_evidence = v["evidence"].get<std::vector<std::string>>();
  if (v.contains("next_steps") && v["next_steps"].is_array())
    t.next_steps = v["next_steps"].get<std::vector<std::string>>();
  const Json& util = at(r, "utilization", "result.utilization");
  double all_busy = 0;
  for (const auto& d : at(util, "devices", "result.utilization.devices")) all_busy += number_or_nan(d, "busy_s");
  if (const Json* d = device_entry(util["devices"], t.device)) {
    t.active_span_s = number_or_nan(*d, "active_span_s");
    t.busy_s = number_or_nan(*d, "busy_s");
    t.active_busy_ratio = number_or_nan(*d, "active_busy_ratio");
    t.idle_s = number_or_nan(*d, "active_idle_s");
  } else if (t.bottleneck != "untraced-host") {
    throw BadField{fmt::format("result.utilization.devices[device {}]", t.device), ""};
  }
  if (const Json* g = device_entry(array_or_empty(object_or_empty(r, "idle_gaps"), "devices"), t.device)) {
    t.gap_count = count_or_zero(*g, "gap_count");
    t.short_gap_count = count_or_zero(*g, "short_gap_count");
    for (const auto& [state, c] : object_or_empty(*g, "categories").items()) {
      const double share = number_or_nan(c, "idle_ratio");
      if (share > 0) t.idle_by_host_state.emplace_back(state, share);
    }
    std::stable_sort(t.idle_by_host_state.begin(), t.idle_by_host_state.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
  }
  const double copy_s = number_or_nan(object_or_empty(r, "data_movement"), "host_device_copy_s");
  t.copy_share_of_busy = std::isfinite(copy_s) ? core::ratio_or_zero(copy_s, all_busy) : 0.0;
  if (const Json* c = device_entry(array_or_empty(object_or_empty(r, "communication"), "devices"), t.device)) {
    const double exposed = number_or_nan(*c, "exposed_s");
    t.exposed_comm_ratio = std::isfinite(exposed) ? core::ratio_or_zero(exposed, t.active_span_s) : 0.0;
  }
  const Json& kernels = object_or_empty(r, "kernels");
  t.kernel_count = count_or_zero(kernels, "kernel_count");
  if (kernels.contains("top_kernels") && kernels["top_kernels"].is_array() && !kernels["top_kernels"].empty()) {
    t.dominant_kernel = string_or(kernels["top_kernels"].front(), "name");
  }
  t.dominant_kernel_share = v.value("dominant_kernel_share", 0.0);
  t.graph_launch_count = count_or_zero(object_or_empty(r, "launch_overhead"), "graph_launch_count");
  return t;
}

// ---- perfhound.mfu

MfuEvidence read_mfu(const Json& doc, std::string_view source) {
  const Json& r = at(doc, "result", "result");
  const Json& p = object_or_empty(object_or_empty(doc, "conditions"), "parameters");
  MfuEvidence m;
  m.source = std::string(source);
  m.phase = string_at(p, "phase", "conditions.parameters.phase");
  m.model = string_or(p, "model");
  m.hardware = string_or(p, "hardware");
  m.batch = p.value("batch", std::int64_t{1});
  const Json& bound = at(r, "bound", "result.bound");
  m.binding_roof = string_at(bound, "binding_roof", "result.bound.binding_roof");
  m.roofline_time_s = number_or_nan(bound, "roofline_time_s");
  if (r.contains("measured") && r["measured"].is_object()) {
    const Json& meas = r["measured"];
    m.time_s = optional_number(meas, "time_s");
    m.mfu = optional_number(meas, "mfu");
    m.mbu = optional_number(meas, "mbu");
  }
  m.fits = object_or_empty(r, "memory_per_gpu").value("fits", true);
  m.verdict = string_or(r, "verdict");
  const Json& roofs = object_or_empty(r, "roofs");
  const double flops = number_or_nan(roofs, "peak_flops_per_s"), bytes = number_or_nan(roofs, "peak_bytes_per_s");
  if (std::isfinite(flops) && std::isfinite(bytes)) {
    const auto how = [&](const char* key) { return roofs.value(key, false) ? "measured" : "spec sheet"; };
    m.roofs = fmt::format("{}: {} ({}), {} ({})", m.hardware.empty() ? "the chip" : m.hardware,
                          core::format_si(flops, "FLOP/s"), how("peak_flops_measured"), core::format_si(bytes, "B/s"),
                          how("peak_bytes_measured"));
  }
  return m;
}

// ---- perfhound.roofline

KernelPosition position_from_point(const Json& point, std::string_view path) {
  KernelPosition k;
  k.roofline_case = string_at(point, "case", std::string(path) + ".case");
  k.fraction_of_attainable = number_or_nan(point, "fraction_of_attainable");
  k.bound_time_s = number_or_nan(point, "bound_time_s");
  k.arithmetic_intensity = number_or_nan(point, "arithmetic_intensity_flop_per_byte");
  return k;
}

RooflineEvidence read_roofline(const Json& doc, std::string_view source) {
  const Json& r = at(doc, "result", "result");
  RooflineEvidence out;
  out.source = std::string(source);
  const Json& params = object_or_empty(object_or_empty(doc, "conditions"), "parameters");
  const std::string roofs = string_or(params, "roofs"), hardware = string_or(params, "hardware");
  out.roofs = roofs.empty() ? hardware : hardware.empty() ? roofs : fmt::format("{} ({})", roofs, hardware);
  if (r.contains("kernels")) {
    for (const auto& j : r["kernels"]) {
      if (!j.contains("point")) {
        ++out.unplaced;
        continue;
      }
      KernelPosition k = position_from_point(j["point"], "result.kernels[].point");
      k.id = j.value("id", std::int64_t{0});
      k.name = string_or(j, "name");
      k.duration_s = number_or_nan(j, "duration_s");
      k.binding_level = string_or(object_or_empty(j, "hierarchical"), "binding");
      out.kernels.push_back(std::move(k));
    }
    return out;
  }
  // By hand (--flops --bytes --time): one kernel, its time in the conditions.
  KernelPosition k = position_from_point(at(r, "point", "result.point"), "result.point");
  k.name = "kernel";
  out.named_kernels = false;
  k.duration_s = number_or_nan(params, "time_s");
  if (!std::isfinite(k.duration_s)) k.duration_s = k.bound_time_s / k.fraction_of_attainable;
  out.kernels.push_back(std::move(k));
  return out;
}

// ---- perfhound.load and perfhound.sweep

// The latency block the run measured from: the intended send time for open loops, else the actual send.
const Json& latency_block(const Json& summary, std::string_view latency_from, std::string& used) {
  const Json& lat = object_or_empty(summary, "latency");
  static constexpr std::array<const char*, 2> kIntendedFirst = {"from_intended", "from_sent"};
  static constexpr std::array<const char*, 2> kSentFirst = {"from_sent", "from_intended"};
  const bool intended = latency_from.find("intended") != std::string_view::npos;
  for (const char* key : intended ? kIntendedFirst : kSentFirst) {
    if (lat.contains(key) && lat[key].is_object()) {
      used = std::string(key).substr(5);  // "intended" or "sent"
      return lat[key];
    }
  }
  throw BadField{"result.summary.latency.from_sent or from_intended", ""};
}

// One load point from a load result's fields (status, client_limited, summary, slo_gate), which a sweep
// point repeats.
LoadPoint read_point(const Json& r, std::string_view latency_from, std::string source, std::string label) {
  LoadPoint p;
  p.source = std::move(source);
  p.valid = string_or(r, "status", "VALID") == "VALID";
  p.client_limited = r.value("client_limited", false);
  if (r.contains("invalid_reasons") && r["invalid_reasons"].is_array()) {
    for (const auto& reason : r["invalid_reasons"]) {
      const std::string remedy = string_or(reason, "remedy");
      p.invalid_reasons.push_back(string_or(reason, "reason") + (remedy.empty() ? "" : "; " + remedy));
    }
  }
  const Json& s = at(r, "summary", "result.summary");
  const Json& requests = object_or_empty(s, "requests");
  p.completed = count_or_zero(requests, "completed");
  p.failed = count_or_zero(requests, "failed");
  const Json& lat = latency_block(s, latency_from, p.latency_from);
  p.ttft_p50_s = number_or_nan(object_or_empty(lat, "ttft"), "p50_s");
  p.ttft_p95_s = number_or_nan(object_or_empty(lat, "ttft"), "p95_s");
  p.tpot_p50_s = number_or_nan(object_or_empty(lat, "tpot"), "p50_s");
  p.tpot_p95_s = number_or_nan(object_or_empty(lat, "tpot"), "p95_s");
  const Json& tp = object_or_empty(s, "throughput");
  p.requests_per_s = number_or_nan(tp, "requests_per_s");
  p.output_tokens_per_s = number_or_nan(tp, "output_tokens_per_s");
  const Json& goodput = object_or_empty(s, "goodput");
  p.goodput_per_s = optional_number(goodput, "requests_per_s");
  p.goodput_ratio = optional_number(goodput, "ratio");
  const Json& gate = object_or_empty(r, "slo_gate");
  if (gate.contains("passed") && gate["passed"].is_boolean()) p.slo_passed = gate["passed"].get<bool>();
  const double in_flight = number_or_nan(object_or_empty(s, "concurrency"), "mean_in_flight");
  const double offered = number_or_nan(r, "load");
  p.load = std::isfinite(in_flight) ? in_flight : offered;
  if (!std::isfinite(p.load)) p.load = p.requests_per_s;
  p.label = label.empty() ? fmt::format("mean in flight {:.3g}", p.load) : std::move(label);
  return p;
}

// The conditions that name what a load point measured: the system (target, model, endpoint) and the workload
// (its shape, not its seed, which only draws other prompts from it). See evidence_reader.h.
constexpr std::string_view kSystemKeys[] = {"target", "model", "endpoint", "ignore_eos", "workload"};

Json system_of(const Json& doc) {
  const Json& params = object_or_empty(object_or_empty(doc, "conditions"), "parameters");
  Json out = Json::object();
  for (std::string_view key : kSystemKeys) {
    const std::string name(key);
    if (params.contains(name)) out[name] = params[name];
  }
  if (out.contains("workload") && out["workload"].is_object()) out["workload"].erase("seed");
  return out;
}

// The first load or sweep result sets the system; each later one must agree on the keys both carry.
core::Status check_same_system(Evidence& e, const Json& doc, std::string_view source) {
  Json mine = system_of(doc);
  if (e.load_system_source.empty()) {
    e.load_system = std::move(mine);
    e.load_system_source = std::string(source);
    return core::Status();
  }
  Json first = Json::object(), second = Json::object();
  for (const auto& [key, value] : e.load_system.items()) {
    if (!mine.contains(key)) continue;
    first[key] = value;
    second[key] = mine[key];
  }
  PH_ASSIGN_OR_RETURN(const compare::ConditionsDiff diff, compare::diff_conditions(first, second, {}));
  if (diff.comparable()) return core::Status();
  return core::Error{fmt::format("'{}' measured another system or workload than '{}': {}; a load curve joins runs that "
                                 "differ only in the load (perfhound compare A.json B.json compares two systems)",
                                 source, e.load_system_source, compare::describe_differences(diff.differing))};
}

void read_load(Evidence& e, const Json& doc, std::string_view source) {
  const Json& r = at(doc, "result", "result");
  const Json& params = object_or_empty(object_or_empty(doc, "conditions"), "parameters");
  std::string label = string_or(params, "load");
  LoadPoint p = read_point(r, string_or(params, "latency_from"), std::string(source), label);
  if (!label.empty()) p.label = fmt::format("{} (mean in flight {:.3g})", label, p.load);
  e.load.push_back(std::move(p));
}

void read_sweep(Evidence& e, const Json& doc, std::string_view source) {
  const Json& r = at(doc, "result", "result");
  const Json& params = object_or_empty(object_or_empty(doc, "conditions"), "parameters");
  const bool has_slo = r.contains("slo") && !r["slo"].is_null();
  const Json& points = at(r, "points", "result.points");
  if (!points.is_array() || points.empty()) throw BadField{"result.points (the sweep has no points)", ""};
  for (const auto& point : points) {
    const std::string label = string_or(point, "label", "point");
    // Each point states its own start (a --rate auto sweep mixes closed and open loops); older sweeps, the sweep's.
    const std::string from = string_or(point, "latency_from", string_or(params, "latency_from"));
    LoadPoint p = read_point(point, from, fmt::format("{} {}", source, label), label);
    if (!p.slo_passed && has_slo && point.contains("in_slo") && point["in_slo"].is_boolean()) {
      p.slo_passed = point["in_slo"].get<bool>();
    }
    e.load.push_back(std::move(p));
  }
}

}  // namespace

core::Status add_trace_result(Evidence& evidence, const nlohmann::ordered_json& result, std::string_view source) {
  if (evidence.trace) return second_input("trace", evidence.trace->source, source);
  if (result.contains("ranks")) {
    return core::Error{
        fmt::format("'{}': a per-rank folder's trace result; give one rank's trace (or its result) to "
                    "diagnose",
                    source)};
  }
  try {
    evidence.trace = read_trace(result, source);
  } catch (const BadField& f) {
    return core::Error{fmt::format("'{}': perfhound.trace result {}", source, describe(f, result, "result"))};
  } catch (const nlohmann::json::exception& x) {
    return core::Error{fmt::format("'{}': perfhound.trace result is malformed: {}", source, x.what())};
  }
  return core::Status();
}

core::Status add_document(Evidence& evidence, const nlohmann::ordered_json& document, std::string_view source) {
  const std::string kind = document.value("kind", std::string());
  try {
    if (kind == "perfhound.trace") return add_trace_result(evidence, at(document, "result", "result"), source);
    if (kind == "perfhound.mfu") {
      if (evidence.mfu) return second_input("mfu", evidence.mfu->source, source);
      evidence.mfu = read_mfu(document, source);
      return core::Status();
    }
    if (kind == "perfhound.roofline") {
      if (evidence.roofline) return second_input("roofline", evidence.roofline->source, source);
      evidence.roofline = read_roofline(document, source);
      return core::Status();
    }
    if (kind == "perfhound.load") {
      PH_TRY(check_same_system(evidence, document, source));
      read_load(evidence, document, source);
      return core::Status();
    }
    if (kind == "perfhound.sweep") {
      PH_TRY(check_same_system(evidence, document, source));
      read_sweep(evidence, document, source);
      return core::Status();
    }
  } catch (const BadField& f) {
    return core::Error{fmt::format("'{}': {} document {}", source, kind, describe(f, document, ""))};
  } catch (const nlohmann::json::exception& x) {
    return core::Error{fmt::format("'{}': {} document is malformed: {}", source, kind, x.what())};
  }
  return core::Error{
      fmt::format("'{}': a {} document; diagnose reads trace, roofline, mfu, load and sweep results "
                  "(or a trace file or an ncu CSV export)",
                  source, kind.empty() ? std::string("kind-less") : kind)};
}

core::Status add_ncu_kernels(Evidence& evidence, const roofline::NcuCsv& csv, std::string_view source) {
  if (evidence.roofline) return second_input("roofline", evidence.roofline->source, source);
  RooflineEvidence out;
  out.source = std::string(source);
  out.roofs = "the ceilings ncu measured on the device";
  for (const auto& k : csv.kernels) {
    const roofline::KernelMeasurement m = roofline::dram_measurement(k);
    const std::optional<roofline::Roof> roof = roofline::roof_from_row(k);
    if (!roof || (m.flops <= 0 && m.bytes <= 0)) {
      ++out.unplaced;
      continue;
    }
    auto p = roofline::place_on_roofline(*roof, m);
    if (!p.ok()) {
      ++out.unplaced;
      continue;
    }
    KernelPosition pos;
    pos.id = k.id;
    pos.name = k.name;
    pos.duration_s = k.duration_s;
    pos.roofline_case = std::string(roofline::case_name(p->roofline_case));
    pos.fraction_of_attainable = p->fraction_of_attainable;
    pos.bound_time_s = p->bound_time_s;
    pos.arithmetic_intensity = p->arithmetic_intensity;
    // The hierarchical roofline names the level that binds, as `perfhound roofline --ncu` does.
    const auto levels = roofline::memory_levels(k);
    if (!levels.empty() && m.time_s > 0) {
      auto h = roofline::place_hierarchical(roof->peak_flops_per_s, m.flops, m.time_s, levels);
      if (h.ok()) {
        const auto& tightest = h->levels[h->binding_level];
        pos.binding_level = tightest.point.attainable_flops_per_s < roof->peak_flops_per_s ? tightest.name : "compute";
      }
    }
    out.kernels.push_back(std::move(pos));
  }
  if (out.kernels.empty()) {
    return core::Error{
        fmt::format("'{}': no kernel in the ncu export could be placed on the roofline (record with ncu "
                    "--set roofline)",
                    source)};
  }
  evidence.roofline = std::move(out);
  return core::Status();
}

}  // namespace perfhound::diagnose
