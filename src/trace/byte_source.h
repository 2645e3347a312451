// Sequential reads of a trace file, gzip-compressed or plain (zlib's gz* functions read both, so `.json`
// and `.json.gz` take one path). I/O at the edge: analyses never see a ByteSource.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/result.h"

namespace perfhound::trace {

class ByteSource {
 public:
  static core::Result<std::unique_ptr<ByteSource>> open(const std::string& path);
  ~ByteSource();
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  // Reads up to n uncompressed bytes into dst; 0 means end of file. Errors name the file (corrupt gzip
  // data, read failure).
  core::Result<std::size_t> read(char* dst, std::size_t n);
  const std::string& path() const { return path_; }
  std::uint64_t bytes_read() const { return bytes_read_; }

 private:
  ByteSource(std::string path, void* gz) : path_(std::move(path)), gz_(gz) {}
  std::string path_;
  void* gz_;  // gzFile; void* keeps zlib.h out of this header
  std::uint64_t bytes_read_ = 0;
};

}  // namespace perfhound::trace
