#include "report/trace_report_writer.h"

#include <algorithm>
#include <fmt/format.h>

#include "core/percentile.h"
#include "core/units.h"
#include "report/table_writer.h"

namespace perfhound::report {
namespace {

using core::format_bytes;
using core::format_duration_ns;
using core::format_percent;
using core::format_si;
using namespace perfhound::trace;

std::string dur(double ns) { return format_duration_ns(ns); }
std::string dur(std::int64_t ns) { return format_duration_ns(static_cast<double>(ns)); }

std::string truncate(std::string_view s, std::size_t n) {
  if (s.size() <= n) return std::string(s);
  return std::string(s.substr(0, n - 3)) + "...";
}

void section(std::string& out, std::string_view title) { out += fmt::format("\n{}\n", title); }

void render_verdict(std::string& out, const Verdict& v) {
  out += fmt::format("VERDICT: {}\n", v.summary);
  out += fmt::format("  bottleneck: {} (class: {}), judged on GPU {}\n", bottleneck_kind_name(v.kind),
                     v.bottleneck_class, v.device);
  out += "  evidence:\n";
  for (const auto& e : v.evidence) out += fmt::format("    - {}\n", e);
  out += "  next steps, in order:\n";
  for (std::size_t i = 0; i < v.next_steps.size(); ++i) out += fmt::format("    {}. {}\n", i + 1, v.next_steps[i]);
}

void render_utilization(std::string& out, const Utilization& u) {
  section(out, fmt::format("UTILIZATION (profiled window {})", dur(u.window_ns)));
  TableWriter t({{"device", Align::kLeft}, {"busy"}, {"of window"}, {"active span"}, {"of span"}, {"idle in span"},
                 {"busy blocks"}, {"streams"}});
  for (const auto& d : u.devices) {
    t.add_row({fmt::format("GPU {}", d.device), dur(d.busy_ns), format_percent(d.window_busy_ratio),
               dur(d.active_span_ns), format_percent(d.active_busy_ratio), dur(d.active_idle_ns),
               std::to_string(d.busy_block_count), std::to_string(d.streams.size())});
  }
  out += t.render();
}

void render_gaps(std::string& out, const GapAttribution& g, std::int64_t window_start_ns,
                 const TraceReportOptions& options) {
  for (const auto& d : g.devices) {
    if (d.gap_count == 0) continue;
    section(out, fmt::format("IDLE GAPS, GPU {}: {} gaps, {} idle inside the active span ({} before, {} after it)",
                             d.device, d.gap_count, dur(d.idle_ns), dur(d.leading_idle_ns), dur(d.trailing_idle_ns)));
    TableWriter causes({{"host was", Align::kLeft}, {"idle time"}, {"share"}, {"gaps (mostly)"}});
    for (std::size_t c = 0; c < kHostCategoryCount; ++c) {
      const auto& total = d.categories[c];
      if (total.idle_ns == 0 && total.gap_count == 0) continue;
      causes.add_row({std::string(host_category_name(static_cast<HostCategory>(c))), dur(total.idle_ns),
                      format_percent(total.idle_ratio), std::to_string(total.gap_count)});
    }
    out += causes.render();
    out += "\n";
    TableWriter hist({{"gap length", Align::kLeft}, {"gaps"}, {"idle time"}});
    for (std::size_t b = 0; b < kGapBucketCount; ++b) {
      const std::string lo = b == 0 ? "0" : dur(kGapBucketUpperNs[b - 1]);
      const std::string label = b + 1 < kGapBucketCount ? fmt::format("{} - {}", lo, dur(kGapBucketUpperNs[b]))
                                                        : fmt::format(">= {}", lo);
      hist.add_row({label, std::to_string(d.histogram[b].gap_count), dur(d.histogram[b].idle_ns)});
    }
    out += hist.render();
    out += fmt::format("gaps under {}: {} ({} idle)\n", dur(kShortGapNs), d.short_gap_count, dur(d.short_gap_idle_ns));
    if (options.longest_gaps > 0) {
      std::vector<const AttributedGap*> longest;
      for (const auto& gap : d.gaps) longest.push_back(&gap);
      const std::size_t n = std::min(options.longest_gaps, longest.size());
      std::partial_sort(longest.begin(), longest.begin() + static_cast<std::ptrdiff_t>(n), longest.end(),
                        [](const AttributedGap* a, const AttributedGap* b) { return a->dur_ns() > b->dur_ns(); });
      out += "\n";
      TableWriter top({{"longest gaps (from window start)", Align::kLeft}, {"length"}, {"host was", Align::kLeft}});
      for (std::size_t i = 0; i < n; ++i) {
        top.add_row({fmt::format("at +{}", dur(longest[i]->start_ns - window_start_ns)),
                     dur(longest[i]->dur_ns()), std::string(host_category_name(longest[i]->category))});
      }
      out += top.render();
    }
  }
}

void render_kernels(std::string& out, const KernelBreakdown& k) {
  if (k.kernel_count == 0) return;
  section(out, fmt::format("TOP KERNELS ({} kernels, {} distinct, {} of kernel time)", k.kernel_count, k.group_count,
                           dur(k.kernel_time_ns)));
  TableWriter t({{"kernel", Align::kLeft}, {"family", Align::kLeft}, {"count"}, {"total"}, {"share"}, {"mean"},
                 {"p50"}, {"p99"}, {"max"}});
  // A p99 of fewer calls than the top 1% can hold one of is the maximum or near it (few-samples-for-tail): not
  // quoted in the text; the JSON keeps it beside its count.
  const std::uint64_t calls_for_p99 = core::samples_for_percentile(99);
  bool tail_left_out = false;
  for (const auto& g : k.top) {
    const bool few = static_cast<std::uint64_t>(g.count) < calls_for_p99;
    tail_left_out |= few;
    t.add_row({truncate(g.short_name, 60), std::string(kernel_family_name(g.family)), std::to_string(g.count),
               dur(g.total_ns), format_percent(g.share_of_kernel_time), dur(g.mean_ns), dur(g.p50_ns),
               few ? "-" : dur(g.p99_ns), dur(g.max_ns)});
  }
  if (k.rest_group_count > 0) {
    t.add_row({fmt::format("({} other kernels)", k.rest_group_count), "", std::to_string(k.rest_count),
               dur(k.rest_ns), format_percent(static_cast<double>(k.rest_ns) / static_cast<double>(k.kernel_time_ns)),
               "", "", "", ""});
  }
  out += t.render();
  if (tail_left_out) out += fmt::format("p99 '-': fewer than {} calls, too few for a p99 that is not about the max\n", calls_for_p99);
  section(out, "GPU TIME BY FAMILY");
  TableWriter f({{"family", Align::kLeft}, {"count"}, {"time"}, {"share of GPU time"}});
  std::vector<FamilyTotal> families(k.families.begin(), k.families.end());
  std::sort(families.begin(), families.end(), [](const auto& a, const auto& b) { return a.total_ns > b.total_ns; });
  for (const auto& fam : families) {
    if (fam.count == 0) continue;
    f.add_row({std::string(kernel_family_name(fam.family)), std::to_string(fam.count), dur(fam.total_ns),
               format_percent(fam.share_of_gpu_time)});
  }
  out += f.render();
}

void render_data_movement(std::string& out, const DataMovement& d) {
  if (d.copy_count == 0 && d.memset.count == 0) return;
  section(out, fmt::format("DATA MOVEMENT (host<->device copies cover {} of the window)",
                           format_percent(d.host_device_copy_window_ratio)));
  TableWriter t({{"copy", Align::kLeft}, {"host memory", Align::kLeft}, {"count"}, {"bytes"}, {"time"}, {"achieved"}});
  for (const auto& c : d.copies) {
    t.add_row({std::string(copy_direction_name(c.direction)), std::string(host_memory_name(c.host_memory)),
               std::to_string(c.count), format_bytes(static_cast<double>(c.bytes)), dur(c.time_ns),
               format_si(c.bytes_per_s, "B/s")});
  }
  if (d.memset.count > 0) {
    t.add_row({"memset", "", std::to_string(d.memset.count), format_bytes(static_cast<double>(d.memset.bytes)),
               dur(d.memset.time_ns), format_si(d.memset.bytes_per_s, "B/s")});
  }
  out += t.render();
}

void render_communication(std::string& out, const Communication& c) {
  if (c.total.kernel_count == 0) return;
  section(out, "COMMUNICATION");
  TableWriter t({{"device", Align::kLeft}, {"kernels"}, {"time"}, {"of GPU busy"}, {"hidden"}, {"exposed"}});
  for (const auto& d : c.devices) {
    if (d.stats.kernel_count == 0) continue;
    t.add_row({fmt::format("GPU {}", d.device), std::to_string(d.stats.kernel_count), dur(d.stats.comm_busy_ns),
               format_percent(d.stats.share_of_gpu_busy), format_percent(d.stats.hidden_ratio), dur(d.stats.exposed_ns)});
  }
  out += t.render();
}

void render_launches(std::string& out, const LaunchOverhead& l) {
  section(out, "LAUNCH OVERHEAD");
  TableWriter t({{"measure", Align::kLeft}, {"value"}});
  t.add_row({"launch calls (kernel + graph)", std::to_string(l.launch_call_count)});
  t.add_row({"CUDA Graph launches", std::to_string(l.graph_launch_count)});
  t.add_row({"kernels per launch call", core::format_number(l.mean_kernels_per_launch)});
  t.add_row({"host time in launch calls", dur(l.launch_call_time_ns)});
  if (l.latency_ns.count > 0) {
    // Launch call start to GPU start: queueing behind earlier work is in it, so a large value on a busy GPU
    // means the CPU runs ahead (good), not that launches are slow.
    t.add_row({"launch-to-start p50 / p90 / p99 (incl. queueing)",
               fmt::format("{} / {} / {}", dur(l.latency_ns.p50), dur(l.latency_ns.p90), dur(l.latency_ns.p99))});
  }
  t.add_row({"kernels shorter than 10 us", fmt::format("{} of {} ({} of kernel time)", l.short_kernel_count,
                                                       l.kernel_count, format_percent(l.short_kernel_time_ratio))});
  // One annotation around the whole run is not a step: per-step counts need at least two.
  if (l.steps.size() >= 2) {
    std::vector<double> per_step;
    for (const auto& s : l.steps) per_step.push_back(static_cast<double>(s.kernel_count));
    const core::Summary steps = core::summarize(per_step);
    t.add_row({fmt::format("kernels per step ({}, {} steps)", step_source_name(l.step_source), l.steps.size()),
               fmt::format("median {:.0f}, min {:.0f}, max {:.0f}", steps.p50, steps.min, steps.max)});
  }
  out += t.render();
}

}  // namespace

std::string render_trace_report(const Timeline& timeline, const TraceAnalysis& a, const TraceReportOptions& options) {
  std::string out;
  const auto& info = timeline.info;
  std::string device = info.devices.empty() ? std::string("GPU model not recorded") : info.devices.front().name;
  out += fmt::format("perfhound trace: '{}' ({}, {}{})\n\n", info.source, info.format, device,
                     info.cuda_runtime_version.empty() ? "" : ", CUDA " + info.cuda_runtime_version);
  render_verdict(out, a.verdict);
  render_utilization(out, a.utilization);
  render_gaps(out, a.gaps, timeline.window_start_ns, options);
  render_kernels(out, a.kernels);
  render_data_movement(out, a.data);
  render_communication(out, a.communication);
  render_launches(out, a.launches);
  return out;
}

}  // namespace perfhound::report
