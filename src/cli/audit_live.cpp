#include "cli/audit_live.h"

#include <fmt/format.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "audit/live_checks.h"
#include "load/length_distribution.h"
#include "load/load_runner.h"
#include "load/workload.h"
#include "report/json_document.h"
#include "report/table_writer.h"

namespace perfhound::cli {
namespace {

class CollectingSink final : public load::RecordSink {
 public:
  void on_record(load::RequestRecord&& record) override { records.push_back(std::move(record)); }
  std::vector<load::RequestRecord> records;
};

// TEST04's workload: even requests repeat one prompt (the prompt of index 0), odd ones each get their own, all of
// the same length; sent one at a time, so the two alternate and share the server's state and drift.
class RepeatedPromptWorkload final : public load::Workload {
 public:
  RepeatedPromptWorkload(std::uint64_t seed, std::int64_t input_tokens, std::int64_t max_tokens)
      : seed_(seed), input_tokens_(input_tokens), max_tokens_(max_tokens) {}
  load::WorkItem item(std::uint64_t index) const override {
    load::WorkItem w;
    w.prompt = load::synthetic_prompt(seed_, is_repeat(index) ? 0 : index, input_tokens_);
    w.input_tokens = input_tokens_;
    w.max_tokens = max_tokens_;
    return w;
  }
  std::optional<std::uint64_t> size() const override { return std::nullopt; }
  nlohmann::ordered_json describe() const override {
    return {{"kind", "repeated-prompt"}, {"input_len", input_tokens_}, {"output_len", max_tokens_}, {"seed", seed_},
            {"repeat", "even indices send the prompt of index 0; odd ones a distinct prompt"}};
  }
  static bool is_repeat(std::uint64_t index) { return index % 2 == 0; }

 private:
  std::uint64_t seed_;
  std::int64_t input_tokens_, max_tokens_;
};

core::Result<std::vector<load::RequestRecord>> run_one(const load::ClientOptions& client, const load::Workload& workload,
                                                       std::int64_t concurrency, std::int64_t requests, std::int64_t warmup,
                                                       std::string_view what, std::ostream& err) {
  err << fmt::format("perfhound audit: {}: {} requests ({} warm-up), concurrency {} -> {}\n", what, requests + warmup,
                     warmup, concurrency, client.url.text);
  load::RunPlan plan;
  plan.mode = load::LoadMode::kClosedLoop;
  plan.concurrency = concurrency;
  plan.warmup_requests = static_cast<std::uint64_t>(warmup);
  plan.measured_requests = static_cast<std::uint64_t>(requests);
  CollectingSink sink;
  PH_ASSIGN_OR_RETURN(const load::RunOutcome outcome, load::run_load(client, plan, workload, sink));
  if (outcome.interrupted) return core::Error{fmt::format("{}: interrupted", what)};
  return std::move(sink.records);
}

std::string render(const std::vector<audit::LiveCheck>& checks, bool passed, const core::Conditions& conditions) {
  report::TableWriter table({{"check", report::Align::kLeft}, {"MLPerf", report::Align::kLeft}, {"result", report::Align::kLeft}});
  std::string details;
  for (const auto& c : checks) {
    table.add_row({std::string(c.id), std::string(c.mlperf), c.passed ? "pass" : "FAIL"});
    details += fmt::format("  {}: {}\n", c.id, c.what);
  }
  return fmt::format("perfhound audit: live checks\n\n{}\n{}\nverdict: {}\n{}", table.render(), details,
                     passed ? "PASS (every check passed)" : "FAIL (a check failed or could not be judged)",
                     conditions_block(conditions));
}

}  // namespace

core::Result<int> run_live_audit(const LoadFlags& target, const LiveAuditOptions& o, const Context& context,
                                 const OutputOptions& output) {
  for (const auto& [value, flag] : {std::pair{o.requests, "--requests"}, {o.concurrency, "--concurrency"},
                                    {o.input_len, "--input-len"}, {o.output_len, "--output-len"},
                                    {o.cache_input_len, "--cache-input-len"}}) {
    if (value < 1) return core::Error{fmt::format("{}: must be at least 1, got {}", flag, value)};
  }
  for (const auto& [value, flag] : {std::pair{o.input_len, "--input-len"}, {o.output_len, "--output-len"},
                                    {o.cache_input_len, "--cache-input-len"}}) {
    if (value > load::kMaxLengthTokens) {
      return core::Error{fmt::format("{}: at most {} tokens, got {}", flag, load::kMaxLengthTokens, value)};
    }
  }
  if (o.concurrency > load::kMaxConcurrency) {
    return core::Error{fmt::format("--concurrency: at most {}, got {}", load::kMaxConcurrency, o.concurrency)};
  }
  if (o.requests < 8) return core::Error{fmt::format("--requests: the intervals need at least 8, got {}", o.requests)};
  if (o.warmup < 0) return core::Error{fmt::format("--warmup: must be 0 or more, got {}", o.warmup)};
  if (o.output_len < 2) return core::Error{fmt::format("--output-len: TPOT needs at least 2 tokens, got {}", o.output_len)};
  PH_ASSIGN_OR_RETURN(const std::unique_ptr<LoadSession> session, LoadSession::open("audit", target, context));
  const load::ClientOptions& client = session->client();
  std::ostream& err = *context.err;
  const std::uint64_t seed = target.seed;

  // TEST04: one at a time, same and distinct prompts alternating, 4 output tokens (only TTFT is read).
  const RepeatedPromptWorkload repeated(seed, o.cache_input_len, 4);
  PH_ASSIGN_OR_RETURN(auto cache_records, run_one(client, repeated, 1, o.requests, o.warmup, "repeated-prompt", err));
  std::vector<load::RequestRecord> same, distinct;
  for (auto& r : cache_records) (RepeatedPromptWorkload::is_repeat(r.index) ? same : distinct).push_back(std::move(r));

  // TEST06 and TEST09 on the first seed's run; TEST05 against a second seed's.
  const auto stream_workload = [&](std::uint64_t s) {
    return load::make_synthetic_workload(load::LengthDistribution::fixed(o.input_len),
                                         load::LengthDistribution::fixed(o.output_len), s, false);
  };
  PH_ASSIGN_OR_RETURN(auto first, run_one(client, *stream_workload(seed), o.concurrency, o.requests, o.warmup,
                                          fmt::format("streams, seed {}", seed), err));
  PH_ASSIGN_OR_RETURN(auto second, run_one(client, *stream_workload(seed + 1), o.concurrency, o.requests, o.warmup,
                                           fmt::format("streams, seed {}", seed + 1), err));

  const std::vector<audit::LiveCheck> checks = {
      audit::judge_repeated_prompt(same, distinct), audit::judge_stream_accounting(first),
      audit::judge_output_length(first, client.request.ignore_eos), audit::judge_seed_stability(first, second)};
  bool passed = true;
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const auto& c : checks) {
    passed = passed && c.passed;
    results.push_back(audit::live_check_to_json(c));
  }

  core::Conditions conditions = session->conditions();
  conditions.set("audit", "live");
  // The session's defaults for a load run do not describe these runs: "runs" does.
  conditions.set("workload", "synthetic prompts of fixed lengths (see runs)");
  conditions.set("warmup_discarded", fmt::format("{} requests before each run", o.warmup));
  conditions.set("runs", fmt::format("repeated-prompt: {} requests of {} tokens in, 4 out, one at a time; streams: {} requests "
                                     "of {} in / {} out at concurrency {}, seeds {} and {}; {} warm-up requests before each",
                                     o.requests, o.cache_input_len, o.requests, o.input_len, o.output_len, o.concurrency,
                                     seed, seed + 1, o.warmup));
  nlohmann::ordered_json result;
  result["verdict"] = passed ? "PASS" : "FAIL";
  result["checks"] = std::move(results);
  const auto document = report::make_json_document("audit", conditions, result);
  PH_TRY(emit_result(context, output, document, render(checks, passed, conditions)));
  return passed ? kExitOk : kExitCheckFailed;
}

}  // namespace perfhound::cli
