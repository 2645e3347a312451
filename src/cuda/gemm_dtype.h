// The GEMM precisions `perfhound probe` measures (plain C++, no CUDA types).
#pragma once

#include <array>
#include <string_view>

namespace perfhound::cuda {

// bf16 and fp16: inputs and output in that type, fp32 accumulation. tf32: fp32 storage, tensor-core TF32
// math (CUBLAS_COMPUTE_32F_FAST_TF32). fp8: e4m3 inputs with unit scales, bf16 output, fp32 accumulation.
enum class GemmDtype { kBf16, kFp16, kTf32, kFp8E4m3 };
inline constexpr std::array kAllGemmDtypes{GemmDtype::kBf16, GemmDtype::kFp16, GemmDtype::kTf32, GemmDtype::kFp8E4m3};

// "bf16", "fp16", "tf32", "fp8": the chip catalogue's peak_flops keys.
constexpr std::string_view gemm_dtype_name(GemmDtype d) {
  switch (d) {
    case GemmDtype::kBf16: return "bf16";
    case GemmDtype::kFp16: return "fp16";
    case GemmDtype::kTf32: return "tf32";
    case GemmDtype::kFp8E4m3: return "fp8";
  }
  return "?";
}
// Bytes per input element.
constexpr int gemm_input_bytes(GemmDtype d) {
  return d == GemmDtype::kTf32 ? 4 : d == GemmDtype::kFp8E4m3 ? 1 : 2;
}
// Bytes per output element.
constexpr int gemm_output_bytes(GemmDtype d) { return d == GemmDtype::kTf32 ? 4 : 2; }

}  // namespace perfhound::cuda
