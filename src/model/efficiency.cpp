#include "model/efficiency.h"

#include <algorithm>
#include <fmt/format.h>

#include "core/units.h"

namespace perfhound::model {
namespace {
// Up to this many tokens per step the batch itself is a lever for overhead (each launch carries little work).
constexpr double kSmallBatchTokens = 16;
}  // namespace

Efficiency efficiency(const StepCost& cost, std::optional<double> time_s, double peak_flops, double peak_bw) {
  Efficiency e;
  e.compute_time_s = cost.flops / peak_flops;
  e.memory_time_s = cost.bytes() / peak_bw;
  e.bound_time_s = std::max(e.compute_time_s, e.memory_time_s);
  e.memory_bound = e.memory_time_s >= e.compute_time_s;
  if (time_s) {
    e.time_s = *time_s;
    e.achieved_flops_per_s = cost.flops / *time_s;
    e.achieved_bytes_per_s = cost.bytes() / *time_s;
    e.mfu = e.achieved_flops_per_s / peak_flops;
    e.mbu = e.achieved_bytes_per_s / peak_bw;
  }
  return e;
}

std::string efficiency_verdict(Phase phase, const Efficiency& e, const StepCost& cost) {
  const char* phase_name = phase == Phase::kPrefill ? "prefill" : "decode";
  const std::string mfu = core::format_percent(e.mfu);
  const std::string mbu = core::format_percent(e.mbu);
  if (e.time_s > 0 && (e.mbu > kBeatsRoof || e.mfu > kBeatsRoof)) {
    return fmt::format("{} at MBU {} and MFU {}: faster than the chip allows, so an input is wrong (the time's unit, "
                       "--tp, --precision, the lengths), or the server does less work than the model arithmetic "
                       "(prefix caching, speculative decoding)",
                       phase_name, mbu, mfu);
  }
  const bool near_ridge = std::max(e.compute_time_s, e.memory_time_s) < kNearRidge * std::min(e.compute_time_s, e.memory_time_s);
  const bool kv_dominates = cost.kv_bytes > cost.weight_bytes;
  const std::string ridge_note = near_ridge ? "; the step is near the ridge, so compute matters as much" : "";
  if (e.time_s <= 0) {
    return fmt::format("{} is {}-bound on this chip: no implementation can run this step faster than {}", phase_name,
                       e.memory_bound ? "memory-bandwidth" : "compute", core::format_duration_ns(e.bound_time_s * 1e9));
  }
  if (e.memory_bound) {
    const std::string low_mfu =
        phase == Phase::kDecode && !near_ridge ? fmt::format(" (MFU {} is expected to be low here)", mfu) : "";
    if (e.mbu >= kAtBandwidthRoof) {
      if (kv_dominates) {
        return fmt::format("{} at MBU {}: at the bandwidth roof{}; the KV cache is most of the bytes, so the levers "
                           "are a smaller KV cache (quantize it, fewer KV heads, shorter contexts) or more bandwidth; "
                           "batching does not shrink KV bytes per token{}",
                           phase_name, mbu, low_mfu, ridge_note);
      }
      return fmt::format("{} at MBU {}: at the bandwidth roof{}; the levers are fewer bytes (quantize weights or the "
                         "KV cache), more bandwidth (another chip), or batching (more tokens per byte read){}",
                         phase_name, mbu, low_mfu, ridge_note);
    }
    if (e.mbu >= kFarBelowRoof) {
      return fmt::format("{} at MBU {}: below the bandwidth roof{}; kernel efficiency (GEMV, attention over the KV "
                         "cache) and gaps between kernels leave bandwidth unused: profile a step (perfhound trace){}",
                         phase_name, mbu, low_mfu, ridge_note);
    }
    return fmt::format("{} at MBU {}: far below the bandwidth roof{}; the step is not limited by the hardware but by "
                       "overhead (launches, host work{}): look at its timeline (perfhound trace){}",
                       phase_name, mbu, low_mfu, cost.tokens <= kSmallBatchTokens ? ", a small batch" : "", ridge_note);
  }
  if (e.mfu >= kWellTunedMfu) {
    return fmt::format("{} at MFU {}: compute-bound and well tuned (40-70% is typical); the levers are lower "
                       "precision (FP8) or more FLOP/s",
                       phase_name, mfu);
  }
  if (e.mfu >= kFarBelowRoof) {
    return fmt::format("{} at MFU {}: compute-bound but below a well-tuned 40%; GEMM shapes, attention kernels and "
                       "non-matmul work cost time: profile the dominant kernels with ncu",
                       phase_name, mfu);
  }
  return fmt::format("{} at MFU {}: far below the compute roof; overhead or badly shaped kernels, not the hardware, "
                     "limit it: look at its timeline (perfhound trace)",
                     phase_name, mfu);
}

}  // namespace perfhound::model
