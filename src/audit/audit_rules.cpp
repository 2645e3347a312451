#include "audit/audit_rules.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/percentile.h"
#include "core/units.h"
#include "hw/chip_spec.h"

namespace perfhound::audit {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::array<const AuditRule*, 17> kRules{
    &kConditionsMissing, &kThroughputWithoutLatency, &kMeanWithoutTail,   &kNoWarmup,
    &kUnrealisticLengths, &kSpecSheetRoof,           &kSparsePeakRoof,    &kPrecisionMismatch,
    &kBaselineConditionsDiffer, &kSingleRun,         &kFewSamplesForTail, &kUnboundedLoad,
    &kRequestsFailed,    &kSourceInvalid,            &kUtilizationAsEfficiency, &kDecodeJudgedByMfu,
    &kUnsynchronizedTiming};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Letters and digits only, lower case: "H100 SXM5" and "h100-sxm5" compare equal.
std::string squash(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::vector<std::string> tokens(std::string_view s) {
  std::vector<std::string> out;
  std::string current;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      current += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!current.empty()) {
      out.push_back(std::move(current));
      current.clear();
    }
  }
  if (!current.empty()) out.push_back(std::move(current));
  return out;
}

// The precision a claim names, as the catalogue's key ("bf16"), or the squashed text when it is none of
// those. FP8 formats (e4m3, e5m2) are fp8; W8A8 is int8 math; W4A16 (AWQ, GPTQ) is int4 weights.
std::string canonical_precision(std::string_view text) {
  const std::string s = squash(text);
  struct Alias {
    std::string_view prefix;
    std::string_view key;
  };
  static constexpr Alias kAliases[] = {
      {"bfloat16", "bf16"}, {"bf16", "bf16"}, {"float16", "fp16"}, {"half", "fp16"},   {"fp16", "fp16"},
      {"float32", "fp32"},  {"fp32", "fp32"}, {"tf32", "tf32"},    {"fp8", "fp8"},     {"float8", "fp8"},
      {"e4m3", "fp8"},      {"e5m2", "fp8"},  {"w8a8", "int8"},    {"int8", "int8"},   {"nvfp4", "fp4"},
      {"mxfp4", "fp4"},     {"fp4", "fp4"},   {"w4a16", "int4"},   {"int4", "int4"},   {"awq", "int4"},
      {"gptq", "int4"},
  };
  for (const auto& a : kAliases) {
    if (s.starts_with(a.prefix)) return std::string(a.key);
  }
  return s;
}

bool near(double a, double b, double tolerance) { return std::fabs(a - b) <= tolerance * std::fabs(b); }

// The catalogue chips a hardware string can mean. A chip matches when every token of its catalogue name
// ("h100", "sxm") begins a token of the string ("NVIDIA H100 SXM5 80GB"); the matches with the most tokens
// win. Failing that, every chip whose first token (the model: "h100") is in the string: "H100" alone is
// the SXM or the PCIe card, and the rules check against both.
std::vector<const hw::ChipSpec*> candidate_chips(std::string_view hardware) {
  const std::vector<std::string> words = tokens(hardware);
  const auto has_prefix_word = [&](const std::string& t) {
    return std::any_of(words.begin(), words.end(), [&](const std::string& w) { return w.starts_with(t); });
  };
  std::vector<const hw::ChipSpec*> best;
  std::size_t best_tokens = 0;
  for (const auto& chip : hw::chip_catalogue()) {
    const std::vector<std::string> name = tokens(chip.name);
    if (name.empty() || !std::all_of(name.begin(), name.end(), has_prefix_word)) continue;
    if (name.size() > best_tokens) {
      best.clear();
      best_tokens = name.size();
    }
    if (name.size() == best_tokens) best.push_back(&chip);
  }
  if (!best.empty()) return best;
  for (const auto& chip : hw::chip_catalogue()) {
    const std::vector<std::string> name = tokens(chip.name);
    if (!name.empty() && std::find(words.begin(), words.end(), name.front()) != words.end()) best.push_back(&chip);
  }
  return best;
}

std::string format_rate(double value, RoofFigure::Resource resource) {
  return core::format_si(value, resource == RoofFigure::Resource::kCompute ? "FLOP/s" : "B/s");
}

// Where each format keeps a condition it does not state, so the remedy names a way that works for this file.
std::string conditions_remedy(const Claim& claim) {
  if (claim.format == "vllm bench serve") {
    return "vllm bench serve saves no precision, GPU or vLLM version: pass them with --save-result --metadata "
           "(e.g. precision=bf16 hardware=H100-SXM version=0.6.3)";
  }
  if (claim.format == "genai-perf") {
    return "genai-perf's export has no field for the precision, the hardware or the server's version: state them "
           "beside its figures, e.g. in a claim file with the figures and its conditions (docs/audit.md)";
  }
  if (claim.format == "claim file") return "add it under conditions (the baseline's under baseline.conditions)";
  if (claim.format == "perfhound.mfu") {
    return "perfhound mfu states what ran the measured step with --framework NAME --framework-version VERSION";
  }
  if (claim.format == "perfhound.stats") return "perfhound stats states what the samples were measured on with --hardware";
  if (claim.format.starts_with("perfhound.")) {
    return "perfhound records what it can see (the model, the load, the lengths); state the rest beside the "
           "result, e.g. in a claim file with its figures and conditions (docs/audit.md)";
  }
  return {};
}

// The conditions a figure depends on depend on what it is of (Subject, claim.h): all of section 7.7 for a
// serving figure; for one model step the batch in place of a serving load and, for a prefill step, no
// output length; for a micro-benchmark only the hardware it ran on.
void check_conditions(const Claim& claim, const ClaimConditions& c, std::string_view whose, std::vector<Finding>& out) {
  const std::string remedy = conditions_remedy(claim);
  const auto missing = [&](std::string_view what) {
    out.push_back({&kConditionsMissing, fmt::format("{}{} is not stated", whose, what), remedy});
  };
  if (claim.subject == Subject::kMicrobenchmark) {
    if (!c.hardware) missing("hardware");
    return;
  }
  const bool step = claim.subject == Subject::kModelStep;
  if (!c.model) missing("model");
  if (!c.precision) missing("precision");
  if (!c.hardware) missing("hardware");
  if (step) {
    if (!c.batch) missing("batch");
    if (!c.input_len) missing("input length (the context)");
    if (lower(claim.phase) == "decode" && !c.output_len) missing("output length");
  } else {
    if (!c.load_stated()) missing("batch (for a serving figure: the concurrency or request rate)");
    if (!c.input_len) missing("input length");
    if (!c.output_len) missing("output length");
  }
  // A step's time, like a serving figure, is the framework's kernels at work: its MFU depends on them. A step's
  // roofline bound alone was computed, not run.
  if (step && !claim.states_a_measurement()) return;
  if (!c.framework && !c.framework_version) {
    out.push_back({&kConditionsMissing, fmt::format("{}framework and its version are not stated", whose), remedy});
  } else if (!c.framework_version) {
    missing(fmt::format("version of {}", *c.framework));
  } else if (!c.framework) {
    missing(fmt::format("framework (version {} of what?)", *c.framework_version));
  }
}

void check_latency(const Claim& claim, std::vector<Finding>& out) {
  if (claim.states_throughput() && !claim.states_latency()) {
    std::vector<std::string> quoted;
    if (claim.output_tokens_per_s) quoted.push_back(fmt::format("{:.4g} output tokens/s", *claim.output_tokens_per_s));
    if (claim.total_tokens_per_s) quoted.push_back(fmt::format("{:.4g} total tokens/s", *claim.total_tokens_per_s));
    if (claim.requests_per_s) quoted.push_back(fmt::format("{:.4g} requests/s", *claim.requests_per_s));
    out.push_back({&kThroughputWithoutLatency, fmt::format("{} with no TTFT, TPOT or end-to-end latency",
                                                           fmt::join(quoted, ", "))});
  }
  for (const auto& l : claim.latencies) {
    if (!l.mean_s && l.percentiles_s.empty()) continue;
    if (l.highest_tail_percentile()) continue;
    std::vector<std::string> stated;
    if (l.mean_s) stated.push_back(fmt::format("mean {}", core::format_duration_ns(*l.mean_s * 1e9)));
    for (const auto& [q, v] : l.percentiles_s) stated.push_back(fmt::format("p{:g} {}", q, core::format_duration_ns(v * 1e9)));
    out.push_back({&kMeanWithoutTail, fmt::format("{}: {}, and no percentile at p90 or above", l.metric,
                                                  fmt::join(stated, ", "))});
  }
}

void check_warmup(const Claim& claim, std::vector<Finding>& out) {
  if (claim.warmup_discarded == std::optional<bool>(true)) return;
  if (claim.subject == Subject::kModelStep && !claim.states_a_measurement()) return;  // a bound: nothing was timed
  // perfhound mfu was given a time measured elsewhere: it states that timing's warm-up, it discards none itself.
  const std::string remedy =
      claim.format == "perfhound.mfu" ? "time the step after a warm-up and say so: perfhound mfu --warmup '10 steps'"
                                      : std::string();
  if (claim.warmup_discarded == std::optional<bool>(false)) {
    out.push_back({&kNoWarmup,
                   fmt::format("no warm-up was discarded{}",
                               claim.warmup.empty() ? "" : fmt::format(" (stated: {})", claim.warmup)),
                   remedy});
    return;
  }
  std::string hint;
  if (claim.format == "vllm bench serve") {
    hint = " (vllm bench serve does not save --num-warmups in its result; add --metadata num_warmups=N)";
  }
  out.push_back({&kNoWarmup, "the file does not say whether a warm-up was discarded" + hint, remedy});
}

void check_lengths(const Claim& claim, std::vector<Finding>& out) {
  // The thresholds are about a serving workload: one prefill step has no output by definition, and a decode
  // step's few tokens say nothing about the requests it will serve.
  if (claim.subject != Subject::kServing) return;
  const auto& c = claim.conditions;
  const auto tokens_text = [](double v) { return fmt::format("{:g}", std::round(v * 10) / 10); };
  if (c.output_len && *c.output_len < kMinRealisticOutputLen) {
    out.push_back({&kUnrealisticLengths,
                   fmt::format("output length {} tokens (under {}): the figure is almost all prefill and hides the "
                               "decode cost{}",
                               tokens_text(*c.output_len), kMinRealisticOutputLen,
                               c.input_len ? fmt::format(" ({}-in/{}-out)", tokens_text(*c.input_len), tokens_text(*c.output_len)) : "")});
  }
  if (c.input_len && *c.input_len < kMinRealisticInputLen) {
    out.push_back({&kUnrealisticLengths,
                   fmt::format("input length {} tokens (under {}): shorter than a system prompt and a question, so "
                               "the prefill cost is missing",
                               tokens_text(*c.input_len), kMinRealisticInputLen)});
  }
  const auto against_target = [&](const std::optional<double>& measured, const std::optional<double>& target,
                                  std::string_view which) {
    if (!measured || !target || *measured <= 0 || *target <= 0) return;
    const double ratio = *measured / *target;
    if (ratio > kMaxTargetLengthRatio || ratio < 1 / kMaxTargetLengthRatio) {
      out.push_back({&kUnrealisticLengths,
                     fmt::format("{} length {} tokens, but the workload it is for has {} ({:.2g}x)", which,
                                 tokens_text(*measured), tokens_text(*target), ratio)});
    }
  };
  against_target(c.input_len, claim.target_input_len, "input");
  against_target(c.output_len, claim.target_output_len, "output");
}

void check_roofs(const Claim& claim, std::vector<Finding>& out) {
  if (claim.roofs.empty() && (claim.mfu || claim.mbu)) {
    out.push_back({&kSpecSheetRoof, fmt::format("{} with no roof stated: by convention that is the spec sheet's peak",
                                                claim.mfu ? "MFU" : "MBU")});
  }
  const std::vector<const hw::ChipSpec*> chips =
      claim.conditions.hardware ? candidate_chips(*claim.conditions.hardware) : std::vector<const hw::ChipSpec*>{};
  for (const auto& roof : claim.roofs) {
    const bool compute = roof.resource == RoofFigure::Resource::kCompute;
    // A roof the file names only by its source (a roofline document) has no value to print or to compare
    // with the catalogue: say so, never print an invented 0.
    const std::string what = fmt::format("{} roof {}", compute ? "compute" : "memory",
                                         roof.peak ? format_rate(*roof.peak, roof.resource) : "(value not in the file)");
    bool matched = false;
    for (const hw::ChipSpec* chip : roof.peak ? chips : std::vector<const hw::ChipSpec*>{}) {
      if (compute) {
        const std::string precision = canonical_precision(
            !roof.precision.empty() ? roof.precision : claim.conditions.precision.value_or(std::string()));
        for (const auto& [key, peak] : chip->peak_flops) {
          if (!precision.empty() && key != precision && !(precision == "int4" && key == "bf16")) continue;
          if (near(*roof.peak, 2 * peak.value, kPeakMatchTolerance)) {
            out.push_back({&kSparsePeakRoof, fmt::format("{} is twice the {} dense {} peak of {} ({}): the 'with "
                                                         "sparsity' figure",
                                                         what, chip->display_name, key, format_rate(peak.value, roof.resource),
                                                         chip->name)});
            matched = true;
            break;
          }
          if (near(*roof.peak, peak.value, kPeakMatchTolerance)) {
            out.push_back({&kSpecSheetRoof,
                           fmt::format("{} is the spec sheet's dense {} peak of {}{}", what, key, chip->display_name,
                                       roof.measured == std::optional<bool>(true) ? ", though stated as measured" : "")});
            matched = true;
            break;
          }
        }
      } else if (near(*roof.peak, chip->memory_bandwidth.value, kPeakMatchTolerance)) {
        out.push_back({&kSpecSheetRoof,
                       fmt::format("{} is the spec sheet's bandwidth of {}{}", what, chip->display_name,
                                   roof.measured == std::optional<bool>(true) ? ", though stated as measured" : "")});
        matched = true;
      }
      if (matched) break;
    }
    if (!matched && roof.measured == std::optional<bool>(false)) {
      out.push_back({&kSpecSheetRoof, fmt::format("{} is stated as the spec sheet's{}", what,
                                                  roof.source.empty() ? "" : fmt::format(" ({})", roof.source))});
    }
  }
}

bool variable_covers(std::string_view variable, std::initializer_list<std::string_view> names) {
  const std::string v = squash(variable);
  for (auto n : names) {
    if (!v.empty() && v.find(squash(n)) != std::string::npos) return true;
  }
  return false;
}

void check_baseline(const Claim& claim, std::vector<Finding>& out) {
  if (!claim.baseline) return;
  const ClaimConditions& a = claim.conditions;
  const ClaimConditions& b = claim.baseline->conditions;
  if (!b.precision) {
    out.push_back({&kConditionsMissing, "baseline precision is not stated (the comparison may be FP8 against FP16)",
                   conditions_remedy(claim)});
  }
  if (a.precision && b.precision && canonical_precision(*a.precision) != canonical_precision(*b.precision) &&
      !variable_covers(claim.variable, {"precision", "quantization", "dtype"})) {
    out.push_back({&kPrecisionMismatch, fmt::format("the claim is at {}, its baseline at {}", *a.precision, *b.precision)});
  }
  const auto differ_text = [&](std::string_view name, const std::optional<std::string>& x,
                               const std::optional<std::string>& y, std::initializer_list<std::string_view> covered_by) {
    if (x && y && squash(*x) != squash(*y) && !variable_covers(claim.variable, covered_by)) {
      out.push_back({&kBaselineConditionsDiffer, fmt::format("{}: {} against the baseline's {}", name, *x, *y)});
    }
  };
  const auto differ_number = [&](std::string_view name, const std::optional<double>& x, const std::optional<double>& y,
                                 std::initializer_list<std::string_view> covered_by) {
    if (x && y && !(*x == *y || near(*x, *y, 0.01)) && !variable_covers(claim.variable, covered_by)) {
      out.push_back({&kBaselineConditionsDiffer, fmt::format("{}: {:g} against the baseline's {:g}", name, *x, *y)});
    }
  };
  differ_text("hardware", a.hardware, b.hardware, {"hardware", "gpu", "chip", "device"});
  differ_text("model", a.model, b.model, {"model"});
  differ_text("framework", a.framework, b.framework, {"framework", "engine", "server"});
  differ_text("framework version", a.framework_version, b.framework_version, {"framework", "version", "engine"});
  differ_number("batch", a.batch, b.batch, {"batch", "load"});
  differ_number("concurrency", a.concurrency, b.concurrency, {"concurrency", "batch", "load"});
  differ_number("request rate", a.request_rate_per_s, b.request_rate_per_s, {"rate", "load"});
  differ_number("input length", a.input_len, b.input_len, {"input", "length"});
  differ_number("output length", a.output_len, b.output_len, {"output", "length"});
}

void check_runs(const Claim& claim, std::vector<Finding>& out) {
  if (!claim.value && !claim.is_comparison()) return;
  if (claim.spread_stated || (claim.runs && *claim.runs >= 2)) return;
  const std::string headline = claim.metric.empty() ? std::string("the headline") : claim.metric;
  out.push_back({&kSingleRun, claim.runs ? fmt::format("{} from {} run, with no spread or confidence interval", headline, *claim.runs)
                                         : fmt::format("{} with no number of runs, spread or confidence interval", headline)});
}

void check_samples(const Claim& claim, std::vector<Finding>& out) {
  for (const auto& l : claim.latencies) {
    if (!l.samples || *l.samples < 0) continue;
    // Every tail percentile stated that the samples cannot carry, so what the finding does not name may be quoted.
    std::vector<double> stated;
    for (const auto& [q, value] : l.percentiles_s) stated.push_back(q);
    const std::string tails = core::short_tails(static_cast<std::uint64_t>(*l.samples), stated);
    if (!tails.empty()) {
      out.push_back({&kFewSamplesForTail, fmt::format("{} {} from {} samples", l.metric, tails, *l.samples)});
    }
  }
}

void check_load(const Claim& claim, std::vector<Finding>& out) {
  const auto& c = claim.conditions;
  if (c.request_rate_per_s && std::isinf(*c.request_rate_per_s) && !c.concurrency) {
    out.push_back({&kUnboundedLoad, "request rate inf and no concurrency cap: every request was sent at once"});
  }
  if (claim.failed && *claim.failed > 0) {
    const std::int64_t total = *claim.failed + claim.completed.value_or(0);
    out.push_back({&kRequestsFailed, claim.completed ? fmt::format("{} of {} requests failed ({})", *claim.failed, total,
                                                                   core::format_percent(static_cast<double>(*claim.failed) / static_cast<double>(total)))
                                                     : fmt::format("{} requests failed", *claim.failed)});
  }
  for (const auto& flag : claim.source_flags) out.push_back({&kSourceInvalid, flag});
}

void check_efficiency(const Claim& claim, std::vector<Finding>& out) {
  const std::string metric = lower(claim.metric);
  if ((metric.find("util") != std::string::npos || metric.find("busy") != std::string::npos) &&
      metric.find("mfu") == std::string::npos && metric.find("mbu") == std::string::npos &&
      metric.find("cache") == std::string::npos) {
    out.push_back({&kUtilizationAsEfficiency,
                   fmt::format("the headline is '{}'{}", claim.metric,
                               claim.value ? fmt::format(" = {:g}", *claim.value) : std::string())});
  }
  const bool mfu_quoted = claim.mfu.has_value() || metric == "mfu";
  const bool mbu_quoted = claim.mbu.has_value() || metric == "mbu";
  if (lower(claim.phase) == "decode" && mfu_quoted && !mbu_quoted) {
    out.push_back({&kDecodeJudgedByMfu, claim.mfu ? fmt::format("decode MFU {} quoted without its MBU", core::format_percent(*claim.mfu))
                                                  : std::string("decode judged by MFU, with no MBU")});
  }
  if (claim.synchronized == std::optional<bool>(false)) {
    out.push_back({&kUnsynchronizedTiming, "the claim states that its timer did not synchronize with the device"});
  }
}

}  // namespace

std::span<const AuditRule* const> all_audit_rules() { return kRules; }

std::vector<Finding> audit_claim(const Claim& claim) {
  std::vector<Finding> found;
  check_conditions(claim, claim.conditions, "", found);
  check_latency(claim, found);
  check_warmup(claim, found);
  check_lengths(claim, found);
  check_roofs(claim, found);
  check_baseline(claim, found);
  check_runs(claim, found);
  check_samples(claim, found);
  check_load(claim, found);
  check_efficiency(claim, found);
  // Rule order, then the order each check found them in.
  std::stable_sort(found.begin(), found.end(), [](const Finding& a, const Finding& b) {
    const auto index = [](const AuditRule* r) { return std::find(kRules.begin(), kRules.end(), r) - kRules.begin(); };
    return index(a.rule) < index(b.rule);
  });
  return found;
}

bool has_severe(const std::vector<Finding>& findings) {
  return std::any_of(findings.begin(), findings.end(),
                     [](const Finding& f) { return f.rule->severity == core::Severity::kSevere; });
}

nlohmann::ordered_json findings_to_json(const std::vector<Finding>& findings) {
  Json out = Json::array();
  for (const auto& f : findings) {
    out.push_back({{"rule", f.rule->id},
                   {"severity", core::severity_name(f.rule->severity)},
                   {"seed", f.rule->seed},
                   {"what", f.what},
                   {"remedy", f.remedy_text()}});
  }
  return out;
}

nlohmann::ordered_json rules_to_json() {
  Json out = Json::array();
  for (const AuditRule* r : kRules) {
    out.push_back({{"id", r->id},
                   {"severity", core::severity_name(r->severity)},
                   {"seed", r->seed},
                   {"meaning", r->meaning},
                   {"remedy", r->remedy}});
  }
  return out;
}

}  // namespace perfhound::audit
