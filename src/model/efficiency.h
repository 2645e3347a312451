// MFU and MBU (Knowledge 06 section 5): how much of the chip's compute and memory bandwidth a measured step
// used, and what that means. MFU = FLOPs the model needed / (peak FLOP/s x time); MBU = bytes the model had
// to read / (peak bandwidth x time). The roofline bound of a step is max(FLOPs / peak, bytes / bandwidth):
// the fastest any implementation could run it on that chip.
#pragma once

#include <optional>
#include <string>

#include "model/transformer_math.h"

namespace perfhound::model {

enum class Phase { kPrefill, kDecode };

// MBU at or above this: at the bandwidth roof. The seed: "if MBU is ~80%+ you're near the bandwidth roofline";
// 75% leaves room for the measured ceiling being below the spec sheet (H200: 4.06 of 4.8 TB/s measured copy).
inline constexpr double kAtBandwidthRoof = 0.75;
// MFU at or above this: a well-tuned compute-bound step (seed: well-tuned prefill hits 40-70%).
inline constexpr double kWellTunedMfu = 0.40;
// Below this fraction of the binding roof the step is far from either limit: overhead or a badly shaped
// kernel, not the hardware (seed section 6, "below both").
inline constexpr double kFarBelowRoof = 0.30;
// Above this the measurement beat the roof: the inputs, not the kernel, are wrong. 5% above covers spec sheets
// rounding and boost clocks above the base the peak was quoted at.
inline constexpr double kBeatsRoof = 1.05;
// The two roofs' bound times within this factor of each other: the step sits near the ridge, where both
// compute and bandwidth matter.
inline constexpr double kNearRidge = 2.0;

struct Efficiency {
  double time_s = 0;
  double achieved_flops_per_s = 0;
  double achieved_bytes_per_s = 0;
  double mfu = 0;  // 0..1 (can exceed 1 if the peak given is below what the chip does)
  double mbu = 0;
  double compute_time_s = 0;  // flops / peak: the compute roof's bound
  double memory_time_s = 0;   // bytes / bandwidth: the memory roof's bound
  double bound_time_s = 0;    // the larger: the roofline bound
  bool memory_bound = false;  // the memory roof binds (memory_time_s >= compute_time_s)
};

// time_s: the measured step time, or nullopt for the bound times alone (mfu, mbu, achieved are then 0).
Efficiency efficiency(const StepCost& cost, std::optional<double> time_s, double peak_flops_per_s,
                      double peak_bytes_per_s);

// The verdict in the seed's words, judged by the roof that binds (decode at small batch: MBU; prefill and
// large-batch decode: MFU), e.g. "decode at MBU 78%: at the bandwidth roof; the levers are fewer bytes
// (quantize), more bandwidth, or batching".
// `cost` says whether the KV cache or the weights dominate the bytes (which decides the levers).
std::string efficiency_verdict(Phase phase, const Efficiency& e, const StepCost& cost);

}  // namespace perfhound::model
