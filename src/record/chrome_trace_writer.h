// A RecordedTrace as Chrome Trace JSON in the layout PyTorch's profiler (Kineto) writes, so `perfhound trace`,
// Perfetto and chrome://tracing read it: GPU work as "X" events with cat kernel / gpu_memcpy / gpu_memset on
// pid = device, tid = stream, and args device, stream, correlation (bytes for copies); host API calls as
// cuda_runtime / cuda_driver on pid = process, tid = thread with the same correlation; synchronizations as
// cuda_sync and NVTX ranges as user_annotation on their thread; deviceProperties, the CUDA versions and process
// and thread names as metadata. Times are microseconds with ns precision (CUPTI's clock). Pure.
#pragma once

#include <cstdio>
#include <string>

#include "core/result.h"
#include "record/recorded_trace.h"

namespace perfhound::record {

void write_chrome_trace(const RecordedTrace& trace, std::string& out);
// Writes to `path` through a temporary file renamed into place, so a reader never sees half a trace.
core::Status write_chrome_trace_file(const RecordedTrace& trace, const std::string& path);

}  // namespace perfhound::record
