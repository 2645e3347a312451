#include "cli/sim_flags.h"

#include <algorithm>
#include <fmt/format.h>

#include "cli/number_checks.h"
#include "core/units.h"
#include "hw/chip_spec.h"
#include "model/model_shape.h"
#include "serve/sim_token_engine.h"
#include "sim/engine.h"

namespace perfhound::cli {
namespace {

constexpr double kMinTimeScale = 1e-3;
constexpr double kMaxTimeScale = 1e6;

}  // namespace

void SimFlags::add_to(CLI::App& app, const std::string& prefix) {
  prefix_ = prefix;
  const auto flag = [&](std::string_view name) { return prefix + std::string(name); };
  app.add_option(flag("model"), model_, "Model: preset (llama-3-8b, ...) or a Hugging Face config.json")->default_val("llama-3-8b");
  app.add_option(flag("served-model-name"), served_name_, "Model name in responses and /v1/models (default: the model)");
  app.add_option(flag("hw"), hw_, "Chip from the catalogue (perfhound hw list) or a chip JSON file")->default_val("h200-sxm");
  app.add_option(flag("tp"), tp_, "Tensor-parallel GPUs")->default_val(1);
  app.add_option(flag("precision"), precision_, "Weights and math: bf16, fp16, fp8, int8, fp4")->default_val("bf16");
  app.add_option(flag("kv-precision"), kv_precision_, "KV cache precision")->default_val("bf16");
  app.add_option(flag("time-scale"), time_scale_, "Simulated seconds per wall second (e.g. 100 for fast tests)")->default_val(1.0);
  app.add_option(flag("seed"), seed_, "Seed of every random choice (faults), written at start")->default_val(1)
      ->check(whole_number_in(0));
  // Bounded: the engine keeps room for every running sequence from the start (2^31 of them is a bad_alloc).
  app.add_option(flag("max-num-seqs"), max_num_seqs_, "Running sequences at most")->default_val(sim::kDefaultMaxNumSeqs)
      ->check(whole_number_in(1, 1'000'000));
  app.add_option(flag("max-num-batched-tokens"), max_batched_, "Tokens per engine step at most (chunked prefill budget)")
      ->default_val(sim::kDefaultMaxNumBatchedTokens);
  app.add_option(flag("gpu-memory-utilization"), memory_utilization_, "Share of GPU memory for weights and KV cache")
      ->default_val(sim::kDefaultGpuMemoryUtilization);
  app.add_option(flag("compute-efficiency"), compute_efficiency_, "Fraction of the compute roof a step reaches")
      ->default_val(sim::kDefaultComputeEfficiency);
  app.add_option(flag("bandwidth-efficiency"), bandwidth_efficiency_, "Fraction of the memory roof a step reaches")
      ->default_val(sim::kDefaultBandwidthEfficiency);
  app.add_option(flag("step-overhead"), step_overhead_, "Fixed time added to every step (scheduling, launches), e.g. 300us")
      ->default_val("300us");
  app.add_option(flag("fixed-step-time"), fixed_step_, "Skip the engine model: every step takes this long (e.g. 10us) and "
                                                        "emits one token per request (tests, benchmarks)");
  app.add_option(flag("fault-429"), faults_.status_429, "Fraction of requests answered 429")->default_val(0.0);
  app.add_option(flag("fault-500"), faults_.status_500, "Fraction of requests answered 500")->default_val(0.0);
  app.add_option(flag("fault-503"), faults_.status_503, "Fraction of requests answered 503")->default_val(0.0);
  app.add_option(flag("fault-reset"), faults_.reset, "Fraction of streams whose connection is closed halfway")->default_val(0.0);
  app.add_option(flag("fault-stall"), faults_.stall, "Fraction of streams that stall halfway for the stall time")->default_val(0.0);
  app.add_option(flag("stall"), stall_, "How long a stalled stream stops sending")->default_val("2s");
  app.add_option(flag("keep-alive-timeout"), keep_alive_timeout_,
                 "Close a keep-alive connection idle this long (uvicorn, under vLLM, closes after 5s)")
      ->default_val("120s");
  app.add_option(flag("fault-malformed"), faults_.malformed, "Fraction of streams with one chunk that is not JSON")->default_val(0.0);
  app.add_option(flag("fault-overlong"), faults_.overlong, "Fraction of streams with one 1 MiB SSE line")->default_val(0.0);
  app.add_option(flag("fault-usage-short"), faults_.usage_short,
                 "Fraction of streams whose usage reports one token fewer than streamed (for perfhound audit)")->default_val(0.0);
  app.add_option(flag("fault-early-stop"), faults_.early_stop,
                 "Fraction of streams ended with finish_reason 'stop' halfway, even with ignore_eos (for perfhound audit)")
      ->default_val(0.0);
}

core::Result<SimulatedServer> SimFlags::build() const {
  const auto flag = [&](std::string_view name) { return prefix_ + std::string(name); };
  serve::FaultConfig faults = faults_;
  double total = 0;
  for (const auto& [v, name] : {std::pair{faults.status_429, "fault-429"}, {faults.status_500, "fault-500"},
                                {faults.status_503, "fault-503"}, {faults.reset, "fault-reset"},
                                {faults.stall, "fault-stall"}, {faults.malformed, "fault-malformed"},
                                {faults.overlong, "fault-overlong"}, {faults.usage_short, "fault-usage-short"},
                                {faults.early_stop, "fault-early-stop"}}) {
    if (!(v >= 0 && v <= 1)) return core::Error{fmt::format("{}: must be a fraction in [0, 1], got {}", flag(name), v)};
    total += v;
  }
  if (total > 1.0) return core::Error{fmt::format("{}fault-*: the fractions add up to more than 1", prefix_)};
  // Past a million, a 10 ms step is under 10 wall ns and rounds to nothing; under a thousandth it is 10 s.
  if (!(time_scale_ >= kMinTimeScale && time_scale_ <= kMaxTimeScale)) {
    return core::Error{fmt::format("{}: must be {:g} to {:g}, got {:g}", flag("time-scale"), kMinTimeScale, kMaxTimeScale, time_scale_)};
  }
  PH_ASSIGN_OR_RETURN(const std::int64_t stall_ns, core::parse_duration_ns(stall_).with_context(flag("stall")));
  faults.stall_ms = stall_ns / 1'000'000;
  faults.seed = seed_;

  SimulatedServer server;
  server.config.time_scale = time_scale_;
  server.config.faults = faults;
  PH_ASSIGN_OR_RETURN(const std::int64_t idle_ns,
                      core::parse_duration_ns(keep_alive_timeout_).with_context(flag("keep-alive-timeout")));
  if (idle_ns <= 0) return core::Error{fmt::format("{}: must be positive, got '{}'", flag("keep-alive-timeout"), keep_alive_timeout_)};
  server.config.idle_timeout_ms = std::max<std::int64_t>(1, idle_ns / 1'000'000);
  if (!fixed_step_.empty()) {
    PH_ASSIGN_OR_RETURN(const std::int64_t ns, core::parse_duration_with_unit_ns(fixed_step_).with_context(flag("fixed-step-time")));
    server.engine = std::make_unique<serve::FixedStepEngine>(core::ns_to_seconds(ns));
    server.description = fmt::format("fixed {} steps", core::format_duration_ns(static_cast<double>(ns)));
    server.config.model_name = served_name_.empty() ? "perfhound-fixed-step" : served_name_;
    return server;
  }
  sim::EngineConfig ec;
  PH_ASSIGN_OR_RETURN(ec.shape, model::load_model_shape(model_).with_context(flag("model")));
  PH_ASSIGN_OR_RETURN(ec.chip, hw::find_chip(hw_).with_context(flag("hw")));
  PH_ASSIGN_OR_RETURN(ec.weight_precision, model::parse_precision(precision_).with_context(flag("precision")));
  PH_ASSIGN_OR_RETURN(ec.kv_precision, model::parse_precision(kv_precision_).with_context(flag("kv-precision")));
  ec.tensor_parallel = tp_;
  ec.max_num_seqs = max_num_seqs_;
  ec.max_num_batched_tokens = max_batched_;
  ec.gpu_memory_utilization = memory_utilization_;
  ec.compute_efficiency = compute_efficiency_;
  ec.bandwidth_efficiency = bandwidth_efficiency_;
  PH_ASSIGN_OR_RETURN(ec.step_overhead_ns, core::parse_duration_with_unit_ns(step_overhead_).with_context(flag("step-overhead")));
  ec.seed = seed_;
  auto created = sim::Engine::create(ec);
  if (!created.ok()) {
    // The engine names its config's fields; the user wrote flags.
    std::string message = created.error().message;
    for (const auto& [field, name] : {std::pair{"tensor_parallel", "tp"}, {"max_num_seqs", "max-num-seqs"},
                                      {"max_num_batched_tokens", "max-num-batched-tokens"},
                                      {"gpu_memory_utilization", "gpu-memory-utilization"},
                                      {"compute_efficiency", "compute-efficiency"},
                                      {"bandwidth_efficiency", "bandwidth-efficiency"}}) {
      for (auto at = message.find(field); at != std::string::npos; at = message.find(field, at)) {
        message.replace(at, std::string_view(field).size(), flag(name));
      }
    }
    return core::Error{message};
  }
  sim::Engine sim_engine = std::move(created).value();
  server.description = fmt::format("{} on {} (TP {}, {}), KV cache {} blocks of {} tokens", model_, ec.chip.display_name,
                                   tp_, precision_, sim_engine.kv_capacity().blocks, ec.block_size_tokens);
  // The roofs the step times come from, and whether they are a probe's measured ceilings (perfhound probe
  // --catalogue-out) or the spec sheet's. Apart from the description, which load writes as its target condition.
  const auto origin = [](const hw::Roof& roof) { return roof.measured ? "measured" : "spec sheet"; };
  server.roofs = fmt::format("roofs {} ({}) and {} ({})", core::format_si(sim_engine.compute_roof().value, "FLOP/s"),
                             origin(sim_engine.compute_roof()), core::format_si(sim_engine.memory_roof().value, "B/s"),
                             origin(sim_engine.memory_roof()));
  server.engine = std::make_unique<serve::SimTokenEngine>(std::move(sim_engine));
  server.config.model_name = served_name_.empty() ? model_ : served_name_;
  return server;
}

}  // namespace perfhound::cli
