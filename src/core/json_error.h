// What to tell a user when nlohmann::json refuses a document. Parsing throws more than parse_error: a number
// too large for a double ("1e999", or the 80-digit integer a fuzzer found crashing `perfhound serve`) is an
// out_of_range (406), so readers of outside data catch nlohmann::json::exception, the base of both, and word
// the message with these.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace perfhound::core {

// nlohmann's what() without its "[json.exception.parse_error.101] " id and "parse error at " lead-in:
// "line 1, column 5: syntax error while parsing value - invalid literal; last read: 'tru'", or
// "number overflow parsing '1e999'".
std::string json_error_text(const nlohmann::json::exception& e);

// The byte offset a parse_error carries (1-based, as nlohmann counts); nullopt for other exceptions.
std::optional<std::size_t> json_error_byte(const nlohmann::json::exception& e);

}  // namespace perfhound::core
