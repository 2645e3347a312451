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

    PH_ASSIGN_OR_RETURN(auto rate, first_number(doc, {"/input_config/request_rate", "/input_config/perf_analyzer/stimulus/request_rate"},
                                                Range::kPositiveOrInf));
    PH_ASSIGN_OR_RETURN(auto concurrency, first_number(doc, {"/input_config/concurrency", "/input_config/perf_analyzer/stimulus/concurrency"},
                                                       Range::kWholePositive));
    if (rate) {
      c.request_rate_per_s = rate;
      c.load = fmt::format("request rate {:g}/s", *rate);
    } else if (concurrency) {
      c.concurrency = concurrency;
      c.load = fmt::format("concurrency {:g}", *concurrency);
    }

    PH_ASSIGN_OR_RETURN(auto isl, number_in(doc, "/input_sequence_length/avg", Range::kPositive, Writer::kTool));
    PH_ASSIGN_OR_RETURN(auto osl, number_in(doc, "/output_sequence_length/avg", Range::kNonNegative, Writer::kTool));
    PH_ASSIGN_OR_RETURN(auto isl_config, first_number(doc, {"/input_config/synthetic_input_tokens_mean",
                                                            "/input_config/input/synthetic_tokens/mean"},
                                                      Range::kPositive));
    // output_tokens_mean is -1 when not set (genai-perf's default): the server chose the lengths. Any other
    // negative is no length at all.
    std::optional<double> osl_config;
    for (std::string_view p : {"/input_config/output_tokens_mean", "/input_config/input/output_tokens/mean"}) {
      const nlohmann::json* v = doc.find(p);
      if (v == nullptr) continue;
      if (v->is_number() && v->get<double>() == -1) break;
      PH_ASSIGN_OR_RETURN(osl_config, number_in(doc, p, Range::kNonNegative, Writer::kTool));
      break;
    }
    c.input_len = isl ? isl : isl_config;
    c.output_len = osl ? osl : osl_config;
    if ((!isl && isl_config) || (!osl && osl_config)) {
      claim.notes.push_back("lengths from input_config (the requested means), not the measured sequence lengths");
    }

    PH_ASSIGN_OR_RETURN(claim.completed, count_in(doc, "/request_count/avg", Writer::kTool));
    PH_ASSIGN_OR_RETURN(claim.failed, count_in(doc, "/error_request_count/avg", Writer::kTool));

    PH_ASSIGN_OR_RETURN(claim.requests_per_s, number_in(doc, "/request_throughput/avg", Range::kNonNegative, Writer::kTool));
    PH_ASSIGN_OR_RETURN(claim.output_tokens_per_s, number_in(doc, "/output_token_throughput/avg", Range::kNonNegative, Writer::kTool));
    PH_ASSIGN_OR_RETURN(claim.total_tokens_per_s, number_in(doc, "/total_token_throughput/avg", Range::kNonNegative, Writer::kTool));

    for (const auto& m : kLatencies) {
      if (!doc.has(fmt::format("/{}", m.genai_perf))) continue;
      PH_ASSIGN_OR_RETURN(LatencyFigure figure, latency(doc, m.genai_perf, m.ours));
      figure.samples = claim.completed;
      claim.latencies.push_back(std::move(figure));
    }

    PH_ASSIGN_OR_RETURN(auto warmup, first_number(doc, {"/input_config/warmup_request_count",
                                                        "/input_config/perf_analyzer/warmup_request_count",
                                                        "/input_config/input/request_count/warmup"},
                                                  Range::kWholeNonNegative));
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
                                                          std::initializer_list<std::string_view> pointers, Range range) {
    for (auto p : pointers) {
      PH_ASSIGN_OR_RETURN(auto v, number_in(doc, p, range, Writer::kTool));
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
    const auto stat = [&](const std::string& pointer) { return number_in(doc, pointer, Range::kNonNegative, Writer::kTool); };
    PH_ASSIGN_OR_RETURN(const auto avg, stat(base + "/avg"));
    PH_ASSIGN_OR_RETURN(const auto std, stat(base + "/std"));
    if (avg) f.mean_s = *avg * *scale;
    if (std) f.stddev_s = *std * *scale;
    std::vector<PercentileField> order;
    for (const auto& [key, value] : doc.find(base)->items()) {
      if (key.size() < 2 || key[0] != 'p' || key.find_first_not_of("0123456789.", 1) != std::string::npos) continue;
      const auto q = percentile_number(std::string_view(key).substr(1));
      if (!q) continue;
      PH_ASSIGN_OR_RETURN(const auto v, stat(base + "/" + key));
      if (!v) continue;
      f.percentiles_s[*q] = *v * *scale;
      order.push_back({*q, *v, base + "/" + key});
    }
    // min and max bound every percentile; genai-perf writes both.
    PH_ASSIGN_OR_RETURN(const auto min, stat(base + "/min"));
    PH_ASSIGN_OR_RETURN(const auto max, stat(base + "/max"));
    if (min) order.push_back({0, *min, base + "/min"});
    if (max) order.push_back({100, *max, base + "/max"});
    PH_TRY(check_percentile_order(doc, std::move(order)));
    return f;
  }
};

}  // namespace

std::unique_ptr<ClaimImporter> make_genai_perf_importer() { return std::make_unique<GenaiPerfImporter>(); }

}  // namespace perfhound::audit
