#include "trace/kineto_json_importer.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <limits>
#include <string>
#include <vector>

#include "trace/byte_source.h"
#include "trace/json_scan.h"

namespace perfhound::trace {
namespace {

namespace od = simdjson::ondemand;
using core::Error;
using core::Result;
using core::Status;

// Read size per refill. Each batch handed to simdjson is about this big; its parser needs a few times the
// batch in index memory, so 8 MiB keeps the importer's own footprint near 50 MiB whatever the file size.
constexpr std::size_t kChunkBytes = 8u << 20;
// A plain file smaller than a chunk gets a buffer of its own size (at least this): an 8 MiB buffer zeroed for a
// 4 KB trace was most of the time of reading one (and kept the trace fuzzer at ~30 inputs a second).
constexpr std::size_t kMinChunkBytes = 64u << 10;

enum class Category : std::uint8_t {
  kKernel,
  kMemcpy,
  kMemset,
  kRuntime,
  kDriver,
  kCpuOp,
  kUserAnnotation,
  kPython,
  kGpuUserAnnotation,
  kHostSync,
  kProfilerOverhead,
  kIgnored,  // known, not needed for the timeline: flows, profiler overhead, instants, sync markers
  kUnknown,
};

// Category names Kineto has written over the years (PyTorch 1.8 used the capitalized ones). cuda_sync events
// sit on GPU rows but carry CPU-side times (kineto PR #866), so they must never count as GPU work.
struct CategoryName {
  std::string_view name;
  Category category;
};
constexpr CategoryName kCategories[] = {
    {"kernel", Category::kKernel},
    {"gpu_memcpy", Category::kMemcpy},
    {"gpu_memset", Category::kMemset},
    {"cuda_runtime", Category::kRuntime},
    {"cuda_driver", Category::kDriver},
    {"cpu_op", Category::kCpuOp},
    {"user_annotation", Category::kUserAnnotation},
    {"python_function", Category::kPython},
    {"gpu_user_annotation", Category::kGpuUserAnnotation},
    {"Kernel", Category::kKernel},
    {"Memcpy", Category::kMemcpy},
    {"Memset", Category::kMemset},
    {"Runtime", Category::kRuntime},
    {"Operator", Category::kCpuOp},
    {"Python", Category::kPython},
    {"ac2g", Category::kIgnored},
    {"fwdbwd", Category::kIgnored},
    {"async", Category::kIgnored},
    {"overhead", Category::kProfilerOverhead},
    {"Trace", Category::kIgnored},
    {"cuda_sync", Category::kIgnored},
    {"cpu_instant_event", Category::kIgnored},
    {"cuda_profiler_range", Category::kIgnored},
    {"perfhound", Category::kIgnored},  // our own --annotate rows: findings, not profiled work
    {"host_sync", Category::kHostSync},  // host waits recorded by nsys, as --annotate writes them back
};

Category category_of(std::string_view cat) {
  for (const auto& c : kCategories) {
    if (c.name == cat) return c.category;
  }
  return Category::kUnknown;
}

// Timestamps and durations beyond 2^62 ns (146 years) are not a clock: rejecting them keeps every sum of a
// start and a duration, and every difference of two timestamps, inside int64.
constexpr std::int64_t kMaxAbsTimeNs = std::int64_t{1} << 62;

// "5359688580398.798" (microseconds, as Kineto prints ns / 1000 with three decimals) -> 5359688580398798 ns
// exactly. More than three decimals round half up; an exponent falls back to double arithmetic.
std::optional<std::int64_t> parse_us_as_ns(std::string_view text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' || text.back() == '\t')) {
    text.remove_suffix(1);
  }
  if (text.empty()) return std::nullopt;
  if (text.find_first_of("eE") != std::string_view::npos) {
    double us = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), us);
    if (ec != std::errc() || p != text.data() + text.size() || !std::isfinite(us)) return std::nullopt;
    if (std::fabs(us) * 1000.0 > static_cast<double>(kMaxAbsTimeNs)) return std::nullopt;
    return static_cast<std::int64_t>(std::llround(us * 1000.0));
  }
  bool negative = false;
  std::size_t i = 0;
  if (text[0] == '-') {
    negative = true;
    i = 1;
  }
  std::int64_t whole = 0;
  std::size_t digits = 0;
  constexpr std::int64_t kMaxWholeUs = kMaxAbsTimeNs / 1000;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
    whole = whole * 10 + (text[i] - '0');
    if (whole > kMaxWholeUs) return std::nullopt;
  }
  if (digits == 0) return std::nullopt;
  std::int64_t frac_ns = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    int place = 0;
    bool round_up = false;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++place) {
      if (place < 3) frac_ns = frac_ns * 10 + (text[i] - '0');
      if (place == 3) round_up = text[i] >= '5';
    }
    if (place == 0) return std::nullopt;
    for (int p = place; p < 3; ++p) frac_ns *= 10;
    if (round_up) ++frac_ns;
  }
  if (i != text.size()) return std::nullopt;
  const std::int64_t ns = whole * 1000 + frac_ns;
  return negative ? -ns : ns;
}

struct MemcpyShape {
  CopyDirection direction = CopyDirection::kUnknown;
  MemoryKind src = MemoryKind::kUnknown;
  MemoryKind dst = MemoryKind::kUnknown;
};

MemoryKind memory_kind_named(std::string_view s) {
  if (s == "Pageable") return MemoryKind::kPageable;
  if (s == "Pinned") return MemoryKind::kPinned;
  if (s == "Device") return MemoryKind::kDevice;
  if (s == "Managed") return MemoryKind::kManaged;
  return MemoryKind::kUnknown;
}

// Kineto names copies "Memcpy HtoD (Pageable -> Device)" (CUPTI's copy kind, then source and destination
// memory kinds); the name is the only place a Chrome trace records pageable versus pinned.
MemcpyShape parse_memcpy_name(std::string_view name) {
  MemcpyShape shape;
  constexpr std::string_view kPrefix = "Memcpy ";
  if (name.substr(0, kPrefix.size()) != kPrefix) return shape;
  const std::string_view kind = name.substr(kPrefix.size(), 4);
  if (kind == "HtoD") shape.direction = CopyDirection::kHostToDevice;
  else if (kind == "DtoH") shape.direction = CopyDirection::kDeviceToHost;
  else if (kind == "DtoD") shape.direction = CopyDirection::kDeviceToDevice;
  else if (kind == "HtoH") shape.direction = CopyDirection::kHostToHost;
  else if (kind == "PtoP") shape.direction = CopyDirection::kPeerToPeer;
  const auto open = name.find('(');
  const auto arrow = name.find(" -> ");
  const auto close = name.find(')');
  if (open != std::string_view::npos && arrow != std::string_view::npos && close != std::string_view::npos &&
      open < arrow && arrow < close) {
    shape.src = memory_kind_named(name.substr(open + 1, arrow - open - 1));
    shape.dst = memory_kind_named(name.substr(arrow + 4, close - arrow - 4));
  }
  return shape;
}

// "13000" (CUDA's major * 1000 + minor * 10) -> "13.0".
std::string cuda_version_text(std::int64_t v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

class KinetoReader {
 public:
  // A plain file's size sizes both the buffer and the event vectors; a compressed one's is unknown.
  explicit KinetoReader(std::unique_ptr<ByteSource> source) : source_(std::move(source)) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(source_->path(), ec);
    if (!ec && !source_->compressed()) {
      chunk_bytes_ = std::clamp<std::size_t>(static_cast<std::size_t>(size) + 1, kMinChunkBytes, kChunkBytes);
      reserve_events(static_cast<std::size_t>(size));
    }
    buffer_.resize(1 + chunk_bytes_ + kTailReserve);
  }

  // Reserves the event vectors for a plain file of this size, so they do not regrow (each regrowth copies
  // and faults in fresh pages). Kineto events are >= ~250 bytes each, so size / 250 bounds the count; a
  // reservation is address space, not memory, until it is written. Compressed files are left to grow.
  void reserve_events(std::size_t size) {
    if (size < 4) return;
    const std::size_t events = size / 250;
    timeline_.gpu.reserve(events / 2);
    timeline_.host.reserve(events);
  }

  Result<Timeline> read() {
    timeline_.info.format = "kineto-json";
    timeline_.info.source = source_->path();
    PH_TRY(skip_byte_order_mark());
    PH_ASSIGN_OR_RETURN(const char first, peek_non_space());
    if (first == '\0') return error_here("is empty");
    if (first == '[') {
      timeline_.info.events_array_offset = static_cast<std::int64_t>(offset_of(pos_));
      ++pos_;
      PH_TRY(read_events());
      saw_events_ = true;
    } else if (first == '{') {
      ++pos_;
      PH_TRY(read_top_level_object());
    } else {
      return error_here(fmt::format("is not a JSON trace: expected '{{' or '[' but found '{}'", printable(first)));
    }
    PH_ASSIGN_OR_RETURN(const char after, peek_non_space());
    if (after != '\0') return error_here("has unexpected data after the trace's closing bracket");
    if (!saw_events_) {
      return Error{fmt::format("'{}': not a Chrome/Kineto trace: no 'traceEvents' array (top-level keys: {})",
                               source_->path(), top_level_keys_.empty() ? "none" : top_level_keys_)};
    }
    if (timeline_.gpu.empty()) return no_gpu_activity_error();
    if (window_lo_ <= window_hi_) {
      timeline_.window_start_ns = window_lo_;
      timeline_.window_end_ns = window_hi_;
    }
    timeline_.stats.bytes_read = source_->bytes_read();
    finalize_timeline(timeline_);
    return std::move(timeline_);
  }

 private:
  // --- buffer management -------------------------------------------------------------------------------

  // Absolute byte offset in the (uncompressed) file of buffer_[index].
  std::uint64_t offset_of(std::size_t index) const { return base_offset_ + index - 1; }

  Error error_at(std::size_t index, std::string_view what) const {
    return Error{fmt::format("'{}' byte {}: {}", source_->path(), offset_of(index), what)};
  }
  Error error_here(std::string_view what) const {
    if (eof_ && pos_ >= end_) return Error{fmt::format("'{}' {}", source_->path(), what)};
    return error_at(pos_, what);
  }
  Error truncated(std::string_view inside) const {
    return Error{fmt::format("'{}' is truncated: it ends at byte {} inside {}", source_->path(), offset_of(end_),
                             inside)};
  }

  static std::string printable(char c) {
    return (c >= 0x20 && c < 0x7f) ? std::string(1, c) : fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
  }

  // Reads more input, keeping buffer_[keep_from, end_) (moved to index 1: index 0 stays free so a batch can
  // be framed with '[' in place). Indexes into the buffer shift down by last_shift_; pos_ is adjusted here,
  // callers adjust their own. Returns false at end of input.
  Result<bool> refill(std::size_t keep_from) {
    last_shift_ = 0;
    if (eof_) return false;
    const std::size_t live = end_ - keep_from;
    if (keep_from != 1) {
      std::memmove(buffer_.data() + 1, buffer_.data() + keep_from, live);
      last_shift_ = keep_from - 1;
      base_offset_ += last_shift_;
      pos_ -= std::min(pos_, last_shift_);
      end_ = live + 1;
    }
    // One value larger than the buffer (a huge deviceProperties, say) grows it rather than failing.
    if (end_ + chunk_bytes_ / 2 > buffer_.size() - kTailReserve) {
      buffer_.resize(std::max(buffer_.size() * 2, end_ + chunk_bytes_ + kTailReserve));
    }
    const std::size_t room = buffer_.size() - kTailReserve - end_;
    PH_ASSIGN_OR_RETURN(const std::size_t got, source_->read(buffer_.data() + end_, room));
    if (got == 0) {
      eof_ = true;
      return false;
    }
    end_ += got;
    return true;
  }

  // Some Windows tools prefix JSON with a UTF-8 byte order mark; it is not JSON, so step over it.
  Status skip_byte_order_mark() {
    while (end_ - pos_ < 3) {
      PH_ASSIGN_OR_RETURN(const bool more, refill(pos_));
      if (!more) break;
    }
    if (end_ - pos_ >= 3 && std::memcmp(buffer_.data() + pos_, "\xEF\xBB\xBF", 3) == 0) pos_ += 3;
    return {};
  }

  // The next non-whitespace byte (pos_ left on it), or '\0' at end of input.
  Result<char> peek_non_space() {
    while (true) {
      while (pos_ < end_) {
        const char c = buffer_[pos_];
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return c;
        ++pos_;
      }
      PH_ASSIGN_OR_RETURN(const bool more, refill(pos_));
      if (!more) return '\0';
    }
  }

  // Scans the value starting at pos_; returns its end index (pos_ stays at its start). `inside` describes
  // the value for errors; it is a callable so the hot path formats nothing.
  template <class Describe>
  Result<std::size_t> scan_value(const Describe& inside) {
    while (true) {
      const ScanResult r = scan_json_value(std::string_view(buffer_.data(), end_), pos_);
      if (r.status == ScanStatus::kComplete) return r.end;
      if (r.status == ScanStatus::kUnbalanced) {
        return error_at(r.end, fmt::format("mismatched bracket '{}' in {}", printable(buffer_[r.end]), inside()));
      }
      PH_ASSIGN_OR_RETURN(const bool more, refill(pos_));
      if (!more) {
        // A scalar may legitimately end at end of input (a bare top-level number); anything else is cut off.
        const char c = buffer_[pos_];
        if (c != '{' && c != '[' && c != '"') return end_;
        return truncated(inside());
      }
    }
  }

  // --- top level ---------------------------------------------------------------------------------------

  Status read_top_level_object() {
    while (true) {
      PH_ASSIGN_OR_RETURN(char c, peek_non_space());
      if (c == '}') {
        ++pos_;
        return {};
      }
      if (c == '\0') return truncated("the top-level object");
      if (c != '"') return error_here(fmt::format("expected a key or '}}' in the top-level object, found '{}'", printable(c)));
      PH_ASSIGN_OR_RETURN(const std::size_t key_end, scan_value([] { return std::string("a top-level key"); }));
      const std::string key(buffer_.data() + pos_ + 1, key_end - pos_ - 2);
      pos_ = key_end;
      if (!top_level_keys_.empty()) top_level_keys_ += ", ";
      top_level_keys_ += key;
      PH_ASSIGN_OR_RETURN(c, peek_non_space());
      if (c != ':') return error_here(fmt::format("expected ':' after the key '{}'", key));
      ++pos_;
      PH_ASSIGN_OR_RETURN(c, peek_non_space());
      if (c == '\0') return truncated(fmt::format("the value of '{}'", key));
      if (key == "traceEvents") {
        if (c != '[') return error_here("'traceEvents' is not an array");
        timeline_.info.events_array_offset = static_cast<std::int64_t>(offset_of(pos_));
        ++pos_;
        PH_TRY(read_events());
        saw_events_ = true;
      } else {
        PH_ASSIGN_OR_RETURN(const std::size_t value_end, scan_value([&] { return fmt::format("the value of '{}'", key); }));
        PH_TRY(read_metadata(key, std::string_view(buffer_.data() + pos_, value_end - pos_), pos_));
        pos_ = value_end;
      }
      PH_ASSIGN_OR_RETURN(c, peek_non_space());
      if (c == ',') {
        ++pos_;
      } else if (c != '}') {
        if (c == '\0') return truncated("the top-level object");
        return error_here(fmt::format("expected ',' or '}}' after the value of '{}', found '{}'", key, printable(c)));
      }
    }
  }

  // deviceProperties, distributedInfo, the CUDA versions and perfhound record's own: small values, parsed on
  // their own.
  Status read_metadata(const std::string& key, std::string_view raw, std::size_t at) {
    if (key != "deviceProperties" && key != "distributedInfo" && key != "cuda_runtime_version" &&
        key != "cuda_driver_version" && key != "perfhound_record") {
      return {};
    }
    simdjson::padded_string text(raw);
    od::parser parser;
    auto fail = [&](simdjson::error_code e) {
      return error_at(at, fmt::format("invalid '{}': {}", key, simdjson::error_message(e)));
    };
    od::document doc;
    if (auto e = parser.iterate(text).get(doc)) return fail(e);
    if (key == "cuda_runtime_version" || key == "cuda_driver_version") {
      std::int64_t v = 0;
      if (auto e = doc.get_int64().get(v)) return fail(e);
      (key == "cuda_runtime_version" ? timeline_.info.cuda_runtime_version : timeline_.info.cuda_driver_version) =
          cuda_version_text(v);
      return {};
    }
    if (key == "perfhound_record") {
      od::object obj;
      if (doc.get_object().get(obj)) return {};  // not the recorder's object: someone else's key, left alone
      for (auto field : obj) {
        od::raw_json_string k;
        if (auto e = field.key().get(k)) return fail(e);
        std::int64_t v = 0;
        std::string_view text;
        if (k == "dropped_records" && !field.value().get_int64().get(v)) timeline_.info.recorder_dropped_records = v;
        if (k == "recorder" && !field.value().get_string().get(text)) timeline_.info.recorder = std::string(text);
      }
      return {};
    }
    if (key == "distributedInfo") {
      od::object obj;
      if (auto e = doc.get_object().get(obj)) return fail(e);
      for (auto field : obj) {
        od::raw_json_string k;
        if (auto e = field.key().get(k)) return fail(e);
        if (k == "rank" || k == "world_size") {
          // A folder of traces is compared rank by rank: a rank cut to 32 bits, or ignored, could make two
          // files one rank or hide a clash between them.
          const bool is_rank = k == "rank";
          std::int64_t v = 0;
          if (read_int(field.value(), v) || v < (is_rank ? 0 : 1) || v > std::numeric_limits<int>::max()) {
            return error_at(at, fmt::format("'distributedInfo.{}' is not {}: {}", is_rank ? "rank" : "world_size",
                                            is_rank ? "a rank (an integer from 0)" : "a world size (an integer from 1)",
                                            token_of(field.value())));
          }
          (is_rank ? timeline_.info.rank : timeline_.info.world_size) = static_cast<int>(v);
        } else if (k == "backend") {
          std::string_view s;
          if (!field.value().get_string().get(s)) timeline_.info.distributed_backend = std::string(s);
        }
      }
      const auto& info = timeline_.info;
      if (info.rank && info.world_size && *info.rank >= *info.world_size) {
        return error_at(at, fmt::format("'distributedInfo': rank {} is not below world_size {}", *info.rank,
                                        *info.world_size));
      }
      return {};
    }
    od::array devices;
    if (auto e = doc.get_array().get(devices)) return fail(e);
    for (auto element : devices) {
      od::object obj;
      if (auto e = element.get_object().get(obj)) return fail(e);
      DeviceInfo d;
      for (auto field : obj) {
        od::raw_json_string k;
        if (auto e = field.key().get(k)) return fail(e);
        std::int64_t v = 0;
        if (k == "id") {
          if (!field.value().get_int64().get(v)) d.id = static_cast<std::int32_t>(v);
        } else if (k == "name") {
          std::string_view s;
          if (!field.value().get_string().get(s)) d.name = std::string(s);
        } else if (k == "numSms") {
          if (!field.value().get_int64().get(v)) d.sm_count = static_cast<std::int32_t>(v);
        } else if (k == "totalGlobalMem") {
          if (!field.value().get_int64().get(v)) d.memory_bytes = static_cast<std::uint64_t>(v);
        } else if (k == "computeMajor") {
          if (!field.value().get_int64().get(v)) d.compute_major = static_cast<std::int32_t>(v);
        } else if (k == "computeMinor") {
          if (!field.value().get_int64().get(v)) d.compute_minor = static_cast<std::int32_t>(v);
        }
      }
      timeline_.info.devices.push_back(std::move(d));
    }
    return {};
  }

  // --- events ------------------------------------------------------------------------------------------

  // Reads the elements of the traceEvents array up to and including its ']'; pos_ starts after the '['.
  // scan_array_elements() finds where whole events end 64 bytes at a time; each refill first hands the
  // complete events read so far to simdjson, so only one partial event is ever carried over.
  Status read_events() {
    std::size_t begin = pos_;  // first byte not yet parsed
    std::size_t scanned = pos_;
    std::size_t complete_end = pos_;  // one past the last whole event found
    ArrayScanState state;
    while (true) {
      const ArrayScan scan = scan_array_elements(std::string_view(buffer_.data(), end_), scanned, state);
      scanned = scan.scanned_to;
      if (scan.last_element_end != std::string_view::npos) complete_end = scan.last_element_end;
      if (scan.array_end != std::string_view::npos) {
        PH_TRY(parse_events(begin, scan.array_end));
        pos_ = scan.array_end + 1;
        return {};
      }
      if (complete_end > begin) {
        PH_TRY(parse_events(begin, complete_end));
        begin = complete_end;
      }
      PH_ASSIGN_OR_RETURN(const bool more, refill(begin));
      begin -= last_shift_;
      scanned -= last_shift_;
      complete_end -= last_shift_;
      if (!more) {
        // A complete file with one quote missing reads the same as a cut one: the rest of it becomes one string.
        // Where the unfinished event starts tells them apart.
        std::size_t start = begin;
        while (start < end_ && buffer_[start] != '{') ++start;
        return truncated(fmt::format("traceEvents, after {} events{}", timeline_.stats.events_read,
                                     start < end_ ? fmt::format("; the event from byte {} never closes{}", offset_of(start),
                                                                state.in_string ? " and the file ends inside a string "
                                                                                  "(a closing quote missing in it?)"
                                                                                : "")
                                                  : ""));
      }
    }
  }

  // Parses the events in buffer_[begin, end) (separators around them allowed) as one JSON array, framed in
  // place with '[' and ']' over the bytes just outside it (restored afterwards).
  Status parse_events(std::size_t begin, std::size_t end) {
    auto separator = [](char c) { return c == ',' || c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
    while (begin < end && separator(buffer_[begin])) ++begin;
    while (end > begin && separator(buffer_[end - 1]) && buffer_[end - 1] != ',') --end;
    if (begin == end) return {};
    const char saved_open = buffer_[begin - 1];  // index 0 is kept free for this by refill()
    const char saved_close = buffer_[end];
    buffer_[begin - 1] = '[';
    buffer_[end] = ']';
    const Status status = parse_batch(begin - 1, end + 1);
    buffer_[begin - 1] = saved_open;
    buffer_[end] = saved_close;
    return status;
  }

  Status parse_batch(std::size_t begin, std::size_t end) {
    const std::size_t capacity = buffer_.size() - begin;
    od::document doc;
    bool iterating = false;  // current_location() is only defined once iterate() succeeded
    auto fail = [&](simdjson::error_code e) {
      const char* where = nullptr;
      std::size_t index = begin;
      if (iterating && !doc.current_location().get(where) && where >= buffer_.data() && where < buffer_.data() + end) {
        index = static_cast<std::size_t>(where - buffer_.data());
      }
      return error_at(index, fmt::format("invalid JSON in traceEvents: {}", simdjson::error_message(e)));
    };
    if (auto e = parser_.iterate(buffer_.data() + begin, end - begin, capacity).get(doc)) return fail(e);
    iterating = true;
    od::array events;
    if (auto e = doc.get_array().get(events)) return fail(e);
    for (auto element : events) {
      od::object event;
      if (auto e = element.get_object().get(event)) {
        if (e == simdjson::INCORRECT_TYPE) {
          // Not an event: a writer that put it there wrote something else than a trace, and guessing would hide it.
          const char* where = nullptr;
          const std::size_t index = !doc.current_location().get(where) && where >= buffer_.data() && where < buffer_.data() + end
                                        ? static_cast<std::size_t>(where - buffer_.data()) : begin;
          return error_at(index, fmt::format("traceEvents element {} is not an event object: {}",
                                             timeline_.stats.events_read + 1, token_of(element.value())));
        }
        return fail(e);
      }
      const char* event_start = nullptr;
      if (doc.current_location().get(event_start)) event_start = nullptr;
      if (auto e = read_event(event, event_start)) return *e;
    }
    return {};
  }

  struct RawEvent {
    std::string_view ph, cat, name;
    std::optional<std::int64_t> ts_ns, dur_ns;
    std::int64_t pid = 0, tid = 0;
    bool pid_numeric = false, tid_numeric = false;
    std::int64_t correlation = -1, external_id = -1, device = -1, stream = -1;
    std::uint64_t bytes = 0;
    // The first field of a wrong type or value, said only if the event turns out to be one perfhound uses: a
    // kernel whose id or byte count is dropped would change the figures without a word, while other writers'
    // events (a counter, a marker) may carry args of any shape.
    std::string problem;

    void note(std::string what) {
      if (problem.empty()) problem = std::move(what);
    }
    // GPU rows use pid = device and tid = stream; args repeat them and win when present.
    std::int64_t gpu_device() const { return device >= 0 ? device : pid_numeric ? pid : 0; }
    std::int64_t gpu_stream() const { return stream >= 0 ? stream : tid_numeric ? tid : 0; }
  };

  // A value as the input spells it, for an error message: scalars as written (cut at 40 characters), containers
  // by kind.
  static std::string token_of(od::value value) {
    std::string_view t = value.raw_json_token();
    while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '\t')) t.remove_suffix(1);
    if (t.starts_with('{')) return "an object";
    if (t.starts_with('[')) return "an array";
    if (t.size() > 40) return fmt::format("{}...", t.substr(0, 40));
    return std::string(t);
  }

  static simdjson::error_code read_int(od::value value, std::int64_t& out) {
    if (value.get_int64().get(out) == simdjson::SUCCESS) return simdjson::SUCCESS;
    // Ids are integers, but some writers emit 7.0; accept a double holding an integer, and nothing else: 1.7
    // is no id, and one outside int64's range (the fuzzer's 1e114) has no integer to be (converting it would
    // be undefined behaviour).
    double d = 0;
    if (auto e = value.get_double().get(d)) return e;
    if (!(d > -9.2233720368547758e18 && d < 9.2233720368547758e18)) return simdjson::NUMBER_OUT_OF_RANGE;
    if (d != std::trunc(d)) return simdjson::INCORRECT_TYPE;
    out = static_cast<std::int64_t>(d);
    return simdjson::SUCCESS;
  }

  // Reads one event object. Returns an Error only for input that must stop the import.
  std::optional<Error> read_event(od::object& event, const char* event_start) {
    RawEvent ev;
    const std::size_t at = event_start != nullptr ? static_cast<std::size_t>(event_start - buffer_.data()) : pos_;
    auto bad = [&](std::string_view what, simdjson::error_code e) {
      return error_at(at, fmt::format("event {}: {}: {}", timeline_.stats.events_read + 1, what, simdjson::error_message(e)));
    };
    for (auto field : event) {
      od::raw_json_string key;
      if (auto e = field.key().get(key)) return bad("bad key", e);
      od::value value = field.value();
      if (key == "ph") {
        if (auto e = value.get_string().get(ev.ph)) return bad("'ph' is not a string", e);
      } else if (key == "cat") {
        if (auto e = value.get_string().get(ev.cat)) return bad("'cat' is not a string", e);
      } else if (key == "name") {
        if (value.get_string().get(ev.name)) ev.note(fmt::format("'name' is not a string: {}", token_of(value)));
      } else if (key == "ts" || key == "dur") {
        const std::string_view token = value.raw_json_token();
        const auto ns = parse_us_as_ns(token);
        if (!ns) return error_at(at, fmt::format("event {}: '{}' is not a number of microseconds within +-2^62 ns: '{}'",
                                                 timeline_.stats.events_read + 1, key == "ts" ? "ts" : "dur", token));
        (key == "ts" ? ev.ts_ns : ev.dur_ns) = *ns;
      } else if (key == "pid" || key == "tid") {
        const bool is_pid = key == "pid";
        od::json_type type;
        if (auto e = value.type().get(type)) return bad("bad pid/tid", e);
        if (type == od::json_type::number) {
          std::int64_t v = 0;
          if (read_int(value, v)) {
            ev.note(fmt::format("'{}' is not an integer: {}", is_pid ? "pid" : "tid", token_of(value)));
          } else {
            (is_pid ? ev.pid : ev.tid) = v;
            (is_pid ? ev.pid_numeric : ev.tid_numeric) = true;
          }
        }
      } else if (key == "args") {
        od::object args;
        if (value.get_object().get(args)) {
          ev.note(fmt::format("'args' is not an object: {}", token_of(value)));
          continue;
        }
        for (auto arg : args) {
          od::raw_json_string arg_key;
          if (auto e = arg.key().get(arg_key)) return bad("bad args key", e);
          std::int64_t* target = nullptr;
          std::string_view name;
          if (arg_key == "correlation") target = &ev.correlation, name = "correlation";
          else if (arg_key == "External id") target = &ev.external_id, name = "External id";
          else if (arg_key == "device") target = &ev.device, name = "device";
          else if (arg_key == "stream") target = &ev.stream, name = "stream";
          else if (arg_key == "bytes") name = "bytes";
          if (name.empty()) continue;
          std::int64_t v = 0;
          if (read_int(arg.value(), v)) {
            ev.note(fmt::format("'args.{}' is not an integer: {}", name, token_of(arg.value())));
          } else if (name == "device" && (v < 0 || v > std::numeric_limits<std::int32_t>::max())) {
            ev.note(fmt::format("'args.device' {} is not a device index", v));
          } else if (name == "bytes") {
            if (v < 0) ev.note(fmt::format("'args.bytes' is negative: {}", v));
            else ev.bytes = static_cast<std::uint64_t>(v);
          } else if (target != nullptr) {
            *target = v;
          }
        }
      }
    }
    ++timeline_.stats.events_read;
    return add_event(ev, at);
  }

  std::optional<Error> add_event(const RawEvent& ev, std::size_t at) {
    if (ev.ph == "M") {  // metadata (process/thread names); its ts is often 0, so it never sets the window
      ++timeline_.stats.events_ignored;
      return std::nullopt;
    }
    if (ev.ts_ns) {
      window_lo_ = std::min(window_lo_, *ev.ts_ns);
      window_hi_ = std::max(window_hi_, *ev.ts_ns + std::max<std::int64_t>(ev.dur_ns.value_or(0), 0));
    }
    if (ev.ph != "X") {  // instants, flows, counters: not intervals
      ++timeline_.stats.events_ignored;
      return std::nullopt;
    }
    const Category category = category_of(ev.cat);
    if (category == Category::kIgnored) {
      ++timeline_.stats.events_ignored;
      return std::nullopt;
    }
    if (category == Category::kUnknown) {
      ++timeline_.stats.unknown_categories[std::string(ev.cat.empty() ? "(none)" : ev.cat)];
      return std::nullopt;
    }
    // Kernel names run to hundreds of characters (templates); the byte offset finds the event, the name's start
    // recognises it.
    std::string shown(ev.name.substr(0, 60));
    if (ev.name.size() > 60) shown.replace(57, 3, "...");
    for (char& c : shown) c = (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;  // one line, whatever the name holds
    const std::string which = fmt::format("event {} ('{}', cat '{}')", timeline_.stats.events_read, shown, ev.cat);
    if (!ev.problem.empty()) return error_at(at, fmt::format("{}: {}", which, ev.problem));
    if (!ev.ts_ns || !ev.dur_ns) return error_at(at, fmt::format("{} has no {}", which, ev.ts_ns ? "'dur'" : "'ts'"));
    if (*ev.dur_ns < 0) {
      return error_at(at, fmt::format("{} has a negative duration of {} ns", which, *ev.dur_ns));
    }
    const bool on_gpu = category == Category::kKernel || category == Category::kMemcpy ||
                        category == Category::kMemset || category == Category::kGpuUserAnnotation;
    if (on_gpu && ev.device < 0 && (ev.gpu_device() < 0 || ev.gpu_device() > std::numeric_limits<std::int32_t>::max())) {
      return error_at(at, fmt::format("{}: 'pid' {} is not a device index, and no 'args.device' says which GPU it ran on",
                                      which, ev.gpu_device()));
    }
    const StringId name = timeline_.strings.intern(ev.name);
    switch (category) {
      case Category::kKernel:
      case Category::kMemcpy:
      case Category::kMemset: {
        GpuActivity a;
        a.start_ns = *ev.ts_ns;
        a.dur_ns = *ev.dur_ns;
        a.device = static_cast<std::int32_t>(ev.gpu_device());
        a.stream = ev.gpu_stream();
        a.kind = category == Category::kKernel ? GpuKind::kKernel
                 : category == Category::kMemcpy ? GpuKind::kMemcpy
                                                 : GpuKind::kMemset;
        a.name = name;
        a.correlation = ev.correlation;
        a.external_id = ev.external_id;
        a.bytes = ev.bytes;
        if (a.kind == GpuKind::kMemcpy) {
          const MemcpyShape shape = parse_memcpy_name(ev.name);
          a.direction = shape.direction;
          a.src_memory = shape.src;
          a.dst_memory = shape.dst;
        }
        timeline_.gpu.push_back(a);
        break;
      }
      case Category::kGpuUserAnnotation: {
        GpuAnnotation a;
        a.start_ns = *ev.ts_ns;
        a.dur_ns = *ev.dur_ns;
        a.device = static_cast<std::int32_t>(ev.gpu_device());
        a.stream = ev.gpu_stream();
        a.name = name;
        timeline_.gpu_annotations.push_back(a);
        break;
      }
      default: {
        HostEvent h;
        h.start_ns = *ev.ts_ns;
        h.dur_ns = *ev.dur_ns;
        h.pid = ev.pid;
        h.tid = ev.tid;
        h.kind = category == Category::kRuntime ? HostKind::kRuntime
                 : category == Category::kDriver ? HostKind::kDriver
                 : category == Category::kCpuOp ? HostKind::kCpuOp
                 : category == Category::kPython ? HostKind::kPython
                 : category == Category::kHostSync ? HostKind::kSync
                 : category == Category::kProfilerOverhead ? HostKind::kProfiler
                                                 : HostKind::kUserAnnotation;
        h.name = name;
        h.correlation = ev.correlation;
        h.external_id = ev.external_id;
        timeline_.host.push_back(h);
        break;
      }
    }
    return std::nullopt;
  }

  Error no_gpu_activity_error() const {
    std::string seen = fmt::format("{} host events", timeline_.host.size());
    for (const auto& [cat, count] : timeline_.stats.unknown_categories) seen += fmt::format(", {} '{}'", count, cat);
    return Error{fmt::format("'{}': no GPU activity: no kernel, gpu_memcpy or gpu_memset events among {} events ({}); "
                             "record with torch.profiler activities=[CPU, CUDA]",
                             source_->path(), timeline_.stats.events_read, seen)};
  }

  // Past the last byte read: one byte for the ']' that frames a batch, then simdjson's required padding.
  static constexpr std::size_t kTailReserve = 1 + simdjson::SIMDJSON_PADDING;

  std::unique_ptr<ByteSource> source_;
  std::vector<char> buffer_;
  std::size_t chunk_bytes_ = kChunkBytes;  // a refill's size: kChunkBytes, or a small plain file's own size
  std::size_t pos_ = 1;  // next byte to look at; index 0 stays free (see refill)
  std::size_t end_ = 1;  // one past the last byte read
  std::uint64_t base_offset_ = 0;  // file offset of buffer_[1] (index 0 is the spare framing byte)
  bool eof_ = false;
  std::size_t last_shift_ = 0;  // how far the last refill() moved the buffer's contents down
  bool saw_events_ = false;
  std::string top_level_keys_;
  std::int64_t window_lo_ = std::numeric_limits<std::int64_t>::max();
  std::int64_t window_hi_ = std::numeric_limits<std::int64_t>::min();
  od::parser parser_;
  Timeline timeline_;
};

class KinetoJsonImporter final : public TraceImporter {
 public:
  std::string_view format_name() const override { return "kineto-json"; }

  bool recognizes(std::span<const std::uint8_t> head) const override {
    if (head.size() >= 2 && head[0] == 0x1f && head[1] == 0x8b) return true;  // gzip: PyTorch's .json.gz
    std::size_t i = 0;
    if (head.size() >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF) i = 3;  // UTF-8 BOM
    while (i < head.size() && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) ++i;
    return i < head.size() && (head[i] == '{' || head[i] == '[');
  }

  Result<Timeline> import(const std::string& path) const override {
    PH_ASSIGN_OR_RETURN(auto source, ByteSource::open(path));
    KinetoReader reader(std::move(source));
    return reader.read();
  }
};

}  // namespace

std::unique_ptr<TraceImporter> make_kineto_json_importer() { return std::make_unique<KinetoJsonImporter>(); }

}  // namespace perfhound::trace
