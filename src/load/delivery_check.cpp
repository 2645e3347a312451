#include "load/delivery_check.h"

#include <fmt/format.h>

namespace perfhound::load {

std::optional<core::Diagnostic> check_chunk_delivery(const LoadSummary& summary) {
  const std::uint64_t gaps = summary.itl_s.count;
  if (gaps == 0) return std::nullopt;
  const double share = static_cast<double>(summary.itl_zero_gaps) / static_cast<double>(gaps);
  if (share <= kZeroGapShareLimit) return std::nullopt;
  return core::Diagnostic{&core::kChunksTogether,
                          fmt::format("{} of {} gaps between content chunks are zero ({:.0f}%)", summary.itl_zero_gaps,
                                      gaps, share * 100)};
}

}  // namespace perfhound::load
