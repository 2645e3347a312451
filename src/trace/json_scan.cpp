#include "trace/json_scan.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

namespace perfhound::trace {
namespace {

struct BlockMasks {
  std::uint64_t quote = 0, backslash = 0, open = 0, close = 0;
};

#if defined(__SSE2__)
// SSE2 is the x86-64 baseline, so this needs no target flags and runs on every x86-64 machine.
inline std::uint64_t eq_mask(const __m128i (&v)[4], char c) {
  const __m128i needle = _mm_set1_epi8(c);
  std::uint64_t m = 0;
  for (int i = 0; i < 4; ++i) {
    m |= static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v[i], needle))))
         << (16 * i);
  }
  return m;
}

BlockMasks classify(const char* p) {
  __m128i v[4], folded[4];
  // '[' (0x5B) | 0x20 is '{' (0x7B) and ']' | 0x20 is '}', and no other byte folds onto either: one compare
  // finds both openers, one both closers.
  const __m128i case_bit = _mm_set1_epi8(0x20);
  for (int i = 0; i < 4; ++i) {
    v[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
    folded[i] = _mm_or_si128(v[i], case_bit);
  }
  return {eq_mask(v, '"'), eq_mask(v, '\\'), eq_mask(folded, '{'), eq_mask(folded, '}')};
}
#else
BlockMasks classify(const char* p) {
  BlockMasks m;
  for (int i = 0; i < 64; ++i) {
    const std::uint64_t bit = std::uint64_t{1} << i;
    switch (p[i]) {
      case '"': m.quote |= bit; break;
      case '\\': m.backslash |= bit; break;
      case '{': case '[': m.open |= bit; break;
      case '}': case ']': m.close |= bit; break;
      default: break;
    }
  }
  return m;
}
#endif

// Bit i set iff an odd number of quote bits are set at or below i: the "inside a string" mask.
inline std::uint64_t prefix_xor(std::uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

}  // namespace

ArrayScan scan_array_elements(std::string_view text, std::size_t from, ArrayScanState& state) {
  ArrayScan result{text.size(), std::string_view::npos, std::string_view::npos};
  for (std::size_t block = from; block < text.size(); block += 64) {
    const std::size_t n = std::min<std::size_t>(64, text.size() - block);
    BlockMasks m;
    if (n == 64) {
      m = classify(text.data() + block);
    } else {
      char tail[64] = {};  // the last partial block: a copy, so nothing past the text is read
      std::memcpy(tail, text.data() + block, n);
      m = classify(tail);
    }
    // Escapes are rare in traces (kernel names have none); only blocks with a backslash, or one carried in,
    // take the byte loop that marks which bytes are escaped.
    std::uint64_t escaped = 0;
    if (m.backslash != 0 || state.escaped) {
      bool esc = state.escaped;
      for (std::size_t i = 0; i < n; ++i) {
        if (esc) {
          escaped |= std::uint64_t{1} << i;
          esc = false;
        } else if ((m.backslash >> i) & 1u) {
          esc = true;
        }
      }
      state.escaped = esc;
    }
    const std::uint64_t quotes = m.quote & ~escaped;
    std::uint64_t in_string = prefix_xor(quotes);
    if (state.in_string) in_string = ~in_string;
    state.in_string = ((in_string >> (n - 1)) & 1u) != 0;
    const std::uint64_t opens = m.open & ~in_string;
    const std::uint64_t closes = m.close & ~in_string;
    std::uint64_t brackets = opens | closes;
    while (brackets != 0) {
      const int i = __builtin_ctzll(brackets);
      const std::uint64_t bit = std::uint64_t{1} << i;
      brackets &= brackets - 1;
      if ((opens & bit) != 0) {
        ++state.depth;
      } else if (state.depth == 0) {
        result.array_end = block + static_cast<std::size_t>(i);
        result.scanned_to = result.array_end;
        return result;
      } else if (--state.depth == 0) {
        result.last_element_end = block + static_cast<std::size_t>(i) + 1;
      }
    }
  }
  return result;
}

}  // namespace perfhound::trace
