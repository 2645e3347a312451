// Importer for Chrome Trace Event JSON as PyTorch's profiler (Kineto) writes it, plain or gzip.
//
// Streams: the file is read in chunks, split into whole events by scan_json_value(), and each batch of
// events is parsed with simdjson's On-Demand API, so memory stays near one chunk plus the Timeline even for
// multi-GB traces. Both Chrome layouts are accepted: an object with "traceEvents" (plus deviceProperties,
// distributedInfo, cuda_*_version), or a bare array of events.
//
// What becomes what: ph "X" events of category kernel / gpu_memcpy / gpu_memset -> GpuActivity;
// cuda_runtime, cuda_driver, cpu_op, user_annotation, python_function -> HostEvent; gpu_user_annotation
// -> GpuAnnotation (a label, never GPU busy time). Older PyTorch spellings (Kernel, Memcpy, Memset,
// Runtime, Operator, Python) are accepted. Flows (ac2g), metadata (ph "M"), instants, profiler overhead and
// cuda_sync markers are counted in ImportStats::events_ignored; other categories in unknown_categories.
// Timestamps are microseconds in the file and become exact integer nanoseconds (Kineto prints ns/1000 with
// three decimals; parsing the decimal text avoids double rounding at 5e12 us).
//
// Errors (one line, with the file and byte offset): not JSON, truncated, a top level without traceEvents,
// an event with negative or missing duration, no GPU activity at all.
#pragma once

#include <memory>

#include "trace/importer.h"

namespace perfhound::trace {

std::unique_ptr<TraceImporter> make_kineto_json_importer();

}  // namespace perfhound::trace
