// One load run as `perfhound load` and `perfhound sweep` both make it: the flags they share, the target (a
// URL, or the embedded perfhound serve, started once and kept for every point of a sweep), and a run at one
// load level that yields the versioned JSON document, the terminal text and what the exit code depends on.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command.h"
#include "cli/sim_flags.h"
#include "core/conditions.h"
#include "core/diagnostics.h"
#include "core/result.h"
#include "load/load_runner.h"
#include "load/slo.h"

namespace perfhound::cli {

// The load of one run: closed loop at a concurrency, open loop at a rate, or neither (a replayed arrival
// trace keeps its own times; otherwise closed loop at concurrency 1).
struct LoadLevel {
  std::optional<std::int64_t> concurrency;
  std::optional<double> rate;
};

// Every flag of `perfhound load` except the load level (--concurrency / --rate), which `load` takes as one
// value and `sweep` as a list.
struct LoadFlags {
  void add_to(CLI::App& app);  // both of:
  void add_target_to(CLI::App& app);             // the target: URL (or the embedded server's --sim-*), model, API
  void add_workload_and_load_to(CLI::App& app);  // the workload, schedule, warm-up, SLO and output flags

  SimFlags sim;
  std::string url, endpoint = "chat", model, api_key_env, timeout = "600s", max_tokens_field = "max_tokens";
  std::string extra_body, input_len = "1024", output_len = "128", dataset, dataset_format_name, arrival = "poisson";
  std::string ramp_up, duration, slo, compat, window, soak, metrics_path = "/metrics";
  std::optional<std::string> warmup;  // not given: 10 requests, raised to one per slot of a closed loop
  std::string shard;     // --shard K/N
  std::string start_at;  // --start-at UNIX_SECONDS
  std::vector<std::string> headers;
  std::vector<std::string> stated_conditions;  // --condition KEY=VALUE
  bool insecure = false, ignore_eos = false, no_usage = false, emit_timestamps = false, token_ids = false;
  std::uint64_t seed = 0;
  std::optional<std::uint64_t> requests;
  std::optional<double> confidence;
  double burstiness = 1.0, trace_speedup = 1.0, ramp_start_rate = 0;
  std::int64_t max_concurrency = 0;

  // Where the flags were registered (by add_target_to): asked which of them were given, since a default and a
  // value given equal to it read alike.
  const CLI::App* app = nullptr;
  // Whether `flag` ("--input-len") was given on the command line (false where it is not a flag of this command).
  // It asks the command's parser by name: under audit, "--input-len" is audit's own live flag, not input_len.
  bool given(const std::string& flag) const;
  // The dataset's format: --dataset-format, else from the file's name. Errors name the flag.
  core::Result<std::string> dataset_format() const;
  // Whether a run at `level` replays an arrival trace at its own times: a trace dataset and no load level.
  bool replays(const LoadLevel& level) const;
  // A --sim-* flag given beside --url (the embedded server it configures is replaced), refused naming it.
  core::Status check_target_flags() const;

  // A flag given that this run would drop without a word, refused, naming the flag (docs/load.md, "Flags that
  // do not apply"): check_target_flags, --input-len beside --dataset, --output-len beside an arrival trace,
  // --prompt-token-ids beside text prompts, --dataset-format without --dataset, an open loop's flags (--arrival,
  // --burstiness, --ramp-start-rate, --max-concurrency) without an open loop, --trace-speedup without a replay,
  // --ramp-up on a replay, --metrics-path without --soak.
  // `open_loop`: the run, or some point of a sweep, is an open loop; `replay`: the run replays an arrival trace.
  core::Status check_flags_apply(bool open_loop, bool replay) const;
};

// One load level, not both; a concurrency one client can keep in flight. Errors name the flag. LoadSession::run
// checks it too; a command checks it first, before open() starts a target.
core::Status check_load_level(const LoadLevel& level);

struct LoadRun {
  nlohmann::ordered_json document;  // the perfhound.load JSON document
  std::string text;                 // the terminal report, conditions block included
  std::vector<core::Diagnostic> diagnostics;
  bool interrupted = false;  // SIGINT / SIGTERM: the result is partial
  bool valid = false;        // MLPerf-style validity of the client's measurement
  bool client_limited = false;
  bool slo_passed = true;  // every --slo gate term held (true without --slo)
  bool drift_found = false;  // --soak: a drift flag was raised
};

class LoadSession {
 public:
  // Checks the flags that do not depend on the load level, opens the target (starting the embedded server
  // when there is no --url) and resolves the model. Errors name the flag. `command` ("load", "sweep")
  // starts each run's line on err.
  static core::Result<std::unique_ptr<LoadSession>> open(std::string_view command, const LoadFlags& flags,
                                                         const Context& context);
  ~LoadSession();
  LoadSession(const LoadSession&) = delete;
  LoadSession& operator=(const LoadSession&) = delete;

  // One run at `level`; records stream to `records_path` when it is not empty. `err` gets a line saying what
  // is sent where and, with show_progress, the live progress line. The workload is rebuilt from the seed, so
  // every run sends the same prompts in the same order.
  core::Result<LoadRun> run(const LoadLevel& level, const std::string& records_path, std::ostream& err,
                            bool show_progress);

  // The open-loop flags (--arrival, --burstiness, --ramp-up, --ramp-start-rate) checked at `rate_per_s`, nothing
  // sent: a sweep that plans its rates once its ends are measured (--rate auto) refuses them before its first run.
  core::Status check_open_loop(double rate_per_s) const;

  // The conditions every run of this session shares (target, model, workload, seed, ...).
  const core::Conditions& conditions() const;
  // The client it built (URL, model, key, endpoint, timeouts), for callers that send plans of their own
  // (perfhound audit --url).
  const load::ClientOptions& client() const;
  // --slo as parsed (empty without it).
  const load::Slo& slo() const;

  struct State;

 private:
  explicit LoadSession(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace perfhound::cli
