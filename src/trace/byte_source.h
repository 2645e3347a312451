// Sequential reads of a trace file, gzip-compressed (through zlib) or plain (read() into the caller's
// buffer), told apart by the gzip magic bytes, not the name. I/O at the edge: analyses never see one.
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
  bool compressed() const { return gz_ != nullptr; }

 private:
  ByteSource(std::string path, void* gz, int fd) : path_(std::move(path)), gz_(gz), fd_(fd) {}
  std::string path_;
  void* gz_;  // gzFile for compressed input, else null; void* keeps zlib.h out of this header
  int fd_;    // plain input is read() straight into the caller's buffer: no copy through zlib's buffer
  std::uint64_t bytes_read_ = 0;
};

}  // namespace perfhound::trace
