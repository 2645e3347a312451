#include "bench/runner.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <iostream>
#include <optional>

#include "bench/bench_report.h"
#include "core/output_file.h"
#include "core/units.h"
#include "report/json_document.h"

namespace perfhound::bench {
namespace {

constexpr std::string_view kUsage =
    "Options:\n"
    "  --json FILE           write the perfhound.bench document (rewritten after every benchmark)\n"
    "  --filter TEXT         run only the benchmarks whose name contains TEXT\n"
    "  --max-noise PERCENT   stop when the relative standard deviation is under this (default 0.5)\n"
    "  --min-samples N       ... but not before N samples (default 10)\n"
    "  --min-time SECONDS    ... and this much measured time (default 0.5)\n"
    "  --timeout SECONDS     stop sampling a benchmark after this wall time whatever the noise (default 15;\n"
    "                        counted from the first timed sample: calibration and warm-up come before it)\n"
    "  --device N            CUDA device (CUDA benchmarks; default 0)\n"
    "  --quiet               no line a benchmark as it finishes\n";

std::optional<double> parse_double(std::string_view s) {
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

Runner::Runner(std::string suite, int argc, char** argv) : Runner(std::move(suite), argc, argv, std::cout, std::cerr) {}

Runner::Runner(std::string suite, int argc, char** argv, std::ostream& out, std::ostream& err)
    : suite_(std::move(suite)), out_(&out), err_(&err), conditions_(core::Conditions::capture(argc, argv)) {
  parse(argc, argv);
  conditions_.set("suite", suite_);
  conditions_.set("stopping_rule", {{"min_samples", rule_.min_samples},
                                    {"min_time_s", rule_.min_time_s},
                                    {"max_noise", rule_.max_noise},
                                    {"timeout_s", rule_.timeout_s},
                                    {"max_samples", rule_.max_samples}});
}

void Runner::parse(int argc, char** argv) {
  const std::string program = argc > 0 ? argv[0] : "bench";
  const auto bad = [&](const std::string& message) {
    *err_ << program << ": " << message << "\n";
    should_exit_ = true;
    exit_code_ = 2;
  };
  for (int i = 1; i < argc && !should_exit_; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      *out_ << "Usage: " << program << " [options]\n" << kUsage;
      should_exit_ = true;
      return;
    }
    if (flag == "--quiet") {
      quiet_ = true;
      continue;
    }
    const bool takes_value = flag == "--json" || flag == "--filter" || flag == "--max-noise" ||
                             flag == "--min-samples" || flag == "--min-time" || flag == "--timeout" ||
                             flag == "--device";
    if (!takes_value) return bad(fmt::format("unknown flag '{}' (--help lists them)", flag));
    if (i + 1 >= argc) return bad(fmt::format("{} needs a value", flag));
    const std::string_view value = argv[++i];
    // "--json --timeout 1": the next flag is not the file (nor the filter).
    if ((flag == "--json" || flag == "--filter") && value.starts_with("--")) {
      return bad(fmt::format("{} needs a value, got the flag '{}'", flag, value));
    }
    if (flag == "--json") {
      // Said now, not after the first benchmark has run.
      const core::Status writable = core::check_output_file("--json", std::string(value), "bench.json");
      if (!writable.ok()) return bad(writable.error().message);
      json_path_ = value;
      continue;
    }
    if (flag == "--filter") {
      filter_ = value;
      continue;
    }
    const auto number = parse_double(value);
    if (!number) return bad(fmt::format("{} '{}': not a number", flag, value));
    const double v = *number;
    if (!std::isfinite(v)) return bad(fmt::format("{} '{}': a finite number", flag, value));
    if (flag == "--max-noise") {
      if (!(v > 0 && v < 100)) return bad(fmt::format("--max-noise {}: a percentage above 0 and below 100", value));
      rule_.max_noise = v / 100;
    } else if (flag == "--min-samples" || flag == "--device") {
      // --min-samples stops at the sample cap (every sample is kept), --device at what an int holds.
      const double most = flag == "--device" ? 1023 : static_cast<double>(rule_.max_samples);
      if (v < 0 || v > most || v != static_cast<double>(static_cast<std::int64_t>(v)) || (flag == "--min-samples" && v < 1)) {
        return bad(fmt::format("{} {}: a whole number from {} to {:.0f}", flag, value, flag == "--device" ? 0 : 1, most));
      }
      if (flag == "--device") {
        device_ = static_cast<int>(v);
      } else {
        rule_.min_samples = static_cast<std::int64_t>(v);
      }
    } else if (flag == "--min-time") {
      if (!(v >= 0)) return bad(fmt::format("--min-time {}: seconds, 0 or more", value));
      rule_.min_time_s = v;
    } else {
      if (!(v > 0)) return bad(fmt::format("--timeout {}: seconds, more than 0", value));
      rule_.timeout_s = v;
    }
  }
}

bool Runner::selected(std::string_view name) const {
  return filter_.empty() || name.find(filter_) != std::string_view::npos;
}

bool Runner::should_run(const std::string& name) {
  if (!selected(name)) return false;
  if (std::find(names_.begin(), names_.end(), name) != names_.end()) {
    *err_ << suite_ << ": benchmark '" << name << "' is named twice: give each benchmark its own name (compare pairs "
          << "them by name)\n";
    failed_ = true;
    return false;
  }
  names_.push_back(name);
  return true;
}

void Runner::cpu(const std::string& name, const std::function<void()>& fn, CpuOptions options) {
  if (!should_run(name)) return;
  options.stop = rule_;
  record(run_cpu(name, options, fn));
}

void Runner::cpu(const std::string& name, const std::function<void()>& fn, const Work& work) {
  CpuOptions options;
  options.work = work;
  cpu(name, fn, options);
}

void Runner::set_condition(std::string_view key, nlohmann::ordered_json value) {
  conditions_.set(key, std::move(value));
}

int Runner::fail(const std::string& message) {
  *err_ << suite_ << ": " << message << "\n";
  failed_ = true;
  should_exit_ = true;
  exit_code_ = 2;
  return 2;
}

void Runner::record(SampledRun run) {
  const Measurement& m = run.measurement;
  if (run.error) {
    failed_ = true;
    *err_ << suite_ << ": " << run.error->message
          << (m.samples_s.empty() ? "" : fmt::format(" (the {} samples before it are kept)", m.samples_s.size()))
          << "\n";
  }
  if (!m.samples_s.empty()) {
    if (!quiet_) {
      *err_ << fmt::format("{}: {} samples, p50 {}, noise {}, {}\n", m.name, m.summary.count,
                           core::format_duration_ns(m.summary.p50 * 1e9), noise_text(m), stop_reason_name(m.stop));
    }
    measurements_.push_back(std::move(run.measurement));
    write_json();
  }
}

void Runner::write_json() {
  if (json_path_.empty()) return;
  const auto status = report::write_text_file(json_path_, bench_document(suite_, conditions_, measurements_).dump(2) + "\n");
  if (!status) {
    *err_ << suite_ << ": --json " << json_path_ << ": " << status.error().message << "\n";
    failed_ = true;
    json_path_.clear();  // one message, not one a benchmark
  }
}

int Runner::finish() {
  if (should_exit_ && measurements_.empty()) return exit_code_;
  if (names_.empty() && measurements_.empty() && !filter_.empty()) {
    // Said, not an empty table and no --json file: a misspelt filter would otherwise look like a quiet success.
    *err_ << suite_ << ": --filter '" << filter_ << "' selected no benchmark\n";
    return 2;
  }
  *out_ << fmt::format("{}: {} benchmark{}\n", suite_, measurements_.size(), measurements_.size() == 1 ? "" : "s");
  for (const std::string& line : conditions_.to_lines()) *out_ << "  " << line << "\n";
  *out_ << "\n" << render_table(measurements_);
  const std::vector<core::Diagnostic> all = named_diagnostics(measurements_);
  if (!all.empty()) *out_ << "\n";
  for (const core::Diagnostic& d : all) *out_ << core::format_diagnostic(d);
  return failed_ ? 2 : 0;
}

}  // namespace perfhound::bench
