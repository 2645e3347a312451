#include "bench/bench_report.h"

#include <cmath>
#include <fmt/format.h>

#include "report/json_document.h"
#include "report/table_writer.h"
#include "core/units.h"

namespace perfhound::bench {
namespace {

using Json = nlohmann::ordered_json;

Json clocks_json(const std::optional<GpuClocks>& c) {
  if (!c) return nullptr;
  return {{"sm_clock_hz", c->sm_clock_hz}, {"memory_clock_hz", c->memory_clock_hz},
          {"temperature_c", c->temperature_c}, {"clock_event_reasons", c->clock_event_reasons}};
}

std::string rate_cell(const Measurement& m) {
  std::string out;
  const auto add = [&](double work, const char* unit) {
    const double r = rate_at_median(work, m.summary);
    if (r > 0) out += (out.empty() ? "" : ", ") + core::format_si(r, unit);
  };
  add(m.work.bytes, "B/s");
  add(m.work.flop, "FLOP/s");
  add(m.work.items, "items/s");
  return out.empty() ? "-" : out;
}

}  // namespace

Json measurement_json(const Measurement& m) {
  const SampleSummary& s = m.summary;
  Json j;
  j["name"] = m.name;
  j["mode"] = m.mode;
  j["unit"] = "s";
  j["count"] = s.count;
  j["operations_per_sample"] = m.operations_per_sample;
  j["warmup_discarded"] = m.warmup_discarded;
  j["stop_reason"] = stop_reason_name(m.stop);
  j["relative_noise"] = std::isfinite(m.noise) ? Json(m.noise) : Json(nullptr);
  j["sample_time_s"] = m.sample_time_s;
  j["wall_time_s"] = m.wall_time_s;
  j["min_s"] = s.min;
  j["p10_s"] = s.p10;
  j["p25_s"] = s.p25;
  j["p50_s"] = s.p50;
  j["p75_s"] = s.p75;
  j["p90_s"] = s.p90;
  j["p95_s"] = s.p95;
  j["p99_s"] = s.p99;
  j["max_s"] = s.max;
  j["mean_s"] = s.mean;
  j["stddev_s"] = s.stddev;
  j["work"] = {{"bytes", m.work.bytes}, {"flop", m.work.flop}, {"items", m.work.items}};
  j["at_median"] = {{"bytes_per_s", rate_at_median(m.work.bytes, s)},
                    {"flop_per_s", rate_at_median(m.work.flop, s)},
                    {"items_per_s", rate_at_median(m.work.items, s)}};
  j["clocks_before"] = clocks_json(m.clocks_before);
  j["clocks_after"] = clocks_json(m.clocks_after);
  j["details"] = m.details;
  j["diagnostics"] = core::diagnostics_to_json(m.diagnostics);
  j["samples_s"] = m.samples_s;
  return j;
}

std::vector<core::Diagnostic> named_diagnostics(const std::vector<Measurement>& measurements) {
  std::vector<core::Diagnostic> all;
  for (const Measurement& m : measurements) {
    for (const core::Diagnostic& d : m.diagnostics) all.push_back({d.kind, m.name + ": " + d.message});
  }
  return all;
}

Json bench_document(const std::string& suite, const core::Conditions& conditions,
                    const std::vector<Measurement>& measurements) {
  Json benchmarks = Json::array();
  for (const Measurement& m : measurements) benchmarks.push_back(measurement_json(m));
  const std::vector<core::Diagnostic> all = named_diagnostics(measurements);
  Json result;
  result["suite"] = suite;
  result["benchmarks"] = std::move(benchmarks);
  return report::make_json_document("bench", conditions, std::move(result), core::diagnostics_to_json(all));
}

std::string noise_text(const Measurement& m) {
  return std::isfinite(m.noise) ? fmt::format("{:.2f}%", m.noise * 100) : "n/a";
}

std::string render_table(const std::vector<Measurement>& measurements) {
  report::TableWriter table({{"benchmark", report::Align::kLeft},
                             {"mode", report::Align::kLeft},
                             {"samples"},
                             {"warm-up"},
                             {"p50"},
                             {"p10 - p90"},
                             {"p99"},
                             {"noise"},
                             {"stop", report::Align::kLeft},
                             {"at p50", report::Align::kLeft}});
  for (const Measurement& m : measurements) {
    const SampleSummary& s = m.summary;
    const auto t = [](double seconds) { return core::format_duration_ns(seconds * 1e9); };
    const std::string samples = m.operations_per_sample > 1
                                    ? fmt::format("{} x {}", s.count, m.operations_per_sample)
                                    : fmt::format("{}", s.count);
    table.add_row({m.name, m.mode, samples, fmt::format("{}", m.warmup_discarded), t(s.p50),
                   t(s.p10) + " - " + t(s.p90), t(s.p99), noise_text(m),
                   std::string(stop_reason_name(m.stop)), rate_cell(m)});
  }
  return table.render();
}

}  // namespace perfhound::bench
