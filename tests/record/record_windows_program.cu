// The CUDA program record_gpu_test records: kernels in five phases, two of them inside cudaProfilerStart ..
// cudaProfilerStop windows, each phase its own kernel (phase<N>) so a trace says which phases it kept. The
// counts are chosen apart (5, 7, 11, 13, 17) so any mix of phases has its own total. Phase 1's kernels are still
// running when its window closes (no synchronize before cudaProfilerStop): their records must stay. Phase 5's
// 3 kernels are launched through the driver (cuLaunchKernel), as cuBLASLt, cuDNN and Triton launch theirs, so
// the test can ask whether their launch calls are recorded. Exits 77 where there is no CUDA device, which the
// test reads as a skip.
#include <cuda.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <cstdio>

namespace {

// Spins about `cycles` clock ticks, so a queue of them is still running when the host moves on.
template <int Phase>
__global__ void phase(long long cycles, int* sink) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
  if (threadIdx.x == 0 && sink != nullptr) *sink = Phase;
}

template <int Phase>
void launch(int count, int* sink) {
  for (int i = 0; i < count; ++i) phase<Phase><<<1, 32>>>(200000, sink);  // ~0.1 ms each at ~2 GHz
}

bool ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "record_windows_program: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

// Launches phase<5> `count` times with the driver's cuLaunchKernel, found through the runtime (no link to
// libcuda, as libraries do it), on the legacy default stream like the others.
bool launch_through_driver(int count, int* sink) {
  using LaunchKernel = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                    CUstream, void**, void**);
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (!ok(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &entry, 12000, cudaEnableDefault, &found),
          "cudaGetDriverEntryPointByVersion") || found != cudaDriverEntryPointSuccess) {
    return false;
  }
  cudaFunction_t function = nullptr;  // the same handle as the driver's CUfunction
  if (!ok(cudaGetFuncBySymbol(&function, reinterpret_cast<const void*>(&phase<5>)), "cudaGetFuncBySymbol")) return false;
  long long cycles = 200000;
  void* args[] = {&cycles, &sink};
  for (int i = 0; i < count; ++i) {
    const CUresult r = reinterpret_cast<LaunchKernel>(entry)(reinterpret_cast<CUfunction>(function), 1, 1, 1, 32, 1,
                                                             1, 0, nullptr, args, nullptr);
    if (r != CUDA_SUCCESS) {
      std::fprintf(stderr, "record_windows_program: cuLaunchKernel: error %d\n", static_cast<int>(r));
      return false;
    }
  }
  return true;
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "record_windows_program: no CUDA device\n");
    return 77;
  }
  int* sink = nullptr;
  if (!ok(cudaMalloc(&sink, sizeof(int)), "cudaMalloc")) return 1;
  launch<0>(5, sink);  // before any window
  if (!ok(cudaDeviceSynchronize(), "sync")) return 1;
  cudaProfilerStart();
  launch<1>(7, sink);  // window 1, closed while they run
  cudaProfilerStop();
  launch<2>(11, sink);  // between windows
  if (!ok(cudaDeviceSynchronize(), "sync")) return 1;
  cudaProfilerStart();
  cudaProfilerStart();  // a start inside a window changes nothing
  launch<3>(13, sink);  // window 2
  if (!ok(cudaDeviceSynchronize(), "sync")) return 1;
  cudaProfilerStop();
  cudaProfilerStop();  // nor does a stop outside one
  launch<4>(17, sink);  // after the last window
  if (!launch_through_driver(3, sink)) return 1;
  if (!ok(cudaDeviceSynchronize(), "sync")) return 1;
  cudaFree(sink);
  std::printf("record_windows_program: 56 kernels, 20 of them in 2 windows, 3 launched through the driver\n");
  return 0;
}
