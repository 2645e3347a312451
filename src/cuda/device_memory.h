// Owning handles for CUDA allocations, streams, events and graphs, so every error path frees what it made.
// Internal to src/cuda.
#pragma once

#include <cuda_runtime_api.h>
#include <memory>

#include "cuda/cuda_status.h"

namespace perfhound::cuda {

// Release calls in destructors cannot report; a failure there would follow an earlier, reported error.
struct CudaFree {
  void operator()(void* p) const { static_cast<void>(cudaFree(p)); }
};
struct CudaFreeHost {
  void operator()(void* p) const { static_cast<void>(cudaFreeHost(p)); }
};
struct StreamDestroy {
  void operator()(CUstream_st* s) const { static_cast<void>(cudaStreamDestroy(s)); }
};
struct EventDestroy {
  void operator()(CUevent_st* e) const { static_cast<void>(cudaEventDestroy(e)); }
};
struct GraphDestroy {
  void operator()(CUgraph_st* g) const { static_cast<void>(cudaGraphDestroy(g)); }
};
struct GraphExecDestroy {
  void operator()(CUgraphExec_st* g) const { static_cast<void>(cudaGraphExecDestroy(g)); }
};

using DeviceMemory = std::unique_ptr<void, CudaFree>;
using PinnedMemory = std::unique_ptr<void, CudaFreeHost>;
using Stream = std::unique_ptr<CUstream_st, StreamDestroy>;
using Event = std::unique_ptr<CUevent_st, EventDestroy>;
using Graph = std::unique_ptr<CUgraph_st, GraphDestroy>;
using GraphExec = std::unique_ptr<CUgraphExec_st, GraphExecDestroy>;

inline core::Result<DeviceMemory> device_alloc(std::size_t bytes) {
  void* p = nullptr;
  PH_CUDA_TRY(cudaMalloc(&p, bytes));
  return DeviceMemory(p);
}
inline core::Result<PinnedMemory> pinned_alloc(std::size_t bytes) {
  void* p = nullptr;
  PH_CUDA_TRY(cudaMallocHost(&p, bytes));
  return PinnedMemory(p);
}
inline core::Result<Stream> make_stream() {
  cudaStream_t s = nullptr;
  PH_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return Stream(s);
}
inline core::Result<Event> make_event() {
  cudaEvent_t e = nullptr;
  PH_CUDA_TRY(cudaEventCreate(&e));
  return Event(e);
}

}  // namespace perfhound::cuda
