#include "report/json_document.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>

namespace perfhound::report {

nlohmann::ordered_json make_json_document(std::string_view kind, const core::Conditions& conditions,
                                          nlohmann::ordered_json result, nlohmann::ordered_json diagnostics) {
  nlohmann::ordered_json doc;
  doc["schema_version"] = kSchemaVersion;
  doc["kind"] = fmt::format("perfhound.{}", kind);
  doc["conditions"] = conditions.to_json();
  doc["result"] = std::move(result);
  doc["diagnostics"] = std::move(diagnostics);
  return doc;
}

core::Status write_text_file(const std::string& path, std::string_view text) {
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return core::Error{fmt::format("cannot write '{}': {}", path, std::strerror(errno))};
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    return core::Error{fmt::format("cannot write '{}': {}", path, std::strerror(err))};
  }
  return {};
}

}  // namespace perfhound::report
