// Finding where one JSON value ends without parsing it: the one structural pass perfhound makes itself, so
// it can hand simdjson batches of whole trace events and never hold a multi-GB trace in memory at once.
//
// It tracks only strings (with backslash escapes) and bracket depth. It does not validate: simdjson
// validates each batch afterwards, so a malformed event is still reported with its byte offset.
#pragma once

#include <cstddef>
#include <string_view>

namespace perfhound::trace {

enum class ScanStatus { kComplete, kNeedMoreData, kUnbalanced };

struct ScanResult {
  ScanStatus status;
  std::size_t end;  // kComplete: one past the value's last byte; otherwise where scanning stopped
};

// Scans the value that starts at text[begin] (which must not be whitespace). Objects and arrays end at
// their matching bracket, strings at their closing quote, scalars before the first ',', '}', ']' or
// whitespace. kNeedMoreData when the text ends first (for a scalar, also when it ends the text: more digits
// may follow); kUnbalanced for a closing bracket that does not match.
ScanResult scan_json_value(std::string_view text, std::size_t begin);

}  // namespace perfhound::trace
