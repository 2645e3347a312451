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

namespace perfhound::trace {

// Where the elements of a JSON array end, found 64 bytes at a time (the quote / backslash / bracket
// bitmask technique of simdjson's stage 1, Langdale & Lemire 2019), for the traceEvents array of a
// multi-GB trace. The state carries across calls, so a caller can feed the array in chunks.
struct ArrayScanState {
  int depth = 0;           // bracket depth below the array itself
  bool in_string = false;  // the last byte scanned was inside a string
  bool escaped = false;    // the next byte is escaped by a backslash
};

struct ArrayScan {
  std::size_t scanned_to;         // everything before this index has been scanned (text.size() or array_end)
  std::size_t last_element_end;   // one past the last object/array element that closed, or npos if none did
  std::size_t array_end;          // index of the array's closing ']' (a closer at depth 0), or npos
};

// Scans text[from, text.size()) continuing `state`. Scalar elements are not located, only containers and
// the array's end; brackets are counted, not matched (the parser that reads the elements validates them).
ArrayScan scan_array_elements(std::string_view text, std::size_t from, ArrayScanState& state);

}  // namespace perfhound::trace
