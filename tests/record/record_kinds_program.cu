// The CUDA program record_gpu_test records for what perfhound record keeps beside kernels: NVTX ranges (after an
// NVTX call made before CUDA starts, which used to turn NVTX off for the run), copies, fills and the host's
// waits. On one stream, in order: 2 host-to-device copies and 3 fills inside the range "copies", then 4 kernels
// and 1 device-to-host copy inside the range "kernels", then an event synchronize, a stream synchronize and a
// device synchronize. Exits 77 where there is no CUDA device, which the test reads as a skip.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstring>

namespace {

__global__ void touch(unsigned char* data, int value) { data[threadIdx.x] += static_cast<unsigned char>(value); }

bool ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "record_kinds_program: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

}  // namespace

int main() {
  // NVTX's first call, before the driver (and so the recorder's CUDA side) starts: NVTX decides here, once,
  // whether a tool gets its ranges.
  nvtxRangePushA("before CUDA");
  nvtxRangePop();
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "record_kinds_program: no CUDA device\n");
    return 77;
  }
  constexpr size_t kBytes = 1 << 20;
  unsigned char *host = nullptr, *device = nullptr;
  cudaStream_t stream{};
  cudaEvent_t done{};
  if (!ok(cudaMallocHost(&host, kBytes), "cudaMallocHost") || !ok(cudaMalloc(&device, 2 * kBytes), "cudaMalloc") ||
      !ok(cudaStreamCreate(&stream), "cudaStreamCreate") || !ok(cudaEventCreate(&done), "cudaEventCreate")) {
    return 1;
  }
  std::memset(host, 7, kBytes);
  nvtxRangePushA("copies");
  cudaMemcpyAsync(device, host, kBytes, cudaMemcpyHostToDevice, stream);
  cudaMemcpyAsync(device + kBytes, host, kBytes, cudaMemcpyHostToDevice, stream);
  for (int i = 0; i < 3; ++i) cudaMemsetAsync(device + i * 4096, i + 1, 4096, stream);
  nvtxRangePop();
  nvtxRangePushA("kernels");
  for (int i = 0; i < 4; ++i) touch<<<1, 32, 0, stream>>>(device, i);
  cudaMemcpyAsync(host, device, kBytes, cudaMemcpyDeviceToHost, stream);
  if (!ok(cudaEventRecord(done, stream), "cudaEventRecord") || !ok(cudaEventSynchronize(done), "cudaEventSynchronize")) {
    return 1;
  }
  nvtxRangePop();
  if (!ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize") || !ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize")) {
    return 1;
  }
  // The first byte: 1 (the first fill, i + 1 with i = 0, after both copies) + 0 + 1 + 2 + 3 from the kernels.
  const int first = host[0];
  cudaEventDestroy(done);
  cudaStreamDestroy(stream);
  cudaFree(device);
  cudaFreeHost(host);
  std::printf("record_kinds_program: 4 kernels, 3 copies, 3 fills, 2 NVTX ranges after CUDA started; first byte %d\n", first);
  return first == 7 ? 0 : 1;
}
