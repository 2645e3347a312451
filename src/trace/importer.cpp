#include "trace/importer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>

#include "trace/kineto_json_importer.h"
#include "trace/nsys_sqlite_importer.h"

namespace perfhound::trace {

std::vector<std::unique_ptr<TraceImporter>> make_importers() {
  std::vector<std::unique_ptr<TraceImporter>> importers;
  importers.push_back(make_nsys_sqlite_importer());  // first: its 16-byte magic is unambiguous
  importers.push_back(make_kineto_json_importer());
  return importers;
}

core::Result<Timeline> import_trace(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return core::Error{fmt::format("'{}' is a directory; pass one trace file", path)};
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return core::Error{fmt::format("cannot open '{}': {}", path, std::strerror(errno))};
  std::uint8_t head[64];
  const std::size_t n = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  if (n == 0) return core::Error{fmt::format("'{}' is empty", path)};
  for (const auto& importer : make_importers()) {
    if (importer->recognizes(std::span<const std::uint8_t>(head, n))) return importer->import(path);
  }
  return core::Error{fmt::format(
      "'{}' is not a trace perfhound reads: expected Chrome-trace JSON from the PyTorch profiler (.json or "
      ".json.gz) or an Nsight Systems SQLite export (nsys export --type sqlite)",
      path)};
}

}  // namespace perfhound::trace
