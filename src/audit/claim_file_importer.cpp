// A claim file: the stated numbers and conditions of a benchmark claim, written by hand (JSON, or YAML) for
// `perfhound audit`. The schema is docs/audit.md's "Claim files"; unknown keys are errors (a misspelt
// "warmpu" must not pass as "no warm-up stated").
#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <string>

#include "audit/claim_importer.h"
#include "audit/import_helpers.h"

namespace perfhound::audit {
namespace {

constexpr std::string_view kTopKeys[] = {"claim",    "metric", "value",        "unit",     "phase",   "conditions",
                                         "latency",  "throughput", "warmup",   "runs",     "spread",  "synchronized",
                                         "samples",  "completed", "failed",    "roof",     "mfu",     "mbu",
                                         "baseline", "variable", "target_workload"};
constexpr std::string_view kConditionKeys[] = {"model",        "precision",  "hardware",  "batch",
                                               "concurrency",  "request_rate", "input_len", "output_len",
                                               "framework",    "framework_version"};
constexpr std::string_view kStatisticKeys[] = {"mean", "avg", "median", "stddev", "std", "samples"};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

core::Status check_keys(const SourceDocument& doc, std::string_view pointer, std::span<const std::string_view> known) {
  const nlohmann::json* object = pointer.empty() ? &doc.json() : doc.find(pointer);
  if (object == nullptr) return {};
  if (!object->is_object()) return doc.field_error(pointer, fmt::format("expected an object, got {}", object->type_name()));
  for (const auto& [key, value] : object->items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return doc.field_error(fmt::format("{}/{}", pointer, key), fmt::format("unknown key (known: {})", fmt::join(known, ", ")));
    }
  }
  return {};
}

// The latency metric and unit a name says: "ttft_ms" -> (ttft, 1e-3); "e2e_latency_s" -> (e2e, 1). Names
// without a unit suffix are an error: a latency without its unit is not a number.
struct LatencyName {
  std::string metric;
  double seconds_per_unit = 0;
};

std::optional<LatencyName> latency_name(std::string_view name) {
  for (const auto& [suffix, scale] : {std::pair<std::string_view, double>{"_ms", 1e-3}, {"_us", 1e-6}, {"_ns", 1e-9}, {"_s", 1.0}}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) {
      return LatencyName{std::string(name.substr(0, name.size() - suffix.size())), scale};
    }
  }
  return std::nullopt;
}

bool is_latency_metric(std::string_view metric) {
  for (std::string_view m : {"ttft", "tpot", "itl", "e2e", "latency", "ttst", "ntpot"}) {
    if (contains(metric, m)) return true;
  }
  return false;
}

// A percentile key: "p99", "p99.9", "p99_9" -> 99, 99.9.
std::optional<double> percentile_key(std::string_view key) {
  if (key.size() < 2 || key[0] != 'p') return std::nullopt;
  std::string q(key.substr(1));
  std::replace(q.begin(), q.end(), '_', '.');
  if (q.find_first_not_of("0123456789.") != std::string::npos || q.front() == '.') return std::nullopt;
  return percentile_number(q);
}

class ClaimFileImporter final : public ClaimImporter {
 public:
  std::string_view format() const override { return "claim file"; }

  bool recognizes(const nlohmann::json& j) const override {
    if (!j.is_object() || j.contains("kind") || j.contains("schema_version")) return false;
    return j.contains("claim") || j.contains("metric") || j.contains("value") || j.contains("conditions");
  }

  core::Result<Claim> import(const SourceDocument& doc) const override {
    PH_TRY(check_keys(doc, "", kTopKeys));
    Claim claim;
    claim.path = doc.path();
    claim.format = std::string(format());
    PH_ASSIGN_OR_RETURN(auto statement, condition_text(doc, "/claim"));
    claim.statement = statement.value_or("");
    PH_ASSIGN_OR_RETURN(auto metric, condition_text(doc, "/metric"));
    claim.metric = metric.value_or("");
    PH_ASSIGN_OR_RETURN(claim.value, number_in(doc, "/value", Range::kFinite));
    PH_ASSIGN_OR_RETURN(auto unit, condition_text(doc, "/unit"));
    PH_ASSIGN_OR_RETURN(auto phase, condition_text(doc, "/phase"));
    if (phase) {
      claim.phase = lower(*phase);
      if (claim.phase != "prefill" && claim.phase != "decode") {
        return doc.field_error("/phase", fmt::format("expected \"prefill\" or \"decode\", got \"{}\"", *phase));
      }
    }
    PH_ASSIGN_OR_RETURN(claim.conditions, conditions(doc, "/conditions"));

    PH_TRY(read_latencies(doc, claim));
    PH_TRY(check_keys(doc, "/throughput", std::array<std::string_view, 3>{"output_tokens_per_s", "total_tokens_per_s", "requests_per_s"}));
    PH_ASSIGN_OR_RETURN(claim.output_tokens_per_s, number_in(doc, "/throughput/output_tokens_per_s", Range::kNonNegative));
    PH_ASSIGN_OR_RETURN(claim.total_tokens_per_s, number_in(doc, "/throughput/total_tokens_per_s", Range::kNonNegative));
    PH_ASSIGN_OR_RETURN(claim.requests_per_s, number_in(doc, "/throughput/requests_per_s", Range::kNonNegative));
    PH_TRY(read_headline(doc, claim, unit));

    PH_TRY(read_warmup(doc, claim));
    PH_ASSIGN_OR_RETURN(const auto runs, number_in(doc, "/runs", Range::kWholePositive));
    if (runs) claim.runs = static_cast<std::int64_t>(*runs);
    PH_TRY(read_spread(doc, claim));
    PH_ASSIGN_OR_RETURN(claim.synchronized, doc.boolean("/synchronized"));
    PH_ASSIGN_OR_RETURN(claim.completed, doc.count("/completed"));
    PH_ASSIGN_OR_RETURN(claim.failed, doc.count("/failed"));

    PH_TRY(read_roof(doc, claim));
    PH_ASSIGN_OR_RETURN(auto mfu, ratio(doc, "/mfu"));
    PH_ASSIGN_OR_RETURN(auto mbu, ratio(doc, "/mbu"));
    if (mfu) claim.mfu = mfu;
    if (mbu) claim.mbu = mbu;

    if (doc.has("/baseline")) {
      PH_TRY(check_keys(doc, "/baseline", std::array<std::string_view, 3>{"label", "value", "conditions"}));
      Baseline b;
      PH_ASSIGN_OR_RETURN(auto label, condition_text(doc, "/baseline/label"));
      b.label = label.value_or("");
      PH_ASSIGN_OR_RETURN(b.value, number_in(doc, "/baseline/value", Range::kFinite));
      PH_ASSIGN_OR_RETURN(b.conditions, conditions(doc, "/baseline/conditions"));
      claim.baseline = std::move(b);
    }
    PH_ASSIGN_OR_RETURN(auto variable, condition_text(doc, "/variable"));
    claim.variable = variable.value_or("");
    PH_TRY(check_keys(doc, "/target_workload", std::array<std::string_view, 2>{"input_len", "output_len"}));
    PH_ASSIGN_OR_RETURN(claim.target_input_len, number_in(doc, "/target_workload/input_len", Range::kPositive));
    PH_ASSIGN_OR_RETURN(claim.target_output_len, number_in(doc, "/target_workload/output_len", Range::kPositive));
    return claim;
  }

 private:
  static core::Result<ClaimConditions> conditions(const SourceDocument& doc, const std::string& base) {
    PH_TRY(check_keys(doc, base, kConditionKeys));
    ClaimConditions c;
    PH_ASSIGN_OR_RETURN(c.model, condition_text(doc, base + "/model"));
    PH_ASSIGN_OR_RETURN(c.precision, condition_text(doc, base + "/precision"));
    PH_ASSIGN_OR_RETURN(c.hardware, condition_text(doc, base + "/hardware"));
    PH_ASSIGN_OR_RETURN(c.framework, condition_text(doc, base + "/framework"));
    PH_ASSIGN_OR_RETURN(c.framework_version, condition_text(doc, base + "/framework_version"));
    // Batches and concurrencies are counts of sequences; lengths are means, so fractions are fine, but a
    // prompt has at least one token. An output of 0 is a prefill-only figure, which the claim may be.
    PH_ASSIGN_OR_RETURN(c.batch, number_in(doc, base + "/batch", Range::kWholePositive));
    PH_ASSIGN_OR_RETURN(c.concurrency, number_in(doc, base + "/concurrency", Range::kWholePositive));
    PH_ASSIGN_OR_RETURN(c.request_rate_per_s, number_in(doc, base + "/request_rate", Range::kPositiveOrInf));
    PH_ASSIGN_OR_RETURN(c.input_len, number_in(doc, base + "/input_len", Range::kPositive));
    PH_ASSIGN_OR_RETURN(c.output_len, number_in(doc, base + "/output_len", Range::kNonNegative));
    if (c.concurrency) c.load = fmt::format("concurrency {:g}", *c.concurrency);
    if (c.request_rate_per_s) {
      c.load += fmt::format("{}request rate {}", c.load.empty() ? "" : ", ",
                            std::isinf(*c.request_rate_per_s) ? std::string("inf") : fmt::format("{:g}/s", *c.request_rate_per_s));
    }
    return c;
  }

  static core::Result<std::optional<double>> ratio(const SourceDocument& doc, const std::string& pointer) {
    PH_ASSIGN_OR_RETURN(auto v, number_in(doc, pointer, Range::kNonNegative));
    if (v && !(*v >= 0 && *v <= 1)) {
      return doc.field_error(pointer, fmt::format("expected a ratio in 0..1 (45% is 0.45), got {:g}", *v));
    }
    return v;
  }

  // "latency": {"ttft_ms": {"mean": 120, "p50": 110, "p99": 300, "samples": 1000}, ...}
  static core::Status read_latencies(const SourceDocument& doc, Claim& claim) {
    const nlohmann::json* block = doc.find("/latency");
    if (block == nullptr) return {};
    if (!block->is_object()) return doc.field_error("/latency", fmt::format("expected an object, got {}", block->type_name()));
    PH_ASSIGN_OR_RETURN(auto default_samples, doc.count("/samples"));
    for (const auto& [name, stats] : block->items()) {
      const std::string base = "/latency/" + name;
      const auto parsed = latency_name(name);
      if (!parsed) {
        return doc.field_error(base, "name the unit: ttft_ms, tpot_ms, e2e_s, ... (ms, s, us or ns)");
      }
      if (!stats.is_object()) return doc.field_error(base, fmt::format("expected an object of statistics, got {}", stats.type_name()));
      LatencyFigure& f = figure(claim, parsed->metric);
      std::vector<PercentileField> order;
      for (const auto& [key, value] : stats.items()) {
        const std::string pointer = base + "/" + key;
        if (key == "samples") {
          PH_ASSIGN_OR_RETURN(f.samples, doc.count(pointer));
          continue;
        }
        // A latency, or its spread, is a time: never negative.
        PH_ASSIGN_OR_RETURN(auto v, number_in(doc, pointer, Range::kNonNegative));
        if (!v) continue;
        if (const auto q = percentile_key(key)) {
          f.percentiles_s[*q] = *v * parsed->seconds_per_unit;
          order.push_back({*q, *v, pointer});
        } else if (key == "mean" || key == "avg") {
          f.mean_s = *v * parsed->seconds_per_unit;
        } else if (key == "median") {
          f.percentiles_s[50] = *v * parsed->seconds_per_unit;
          order.push_back({50, *v, pointer});
        } else if (key == "stddev" || key == "std") {
          f.stddev_s = *v * parsed->seconds_per_unit;
        } else {
          return doc.field_error(pointer, fmt::format("unknown statistic (known: {}, or a percentile p50, p99, p99.9)",
                                                      fmt::join(kStatisticKeys, ", ")));
        }
      }
      PH_TRY(check_percentile_order(doc, std::move(order)));
      if (!f.samples && default_samples) f.samples = default_samples;
    }
    return {};
  }

  static LatencyFigure& figure(Claim& claim, const std::string& metric) {
    for (auto& f : claim.latencies) {
      if (f.metric == metric) return f;
    }
    claim.latencies.push_back(LatencyFigure{metric, {}, {}, {}, {}});
    return claim.latencies.back();
  }

  // The headline joins the figures it is one of: a throughput, a latency statistic, MFU or MBU.
  static core::Status read_headline(const SourceDocument& doc, Claim& claim, const std::optional<std::string>& unit) {
    if (claim.metric.empty() || !claim.value) return {};
    const std::string m = lower(claim.metric);
    const double v = *claim.value;
    if (m == "mfu" || m == "mbu") {
      if (!(v >= 0 && v <= 1)) return doc.field_error("/value", fmt::format("{} is a ratio in 0..1 (45% is 0.45), got {:g}", m, v));
      (m == "mfu" ? claim.mfu : claim.mbu) = v;
      return {};
    }
    if (is_latency_metric(m)) {
      if (v < 0) return doc.field_error("/value", fmt::format("{} is a latency: expected a number >= 0, got {:g}", claim.metric, v));
      auto parsed = latency_name(m);
      if (!parsed && unit) {
        if (const auto scale = seconds_per_unit(*unit)) parsed = LatencyName{m, *scale};
      }
      if (!parsed) return doc.field_error("/metric", "a latency headline names its unit: ttft_p99_ms, or give unit: ms");
      // The statistic the name says: p99 / p95 / median / mean; the metric is what is left.
      std::string name = parsed->metric;
      std::optional<double> q;
      bool mean = false;
      std::string rest;
      std::size_t at = 0;
      while (at <= name.size()) {
        const std::size_t next = std::min(name.find('_', at), name.size());
        const std::string part = name.substr(at, next - at);
        if (const auto p = percentile_key(part)) {
          q = p;
        } else if (part == "median") {
          q = 50;
        } else if (part == "mean" || part == "avg" || part == "average") {
          mean = true;
        } else if (!part.empty()) {
          rest += (rest.empty() ? "" : "_") + part;
        }
        at = next + 1;
      }
      LatencyFigure& f = figure(claim, rest.empty() ? name : rest);
      if (q) {
        f.percentiles_s[*q] = v * parsed->seconds_per_unit;
      } else {
        if (!mean) claim.notes.push_back(fmt::format("'{}' names no statistic: read as a mean", claim.metric));
        f.mean_s = v * parsed->seconds_per_unit;
      }
      return {};
    }
    const bool rate = contains(m, "per_s") || contains(m, "throughput") || contains(m, "tok/s") || contains(m, "tokens_s") ||
                      m == "qps" || m == "rps";
    if (rate) {
      if (v < 0) return doc.field_error("/value", fmt::format("{} is a throughput: expected a number >= 0, got {:g}", claim.metric, v));
      if (contains(m, "request") || m == "qps" || m == "rps") {
        claim.requests_per_s = v;
      } else if (contains(m, "total")) {
        claim.total_tokens_per_s = v;
      } else {
        claim.output_tokens_per_s = v;
      }
    }
    return {};
  }

  static core::Status read_warmup(const SourceDocument& doc, Claim& claim) {
    const nlohmann::json* w = doc.find("/warmup");
    if (w == nullptr) return {};
    if (w->is_boolean()) {
      claim.warmup_discarded = w->get<bool>();
      claim.warmup = w->get<bool>() ? "yes" : "none";
    } else if (w->is_number()) {
      const double n = w->get<double>();
      if (!(n >= 0) || std::floor(n) != n) {
        return doc.field_error("/warmup", fmt::format("expected a whole count >= 0 (or a duration such as \"5s\"), got {:g}", n));
      }
      claim.warmup_discarded = n > 0;
      claim.warmup = fmt::format("{:g}", n);
    } else if (w->is_string()) {
      claim.warmup = w->get<std::string>();
      claim.warmup_discarded = warmup_discards(claim.warmup);
      if (!claim.warmup_discarded) {
        return doc.field_error("/warmup", fmt::format("cannot read \"{}\" as a warm-up (use a count, \"5s\", true or false)", claim.warmup));
      }
    } else {
      return doc.field_error("/warmup", fmt::format("expected a count, a duration, true or false, got {}", w->type_name()));
    }
    return {};
  }

  // spread: {stddev: 31, ci: [2410, 2490], confidence: 0.95}. A spread is what lets a single-run finding
  // go, so a nonsense one (a negative stddev, an interval upside down, a 700% confidence) must not pass.
  static core::Status read_spread(const SourceDocument& doc, Claim& claim) {
    PH_TRY(check_keys(doc, "/spread", std::array<std::string_view, 3>{"stddev", "ci", "confidence"}));
    PH_ASSIGN_OR_RETURN(const auto stddev, number_in(doc, "/spread/stddev", Range::kNonNegative));
    if (const nlohmann::json* ci = doc.find("/spread/ci"); ci != nullptr) {
      if (!ci->is_array() || ci->size() != 2) {
        return doc.field_error("/spread/ci", fmt::format("expected [low, high], got {}", ci->dump()));
      }
      PH_ASSIGN_OR_RETURN(const auto low, number_in(doc, "/spread/ci/0", Range::kFinite));
      PH_ASSIGN_OR_RETURN(const auto high, number_in(doc, "/spread/ci/1", Range::kFinite));
      if (!low || !high) return doc.field_error("/spread/ci", "expected [low, high] with two numbers");
      if (*low > *high) {
        return doc.field_error("/spread/ci", fmt::format("expected [low, high] with low <= high, got [{:g}, {:g}]", *low, *high));
      }
    }
    PH_ASSIGN_OR_RETURN(const auto confidence, number_in(doc, "/spread/confidence", Range::kPositive));
    if (confidence && !(*confidence < 1)) {
      return doc.field_error("/spread/confidence",
                             fmt::format("expected a level between 0 and 1 (95% is 0.95), got {:g}", *confidence));
    }
    if (confidence && !doc.has("/spread/ci")) return doc.field_error("/spread/confidence", "a confidence level needs its ci");
    claim.spread_stated = stddev.has_value() || doc.has("/spread/ci");
    return {};
  }

  static core::Status read_roof(const SourceDocument& doc, Claim& claim) {
    if (!doc.has("/roof")) return {};
    PH_TRY(check_keys(doc, "/roof", std::array<std::string_view, 5>{"peak_flops_per_s", "peak_bytes_per_s", "precision", "source", "measured"}));
    PH_ASSIGN_OR_RETURN(auto flops, number_in(doc, "/roof/peak_flops_per_s", Range::kPositive));
    PH_ASSIGN_OR_RETURN(auto bytes, number_in(doc, "/roof/peak_bytes_per_s", Range::kPositive));
    PH_ASSIGN_OR_RETURN(auto precision, condition_text(doc, "/roof/precision"));
    PH_ASSIGN_OR_RETURN(auto source, condition_text(doc, "/roof/source"));
    PH_ASSIGN_OR_RETURN(auto measured, doc.boolean("/roof/measured"));
    if (!flops && !bytes) return doc.field_error("/roof", "give peak_flops_per_s or peak_bytes_per_s");
    // "source": "spec sheet" / "datasheet" says not measured; "measured ..." says measured.
    if (!measured && source) {
      const std::string s = lower(*source);
      if (contains(s, "spec") || contains(s, "datasheet") || contains(s, "data sheet") || contains(s, "theoretical") ||
          contains(s, "whitepaper")) {
        measured = false;
      } else if (contains(s, "measur") || contains(s, "sustain") || contains(s, "achiev")) {
        measured = true;
      }
    }
    if (flops) {
      claim.roofs.push_back({RoofFigure::Resource::kCompute, *flops,
                             precision.value_or(claim.conditions.precision.value_or("")), measured, source.value_or("")});
    }
    if (bytes) claim.roofs.push_back({RoofFigure::Resource::kMemory, *bytes, "", measured, source.value_or("")});
    return {};
  }
};

}  // namespace

std::unique_ptr<ClaimImporter> make_claim_file_importer() { return std::make_unique<ClaimFileImporter>(); }

}  // namespace perfhound::audit
