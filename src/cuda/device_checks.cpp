#include "cuda/device_checks.h"

#include "cuda/device_memory.h"
#include "cuda/gemm_probe.h"
#include "cuda/kernels.h"

namespace perfhound::cuda {
namespace {

FillType fill_type(GemmDtype d) {
  switch (d) {
    case GemmDtype::kBf16: return FillType::kBfloat16;
    case GemmDtype::kFp16: return FillType::kFloat16;
    case GemmDtype::kTf32: return FillType::kFloat32;
    case GemmDtype::kFp8E4m3: return FillType::kFp8E4m3;
  }
  return FillType::kFloat32;
}

core::Result<std::vector<float>> read_back_as_float(const void* src, std::size_t n, FillType type) {
  PH_ASSIGN_OR_RETURN(DeviceMemory out, device_alloc(n * sizeof(float)));
  PH_CUDA_TRY(launch_to_float(src, n, type, static_cast<float*>(out.get()), nullptr));
  std::vector<float> host(n);
  PH_CUDA_TRY(cudaMemcpy(host.data(), out.get(), n * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

}  // namespace

core::Result<std::pair<int, int>> compute_capability(int device) {
  int major = 0, minor = 0;
  PH_CUDA_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  PH_CUDA_TRY(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return std::pair{major, minor};
}

core::Result<std::vector<std::uint8_t>> run_copy_kernel(int device, std::span<const std::uint8_t> input) {
  PH_CUDA_TRY(cudaSetDevice(device));
  int sms = 0, grid = 0;
  PH_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  PH_CUDA_TRY(bandwidth_grid(sms, &grid));
  PH_ASSIGN_OR_RETURN(DeviceMemory src, device_alloc(input.size()));
  PH_ASSIGN_OR_RETURN(DeviceMemory dst, device_alloc(input.size()));
  PH_CUDA_TRY(cudaMemcpy(src.get(), input.data(), input.size(), cudaMemcpyHostToDevice));
  PH_CUDA_TRY(cudaMemset(dst.get(), 0, input.size()));
  PH_CUDA_TRY(launch_copy(src.get(), dst.get(), input.size(), grid, nullptr));
  std::vector<std::uint8_t> out(input.size());
  PH_CUDA_TRY(cudaMemcpy(out.data(), dst.get(), out.size(), cudaMemcpyDeviceToHost));
  return out;
}

core::Result<std::uint32_t> run_read_kernel(int device, std::span<const std::uint32_t> input) {
  PH_CUDA_TRY(cudaSetDevice(device));
  int sms = 0, grid = 0;
  PH_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  PH_CUDA_TRY(bandwidth_grid(sms, &grid));
  const std::size_t bytes = input.size_bytes();
  const std::size_t threads = static_cast<std::size_t>(grid) * kBandwidthThreads;
  PH_ASSIGN_OR_RETURN(DeviceMemory src, device_alloc(bytes));
  PH_ASSIGN_OR_RETURN(DeviceMemory partial, device_alloc(threads * sizeof(std::uint32_t)));
  PH_CUDA_TRY(cudaMemcpy(src.get(), input.data(), bytes, cudaMemcpyHostToDevice));
  PH_CUDA_TRY(launch_read(src.get(), bytes, static_cast<std::uint32_t*>(partial.get()), grid, nullptr));
  std::vector<std::uint32_t> sums(threads);
  PH_CUDA_TRY(cudaMemcpy(sums.data(), partial.get(), threads * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  std::uint32_t total = 0;
  for (const std::uint32_t s : sums) total += s;
  return total;
}

core::Result<std::vector<std::uint32_t>> run_write_kernel(int device, std::size_t words, std::uint32_t value) {
  PH_CUDA_TRY(cudaSetDevice(device));
  int sms = 0, grid = 0;
  PH_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  PH_CUDA_TRY(bandwidth_grid(sms, &grid));
  PH_ASSIGN_OR_RETURN(DeviceMemory dst, device_alloc(words * 4));
  PH_CUDA_TRY(cudaMemset(dst.get(), 0, words * 4));
  PH_CUDA_TRY(launch_write(dst.get(), words * 4, value, grid, nullptr));
  std::vector<std::uint32_t> out(words);
  PH_CUDA_TRY(cudaMemcpy(out.data(), dst.get(), words * 4, cudaMemcpyDeviceToHost));
  return out;
}

core::Result<std::vector<float>> run_fma_kernel(int device, int iterations, float b, float c) {
  PH_CUDA_TRY(cudaSetDevice(device));
  PH_ASSIGN_OR_RETURN(DeviceMemory out, device_alloc(kFmaThreads * sizeof(float)));
  PH_CUDA_TRY(launch_fma(static_cast<float*>(out.get()), iterations, b, c, 1, nullptr));
  std::vector<float> host(kFmaThreads);
  PH_CUDA_TRY(cudaMemcpy(host.data(), out.get(), host.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

core::Result<std::vector<float>> run_fill_uniform(int device, std::size_t n, std::uint64_t seed) {
  PH_CUDA_TRY(cudaSetDevice(device));
  PH_ASSIGN_OR_RETURN(DeviceMemory buf, device_alloc(n * sizeof(float)));
  PH_CUDA_TRY(launch_fill_uniform(buf.get(), n, FillType::kFloat32, seed, nullptr));
  std::vector<float> host(n);
  PH_CUDA_TRY(cudaMemcpy(host.data(), buf.get(), n * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

core::Result<SmallGemm> run_small_gemm(int device, GemmDtype dtype, int m, int n, int k) {
  PH_CUDA_TRY(cudaSetDevice(device));
  const auto count = [](int rows, int cols) { return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols); };
  PH_ASSIGN_OR_RETURN(DeviceMemory a, device_alloc(count(k, m) * gemm_input_bytes(dtype)));
  PH_ASSIGN_OR_RETURN(DeviceMemory b, device_alloc(count(k, n) * gemm_input_bytes(dtype)));
  PH_ASSIGN_OR_RETURN(DeviceMemory d, device_alloc(count(m, n) * gemm_output_bytes(dtype)));
  PH_ASSIGN_OR_RETURN(DeviceMemory workspace, device_alloc(kGemmWorkspaceBytes));
  PH_ASSIGN_OR_RETURN(DeviceMemory scale, device_alloc(sizeof(float)));
  const float one = 1.0f;
  PH_CUDA_TRY(cudaMemcpy(scale.get(), &one, sizeof(one), cudaMemcpyHostToDevice));
  PH_CUDA_TRY(launch_fill_uniform(a.get(), count(k, m), fill_type(dtype), 1, nullptr));
  PH_CUDA_TRY(launch_fill_uniform(b.get(), count(k, n), fill_type(dtype), 2, nullptr));
  cublasLtHandle_t handle = nullptr;
  PH_TRY(cublaslt_available());
  PH_CUBLAS_TRY(cublasLtCreate(&handle));
  auto gemm = LtGemm::create(handle, dtype, m, n, k, a.get(), b.get(), d.get(), workspace.get(),
                             static_cast<const float*>(scale.get()));
  core::Status ran = gemm.ok() ? (*gemm)->run(nullptr) : core::Status(gemm.error());
  const cudaError_t synced = cudaDeviceSynchronize();
  gemm = core::Error{"released"};  // destroy the descriptors before the handle
  static_cast<void>(cublasLtDestroy(handle));
  if (!ran.ok()) return ran.error();
  if (synced != cudaSuccess) return cuda_error("cudaDeviceSynchronize", synced);
  SmallGemm out;
  out.m = m;
  out.n = n;
  out.k = k;
  const FillType out_type = dtype == GemmDtype::kTf32 ? FillType::kFloat32 : dtype == GemmDtype::kFp16 ? FillType::kFloat16 : FillType::kBfloat16;
  PH_ASSIGN_OR_RETURN(out.a, read_back_as_float(a.get(), count(k, m), fill_type(dtype)));
  PH_ASSIGN_OR_RETURN(out.b, read_back_as_float(b.get(), count(k, n), fill_type(dtype)));
  PH_ASSIGN_OR_RETURN(out.d, read_back_as_float(d.get(), count(m, n), out_type));
  return out;
}

}  // namespace perfhound::cuda
