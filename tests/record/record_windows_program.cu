// The CUDA program record_gpu_test records: kernels in five phases, two of them inside cudaProfilerStart ..
// cudaProfilerStop windows, each phase its own kernel (phase<N>) so a trace says which phases it kept. The
// counts are chosen apart (5, 7, 11, 13, 17) so any mix of phases has its own total. Phase 1's kernels are still
// running when its window closes (no synchronize before cudaProfilerStop): their records must stay. Exits 77
// where there is no CUDA device, which the test reads as a skip.
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
  if (!ok(cudaDeviceSynchronize(), "sync")) return 1;
  cudaFree(sink);
  std::printf("record_windows_program: 53 kernels, 20 of them in 2 windows\n");
  return 0;
}
