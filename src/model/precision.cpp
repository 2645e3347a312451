#include "model/precision.h"

#include <array>
#include <fmt/format.h>

namespace perfhound::model {
namespace {

// int4 is almost always weight-only quantization (AWQ, GPTQ: W4A16): the weights are unpacked and the math runs
// in bf16/fp16, so its compute roof is the bf16 peak; only the storage is 0.5 byte.
constexpr std::array<PrecisionInfo, 8> kPrecisions{{
    {Precision::kFp32, "fp32", 4.0, "fp32"},
    {Precision::kTf32, "tf32", 4.0, "tf32"},
    {Precision::kBf16, "bf16", 2.0, "bf16"},
    {Precision::kFp16, "fp16", 2.0, "fp16"},
    {Precision::kFp8, "fp8", 1.0, "fp8"},
    {Precision::kInt8, "int8", 1.0, "int8"},
    {Precision::kFp4, "fp4", 0.5, "fp4"},
    {Precision::kInt4, "int4", 0.5, "bf16"},
}};

}  // namespace

const PrecisionInfo& precision_info(Precision p) { return kPrecisions[static_cast<std::size_t>(p)]; }

core::Result<Precision> parse_precision(std::string_view text) {
  if (text == "float16" || text == "half") return Precision::kFp16;
  if (text == "bfloat16") return Precision::kBf16;
  if (text == "float32" || text == "float") return Precision::kFp32;
  for (const auto& p : kPrecisions) {
    if (p.name == text) return p.precision;
  }
  return core::Error{fmt::format("unknown precision '{}' (use fp32, tf32, bf16, fp16, fp8, int8, fp4 or int4)", text)};
}

}  // namespace perfhound::model
