// The names Kineto (PyTorch's profiler) gives CUPTI's enumerations, so a trace `perfhound record` writes reads
// like one PyTorch wrote: "Memcpy HtoD (Pageable -> Device)" is the only place a Chrome trace says pageable.
// The arguments are CUPTI's numeric values (cupti_activity.h: CUpti_ActivityMemcpyKind, CUpti_ActivityMemoryKind,
// CUpti_ActivitySynchronizationType); pure, so they are tested without CUPTI.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace perfhound::record {

std::string_view memcpy_kind_name(std::uint32_t copy_kind);  // 1 -> "HtoD"; unknown -> "Unknown"
std::string_view memory_kind_name(std::uint32_t memory_kind);  // 1 -> "Pageable"; unknown -> "Unknown"
// "Memcpy HtoD (Pageable -> Device)"
std::string memcpy_name(std::uint32_t copy_kind, std::uint32_t src_kind, std::uint32_t dst_kind);
// "Memset (Device)"
std::string memset_name(std::uint32_t memory_kind);
std::string_view synchronization_name(std::uint32_t type);  // 1 -> "Event Synchronize"
// CUPTI's callback names carry the API version ("cudaLaunchKernel_v7000"); Kineto drops it.
std::string_view without_version_suffix(std::string_view api_name);

// `perfhound record --api classified`: whether a runtime call (its name without the version suffix) is one
// the timeline analysis reads (trace/gap_attribution.cpp's rule table: launches, copies, fills, synchronizations
// and the frees that synchronize), so CUPTI records it; the rest (cudaGetDevice, cudaGetLastError, ...,
// several a PyTorch kernel) are left out. tests/record/cupti_names_test.cpp holds the two lists together.
bool runtime_call_classified(std::string_view name);

// The driver calls perfhound record keeps (unless --driver-api asks for all): the ones that submit or wait for
// GPU work (launches, graph launches, copies, fills, synchronizations and waits, the frees that synchronize).
// Libraries launch through the driver themselves: cuBLASLt's and cuDNN's kernels come from cuLaunchKernelEx
// (1,800 of a PyTorch decoder's 4,801 kernels on an H100), Triton's from cuLaunchKernel; without these records
// those kernels have no launch call in the trace. The driver calls the runtime makes underneath its own
// (cudaLaunchKernel's) are not reported by CUPTI as driver records, so nothing is recorded twice.
bool driver_call_classified(std::string_view name);

}  // namespace perfhound::record
