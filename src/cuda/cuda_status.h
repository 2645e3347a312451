// CUDA and cuBLAS return codes as core::Error, one line naming the call (STYLE.md rule 8): e.g.
// "cudaMalloc: out of memory". Internal to src/cuda.
#pragma once

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <string>

#include "core/result.h"
#include "cuda/cublaslt_library.h"

namespace perfhound::cuda {

inline std::string call_name(const char* expression) {
  std::string s(expression);
  const auto paren = s.find('(');
  return paren == std::string::npos ? s : s.substr(0, paren);
}
inline core::Error cuda_error(const std::string& call, cudaError_t e) {
  return core::Error{call + ": " + cudaGetErrorString(e)};
}
// cudaGetDeviceCount's error. Where no driver is installed at all, the runtime says "CUDA driver version is
// insufficient for CUDA runtime version", which sends a user to upgrade a driver that is not there: that is said.
inline core::Error device_count_error(cudaError_t e) {
  if (e == cudaErrorInsufficientDriver) {
    void* driver = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (driver == nullptr) {
      return core::Error{"cudaGetDeviceCount: no NVIDIA driver on this machine (libcuda.so.1 cannot be loaded): a GPU "
                         "and its driver are needed"};
    }
    ::dlclose(driver);
  }
  return cuda_error("cudaGetDeviceCount", e);
}
// `device` checked against the machine's CUDA devices (probe --device, perfhound::bench --device): the count's own
// error, no device at all, or an ordinal out of range, each one line.
inline core::Status check_device_ordinal(int device) {
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) return device_count_error(e);
  if (count == 0) return core::Error{"cudaGetDeviceCount: no CUDA device"};
  if (device < 0 || device >= count) {
    return core::Error{"--device " + std::to_string(device) + ": this machine has " + std::to_string(count) +
                       " CUDA device" + (count == 1 ? "" : "s") + " (0.." + std::to_string(count - 1) + ")"};
  }
  return {};
}
inline core::Error cublas_error(const std::string& call, cublasStatus_t s) {
  return core::Error{call + ": " + cublasLtGetStatusName(s) + " (" + cublasLtGetStatusString(s) + ")"};
}

}  // namespace perfhound::cuda

// PH_CUDA_TRY(cudaMalloc(&p, n));  returns "cudaMalloc: <cudaGetErrorString>" from the enclosing function.
#define PH_CUDA_TRY(expr)                                                                              \
  do {                                                                                                 \
    const cudaError_t ph_cuda_error_ = (expr);                                                         \
    if (ph_cuda_error_ != cudaSuccess) return ::perfhound::cuda::cuda_error(::perfhound::cuda::call_name(#expr), ph_cuda_error_); \
  } while (0)
// PH_CUBLAS_TRY(cublasLtMatmul(...));  the same for cublasStatus_t.
#define PH_CUBLAS_TRY(expr)                                                                              \
  do {                                                                                                   \
    const cublasStatus_t ph_cublas_status_ = (expr);                                                     \
    if (ph_cublas_status_ != CUBLAS_STATUS_SUCCESS) return ::perfhound::cuda::cublas_error(::perfhound::cuda::call_name(#expr), ph_cublas_status_); \
  } while (0)
