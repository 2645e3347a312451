// genai-perf's profile_export_genai_perf.json (genai_perf/export_data/json_exporter.py): one object per metric
// with its "unit" and statistics (genai_perf/metrics/statistics.py: "avg", "p1" ... "p99", "min", "max",
// "std"; system metrics such as request_throughput and output_token_throughput carry "avg" only), and the
// run's configuration under "input_config". Two layouts of input_config are read: the flat argparse one
// (model, concurrency, request_rate, synthetic_input_tokens_mean, output_tokens_mean, warmup_request_count,
// service_kind, backend) and the nested one of genai-perf's config files (model_names, perf_analyzer.stimulus,
// perf_analyzer.warmup_request_count, input.synthetic_tokens.mean, input.output_tokens.mean,
// endpoint.service_kind, endpoint.backend). docs/audit.md has the mapping.
#include <fmt/format.h>
#include <string>

#include "audit/claim_importer.h"
#include "audit/import_helpers.h"

namespace perfhound::audit {
namespace {

struct MetricName {
  std::string_view genai_perf;
  std::string_view ours;
};
// genai-perf's inter_token_latency is (request_latency - ttft) / (osl - 1): our TPOT (docs/metrics.md).
constexpr MetricName kLatencies[] = {{"time_to_first_token", "ttft"},
                                     {"inter_token_latency", "tpot"},
                                     {"request_latency", "e2e"},
                                     {"time_to_second_token", "ttst"}};

class GenaiPerfImporter final : public ClaimImporter {
 public:
  std::string_view format() const override { return "genai-perf"; }

  bool recognizes(const nlohmann::json& j) const override {
    if (!j.is_object() || j.contains("kind") || !j.contains("input_config") || !j["input_config"].is_object()) return false;
    for (const char* m : {"request_throughput", "time_to_first_token", "request_latency", "output_token_throughput"}) {
      if (j.contains(m) && j[m].is_object() && j[m].contains("avg")) return true;
    }
    return false;
  }

  core::Result<Claim> import(const SourceDocument& doc) const override {
    Claim claim;
    claim.path = doc.path();
    claim.format = std::string(format());
    ClaimConditions& c = claim.conditions;

    PH_ASSIGN_OR_RETURN(c.model, first_model(doc));
    PH_ASSIGN_OR_RETURN(auto service_kind, first_text(doc, {"/input_config/service_kind", "/input_config/endpoint/service_kind"}));
    PH_ASSIGN_OR_RETURN(auto backend, first_text(doc, {"/input_config/backend", "/input_config/endpoint/backend"}));
    // backend is Triton's (tensorrtllm, vllm) and only means something when genai-perf talked to Triton; for
    // the openai service kind it keeps its default and names nothing.
    if (service_kind && *service_kind == "triton") {
      c.framework = backend ? fmt::format("Triton Inference Server ({} backend)", *backend) : "Triton Inference Server";
    } else if (service_kind) {
      claim.notes.push_back(fmt::format("service kind '{}' is a protocol, not the server's framework", *service_kind));
    }

    PH_ASSIGN_OR_RETURN(auto rate, first_number(doc, {"/input_config/request_rate", "/input_config/perf_analyzer/stimulus/request_rate"}));
    PH_ASSIGN_OR_RETURN(auto concurrency,
                        first_number(doc, {"/input_config/concurrency", "/input_config/perf_analyzer/stimulus/concurrency"}));
    if (rate) {
      c.request_rate_per_s = rate;
      c.load = fmt::format("request rate {:g}/s", *rate);
    } else if (concurrency) {
      c.concurrency = concurrency;
      c.load = fmt::format("concurrency {:g}", *concurrency);
    }

    PH_ASSIGN_OR_RETURN(auto isl, doc.number("/input_sequence_length/avg"));
    PH_ASSIGN_OR_RETURN(auto osl, doc.number("/output_sequence_length/avg"));
    PH_ASSIGN_OR_RETURN(auto isl_config, first_number(doc, {"/input_config/synthetic_input_tokens_mean",
                                                            "/input_config/input/synthetic_tokens/mean"}));
    PH_ASSIGN_OR_RETURN(auto osl_config, first_number(doc, {"/input_config/output_tokens_mean",
                                                            "/input_config/input/output_tokens/mean"}));
    // output_tokens_mean is -1 when not set: the server chose the lengths.
    if (osl_config && *osl_config < 0) osl_config.reset();
    c.input_len = isl ? isl : isl_config;
    c.output_len = osl ? osl : osl_config;
    if ((!isl && isl_config) || (!osl && osl_config)) {
      claim.notes.push_back("lengths from input_config (the requested means), not the measured sequence lengths");
    }

    PH_ASSIGN_OR_RETURN(claim.completed, doc.count("/request_count/avg"));
    PH_ASSIGN_OR_RETURN(claim.failed, doc.count("/error_request_count/avg"));

    PH_ASSIGN_OR_RETURN(claim.requests_per_s, doc.number("/request_throughput/avg"));
    PH_ASSIGN_OR_RETURN(claim.output_tokens_per_s, doc.number("/output_token_throughput/avg"));
    PH_ASSIGN_OR_RETURN(claim.total_tokens_per_s, doc.number("/total_token_throughput/avg"));

    for (const auto& m : kLatencies) {
      if (!doc.has(fmt::format("/{}", m.genai_perf))) continue;
      PH_ASSIGN_OR_RETURN(LatencyFigure figure, latency(doc, m.genai_perf, m.ours));
      figure.samples = claim.completed;
      claim.latencies.push_back(std::move(figure));
    }

    PH_ASSIGN_OR_RETURN(auto warmup, first_number(doc, {"/input_config/warmup_request_count",
                                                        "/input_config/perf_analyzer/warmup_request_count",
                                                        "/input_config/input/request_count/warmup"}));
    if (warmup) {
      claim.warmup = fmt::format("{:g} requests", *warmup);
      claim.warmup_discarded = *warmup > 0;
    }
    claim.runs = 1;
    return claim;
  }

 private:
  static core::Result<std::optional<std::string>> first_model(const SourceDocument& doc) {
    for (const char* pointer : {"/input_config/model_names", "/input_config/model"}) {
      const nlohmann::json* v = doc.find(pointer);
      if (v == nullptr) continue;
      if (v->is_array()) {
        if (v->empty()) continue;
        return condition_text(doc, std::string(pointer) + "/0");
      }
      return condition_text(doc, pointer);
    }
    return std::optional<std::string>{};
  }

  static core::Result<std::optional<std::string>> first_text(const SourceDocument& doc,
                                                             std::initializer_list<std::string_view> pointers) {
    for (auto p : pointers) {
      PH_ASSIGN_OR_RETURN(auto v, condition_text(doc, p));
      if (v) return v;
    }
    return std::optional<std::string>{};
  }

  static core::Result<std::optional<double>> first_number(const SourceDocument& doc,
                                                          std::initializer_list<std::string_view> pointers) {
    for (auto p : pointers) {
      PH_ASSIGN_OR_RETURN(auto v, doc.number(p));
      if (v) return v;
    }
    return std::optional<double>{};
  }

  static core::Result<LatencyFigure> latency(const SourceDocument& doc, std::string_view name, std::string_view ours) {
    LatencyFigure f;
    f.metric = std::string(ours);
    const std::string base = fmt::format("/{}", name);
    if (!doc.find(base)->is_object()) {
      return doc.field_error(base, "expected an object of statistics (unit, avg, p50, p99, ...)");
    }
    PH_ASSIGN_OR_RETURN(const auto unit, condition_text(doc, base + "/unit"));
    const auto scale = seconds_per_unit(unit.value_or("ms"));
    if (!scale) return doc.field_error(base + "/unit", fmt::format("unknown time unit '{}' (expected ms, s, us or ns)", *unit));
    PH_ASSIGN_OR_RETURN(const auto avg, doc.number(base + "/avg"));
    PH_ASSIGN_OR_RETURN(const auto std, doc.number(base + "/std"));
    if (avg) f.mean_s = *avg * *scale;
    if (std) f.stddev_s = *std * *scale;
    for (const auto& [key, value] : doc.find(base)->items()) {
      if (key.size() < 2 || key[0] != 'p' || key.find_first_not_of("0123456789.", 1) != std::string::npos) continue;
      PH_ASSIGN_OR_RETURN(const auto v, doc.number(base + "/" + key));
      if (v) f.percentiles_s[std::stod(key.substr(1))] = *v * *scale;
    }
    return f;
  }
};

}  // namespace

std::unique_ptr<ClaimImporter> make_genai_perf_importer() { return std::make_unique<GenaiPerfImporter>(); }

}  // namespace perfhound::audit
