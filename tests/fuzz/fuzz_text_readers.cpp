// libFuzzer target: the text formats read from users' files. The first byte picks the reader: a sample column
// (perfhound stats), an Nsight Compute CSV export, a ShareGPT JSON, a JSONL of prompts, an arrival trace, a
// Hugging Face config.json. Errors are fine; crashes, leaks and undefined behaviour are not.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/sample_parser.h"
#include "load/dataset_readers.h"
#include "model/model_shape.h"
#include "roofline/ncu_csv_reader.h"

namespace ph = perfhound;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 6) {
    case 0: static_cast<void>(ph::core::parse_sample_column(text, {""}, "fuzz")); break;
    case 1: static_cast<void>(ph::roofline::parse_ncu_csv(text, "fuzz")); break;
    case 2: static_cast<void>(ph::load::parse_sharegpt(text, "fuzz", {})); break;
    case 3: static_cast<void>(ph::load::parse_jsonl_prompts(text, "fuzz", {})); break;
    case 4: static_cast<void>(ph::load::parse_arrival_trace(text, "fuzz", {})); break;
    default: {
      const auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (!json.is_discarded()) static_cast<void>(ph::model::model_shape_from_config(json, "fuzz"));
      break;
    }
  }
  return 0;
}
