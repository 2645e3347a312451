#include "cli/audit_command.h"

#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <sstream>

#include "audit/audit_rules.h"
#include "audit/claim_importer.h"
#include "cli/audit_live.h"
#include "cli/number_checks.h"
#include "cli/output.h"
#include "core/conditions.h"
#include "core/text_file.h"
#include "core/units.h"
#include "report/json_document.h"
#include "report/table_writer.h"

namespace perfhound::cli {
namespace {

std::string or_unstated(const std::optional<std::string>& s) { return s ? *s : "(not stated)"; }

std::string tokens(const std::optional<double>& v) {
  return v ? fmt::format("{:g}", std::round(*v * 10) / 10) : std::string("?");
}

class AuditCommand final : public Command {
 public:
  std::string_view name() const override { return "audit"; }
  std::string_view summary() const override {
    return "Check a benchmark claim (perfhound result, vllm bench serve / genai-perf export, claim file) against the "
           "honest-benchmarking rules";
  }

  void add_flags(CLI::App& app) override {
    app.add_option("file", path_,
                   "The claim: a perfhound result JSON, a vllm bench serve --save-result JSON, a genai-perf "
                   "profile_export_genai_perf.json, or a claim file (.json, .yaml; docs/audit.md). '-' for stdin (JSON)");
    app.add_flag("--list-rules", list_rules_, "Print every rule (id, severity, seed section, meaning, remedy) and exit");
    add_output_flags(app, output_);
    const std::size_t file_mode_options = app.get_options().size();
    // Live checks of an endpoint (--url), or of the embedded perfhound serve (--live, with its --sim-* flags).
    target_.add_target_to(app);
    app.add_flag("--live", live_, "Run the live checks against the embedded perfhound serve (--sim-* flags) instead of a --url");
    app.add_option("--requests", live_options_.requests, "Live: measured requests of each of the three runs")->default_val(32);
    app.add_option("--concurrency", live_options_.concurrency, "Live: requests in flight in the stream runs")->default_val(4);
    app.add_option("--input-len", live_options_.input_len, "Live: prompt tokens of the stream runs")->default_val(256);
    app.add_option("--output-len", live_options_.output_len, "Live: max_tokens of the stream runs")->default_val(64);
    app.add_option("--cache-input-len", live_options_.cache_input_len, "Live: prompt tokens of the repeated-prompt run")
        ->default_val(1024);
    app.add_option("--warmup", live_options_.warmup, "Live: requests discarded before each run")->default_val(2);
    app.add_option("--seed", target_.seed, "Live: seed of the prompts (the seed check uses it and the next)")->default_val(0)
        ->check(whole_number_in(0));
    // Every flag from the target's on is the live checks': auditing a FILE would drop them without a word.
    const std::vector<CLI::Option*> options = app.get_options();
    live_flags_.assign(options.begin() + static_cast<std::ptrdiff_t>(file_mode_options), options.end());
  }

  core::Result<int> run(const Context& context) override {
    PH_TRY(check_not_an_input("-o", output_.output_path, {path_}));
    core::Conditions conditions = core::Conditions::capture(context.argc, context.argv);
    if (list_rules_) {
      if (!path_.empty() || live_ || !target_.url.empty()) {
        return core::Error{"--list-rules lists the rules and audits nothing: drop the FILE, --live or --url"};
      }
      PH_TRY(check_no_live_flags("listing the rules"));
      const auto document = report::make_json_document("audit", conditions, {{"rules", audit::rules_to_json()}});
      PH_TRY(emit_result(context, output_, document, render_rules()));
      return kExitOk;
    }
    if (live_ || !target_.url.empty()) {
      if (!path_.empty()) return core::Error{fmt::format("give a FILE or --url / --live, not both (got '{}')", path_)};
      return run_live_audit(target_, live_options_, context, output_);
    }
    if (path_.empty()) return core::Error{"give the FILE to audit, --url URL for the live checks, or --list-rules"};
    PH_TRY(check_no_live_flags(fmt::format("auditing '{}'", path_)));
    PH_ASSIGN_OR_RETURN(const std::string text, read_input());
    PH_ASSIGN_OR_RETURN(const audit::Claim claim, audit::import_claim(path_ == "-" ? "<stdin>" : path_, text));
    const std::vector<audit::Finding> findings = audit::audit_claim(claim);
    const bool failed = audit::has_severe(findings);

    conditions.set("input", path_);
    conditions.set("format", claim.format);
    conditions.set("rules", static_cast<std::int64_t>(audit::all_audit_rules().size()));
    nlohmann::ordered_json result;
    result["verdict"] = failed ? "FAIL" : "PASS";
    result["counts"] = counts_json(findings);
    result["findings"] = audit::findings_to_json(findings);
    result["claim"] = audit::claim_to_json(claim);
    const auto document = report::make_json_document("audit", conditions, result);
    PH_TRY(emit_result(context, output_, document, render(claim, findings, failed, conditions)));
    return failed ? kExitCheckFailed : kExitOk;
  }

 private:
  // A live-check flag given where nothing is sent (`doing`: "auditing 'r.json'"): refused, not dropped.
  core::Status check_no_live_flags(const std::string& doing) const {
    for (const CLI::Option* flag : live_flags_) {
      if (flag->count() > 0) {
        return core::Error{fmt::format("{}: a flag of the live checks; {} sends nothing (give --url or --live to run "
                                       "them)", flag->get_name(false, false), doing)};
      }
    }
    return core::Status::success();
  }

  core::Result<std::string> read_input() const {
    std::ostringstream buffer;
    if (path_ == "-") {
      buffer << std::cin.rdbuf();
      return buffer.str();
    }
    return core::read_text_file(path_);
  }

  static nlohmann::ordered_json counts_json(const std::vector<audit::Finding>& findings) {
    std::int64_t severe = 0, warning = 0, info = 0;
    for (const auto& f : findings) {
      switch (f.rule->severity) {
        case core::Severity::kSevere: ++severe; break;
        case core::Severity::kWarning: ++warning; break;
        case core::Severity::kInfo: ++info; break;
      }
    }
    return {{"severe", severe}, {"warning", warning}, {"info", info}};
  }

  static std::string render_rules() {
    report::TableWriter table({{"rule", report::Align::kLeft}, {"severity", report::Align::kLeft}, {"seed", report::Align::kLeft}});
    std::string details;
    for (const audit::AuditRule* r : audit::all_audit_rules()) {
      table.add_row({std::string(r->id), std::string(core::severity_name(r->severity)), std::string(r->seed)});
      details += fmt::format("\n{}: {}.\n  remedy: {}.\n", r->id, r->meaning, r->remedy);
    }
    return "perfhound audit rules (docs/audit.md)\n\n" + table.render() + details;
  }

  static std::string render(const audit::Claim& claim, const std::vector<audit::Finding>& findings, bool failed,
                            const core::Conditions& conditions) {
    std::string out = fmt::format("perfhound audit: '{}' ({})\n", claim.path, claim.format);
    if (!claim.statement.empty()) out += fmt::format("claim: {}\n", claim.statement);
    if (!claim.metric.empty() && claim.value) out += fmt::format("headline: {} = {:g}\n", claim.metric, *claim.value);
    const auto& c = claim.conditions;
    out += "\nas stated:\n";
    report::TableWriter t({{"condition", report::Align::kLeft}, {"value", report::Align::kLeft}});
    t.add_row({"model", or_unstated(c.model)});
    t.add_row({"precision", or_unstated(c.precision)});
    t.add_row({"hardware", or_unstated(c.hardware)});
    t.add_row({"framework", c.framework || c.framework_version
                                ? fmt::format("{} {}", c.framework.value_or("?"), c.framework_version.value_or("(no version)"))
                                : std::string("(not stated)")});
    t.add_row({"batch / load", c.batch ? fmt::format("batch {:g}", *c.batch) : !c.load.empty() ? c.load : "(not stated)"});
    t.add_row({"lengths (tokens)", c.input_len || c.output_len
                                       ? fmt::format("{} in / {} out", tokens(c.input_len), tokens(c.output_len))
                                       : std::string("(not stated)")});
    t.add_row({"warm-up", claim.warmup.empty() ? (claim.warmup_discarded ? (*claim.warmup_discarded ? "yes" : "none") : "(not stated)")
                                               : claim.warmup});
    out += t.render();

    std::int64_t severe = 0;
    for (const auto& f : findings) severe += f.rule->severity == core::Severity::kSevere ? 1 : 0;
    out += fmt::format("\n{} finding{} ({} severe){}\n", findings.size(), findings.size() == 1 ? "" : "s", severe,
                       findings.empty() ? "" : ":");
    for (const auto& f : findings) {
      out += fmt::format("  {:<7} [{}] {} ({})\n          remedy: {}\n", core::severity_name(f.rule->severity), f.rule->id,
                         f.what, f.rule->seed, f.remedy_text());
    }
    if (!claim.notes.empty()) {
      out += "\nnotes:\n";
      for (const auto& n : claim.notes) out += "  " + n + "\n";
    }
    out += fmt::format("\nverdict: {}\n", failed ? "FAIL (a severe finding: the claim would not survive scrutiny as stated)"
                                                 : findings.empty() ? "PASS (no finding)" : "PASS (no severe finding)");
    out += conditions_block(conditions);
    return out;
  }

  std::string path_;
  bool list_rules_ = false, live_ = false;
  LoadFlags target_;
  LiveAuditOptions live_options_;
  std::vector<const CLI::Option*> live_flags_;  // the live checks' flags, refused beside a FILE
  OutputOptions output_;
};

}  // namespace

std::unique_ptr<Command> make_audit_command() { return std::make_unique<AuditCommand>(); }

}  // namespace perfhound::cli
