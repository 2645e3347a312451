#include "trace/string_table.h"

namespace perfhound::trace {

StringId StringTable::intern(std::string_view text) {
  if (const auto it = ids_.find(text); it != ids_.end()) return it->second;
  const auto id = static_cast<StringId>(storage_.size());
  storage_.emplace_back(text);
  ids_.emplace(storage_.back(), id);
  return id;
}

StringId StringTable::find(std::string_view text) const {
  const auto it = ids_.find(text);
  return it == ids_.end() ? kNotFound : it->second;
}

}  // namespace perfhound::trace
