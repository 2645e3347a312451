// Trace importers: one per input format, each a small class behind this interface (STYLE.md rule 3).
// Adding a format is adding a file and one line in importer.cpp's list.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "trace/timeline.h"

namespace perfhound::trace {

class TraceImporter {
 public:
  virtual ~TraceImporter() = default;
  // Short stable name, e.g. "kineto-json"; written to TraceInfo::format.
  virtual std::string_view format_name() const = 0;
  // Whether this importer reads a file that starts with these bytes (at most 64, fewer for short files).
  virtual bool recognizes(std::span<const std::uint8_t> head) const = 0;
  // Reads the whole file into a finalized Timeline. Errors name the file and where it is wrong (byte offset,
  // table, field): e.g. "'run.json' byte 18273: expected ',' or '}'".
  virtual core::Result<Timeline> import(const std::string& path) const = 0;
};

std::vector<std::unique_ptr<TraceImporter>> make_importers();

// Opens path, picks the importer that recognizes it, imports. Errors for an unreadable file or one no
// importer recognizes say which formats are accepted.
core::Result<Timeline> import_trace(const std::string& path);

}  // namespace perfhound::trace
