#include "cli/mfu_command.h"

#include <charconv>
#include <fmt/format.h>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>

#include "audit/import_helpers.h"
#include "cli/number_checks.h"
#include "cli/output.h"
#include "core/conditions.h"
#include "core/diagnostics.h"
#include "core/units.h"
#include "hw/chip_spec.h"
#include "model/efficiency.h"
#include "model/model_shape.h"
#include "model/transformer_math.h"
#include "report/json_document.h"
#include "report/table_writer.h"

namespace perfhound::cli {
namespace {

using core::format_duration_ns;
using core::format_percent;
using core::format_si;

// "1.5ms", "200us", "2s" as a duration in seconds; must be positive. A unit is required: "--tpot 12" could
// be 12 ms or 12 s, and guessing wrong moves MBU by 1000x.
core::Result<std::optional<double>> parse_time(const std::string& text, std::string_view flag) {
  if (text.empty()) return std::optional<double>();
  auto ns = core::parse_duration_with_unit_ns(text);
  if (!ns.ok()) return core::Error{fmt::format("{}: {}", flag, ns.error().message)};
  if (*ns <= 0) return core::Error{fmt::format("{}: must be at least 1 ns, got '{}'", flag, text)};
  return std::optional<double>(core::ns_to_seconds(*ns));
}

class MfuCommand final : public Command {
 public:
  std::string_view name() const override { return "mfu"; }
  std::string_view summary() const override {
    return "MFU and MBU of a model's prefill or decode step on a chip, and the roofline bound";
  }

  void add_flags(CLI::App& app) override {
    app.add_option("--model", model_, "Preset (llama-3-8b, mixtral-8x7b, ...) or a Hugging Face config.json")->required();
    app.add_option("--hw", hw_, "Chip: a catalogue name (perfhound hw list) or a chip JSON file")->required();
    app.add_option("--phase", phase_, "prefill or decode")->check(CLI::IsMember({"prefill", "decode"}))->required();
    app.add_option("--batch", workload_.batch, "Sequences per step")->check(whole_number_in(1))->default_val(1);
    app.add_option("--input-len", workload_.input_len, "Prompt tokens per sequence")->check(whole_number_in(0))->default_val(0);
    app.add_option("--output-len", workload_.output_len, "Generated tokens per sequence (decode: the mean context is input + output/2)")
        ->check(whole_number_in(0))
        ->default_val(0);
    app.add_option("--tp", workload_.tensor_parallel, "Tensor-parallel GPUs (figures are per GPU)")->check(whole_number_in(1))->default_val(1);
    app.add_option("--precision", precision_, "Weight and math precision: bf16, fp16, fp8, int8, int4 (weights only, bf16 math), fp4, fp32, tf32")->default_val("bf16");
    app.add_option("--kv-precision", kv_precision_, "KV-cache precision (default: bf16, or --precision when that is 16-bit)");
    app.add_option("--step-time", step_time_, "Measured time of the step (e.g. 14ms); prefill: the whole prefill");
    app.add_option("--ttft", ttft_, "Measured time to first token (prefill; the prefill dominates it)");
    app.add_option("--tpot", tpot_, "Measured time per output token (decode)");
    app.add_option("--tokens-per-s", tokens_per_s_, "Measured throughput in tokens/s over the batch (alternative to a time)")
        ->check(positive_number());
    app.add_option("--framework", framework_,
                   "What ran the measured step, e.g. vLLM or 'TensorRT-LLM' (its kernels set the time, so audit asks)")
        ->check(condition_text());
    app.add_option("--framework-version", framework_version_, "Its version, e.g. 0.11.0")->check(condition_text());
    app.add_option("--warmup", warmup_, "The warm-up the measured time left out, e.g. '10 steps', or none")
        ->check(condition_text());
    add_output_flags(app, output_);
  }

  core::Result<int> run(const Context& context) override {
    PH_ASSIGN_OR_RETURN(const model::ModelShape shape, model::load_model_shape(model_).with_context("--model"));
    PH_ASSIGN_OR_RETURN(const hw::ChipSpec chip, hw::find_chip(hw_).with_context("--hw"));
    PH_ASSIGN_OR_RETURN(workload_.weight_precision, model::parse_precision(precision_).with_context("--precision"));
    const std::string kv = !kv_precision_.empty() ? kv_precision_
                           : model::precision_info(workload_.weight_precision).bytes_per_element == 2 ? precision_
                                                                                                      : "bf16";
    PH_ASSIGN_OR_RETURN(workload_.kv_precision, model::parse_precision(kv).with_context("--kv-precision"));
    const model::Phase phase = phase_ == "prefill" ? model::Phase::kPrefill : model::Phase::kDecode;
    // Decode at context 0 is allowed on purpose: it is the weights-only bound (the Databricks MBU example).
    if (phase == model::Phase::kPrefill && workload_.input_len == 0) {
      return core::Error{"--input-len: prefill needs the prompt length (e.g. --input-len 2000)"};
    }
    // Tensor parallelism shards the attention heads (vLLM and the simulator refuse the same): 3 GPUs for 32 heads
    // would give fractions of a weight per GPU, 64 for 32 heads GPUs with no head at all.
    if (shape.num_attention_heads % workload_.tensor_parallel != 0) {
      return core::Error{fmt::format("--tp {} does not divide the {} attention heads of '{}'", workload_.tensor_parallel,
                                     shape.num_attention_heads, shape.name.empty() ? model_ : shape.name)};
    }
    PH_ASSIGN_OR_RETURN(const auto time, measured_time(phase));
    PH_TRY(check_measurement_conditions(time.has_value()));

    const model::ParameterCount params = model::count_parameters(shape);
    const model::StepCost cost = phase == model::Phase::kPrefill ? model::prefill_cost(shape, params, workload_)
                                                                 : model::decode_step_cost(shape, params, workload_);
    const auto& pinfo = model::precision_info(workload_.weight_precision);
    PH_ASSIGN_OR_RETURN(const hw::Roof compute, hw::compute_roof(chip, pinfo.peak_key).with_context("--hw"));
    const hw::Roof memory = hw::memory_roof(chip);
    const model::Efficiency e = model::efficiency(cost, time, compute.value, memory.value);
    std::string verdict = model::efficiency_verdict(phase, e, cost);

    core::Conditions conditions = core::Conditions::capture(context.argc, context.argv);
    conditions.set("model", shape.name.empty() ? model_ : shape.name);
    conditions.set("hardware", chip.display_name);
    conditions.set("phase", phase_);
    conditions.set("precision", std::string(pinfo.name));
    conditions.set("kv_precision", std::string(model::precision_info(workload_.kv_precision).name));
    conditions.set("batch", workload_.batch);
    conditions.set("input_len", workload_.input_len);
    conditions.set("output_len", workload_.output_len);
    conditions.set("tensor_parallel", workload_.tensor_parallel);
    conditions.set("compute_roof", compute.source);
    conditions.set("memory_roof", memory.source);
    if (!framework_.empty()) conditions.set("framework", framework_);
    if (!framework_version_.empty()) conditions.set("framework_version", framework_version_);
    if (!warmup_.empty()) conditions.set("warmup_discarded", warmup_);  // as stats and audit --live state theirs

    nlohmann::ordered_json result;
    result["verdict"] = verdict;
    result["parameters"] = {{"total", params.total}, {"active", params.active}, {"matmul_active", params.matmul_active}};
    result["kv_bytes_per_token"] = model::kv_bytes_per_token(shape, workload_.kv_precision);
    result["step"] = {{"tokens", cost.tokens},
                      {"mean_context", cost.context},
                      {"flops_per_gpu", cost.flops},
                      {"weight_bytes_per_gpu", cost.weight_bytes},
                      {"kv_bytes_per_gpu", cost.kv_bytes}};
    result["roofs"] = {{"peak_flops_per_s", compute.value},
                       {"peak_flops_measured", compute.measured},
                       {"peak_bytes_per_s", memory.value},
                       {"peak_bytes_measured", memory.measured}};
    result["bound"] = {{"compute_time_s", e.compute_time_s},
                       {"memory_time_s", e.memory_time_s},
                       {"roofline_time_s", e.bound_time_s},
                       {"binding_roof", e.memory_bound ? "memory" : "compute"}};
    if (time) {
      result["measured"] = {{"time_s", *time},
                            {"achieved_flops_per_s", e.achieved_flops_per_s},
                            {"achieved_bytes_per_s", e.achieved_bytes_per_s},
                            {"mfu", e.mfu},
                            {"mbu", e.mbu},
                            {"time_over_bound", *time / e.bound_time_s}};
    }
    std::vector<core::Diagnostic> found;
    for (const auto& note : shape.notes) found.push_back({&core::kModelAssumption, note});
    if (shape.num_experts > 0) {
      found.push_back({&core::kModelAssumption,
                       fmt::format("MoE weight bytes assume uniform routing: {:.2f} of {} experts touched per layer "
                                   "by {} tokens; skewed routing touches fewer",
                                   model::experts_touched(shape, cost.tokens), shape.num_experts, cost.tokens)});
    }
    // Capacity, the seed's fourth class: the weights and the KV cache at the end of the generation, per GPU,
    // printed in decimal units, as the capacity they are compared with is (the vendor's GB).
    const double kv_at_end = static_cast<double>(workload_.batch * (workload_.input_len + workload_.output_len)) *
                             model::kv_bytes_per_token_per_gpu(shape, workload_);
    const double weights_stored = static_cast<double>(params.total) * pinfo.bytes_per_element /
                                  static_cast<double>(workload_.tensor_parallel);
    const bool does_not_fit = weights_stored + kv_at_end > chip.memory_capacity_bytes;
    if (does_not_fit) {
      found.push_back({&core::kDoesNotFit, fmt::format("weights {} + KV cache {} per GPU exceed the {} of {}",
                                                       core::format_si(weights_stored, "B"), core::format_si(kv_at_end, "B"),
                                                       core::format_si(chip.memory_capacity_bytes, "B"), chip.display_name)});
    }
    if (time && (e.mbu > model::kBeatsRoof || e.mfu > model::kBeatsRoof)) {
      found.push_back({&core::kBeatsTheRoof, fmt::format("MBU {} and MFU {} from the measured {}", format_percent(e.mbu),
                                                         format_percent(e.mfu), format_duration_ns(*time * 1e9))});
    }
    if (does_not_fit) {
      // Capacity binds before either roof: the step cannot run as described, whatever its speed.
      verdict = fmt::format("capacity-bound: weights and KV cache need {} per GPU, more than the {} of {}; raise --tp, "
                            "shrink the batch or context, or quantize (the arithmetic below assumes it fit)",
                            core::format_si(weights_stored + kv_at_end, "B"), core::format_si(chip.memory_capacity_bytes, "B"),
                            chip.display_name);
      result["verdict"] = verdict;
    }
    result["memory_per_gpu"] = {{"weights_bytes", weights_stored}, {"kv_cache_at_end_bytes", kv_at_end},
                                {"capacity_bytes", chip.memory_capacity_bytes}, {"fits", !does_not_fit}};
    const nlohmann::ordered_json diagnostics = core::diagnostics_to_json(found);
    const auto doc = report::make_json_document("mfu", conditions, result, diagnostics);
    std::string text = render(shape, chip, params, cost, e, time, compute, memory, verdict, conditions);
    PH_TRY(emit_result(context, output_, doc, text, diagnostic_lines(found)));
    return kExitOk;
  }

 private:
  // The framework and the warm-up are conditions of the measured time (an MFU is the framework's kernels at work);
  // the bound alone is arithmetic, which nothing ran.
  core::Status check_measurement_conditions(bool measured) const {
    for (const auto& [flag, value] : {std::pair{"--framework", &framework_},
                                      {"--framework-version", &framework_version_},
                                      {"--warmup", &warmup_}}) {
      if (!value->empty() && !measured) {
        return core::Error{fmt::format("{}: states a condition of a measured step; give its time (--step-time, --ttft, "
                                       "--tpot or --tokens-per-s)",
                                       flag)};
      }
    }
    // Written for audit to read: text its rule cannot read ("some") would pass here and read there as unstated.
    if (!warmup_.empty() && !audit::warmup_discards(warmup_).has_value()) {
      return core::Error{fmt::format("--warmup '{}': say how much was left out, e.g. '10 steps', or none", warmup_)};
    }
    if (framework_.empty() && !framework_version_.empty()) {
      return core::Error{fmt::format("--framework-version {}: of what? give --framework too", framework_version_)};
    }
    return {};
  }

  core::Result<std::optional<double>> measured_time(model::Phase phase) const {
    int given = !step_time_.empty() + !ttft_.empty() + !tpot_.empty() + (tokens_per_s_ > 0);
    if (given > 1) return core::Error{"give one of --step-time, --ttft, --tpot or --tokens-per-s"};
    if (phase == model::Phase::kPrefill && !tpot_.empty()) return core::Error{"--tpot: measures decode; use --ttft for prefill"};
    if (phase == model::Phase::kDecode && !ttft_.empty()) return core::Error{"--ttft: measures prefill; use --tpot for decode"};
    if (tokens_per_s_ > 0) {
      const double tokens = phase == model::Phase::kPrefill ? static_cast<double>(workload_.batch * workload_.input_len)
                                                            : static_cast<double>(workload_.batch);
      return std::optional<double>(tokens / tokens_per_s_);
    }
    if (!step_time_.empty()) return parse_time(step_time_, "--step-time");
    if (!ttft_.empty()) return parse_time(ttft_, "--ttft");
    return parse_time(tpot_, "--tpot");
  }

  std::string render(const model::ModelShape& shape, const hw::ChipSpec& chip, const model::ParameterCount& params,
                     const model::StepCost& cost, const model::Efficiency& e, std::optional<double> time,
                     const hw::Roof& compute, const hw::Roof& memory, const std::string& verdict,
                     const core::Conditions& conditions) const {
    std::string out = fmt::format("perfhound mfu: {} on {}, {} at batch {}, input {} / output {} tokens, TP {}, {}\n\n",
                                  shape.name.empty() ? model_ : shape.name, chip.display_name, phase_, workload_.batch,
                                  workload_.input_len, workload_.output_len, workload_.tensor_parallel, precision_);
    out += "VERDICT: " + verdict + "\n\n";
    report::TableWriter t({{"figure", report::Align::kLeft}, {"value"}});
    t.add_row({"parameters (total / active)", fmt::format("{:.3g}B / {:.3g}B", static_cast<double>(params.total) / 1e9,
                                                          static_cast<double>(params.active) / 1e9)});
    t.add_row({"KV cache per token", core::format_bytes(model::kv_bytes_per_token(shape, workload_.kv_precision))});
    t.add_row({"FLOPs per GPU in the step", format_si(cost.flops, "FLOP")});
    t.add_row({"bytes per GPU in the step (weights + KV)", fmt::format("{} + {}", core::format_bytes(cost.weight_bytes), core::format_bytes(cost.kv_bytes))});
    const std::string_view rate_unit = hw::peak_rate_unit(model::precision_info(workload_.weight_precision).peak_key);
    t.add_row({"compute roof", format_si(compute.value, rate_unit) + (compute.measured ? " (measured)" : " (spec sheet)")});
    t.add_row({"memory roof", format_si(memory.value, "B/s") + (memory.measured ? " (measured)" : " (spec sheet)")});
    t.add_row({"bound: compute / memory", fmt::format("{} / {}", format_duration_ns(e.compute_time_s * 1e9), format_duration_ns(e.memory_time_s * 1e9))});
    t.add_row({"roofline bound (fastest possible)", format_duration_ns(e.bound_time_s * 1e9) + (e.memory_bound ? " (memory)" : " (compute)")});
    if (time) {
      t.add_row({"measured", format_duration_ns(*time * 1e9) + fmt::format(" ({:.2f}x the bound)", *time / e.bound_time_s)});
      t.add_row({"MFU", format_percent(e.mfu)});
      t.add_row({"MBU", format_percent(e.mbu)});
    }
    out += t.render();
    out += conditions_block(conditions);
    return out;
  }

  std::string model_, hw_, phase_, precision_ = "bf16", kv_precision_;
  std::string step_time_, ttft_, tpot_;
  std::string framework_, framework_version_, warmup_;
  double tokens_per_s_ = 0;
  model::Workload workload_;
  OutputOptions output_;
};

}  // namespace

std::unique_ptr<Command> make_mfu_command() { return std::make_unique<MfuCommand>(); }

}  // namespace perfhound::cli
