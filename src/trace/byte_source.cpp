#include "trace/byte_source.h"

#include <zlib.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fmt/format.h>

namespace perfhound::trace {

// zlib's internal buffer; 1 MiB keeps read() syscalls rare on multi-GB traces without costing memory.
constexpr unsigned kGzBufferBytes = 1u << 20;

core::Result<std::unique_ptr<ByteSource>> ByteSource::open(const std::string& path) {
  errno = 0;
  gzFile gz = gzopen(path.c_str(), "rb");
  if (gz == nullptr) {
    return core::Error{fmt::format("cannot open '{}': {}", path, errno != 0 ? std::strerror(errno) : "out of memory")};
  }
  gzbuffer(gz, kGzBufferBytes);
  return std::unique_ptr<ByteSource>(new ByteSource(path, gz));
}

ByteSource::~ByteSource() { gzclose(static_cast<gzFile>(gz_)); }

core::Result<std::size_t> ByteSource::read(char* dst, std::size_t n) {
  auto* gz = static_cast<gzFile>(gz_);
  // gzread takes an unsigned count; read in pieces below INT_MAX so the signed return cannot overflow.
  const auto want = static_cast<unsigned>(std::min<std::size_t>(n, INT_MAX / 2));
  const int got = gzread(gz, dst, want);
  if (got < 0) {
    int code = 0;
    const char* message = gzerror(gz, &code);
    if (code == Z_ERRNO) message = std::strerror(errno);
    return core::Error{fmt::format("'{}': read failed after {} bytes: {}", path_, bytes_read_, message)};
  }
  if (got == 0) {
    int code = 0;
    const char* message = gzerror(gz, &code);
    // A gzip stream cut short reads as end of file with Z_BUF_ERROR set.
    if (code != Z_OK && code != Z_STREAM_END) {
      return core::Error{fmt::format("'{}': compressed data is truncated or corrupt after {} bytes: {}", path_,
                                     bytes_read_, message)};
    }
  }
  bytes_read_ += static_cast<std::uint64_t>(got);
  return static_cast<std::size_t>(got);
}

}  // namespace perfhound::trace
