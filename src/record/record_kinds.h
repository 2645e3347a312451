// Which CUPTI activity kinds `perfhound record --kinds` (PERFHOUND_RECORD_KINDS) turns on: "kernels" with a comma
// list of the other kinds on top ("kernels,memcpy,sync"), or "all". Kernels and devices are always recorded. The
// default, kernels,memcpy,memset,nvtx, is everything `perfhound trace` reads: SYNCHRONIZATION is left out because
// on an H200 enabling it cost CUPTI about 6 us on every kernel launch of a launch-bound loop, most of what the
// recorder added there, while the analysis reads waits from the runtime API records, never from it
// (bench/RESULTS.md, "Which left-out kind costs it"). The list also measures what each kind costs
// (bench/record/record_knobs.sh). Header-only and pure: the injection library and
// the CLI both parse with it, and tests/record/record_kinds_test.cpp tests it without CUPTI.
#pragma once

#include <string>
#include <utility>
#include <string_view>

#include "core/result.h"

namespace perfhound::record {

struct RecordKinds {
  bool memcpy = true;            // CUPTI_ACTIVITY_KIND_MEMCPY: copies
  bool memset = true;            // CUPTI_ACTIVITY_KIND_MEMSET: fills
  bool synchronization = false;  // CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: stream, event and context waits (all)
  bool marker = true;            // CUPTI_ACTIVITY_KIND_MARKER: NVTX ranges, as CUPTI turns them into records
  // NVTX_INJECTION64_PATH pointed at CUPTI, so the program's NVTX calls reach CUPTI at all. Only with `marker`:
  // CUPTI sees NVTX calls only through it, and without MARKER it would be handed them and record none.
  bool nvtx_routing = true;

  bool operator==(const RecordKinds&) const = default;
};

// The default written as a setting (perfhound record's --kinds default): it parses to RecordKinds{}.
inline constexpr const char* kDefaultRecordKinds = "kernels,memcpy,memset,nvtx";

// The kinds a setting names, or an error that quotes it. "nvtx" is the NVTX ranges in full (MARKER and the routing);
// "marker" is the MARKER kind alone, which records nothing without the routing and is there to measure the two apart.
inline core::Result<RecordKinds> parse_record_kinds(std::string_view text) {
  if (text == "all") return RecordKinds{.synchronization = true};
  // Appended piece by piece: g++ 12 reports -Wrestrict on `"'" + std::string(...)` (GCC bug 105329).
  const auto bad = [&](std::string_view why, std::string_view item = {}) {
    std::string message = "'";
    message.append(text).append("': ");
    if (!item.empty()) message.append("'").append(item).append("' ");
    message.append(why).append(" (give all, or kernels with any of memcpy, memset, sync, marker and nvtx after it, comma-separated: kernels,memcpy,nvtx)");
    return core::Error{std::move(message)};
  };
  RecordKinds kinds{false, false, false, false, false};
  std::size_t at = 0;
  while (true) {
    const std::size_t comma = text.find(',', at);
    const std::string_view item = text.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at);
    if (at == 0) {
      if (item != "kernels") return bad("a list starts with kernels, which are always recorded");
    } else if (item == "memcpy") {
      kinds.memcpy = true;
    } else if (item == "memset") {
      kinds.memset = true;
    } else if (item == "sync") {
      kinds.synchronization = true;
    } else if (item == "marker") {
      kinds.marker = true;
    } else if (item == "nvtx") {
      kinds.marker = kinds.nvtx_routing = true;
    } else {
      return item.empty() ? bad("an empty item") : bad("is not a kind to add", item);
    }
    if (comma == std::string_view::npos) break;
    at = comma + 1;
  }
  return kinds;
}

}  // namespace perfhound::record
