// Kernel breakdown: where GPU kernel time goes, by kernel and by family (GEMM, attention, ...). The
// "this kernel is 70%" half of the first timeline read (Knowledge 06 section 3): the dominant kernels are
// the ones worth opening in Nsight Compute.
//
// Kernels are grouped by their full name (the demangled name Kineto and nsys write, template arguments and
// parameter list included): two instantiations of one template are different kernels with different costs.
// short_kernel_name() gives a display name; it is never a key, because different full names share one.
//
// Times are sums of durations, not unions: two kernels overlapping on two streams both count in full, so
// shares are of total kernel time (kernel_time_ns) or of total GPU activity time (gpu_time_ns), and may not
// be compared with utilization.h busy time. Statistics per group are exact (core::summarize: numpy-linear
// percentiles) over that group's durations in ns, across all devices and streams.
//
// Edge cases: no kernels -> kernel_count 0, no groups, every family total 0 and every share 0 (shares with a
// zero denominator are 0). A group of one kernel has mean = p50 = p99 = max = its duration. Zero-duration
// kernels are counted and enter the statistics as 0.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "trace/timeline.h"

namespace perfhound::trace {

enum class KernelFamily : std::uint8_t {
  kCommunication,  // NCCL and other collective kernels
  kAttention,      // fused attention (flash, fmha, cuDNN SDPA, paged attention)
  kGemm,           // matrix multiply: cuBLAS(Lt), CUTLASS, nvjet, GEMV, split-K reduction
  kReduction,      // reductions, softmax, normalization (layer/RMS/batch/group norm), scans
  kElementwise,    // elementwise, copies, fills, gather/scatter/index
  kMemcpy,         // copies (GpuKind::kMemcpy), not kernels
  kMemset,         // memsets (GpuKind::kMemset), not kernels
  kOther,          // a kernel no rule names
};
inline constexpr std::size_t kKernelFamilyCount = 8;

// "communication", "attention", "gemm", "reduction", "elementwise", "memcpy", "memset", "other".
std::string_view kernel_family_name(KernelFamily family);

// Family of a kernel by the name rule table (kernel_breakdown.cpp kFamilyRules, first match wins, case-
// insensitive substring of the full name); kOther if none matches. Never returns kMemcpy or kMemset.
// The full name rather than the short one, because the family is often only in a template argument
// (cutlass::Kernel2<cutlass_80_simt_sgemm_...>) or in the parameter list (cuBLASLt's epilogue kernel takes a
// cublasLtEpilogue_t); the price is that a word inside template arguments can mislead, which the rule order
// guards against for the known cases (see the table).
KernelFamily classify_kernel_name(std::string_view full_name);
// Family of any activity: kMemcpy / kMemset by kind, kernels by classify_kernel_name().
KernelFamily activity_family(const Timeline& timeline, const GpuActivity& activity);

// Display name: the full name without return type, template arguments, parameter list and "(anonymous
// namespace)::" components, e.g. "void at::native::vectorized_elementwise_kernel<4, ...>(int, ...)" ->
// "at::native::vectorized_elementwise_kernel". Wrapper templates whose name says nothing (cutlass::Kernel2,
// cutlass::device_kernel, ...) keep their first template argument, shortened the same way:
// "cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>". A name with nothing left (or an empty
// name) is returned whole.
std::string short_kernel_name(std::string_view full_name);

// The function's own name, the last component of the stripped name, from a full, a display (short_kernel_name)
// or an ncu-formatted name alike: "void at::<unnamed>::distribution_elementwise_grid_stride_kernel<...>(...)"
// and "at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel" both give
// "distribution_elementwise_grid_stride_kernel". What a trace's kernel and an ncu export's row are matched on.
std::string bare_kernel_name(std::string_view name);

struct KernelGroup {
  std::string full_name;
  std::string short_name;
  KernelFamily family = KernelFamily::kOther;
  std::uint64_t count = 0;
  std::int64_t total_ns = 0;
  double mean_ns = 0;
  double p50_ns = 0;
  double p99_ns = 0;
  double max_ns = 0;
  double share_of_kernel_time = 0;  // total_ns / KernelBreakdown::kernel_time_ns, 0..1
};

struct FamilyTotal {
  KernelFamily family = KernelFamily::kOther;
  std::uint64_t count = 0;
  std::int64_t total_ns = 0;
  double share_of_gpu_time = 0;  // total_ns / KernelBreakdown::gpu_time_ns, 0..1
};

struct KernelBreakdown {
  std::uint64_t kernel_count = 0;
  std::int64_t kernel_time_ns = 0;  // sum of kernel durations
  std::int64_t gpu_time_ns = 0;     // sum of all activity durations: kernels, copies, memsets
  std::size_t group_count = 0;      // distinct kernel names
  std::vector<KernelGroup> top;     // the top_n groups by total_ns (ties: full name ascending)
  // The groups not in `top`, so the listed ones plus these account for every kernel.
  std::size_t rest_group_count = 0;
  std::uint64_t rest_count = 0;
  std::int64_t rest_ns = 0;
  std::array<FamilyTotal, kKernelFamilyCount> families{};  // indexed by KernelFamily, all listed
};

// How many groups kernel_breakdown lists by default: enough to cover the dominant costs of an LLM step
// (GEMMs, attention, norms, activations) with room for the long tail's head.
inline constexpr std::size_t kDefaultTopKernels = 20;

// top_n = 0 lists every group.
KernelBreakdown kernel_breakdown(const Timeline& timeline, std::size_t top_n = kDefaultTopKernels);

// Durations in seconds (`_s`), shares 0..1.
nlohmann::ordered_json to_json(const KernelBreakdown& result);

}  // namespace perfhound::trace
