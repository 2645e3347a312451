#include "cli/load_command.h"

#include <unistd.h>

#include <fmt/format.h>
#include <ostream>

#include "cli/load_session.h"
#include "cli/output.h"
#include "mpi/mpi_world.h"

namespace perfhound::cli {
namespace {

class LoadCommand final : public Command {
 public:
  std::string_view name() const override { return "load"; }
  std::string_view summary() const override {
    return "Load-test an OpenAI-compatible endpoint: TTFT, TPOT, ITL, E2E, goodput, from the intended send time";
  }

  void add_flags(CLI::App& app) override {
    app.add_option("--concurrency", concurrency_, "Closed loop: requests in flight (each sends the next when it ends); default 1 (an arrival trace: its own times)");
    app.add_option("--rate", rate_, "Open loop: requests per second (latency from the intended send time)");
    flags_.add_to(app);
    app.add_option("--soak", flags_.soak, "Soak test: run this long (e.g. 2h) and judge drift per window: throughput "
                                          "decay, latency and error growth, the target's memory / KV use (exit 1)");
    app.add_option("--window", flags_.window, "Per-window figures over this length (soak default: a thirtieth of "
                                              "--soak, 1 s to 5 min; otherwise 1 s, doubling past 240 windows)");
    app.add_option("--metrics-path", flags_.metrics_path, "Soak: the target's Prometheus path to scrape every "
                                                          "window, or 'none'")
        ->default_val("/metrics");
    app.add_option("--records", records_, "Write every request's record to this file as it finishes (.jsonl or .csv)");
    app.add_flag("--quiet", quiet_, "No live progress line");
    add_output_flags(app, output_);
  }

  core::Result<int> run(const Context& context) override {
    const LoadLevel level{concurrency_, rate_};
    PH_TRY(check_load_level(level));
    PH_TRY(check_not_an_input("--records", records_, {flags_.dataset}));
    PH_TRY(check_not_an_input("-o", output_.output_path, {flags_.dataset}));
    PH_TRY(check_distinct_outputs("--records", records_, "-o", output_.output_path));
    PH_TRY(flags_.check_flags_apply(rate_.has_value(), flags_.replays(level)));
    // Under mpirun only rank 0 writes, and a folder on its host alone is fine: the write says so if not.
    if (!mpi::active()) PH_TRY(check_output_folder(output_));
    PH_ASSIGN_OR_RETURN(const auto session, LoadSession::open("load", flags_, context));
    const bool show_progress = !quiet_ && !output_.json && isatty(STDERR_FILENO) == 1;
    PH_ASSIGN_OR_RETURN(const LoadRun run, session->run(level, records_, *context.err, show_progress));
    PH_TRY(emit_result(context, output_, run.document, run.text, diagnostic_lines(run.diagnostics)));
    if (run.interrupted) return kExitInterrupted;
    if (!run.valid || !run.slo_passed || run.drift_found) return kExitCheckFailed;
    return kExitOk;
  }

 private:
  LoadFlags flags_;
  OutputOptions output_;
  std::string records_;
  bool quiet_ = false;
  std::optional<std::int64_t> concurrency_;
  std::optional<double> rate_;
};

}  // namespace

std::unique_ptr<Command> make_load_command() { return std::make_unique<LoadCommand>(); }

}  // namespace perfhound::cli
