#include "trace/communication.h"

#include "core/units.h"

#include <unordered_map>

#include "trace/kernel_breakdown.h"
#include "trace/utilization.h"

namespace perfhound::trace {

namespace {



void finish(CommunicationStats& s) {
  s.exposed_ns = s.comm_busy_ns - s.hidden_ns;
  s.share_of_gpu_busy = core::ratio_or_zero(s.comm_busy_ns, s.gpu_busy_ns);
  s.hidden_ratio = core::ratio_or_zero(s.hidden_ns, s.comm_busy_ns);
}

nlohmann::ordered_json stats_json(const CommunicationStats& s) {
  nlohmann::ordered_json j;
  j["kernel_count"] = s.kernel_count;
  j["kernel_sum_s"] = core::ns_to_seconds(s.kernel_sum_ns);
  j["comm_busy_s"] = core::ns_to_seconds(s.comm_busy_ns);
  j["gpu_busy_s"] = core::ns_to_seconds(s.gpu_busy_ns);
  j["hidden_s"] = core::ns_to_seconds(s.hidden_ns);
  j["exposed_s"] = core::ns_to_seconds(s.exposed_ns);
  j["share_of_gpu_busy"] = s.share_of_gpu_busy;
  j["hidden_ratio"] = s.hidden_ratio;
  return j;
}

}  // namespace

Communication communication(const Timeline& timeline) {
  Communication result;
  // Classify each distinct kernel name once: traces repeat a few hundred names a million times.
  std::unordered_map<StringId, bool> is_comm;
  auto comm = [&](const GpuActivity& a) {
    auto [it, inserted] = is_comm.try_emplace(a.name, false);
    if (inserted) it->second = classify_kernel_name(timeline.name(a.name)) == KernelFamily::kCommunication;
    return it->second;
  };

  for (const std::int32_t device : gpu_devices(timeline)) {
    DeviceCommunication d;
    d.device = device;
    std::vector<Interval> comm_intervals, compute_intervals;
    for (const auto& a : timeline.gpu) {
      if (a.device != device || a.kind != GpuKind::kKernel) continue;
      if (comm(a)) {
        ++d.stats.kernel_count;
        d.stats.kernel_sum_ns += a.dur_ns;
        comm_intervals.push_back({a.start_ns, a.end_ns()});
      } else {
        compute_intervals.push_back({a.start_ns, a.end_ns()});
      }
    }
    // timeline.gpu is sorted by start, so these are already in order; normalize merges them.
    const auto comm_union = normalize_intervals(std::move(comm_intervals));
    const auto compute_union = normalize_intervals(std::move(compute_intervals));
    d.stats.comm_busy_ns = total_length(comm_union);
    d.stats.hidden_ns = total_length(intersect_intervals(comm_union, compute_union));
    d.stats.gpu_busy_ns = total_length(busy_intervals(timeline, device));
    finish(d.stats);

    result.total.kernel_count += d.stats.kernel_count;
    result.total.kernel_sum_ns += d.stats.kernel_sum_ns;
    result.total.comm_busy_ns += d.stats.comm_busy_ns;
    result.total.gpu_busy_ns += d.stats.gpu_busy_ns;
    result.total.hidden_ns += d.stats.hidden_ns;
    result.devices.push_back(std::move(d));
  }
  finish(result.total);
  return result;
}

nlohmann::ordered_json to_json(const Communication& result) {
  nlohmann::ordered_json j;
  j["total"] = stats_json(result.total);
  auto devices = nlohmann::ordered_json::array();
  for (const auto& d : result.devices) {
    nlohmann::ordered_json jd{{"device", d.device}};
    jd.update(stats_json(d.stats));
    devices.push_back(std::move(jd));
  }
  j["devices"] = std::move(devices);
  return j;
}

}  // namespace perfhound::trace
