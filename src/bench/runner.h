// perfhound::bench::Runner: the main() of a benchmark program. It reads the flags every benchmark program
// shares, runs the benchmarks the filter selects under one stopping rule, prints a line a benchmark as it
// finishes, then the table; with --json FILE it rewrites the perfhound.bench document after every benchmark,
// so a run that is interrupted keeps what it measured.
//
//   int main(int argc, char** argv) {
//     bench::Runner runner("sorting", argc, argv);
//     if (runner.should_exit()) return runner.exit_code();
//     runner.cpu("std::sort 1M ints", [&] { ... }, bench::Work::items_done(1 << 20));
//     return runner.finish();
//   }
//
// Flags: --json FILE, --filter TEXT (benchmarks whose name contains TEXT), --max-noise PERCENT, --min-samples N,
// --min-time SECONDS, --timeout SECONDS, --device N (CUDA programs), --quiet, --help. A bad flag prints one
// line naming it and exits 2.
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "bench/cpu_bench.h"
#include "bench/measurement.h"
#include "bench/stopping_rule.h"
#include "core/conditions.h"

namespace perfhound::bench {

class Runner {
 public:
  Runner(std::string suite, int argc, char** argv);
  // For tests: output to these streams instead of stdout and stderr.
  Runner(std::string suite, int argc, char** argv, std::ostream& out, std::ostream& err);
  virtual ~Runner() = default;

  // True after --help, a bad flag or fail(): main returns exit_code() at once.
  bool should_exit() const { return should_exit_; }
  int exit_code() const { return exit_code_; }

  const StoppingRule& stopping_rule() const { return rule_; }
  int device() const { return device_; }
  bool selected(std::string_view name) const;
  // Whether to run benchmark `name`: the filter selects it, and no earlier benchmark of this program has the
  // name (compare pairs benchmarks by name, so a second one would be pooled with the first: it is refused, one
  // line, and finish() returns 2). The runners call it before measuring.
  bool should_run(const std::string& name);

  // Times a CPU callable (run_cpu) when the filter selects `name`; options.stop is replaced by the flags' rule.
  void cpu(const std::string& name, const std::function<void()>& fn, CpuOptions options = {});
  void cpu(const std::string& name, const std::function<void()>& fn, const Work& work);
  // Keeps a finished benchmark: prints its line, rewrites --json. A run that ended in an error keeps the
  // samples it has (if any), prints the error as one line and makes finish() return 2.
  void record(SampledRun run);
  // A condition of every benchmark in this program (GPU, input sizes, ...), written into the document.
  void set_condition(std::string_view key, nlohmann::ordered_json value);
  // Reports an error that stops the program (a failed allocation, no GPU): one line; should_exit() becomes
  // true and exit_code() 2 (finish() still prints what was measured before it).
  int fail(const std::string& message);

  // Prints the table and the diagnostics; 0, or 2 when a benchmark failed or --json could not be written.
  int finish();

  const std::vector<Measurement>& measurements() const { return measurements_; }

 private:
  void parse(int argc, char** argv);
  void write_json();

  std::string suite_;
  std::ostream* out_;
  std::ostream* err_;
  core::Conditions conditions_;
  StoppingRule rule_;
  std::string filter_, json_path_;
  int device_ = 0;
  bool quiet_ = false;
  bool should_exit_ = false;
  int exit_code_ = 0;
  bool failed_ = false;
  std::vector<Measurement> measurements_;
  std::vector<std::string> names_;  // every benchmark started, in order
};

}  // namespace perfhound::bench
