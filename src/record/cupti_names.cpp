#include "record/cupti_names.h"

#include <array>
#include <fmt/format.h>

namespace perfhound::record {

std::string_view memcpy_kind_name(std::uint32_t copy_kind) {
  static constexpr std::array<std::string_view, 11> kNames = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                                              "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
  return copy_kind < kNames.size() ? kNames[copy_kind] : "Unknown";
}

std::string_view memory_kind_name(std::uint32_t memory_kind) {
  static constexpr std::array<std::string_view, 8> kNames = {"Unknown", "Pageable", "Pinned",        "Device",
                                                             "Array",   "Managed",  "Device Static", "Managed Static"};
  return memory_kind < kNames.size() ? kNames[memory_kind] : "Unknown";
}

std::string memcpy_name(std::uint32_t copy_kind, std::uint32_t src_kind, std::uint32_t dst_kind) {
  return fmt::format("Memcpy {} ({} -> {})", memcpy_kind_name(copy_kind), memory_kind_name(src_kind),
                     memory_kind_name(dst_kind));
}

std::string memset_name(std::uint32_t memory_kind) { return fmt::format("Memset ({})", memory_kind_name(memory_kind)); }

std::string_view synchronization_name(std::uint32_t type) {
  static constexpr std::array<std::string_view, 5> kNames = {"Unknown Synchronize", "Event Synchronize",
                                                             "Stream Wait Event", "Stream Synchronize",
                                                             "Context Synchronize"};
  return type < kNames.size() ? kNames[type] : "Unknown Synchronize";
}

std::string_view without_version_suffix(std::string_view api_name) {
  const std::size_t v = api_name.rfind("_v");
  if (v == std::string_view::npos || v + 2 == api_name.size()) return api_name;
  for (std::size_t i = v + 2; i < api_name.size(); ++i) {
    if (api_name[i] < '0' || api_name[i] > '9') return api_name;
  }
  return api_name.substr(0, v);
}

bool runtime_call_classified(std::string_view name) {
  for (std::string_view prefix : {"cudaLaunch", "cudaGraphLaunch", "cudaMemcpy", "cudaMemset"}) {
    if (name.starts_with(prefix)) return true;
  }
  for (std::string_view exact : {"cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize",
                                 "cudaThreadSynchronize", "cudaStreamWaitEvent", "cudaFree", "cudaFreeHost"}) {
    if (name == exact) return true;
  }
  return false;
}

bool driver_call_classified(std::string_view name) {
  // The per-thread default stream variants (cuStreamSynchronize_ptsz, cuMemcpy_ptds) are the same calls.
  for (std::string_view suffix : {"_ptsz", "_ptds"}) {
    if (name.ends_with(suffix)) name.remove_suffix(suffix.size());
  }
  for (std::string_view prefix : {"cuLaunch", "cuGraphLaunch", "cuMemcpy", "cuMemset"}) {
    if (name.starts_with(prefix)) return true;
  }
  for (std::string_view exact : {"cuStreamSynchronize", "cuCtxSynchronize", "cuEventSynchronize", "cuStreamWaitEvent",
                                 "cuMemFree", "cuMemFreeHost"}) {
    if (name == exact) return true;
  }
  return false;
}

}  // namespace perfhound::record
