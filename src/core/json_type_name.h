// The name of a JSON value's type as error messages say it ("'max_tokens' must be an integer, got a
// string"): one wording for every reader of JSON input (request bodies, records files).
#pragma once

#include <nlohmann/json.hpp>

namespace perfhound::core {

inline const char* json_type_name(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return "an integer";
    case nlohmann::json::value_t::number_float: return "a number";
    default: return "an unsupported value";
  }
}

}  // namespace perfhound::core
