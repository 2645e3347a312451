#include "trace/json_scan.h"

#include <cstdint>
#include <cstring>

namespace perfhound::trace {
namespace {

// One past the closing quote of the string whose opening quote is at text[open], or npos if the text ends
// first. A quote is escaped iff an odd number of backslashes precedes it; memchr jumps over the long
// kernel names that make up most of a trace's bytes.
std::size_t string_end(std::string_view text, std::size_t open) {
  std::size_t p = open + 1;
  while (p < text.size()) {
    const void* q = std::memchr(text.data() + p, '"', text.size() - p);
    if (q == nullptr) return std::string_view::npos;
    const auto quote = static_cast<std::size_t>(static_cast<const char*>(q) - text.data());
    std::size_t backslashes = 0;
    while (quote - backslashes > open + 1 && text[quote - backslashes - 1] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return quote + 1;
    p = quote + 1;
  }
  return std::string_view::npos;
}

bool ends_scalar(char c) { return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

}  // namespace

ScanResult scan_json_value(std::string_view text, std::size_t begin) {
  if (begin >= text.size()) return {ScanStatus::kNeedMoreData, begin};
  const char first = text[begin];
  if (first == '"') {
    const auto end = string_end(text, begin);
    return end == std::string_view::npos ? ScanResult{ScanStatus::kNeedMoreData, text.size()}
                                         : ScanResult{ScanStatus::kComplete, end};
  }
  if (first == '}' || first == ']') return {ScanStatus::kUnbalanced, begin};
  if (first != '{' && first != '[') {
    std::size_t p = begin;
    while (p < text.size() && !ends_scalar(text[p])) ++p;
    return {p < text.size() ? ScanStatus::kComplete : ScanStatus::kNeedMoreData, p};
  }
  // Depth is counted with one stack of expected closers packed in bits: 1 for '}', 0 for ']'; 64 levels
  // are far deeper than any trace, and deeper input is reported as unbalanced rather than overflowing.
  constexpr int kMaxDepth = 64;
  std::uint64_t closers = 0;
  int depth = 0;
  std::size_t p = begin;
  while (p < text.size()) {
    const char c = text[p];
    switch (c) {
      case '"': {
        const auto end = string_end(text, p);
        if (end == std::string_view::npos) return {ScanStatus::kNeedMoreData, text.size()};
        p = end;
        continue;
      }
      case '{':
      case '[':
        if (depth == kMaxDepth) return {ScanStatus::kUnbalanced, p};
        closers = (closers << 1) | (c == '{' ? 1u : 0u);
        ++depth;
        break;
      case '}':
      case ']': {
        const bool want_brace = (closers & 1u) != 0;
        if (depth == 0 || want_brace != (c == '}')) return {ScanStatus::kUnbalanced, p};
        closers >>= 1;
        if (--depth == 0) return {ScanStatus::kComplete, p + 1};
        break;
      }
      default:
        break;
    }
    ++p;
  }
  return {ScanStatus::kNeedMoreData, text.size()};
}

}  // namespace perfhound::trace
