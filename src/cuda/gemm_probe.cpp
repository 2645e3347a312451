#include "cuda/gemm_probe.h"

#include "cuda/cuda_status.h"

namespace perfhound::cuda {
namespace {

cudaDataType_t input_type(GemmDtype d) {
  switch (d) {
    case GemmDtype::kBf16: return CUDA_R_16BF;
    case GemmDtype::kFp16: return CUDA_R_16F;
    case GemmDtype::kTf32: return CUDA_R_32F;
    case GemmDtype::kFp8E4m3: return CUDA_R_8F_E4M3;
  }
  return CUDA_R_32F;
}
// fp8 writes bf16 (cuBLASLt's fp8 table: A/B e4m3, C/D bf16, scale type fp32).
cudaDataType_t output_type(GemmDtype d) {
  switch (d) {
    case GemmDtype::kBf16: return CUDA_R_16BF;
    case GemmDtype::kFp16: return CUDA_R_16F;
    case GemmDtype::kTf32: return CUDA_R_32F;
    case GemmDtype::kFp8E4m3: return CUDA_R_16BF;
  }
  return CUDA_R_32F;
}

}  // namespace

core::Result<std::unique_ptr<LtGemm>> LtGemm::create(cublasLtHandle_t handle, GemmDtype dtype, int m, int n, int k,
                                                     const void* a, const void* b, void* d, void* workspace,
                                                     const float* unit_scale) {
  std::unique_ptr<LtGemm> g(new LtGemm());
  g->handle_ = handle;
  g->a_ = a;
  g->b_ = b;
  g->d_ = d;
  g->workspace_ = workspace;
  const cublasComputeType_t compute = dtype == GemmDtype::kTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  PH_CUBLAS_TRY(cublasLtMatmulDescCreate(&g->op_, compute, CUDA_R_32F));
  const cublasOperation_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
  PH_CUBLAS_TRY(cublasLtMatmulDescSetAttribute(g->op_, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof(transa)));
  PH_CUBLAS_TRY(cublasLtMatmulDescSetAttribute(g->op_, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof(transb)));
  if (dtype == GemmDtype::kFp8E4m3) {
    PH_CUBLAS_TRY(cublasLtMatmulDescSetAttribute(g->op_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &unit_scale,
                                                 sizeof(unit_scale)));
    PH_CUBLAS_TRY(cublasLtMatmulDescSetAttribute(g->op_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &unit_scale,
                                                 sizeof(unit_scale)));
    // Fast accumulation (no periodic promotion to full fp32): the mode fp8 inference GEMMs run in and what
    // the datasheet peak assumes; torch._scaled_mm(use_fast_accum=True) is the same setting.
    const std::int8_t fast_accum = 1;
    PH_CUBLAS_TRY(cublasLtMatmulDescSetAttribute(g->op_, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast_accum,
                                                 sizeof(fast_accum)));
  }
  // Column-major: A is k x m (op T gives m x k), B is k x n, D is m x n.
  PH_CUBLAS_TRY(cublasLtMatrixLayoutCreate(&g->a_layout_, input_type(dtype), k, m, k));
  PH_CUBLAS_TRY(cublasLtMatrixLayoutCreate(&g->b_layout_, input_type(dtype), k, n, k));
  PH_CUBLAS_TRY(cublasLtMatrixLayoutCreate(&g->d_layout_, output_type(dtype), m, n, m));
  PH_CUBLAS_TRY(cublasLtMatmulPreferenceCreate(&g->preference_));
  const std::size_t workspace_bytes = kGemmWorkspaceBytes;
  PH_CUBLAS_TRY(cublasLtMatmulPreferenceSetAttribute(g->preference_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                     &workspace_bytes, sizeof(workspace_bytes)));
  int found = 0;
  PH_CUBLAS_TRY(cublasLtMatmulAlgoGetHeuristic(handle, g->op_, g->a_layout_, g->b_layout_, g->d_layout_, g->d_layout_,
                                               g->preference_, 1, &g->heuristic_, &found));
  if (found < 1 || g->heuristic_.state != CUBLAS_STATUS_SUCCESS) {
    return core::Error{"cublasLtMatmulAlgoGetHeuristic: no algorithm for this GEMM (" +
                       std::string(gemm_dtype_name(dtype)) + ", TN, " + std::to_string(m) + "x" + std::to_string(n) +
                       "x" + std::to_string(k) + ")"};
  }
  if (g->heuristic_.workspaceSize > kGemmWorkspaceBytes) {
    return core::Error{"cublasLtMatmulAlgoGetHeuristic: the algorithm wants more workspace than the preference allows"};
  }
  return g;
}

LtGemm::~LtGemm() {
  // Destroy calls only fail on null or invalid descriptors, which these are not; nothing to report.
  if (preference_ != nullptr) static_cast<void>(cublasLtMatmulPreferenceDestroy(preference_));
  if (d_layout_ != nullptr) static_cast<void>(cublasLtMatrixLayoutDestroy(d_layout_));
  if (b_layout_ != nullptr) static_cast<void>(cublasLtMatrixLayoutDestroy(b_layout_));
  if (a_layout_ != nullptr) static_cast<void>(cublasLtMatrixLayoutDestroy(a_layout_));
  if (op_ != nullptr) static_cast<void>(cublasLtMatmulDescDestroy(op_));
}

core::Status LtGemm::run(cudaStream_t stream) {
  // beta = 0: C is not read; D doubles as C so the layouts match.
  PH_CUBLAS_TRY(cublasLtMatmul(handle_, op_, &alpha_, a_, a_layout_, b_, b_layout_, &beta_, d_, d_layout_, d_, d_layout_,
                               &heuristic_.algo, workspace_, kGemmWorkspaceBytes, stream));
  return core::Status::success();
}

}  // namespace perfhound::cuda
