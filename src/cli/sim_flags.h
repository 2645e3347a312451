// The simulator's flags, shared by `perfhound serve` and the embedded server `perfhound load` starts when it
// is given no --url: one flag table, one engine factory, so both build the same engine from the same words.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "core/result.h"
#include "serve/http_server.h"
#include "serve/token_engine.h"
#include "sim/engine_config.h"

namespace perfhound::cli {

struct SimulatedServer {
  std::unique_ptr<serve::TokenEngine> engine;
  serve::ServerConfig config;  // model name, time scale and faults filled in; address and port left to the caller
  std::string description;     // "llama-3-8b on NVIDIA H200 SXM (TP 1, bf16), KV cache N blocks of 16 tokens"
  std::string roofs;           // "roofs 990 TFLOP/s (spec sheet) and 4.80 TB/s (measured)"; empty for fixed steps
};

class SimFlags {
 public:
  // Registers the flags on `app`, each named `prefix` + the serve name ("--" for serve, "--sim-" for load).
  void add_to(CLI::App& app, const std::string& prefix);
  // Validates the values and builds the engine; errors name the flag.
  core::Result<SimulatedServer> build() const;
  std::uint64_t seed() const { return seed_; }
  // What the flags' names start with ("--sim-" under load), once add_to has run.
  const std::string& prefix() const { return prefix_; }

 private:
  std::string prefix_ = "--";
  serve::FaultConfig faults_;
  double time_scale_ = 1.0;
  std::string model_ = "llama-3-8b", served_name_, hw_ = "h200-sxm", precision_ = "bf16", kv_precision_ = "bf16";
  std::int64_t tp_ = 1;
  std::uint64_t seed_ = 1;
  std::int64_t max_num_seqs_ = sim::kDefaultMaxNumSeqs;
  std::int64_t max_batched_ = sim::kDefaultMaxNumBatchedTokens;
  double memory_utilization_ = sim::kDefaultGpuMemoryUtilization;
  double compute_efficiency_ = sim::kDefaultComputeEfficiency;
  double bandwidth_efficiency_ = sim::kDefaultBandwidthEfficiency;
  std::string step_overhead_ = "300us";
  std::string fixed_step_, stall_ = "2s", keep_alive_timeout_ = "120s";
};

}  // namespace perfhound::cli
