// Interned strings: a trace names the same few hundred kernels and API calls millions of times, so events
// hold a 32-bit id and the text is stored once.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace perfhound::trace {

using StringId = std::uint32_t;

class StringTable {
 public:
  StringTable() { intern(""); }  // id 0 is the empty string
  StringTable(const StringTable&) = delete;  // keys point into storage_; copying would dangle
  StringTable& operator=(const StringTable&) = delete;
  StringTable(StringTable&&) = default;
  StringTable& operator=(StringTable&&) = default;

  StringId intern(std::string_view text);
  // The id of text if it was interned, else kNotFound.
  StringId find(std::string_view text) const;
  std::string_view get(StringId id) const { return storage_[id]; }
  std::size_t size() const { return storage_.size(); }

  static constexpr StringId kNotFound = 0xFFFFFFFFu;

 private:
  std::deque<std::string> storage_;  // deque: elements never move, so the string_view keys stay valid
  std::unordered_map<std::string_view, StringId> ids_;
};

}  // namespace perfhound::trace
