// Importer for Nsight Systems SQLite exports (`nsys export --type sqlite report.nsys-rep`), format name
// "nsys-sqlite". Recognizes a file by the 16-byte SQLite header "SQLite format 3\0".
//
// What it reads, always by column name (the schema gains columns between nsys versions, and tables are
// created lazily, so an empty table is absent rather than empty):
//   CUPTI_ACTIVITY_KIND_KERNEL          -> GpuActivity kKernel, named StringIds[demangledName] (shortName if
//                                          demangledName is absent or NULL)
//   CUPTI_ACTIVITY_KIND_MEMCPY          -> GpuActivity kMemcpy, named like Kineto: "Memcpy HtoD (Pageable -> Device)"
//   CUPTI_ACTIVITY_KIND_MEMSET          -> GpuActivity kMemset, "Memset (Device)" (the memKind label)
//   CUPTI_ACTIVITY_KIND_RUNTIME         -> HostEvent kRuntime (eventClass 0) or kDriver (eventClass 1); other
//                                          eventClass values are counted in unknown_categories, not imported
//   CUPTI_ACTIVITY_KIND_SYNCHRONIZATION -> HostEvent kSync named from syncType ("Stream sync", ...), tid -1
//   NVTX_EVENTS                         -> HostEvent kUserAnnotation for closed push/pop and start/end ranges;
//                                          marks, unclosed ranges and other NVTX records count as events_ignored
//   TARGET_INFO_GPU, TARGET_INFO_CUDA_DEVICE (both optional) -> TraceInfo::devices, sorted by id
//
// Requirements and errors (each one line, naming the file and, where it applies, the table, rowid and column):
// - at least one of the KERNEL, MEMCPY, MEMSET tables (a copy-only trace is valid), and StringIds;
// - a table that exists has the columns the importer needs (start, end, ...); optional ones may be missing;
// - no NULL in a needed column, no value of the wrong SQLite type, no end before start, no negative bytes,
//   no name id missing from StringIds: "'x.sqlite' table CUPTI_ACTIVITY_KIND_KERNEL row 12: end 100 is
//   before start 200";
// - a file that is not SQLite or is corrupt: sqlite's own message ("file is not a database", "database disk
//   image is malformed"); one cut short (not a whole number of pages, or fewer pages than its header counts):
//   "truncated SQLite file" with both sizes.
// Absent or NULL optional values: correlation -1; pid and tid -1 without globalTid (sync events always have
// tid -1); MemoryKind::kUnknown and the label "Unknown" without srcKind, dstKind or memKind.
// Timestamps stay on the nsys clock (ns, relative to the session start). stats.bytes_read is the file size;
// stats.events_read counts the rows read from the six event tables (not StringIds or TARGET_INFO_*).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "trace/importer.h"

namespace perfhound::trace {

std::unique_ptr<TraceImporter> make_nsys_sqlite_importer();

// nsys' serialized globalTid / globalPid: <hardware:8><vm:8><pid:24><tid:24> from the high bit down.
// A globalPid has tid 0.
struct NsysGlobalId {
  std::int64_t pid = 0;
  std::int64_t tid = 0;
};
NsysGlobalId decode_nsys_global_id(std::int64_t global_id);

// Strips the CUDA-version suffix nsys appends to API names: "cudaLaunchKernel_v7000" -> "cudaLaunchKernel",
// "cudaStreamGetCaptureInfo_v2_v11030" -> "cudaStreamGetCaptureInfo_v2". Only a suffix of four or more digits
// is stripped, so that real symbol names such as "cuMemAlloc_v2" stay as CUDA spells them. Returns a view
// into `name`.
std::string_view strip_nsys_api_version(std::string_view name);

}  // namespace perfhound::trace
