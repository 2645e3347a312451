#include "cli/load_session.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fmt/format.h>
#include <ostream>
#include <thread>

#include "cli/number_checks.h"
#include "cli/load_summary_text.h"
#include "cli/output.h"
#include "core/log_histogram.h"
#include "core/units.h"
#include "load/compat_view.h"
#include "load/delivery_check.h"
#include "load/drift.h"
#include "load/dataset_readers.h"
#include "load/length_distribution.h"
#include "load/load_metrics.h"
#include "load/load_runner.h"
#include "load/metrics_scraper.h"
#include "load/record_io.h"
#include "load/sample_tracker.h"
#include "load/client_health_wire.h"
#include "load/schedule.h"
#include "load/shard.h"
#include "load/slo.h"
#include "load/tail_samples.h"
#include "load/validity.h"
#include "load/window_series.h"
#include "load/workload.h"
#include "report/json_document.h"
#include "report/table_writer.h"
#include "mpi/mpi_world.h"
#include "serve/http_server.h"
#include "cli/load_ranks.h"

namespace perfhound::cli {
namespace {

std::string seconds(double s) { return std::isfinite(s) ? core::format_duration_ns(s * 1e9) : "-"; }

// One SLO gate term's observations: every measured request counts; failures count as over the threshold.
struct GateCounter {
  load::SloTerm term;
  // The metric's values, kept as the summary keeps its own (load::SampleTracker), so the gate's observed p99 is
  // the table's p99: numpy-linear up to a million requests. A histogram here read 4.58 ms beside the table's 4.56.
  load::SampleTracker values;
  std::int64_t n = 0, over = 0;
};

// Where finished records go: the records file (as they finish), the trackers, the live progress line.
class CommandSink final : public load::RecordSink {
 public:
  CommandSink(load::LoadMetricsTracker& tracker, load::WindowSeries& windows, load::RecordWriter* writer,
              std::vector<GateCounter>& gates, load::LatencyStart start, std::ostream* progress, std::uint64_t planned,
              std::vector<load::RequestRecord>* keep = nullptr)
      : keep_(keep),
        tracker_(tracker),
        windows_(windows),
        writer_(writer),
        gates_(gates),
        start_(start),
        progress_(progress),
        planned_(planned) {}

  void on_record(load::RequestRecord&& record) override {
    if (writer_ != nullptr && write_error_.empty()) {
      const core::Status written = writer_->write(record);
      if (!written.ok()) write_error_ = written.error().message;
    }
    if (!record.warmup) {
      const load::RequestLatencies l = load::compute_latencies(record, start_);
      if (record.ok()) live_ttft_.record(static_cast<std::int64_t>(l.ttft_s * 1e9));
      for (GateCounter& g : gates_) {
        ++g.n;
        const double v = load::metric_value(l, g.term.metric);
        if (!record.ok() || v > g.term.threshold_s) ++g.over;
        if (record.ok() && std::isfinite(v)) g.values.add(v);
      }
    }
    windows_.add(record);
    tracker_.add(record);
    if (keep_ != nullptr) keep_->push_back(std::move(record));
  }

  void on_progress(const load::Progress& p) override {
    if (progress_ == nullptr) return;
    const std::string total = planned_ > 0 ? fmt::format("/{}", planned_) : "";
    *progress_ << fmt::format("\r\033[K  {:.0f} s  {}{} done  {:.1f} req/s  p50 TTFT {}  errors {}  in flight {}",
                              p.elapsed_s, p.finished, total, p.elapsed_s > 0 ? p.finished / p.elapsed_s : 0.0,
                              live_ttft_.total_count() > 0
                                  ? core::format_duration_ns(static_cast<double>(live_ttft_.value_at_percentile(50)))
                                  : "-",
                              p.failed, p.in_flight)
               << std::flush;
  }
  void end_progress() {
    if (progress_ != nullptr) *progress_ << "\r\033[K" << std::flush;
  }
  const std::string& write_error() const { return write_error_; }

 private:
  std::vector<load::RequestRecord>* keep_;  // under mpirun: this rank's records, for rank 0
  load::LoadMetricsTracker& tracker_;
  load::WindowSeries& windows_;
  load::RecordWriter* writer_;
  std::vector<GateCounter>& gates_;
  load::LatencyStart start_;
  std::ostream* progress_;
  std::uint64_t planned_;
  core::LogHistogram live_ttft_{3'600'000'000'000, 3};
  std::string write_error_;
};

// "10" requests or "5s" of time.
constexpr std::string_view kDefaultWarmup = "10";

core::Status parse_warmup(std::string_view text, std::uint64_t& requests, std::int64_t& ns) {
  if (text.empty()) return core::Error{"--warmup: empty (use a request count like 10 or a time like 5s)"};
  if (std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    if (std::from_chars(text.data(), text.data() + text.size(), requests).ec != std::errc()) {
      return core::Error{fmt::format("--warmup: {} requests is more than a count holds", text)};
    }
    return core::Status::success();
  }
  auto parsed = core::parse_duration_ns(text);
  if (!parsed.ok()) {
    return core::Error{fmt::format("--warmup: cannot parse '{}' (use a request count like 10 or a time like 5s)", text)};
  }
  ns = *parsed;
  return core::Status::success();
}

core::Result<std::unique_ptr<load::Workload>> open_dataset(const LoadFlags& f) {
  PH_ASSIGN_OR_RETURN(const std::string format, f.dataset_format());
  std::optional<load::LengthDistribution> output;
  if (f.given("--output-len")) {
    PH_ASSIGN_OR_RETURN(output, load::parse_length_distribution(f.output_len).with_context("--output-len"));
  }
  if (format == "sharegpt") {
    load::ShareGptOptions options;
    options.seed = f.seed;
    options.output_len = output;
    return load::read_sharegpt(f.dataset, options).with_context("--dataset");
  }
  if (format == "jsonl") {
    load::JsonlPromptOptions options;
    options.seed = f.seed;
    options.default_output_len = output;
    if (!options.default_output_len) {
      PH_ASSIGN_OR_RETURN(options.default_output_len, load::parse_length_distribution(f.output_len));
    }
    return load::read_jsonl_prompts(f.dataset, options).with_context("--dataset");
  }
  load::TraceOptions options;
  options.seed = f.seed;
  options.token_ids = f.token_ids;
  return load::read_arrival_trace(f.dataset, options).with_context("--dataset");
}

nlohmann::ordered_json client_json(const load::ClientHealth& h) {
  const auto hist = [](const core::LogHistogram& x) {
    nlohmann::ordered_json j = {{"count", x.total_count()}};
    if (x.total_count() == 0) return j;
    for (const auto& [name, q] : {std::pair{"p50_s", 50.0}, {"p90_s", 90.0}, {"p99_s", 99.0}, {"p999_s", 99.9}}) {
      j[name] = static_cast<double>(x.value_at_percentile(q)) / 1e9;
    }
    j["max_s"] = static_cast<double>(x.max()) / 1e9;
    j["method"] = "histogram (nearest rank, 3 digits)";
    return j;
  };
  return {{"wall_s", h.wall_s},
          {"cpu_s", h.cpu_s},
          {"cpu_ratio", h.cpu_ratio},
          {"dispatch_spin_s", h.dispatch_spin_s},
          {"loop_lag", hist(h.loop_lag_ns)},
          {"dispatch_lag", hist(h.dispatch_lag_ns)},
          {"emit_to_receive", hist(h.emit_delay_ns)},
          {"receive_backlog", hist(h.receive.backlog_ns)},
          {"receive_timestamps",
           {{"kernel_stamped_reads", h.receive.stamped_reads},
            {"unstamped_reads", h.receive.unstamped_reads},
            {"rejected_stamps", h.receive.rejected_stamps}}},
          {"connections_opened", h.connections_opened},
          {"stale_connection_retries", h.stale_connection_retries},
          {"max_in_flight", h.max_in_flight}};
}

std::string render_text(const load::LoadSummary& s, const load::ClientHealth& h, const load::Validity& validity,
                               const std::vector<load::SloTermVerdict>& verdicts, const load::RunOutcome& outcome,
                               bool open_loop, const load::ClientOptions& client, const std::string& load_description) {
  std::string out;
  out += fmt::format("perfhound load: {} measured requests ({} completed, {} failed; {} warm-up discarded) in {}\n",
                     s.completed + s.failed, s.completed, s.failed, s.warmup_discarded, seconds(s.window_s));
  out += fmt::format("  {} -> {}, model '{}'\n", load_description, client.url.text, client.request.model);
  out += fmt::format("result: {}{}\n", validity.valid ? "VALID" : "INVALID",
                     outcome.interrupted ? fmt::format(" (partial: {})", outcome.stop_reason) : "");
  for (const auto& r : validity.reasons) out += fmt::format("  {}; {}\n", r.what, r.remedy);
  out += "\n";
  out += render_summary_table(s, open_loop);
  if (s.failed > 0) {
    out += "errors:";
    for (const auto& e : s.errors) out += fmt::format(" {} {} (e.g. {});", load::error_kind_name(e.kind), e.count, e.first_message);
    out += "\n";
  }
  const auto p99 = [](const core::LogHistogram& x) {
    return x.total_count() > 0 ? core::format_duration_ns(static_cast<double>(x.value_at_percentile(99))) : "-";
  };
  out += fmt::format("client: CPU {} of one core, event-loop lag p99 {}", core::format_percent(h.cpu_ratio), p99(h.loop_lag_ns));
  if (open_loop) out += fmt::format(", dispatch lag p99 {}", p99(h.dispatch_lag_ns));
  if (h.emit_delay_ns.total_count() > 0) out += fmt::format(", server emit -> receive p99 {}", p99(h.emit_delay_ns));
  if (h.receive.stamped_reads > 0) out += fmt::format(", read backlog p99 {} (kernel receive stamps)", p99(h.receive.backlog_ns));
  out += fmt::format(", {} connections opened, {} in flight at most\n", h.connections_opened, h.max_in_flight);
  for (const auto& v : verdicts) {
    out += fmt::format("SLO p{} {} <= {}: observed {} ({} of {} over) -> {}", core::format_number(v.term.percentile),
                       load::metric_name(v.term.metric), seconds(v.term.threshold_s), seconds(v.observed_s), v.over,
                       v.n, v.met ? "met" : "NOT met");
    if (v.confidence_asked) {
      out += v.holds_at_confidence
                 ? fmt::format("; holds at {} confidence", core::format_percent(v.confidence))
                 : v.more_requests_needed > 0
                       ? fmt::format("; not yet at {} confidence ({} more requests at this over-rate)",
                                     core::format_percent(v.confidence), v.more_requests_needed)
                       : fmt::format("; cannot hold at {} confidence at this over-rate", core::format_percent(v.confidence));
    }
    out += "\n";
  }
  return out;
}

std::string render_compat(const std::vector<load::CompatMetric>& metrics, const std::string& tool) {
  std::string out = fmt::format("\nas {} names and defines them:\n", tool);
  for (const auto& m : metrics) {
    out += fmt::format("  {} ({}):", m.name, m.unit);
    for (const auto& [stat, value] : m.stats) out += fmt::format(" {} {}", stat, core::format_number(value));
    out += "\n";
  }
  return out;
}

nlohmann::ordered_json soak_json(const load::DriftReport& drift, const load::ScrapeOutcome& scraped,
                                 std::int64_t soak_ns, std::int64_t window_ns) {
  auto findings = nlohmann::ordered_json::array();
  for (const auto& f : drift.findings) findings.push_back({{"what", f.what}, {"detail", f.detail}});
  nlohmann::ordered_json series = nlohmann::ordered_json::object();
  for (const auto& m : scraped.samples) {
    if (!series.contains(m.name)) series[m.name] = nlohmann::ordered_json::array();
    series[m.name].push_back({m.t_s, m.value});
  }
  return {{"duration_s", core::ns_to_seconds(soak_ns)},
          {"window_s", core::ns_to_seconds(window_ns)},
          {"rule", "last third vs first third of the steady windows (docs/load.md, 'Soak')"},
          {"enough_windows", drift.enough_windows},
          {"third_windows", drift.third_windows},
          {"drift", findings},
          {"notes", drift.notes},
          {"target_metrics", {{"scrapes", scraped.scrapes},
                              {"failed", scraped.failed},
                              {"first_error", scraped.first_error},
                              {"series", std::move(series)}}}};
}

std::string render_soak(const std::vector<load::WindowFigures>& series, const load::DriftReport& drift,
                        const load::ScrapeOutcome& scraped) {
  std::string out = "\nsoak: per window (by end time; the first and last are left out of the drift judgement)\n";
  report::TableWriter table({{"window", report::Align::kLeft}, {"req/s"}, {"out tok/s"}, {"TTFT p95"}, {"TPOT p95"},
                             {"E2E p95"}, {"failed"}});
  // At most ~40 rows: every k-th window of a long soak (the JSON keeps them all).
  const std::size_t step = std::max<std::size_t>(1, (series.size() + 39) / 40);
  // The last window, cut by the run's end, has no rate (null in the JSON): "-", as an empty percentile is.
  const auto rate = [](double v) { return std::isfinite(v) ? core::format_number(v) : std::string("-"); };
  // Tenths: that window may be shorter than a second ("7-7.4 s", not "7-7 s").
  const auto at = [](double s) { return fmt::format("{:g}", std::round(s * 10) / 10); };
  for (std::size_t i = 0; i < series.size(); i += step) {
    const auto& w = series[i];
    table.add_row({fmt::format("{}-{} s", at(w.start_s), at(w.end_s)), rate(w.requests_per_s),
                   rate(w.output_tokens_per_s), seconds(w.ttft_p95_s), seconds(w.tpot_p95_s),
                   seconds(w.e2e_p95_s), fmt::format("{}", w.failed)});
  }
  out += table.render();
  if (scraped.scrapes > 0) {
    out += fmt::format("target /metrics: {} scrapes, {} failed{}\n", scraped.scrapes, scraped.failed,
                       scraped.first_error.empty() ? "" : fmt::format(" (first: {})", scraped.first_error));
  }
  if (!drift.enough_windows) {
    out += "drift: no verdict (fewer than 6 steady windows; lengthen --soak or shorten --window)\n";
  } else if (drift.findings.empty()) {
    out += fmt::format("drift: none (last {} windows vs first {})\n", drift.third_windows, drift.third_windows);
  } else {
    for (const auto& f : drift.findings) out += fmt::format("DRIFT {}: {}\n", f.what, f.detail);
  }
  for (const auto& note : drift.notes) out += fmt::format("  note: {}\n", note);
  return out;
}

}  // namespace

core::Status check_load_level(const LoadLevel& level) {
  if (level.concurrency && level.rate) {
    return core::Error{"--concurrency and --rate: give one (closed or open loop), not both"};
  }
  if (level.concurrency && (*level.concurrency < 1 || *level.concurrency > load::kMaxConcurrency)) {
    return core::Error{fmt::format("--concurrency: must be 1 to {} (more is more clients: --shard), got {}",
                                   load::kMaxConcurrency, *level.concurrency)};
  }
  return core::Status::success();
}

bool LoadFlags::given(const std::string& flag) const {
  const CLI::Option* option = app == nullptr ? nullptr : app->get_option_no_throw(flag);
  return option != nullptr && option->count() > 0;
}

core::Result<std::string> LoadFlags::dataset_format() const {
  if (!dataset_format_name.empty()) return dataset_format_name;
  if (dataset.ends_with(".csv")) return std::string("trace");
  if (dataset.ends_with(".jsonl") || dataset.ends_with(".ndjson")) return std::string("jsonl");
  if (dataset.ends_with(".json")) return std::string("sharegpt");
  return core::Error{
      fmt::format("--dataset '{}': cannot tell the format from the name; give --dataset-format", dataset)};
}

bool LoadFlags::replays(const LoadLevel& level) const {
  if (dataset.empty() || level.rate || level.concurrency) return false;
  const auto format = dataset_format();
  return format.ok() && *format == "trace";
}

core::Status LoadFlags::check_target_flags() const {
  if (url.empty() || app == nullptr) return core::Status::success();
  for (const CLI::Option* option : app->get_options()) {
    const std::string name = option->get_name(false, false);
    if (name.starts_with(sim.prefix()) && option->count() > 0) {
      return core::Error{fmt::format("{}: configures the embedded server, which --url replaces; leave it out", name)};
    }
  }
  return core::Status::success();
}

core::Status LoadFlags::check_flags_apply(bool open_loop, bool replay) const {
  PH_TRY(check_target_flags());
  if (dataset.empty()) {
    if (given("--dataset-format")) return core::Error{"--dataset-format: says how to read --dataset; give --dataset"};
  } else {
    PH_ASSIGN_OR_RETURN(const std::string format, dataset_format());
    if (given("--input-len")) {
      return core::Error{"--input-len: the --dataset's prompts have their own lengths; leave --input-len out"};
    }
    if (format == "trace" && given("--output-len")) {
      return core::Error{"--output-len: an arrival trace gives each request's output length; leave --output-len out"};
    }
    // A .jsonl arrival trace (Mooncake's) is read as prompts unless told: say so where a flag shows a trace was meant.
    const std::string jsonl_trace_hint = format == "jsonl" && dataset_format_name.empty()
                                             ? " (a .jsonl arrival trace needs --dataset-format trace)"
                                             : "";
    if (format != "trace" && token_ids) {
      return core::Error{fmt::format("--prompt-token-ids: the {} dataset's prompts are text; token ids are sent for "
                                     "synthetic prompts and arrival traces only{}", format, jsonl_trace_hint)};
    }
    if (format != "trace" && given("--trace-speedup")) {
      return core::Error{fmt::format("--trace-speedup: paces an arrival-trace replay, and the {} dataset is "
                                     "prompts{}", format, jsonl_trace_hint)};
    }
  }
  if (replay && given("--ramp-up")) {
    return core::Error{"--ramp-up: a replayed trace keeps its own times; leave --ramp-up out (or give --rate or "
                       "--concurrency to send the trace's requests at a load of your own)"};
  }
  if (!open_loop) {
    for (const char* flag : {"--arrival", "--burstiness", "--ramp-start-rate"}) {
      if (given(flag)) {
        return core::Error{fmt::format("{}: shapes an open loop's arrivals; give --rate (a closed loop is paced by its "
                                       "--concurrency, a replayed trace by its own times)", flag)};
      }
    }
    if (!replay && given("--max-concurrency")) {
      return core::Error{"--max-concurrency: caps an open loop's requests in flight; a closed loop keeps its "
                         "--concurrency in flight (give --rate, or leave it out)"};
    }
  }
  if (!replay && given("--trace-speedup")) {
    return core::Error{"--trace-speedup: paces an arrival-trace replay (--dataset TRACE.csv with neither "
                       "--concurrency nor --rate); this run replays none"};
  }
  // The server's metrics are scraped per window of a soak only.
  if (given("--metrics-path") && metrics_path != "none" && soak.empty()) {
    return core::Error{"--metrics-path: scraped during a --soak only; add --soak"};
  }
  return core::Status::success();
}

void LoadFlags::add_to(CLI::App& app) {
  add_target_to(app);
  add_workload_and_load_to(app);
}

void LoadFlags::add_target_to(CLI::App& app) {
  this->app = &app;
  app.add_option("--url", url, "Base URL of the server (http or https); none: an embedded perfhound serve");
  app.add_option("--endpoint", endpoint, "API: chat (/v1/chat/completions) or completions (/v1/completions)")
      ->default_val("chat");
  app.add_option("--model", model, "Model name to request (default: the first of GET /v1/models)");
  app.add_option("--api-key-env", api_key_env, "Name of the environment variable holding the API key (sent as Bearer)");
  app.add_option("--header", headers, "Extra request header 'Name: value' (repeatable)");
  app.add_option("--timeout", timeout, "Per-request timeout, from send to the end of the stream")->default_val("600s");
  app.add_flag("--insecure", insecure, "Do not verify the server's TLS certificate (self-signed test servers)");
  app.add_flag("--ignore-eos", ignore_eos, "Ask for exactly max_tokens (vLLM / SGLang ignore_eos extension)");
  app.add_flag("--no-usage", no_usage, "Do not ask for stream_options.include_usage (count chunks instead)");
  app.add_option("--max-tokens-field", max_tokens_field, "Chat field for the output length: max_tokens or max_completion_tokens")
      ->check(CLI::IsMember({"max_tokens", "max_completion_tokens"}))
      ->default_val("max_tokens");
  app.add_option("--extra-body", extra_body, "JSON object merged into every request body, e.g. '{\"temperature\":0}'");
  app.add_flag("--emit-timestamps", emit_timestamps, "Ask perfhound serve for its send time per chunk (measures the "
                                                     "client's receive delay; on by default for the embedded server)");
  sim.add_to(app, "--sim-");
}

void LoadFlags::add_workload_and_load_to(CLI::App& app) {
  app.add_option("--input-len", input_len, "Prompt tokens: N, uniform:LO,HI, normal:MEAN,SD, lognormal:MEDIAN,SIGMA, hist:FILE")
      ->default_val("1024");
  app.add_option("--output-len", output_len, "Output tokens (max_tokens), same forms as --input-len")
      ->default_val("128");
  app.add_option("--dataset", dataset, "Prompts from a file instead: ShareGPT JSON, JSONL {prompt, max_tokens}, or an "
                                       "arrival trace (CSV / JSONL of timestamp, input and output length)");
  app.add_option("--dataset-format", dataset_format_name, "sharegpt, jsonl or trace (default: from the file)")
      ->check(CLI::IsMember({"sharegpt", "jsonl", "trace"}));
  app.add_flag("--prompt-token-ids", token_ids, "Send prompts as token ids (completions endpoint; exact input lengths)");
  app.add_option("--seed", seed, "Seed of every random choice (lengths, prompts, arrivals)")->default_val(0)->check(whole_number_in(0));
  app.add_option("--shard", shard, "Send only share K/N of the load (every N-th arrival from K; a closed loop's "
                                   "concurrency and requests divided), for N independent clients merged later with "
                                   "perfhound merge; under mpirun each rank's share is its rank");
  app.add_option("--start-at", start_at, "Start the (first) run at this wall-clock time, in seconds since the epoch "
                                         "(e.g. $(date -d '+1 min' +%s)), so independent --shard clients start together");
  // Load shape (the level itself is the command's: --concurrency / --rate)
  app.add_option("--arrival", arrival, "Open-loop inter-arrivals: poisson, gamma or constant")->default_val("poisson");
  app.add_option("--burstiness", burstiness, "Gamma shape (vLLM's --burstiness): 1 Poisson, < 1 burstier, > 1 steadier")
      ->default_val(1.0);
  app.add_option("--max-concurrency", max_concurrency, "Open loop: in flight at most (later arrivals wait; counted as schedule lag)")
      ->default_val(0);
  app.add_option("--ramp-up", ramp_up, "Ramp the load up over this long (open loop: the rate rises linearly; closed "
                                       "loop: workers start spread over it)");
  app.add_option("--ramp-start-rate", ramp_start_rate, "Open loop with --ramp-up: the rate (req/s) the ramp starts from")
      ->default_val(0.0);
  app.add_option("--trace-speedup", trace_speedup, "Arrival-trace replay: play the trace this many times faster")->default_val(1.0);
  app.add_option("--requests", requests, "Measured requests to send (after warm-up; default 100 unless --duration)")
      ->check(whole_number_in(1));
  app.add_option("--duration", duration, "Send for this long after warm-up, e.g. 60s");
  app.add_option("--warmup", warmup, "Warm-up discarded from the figures: a request count or a time (5s); default 10 "
                                     "requests, or one per slot of a closed loop when that is more");
  // Results
  app.add_option("--slo", slo, "SLO for goodput and the gate: METRIC=THRESHOLD[@pQ],... e.g. ttft=500ms,tpot=50ms@p95 (gate at p99 by default)");
  app.add_option("--confidence", confidence, "Judge each SLO term at this confidence (binomial bound, as MLPerf early stopping)")
      ->check(number_in(0.5, 0.999999));
  app.add_option("--condition", stated_conditions, "State a condition the client cannot see, written with the result: "
                                                 "KEY=VALUE, e.g. precision=fp8, hardware=h200, framework=vllm, "
                                                 "framework_version=0.11.0 (repeatable; perfhound audit reads them)");
  app.add_option("--compat", compat, "Also print the summary under another tool's names: vllm, genai-perf, aiperf, guidellm");
}

struct LoadSession::State {
  std::string command;  // "load" or "sweep", for the line each run starts with
  LoadFlags flags;
  core::Conditions conditions;
  load::ClientOptions client;
  load::ApiEndpoint endpoint = load::ApiEndpoint::kChat;
  std::int64_t timeout_ns = 0, duration_ns = 0, ramp_ns = 0, warmup_ns = 0;
  std::int64_t soak_ns = 0, window_ns = 0;  // --soak (0: not a soak), --window
  std::uint64_t warmup_requests = 0;
  load::Slo slo;
  std::optional<load::CompatTool> compat;
  nlohmann::ordered_json workload_description;  // Workload::describe()
  load::Shard shard;                            // --shard, or under mpirun this rank of all
  bool ranks = false;                           // under mpirun: the run is shared out and merged on rank 0
  std::vector<mpi::ClockOffset> clocks;         // under mpirun: each rank's clock against rank 0's
  std::optional<double> start_at_unix_s;        // --start-at, until the first run has waited for it
  std::unique_ptr<serve::HttpServer> embedded;
  std::thread embedded_thread;

  ~State() {
    if (embedded) embedded->stop();
    if (embedded_thread.joinable()) embedded_thread.join();
  }

  core::Result<std::unique_ptr<load::Workload>> make_workload() {
    if (!flags.dataset.empty()) return open_dataset(flags);
    PH_ASSIGN_OR_RETURN(auto input, load::parse_length_distribution(flags.input_len).with_context("--input-len"));
    PH_ASSIGN_OR_RETURN(auto output, load::parse_length_distribution(flags.output_len).with_context("--output-len"));
    return load::make_synthetic_workload(std::move(input), std::move(output), flags.seed, flags.token_ids);
  }
};

namespace {

// How long rank 0 gives every rank to reach the common start: the broadcast reaches them in microseconds,
// so this only has to cover a rank that is slow to be scheduled.
constexpr std::int64_t kStartLeadNs = 200'000'000;

// This client's share of the plan (load/shard.h); nothing for a whole run.
core::Status apply_shard(const LoadSession::State& s, load::RunPlan& plan,
                         const std::optional<load::ArrivalSchedule>& schedule,
                         std::unique_ptr<load::ArrivalCursor>& cursor, const load::Workload& workload) {
  const load::Shard& shard = s.shard;
  if (shard.whole()) return {};
  const std::string who = s.ranks ? "ranks" : "shards";
  plan.index_first = shard.index;
  plan.index_stride = shard.count;
  if (plan.mode == load::LoadMode::kClosedLoop) {
    if (static_cast<std::uint64_t>(plan.concurrency) < shard.count) {
      return core::Error{fmt::format("--concurrency: {} is fewer than the {} {}: give each at least one",
                                     plan.concurrency, shard.count, who)};
    }
    plan.concurrency = static_cast<std::int64_t>(load::shard_part(static_cast<std::uint64_t>(plan.concurrency), shard));
    if (plan.measured_requests) plan.measured_requests = load::shard_part(*plan.measured_requests, shard);
    plan.warmup_requests = load::shard_part(plan.warmup_requests, shard);
    return {};
  }
  if (plan.measured_requests) {
    // The schedule's index limit, walked once from the start (every shard computes the same one).
    std::unique_ptr<load::ArrivalCursor> walk;
    if (schedule) walk = load::make_open_loop_cursor(*schedule);
    const auto intended = [&](std::uint64_t i) {
      return walk ? walk->next()->intended_ns : load::replay_intended_ns(workload, i, plan.trace_speedup);
    };
    plan.index_limit = load::shard_issue_limit(intended, plan.warmup_requests, plan.warmup_ns, *plan.measured_requests,
                                               plan.mode == load::LoadMode::kTraceReplay ? workload.size() : std::nullopt);
    plan.measured_requests.reset();
  }
  if (schedule) cursor = load::make_open_loop_cursor(*schedule, shard.index, shard.count);
  return {};
}

// The open loop at `rate_per_s` as the flags describe it; --arrival's errors name the flag.
core::Result<load::OpenLoopConfig> open_loop_config(const LoadSession::State& s, double rate_per_s) {
  PH_ASSIGN_OR_RETURN(const load::ArrivalProcess process,
                      load::parse_arrival_process(s.flags.arrival).with_context("--arrival"));
  load::OpenLoopConfig open;
  open.rate_per_s = rate_per_s;
  open.process = process;
  open.burstiness = s.flags.burstiness;
  open.ramp_up_ns = s.ramp_ns;
  open.ramp_start_rate_per_s = s.flags.ramp_start_rate;
  open.seed = s.flags.seed;
  return open;
}

// A replay sends the trace's rows once (a shard: rows k, k + N, ...), warm-up first: a warm-up count or time that
// covers all of them leaves nothing to measure, which the run would find only at its end, as "no measured request
// completed; check the target URL". Under mpirun the ranks' rows are measured together: the whole trace counts.
core::Status check_replay_measures(const load::RunPlan& plan, const load::Workload& workload, const LoadSession::State& s) {
  const LoadFlags& f = s.flags;
  const std::optional<std::uint64_t> rows = workload.size();
  if (!rows) return {};
  // The replayed times must fit the nanosecond clock: a 3-hour trace slowed a millionfold does not (it replayed
  // 3 requests as 1). Rows are in time order, so the last is the latest.
  if (*rows > 0) {
    const double last_ns = static_cast<double>(workload.arrival_ns(*rows - 1)) / plan.trace_speedup;
    if (!(last_ns < 9.2e18)) {
      return core::Error{fmt::format("--trace-speedup {}: the arrival trace '{}' would last {:.3g} s, past what the "
                                     "clock holds (292 years); give a larger speedup",
                                     f.trace_speedup, f.dataset, last_ns / 1e9)};
    }
  }
  const std::uint64_t first = s.ranks ? 0 : plan.index_first, stride = s.ranks ? 1 : plan.index_stride;
  for (std::uint64_t i = first; i < *rows; i += stride) {
    if (i >= plan.warmup_requests && load::replay_intended_ns(workload, i, plan.trace_speedup) >= plan.warmup_ns) {
      return {};
    }
  }
  const std::string warmup = f.warmup ? *f.warmup : fmt::format("the default {}", plan.warmup_requests);
  if (stride > 1) {
    return core::Error{fmt::format("--warmup: {} leaves shard {}/{} nothing to measure: it sends rows {}, {}, ... of the "
                                   "{} of the arrival trace '{}', all of them warm-up; give a smaller warm-up",
                                   warmup, s.shard.index, s.shard.count, first, first + stride, *rows, f.dataset)};
  }
  if (plan.warmup_ns > 0) {
    return core::Error{fmt::format("--warmup: {} outlasts the arrival trace '{}' (its last request is sent {} in, at "
                                   "--trace-speedup {}): give a shorter time or a count",
                                   warmup, f.dataset,
                                   core::format_duration_ns(static_cast<double>(
                                       load::replay_intended_ns(workload, *rows - 1, plan.trace_speedup))),
                                   f.trace_speedup)};
  }
  return core::Error{fmt::format("--warmup: {} discards all {} requests of the arrival trace '{}': give --warmup {} or "
                                 "less, or a time",
                                 warmup, *rows, f.dataset, *rows > 1 ? *rows - 1 : 0)};
}

// Rank 0: every rank's share (in rank order, its own first) through `sink` in index order, as if one
// process had measured them all; `outcome` gets the ranks' health merged and `ranks_json` the table of ranks.
core::Status merge_rank_shares(const std::vector<std::string>& packed, const std::vector<mpi::ClockOffset>& clocks,
                               CommandSink& sink, load::RunOutcome& outcome, nlohmann::ordered_json& ranks_json) {
  std::vector<RankShare> shares;
  for (std::size_t r = 0; r < packed.size(); ++r) {
    const auto head = nlohmann::json::parse(packed[r].substr(0, packed[r].find('\n')), nullptr, false);
    if (head.is_object() && head.contains("error")) {
      return core::Error{fmt::format("rank {}: {}", r, head["error"].get<std::string>())};
    }
    PH_ASSIGN_OR_RETURN(RankShare share, unpack_rank_share(packed[r], static_cast<int>(r)));
    shares.push_back(std::move(share));
  }
  std::vector<load::RequestRecord> all;
  std::vector<load::ClientHealth> health;
  ranks_json = nlohmann::ordered_json::array();
  for (std::size_t r = 0; r < shares.size(); ++r) {
    RankShare& share = shares[r];
    const mpi::ClockOffset clock = r < clocks.size() ? clocks[r] : mpi::ClockOffset{};
    ranks_json.push_back({{"rank", r},
                          {"host", clock.host},
                          {"clock_offset_s", core::ns_to_seconds(clock.offset_ns)},
                          {"clock_rtt_s", core::ns_to_seconds(clock.rtt_ns)},
                          {"issued", share.outcome.issued},
                          {"records", share.records.size()},
                          {"stop_reason", share.outcome.stop_reason},
                          {"client", client_json(share.outcome.health)}});
    if (share.outcome.interrupted && !outcome.interrupted) {
      outcome.interrupted = true;
      outcome.stop_reason = fmt::format("rank {}: {}", r, share.outcome.stop_reason);
    }
    if (outcome.stop_reason.empty()) outcome.stop_reason = share.outcome.stop_reason;
    outcome.issued += share.outcome.issued;
    outcome.records += share.outcome.records;
    health.push_back(std::move(share.outcome.health));
    std::move(share.records.begin(), share.records.end(), std::back_inserter(all));
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  for (load::RequestRecord& record : all) sink.on_record(std::move(record));
  outcome.health = load::merge_health(health);
  return {};
}

// Rank 0's answer on every rank (its value, or its error), so no rank waits alone in a collective.
core::Result<std::string> from_rank0(const std::function<core::Result<std::string>()>& ask) {
  std::string packed;
  if (mpi::rank() == 0) {
    const auto answer = ask();
    packed = answer.ok() ? "v" + *answer : "e" + answer.error().message;
  }
  packed = mpi::broadcast(packed);
  if (packed.empty()) return core::Error{"rank 0 sent nothing"};
  if (packed[0] == 'e') return core::Error{packed.substr(1)};
  return packed.substr(1);
}

// Under mpirun: checks every rank got rank 0's command line, takes this rank's shard and measures the clocks.
core::Status join_ranks(LoadSession::State& s, const Context& context) {
  std::string args;
  for (int i = 1; i < context.argc; ++i) args += std::string(context.argv[i]) + '\0';
  const std::vector<std::string> all = mpi::all_gather(args);
  for (std::size_t r = 1; r < all.size(); ++r) {
    if (all[r] != all[0]) {
      return core::Error{fmt::format("mpirun: rank {} was started with other arguments than rank 0; every rank runs the "
                                     "same perfhound command", r)};
    }
  }
  s.ranks = true;
  s.shard = {static_cast<std::uint64_t>(mpi::rank()), static_cast<std::uint64_t>(mpi::size())};
  s.clocks = mpi::measure_clock_offsets(32);
  return {};
}

}  // namespace

LoadSession::LoadSession(std::unique_ptr<State> state) : state_(std::move(state)) {}
LoadSession::~LoadSession() = default;
const core::Conditions& LoadSession::conditions() const { return state_->conditions; }
const load::ClientOptions& LoadSession::client() const { return state_->client; }
const load::Slo& LoadSession::slo() const { return state_->slo; }

core::Result<std::unique_ptr<LoadSession>> LoadSession::open(std::string_view command, const LoadFlags& flags,
                                                             const Context& context) {
  auto s = std::make_unique<State>();
  s->command = command;
  s->flags = flags;
  LoadFlags& f = s->flags;
  s->conditions = core::Conditions::capture(context.argc, context.argv);
  PH_TRY(f.check_target_flags());  // audit --url calls no check_flags_apply
  PH_ASSIGN_OR_RETURN(s->endpoint, load::parse_api_endpoint(f.endpoint).with_context("--endpoint"));
  PH_ASSIGN_OR_RETURN(s->timeout_ns, core::parse_duration_ns(f.timeout).with_context("--timeout"));
  if (s->timeout_ns <= 0) return core::Error{"--timeout: must be positive"};
  PH_TRY(parse_warmup(f.warmup.value_or(std::string(kDefaultWarmup)), s->warmup_requests, s->warmup_ns));
  if (!f.duration.empty()) {
    PH_ASSIGN_OR_RETURN(s->duration_ns, core::parse_duration_ns(f.duration).with_context("--duration"));
    if (s->duration_ns <= 0) return core::Error{"--duration: must be positive"};
  }
  if (!f.ramp_up.empty()) {
    PH_ASSIGN_OR_RETURN(s->ramp_ns, core::parse_duration_ns(f.ramp_up).with_context("--ramp-up"));
  }
  if (f.requests && *f.requests < 1) return core::Error{"--requests: must be at least 1"};
  if (!f.soak.empty()) {
    PH_ASSIGN_OR_RETURN(s->soak_ns, core::parse_duration_ns(f.soak).with_context("--soak"));
    if (s->soak_ns <= 0) return core::Error{"--soak: must be positive, e.g. 2h"};
    if (f.requests || !f.duration.empty()) return core::Error{"--soak: sets the run's length itself; drop --duration / --requests"};
    s->duration_ns = s->soak_ns;
  }
  // Windows: a soak's are fixed (default a thirtieth of it, within 1 s..5 min, so drift has ~30 to judge);
  // a plain run's start at 1 s and double whenever the series would pass 240 windows.
  s->window_ns = s->soak_ns > 0 ? std::clamp<std::int64_t>(s->soak_ns / 30, 1'000'000'000, 300'000'000'000)
                                : 1'000'000'000;
  if (!f.window.empty()) {
    PH_ASSIGN_OR_RETURN(s->window_ns, core::parse_duration_ns(f.window).with_context("--window"));
    if (s->window_ns <= 0) return core::Error{"--window: must be positive, e.g. 60s"};
    if (s->soak_ns > 0 && s->window_ns * 6 > s->soak_ns) {
      return core::Error{fmt::format("--window: {} leaves fewer than 6 windows in --soak {}; drift needs 6", f.window, f.soak)};
    }
  }
  // A trace's times are divided by it: past a million a second of trace is a microsecond, and under a millionth
  // the arrivals' nanoseconds overflow (1e-300 replayed 3 requests as 1, all warm-up).
  if (!(f.trace_speedup >= 1e-6 && f.trace_speedup <= 1e6)) {
    return core::Error{fmt::format("--trace-speedup: must be 1e-06 to 1e+06, got {:g}", f.trace_speedup)};
  }
  if (f.max_concurrency < 0) return core::Error{"--max-concurrency: must be >= 0"};
  if (!f.slo.empty()) {
    PH_ASSIGN_OR_RETURN(s->slo, load::parse_slo(f.slo).with_context("--slo"));
  }
  if (f.confidence && s->slo.empty()) return core::Error{"--confidence: needs --slo (the bound is about an SLO term)"};
  if (!f.compat.empty()) {
    PH_ASSIGN_OR_RETURN(s->compat, load::parse_compat_tool(f.compat));  // its error names --compat
  }
  if (!f.shard.empty()) {
    if (mpi::active()) return core::Error{"--shard: under mpirun each rank's shard is its rank; drop --shard"};
    PH_ASSIGN_OR_RETURN(s->shard, load::parse_shard(f.shard));
  }
  if (mpi::active()) PH_TRY(join_ranks(*s, context));
  if (!f.start_at.empty()) {
    if (s->ranks) return core::Error{"--start-at: under mpirun the ranks start together by themselves; drop --start-at"};
    char* end = nullptr;
    const double at = std::strtod(f.start_at.c_str(), &end);
    const double now = core::ns_to_seconds(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                               std::chrono::system_clock::now().time_since_epoch()).count());
    if (end == f.start_at.c_str() || *end != '\0' || !std::isfinite(at)) {
      return core::Error{fmt::format("--start-at: '{}' is not a time in seconds since the epoch (e.g. $(date -d '+1 min' +%s))", f.start_at)};
    }
    if (at < now - 1) return core::Error{fmt::format("--start-at: {} is {:.0f} s in the past", f.start_at, now - at)};
    if (at > now + 86400) return core::Error{fmt::format("--start-at: {} is more than a day ahead", f.start_at)};
    s->start_at_unix_s = at;
  }
  load::ClientOptions& client = s->client;
  nlohmann::json extra_body = nlohmann::json::object();
  if (!f.extra_body.empty()) {
    extra_body = nlohmann::json::parse(f.extra_body, nullptr, false);
    if (extra_body.is_discarded() || !extra_body.is_object()) {
      return core::Error{fmt::format("--extra-body: '{}' is not a JSON object", f.extra_body)};
    }
  }
  for (const std::string& h : f.headers) {
    PH_ASSIGN_OR_RETURN(auto header, load::parse_header(h).with_context("--header"));
    client.headers.push_back(std::move(header));
  }
  if (!f.api_key_env.empty()) {
    const char* key = std::getenv(f.api_key_env.c_str());
    if (key == nullptr || *key == '\0') {
      return core::Error{fmt::format("--api-key-env: the environment variable {} is not set", f.api_key_env)};
    }
    client.api_key = key;
  }
  // The workload is opened once here so a bad dataset fails before any target is started.
  PH_ASSIGN_OR_RETURN(const auto workload, s->make_workload());
  s->workload_description = workload->describe();
  if (s->ranks) {
    // Every rank builds the workload itself (a dataset file must be on every host): its description and its
    // first prompts must be rank 0's, or the ranks would send different requests under one schedule.
    std::string fingerprint = s->workload_description.dump();
    const std::uint64_t n = std::min<std::uint64_t>(workload->size().value_or(64), 64);
    std::size_t h = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      const load::WorkItem item = workload->item(i);
      h = h * 1'000'003 ^ std::hash<std::string>{}(item.prompt) ^ (static_cast<std::size_t>(item.max_tokens) << 1);
    }
    fingerprint += fmt::format(" {:x}", h);
    const std::vector<std::string> all = mpi::all_gather(fingerprint);
    for (std::size_t r = 1; r < all.size(); ++r) {
      if (all[r] != all[0]) {
        return core::Error{fmt::format("--dataset: rank {} built another workload than rank 0 (its file differs or is "
                                       "missing there); give every host the same dataset", r)};
      }
    }
  }
  if (f.token_ids && s->endpoint != load::ApiEndpoint::kCompletions) {
    return core::Error{"--prompt-token-ids: token ids need --endpoint completions"};
  }

  // The target: the URL, or the embedded simulator on a free loopback port.
  std::string target_description;
  if (f.url.empty() && s->ranks) {
    // One simulator for every rank, on rank 0, reached over loopback: the ranks must share its host.
    for (const mpi::ClockOffset& c : s->clocks) {
      if (c.host != s->clocks[0].host) {
        return core::Error{fmt::format("--url: rank {} runs on {}, not on rank 0's host {}, and the embedded simulator "
                                       "listens on 127.0.0.1 there; give the target's --url",
                                       c.rank, c.host, s->clocks[0].host)};
      }
    }
  }
  double embedded_time_scale = 1.0;
  if (f.url.empty() && !(s->ranks && mpi::rank() != 0)) {
    PH_ASSIGN_OR_RETURN(SimulatedServer sim, f.sim.build());
    sim.config.address = "127.0.0.1";
    sim.config.port = 0;
    sim.config.handle_signals = false;
    PH_ASSIGN_OR_RETURN(s->embedded, serve::HttpServer::create(sim.config, std::move(sim.engine)));
    PH_ASSIGN_OR_RETURN(client.url, load::parse_target_url(fmt::format("http://127.0.0.1:{}", s->embedded->port())));
    target_description = fmt::format("embedded perfhound serve ({}; time scale {})", sim.description, sim.config.time_scale);
    embedded_time_scale = sim.config.time_scale;
    serve::HttpServer* server = s->embedded.get();
    s->embedded_thread = std::thread([server] { server->run(); });
    f.emit_timestamps = true;
  } else if (f.url.empty()) {
    PH_ASSIGN_OR_RETURN(SimulatedServer sim, f.sim.build());  // the description only: rank 0 runs it
    target_description = fmt::format("embedded perfhound serve ({}; time scale {})", sim.description, sim.config.time_scale);
    embedded_time_scale = sim.config.time_scale;
  } else {
    PH_ASSIGN_OR_RETURN(client.url, load::parse_target_url(f.url).with_context("--url"));
    target_description = client.url.text;
  }
  if (embedded_time_scale != 1.0) {
    const double k = embedded_time_scale;
    std::string note = fmt::format("the simulator runs {}x real time: every latency here is wall clock, so simulated "
                                   "latencies are {}x these", k, k);
    // The SLO is written in the simulated server's time (what the real one would answer in); the latencies
    // measured are wall clock. Judged as written, --time-scale 10 would pass an SLO ten times too loose.
    if (!s->slo.empty()) {
      const std::string as_written = s->slo.to_string();
      for (load::SloTerm& term : s->slo.terms) term.threshold_s = std::max(std::round(term.threshold_s / k * 1e9), 1.0) / 1e9;
      note += fmt::format("; the SLO ({}) is judged at wall clock, each threshold divided by {}: {}", as_written, k,
                          s->slo.to_string());
    }
    s->conditions.set("time_scale_note", note);
  }
  if (f.url.empty() && s->ranks) {
    PH_ASSIGN_OR_RETURN(const std::string url, from_rank0([&]() -> core::Result<std::string> { return client.url.text; }));
    PH_ASSIGN_OR_RETURN(client.url, load::parse_target_url(url));
    f.emit_timestamps = true;
  }
  client.timeout_ns = s->timeout_ns;
  client.verify_tls = !f.insecure;
  client.request.endpoint = s->endpoint;
  client.request.include_usage = !f.no_usage;
  client.request.ignore_eos = f.ignore_eos;
  client.request.emit_timestamps = f.emit_timestamps;
  client.request.max_tokens_field = f.max_tokens_field;
  client.request.extra_body = extra_body;
  client.request.model = f.model;
  if (client.request.model.empty()) {
    // Under mpirun rank 0 asks, and every rank sends the same name (or stops with the same error).
    PH_ASSIGN_OR_RETURN(client.request.model,
                        s->ranks ? from_rank0([&] { return load::fetch_first_model(client); }) : load::fetch_first_model(client));
  }

  core::Conditions& c = s->conditions;
  c.set("target", target_description);
  c.set("endpoint", std::string(load::api_endpoint_name(s->endpoint)));
  c.set("model", client.request.model);
  c.set("workload", s->workload_description);
  c.set("seed", f.seed);
  c.set("warmup_discarded", s->warmup_ns > 0 ? fmt::format("{} s", core::ns_to_seconds(s->warmup_ns))
                            : f.warmup      ? fmt::format("{} requests", s->warmup_requests)
                                            : fmt::format("{} requests, or one per slot of a closed loop when more",
                                                          s->warmup_requests));
  c.set("stream_options_include_usage", !f.no_usage);
  c.set("ignore_eos", f.ignore_eos);
  c.set("timeout_s", core::ns_to_seconds(s->timeout_ns));
  c.set("receive_time", client.url.tls ? "when the read returned (https: the kernel cannot stamp decrypted bytes)"
                                       : "the kernel's receive stamp (SO_TIMESTAMPNS), else when the read returned");
  if (!s->slo.empty()) c.set("slo", s->slo.to_string());
  if (!s->shard.whole() && !s->ranks) c.set("shard", fmt::format("{}/{}", s->shard.index, s->shard.count));
  if (s->start_at_unix_s) c.set("start_at_unix_s", *s->start_at_unix_s);
  if (s->ranks) {
    auto clients = nlohmann::ordered_json::array();
    for (const mpi::ClockOffset& k : s->clocks) {
      clients.push_back({{"rank", k.rank}, {"host", k.host}, {"clock_offset_s", core::ns_to_seconds(k.offset_ns)},
                         {"clock_rtt_s", core::ns_to_seconds(k.rtt_ns)}});
    }
    c.set("mpi_ranks", static_cast<std::int64_t>(s->clocks.size()));
    c.set("mpi_clocks", clients);
    c.set("mpi_note", "each rank sends every N-th request of the one schedule from a common start (rank 0's clock, "
                      "offsets by ping-pong); latencies are measured on the rank that sent the request, so clock "
                      "offsets never enter them");
  }
  // What the client cannot measure about the target (its precision, hardware, framework and version), as the
  // user states it: seed §7 wants every number to travel with them. perfhound's own keys are not overridable.
  for (const std::string& stated : f.stated_conditions) {
    const auto eq = stated.find('=');
    const std::string key = stated.substr(0, eq);
    const bool snake = !key.empty() && std::all_of(key.begin(), key.end(), [](char ch) {
      return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
    });
    if (eq == std::string::npos || !snake || eq + 1 == stated.size()) {
      return core::Error{fmt::format("--condition '{}': expected KEY=VALUE with a snake_case key, e.g. precision=fp8", stated)};
    }
    if (c.has(key)) {
      return core::Error{fmt::format("--condition {}: perfhound records '{}' itself (or it was given twice)", key, key)};
    }
    c.set(key, stated.substr(eq + 1));
  }
  return std::unique_ptr<LoadSession>(new LoadSession(std::move(s)));
}

core::Status LoadSession::check_open_loop(double rate_per_s) const {
  PH_ASSIGN_OR_RETURN(const load::OpenLoopConfig open, open_loop_config(*state_, rate_per_s));
  const auto schedule = load::ArrivalSchedule::create(open);
  if (!schedule.ok()) return schedule.error();
  return {};
}

core::Result<LoadRun> LoadSession::run(const LoadLevel& level, const std::string& records_path, std::ostream& err,
                                      bool show_progress) {
  State& s = *state_;
  const LoadFlags& f = s.flags;
  PH_TRY(check_load_level(level));
  PH_ASSIGN_OR_RETURN(const auto workload, s.make_workload());
  const bool replay = f.replays(level);

  // --- plan
  load::RunPlan plan;
  plan.warmup_requests = s.warmup_requests;
  plan.warmup_ns = s.warmup_ns;
  plan.duration_ns = s.duration_ns;
  plan.max_concurrency = f.max_concurrency;
  plan.trace_speedup = f.trace_speedup;
  plan.measured_requests = f.requests;
  if (!f.requests && s.duration_ns == 0 && !replay) plan.measured_requests = 100;
  std::optional<load::ArrivalSchedule> schedule;
  std::unique_ptr<load::ArrivalCursor> cursor;
  std::string load_description;
  if (level.rate) {
    PH_ASSIGN_OR_RETURN(const load::OpenLoopConfig open, open_loop_config(s, *level.rate));
    const load::ArrivalProcess process = open.process;
    PH_ASSIGN_OR_RETURN(schedule, load::ArrivalSchedule::create(open));  // its errors name the flag
    plan.mode = load::LoadMode::kOpenLoop;
    // The runner asks for arrivals 0, 1, 2, ... in order: a cursor walks the process in O(1) each.
    cursor = load::make_open_loop_cursor(*schedule);
    plan.intended_ns = [&cursor](std::uint64_t) { return cursor->next()->intended_ns; };
    // Six digits: sweep --rate auto's rates read 1025.37, not 1025.3694976108707
    load_description = fmt::format("open loop, {:.6g} req/s {}", *level.rate, f.arrival);
    if (process == load::ArrivalProcess::kGamma) load_description += fmt::format(" (burstiness {})", f.burstiness);
    if (f.max_concurrency > 0) load_description += fmt::format(", max concurrency {}", f.max_concurrency);
  } else if (replay) {
    plan.mode = load::LoadMode::kTraceReplay;
    load_description = fmt::format("arrival-trace replay at {}x", f.trace_speedup);
  } else {
    plan.mode = load::LoadMode::kClosedLoop;
    plan.concurrency = level.concurrency.value_or(1);
    // The first `concurrency` requests leave at once, each on a new connection to a cold server: a warm-up
    // of fewer would leave measured requests among them. The default covers every slot; a given count is
    // kept, and cold-slots says what it costs.
    if (!f.warmup && s.warmup_ns == 0) {
      plan.warmup_requests = std::max<std::uint64_t>(plan.warmup_requests, static_cast<std::uint64_t>(plan.concurrency));
    }
    plan.ramp_up_ns = s.ramp_ns;
    load_description = fmt::format("closed loop, concurrency {}", plan.concurrency);
  }
  const bool open_loop = plan.mode != load::LoadMode::kClosedLoop;
  PH_TRY(apply_shard(s, plan, schedule, cursor, *workload));
  if (plan.mode == load::LoadMode::kTraceReplay) PH_TRY(check_replay_measures(plan, *workload, s));
  if (!s.shard.whole() && !s.ranks) load_description += fmt::format(", shard {}/{} of it", s.shard.index, s.shard.count);
  if (s.ranks) load_description += fmt::format(" over {} ranks", s.shard.count);
  const load::LatencyStart start = open_loop ? load::LatencyStart::kIntended : load::LatencyStart::kSent;
  core::Conditions conditions = s.conditions;
  conditions.set("load", load_description);
  conditions.set("latency_from", open_loop ? "intended send time" : "actual send time");

  // --- run
  // The records file: this process's, or under mpirun the merged one, which rank 0 fills once every rank's
  // records are in (each rank streams its own to a file of its own as they finish: rank_records_path).
  const bool rank0 = mpi::rank() == 0;
  std::optional<load::RecordWriter> writer, rank_writer;
  if (!records_path.empty()) {
    PH_ASSIGN_OR_RETURN(const load::RecordFormat format, load::record_format_for_path(records_path).with_context("--records"));
    if (rank0) {
      PH_ASSIGN_OR_RETURN(writer, load::RecordWriter::open(records_path, format, conditions.to_json()).with_context("--records"));
    }
    if (s.ranks) {
      core::Conditions own = conditions;
      own.set("shard", fmt::format("{}/{}", s.shard.index, s.shard.count));
      PH_ASSIGN_OR_RETURN(rank_writer, load::RecordWriter::open(rank_records_path(records_path, mpi::rank()), format,
                                                                own.to_json())
                                           .with_context("--records"));
    }
  }
  const load::Slo& slo = s.slo;
  load::LoadMetricsTracker tracker(slo.empty() ? load::GoodputPredicate{}
                                               : [slo](const load::RequestLatencies& l) { return slo.met_by(l); });
  std::vector<GateCounter> gates;
  for (const load::SloTerm& term : slo.terms) gates.push_back(GateCounter{term, load::SampleTracker(), 0, 0});
  const bool soak = s.soak_ns > 0;
  // A soak's windows never merge: room for the soak plus the drain (at most a timeout, or the soak again).
  const std::size_t max_windows =
      soak ? static_cast<std::size_t>((s.soak_ns + std::min(s.timeout_ns, s.soak_ns) + s.warmup_ns) / s.window_ns) + 2
           : load::kDefaultMaxWindows;
  load::WindowSeries windows(start, s.window_ns, max_windows, /*fixed=*/soak);
  CommandSink sink(tracker, windows, writer ? &*writer : nullptr, gates, start, show_progress ? &err : nullptr,
                   plan.measured_requests.value_or(0) + plan.warmup_requests);
  const load::ClientOptions& client = s.client;
  err << fmt::format("perfhound {}: {} -> {} ({}), model '{}'\n", s.command, load_description, client.url.text,
                     load::api_endpoint_name(s.endpoint), client.request.model);
  std::optional<load::MetricsScraper> scraper;
  if (soak && f.metrics_path != "none" && rank0) {
    scraper.emplace(client, client.url.base_path + f.metrics_path, s.window_ns);
  }
  load::RunOutcome outcome;
  std::string write_problem;
  nlohmann::ordered_json ranks_json;
  if (!s.ranks) {
    if (s.start_at_unix_s) {
      std::this_thread::sleep_until(std::chrono::system_clock::time_point(std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::duration<double>(*std::exchange(s.start_at_unix_s, std::nullopt)))));
    }
    PH_ASSIGN_OR_RETURN(outcome, load::run_load(client, plan, *workload, sink));
    write_problem = sink.write_error();
  } else {
    // This rank's share, aggregated locally only for its progress line; its records go to rank 0.
    load::LoadMetricsTracker own_tracker;
    load::WindowSeries own_windows(start, s.window_ns, max_windows, soak);
    std::vector<GateCounter> own_gates;
    std::vector<load::RequestRecord> kept;
    CommandSink own(own_tracker, own_windows, rank_writer ? &*rank_writer : nullptr, own_gates, start,
                    show_progress && rank0 ? &err : nullptr, 0, &kept);
    mpi::start_together(s.clocks, kStartLeadNs);
    auto ran = load::run_load(client, plan, *workload, own);
    // Every rank meets the gather, a failed one too (with nothing), so none waits alone.
    const std::vector<std::string> shares =
        mpi::gather(ran.ok() ? pack_rank_share(kept, *ran) : std::string("{\"error\":") + nlohmann::json(ran.error().message).dump() + "}");
    if (rank_writer) (void)rank_writer->close();
    if (!rank0) {
      PH_ASSIGN_OR_RETURN(LoadRun merged, unpack_load_run(mpi::broadcast("")));
      return merged;
    }
    auto merged = merge_rank_shares(shares, s.clocks, sink, outcome, ranks_json);
    if (!merged.ok()) {
      (void)mpi::broadcast("");  // the other ranks wait for the run: they get none and fail too
      return merged.error();
    }
    write_problem = sink.write_error();
    if (rank_writer && !own.write_error().empty() && write_problem.empty()) write_problem = own.write_error();
  }
  const load::ScrapeOutcome scraped = scraper ? scraper->stop() : load::ScrapeOutcome{};
  sink.end_progress();
  if (writer) {
    const core::Status closed = writer->close();
    if (!closed.ok() && write_problem.empty()) write_problem = closed.error().message;
  }

  // --- figures, validity, gate
  const load::LoadSummary summary = tracker.summary();
  const load::ClientHealth& health = outcome.health;
  const auto p99_s = [](const core::LogHistogram& h) {
    return h.total_count() > 0 ? static_cast<double>(h.value_at_percentile(99)) / 1e9 : 0.0;
  };
  // The second largest sample: the nearest rank n - 1 of n
  const auto second_s = [](const core::LogHistogram& h) {
    const auto n = static_cast<double>(h.total_count());
    return n >= 2 ? static_cast<double>(h.value_at_percentile(100.0 * (n - 1.5) / n)) / 1e9 : 0.0;
  };
  load::ValidityInputs vin;
  vin.open_loop = open_loop;
  vin.dispatch_lag_p99_s = p99_s(health.dispatch_lag_ns);
  vin.dispatch_lag_samples = static_cast<std::uint64_t>(health.dispatch_lag_ns.total_count());
  vin.dispatch_lag_second_s = second_s(health.dispatch_lag_ns);
  vin.loop_lag_p99_s = p99_s(health.loop_lag_ns);
  vin.loop_lag_samples = static_cast<std::uint64_t>(health.loop_lag_ns.total_count());
  vin.loop_lag_second_s = second_s(health.loop_lag_ns);
  const std::int64_t reads = health.receive.stamped_reads + health.receive.unstamped_reads;
  vin.stamped_read_share = reads > 0 ? static_cast<double>(health.receive.stamped_reads) / static_cast<double>(reads) : 0.0;
  vin.client_cpu_ratio = health.cpu_ratio;
  vin.emit_delay_measured = health.emit_delay_ns.total_count() > 0;
  vin.emit_delay_p99_s = p99_s(health.emit_delay_ns);
  vin.emit_delay_samples = static_cast<std::uint64_t>(health.emit_delay_ns.total_count());
  vin.emit_delay_second_s = second_s(health.emit_delay_ns);
  vin.ttft_p50_s = summary.latencies(start).ttft_s.p50;
  vin.completed = summary.completed;
  const load::Validity validity = load::evaluate_validity(vin);
  std::vector<load::SloTermVerdict> verdicts;
  for (const GateCounter& g : gates) {
    const double observed = g.values.percentile(g.term.percentile);
    verdicts.push_back(load::evaluate_slo_term(g.term, observed, g.n, g.over, f.confidence));
  }
  LoadRun run;
  run.slo_passed = std::all_of(verdicts.begin(), verdicts.end(), [](const auto& v) { return v.passed(); });
  run.valid = validity.valid;
  run.client_limited = validity.client_limited;
  run.interrupted = outcome.interrupted;

  std::vector<core::Diagnostic>& diagnostics = run.diagnostics;
  for (const auto& r : validity.reasons) {
    if (validity.client_limited && r.what.starts_with("client-limited")) {
      diagnostics.push_back({&core::kClientLimited, r.what});
    }
  }
  for (const auto& w : validity.warnings) diagnostics.push_back({&core::kClientBusy, w.what});
  for (const auto& w : validity.few_sample_warnings) diagnostics.push_back({&core::kFewSamplesForTail, w.what});
  if (summary.failed > 0) {
    diagnostics.push_back({&core::kRequestsFailed, fmt::format("{} of {} measured requests failed", summary.failed,
                                                               summary.completed + summary.failed)});
  }
  if (outcome.interrupted) diagnostics.push_back({&core::kPartialRun, outcome.stop_reason});
  if (auto few = load::check_tail_samples(summary, start)) diagnostics.push_back(*std::move(few));
  for (const GateCounter& g : gates) {
    if (auto few = load::check_gate_samples(g.term, g.values.count())) diagnostics.push_back(*std::move(few));
  }
  if (summary.output_tokens_from_usage == 0 && summary.completed > 0) {
    diagnostics.push_back({&core::kTokensCounted, "no request carried a usage block"});
  }
  if (auto together = load::check_chunk_delivery(summary)) diagnostics.push_back(*std::move(together));
  if (s.warmup_requests == 0 && s.warmup_ns == 0) {
    diagnostics.push_back({&core::kNoWarmupDiscarded, "--warmup 0: connection setup is inside the first requests"});
  }
  if (!open_loop) {
    // This client's share (a rank's or a shard's: apply_shard divides both)
    const auto slots = static_cast<std::uint64_t>(plan.concurrency);
    const std::uint64_t measured = summary.completed + summary.failed;
    if (s.warmup_ns == 0 && plan.warmup_requests > 0 && plan.warmup_requests < slots) {
      diagnostics.push_back({&core::kColdSlots, fmt::format("a warm-up of {} requests for {} slots: {} measured "
                                                            "requests left with it, on new connections",
                                                            plan.warmup_requests, slots,
                                                            std::min(slots - plan.warmup_requests, measured))});
    }
    // Under mpirun the summary covers every rank's requests (merged): against the whole concurrency. A --shard
    // run's covers its own share: against its share of the slots.
    const auto all_slots = s.ranks ? static_cast<std::uint64_t>(level.concurrency.value_or(1)) : slots;
    if (measured > 0 && measured < all_slots) {
      diagnostics.push_back({&core::kConcurrencyNotReached,
                             fmt::format("{} measured requests for {} slots: at most {} were in flight, not {}",
                                         measured, all_slots, measured, all_slots)});
    }
  }
  const std::vector<load::WindowFigures> series = windows.windows();
  std::optional<load::DriftReport> drift;
  if (soak) {
    // The first window holds the ramp from warm-up and the last the drain after the schedule ends: neither is
    // steady load, and a drain's partial rate would read as decay.
    const std::span<const load::WindowFigures> steady =
        series.size() > 2 ? std::span(series).subspan(1, series.size() - 2) : std::span<const load::WindowFigures>{};
    drift = load::detect_drift(steady, scraped.samples);
    for (const auto& finding : drift->findings) diagnostics.push_back({&core::kSoakDrift, finding.detail});
    run.drift_found = !drift->findings.empty();
  }

  // --- output
  nlohmann::ordered_json result = nlohmann::ordered_json::object();
  result["status"] = validity.valid ? "VALID" : "INVALID";
  result["client_limited"] = validity.client_limited;
  result["partial"] = outcome.interrupted;
  result["stop_reason"] = outcome.stop_reason;
  auto reasons = nlohmann::ordered_json::array();
  for (const auto& r : validity.reasons) reasons.push_back({{"reason", r.what}, {"remedy", r.remedy}});
  result["invalid_reasons"] = reasons;
  result["summary"] = load::to_json(summary);
  result["client"] = client_json(health);
  if (!verdicts.empty()) {
    auto gate = nlohmann::ordered_json::array();
    for (const auto& v : verdicts) gate.push_back(load::to_json(v));
    result["slo_gate"] = {{"passed", run.slo_passed}, {"terms", gate}};
  }
  if (s.compat) result["compat"] = load::to_json(*s.compat, load::compat_view(summary, *s.compat));
  result["window_s"] = core::ns_to_seconds(windows.window_ns());
  result["windows"] = load::to_json(series);
  if (drift) result["soak"] = soak_json(*drift, scraped, s.soak_ns, windows.window_ns());
  if (!ranks_json.is_null()) result["ranks"] = ranks_json;
  if (!records_path.empty()) result["records_file"] = records_path;
  if (!write_problem.empty()) result["records_error"] = write_problem;
  run.document = report::make_json_document("load", conditions, result, core::diagnostics_to_json(diagnostics));
  run.text = render_text(summary, health, validity, verdicts, outcome, open_loop, client, load_description);
  if (!write_problem.empty()) run.text += fmt::format("records: {}: {}\n", records_path, write_problem);
  if (s.compat) run.text += render_compat(load::compat_view(summary, *s.compat), f.compat);
  if (drift) run.text += render_soak(series, *drift, scraped);
  run.text += conditions_block(conditions);
  if (s.ranks) (void)mpi::broadcast(pack_load_run(run));
  return run;
}

}  // namespace perfhound::cli
