// Numeric precisions of weights, activations and the KV cache, with their storage size. One table, used by
// the model arithmetic (bytes) and the chip catalogue (which peak FLOP/s applies).
#pragma once

#include <string_view>

#include "core/result.h"

namespace perfhound::model {

enum class Precision { kFp32, kTf32, kBf16, kFp16, kFp8, kInt8, kFp4, kInt4 };

struct PrecisionInfo {
  Precision precision;
  std::string_view name;        // "bf16", as flags and the catalogue spell it
  double bytes_per_element;     // storage: tf32 is stored as fp32 (4 bytes); fp4/int4 pack two per byte
  std::string_view peak_key;    // the chip catalogue's peak_flops key for math in this precision
};

const PrecisionInfo& precision_info(Precision p);
// "bf16", "fp16", "fp32", "tf32", "fp8", "int8", "fp4", "int4" (also "float16", "bfloat16", "float32", as
// Hugging Face's torch_dtype spells them). Error quotes the text and lists the names.
core::Result<Precision> parse_precision(std::string_view text);

}  // namespace perfhound::model
