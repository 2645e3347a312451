// One cuBLASLt matmul, set up once and run many times: D[m x n] = A^T B with A stored k x m and B stored
// k x n, column-major ("TN", lda = ldb = k, ldd = m), the layout Hopper's fp8 kernels require and the one
// used for every precision so the figures are comparable. Internal to src/cuda (CUDA types).
#pragma once

#include <cuda_runtime_api.h>
#include <memory>

#include "core/result.h"
#include "cuda/cublaslt_library.h"
#include "cuda/gemm_dtype.h"

namespace perfhound::cuda {

inline constexpr std::size_t kGemmWorkspaceBytes = std::size_t{64} << 20;

class LtGemm {
 public:
  // `a`, `b`, `d` device buffers of the sizes above; `workspace` kGemmWorkspaceBytes; `unit_scale` a device
  // float holding 1.0f (fp8 A and B scales). Error naming the cuBLASLt call when the library refuses the
  // setup or its heuristic returns no algorithm.
  static core::Result<std::unique_ptr<LtGemm>> create(cublasLtHandle_t handle, GemmDtype dtype, int m, int n, int k,
                                                      const void* a, const void* b, void* d, void* workspace,
                                                      const float* unit_scale);
  ~LtGemm();
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;

  core::Status run(cudaStream_t stream);

 private:
  LtGemm() = default;
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t a_layout_ = nullptr, b_layout_ = nullptr, d_layout_ = nullptr;
  cublasLtMatmulPreference_t preference_ = nullptr;
  cublasLtMatmulHeuristicResult_t heuristic_{};
  const void* a_ = nullptr;
  const void* b_ = nullptr;
  void* d_ = nullptr;
  void* workspace_ = nullptr;
  float alpha_ = 1, beta_ = 0;
};

}  // namespace perfhound::cuda
