#include "diagnose/playbook.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/check.h"
#include "core/units.h"
#include "roofline/roofline.h"
#include "trace/kernel_breakdown.h"
#include "trace/verdict.h"

namespace perfhound::diagnose {
namespace {

using core::format_percent;

std::string seconds(double s) { return std::isfinite(s) ? core::format_duration_ns(s * 1e9) : std::string("n/a"); }
std::string pct(double r) { return format_percent(r); }
std::string pct(std::optional<double> r) { return r ? format_percent(*r) : std::string("n/a"); }

// The closing line of every diagnosis and the stop rule of an undecided one (seed section 9 steps 4 and 5).
constexpr std::string_view kOneChange =
    "then apply ONE change, re-measure with the same harness and inputs, and diagnose again (seed section 9 step 4)";
const std::string kGeneralStop = fmt::format(
    "the target metric meets its SLO, or the dominant work is at its roof (MBU >= {:.0f}% memory-bound, MFU >= "
    "{:.0f}% compute-bound): seed section 9 step 5",
    kAtBandwidthRoof * 100, kAtComputeRoofMfu * 100);
const std::string kBusyStop =
    fmt::format("the GPU is busy >= {:.0f}% of its active span (perfhound trace); then the kernels decide (step 3)",
                trace::kBusyEnough * 100);

// ---- Helpers over the evidence.

// The heaviest load point: the one the serving questions are asked at.
const LoadPoint& heaviest(const std::vector<LoadPoint>& points) {
  PH_CHECK(!points.empty());
  return *std::max_element(points.begin(), points.end(),
                           [](const LoadPoint& a, const LoadPoint& b) { return a.load < b.load; });
}

const LoadPoint& lightest(const std::vector<LoadPoint>& points) {
  PH_CHECK(!points.empty());
  return *std::min_element(points.begin(), points.end(),
                           [](const LoadPoint& a, const LoadPoint& b) { return a.load < b.load; });
}

std::string point_line(const LoadPoint& p) {
  return fmt::format("{} ({}): TTFT p50 {} p95 {}, TPOT p50 {} p95 {}, {:.3g} requests/s, {:.3g} output tokens/s",
                     p.label, p.source, seconds(p.ttft_p50_s), seconds(p.ttft_p95_s), seconds(p.tpot_p50_s),
                     seconds(p.tpot_p95_s), p.requests_per_s, p.output_tokens_per_s);
}

std::string idle_split(const TraceEvidence& t) {
  std::string line = "idle time by what the host was doing:";
  bool first = true;
  for (const auto& [state, share] : t.idle_by_host_state) {
    line += fmt::format("{} {} {}", first ? "" : ",", state, pct(share));
    first = false;
  }
  return first ? std::string("no idle gaps inside the active span") : line;
}

std::string busy_line(const TraceEvidence& t) {
  return fmt::format("trace '{}': GPU {} busy {} of its active span ({} of {}), {} idle in {} gaps", t.source, t.device,
                     pct(t.active_busy_ratio), seconds(t.busy_s), seconds(t.active_span_s), seconds(t.idle_s),
                     t.gap_count);
}

// Kernel time and bound time per roofline case, over the placed kernels of a roofline result.
struct CaseTotals {
  double time_s = 0;
  double bound_s = 0;
  std::uint64_t count = 0;
  const KernelPosition* longest = nullptr;
};

std::map<std::string, CaseTotals> case_totals(const RooflineEvidence& r) {
  std::map<std::string, CaseTotals> totals;
  for (const auto& k : r.kernels) {
    auto& t = totals[k.roofline_case];
    t.time_s += k.duration_s;
    t.bound_s += k.bound_time_s;
    ++t.count;
    if (t.longest == nullptr || k.duration_s > t.longest->duration_s) t.longest = &k;
  }
  return totals;
}

double total_kernel_time(const RooflineEvidence& r) {
  double s = 0;
  for (const auto& k : r.kernels) s += k.duration_s;
  return s;
}

// How near the kernels of one case are to their roof, time-weighted: their summed roofline bound times
// over their summed measured times (each kernel's fraction_of_attainable, weighted by its duration).
std::optional<double> case_fraction(const RooflineEvidence& r, std::string_view roofline_case) {
  const auto totals = case_totals(r);
  const auto it = totals.find(std::string(roofline_case));
  if (it == totals.end() || it->second.time_s <= 0) return std::nullopt;
  return it->second.bound_s / it->second.time_s;
}

// Demangled template names run to kilobytes; the id finds the row in the export.
std::string short_name(std::string_view name) {
  constexpr std::size_t kMax = 60;
  return name.size() <= kMax ? std::string(name) : std::string(name.substr(0, kMax - 3)) + "...";
}

std::string kernel_line(const KernelPosition& k) {
  std::string line =
      fmt::format("kernel {} '{}': {}, {} at {:.3g} FLOP/byte, {} of attainable", k.id, short_name(k.name),
                  seconds(k.duration_s), k.roofline_case, k.arithmetic_intensity, pct(k.fraction_of_attainable));
  if (!k.binding_level.empty()) line += fmt::format(", binding roof {}", k.binding_level);
  return line;
}

// " against NVIDIA H200 SXM 141GB: 990 TFLOP/s (spec sheet), ...": which roofs a fraction is of.
std::string roofs_note(const std::string& roofs) { return roofs.empty() ? "" : " against " + roofs; }

std::string ncu_filter(std::string_view name) {
  const auto special = name.find_first_of(".*+?()[]{}|^$\\<> ");
  return std::string(name.substr(0, special));
}

// ---- The decide functions, one per node. Each picks a branch id of its node and states the numbers.

Decision decide_goal(const Evidence& e, const WalkState& s) {
  Decision d;
  d.branch = std::string(goal_name(s.goal));
  d.evidence.push_back(s.reason);
  if (e.mfu &&
      ((s.goal == Goal::kTtft && e.mfu->phase == "decode") || (s.goal == Goal::kTpot && e.mfu->phase == "prefill"))) {
    d.evidence.push_back(
        fmt::format("note: the mfu result '{}' is a {} step, but the goal is {}: its MFU/MBU judge "
                    "the other phase",
                    e.mfu->source, e.mfu->phase, goal_name(s.goal)));
  }
  return d;
}

Decision decide_measurement(const Evidence& e, const WalkState&) {
  Decision d;
  for (const auto& p : e.load) {
    if (p.client_limited) {
      d.branch = "client-limited";
      d.evidence.push_back(fmt::format("load '{}' ({}): INVALID, client-limited", p.source, p.label));
      for (const auto& r : p.invalid_reasons) {
        d.evidence.push_back(r);
        d.detail.push_back(fmt::format("{}: {}", p.source, r));
      }
      return d;
    }
  }
  for (const auto& p : e.load) {
    if (!p.valid) {
      d.branch = "invalid";
      d.evidence.push_back(fmt::format("load '{}' ({}): INVALID", p.source, p.label));
      for (const auto& r : p.invalid_reasons) {
        d.evidence.push_back(r);
        d.detail.push_back(fmt::format("{}: {}", p.source, r));
      }
      return d;
    }
  }
  for (const auto& p : e.load) {
    const double measured = static_cast<double>(p.completed + p.failed);
    const double share = core::ratio_or_zero(static_cast<double>(p.failed), measured);
    if (share >= kFailedShareMatters) {
      d.branch = "requests-failed";
      d.evidence.push_back(fmt::format("load '{}' ({}): {} of {} measured requests failed ({}, the limit is {})",
                                       p.source, p.label, p.failed, p.completed + p.failed, pct(share),
                                       pct(kFailedShareMatters)));
      return d;
    }
  }
  if (e.mfu && e.mfu->time_s && (e.mfu->mbu.value_or(0) > kBeatsRoof || e.mfu->mfu.value_or(0) > kBeatsRoof)) {
    d.branch = "beats-the-roof";
    d.evidence.push_back(fmt::format("mfu '{}': MBU {} and MFU {} from the measured {}: above {} of a roof",
                                     e.mfu->source, pct(e.mfu->mbu), pct(e.mfu->mfu), seconds(*e.mfu->time_s),
                                     pct(kBeatsRoof)));
    return d;
  }
  if (e.roofline) {
    for (const auto& k : e.roofline->kernels) {
      if (k.fraction_of_attainable > kBeatsRoof) {
        d.branch = "beats-the-roof";
        d.evidence.push_back(fmt::format("roofline '{}': {}: above {} of its roof", e.roofline->source, kernel_line(k),
                                         pct(kBeatsRoof)));
        return d;
      }
    }
  }
  if (e.load.empty() && !e.mfu && !e.roofline) {
    d.status = StepStatus::kNotApplicable;
    d.evidence.push_back(
        "no serving run or efficiency figure to check (a timeline is checked by perfhound trace itself)");
    return d;
  }
  d.branch = "trusted";
  if (!e.load.empty()) {
    d.evidence.push_back(fmt::format("{} load point{}: VALID, not client-limited, failures under {}", e.load.size(),
                                     e.load.size() == 1 ? "" : "s", pct(kFailedShareMatters)));
  }
  if (e.mfu && e.mfu->time_s) {
    d.evidence.push_back(fmt::format("mfu: MBU {} and MFU {}: within the roofs", pct(e.mfu->mbu), pct(e.mfu->mfu)));
  }
  if (e.roofline)
    d.evidence.push_back(fmt::format("roofline: {} placed kernels, none above its roof", e.roofline->kernels.size()));
  if (d.evidence.empty()) d.evidence.push_back("mfu: no measured time, so nothing to hold against the roofs");
  return d;
}

Decision decide_slo(const Evidence& e, const WalkState& s) {
  Decision d;
  if (e.load.empty()) {
    if (s.goal == Goal::kThroughput) {
      d.status = StepStatus::kMissing;
      d.hint =
          "give a load result to measure throughput and goodput: perfhound load --url URL --slo "
          "ttft=500ms,tpot=50ms --json -o load.json (or a perfhound sweep result)";
    } else {
      d.status = StepStatus::kNotApplicable;
      d.evidence.push_back("no serving run given");
    }
    return d;
  }
  if (s.goal == Goal::kStep) {
    d.status = StepStatus::kNotApplicable;
    d.evidence.push_back("the goal is a step time: a serving SLO does not decide it");
    return d;
  }
  const LoadPoint& p = heaviest(e.load);
  d.evidence.push_back(point_line(p));
  if (p.goodput_ratio) {
    d.evidence.push_back(fmt::format("goodput: {} of completed requests meet every SLO term", pct(*p.goodput_ratio)));
  }
  if (!p.slo_passed) {
    d.status = StepStatus::kMissing;
    d.hint = fmt::format(
        "'{}' has no SLO verdict: re-run perfhound load with --slo (e.g. ttft=500ms,tpot=50ms) to "
        "judge it",
        p.source);
    return d;
  }
  if (!*p.slo_passed) {
    d.branch = "missed";
  } else {
    d.branch = s.goal == Goal::kThroughput ? "met-at-this-load" : "met";
    if (d.branch == "met") {
      d.finding =
          fmt::format("the SLO is met at {} ({}): the {} goal is reached; stop", p.label, p.source, goal_name(s.goal));
    }
  }
  return d;
}

Decision decide_serving(const Evidence& e, const WalkState& s) {
  Decision d;
  if (e.load.empty()) {
    d.status = StepStatus::kNotApplicable;
    d.evidence.push_back("no serving run given");
    return d;
  }
  const LoadPoint& lo = lightest(e.load);
  const LoadPoint& hi = heaviest(e.load);
  if (e.load.size() < 2 || hi.load <= lo.load) {
    d.status = StepStatus::kMissing;
    d.evidence.push_back(point_line(hi));
    d.hint =
        "give a second load result at another concurrency or rate, or a perfhound sweep result (perfhound sweep "
        "--concurrency 1,4,16,64 --json -o sweep.json), to tell queueing from decode";
    return d;
  }
  if (!(lo.ttft_p50_s > 0) || !(lo.tpot_p50_s > 0) || !(hi.ttft_p50_s > 0) || !(hi.tpot_p50_s > 0)) {
    d.status = StepStatus::kMissing;
    d.hint =
        "the load results carry no TTFT and TPOT medians at both ends: re-run with streaming outputs of two "
        "tokens or more";
    return d;
  }
  const double g_ttft = hi.ttft_p50_s / lo.ttft_p50_s;
  const double g_tpot = hi.tpot_p50_s / lo.tpot_p50_s;
  d.evidence.push_back(point_line(lo));
  d.evidence.push_back(point_line(hi));
  d.evidence.push_back(
      fmt::format("from {} to {}: TTFT p50 grew {:.2f}x, TPOT p50 {:.2f}x (queueing when TTFT grows "
                  ">= {:.0f}x and >= {:.0f}x TPOT's growth; decode when TPOT grows >= {:.2f}x)",
                  lo.label, hi.label, g_ttft, g_tpot, kQueueingGrowthRatio, kQueueingGrowthRatio, kTpotGrowthMatters));
  if (g_ttft >= kQueueingGrowthRatio && g_ttft >= kQueueingGrowthRatio * g_tpot) {
    d.branch = "queueing";
    d.finding = fmt::format(
        "queueing-bound: TTFT p50 grew {:.2f}x from {} to {} while TPOT grew {:.2f}x: requests wait "
        "for a slot, the step itself is not what load costs",
        g_ttft, lo.label, hi.label, g_tpot);
  } else if (g_tpot >= kTpotGrowthMatters) {
    d.branch = "decode";
  } else {
    d.branch = s.goal == Goal::kThroughput ? "headroom" : "below-knee";
  }
  return d;
}

Decision decide_capacity(const Evidence& e, const WalkState&) {
  Decision d;
  if (!e.mfu) {
    d.status = StepStatus::kNotApplicable;
    d.evidence.push_back(
        "not checked: perfhound mfu computes whether weights and KV cache fit (a timeline never "
        "shows capacity)");
    return d;
  }
  d.branch = e.mfu->fits ? "fits" : "does-not-fit";
  d.evidence.push_back(
      fmt::format("mfu '{}': {}", e.mfu->source,
                  e.mfu->fits ? "weights and KV cache fit the chip's memory per GPU" : e.mfu->verdict));
  return d;
}

Decision decide_busy_idle(const Evidence& e, const WalkState&) {
  Decision d;
  if (!e.trace) {
    d.status = StepStatus::kMissing;
    d.hint =
        "give a trace to tell busy from idle: record the run with torch.profiler (or nsys) and pass the trace "
        "file, or perfhound trace run.json.gz --json -o trace.json";
    return d;
  }
  const TraceEvidence& t = *e.trace;
  d.evidence.push_back(busy_line(t));
  // The split decides the overhead sub-case, so the overhead node shows it; the other branches show it here.
  const bool overhead = t.bottleneck == "launch-bound" || t.bottleneck == "sync-bound" ||
                        t.bottleneck == "untraced-host" || t.bottleneck == "device-side-gaps";
  if (t.gap_count > 0 && !overhead) d.evidence.push_back(idle_split(t));
  // Shares under 1% say nothing about the branch; the trace result still has them.
  if (t.copy_share_of_busy >= 0.01)
    d.evidence.push_back(fmt::format("host<->device copies: {} of GPU busy time", pct(t.copy_share_of_busy)));
  if (t.exposed_comm_ratio >= 0.01)
    d.evidence.push_back(fmt::format("exposed communication: {} of the active span", pct(t.exposed_comm_ratio)));
  d.evidence.push_back(fmt::format("trace verdict: {} ({})", t.bottleneck, t.summary));
  const std::string& b = t.bottleneck;
  if (overhead) {
    d.branch = "overhead";
  } else if (b == "data-movement" || b == "communication") {
    d.branch = b;
    for (const auto& line : t.verdict_evidence) {
      if (line.find("copies:") != std::string::npos || line.find("communication kernels") != std::string::npos) {
        d.evidence.push_back(line);
      }
    }
  } else if (b == "kernel-bound") {
    d.branch = "busy";
  } else {
    d.status = StepStatus::kMissing;
    d.hint = fmt::format("the trace verdict '{}' is unknown to this perfhound: analyze the trace with this version", b);
  }
  return d;
}

Decision decide_overhead(const Evidence& e, const WalkState&) {
  Decision d;
  PH_CHECK(e.trace.has_value());
  const TraceEvidence& t = *e.trace;
  d.branch = t.bottleneck;
  d.evidence.push_back(idle_split(t));
  d.evidence.push_back(
      fmt::format("{} of the {} idle gaps are under 10 us, the size of one eager launch; {} CUDA Graph "
                  "launches",
                  t.short_gap_count, t.gap_count, t.graph_launch_count));
  // The trace verdict's own lines past the busy and idle-split ones busy_idle already showed: launch counts,
  // CUDA Graph replays, the profiler's share, communication also present.
  for (const auto& line : t.verdict_evidence) {
    if (line.starts_with("GPU ") || line.starts_with("idle time by")) continue;
    d.evidence.push_back(line);
  }
  return d;
}

Decision decide_roofline(const Evidence& e, const WalkState& s) {
  Decision d;
  if (e.roofline && !e.roofline->kernels.empty()) {
    const RooflineEvidence& r = *e.roofline;
    const auto totals = case_totals(r);
    const double all = total_kernel_time(r);
    std::string best;
    double best_time = -1;
    // Fixed order, so equal times go to the first listed: the roofline's own case order.
    for (const char* c : {"below_both", "memory_slope", "compute_roof"}) {
      const auto it = totals.find(c);
      if (it == totals.end()) continue;
      d.evidence.push_back(fmt::format("{}: {} kernel{}, {} of the profiled kernel time; longest: {}", c,
                                       it->second.count, it->second.count == 1 ? "" : "s",
                                       pct(core::ratio_or_zero(it->second.time_s, all)),
                                       kernel_line(*it->second.longest)));
      if (it->second.time_s > best_time) {
        best = c;
        best_time = it->second.time_s;
      }
    }
    if (r.unplaced > 0)
      d.evidence.push_back(fmt::format("{} kernels without FLOPs, bytes or a roof were left out", r.unplaced));
    if (e.trace && !e.trace->dominant_kernel.empty()) {
      const std::string& dominant = e.trace->dominant_kernel;
      d.evidence.push_back(
          fmt::format("the trace's dominant kernel: {} ({} of kernel time)", dominant, pct(e.trace->dominant_kernel_share)));
      // Matched on the function's own name: the trace's display name and ncu's "Kernel Name" format templates,
      // anonymous namespaces and parameter lists differently for the one kernel.
      const std::string bare = trace::bare_kernel_name(dominant);
      const bool profiled = std::any_of(r.kernels.begin(), r.kernels.end(), [&](const KernelPosition& k) {
        return trace::bare_kernel_name(k.name) == bare;
      });
      if (r.named_kernels && !profiled) {
        // The export's kernels are not the ones the trace spends its time in: judging the roofline on them
        // would answer for other work (another run, another phase, a -k filter that missed).
        d.status = StepStatus::kMissing;
        d.evidence.push_back(fmt::format("the roofline export's {} kernels do not include it", r.kernels.size()));
        d.hint = fmt::format("give the dominant kernel's roofline: ncu --set roofline --csv --page raw -k regex:'{}' "
                             "python app.py > kernels.csv, from the run the trace is of",
                             ncu_filter(dominant));
        return d;
      }
    }
    d.branch = best == "memory_slope" ? "memory-slope" : best == "compute_roof" ? "compute-roof" : "below-both";
    d.evidence.push_back(fmt::format("the case holding the most kernel time decides: {}", best));
    if (e.mfu && e.mfu->time_s) {
      const std::string mfu_case = e.mfu->binding_roof == "memory" ? "memory-slope" : "compute-roof";
      if (d.branch != "below-both" && mfu_case != d.branch) {
        // A measured step bound by one roof and kernels on the other cannot both describe one step: the walk
        // would go on (and may STOP) on whichever the kernels say. Undecided instead.
        d.status = StepStatus::kMissing;
        d.branch.clear();
        d.evidence.push_back(fmt::format("the mfu result '{}' ({} step, measured) is bound by the {} roof while the "
                                         "kernels say {}: they are not of one run and phase",
                                         e.mfu->source, e.mfu->phase, e.mfu->binding_roof, best));
        d.hint = "give the roofline export and the mfu result of the same run and phase (or one of them alone)";
      }
    }
    return d;
  }
  if (e.mfu) {
    const MfuEvidence& m = *e.mfu;
    d.evidence.push_back(fmt::format("mfu '{}': {} of {} at batch {}: the {} roof binds (roofline bound {}){}", m.source,
                                     m.phase, m.model, m.batch, m.binding_roof, seconds(m.roofline_time_s),
                                     roofs_note(m.roofs)));
    if (m.time_s && m.mfu && m.mbu) {
      const double of_roof = std::max(*m.mfu, *m.mbu);
      d.evidence.push_back(
          fmt::format("measured {}: MBU {}, MFU {}: the step runs at {} of its binding roof "
                      "(below both under {})",
                      seconds(*m.time_s), pct(m.mbu), pct(m.mfu), pct(of_roof), pct(kStepFarBelowRoof)));
      if (of_roof < kStepFarBelowRoof) {
        d.branch = "below-both";
        return d;
      }
    } else {
      d.evidence.push_back("no measured time: the binding roof is from the arithmetic alone");
    }
    d.branch = m.binding_roof == "memory" ? "memory-slope" : "compute-roof";
    return d;
  }
  d.status = StepStatus::kMissing;
  const std::string kernel =
      e.trace && !e.trace->dominant_kernel.empty() ? ncu_filter(e.trace->dominant_kernel) : "KERNEL";
  const char* mfu_flags = s.goal == Goal::kTpot   ? "--phase decode --tpot T"
                          : s.goal == Goal::kTtft ? "--phase prefill --ttft T"
                                                  : "--phase prefill|decode --step-time T";
  d.hint = fmt::format(
      "give the dominant kernel's roofline: ncu --set roofline --csv --page raw -k regex:'{}' python "
      "app.py > kernels.csv and pass kernels.csv (or a perfhound roofline --json result), or an mfu "
      "result (perfhound mfu --model M --hw H {} --json)",
      kernel, mfu_flags);
  if (e.trace) {
    // The trace's kernel-side fixes (fusion, tensor cores), less its own "ncu the dominant kernel" the hint says.
    for (const auto& step : e.trace->next_steps) {
      if (!step.starts_with("ncu ")) d.detail.push_back("trace: " + step);
    }
  }
  return d;
}

// How near the roof the judged work is, from the mfu step when its binding roof is this one (the seed's
// pairing rule, by the roof that binds), else from the roofline kernels of this case.
struct RoofReading {
  double value = 0;
  double threshold = 0;
  std::string subject;      // "at 78.0% MBU decode", "at 89.5% of the roof (time-weighted) the memory-slope kernels"
  std::string verb;         // "is", "are"
  bool whole_step = false;  // from the mfu result (MBU, MFU), not from the roofline kernels
};

Decision judge_roof(std::optional<RoofReading> r, std::string_view roof, std::string_view levers, std::string hint) {
  Decision d;
  if (!r) {
    d.status = StepStatus::kMissing;
    d.hint = std::move(hint);
    return d;
  }
  d.evidence.push_back(fmt::format("at the {} roof from {}", roof, pct(r->threshold)));
  if (r->value >= r->threshold) {
    d.branch = "at-roof";
    d.finding = fmt::format("{} {} at the {} roof: stop optimizing the kernel; the levers left are {}", r->subject,
                            r->verb, roof, levers);
  } else {
    d.branch = "headroom";
    d.finding = fmt::format("{}-bound with headroom: {} {} below the {} roof's {}",
                            roof == "bandwidth" ? "memory" : "compute", r->subject, r->verb, roof, pct(r->threshold));
  }
  return d;
}

Decision decide_bandwidth_roof(const Evidence& e, const WalkState&) {
  std::optional<RoofReading> reading;
  std::vector<std::string> evidence;
  if (e.mfu && e.mfu->binding_roof == "memory" && e.mfu->mbu && e.mfu->time_s) {
    reading = RoofReading{*e.mfu->mbu, kAtBandwidthRoof, fmt::format("at {} MBU {}", pct(e.mfu->mbu), e.mfu->phase),
                          "is", true};
    evidence.push_back(fmt::format("mfu '{}': {} at batch {}, measured {}: MBU {}, MFU {}{}", e.mfu->source,
                                   e.mfu->phase, e.mfu->batch, seconds(*e.mfu->time_s), pct(e.mfu->mbu),
                                   pct(e.mfu->mfu), roofs_note(e.mfu->roofs)));
    if (e.mfu->phase == "decode") {
      evidence.push_back(
          fmt::format("MFU {} is expected to be low for decode (memory-bound): judged by MBU, not MFU "
                      "(seed section 5)",
                      pct(e.mfu->mfu)));
    }
  } else if (e.roofline) {
    if (const auto f = case_fraction(*e.roofline, "memory_slope")) {
      reading =
          RoofReading{*f, kAtBandwidthRoof,
                      fmt::format("at {} of the roof (time-weighted) the memory-slope kernels", pct(*f)), "are", false};
      evidence.push_back(
          fmt::format("roofline '{}': the memory-slope kernels' roofline bound over their measured time, "
                      "time-weighted: {}{}",
                      e.roofline->source, pct(*f), roofs_note(e.roofline->roofs)));
    }
  }
  if (reading && reading->whole_step && e.roofline) {
    if (const auto f = case_fraction(*e.roofline, "memory_slope");
        f && *f >= kAtBandwidthRoof && reading->value < kAtBandwidthRoof) {
      evidence.push_back(
          fmt::format("the memory-slope kernels themselves run at {} of their roof: the step's headroom is "
                      "in the other kernels and the gaps",
                      pct(*f)));
    }
  }
  Decision d =
      judge_roof(reading, "bandwidth",
                 "fewer bytes (quantize), more bandwidth (another chip) or more arithmetic intensity (batch)",
                 "give the measured step time to perfhound mfu (--tpot, --ttft or --step-time) for MBU, or the "
                 "kernels' ncu roofline export");
  evidence.insert(evidence.end(), d.evidence.begin(), d.evidence.end());
  d.evidence = std::move(evidence);
  return d;
}

Decision decide_compute_roof(const Evidence& e, const WalkState&) {
  std::optional<RoofReading> reading;
  std::vector<std::string> evidence;
  if (e.mfu && e.mfu->binding_roof == "compute" && e.mfu->mfu && e.mfu->time_s) {
    reading = RoofReading{*e.mfu->mfu, kAtComputeRoofMfu, fmt::format("at {} MFU {}", pct(e.mfu->mfu), e.mfu->phase),
                          "is", true};
    evidence.push_back(
        fmt::format("mfu '{}': {} at batch {}, measured {}: MFU {}, MBU {}{} (a whole step: well tuned from "
                    "MFU {})",
                    e.mfu->source, e.mfu->phase, e.mfu->batch, seconds(*e.mfu->time_s), pct(e.mfu->mfu),
                    pct(e.mfu->mbu), roofs_note(e.mfu->roofs), pct(kAtComputeRoofMfu)));
  } else if (e.roofline) {
    if (const auto f = case_fraction(*e.roofline, "compute_roof")) {
      reading =
          RoofReading{*f, kAtComputeRoofKernel,
                      fmt::format("at {} of the roof (time-weighted) the compute-roof kernels", pct(*f)), "are", false};
      evidence.push_back(
          fmt::format("roofline '{}': the compute-roof kernels' roofline bound over their measured time, "
                      "time-weighted: {}{} (single kernels: at the roof from {} of attainable)",
                      e.roofline->source, pct(*f), roofs_note(e.roofline->roofs), pct(kAtComputeRoofKernel)));
    }
  }
  // Both views: a GEMM at its roof inside a step far from it puts the headroom in the rest of the step.
  if (reading && reading->whole_step && e.roofline) {
    if (const auto f = case_fraction(*e.roofline, "compute_roof");
        f && *f >= kAtComputeRoofKernel && reading->value < kAtComputeRoofMfu) {
      evidence.push_back(
          fmt::format("the compute-roof kernels themselves run at {} of their roof: the step's headroom is "
                      "in the other kernels and the gaps, not in the GEMMs",
                      pct(*f)));
    }
  }
  Decision d =
      judge_roof(reading, "compute", "lower precision (FP8/INT8) or fewer FLOPs",
                 "give the measured step time to perfhound mfu (--ttft or --step-time) for MFU, or the kernels' "
                 "ncu roofline export");
  evidence.insert(evidence.end(), d.evidence.begin(), d.evidence.end());
  d.evidence = std::move(evidence);
  return d;
}

// ---- The table.

std::vector<Node> build_nodes() {
  const std::string roof_stop =
      "now: further kernel work is wasted (seed section 9 step 5); document the bottleneck, "
      "the numbers and the conditions (step 6)";
  std::vector<Node> nodes;
  nodes.push_back(Node{NodeId::kGoal,
                       "goal",
                       "What metric is being optimized?",
                       "--goal, else the inputs: a load result, the mfu phase",
                       "section 9 step 1",
                       {
                           {"ttft",
                            "optimize time to first token: the prefill, and the wait for a slot under load",
                            NodeId::kMeasurement,
                            {},
                            {}},
                           {"tpot", "optimize time per output token: the decode step", NodeId::kMeasurement, {}, {}},
                           {"throughput",
                            "optimize throughput and goodput: requests or tokens per second inside the SLO",
                            NodeId::kMeasurement,
                            {},
                            {}},
                           {"step", "optimize the time of the profiled step or kernels", NodeId::kMeasurement, {}, {}},
                       },
                       std::nullopt,
                       decide_goal});
  nodes.push_back(Node{
      NodeId::kMeasurement,
      "measurement",
      "Can the numbers be trusted?",
      "load: VALID, client-limited, failed share; mfu: MFU/MBU above the roof; roofline: fraction of attainable",
      "section 7, section 10; STYLE.md rule 12",
      {
          {"client-limited",
           "the load run was limited by the client, not the server (INVALID): its latencies are the client's",
           std::nullopt,
           {"fix the measurement before reading any serving number (seed section 7): the client must not be the limit",
            "re-run from a host with spare cores, or split the load across client processes"},
           "the run ends VALID and not client-limited; then diagnose again"},
          {"invalid",
           "the load run is INVALID: its numbers are not the server's",
           std::nullopt,
           {"fix the measurement before reading any serving number (seed section 7)"},
           "the run ends VALID; then diagnose again"},
          {"requests-failed",
           fmt::format("requests failed (at least {}): the latency distribution lost its slowest requests",
                       pct(kFailedShareMatters)),
           std::nullopt,
           {"fix the failures first: the load result's errors block names each kind and its first message",
            "timeouts: raise --timeout or lower the load; HTTP errors: check the server's log"},
           fmt::format("fewer than {} of the measured requests fail", pct(kFailedShareMatters))},
          {"beats-the-roof",
           "a measurement beats the chip's roof: an input is wrong, or the server does less work than the model "
           "(prefix caching, speculative decoding)",
           std::nullopt,
           {"check the model, precision, batch and lengths given to perfhound mfu against what ran",
            "check the chip (--hw): another SKU, or a measured ceiling",
            "with prefix caching or speculative decoding on: measure with them off, or count the work they skip"},
           fmt::format("every MFU, MBU and fraction of attainable is at most {}", pct(kBeatsRoof))},
          {"trusted", "the numbers can be trusted", NodeId::kSlo, {}, {}},
      },
      NodeId::kSlo,
      decide_measurement});
  nodes.push_back(
      Node{NodeId::kSlo,
           "slo",
           "Does the serving run meet its SLO?",
           "load: the SLO gate and goodput at the heaviest load",
           "section 9 step 5, section 8",
           {
               {"met",
                "the latency SLO is met: the goal is reached; stop (seed section 9 step 5)",
                std::nullopt,
                {"stop optimizing latency; document the bottleneck, the numbers and the conditions (step 6)",
                 "to serve more at the same SLO, diagnose again with --goal throughput"},
                "now: further latency work is wasted",
                true},
               {"met-at-this-load",
                "the SLO holds at this load; for goodput the question is how much more load it holds",
                NodeId::kServing,
                {},
                {}},
               {"missed", "the SLO is missed: find whether load costs waiting or step time", NodeId::kServing, {}, {}},
           },
           NodeId::kServing,
           decide_slo});
  nodes.push_back(Node{
      NodeId::kServing,
      "serving",
      "Does load cost waiting (queueing) or step time (decode)?",
      "load: TTFT and TPOT medians at the lightest and the heaviest load",
      "section 8",
      {
          {"queueing",
           "queueing-bound: TTFT grows with load while TPOT does not: requests wait for a slot",
           std::nullopt,
           {"operate below the knee: perfhound sweep --slo finds the highest load inside the SLO",
            "admit more sequences per step (the server's max batch, e.g. max_num_seqs) while the KV cache allows: TPOT "
            "stays flat, so each slot is cheap",
            "add replicas for the load above the knee (perfhound sweep's capacity figure)",
            "long prompts blocking the queue: chunked prefill, or prefill/decode disaggregation"},
           "the operating load's p95 TTFT is inside the SLO with the headroom you need: the highest throughput still "
           "inside the SLO box (seed section 8)"},
          {"decode",
           "decode-bound: TPOT grows with load: each step slows as the batch grows; the GPU side decides why",
           NodeId::kCapacity,
           {},
           {}},
          {"headroom",
           "below the knee: neither TTFT nor TPOT grows with load yet; the server has headroom",
           std::nullopt,
           {"raise the offered load (perfhound sweep --concurrency 1,4,16,64, or --rate) until TTFT or TPOT climbs: "
            "the knee is the capacity"},
           "the load reaches the knee: the highest throughput still inside the SLO (seed section 8)"},
          {"below-knee",
           "below the knee: load does not cost latency here; the latency is the model's own step time",
           NodeId::kCapacity,
           {},
           {}},
      },
      NodeId::kCapacity,
      decide_serving});
  nodes.push_back(Node{NodeId::kCapacity,
                       "capacity",
                       "Do the weights and the KV cache fit?",
                       "mfu: memory per GPU against the chip",
                       "section 2 (capacity, the fourth class)",
                       {
                           {"does-not-fit",
                            "capacity-bound: weights and KV cache do not fit the chip's memory per GPU",
                            std::nullopt,
                            {"raise tensor parallelism", "shrink the batch or the context",
                             "quantize the weights or the KV cache (fp8, int4)"},
                            "weights and the KV cache at the end of the generation fit, with room for activations"},
                           {"fits", "weights and KV cache fit", NodeId::kBusyIdle, {}, {}},
                       },
                       NodeId::kBusyIdle,
                       decide_capacity});
  nodes.push_back(Node{
      NodeId::kBusyIdle,
      "busy_idle",
      "Is the GPU busy or idle?",
      "trace: busy / active span, idle time by host state, copy and communication shares, the trace verdict",
      "section 9 step 2; section 4",
      {
          {"overhead",
           "the GPU is idle while the host is busy: an overhead problem (fix the host and launch side)",
           NodeId::kOverhead,
           {},
           {}},
          {"data-movement",
           "data-movement-bound: host<->device copies hold the GPU (IDLE + waiting on memcpy)",
           std::nullopt,
           {"keep tensors on the device between steps; copy only what the host needs",
            "pin host memory (tensor.pin_memory(), cudaHostAlloc): pageable copies are staged by the driver",
            "overlap the remaining copies with compute (non_blocking=True, a separate stream)"},
           fmt::format("copies are under {} of GPU busy time and the GPU is busy >= {:.0f}% of its active span; then "
                       "the kernels decide (step 3)",
                       pct(trace::kCopiesDominate), trace::kBusyEnough * 100)},
          {"communication",
           "communication-bound: collectives not hidden behind compute (IDLE + waiting on NCCL)",
           std::nullopt,
           {"overlap collectives with compute (gradient bucketing, async collectives, a communication stream)",
            "send fewer, larger collectives; lower-precision communication",
            "revisit the parallelism: keep tensor parallelism within NVLink (Knowledge 05)"},
           fmt::format("exposed communication is under {} of the active span", pct(trace::kExposedCommMatters))},
          {"busy",
           "the GPU is busy: a roofline problem (fix the kernel, precision or batch side)",
           NodeId::kRoofline,
           {},
           {}},
      },
      NodeId::kRoofline,
      decide_busy_idle});
  nodes.push_back(Node{
      NodeId::kOverhead,
      "overhead",
      "Idle, with the host doing what?",
      "trace: idle time by host state, gaps under 10 us, CUDA Graph launches",
      "section 9 step 2; section 4",
      {
          {"launch-bound",
           "overhead-bound (launch): the CPU cannot launch work fast enough; many small kernels with gaps",
           std::nullopt,
           {"capture the steady-state loop in a CUDA Graph (torch.compile mode=\"reduce-overhead\", "
            "torch.cuda.CUDAGraph)",
            "fuse small kernels (torch.compile) so there are fewer to launch",
            "raise the batch so each launch carries more work",
            "move Python and framework work off the launch path (async)"},
           kBusyStop},
          {"sync-bound",
           "overhead-bound (synchronization): host synchronizations serialize CPU and GPU",
           std::nullopt,
           {"remove host synchronizations from the loop (tensor.item(), .cpu(), printing tensors, "
            "cudaDeviceSynchronize)",
            "make copies asynchronous (pinned memory, non_blocking=True) and wait on events, not the device",
            "overlap independent work on separate streams"},
           kBusyStop},
          {"untraced-host",
           "overhead-bound (host): the host is busy in something the trace did not record: data loading, Python, I/O",
           std::nullopt,
           {"record the host side to name it (torch.profiler with_stack=True; nsys --trace=cuda,nvtx,osrt)",
            "data loading: DataLoader workers, pin_memory=True, prefetch the next batch while this one runs",
            "then CUDA Graphs and fusion for the launch overhead that remains"},
           kBusyStop},
          {"device-side-gaps",
           "device-side gaps: the next work was already queued, yet the GPU waited (dispatch, stream dependencies)",
           std::nullopt,
           {"fuse kernels so fewer dispatch gaps remain",
            "check cross-stream waits and events that hold queued work back"},
           kBusyStop},
      },
      std::nullopt,
      decide_overhead});
  nodes.push_back(Node{
      NodeId::kRoofline,
      "roofline",
      "Where do the dominant kernels sit on the roofline?",
      "roofline: each kernel's case and time; else mfu: the binding roof and the step's fraction of it",
      "section 9 step 3; section 6",
      {
          {"memory-slope", "memory-bound: the dominant work sits on the memory slope", NodeId::kBandwidthRoof, {}, {}},
          {"compute-roof", "compute-bound: the dominant work sits on the compute roof", NodeId::kComputeRoof, {}, {}},
          {"below-both",
           "below both roofs: neither bandwidth nor compute explains the time; low occupancy or overhead (seed section "
           "6 "
           "step 5, the most actionable case)",
           std::nullopt,
           {"ncu --set full the dominant kernel: occupancy, registers per thread, achieved vs theoretical warps",
            "tune the launch configuration and tiling (block size, split-K, tile shape)",
            "a whole step this far below: give a trace, launch overhead is the usual cause (perfhound trace)"},
           fmt::format("the dominant kernels reach {} of attainable (a whole step {} of its roof); then judge them on "
                       "their roof",
                       pct(roofline::kBelowBothFraction), pct(kStepFarBelowRoof))},
      },
      std::nullopt,
      decide_roofline});
  nodes.push_back(
      Node{NodeId::kBandwidthRoof,
           "bandwidth_roof",
           "How close to the bandwidth roof?",
           "mfu: MBU (memory-bound step); else roofline: the memory-slope kernels' time-weighted fraction",
           "section 5; section 9 step 5",
           {
               {"at-roof",
                "at the bandwidth roof: memory-bound work at the limit physics allows; stop optimizing the kernel",
                std::nullopt,
                {"fewer bytes: quantize the weights or the KV cache (fp8, int4)",
                 "more arithmetic intensity: a larger batch reads the weights once for more tokens",
                 "more bandwidth: a different chip (perfhound hw list)"},
                roof_stop,
                true},
               {"headroom",
                "memory-bound with headroom below the bandwidth roof",
                std::nullopt,
                {"fuse the memory-bound kernels: one pass over HBM instead of many",
                 "ncu the dominant kernel's memory workload: coalescing, L2 hit rate, DRAM throughput",
                 "quantize or batch to cut the bytes per token"},
                fmt::format("MBU (or the memory-slope kernels' fraction of the roof) >= {}", pct(kAtBandwidthRoof))},
           },
           std::nullopt,
           decide_bandwidth_roof});
  nodes.push_back(Node{NodeId::kComputeRoof,
                       "compute_roof",
                       "How close to the compute roof?",
                       "mfu: MFU (compute-bound step); else roofline: the compute-roof kernels' time-weighted fraction",
                       "section 5; section 9 step 5",
                       {
                           {"at-roof",
                            "at the compute roof: a well-tuned compute-bound step; stop tuning the kernel",
                            std::nullopt,
                            {"lower precision: FP8/INT8 tensor cores double the roof",
                             "fewer FLOPs: a smaller model, shorter prompts, prefix caching"},
                            roof_stop,
                            true},
                           {"headroom",
                            "compute-bound with headroom below the compute roof",
                            std::nullopt,
                            {"better tiling: a tuned GEMM or attention kernel (FlashAttention, cuBLASLt autotuning)",
                             "ncu the dominant kernel: tensor-pipe utilization and stall reasons",
                             "lower precision (FP8) raises the roof itself"},
                            fmt::format("MFU >= {} for the step (a single kernel: >= {} of attainable)",
                                        pct(kAtComputeRoofMfu), pct(kAtComputeRoofKernel))},
                       },
                       std::nullopt,
                       decide_compute_roof});
  return nodes;
}

const Branch* find_branch(const Node& node, std::string_view id) {
  for (const auto& b : node.branches) {
    if (b.id == id) return &b;
  }
  return nullptr;
}

// The goal from the inputs, when --goal did not give it.
std::pair<Goal, std::string> infer_goal(const Evidence& e) {
  if (!e.load.empty()) {
    return {Goal::kThroughput,
            "inferred: a load result was given, so the serving run's throughput and goodput (--goal "
            "ttft or tpot for a latency goal)"};
  }
  if (e.mfu && e.mfu->phase == "decode") {
    return {Goal::kTpot,
            fmt::format("inferred: the mfu result '{}' is a decode step (--goal to change)", e.mfu->source)};
  }
  if (e.mfu && e.mfu->phase == "prefill") {
    return {Goal::kTtft, fmt::format("inferred: the mfu result '{}' is a prefill (--goal to change)", e.mfu->source)};
  }
  return {Goal::kStep, "inferred: no load or mfu result, so the time of the profiled step (--goal to change)"};
}

}  // namespace

std::string_view goal_name(Goal goal) {
  switch (goal) {
    case Goal::kTtft:
      return "ttft";
    case Goal::kTpot:
      return "tpot";
    case Goal::kThroughput:
      return "throughput";
    case Goal::kStep:
      return "step";
  }
  return "step";
}

core::Result<Goal> parse_goal(std::string_view text) {
  if (text == "ttft") return Goal::kTtft;
  if (text == "tpot") return Goal::kTpot;
  if (text == "throughput" || text == "goodput") return Goal::kThroughput;
  if (text == "step") return Goal::kStep;
  return core::Error{fmt::format("--goal: '{}' is not a goal (use ttft, tpot, throughput or step)", text)};
}

std::string_view step_status_name(StepStatus status) {
  switch (status) {
    case StepStatus::kDecided:
      return "decided";
    case StepStatus::kMissing:
      return "missing";
    case StepStatus::kNotApplicable:
      return "not_applicable";
  }
  return "decided";
}

std::span<const Node> playbook_nodes() {
  static const std::vector<Node> kNodes = build_nodes();
  return kNodes;
}

const Node& playbook_node(NodeId id) {
  for (const auto& n : playbook_nodes()) {
    if (n.id == id) return n;
  }
  PH_CHECK(false && "every NodeId has a node");
  return playbook_nodes().front();
}

Diagnosis diagnose(const Evidence& evidence, std::optional<Goal> goal) {
  Diagnosis out;
  if (goal) {
    out.goal = {*goal, false, fmt::format("given with --goal {}", goal_name(*goal))};  // goodput reads as throughput
  } else {
    auto [g, reason] = infer_goal(evidence);
    out.goal = {g, true, std::move(reason)};
  }
  std::optional<NodeId> at = playbook_nodes().front().id;
  while (at) {
    const Node& node = playbook_node(*at);
    Step step{&node, node.decide(evidence, out.goal), nullptr};
    at.reset();
    if (step.decision.status == StepStatus::kDecided) {
      step.branch = find_branch(node, step.decision.branch);
      PH_CHECK(step.branch != nullptr && "a decide function returned a branch its node does not have");
      at = step.branch->next;
      if (!at) {
        out.conclusion = step.decision.finding.empty() ? step.branch->finding : step.decision.finding;
        // The inputs' own remedies first (a run's INVALID reasons name their fix), then the table's.
        out.next = step.decision.detail;
        out.next.insert(out.next.end(), step.branch->fixes.begin(), step.branch->fixes.end());
        out.stop_when = step.branch->stop_when;
        out.stop = step.branch->stop;
      }
    } else {
      if (step.decision.status == StepStatus::kMissing) {
        out.missing.push_back(step.decision.hint);
      }
      at = node.when_absent;
      if (!at) {
        if (step.decision.status == StepStatus::kMissing) {
          out.conclusion = fmt::format("undecided at {}: {} The inputs do not say.", node.name, node.question);
          out.next.push_back(step.decision.hint);
          out.next.insert(out.next.end(), step.decision.detail.begin(), step.decision.detail.end());
        } else {
          out.conclusion = fmt::format("undecided at {}: {}", node.name, node.question);
        }
        out.stop_when = kGeneralStop;
      }
    }
    out.path.push_back(std::move(step));
  }
  out.next.emplace_back(kOneChange);
  return out;
}

nlohmann::ordered_json to_json(const Diagnosis& d) {
  nlohmann::ordered_json j;
  j["goal"] = {{"metric", goal_name(d.goal.goal)}, {"inferred", d.goal.goal_inferred}, {"reason", d.goal.reason}};
  auto path = nlohmann::ordered_json::array();
  for (const auto& s : d.path) {
    nlohmann::ordered_json js;
    js["node"] = s.node->name;
    js["question"] = s.node->question;
    js["seed"] = s.node->seed;
    js["status"] = step_status_name(s.decision.status);
    js["branch"] = s.branch != nullptr ? nlohmann::ordered_json(s.branch->id) : nlohmann::ordered_json(nullptr);
    js["finding"] = s.branch != nullptr
                        ? nlohmann::ordered_json(s.decision.finding.empty() ? s.branch->finding : s.decision.finding)
                        : nlohmann::ordered_json(nullptr);
    js["evidence"] = s.decision.evidence;
    js["hint"] = s.decision.hint.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s.decision.hint);
    path.push_back(std::move(js));
  }
  j["path"] = std::move(path);
  const Step& last = d.path.back();
  j["conclusion"] = {
      {"node", last.node->name},
      {"branch", last.branch != nullptr ? nlohmann::ordered_json(last.branch->id) : nlohmann::ordered_json(nullptr)},
      {"decided", last.branch != nullptr},
      {"finding", d.conclusion},
      {"stop", d.stop}};
  j["next"] = d.next;
  j["stop_when"] = d.stop_when;
  j["missing_inputs"] = d.missing;
  return j;
}

}  // namespace perfhound::diagnose
