// perfhound's own result documents (report/json_document.h: schema_version, kind "perfhound.<command>",
// conditions, result, diagnostics), any kind. Conditions come from conditions.parameters (model, precision,
// hardware, batch, input_len, output_len, framework, framework_version where a command records them); load and
// sweep results add the figures of result.summary (load/load_metrics.cpp to_json), mfu results their roofs
// and MFU / MBU, roofline results the roof they were judged against, stats results their distribution.
// docs/audit.md has the mapping.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <string>

#include "audit/claim_importer.h"
#include "audit/import_helpers.h"

namespace perfhound::audit {
namespace {

constexpr int kReadableSchemaVersion = 1;  // report::kSchemaVersion; audit does not depend on report
constexpr std::string_view kEmbeddedTarget = "embedded perfhound serve (";

class PerfhoundResultImporter final : public ClaimImporter {
 public:
  std::string_view format() const override { return "perfhound result"; }

  bool recognizes(const nlohmann::json& j) const override {
    return j.is_object() && j.contains("schema_version") && j.contains("kind") && j["kind"].is_string() &&
           j["kind"].get_ref<const std::string&>().starts_with("perfhound.");
  }

  core::Result<Claim> import(const SourceDocument& doc) const override {
    PH_ASSIGN_OR_RETURN(const auto version, doc.number("/schema_version"));
    if (!version) return doc.field_error("/schema_version", "missing");
    if (*version > kReadableSchemaVersion) {
      return doc.field_error("/schema_version", fmt::format("{:g} is newer than this perfhound reads ({}); use the "
                                                            "perfhound that wrote it",
                                                            *version, kReadableSchemaVersion));
    }
    if (!doc.has("/conditions/parameters")) return doc.field_error("/conditions/parameters", "missing (not a result document?)");
    Claim claim;
    claim.path = doc.path();
    claim.format = doc.json()["kind"].get<std::string>();
    ClaimConditions& c = claim.conditions;
    const std::string p = "/conditions/parameters";
    PH_ASSIGN_OR_RETURN(c.model, condition_text(doc, p + "/model"));
    PH_ASSIGN_OR_RETURN(c.precision, condition_text(doc, p + "/precision"));
    PH_ASSIGN_OR_RETURN(c.hardware, condition_text(doc, p + "/hardware"));
    PH_ASSIGN_OR_RETURN(c.framework, condition_text(doc, p + "/framework"));
    PH_ASSIGN_OR_RETURN(c.framework_version, condition_text(doc, p + "/framework_version"));
    PH_ASSIGN_OR_RETURN(c.batch, doc.number(p + "/batch"));
    PH_ASSIGN_OR_RETURN(c.input_len, doc.number(p + "/input_len"));
    PH_ASSIGN_OR_RETURN(c.output_len, doc.number(p + "/output_len"));
    PH_ASSIGN_OR_RETURN(auto phase, condition_text(doc, p + "/phase"));
    claim.phase = phase.value_or("");

    const std::string& kind = claim.format;
    // A sweep's list holds every point's diagnostics; it is judged at one point, whose own list is read there.
    bool severe_diagnostic = false;
    if (kind != "perfhound.sweep") {
      PH_ASSIGN_OR_RETURN(severe_diagnostic, read_severe_diagnostics(doc, "/diagnostics", claim));
    }

    // mfu judges one prefill or decode step; bench, probe, roofline and stats time kernels or functions.
    if (kind == "perfhound.mfu") {
      claim.subject = Subject::kModelStep;
    } else if (kind == "perfhound.bench" || kind == "perfhound.probe" || kind == "perfhound.roofline" ||
               kind == "perfhound.stats") {
      claim.subject = Subject::kMicrobenchmark;
    }
    // A merge is one load over every client's records: the same summary, conditions and warm-up; missing shards
    // are its severe diagnostic, read above.
    if (kind == "perfhound.load" || kind == "perfhound.merge") {
      PH_TRY(import_load(doc, "/result/summary", claim));
      PH_TRY(import_status(doc, "/result", severe_diagnostic, claim));
    } else if (kind == "perfhound.sweep") {
      PH_TRY(import_sweep(doc, claim));
    } else if (kind == "perfhound.mfu") {
      PH_TRY(import_mfu(doc, claim));
    } else if (kind == "perfhound.roofline") {
      PH_TRY(import_roofline(doc, claim));
    } else if (kind == "perfhound.stats") {
      PH_TRY(import_stats(doc, claim));
    } else if (kind == "perfhound.bench") {
      PH_TRY(import_bench(doc, claim));
    } else {
      claim.notes.push_back(fmt::format("{} documents carry conditions only: no figures were read", kind));
    }
    claim.runs = 1;
    return claim;
  }

 private:
  // The target, the load and the warm-up as perfhound load writes them into its conditions.
  static core::Status import_load_conditions(const SourceDocument& doc, Claim& claim) {
    ClaimConditions& c = claim.conditions;
    const std::string p = "/conditions/parameters";
    PH_ASSIGN_OR_RETURN(auto target, condition_text(doc, p + "/target"));
    if (target && target->starts_with(kEmbeddedTarget)) {
      // "embedded perfhound serve (<simulator>; time scale 1)": the simulator is the hardware, perfhound the
      // framework. Its description is sim_flags.cpp's: "fixed 200 us steps", or "<model> on <chip> (TP <n>,
      // <precision>), KV cache ...".
      std::string sim = target->substr(kEmbeddedTarget.size());
      if (const auto end = sim.rfind("; time scale"); end != std::string::npos) sim.resize(end);
      if (!c.framework) c.framework = "perfhound serve (simulator)";
      if (!c.framework_version) {
        PH_ASSIGN_OR_RETURN(c.framework_version, condition_text(doc, "/conditions/tool/version"));
      }
      if (sim.starts_with("fixed ")) {
        if (!c.hardware) c.hardware = fmt::format("none: perfhound's simulator ({})", sim);
        if (!c.precision) c.precision = "none: a fixed-step simulator does no arithmetic";
      } else if (const auto on = sim.find(" on "); on != std::string::npos) {
        const auto open = sim.find(" (TP ", on);
        const auto comma = open == std::string::npos ? std::string::npos : sim.find(", ", open);
        const auto close = comma == std::string::npos ? std::string::npos : sim.find(')', comma);
        if (open != std::string::npos && close != std::string::npos) {
          if (!c.hardware) {
            c.hardware = fmt::format("{} (simulated, TP {})", sim.substr(on + 4, open - on - 4),
                                     sim.substr(open + 5, comma - open - 5));
          }
          if (!c.precision) c.precision = sim.substr(comma + 2, close - comma - 2);
        }
      }
      claim.notes.push_back(fmt::format("the target is perfhound's simulator ({}): the figures are the simulator's", sim));
    }
    PH_ASSIGN_OR_RETURN(auto load, condition_text(doc, p + "/load"));
    if (load) {
      c.load = *load;
      if (load->starts_with("closed loop")) {
        c.concurrency = number_after(*load, "concurrency ");
      } else if (load->starts_with("open loop")) {
        c.request_rate_per_s = number_after(*load, "open loop, ");
        c.concurrency = number_after(*load, "max concurrency ");
      }
    }
    return import_warmup_condition(doc, claim);
  }

  // The warm-up as load and mfu state it in their conditions: "10 requests", "5 s", "none".
  static core::Status import_warmup_condition(const SourceDocument& doc, Claim& claim) {
    PH_ASSIGN_OR_RETURN(auto warmup, condition_text(doc, "/conditions/parameters/warmup_discarded"));
    if (warmup) {
      claim.warmup = *warmup;
      claim.warmup_discarded = warmup_discards(*warmup);
    }
    return {};
  }

  static core::Status import_load(const SourceDocument& doc, const std::string& summary, Claim& claim) {
    PH_TRY(import_load_conditions(doc, claim));
    if (!doc.has(summary)) return doc.field_error(summary, "missing (a load result has result.summary)");
    ClaimConditions& c = claim.conditions;
    PH_ASSIGN_OR_RETURN(auto warmed, doc.number(summary + "/requests/warmup_discarded"));
    if (warmed) claim.warmup_discarded = *warmed > 0;
    PH_ASSIGN_OR_RETURN(claim.completed, doc.count(summary + "/requests/completed"));
    PH_ASSIGN_OR_RETURN(claim.failed, doc.count(summary + "/requests/failed"));
    if (!c.input_len) {
      PH_ASSIGN_OR_RETURN(c.input_len, doc.number(summary + "/input_tokens/mean_tokens"));
    }
    if (!c.output_len) {
      PH_ASSIGN_OR_RETURN(c.output_len, doc.number(summary + "/output_tokens/mean_tokens"));
    }
    PH_ASSIGN_OR_RETURN(claim.requests_per_s, doc.number(summary + "/throughput/requests_per_s"));
    PH_ASSIGN_OR_RETURN(claim.output_tokens_per_s, doc.number(summary + "/throughput/output_tokens_per_s"));
    PH_ASSIGN_OR_RETURN(claim.total_tokens_per_s, doc.number(summary + "/throughput/total_tokens_per_s"));
    // Open-loop latencies count from the intended send (no coordinated omission), closed-loop ones from the
    // actual send: the figures perfhound load prints.
    PH_ASSIGN_OR_RETURN(auto from, condition_text(doc, "/conditions/parameters/latency_from"));
    const std::string start = from == std::optional<std::string>("intended send time") ? "from_intended" : "from_sent";
    for (const char* m : {"ttft", "tpot", "e2e"}) {
      PH_TRY(add_distribution(doc, fmt::format("{}/latency/{}/{}", summary, start, m), m, claim));
    }
    PH_TRY(add_distribution(doc, summary + "/itl", "itl", claim));
    return {};
  }

  // A distribution as load_metrics.cpp writes it: count, mean_s, stddev_s, p1_s ... p99_s, p99_9_s, max_s.
  // The percentiles read are those perfhound load's table quotes (p50, p90, p95, p99): p99.9 is in the JSON
  // for completeness, not quoted.
  static core::Status add_distribution(const SourceDocument& doc, const std::string& base, std::string_view metric,
                                       Claim& claim) {
    if (!doc.has(base)) return {};
    LatencyFigure f;
    f.metric = std::string(metric);
    PH_ASSIGN_OR_RETURN(f.mean_s, doc.number(base + "/mean_s"));
    PH_ASSIGN_OR_RETURN(f.stddev_s, doc.number(base + "/stddev_s"));
    for (const auto& [q, key] : {std::pair{50.0, "p50_s"}, {90.0, "p90_s"}, {95.0, "p95_s"}, {99.0, "p99_s"}}) {
      PH_ASSIGN_OR_RETURN(auto v, doc.number(fmt::format("{}/{}", base, key)));
      if (v) f.percentiles_s[q] = *v;
    }
    PH_ASSIGN_OR_RETURN(f.samples, doc.count(base + "/count"));
    if (f.mean_s || !f.percentiles_s.empty()) claim.latencies.push_back(std::move(f));
    return {};
  }

  static core::Status import_status(const SourceDocument& doc, const std::string& result, bool severe_diagnostic,
                                    Claim& claim) {
    PH_ASSIGN_OR_RETURN(auto status, condition_text(doc, result + "/status"));
    if (status == std::optional<std::string>("INVALID") && !severe_diagnostic) {
      std::string reasons;
      if (const nlohmann::json* r = doc.find(result + "/invalid_reasons"); r != nullptr && r->is_array()) {
        // load_session.cpp writes [{"reason", "remedy"}, ...].
        for (const auto& reason : *r) {
          const auto text = reason.is_object() && reason.contains("reason") && reason["reason"].is_string()
                                ? reason["reason"].get<std::string>()
                                : reason.is_string() ? reason.get<std::string>() : std::string();
          if (!text.empty()) reasons += (reasons.empty() ? "" : "; ") + text;
        }
      }
      claim.source_flags.push_back(fmt::format("perfhound marked the run INVALID{}", reasons.empty() ? "" : ": " + reasons));
    }
    PH_ASSIGN_OR_RETURN(auto partial, doc.boolean(result + "/partial"));
    if (partial == std::optional<bool>(true)) claim.source_flags.push_back("the run was interrupted: the result is partial");
    return {};
  }

  // A sweep is judged at its operating point (the claim a sweep makes), else at its highest load.
  // The severe entries of the diagnostics list at `pointer` become the claim's source flags; true when there was one.
  static core::Result<bool> read_severe_diagnostics(const SourceDocument& doc, const std::string& pointer, Claim& claim) {
    const nlohmann::json* diagnostics = doc.find(pointer);
    if (diagnostics == nullptr || !diagnostics->is_array()) return false;
    bool severe = false;
    for (std::size_t i = 0; i < diagnostics->size(); ++i) {
      const std::string d = fmt::format("{}/{}", pointer, i);
      PH_ASSIGN_OR_RETURN(auto severity, condition_text(doc, d + "/severity"));
      if (severity != std::optional<std::string>("severe")) continue;
      PH_ASSIGN_OR_RETURN(auto id, condition_text(doc, d + "/id"));
      PH_ASSIGN_OR_RETURN(auto message, condition_text(doc, d + "/message"));
      claim.source_flags.push_back(fmt::format("perfhound's {} diagnostic: {}", id.value_or("?"), message.value_or("")));
      severe = true;
    }
    return severe;
  }

  static core::Status import_sweep(const SourceDocument& doc, Claim& claim) {
    const nlohmann::json* points = doc.find("/result/points");
    if (points == nullptr || !points->is_array() || points->empty()) {
      return doc.field_error("/result/points", "missing or empty (a sweep with no point has no figures)");
    }
    PH_ASSIGN_OR_RETURN(auto op, doc.number("/result/operating_point/index"));
    const std::size_t index = op && *op >= 0 && *op < static_cast<double>(points->size()) ? static_cast<std::size_t>(*op)
                                                                                         : points->size() - 1;
    const std::string point = fmt::format("/result/points/{}", index);
    PH_TRY(import_load(doc, point + "/summary", claim));
    PH_ASSIGN_OR_RETURN(auto label, condition_text(doc, point + "/label"));
    PH_ASSIGN_OR_RETURN(auto load, doc.number(point + "/load"));
    PH_ASSIGN_OR_RETURN(auto load_kind, condition_text(doc, point + "/load_kind"));
    ClaimConditions& c = claim.conditions;
    c.concurrency.reset();
    c.request_rate_per_s.reset();
    if (load) (load_kind == std::optional<std::string>("rate_per_s") ? c.request_rate_per_s : c.concurrency) = load;
    c.load = fmt::format("sweep of {} points, judged at {} ({})", points->size(), label.value_or("?"),
                         op ? "the operating point" : "the last point");
    PH_ASSIGN_OR_RETURN(const bool severe, read_severe_diagnostics(doc, point + "/diagnostics", claim));
    PH_TRY(import_status(doc, point, severe, claim));
    PH_ASSIGN_OR_RETURN(auto partial, doc.boolean("/result/partial"));
    if (partial == std::optional<bool>(true)) claim.source_flags.push_back("the sweep was interrupted: sweep.json is partial");
    return {};
  }

  static std::optional<bool> roof_measured(const std::optional<std::string>& source) {
    if (!source) return std::nullopt;
    return source->starts_with("measured");
  }

  static core::Status import_mfu(const SourceDocument& doc, Claim& claim) {
    PH_TRY(import_warmup_condition(doc, claim));
    PH_ASSIGN_OR_RETURN(claim.mfu, doc.number("/result/measured/mfu"));
    PH_ASSIGN_OR_RETURN(claim.mbu, doc.number("/result/measured/mbu"));
    PH_ASSIGN_OR_RETURN(auto flops, doc.number("/result/roofs/peak_flops_per_s"));
    PH_ASSIGN_OR_RETURN(auto flops_measured, doc.boolean("/result/roofs/peak_flops_measured"));
    PH_ASSIGN_OR_RETURN(auto bytes, doc.number("/result/roofs/peak_bytes_per_s"));
    PH_ASSIGN_OR_RETURN(auto bytes_measured, doc.boolean("/result/roofs/peak_bytes_measured"));
    PH_ASSIGN_OR_RETURN(auto compute_source, condition_text(doc, "/conditions/parameters/compute_roof"));
    PH_ASSIGN_OR_RETURN(auto memory_source, condition_text(doc, "/conditions/parameters/memory_roof"));
    if (flops) {
      claim.roofs.push_back({RoofFigure::Resource::kCompute, *flops, claim.conditions.precision.value_or(""), flops_measured,
                             compute_source.value_or("")});
    }
    if (bytes) {
      claim.roofs.push_back({RoofFigure::Resource::kMemory, *bytes, "", bytes_measured, memory_source.value_or("")});
    }
    return {};
  }

  static core::Status import_roofline(const SourceDocument& doc, Claim& claim) {
    PH_ASSIGN_OR_RETURN(auto compute_source, condition_text(doc, "/conditions/parameters/compute_roof"));
    PH_ASSIGN_OR_RETURN(auto memory_source, condition_text(doc, "/conditions/parameters/memory_roof"));
    PH_ASSIGN_OR_RETURN(auto roofs, condition_text(doc, "/conditions/parameters/roofs"));
    // The roofline document records where its roofs came from, not their values: the rule reads the source,
    // and the peak stays unset (shown as not in the file) rather than an invented 0.
    if (compute_source) {
      claim.roofs.push_back({RoofFigure::Resource::kCompute, std::nullopt, claim.conditions.precision.value_or(""),
                             roof_measured(compute_source), *compute_source});
    }
    if (memory_source) {
      claim.roofs.push_back({RoofFigure::Resource::kMemory, std::nullopt, "", roof_measured(memory_source), *memory_source});
    }
    if (!compute_source && roofs) {
      claim.roofs.push_back({RoofFigure::Resource::kCompute, std::nullopt, "", roofs->starts_with("measured"), *roofs});
    }
    return {};
  }

  // perfhound::bench's document (bench/bench_report.cpp): every benchmark says how many samples it ran and
  // threw away first (warmup_discarded). The warm-up is discarded when every benchmark discarded some.
  static core::Status import_bench(const SourceDocument& doc, Claim& claim) {
    const nlohmann::json* benchmarks = doc.find("/result/benchmarks");
    if (benchmarks == nullptr || !benchmarks->is_array()) {
      return doc.field_error("/result/benchmarks", "missing (a perfhound.bench document lists its benchmarks)");
    }
    std::int64_t fewest = 0, most = 0;
    std::string cold;  // the first benchmark that discarded nothing
    for (std::size_t i = 0; i < benchmarks->size(); ++i) {
      const std::string b = fmt::format("/result/benchmarks/{}", i);
      PH_ASSIGN_OR_RETURN(const auto warmup, doc.count(b + "/warmup_discarded"));
      if (!warmup) return doc.field_error(b + "/warmup_discarded", "missing (every benchmark records its warm-up)");
      fewest = i == 0 ? *warmup : std::min(fewest, *warmup);
      most = std::max(most, *warmup);
      PH_ASSIGN_OR_RETURN(auto name, condition_text(doc, b + "/name"));
      if (*warmup == 0 && cold.empty()) cold = name.value_or(fmt::format("#{}", i));
      // A timed benchmark's distribution is a stated latency: its p99 from 34 samples is judged as any other.
      PH_ASSIGN_OR_RETURN(auto unit, condition_text(doc, b + "/unit"));
      if (unit == std::optional<std::string>("s")) PH_TRY(add_distribution(doc, b, name.value_or(fmt::format("#{}", i)), claim));
    }
    // The hardware a benchmark ran on: the GPU a CUDA runner opened (conditions.parameters.gpu.name), else the
    // host's CPU, which is what a CPU benchmark times.
    if (!claim.conditions.hardware) {
      PH_ASSIGN_OR_RETURN(auto gpu, condition_text(doc, "/conditions/parameters/gpu/name"));
      PH_ASSIGN_OR_RETURN(auto cpu, condition_text(doc, "/conditions/host/cpu_model"));
      if (gpu) {
        claim.conditions.hardware = *gpu;
      } else if (cpu) {
        claim.conditions.hardware = fmt::format("{} (the host CPU)", *cpu);
      }
    }
    if (benchmarks->empty()) return {};
    claim.warmup_discarded = fewest > 0;
    claim.warmup = fewest == most ? fmt::format("{} samples per benchmark", fewest)
                                  : fmt::format("{} to {} samples per benchmark", fewest, most);
    if (!cold.empty()) claim.warmup += fmt::format(" ({} discarded none)", cold);
    return {};
  }

  static core::Status import_stats(const SourceDocument& doc, Claim& claim) {
    PH_ASSIGN_OR_RETURN(auto warmup, doc.number("/result/warmup_discarded"));
    if (warmup) {
      claim.warmup_discarded = *warmup > 0;
      claim.warmup = fmt::format("{:g} samples", *warmup);
    }
    PH_ASSIGN_OR_RETURN(auto unit, condition_text(doc, "/result/unit"));
    if (unit != std::optional<std::string>("s")) return {};
    PH_ASSIGN_OR_RETURN(auto column, condition_text(doc, "/conditions/parameters/column"));
    LatencyFigure f;
    f.metric = column.value_or("samples");
    PH_ASSIGN_OR_RETURN(f.mean_s, doc.number("/result/mean_s"));
    PH_ASSIGN_OR_RETURN(f.stddev_s, doc.number("/result/stddev_s"));
    for (const auto& [q, key] : {std::pair{50.0, "/result/p50_s"}, {90.0, "/result/p90_s"}, {95.0, "/result/p95_s"},
                                 {99.0, "/result/p99_s"}, {99.9, "/result/p99_9_s"}}) {
      PH_ASSIGN_OR_RETURN(auto v, doc.number(key));
      if (v) f.percentiles_s[q] = *v;
    }
    PH_ASSIGN_OR_RETURN(f.samples, doc.count("/result/count"));
    claim.latencies.push_back(std::move(f));
    return {};
  }
};

}  // namespace

std::unique_ptr<ClaimImporter> make_perfhound_result_importer() { return std::make_unique<PerfhoundResultImporter>(); }

}  // namespace perfhound::audit
