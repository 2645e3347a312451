// Restricting a trace to one named range (a user annotation: an NVTX range, record_function, ProfilerStep#N),
// so the analyses see the steady state the range marks and not the start-up around it (cuBLAS handles, lazy
// module loading, allocator warm-up), as HTA's and nsys stats' range filters do. In place (a Timeline holds its
// strings and is not copied), no I/O.
//
// The window becomes the range's host-side span [start, end]. Every GPU activity, host event and GPU
// annotation that overlaps it is kept and clipped to it; the rest are dropped (the counts are returned). GPU
// work a range launches but that runs after the range ends is cut at its end: end the range after a
// synchronize (as `torch.cuda.synchronize(); nvtx.range_pop()` does) to keep it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "trace/timeline.h"

namespace perfhound::trace {

struct RangeWindow {
  std::string name;
  int occurrence = 1;         // which range of that name, 1-based in start order
  int occurrences = 0;        // how many the trace has
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::uint64_t gpu_dropped = 0, host_dropped = 0;   // wholly outside the window
  std::uint64_t gpu_clipped = 0, host_clipped = 0;   // partly outside, cut to it
};

// Finds the `occurrence`-th user annotation named exactly `name` and cuts `timeline` to it. Errors (the
// timeline untouched): no range of that name (naming up to five of the trace's range names), or fewer than
// `occurrence` of them.
core::Result<RangeWindow> restrict_to_range(Timeline& timeline, std::string_view name, int occurrence = 1);

// The range to read a trace's steady state by, for a hint beside the whole-trace analysis: of the user ranges
// (except `skip`), the name holding the most time in all its instances (an outer loop over its steps; else the
// steps themselves), and of its instances the one of median length (the lower median of an even count), so
// a first, warm-up instance that runs long is not the one named. `names` lists every range name, the most time
// first. Empty name: the trace has no range.
struct SuggestedRange {
  std::string name;
  int occurrence = 0;   // for restrict_to_range, 1-based in start order
  int occurrences = 0;
  std::vector<std::string> names;
};
SuggestedRange suggest_range(const Timeline& timeline, std::string_view skip = {});

}  // namespace perfhound::trace
