// vllm bench serve's saved result (--save-result), as vllm/benchmarks/serve.py writes it: a flat object of
// the run's setup (date, backend, model_id, num_prompts, request_rate, burstiness, max_concurrency, and any
// --metadata KEY=VALUE pairs as strings), the counts and throughputs (duration, completed, failed,
// total_input_tokens, total_output_tokens, request_throughput, output_throughput, total_token_throughput)
// and per metric of --percentile-metrics (ttft, tpot, itl by default; e2el) mean_<m>_ms, median_<m>_ms,
// std_<m>_ms and p<Q>_<m>_ms for each --metric-percentiles Q (99 by default). The same names as
// benchmarks/benchmark_serving.py before it. docs/audit.md has the mapping.
#include <cmath>
#include <fmt/format.h>
#include <string>

#include "audit/claim_importer.h"
#include "audit/import_helpers.h"

namespace perfhound::audit {
namespace {

// vllm bench serve's --backend names the server only for these; openai, openai-chat, openai-audio are
// protocols any server speaks.
struct BackendName {
  std::string_view backend;
  std::string_view framework;
};
constexpr BackendName kBackends[] = {{"vllm", "vLLM"},
                                     {"tgi", "TGI"},
                                     {"lmdeploy", "LMDeploy"},
                                     {"deepspeed-mii", "DeepSpeed-MII"},
                                     {"tensorrt-llm", "TensorRT-LLM"},
                                     {"scalellm", "ScaleLLM"},
                                     {"sglang", "SGLang"},
                                     {"llama.cpp", "llama.cpp"}};

// --metadata keys read as conditions, first found wins (docs/audit.md).
constexpr std::string_view kPrecisionKeys[] = {"precision", "dtype", "quantization"};
constexpr std::string_view kHardwareKeys[] = {"hardware", "gpu", "device", "hw"};
constexpr std::string_view kFrameworkKeys[] = {"framework", "engine", "server"};
constexpr std::string_view kVersionKeys[] = {"framework_version", "version", "vllm_version", "engine_version"};
constexpr std::string_view kWarmupKeys[] = {"num_warmups", "warmup", "warmups"};
constexpr std::string_view kMetrics[] = {"ttft", "tpot", "itl", "e2el"};

class VllmBenchImporter final : public ClaimImporter {
 public:
  std::string_view format() const override { return "vllm bench serve"; }

  bool recognizes(const nlohmann::json& j) const override {
    return j.is_object() && !j.contains("kind") && j.contains("request_throughput") && j["request_throughput"].is_number() &&
           j.contains("completed") && j.contains("duration");
  }

  core::Result<Claim> import(const SourceDocument& doc) const override {
    Claim claim;
    claim.path = doc.path();
    claim.format = std::string(format());
    ClaimConditions& c = claim.conditions;
    PH_ASSIGN_OR_RETURN(c.model, condition_text(doc, "/model_id"));
    PH_ASSIGN_OR_RETURN(c.precision, first_text(doc, kPrecisionKeys));
    PH_ASSIGN_OR_RETURN(c.hardware, first_text(doc, kHardwareKeys));
    PH_ASSIGN_OR_RETURN(c.framework, first_text(doc, kFrameworkKeys));
    PH_ASSIGN_OR_RETURN(c.framework_version, first_text(doc, kVersionKeys));
    PH_ASSIGN_OR_RETURN(const auto backend, condition_text(doc, "/backend"));
    if (!c.framework && backend) {
      for (const auto& b : kBackends) {
        if (*backend == b.backend) c.framework = std::string(b.framework);
      }
      if (!c.framework) claim.notes.push_back(fmt::format("backend '{}' is a protocol, not the server's framework", *backend));
    }

    // serve.py saves request_rate as the number, or the string "inf" (JSON has no infinity); every other
    // field below it writes as a JSON number, so a string there is refused, not coerced.
    const nlohmann::json* rate = doc.find("/request_rate");
    const bool rate_inf = rate != nullptr && rate->is_string() && rate->get_ref<const std::string&>() == "inf";
    PH_ASSIGN_OR_RETURN(c.request_rate_per_s,
                        number_in(doc, "/request_rate", Range::kPositiveOrInf, rate_inf ? Writer::kHand : Writer::kTool));
    PH_ASSIGN_OR_RETURN(c.concurrency, number_in(doc, "/max_concurrency", Range::kWholePositive, Writer::kTool));
    PH_ASSIGN_OR_RETURN(const auto burstiness, number_in(doc, "/burstiness", Range::kPositive, Writer::kTool));
    PH_TRY(number_in(doc, "/duration", Range::kPositive, Writer::kTool));
    c.load = load_text(c.request_rate_per_s, c.concurrency, burstiness);

    PH_ASSIGN_OR_RETURN(claim.completed, count_in(doc, "/completed", Writer::kTool));
    PH_ASSIGN_OR_RETURN(claim.failed, count_in(doc, "/failed", Writer::kTool));
    const auto& completed = claim.completed;
    PH_ASSIGN_OR_RETURN(const auto input_tokens, number_in(doc, "/total_input_tokens", Range::kWholeNonNegative, Writer::kTool));
    PH_ASSIGN_OR_RETURN(const auto output_tokens, number_in(doc, "/total_output_tokens", Range::kWholeNonNegative, Writer::kTool));
    if (completed && *completed > 0) {
      if (input_tokens) c.input_len = *input_tokens / static_cast<double>(*completed);
      if (output_tokens) c.output_len = *output_tokens / static_cast<double>(*completed);
      if (input_tokens || output_tokens) {
        claim.notes.push_back("input and output lengths are the means total_input_tokens / completed and "
                              "total_output_tokens / completed");
      }
    } else if (completed) {
      claim.source_flags.push_back("no request completed: every figure vllm bench serve saved is 0 by default");
    }

    PH_ASSIGN_OR_RETURN(claim.requests_per_s, number_in(doc, "/request_throughput", Range::kNonNegative, Writer::kTool));
    PH_ASSIGN_OR_RETURN(claim.output_tokens_per_s, number_in(doc, "/output_throughput", Range::kNonNegative, Writer::kTool));
    PH_ASSIGN_OR_RETURN(claim.total_tokens_per_s, number_in(doc, "/total_token_throughput", Range::kNonNegative, Writer::kTool));

    for (std::string_view m : kMetrics) {
      PH_ASSIGN_OR_RETURN(LatencyFigure figure, latency(doc, m));
      if (figure.mean_s || figure.stddev_s || !figure.percentiles_s.empty()) {
        // ITL is pooled over every token gap, so it rests on more samples than completed requests.
        if (m != "itl") figure.samples = claim.completed;
        claim.latencies.push_back(std::move(figure));
      }
    }

    // --metadata num_warmups=20 arrives as the string "20": a count written by hand, so read as one, and
    // anything that is not a whole count ("twenty") refused rather than shown as "twenty requests".
    for (std::string_view key : kWarmupKeys) {
      const std::string pointer = fmt::format("/{}", key);
      if (!doc.has(pointer)) continue;
      const auto warmup = number_in(doc, pointer, Range::kWholeNonNegative);
      if (!warmup.ok()) {
        return doc.field_error(pointer, fmt::format("expected the whole number of warm-up requests (--metadata {}=20), got {}",
                                                    key, doc.find(pointer)->dump()));
      }
      claim.warmup = fmt::format("{:g} requests", **warmup);
      claim.warmup_discarded = **warmup > 0;
      break;
    }
    claim.runs = 1;
    return claim;
  }

 private:
  template <std::size_t N>
  static core::Result<std::optional<std::string>> first_text(const SourceDocument& doc, const std::string_view (&keys)[N]) {
    for (std::string_view key : keys) {
      PH_ASSIGN_OR_RETURN(auto text, condition_text(doc, fmt::format("/{}", key)));
      if (text) return text;
    }
    return std::optional<std::string>{};
  }

  static std::string load_text(const std::optional<double>& rate, const std::optional<double>& concurrency,
                               const std::optional<double>& burstiness) {
    std::string s;
    if (rate) {
      s = std::isinf(*rate) ? "request rate inf (all at once)" : fmt::format("request rate {:g}/s", *rate);
      if (burstiness && !std::isinf(*rate)) s += fmt::format(", burstiness {:g}", *burstiness);
    }
    if (concurrency) s += fmt::format("{}max concurrency {:g}", s.empty() ? "" : ", ", *concurrency);
    return s;
  }

  static core::Result<LatencyFigure> latency(const SourceDocument& doc, std::string_view metric) {
    LatencyFigure f;
    f.metric = metric == "e2el" ? "e2e" : std::string(metric);
    const auto stat = [&](const std::string& pointer) { return number_in(doc, pointer, Range::kNonNegative, Writer::kTool); };
    const std::string median_pointer = fmt::format("/median_{}_ms", metric);
    PH_ASSIGN_OR_RETURN(const auto mean, stat(fmt::format("/mean_{}_ms", metric)));
    PH_ASSIGN_OR_RETURN(const auto median, stat(median_pointer));
    PH_ASSIGN_OR_RETURN(const auto stddev, stat(fmt::format("/std_{}_ms", metric)));
    std::vector<PercentileField> order;
    if (mean) f.mean_s = *mean * 1e-3;
    if (stddev) f.stddev_s = *stddev * 1e-3;
    if (median) {
      f.percentiles_s[50] = *median * 1e-3;
      order.push_back({50, *median, median_pointer});
    }
    // p<Q>_<metric>_ms, Q as vLLM writes it: "99", "99.9", "50".
    const std::string suffix = fmt::format("_{}_ms", metric);
    for (const auto& [key, value] : doc.json().items()) {
      if (key.size() <= suffix.size() + 1 || key[0] != 'p' || !key.ends_with(suffix)) continue;
      const std::string q_text = key.substr(1, key.size() - 1 - suffix.size());
      if (q_text.find_first_not_of("0123456789.") != std::string::npos) continue;
      const auto q = percentile_number(q_text);
      if (!q) continue;
      PH_ASSIGN_OR_RETURN(const auto v, stat("/" + key));
      if (!v) continue;
      f.percentiles_s[*q] = *v * 1e-3;
      order.push_back({*q, *v, "/" + key});
    }
    PH_TRY(check_percentile_order(doc, std::move(order)));
    return f;
  }
};

}  // namespace

std::unique_ptr<ClaimImporter> make_vllm_bench_importer() { return std::make_unique<VllmBenchImporter>(); }

}  // namespace perfhound::audit
