#include "cuda/probe_report.h"

#include <cctype>
#include <cmath>
#include <fmt/format.h>

#include "report/table_writer.h"

namespace perfhound::cuda {
namespace {

using OJson = nlohmann::ordered_json;

// Display scale for the table: people read bandwidth in GB/s, GEMM rates in TFLOP/s, latencies in us.
struct Scale {
  double divisor;
  const char* unit;
  const char* format;
};
Scale display_scale(const std::string& unit) {
  if (unit == "B/s") return {1e9, "GB/s", "{:.1f}"};
  if (unit == "FLOP/s") return {1e12, "TFLOP/s", "{:.1f}"};
  if (unit == "s") return {1e-6, "us", "{:.2f}"};
  return {1, "", "{:.3g}"};
}

std::string scaled(double v, const Scale& s) {
  if (std::isnan(v)) return "n/a";
  return fmt::format(fmt::runtime(s.format), v / s.divisor);
}

OJson number_or_null(double v) { return std::isfinite(v) ? OJson(v) : OJson(nullptr); }

OJson clock_json(const ClockSample& c) {
  return {{"sm_clock_hz", c.sm_clock_hz},
          {"memory_clock_hz", c.memory_clock_hz},
          {"temperature_c", c.temperature_c},
          {"power_w", c.power_w},
          {"clock_event_reasons", c.clock_event_reasons}};
}

std::string kebab(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c)) {
      out += static_cast<char>(std::tolower(c));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "gpu" : out;
}

std::string cc_string(const DeviceInfo& d) { return fmt::format("{}.{}", d.cc_major, d.cc_minor); }

}  // namespace

double DeviceInfo::memory_peak_bytes_per_s() const {
  if (memory_bus_width_bits <= 0 || !(memory_clock_hz > 0)) return 0;
  return memory_bus_width_bits / 8.0 * memory_clock_hz * 2;
}

const ProbeFigure* ProbeResult::find(const std::string& key) const {
  for (const auto& f : figures) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

std::string architecture_name(int cc_major, int cc_minor) {
  switch (cc_major) {
    case 7: return cc_minor >= 5 ? "Turing" : "Volta";
    case 8: return cc_minor == 9 ? "Ada Lovelace" : "Ampere";
    case 9: return "Hopper";
    case 10:
    case 11:
    case 12: return "Blackwell";
    default: return "unknown";
  }
}

std::string measured_key(const ProbeFigure& f) {
  if (f.key.ends_with("_gemm")) return f.key.substr(0, f.key.size() - 5) + "_flops_per_s";
  if (f.key == "fp32_fma") return "fp32_flops_per_s";
  if (f.unit == "B/s") return f.key + "_bytes_per_s";
  if (f.unit == "FLOP/s") return f.key + "_flops_per_s";
  return f.key + "_s";
}

void add_probe_conditions(const ProbeResult& r, core::Conditions& c) {
  const DeviceInfo& d = r.device;
  c.set("gpu_index", d.index);
  c.set("gpu_name", d.name);
  c.set("gpu_pci_bus_id", d.pci_bus_id);
  c.set("compute_capability", cc_string(d));
  c.set("sm_count", d.sm_count);
  c.set("l2_cache_bytes", d.l2_cache_bytes);
  c.set("memory_bytes", d.memory_bytes);
  c.set("max_sm_clock_hz", d.max_sm_clock_hz);
  c.set("memory_clock_hz", d.memory_clock_hz);
  if (!d.nvidia_driver_version.empty()) c.set("nvidia_driver_version", d.nvidia_driver_version);
  c.set("cuda_driver_version", d.driver_version);
  c.set("cuda_runtime_version", d.runtime_version);
  c.set("cublas_version", d.cublas_version);
  c.set("nvml", r.nvml_available ? "available" : "unavailable: " + r.nvml_error);
  if (r.before) {
    c.set("sm_clock_before_hz", r.before->sm_clock_hz);
    c.set("temperature_before_c", r.before->temperature_c);
  }
  if (r.after) {
    c.set("sm_clock_after_hz", r.after->sm_clock_hz);
    c.set("temperature_after_c", r.after->temperature_c);
  }
  c.set("quick", r.settings.quick);
  c.set("warmup_discarded", r.settings.warmup);
  c.set("repeats", r.settings.repeats);
  c.set("bandwidth_buffer_bytes", r.settings.bandwidth_buffer_bytes);
  c.set("host_buffer_bytes", r.settings.host_buffer_bytes);
  c.set("gemm_m_n_k", r.settings.gemm_size);
}

OJson probe_result_json(const ProbeResult& r) {
  const DeviceInfo& d = r.device;
  OJson j;
  j["device"] = {{"index", d.index},
                 {"name", d.name},
                 {"pci_bus_id", d.pci_bus_id},
                 {"compute_capability", cc_string(d)},
                 {"sm_count", d.sm_count},
                 {"l2_cache_bytes", d.l2_cache_bytes},
                 {"memory_bytes", d.memory_bytes},
                 {"memory_bus_width_bits", d.memory_bus_width_bits},
                 {"memory_clock_hz", d.memory_clock_hz},
                 {"memory_peak_bytes_per_s", d.memory_peak_bytes_per_s()},
                 {"max_sm_clock_hz", d.max_sm_clock_hz},
                 {"cuda_driver_version", d.driver_version},
                 {"cuda_runtime_version", d.runtime_version},
                 {"cublas_version", d.cublas_version},
                 {"nvidia_driver_version", d.nvidia_driver_version}};
  const ProbeSettings& s = r.settings;
  j["settings"] = {{"quick", s.quick},
                   {"bandwidth_buffer_bytes", s.bandwidth_buffer_bytes},
                   {"host_buffer_bytes", s.host_buffer_bytes},
                   {"gemm_m_n_k", s.gemm_size},
                   {"warmup_discarded", s.warmup},
                   {"repeats", s.repeats},
                   {"launches_per_repeat", s.launches_per_repeat},
                   {"graph_nodes", s.graph_nodes}};
  OJson nvml = {{"available", r.nvml_available}};
  if (!r.nvml_available) nvml["error"] = r.nvml_error;
  nvml["before"] = r.before ? clock_json(*r.before) : OJson(nullptr);
  nvml["after"] = r.after ? clock_json(*r.after) : OJson(nullptr);
  j["nvml"] = nvml;
  auto figures = OJson::array();
  for (const auto& f : r.figures) {
    OJson fj = {{"key", f.key}, {"label", f.label}, {"unit", f.unit}, {"method", f.method}};
    if (!f.measured()) {
      fj["unsupported"] = f.unsupported;
    } else {
      fj["work_per_repeat"] = f.work_per_repeat;
      fj["warmup_discarded"] = f.warmup;
      fj["repeats"] = f.summary.repeats;
      fj["median"] = number_or_null(f.summary.median);
      fj["p10"] = number_or_null(f.summary.p10);
      fj["p90"] = number_or_null(f.summary.p90);
      fj["min"] = number_or_null(f.summary.min);
      fj["max"] = number_or_null(f.summary.max);
    }
    fj["sm_clock_after_hz"] = f.sm_clock_after_hz ? OJson(*f.sm_clock_after_hz) : OJson(nullptr);
    figures.push_back(std::move(fj));
  }
  j["figures"] = std::move(figures);
  return j;
}

std::string probe_table(const ProbeResult& r) {
  const DeviceInfo& d = r.device;
  std::string text = fmt::format("{} (compute capability {}, {} SMs, {:.0f} MiB L2, {:.1f} GiB)\n\n", d.name,
                                 cc_string(d), d.sm_count, static_cast<double>(d.l2_cache_bytes) / (1 << 20),
                                 static_cast<double>(d.memory_bytes) / (1 << 30));
  report::TableWriter t({{"figure", report::Align::kLeft},
                         {"median"},
                         {"p10"},
                         {"p90"},
                         {"repeats"},
                         {"unit", report::Align::kLeft}});
  for (const auto& f : r.figures) {
    const Scale s = display_scale(f.unit);
    if (!f.measured()) {
      t.add_row({f.label, "unsupported: " + f.unsupported, "-", "-", "-", s.unit});
      continue;
    }
    t.add_row({f.label, scaled(f.summary.median, s), scaled(f.summary.p10, s), scaled(f.summary.p90, s),
               std::to_string(f.summary.repeats), s.unit});
  }
  text += t.render();
  const ProbeSettings& st = r.settings;
  text += fmt::format(
      "\n{} warm-up runs discarded per figure, then {} timed repeats (launch latencies: {} launches, graphs of {} "
      "nodes); median, p10, p90 over the repeats\n",
      st.warmup, st.repeats, st.launches_per_repeat, st.graph_nodes);
  text += fmt::format(
      "bandwidth buffers {:.0f} MiB each ({:.0f}x the L2), bytes counted: copy read + written, read, write; host "
      "buffers {:.0f} MiB; GEMM M=N=K={}, 2*M*N*K FLOP\n",
      static_cast<double>(st.bandwidth_buffer_bytes) / (1 << 20),
      d.l2_cache_bytes > 0 ? static_cast<double>(st.bandwidth_buffer_bytes) / static_cast<double>(d.l2_cache_bytes) : 0.0,
      static_cast<double>(st.host_buffer_bytes) / (1 << 20), st.gemm_size);
  if (r.before && r.after) {
    text += fmt::format("SM clock under load {:.0f} MHz before, {:.0f} MHz after; temperature {:.0f} C before, {:.0f} C after\n",
                        r.before->sm_clock_hz / 1e6, r.after->sm_clock_hz / 1e6, r.before->temperature_c,
                        r.after->temperature_c);
  } else {
    text += "clocks and temperature not recorded: NVML unavailable (" + r.nvml_error + ")\n";
  }
  return text;
}

std::vector<core::Diagnostic> probe_diagnostics(const ProbeResult& r) {
  std::vector<core::Diagnostic> out;
  if (!r.nvml_available) out.push_back({&core::kNvmlUnavailable, r.nvml_error});
  const auto reasons = [](const ClockSample& c) {
    const std::string named = throttle_reasons(c.clock_event_reasons);
    return fmt::format("0x{:x}{}", c.clock_event_reasons, named.empty() ? "" : " (" + named + ")");
  };
  const core::DiagnosticKind* clocks =
      r.before && r.after ? clock_diagnostic(r.before->sm_clock_hz, r.after->sm_clock_hz, r.before->clock_event_reasons,
                                             r.after->clock_event_reasons)
                          : nullptr;
  if (clocks == &core::kClockDropped) {
    out.push_back({clocks,
                   fmt::format("SM clock under load {:.0f} MHz before, {:.0f} MHz after ({:+.1f}%); temperature {:.0f} "
                               "C -> {:.0f} C; clock event reasons {} -> {}",
                               r.before->sm_clock_hz / 1e6, r.after->sm_clock_hz / 1e6,
                               (r.after->sm_clock_hz / r.before->sm_clock_hz - 1) * 100, r.before->temperature_c,
                               r.after->temperature_c, reasons(*r.before), reasons(*r.after))});
  } else if (clocks != nullptr) {
    // The clock held, but a limit held it down the whole time.
    out.push_back({clocks, fmt::format("SM clock under load {:.0f} MHz before, {:.0f} MHz after; clock event reasons "
                                       "{} -> {}",
                                       r.before->sm_clock_hz / 1e6, r.after->sm_clock_hz / 1e6, reasons(*r.before),
                                       reasons(*r.after))});
  }
  for (const auto& f : r.figures) {
    if (!f.measured()) out.push_back({&core::kFigureUnsupported, f.label + ": " + f.unsupported});
  }
  return out;
}

core::Result<OJson> probe_chip_json(const ProbeResult& r, const core::Conditions& conditions,
                                    const std::optional<nlohmann::json>& base) {
  const DeviceInfo& d = r.device;
  if (d.memory_bytes <= 0) return core::Error{"the device query reported no memory size"};
  OJson j;
  j["schema_version"] = 1;
  if (base) {
    j["name"] = base->value("name", std::string("gpu")) + "-measured";
    j["display_name"] = base->value("display_name", d.name) + " (measured by perfhound probe)";
  } else {
    j["name"] = kebab(d.name) + "-measured";
    j["display_name"] = d.name + " (measured by perfhound probe)";
  }
  j["vendor"] = "NVIDIA";
  j["architecture"] = base && base->contains("architecture") ? OJson((*base)["architecture"])
                                                             : OJson(architecture_name(d.cc_major, d.cc_minor));
  j["compute_capability"] = cc_string(d);
  j["sm_count"] = d.sm_count;
  j["boost_clock_hz"] = d.max_sm_clock_hz > 0 ? OJson(static_cast<std::int64_t>(d.max_sm_clock_hz)) : OJson(nullptr);
  const std::string query = fmt::format("device query by perfhound probe on {} ({}), {}", d.name, d.pci_bus_id,
                                        conditions.timestamp_utc());
  if (base && base->contains("peak_flops")) {
    j["peak_flops"] = (*base)["peak_flops"];
  } else {
    j["peak_flops"] = OJson::object();
    for (const char* k : {"fp64", "fp64_tensor", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4"}) {
      j["peak_flops"][k] = nullptr;
    }
  }
  OJson memory;
  memory["type"] = base && base->contains("memory") ? (*base)["memory"].value("type", "unknown") : "unknown";
  memory["capacity_bytes"] = d.memory_bytes;
  if (base && base->contains("memory") && (*base)["memory"].contains("bandwidth_bytes_per_s")) {
    memory["bandwidth_bytes_per_s"] = (*base)["memory"]["bandwidth_bytes_per_s"];
  } else {
    const double peak = d.memory_peak_bytes_per_s();
    if (!(peak > 0)) {
      return core::Error{"the device query gave no memory bus width or clock, so the chip file has no memory "
                         "bandwidth: name a catalogue chip with --base"};
    }
    memory["bandwidth_bytes_per_s"] = {
        {"value", static_cast<std::int64_t>(peak)},
        {"source", fmt::format("{}: {} bit bus / 8 x {:.0f} MHz memory clock x 2 (double data rate)", query,
                               d.memory_bus_width_bits, d.memory_clock_hz / 1e6)}};
  }
  j["memory"] = memory;
  j["l2_cache_bytes"] = {{"value", d.l2_cache_bytes}, {"source", query + ": cudaDevAttrL2CacheSize"}};
  j["interconnect"] = base && base->contains("interconnect") ? OJson((*base)["interconnect"]) : OJson(nullptr);
  j["tdp_watts"] = base && base->contains("tdp_watts") ? OJson((*base)["tdp_watts"]) : OJson(nullptr);
  auto notes = OJson::array();
  if (base && base->contains("notes") && (*base)["notes"].is_array()) {
    for (const auto& n : (*base)["notes"]) notes.push_back(OJson(n));
  }
  notes.push_back(fmt::format("measured: ceilings measured by perfhound probe on {} ({}) at {}; memory.capacity_bytes is "
                              "what the device reports{}",
                              d.name, d.pci_bus_id, conditions.timestamp_utc(),
                              base ? "; other spec-sheet fields are the catalogue's '" + base->value("name", std::string()) + "'"
                                   : "; peak_flops are unknown without --base"));
  j["notes"] = notes;
  OJson measured = OJson::object();
  const auto entry = [&](const ProbeFigure& f, const std::string& what) {
    return OJson{{"value", f.summary.median},
                 {"source", fmt::format("measured by perfhound probe {} on {} ({}) at {}: {}; median of {} repeats "
                                        "after {} warm-up runs",
                                        conditions.tool().version, d.name, d.pci_bus_id, conditions.timestamp_utc(),
                                        what, f.summary.repeats, f.warmup)},
                 {"p10", number_or_null(f.summary.p10)},
                 {"p90", number_or_null(f.summary.p90)},
                 {"repeats", f.summary.repeats}};
  };
  const ProbeFigure* best_copy = nullptr;
  for (const auto& f : r.figures) {
    if (!f.measured() || !(f.summary.median > 0) || !std::isfinite(f.summary.median)) continue;
    measured[measured_key(f)] = entry(f, f.method);
    if ((f.key == "copy_kernel" || f.key == "copy_memcpy") &&
        (best_copy == nullptr || f.summary.median > best_copy->summary.median)) {
      best_copy = &f;
    }
  }
  if (best_copy != nullptr) {
    measured["copy_bytes_per_s"] = entry(*best_copy, "the faster device-to-device copy (" + best_copy->label + "): " +
                                                         best_copy->method);
  }
  j["measured"] = measured;
  j["measured_conditions"] = {{"date_utc", conditions.timestamp_utc()},
                              {"settings", probe_result_json(r)["settings"]},
                              {"conditions", conditions.to_json()}};
  return j;
}

}  // namespace perfhound::cuda
