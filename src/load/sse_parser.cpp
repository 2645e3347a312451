#include "load/sse_parser.h"

#include <cstring>

#include "core/check.h"

namespace perfhound::load {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr std::string_view kDefaultType = "message";  // WHATWG: the type when no "event" field was seen

std::size_t find_byte(const char* base, std::size_t from, std::size_t size, char c) {
  const void* p = std::memchr(base + from, c, size - from);
  return p == nullptr ? size : static_cast<std::size_t>(static_cast<const char*>(p) - base);
}

}  // namespace

SseParser::SseParser(std::size_t max_event_bytes) : max_event_bytes_(max_event_bytes) {
  PH_CHECK(max_event_bytes >= 1);
}

void SseParser::reset() {
  line_.clear();
  data_.clear();
  type_.clear();
  data_view_ = {};
  data_in_view_ = false;
  has_data_ = false;
  pending_cr_ = false;
  bom_matched_ = 0;
  at_start_ = true;
  overlong_ = false;
  events_ = 0;
}

void SseParser::begin_feed(std::string_view bytes) {
  base_ = bytes.data();
  size_ = bytes.size();
  pos_ = 0;
  if (overlong_) {
    pos_ = size_;
    return;
  }
  if (at_start_) {
    while (bom_matched_ < kBom.size() && pos_ < size_ && base_[pos_] == kBom[bom_matched_]) {
      ++pos_;
      ++bom_matched_;
    }
    if (bom_matched_ == kBom.size()) {
      at_start_ = false;
    } else if (pos_ < size_) {
      // Not a BOM after all: the bytes taken for one start the first line.
      at_start_ = false;
      line_.assign(kBom.data(), bom_matched_);
    }
  }
  if (pending_cr_ && pos_ < size_) {
    pending_cr_ = false;
    if (base_[pos_] == '\n') ++pos_;
  }
  lf_ = find_byte(base_, pos_, size_, '\n');
  cr_ = find_byte(base_, pos_, size_, '\r');
}

void SseParser::find_line_ends() {
  if (lf_ < pos_) lf_ = find_byte(base_, pos_, size_, '\n');
  if (cr_ < pos_) cr_ = find_byte(base_, pos_, size_, '\r');
}

bool SseParser::next_event() {
  while (pos_ < size_ && !overlong_) {
    const std::size_t eol = lf_ < cr_ ? lf_ : cr_;
    if (eol == size_) {  // the line goes on in a later feed
      if (line_.size() + (size_ - pos_) > max_event_bytes_) {
        overlong_ = true;
        return false;
      }
      line_.append(base_ + pos_, size_ - pos_);
      pos_ = size_;
      return false;
    }
    std::string_view line(base_ + pos_, eol - pos_);
    const bool in_input = line_.empty();
    if (!in_input) {
      if (line_.size() + line.size() > max_event_bytes_) {
        overlong_ = true;
        return false;
      }
      line_.append(line);
      line = line_;
    } else if (line.size() > max_event_bytes_) {
      overlong_ = true;
      return false;
    }
    pos_ = eol + 1;
    if (base_[eol] == '\r') {
      if (pos_ == size_) {
        pending_cr_ = true;
      } else if (base_[pos_] == '\n') {
        ++pos_;
      }
    }
    find_line_ends();
    const bool dispatch = process_line(line, in_input);
    if (!in_input) line_.clear();
    if (dispatch) return true;
  }
  return false;
}

bool SseParser::process_line(std::string_view line, bool in_input) {
  if (line.empty()) {
    if (!has_data_) {
      type_.clear();
      return false;
    }
    event_.type = type_.empty() ? kDefaultType : std::string_view(type_);
    event_.data = data_in_view_ ? data_view_ : std::string_view(data_);
    return true;
  }
  if (line.front() == ':') return false;  // comment
  const std::size_t colon = line.find(':');
  const std::string_view name = line.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);

  if (name == "data") {
    const std::size_t current = !has_data_ ? 0 : data_in_view_ ? data_view_.size() : data_.size();
    if ((has_data_ ? current + 1 : 0) + value.size() > max_event_bytes_) {
      overlong_ = true;
      return false;
    }
    if (!has_data_) {
      has_data_ = true;
      data_in_view_ = in_input;
      if (in_input) {
        data_view_ = value;
      } else {
        data_.assign(value);
      }
      return false;
    }
    if (data_in_view_) {
      data_.assign(data_view_);
      data_in_view_ = false;
    }
    data_.push_back('\n');
    data_.append(value);
  } else if (name == "event") {
    type_.assign(value);
  }
  // "id" and "retry" steer EventSource reconnection, which a load generator never does; unknown fields
  // are ignored as the spec says.
  return false;
}

void SseParser::end_event() {
  ++events_;
  has_data_ = false;
  data_in_view_ = false;
  data_.clear();
  type_.clear();
}

SseStatus SseParser::end_feed() {
  if (overlong_) return SseStatus::kOverlong;
  // The caller's bytes go away when feed() returns: keep the pending data line.
  if (has_data_ && data_in_view_) {
    data_.assign(data_view_);
    data_in_view_ = false;
  }
  return SseStatus::kOk;
}

}  // namespace perfhound::load
