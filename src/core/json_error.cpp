#include "core/json_error.h"

#include <string_view>

namespace perfhound::core {

std::string json_error_text(const nlohmann::json::exception& e) {
  std::string_view what = e.what();
  if (what.starts_with("[json.exception.")) {
    if (const auto pos = what.find("] "); pos != std::string_view::npos) what.remove_prefix(pos + 2);
  }
  for (const std::string_view lead : {std::string_view("parse error at "), std::string_view("parse error: ")}) {
    if (what.starts_with(lead)) {
      what.remove_prefix(lead.size());
      break;
    }
  }
  return std::string(what);
}

std::optional<std::size_t> json_error_byte(const nlohmann::json::exception& e) {
  if (const auto* p = dynamic_cast<const nlohmann::json::parse_error*>(&e)) return p->byte;
  return std::nullopt;
}

}  // namespace perfhound::core
