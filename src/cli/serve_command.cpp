#include "cli/serve_command.h"

#include <fmt/format.h>
#include <fstream>
#include <ostream>
#include <sstream>

#include "core/units.h"
#include "hw/chip_spec.h"
#include "model/model_shape.h"
#include "serve/http_server.h"
#include "serve/sim_token_engine.h"
#include "sim/engine.h"

namespace perfhound::cli {
namespace {

core::Result<double> fraction(double v, std::string_view flag) {
  if (!(v >= 0 && v <= 1)) return core::Error{fmt::format("{}: must be a fraction in [0, 1], got {}", flag, v)};
  return v;
}

class ServeCommand final : public Command {
 public:
  std::string_view name() const override { return "serve"; }
  std::string_view summary() const override {
    return "OpenAI-compatible server streaming at the pace of a simulated continuous-batching engine";
  }

  void add_flags(CLI::App& app) override {
    app.add_option("--host", config_.address, "Address to listen on")->default_val("127.0.0.1");
    app.add_option("--port", port_, "Port to listen on (0: any free port, printed at start)")->default_val(8000);
    app.add_option("--model", model_, "Model: preset (llama-3-8b, ...) or a Hugging Face config.json")->default_val("llama-3-8b");
    app.add_option("--served-model-name", served_name_, "Model name in responses and /v1/models (default: --model)");
    app.add_option("--hw", hw_, "Chip from the catalogue (perfhound hw list) or a chip JSON file")->default_val("h200-sxm");
    app.add_option("--tp", tp_, "Tensor-parallel GPUs")->default_val(1);
    app.add_option("--precision", precision_, "Weights and math: bf16, fp16, fp8, int8, fp4")->default_val("bf16");
    app.add_option("--kv-precision", kv_precision_, "KV cache precision")->default_val("bf16");
    app.add_option("--time-scale", config_.time_scale, "Simulated seconds per wall second (e.g. 100 for fast tests)")->default_val(1.0);
    app.add_option("--seed", seed_, "Seed of every random choice (faults), written at start")->default_val(1);
    app.add_option("--max-num-seqs", max_num_seqs_, "Running sequences at most")->default_val(sim::kDefaultMaxNumSeqs);
    app.add_option("--max-num-batched-tokens", max_batched_, "Tokens per engine step at most (chunked prefill budget)")
        ->default_val(sim::kDefaultMaxNumBatchedTokens);
    app.add_option("--gpu-memory-utilization", memory_utilization_, "Share of GPU memory for weights and KV cache")
        ->default_val(sim::kDefaultGpuMemoryUtilization);
    app.add_option("--compute-efficiency", compute_efficiency_, "Fraction of the compute roof a step reaches")
        ->default_val(sim::kDefaultComputeEfficiency);
    app.add_option("--bandwidth-efficiency", bandwidth_efficiency_, "Fraction of the memory roof a step reaches")
        ->default_val(sim::kDefaultBandwidthEfficiency);
    app.add_option("--step-overhead", step_overhead_, "Fixed time added to every step (scheduling, launches), e.g. 300us")
        ->default_val("300us");
    app.add_option("--fixed-step-time", fixed_step_, "Skip the engine model: every step takes this long (e.g. 10us) and "
                                                     "emits one token per request (tests, benchmarks)");
    app.add_option("--duration", duration_, "Stop after this long of wall time (e.g. 30s); default: until Ctrl-C");
    app.add_option("--port-file", port_file_, "Write the port actually bound to this file (for scripts and tests)");
    app.add_option("--fault-429", faults_.status_429, "Fraction of requests answered 429")->default_val(0.0);
    app.add_option("--fault-500", faults_.status_500, "Fraction of requests answered 500")->default_val(0.0);
    app.add_option("--fault-503", faults_.status_503, "Fraction of requests answered 503")->default_val(0.0);
    app.add_option("--fault-reset", faults_.reset, "Fraction of streams whose connection is closed halfway")->default_val(0.0);
    app.add_option("--fault-stall", faults_.stall, "Fraction of streams that stall halfway for --stall")->default_val(0.0);
    app.add_option("--stall", stall_, "How long a stalled stream stops sending")->default_val("2s");
    app.add_option("--fault-malformed", faults_.malformed, "Fraction of streams with one chunk that is not JSON")->default_val(0.0);
    app.add_option("--fault-overlong", faults_.overlong, "Fraction of streams with one 1 MiB SSE line")->default_val(0.0);
  }

  core::Result<int> run(const Context& context) override {
    if (port_ < 0 || port_ > 65535) return core::Error{fmt::format("--port: {} is not a TCP port", port_)};
    config_.port = static_cast<std::uint16_t>(port_);
    for (const auto& [v, flag] : {std::pair{faults_.status_429, "--fault-429"}, {faults_.status_500, "--fault-500"},
                                  {faults_.status_503, "--fault-503"}, {faults_.reset, "--fault-reset"},
                                  {faults_.stall, "--fault-stall"}, {faults_.malformed, "--fault-malformed"},
                                  {faults_.overlong, "--fault-overlong"}}) {
      const auto checked = fraction(v, flag);
      if (!checked.ok()) return checked.error();
    }
    if (faults_.status_429 + faults_.status_500 + faults_.status_503 + faults_.reset + faults_.stall +
            faults_.malformed + faults_.overlong > 1.0) {
      return core::Error{"--fault-*: the fractions add up to more than 1"};
    }
    PH_ASSIGN_OR_RETURN(const std::int64_t stall_ns, core::parse_duration_ns(stall_).with_context("--stall"));
    faults_.stall_ms = stall_ns / 1'000'000;
    faults_.seed = seed_;
    config_.faults = faults_;
    double duration_s = 0;
    if (!duration_.empty()) {
      PH_ASSIGN_OR_RETURN(const std::int64_t ns, core::parse_duration_ns(duration_).with_context("--duration"));
      duration_s = core::ns_to_seconds(ns);
    }

    std::unique_ptr<serve::TokenEngine> engine;
    std::string description;
    if (!fixed_step_.empty()) {
      PH_ASSIGN_OR_RETURN(const std::int64_t ns, core::parse_duration_ns(fixed_step_).with_context("--fixed-step-time"));
      engine = std::make_unique<serve::FixedStepEngine>(core::ns_to_seconds(ns));
      description = fmt::format("fixed {} steps", core::format_duration_ns(static_cast<double>(ns)));
      config_.model_name = served_name_.empty() ? "perfhound-fixed-step" : served_name_;
    } else {
      sim::EngineConfig ec;
      PH_ASSIGN_OR_RETURN(ec.shape, model::load_model_shape(model_).with_context("--model"));
      PH_ASSIGN_OR_RETURN(ec.chip, hw::find_chip(hw_).with_context("--hw"));
      PH_ASSIGN_OR_RETURN(ec.weight_precision, model::parse_precision(precision_).with_context("--precision"));
      PH_ASSIGN_OR_RETURN(ec.kv_precision, model::parse_precision(kv_precision_).with_context("--kv-precision"));
      ec.tensor_parallel = tp_;
      ec.max_num_seqs = max_num_seqs_;
      ec.max_num_batched_tokens = max_batched_;
      ec.gpu_memory_utilization = memory_utilization_;
      ec.compute_efficiency = compute_efficiency_;
      ec.bandwidth_efficiency = bandwidth_efficiency_;
      PH_ASSIGN_OR_RETURN(ec.step_overhead_ns, core::parse_duration_ns(step_overhead_).with_context("--step-overhead"));
      ec.seed = seed_;
      PH_ASSIGN_OR_RETURN(sim::Engine sim_engine, sim::Engine::create(ec));
      description = fmt::format("{} on {} (TP {}, {}), KV cache {} blocks of {} tokens", model_, ec.chip.display_name,
                                tp_, precision_, sim_engine.kv_capacity().blocks, ec.block_size_tokens);
      engine = std::make_unique<serve::SimTokenEngine>(std::move(sim_engine));
      config_.model_name = served_name_.empty() ? model_ : served_name_;
    }
    PH_ASSIGN_OR_RETURN(auto server, serve::HttpServer::create(config_, std::move(engine)));
    if (!port_file_.empty()) {
      std::ofstream(port_file_) << server->port() << "\n";
    }
    *context.err << fmt::format("perfhound serve: http://{}:{} model '{}': {}; time scale {}, seed {}\n",
                                config_.address, server->port(), config_.model_name, description, config_.time_scale,
                                seed_);
    context.err->flush();
    server->run(duration_s);
    return kExitOk;
  }

 private:
  serve::ServerConfig config_;
  serve::FaultConfig faults_;
  int port_ = 8000;
  std::string model_ = "llama-3-8b", served_name_, hw_ = "h200-sxm", precision_ = "bf16", kv_precision_ = "bf16";
  std::int64_t tp_ = 1;
  std::uint64_t seed_ = 1;
  std::int64_t max_num_seqs_ = sim::kDefaultMaxNumSeqs;
  std::int64_t max_batched_ = sim::kDefaultMaxNumBatchedTokens;
  double memory_utilization_ = sim::kDefaultGpuMemoryUtilization;
  double compute_efficiency_ = sim::kDefaultComputeEfficiency;
  double bandwidth_efficiency_ = sim::kDefaultBandwidthEfficiency;
  std::string step_overhead_ = "300us";
  std::string fixed_step_, duration_, port_file_, stall_ = "2s";
};

}  // namespace

std::unique_ptr<Command> make_serve_command() { return std::make_unique<ServeCommand>(); }

}  // namespace perfhound::cli
