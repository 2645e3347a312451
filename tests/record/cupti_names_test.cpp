// CUPTI's enumerations under Kineto's names; the numbers are cupti_activity.h's (CUDA 13.0):
// CUPTI_ACTIVITY_MEMCPY_KIND_HTOD = 1, _DTOH = 2, _DTOD = 8, _PTOP = 10; CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE = 1,
// _PINNED = 2, _DEVICE = 3; CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE = 3.
#include "record/cupti_names.h"

#include <gtest/gtest.h>

#include "trace/gap_attribution.h"

namespace perfhound::record {
namespace {

TEST(CuptiNames, CopiesAreNamedAsKinetoNamesThem) {
  EXPECT_EQ(memcpy_name(1, 1, 3), "Memcpy HtoD (Pageable -> Device)");  // the string data_movement.cpp parses
  EXPECT_EQ(memcpy_name(2, 3, 2), "Memcpy DtoH (Device -> Pinned)");
  EXPECT_EQ(memcpy_name(8, 3, 3), "Memcpy DtoD (Device -> Device)");
  EXPECT_EQ(memcpy_name(10, 3, 3), "Memcpy PtoP (Device -> Device)");
  EXPECT_EQ(memcpy_name(99, 42, 3), "Memcpy Unknown (Unknown -> Device)");
  EXPECT_EQ(memset_name(3), "Memset (Device)");
  EXPECT_EQ(synchronization_name(3), "Stream Synchronize");
  EXPECT_EQ(synchronization_name(7), "Unknown Synchronize");
}

TEST(CuptiNames, TheApiVersionSuffixIsDropped) {
  EXPECT_EQ(without_version_suffix("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(without_version_suffix("cuMemcpyHtoDAsync_v2"), "cuMemcpyHtoDAsync");
  EXPECT_EQ(without_version_suffix("cudaDeviceSynchronize"), "cudaDeviceSynchronize");
  EXPECT_EQ(without_version_suffix("cudaGraph_vx"), "cudaGraph_vx");  // not a version
  EXPECT_EQ(without_version_suffix("cuda_v"), "cuda_v");
}

// --api classified keeps exactly the runtime calls the timeline analysis has a rule for (the cuda* rows of
// gap_attribution.cpp's kHostRules), and leaves out the frequent ones it ignores.
TEST(CuptiNames, ClassifiedRuntimeCallsAreTheOnesTheTraceAnalysisReads) {
  for (const char* name :
       {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaLaunchCooperativeKernel", "cudaGraphLaunch", "cudaMemcpy",
        "cudaMemcpyAsync", "cudaMemcpy2DAsync", "cudaMemcpyPeerAsync", "cudaMemcpyToSymbolAsync", "cudaMemsetAsync",
        "cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaThreadSynchronize",
        "cudaStreamWaitEvent", "cudaFree", "cudaFreeHost"}) {
    EXPECT_TRUE(runtime_call_classified(name)) << name;
    EXPECT_TRUE(trace::classify_host_event(trace::HostKind::kRuntime, name, false).has_value()) << name;
  }
  for (const char* name : {"cudaGetDevice", "cudaGetLastError", "cudaPeekAtLastError", "cudaEventRecord",
                           "cudaStreamIsCapturing", "cudaMalloc", "cudaEventQuery", "cudaSetDevice"}) {
    EXPECT_FALSE(runtime_call_classified(name)) << name;
    EXPECT_FALSE(trace::classify_host_event(trace::HostKind::kRuntime, name, false).has_value()) << name;
  }
}

// The driver's: the calls that submit or wait for GPU work (the cu* rows of kHostRules, which the analysis reads),
// including the per-thread-stream variants CUPTI names with _ptsz/_ptds; not the frequent bookkeeping calls.
TEST(CuptiNames, ClassifiedDriverCallsAreTheOnesThatSubmitOrWait) {
  for (const char* name : {"cuLaunchKernel", "cuLaunchKernelEx", "cuLaunchCooperativeKernel", "cuGraphLaunch",
                           "cuMemcpyAsync", "cuMemcpyHtoDAsync", "cuMemcpyDtoH", "cuMemsetD8Async", "cuMemsetD32Async",
                           "cuStreamSynchronize", "cuCtxSynchronize", "cuEventSynchronize", "cuStreamWaitEvent",
                           "cuMemFree", "cuMemFreeHost"}) {
    EXPECT_TRUE(driver_call_classified(name)) << name;
    EXPECT_TRUE(trace::classify_host_event(trace::HostKind::kDriver, name, false).has_value()) << name;
  }
  for (const char* name : {"cuLaunchKernel_ptsz", "cuStreamSynchronize_ptsz", "cuMemcpyHtoD_v2_ptds"}) {
    EXPECT_TRUE(driver_call_classified(without_version_suffix(name))) << name;
  }
  for (const char* name : {"cuCtxGetCurrent", "cuCtxSetCurrent", "cuModuleGetFunction", "cuFuncGetAttribute",
                           "cuPointerGetAttribute", "cuEventRecord", "cuMemAlloc", "cuDevicePrimaryCtxRetain",
                           "cuStreamSynchronizeX"}) {
    EXPECT_FALSE(driver_call_classified(name)) << name;
    EXPECT_FALSE(trace::classify_host_event(trace::HostKind::kDriver, name, false).has_value()) << name;
  }
}

}  // namespace
}  // namespace perfhound::record
