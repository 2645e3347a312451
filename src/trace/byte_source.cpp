#include "trace/byte_source.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fmt/format.h>

namespace perfhound::trace {

// zlib's internal buffer; 1 MiB keeps read() syscalls rare on multi-GB traces without costing memory.
constexpr unsigned kGzBufferBytes = 1u << 20;

core::Result<std::unique_ptr<ByteSource>> ByteSource::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return core::Error{fmt::format("cannot open '{}': {}", path, std::strerror(errno))};
  unsigned char magic[2] = {};
  const bool gzip = ::pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  if (!gzip) {
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    return std::unique_ptr<ByteSource>(new ByteSource(path, nullptr, fd));
  }
  gzFile gz = gzdopen(fd, "rb");  // takes ownership of fd
  if (gz == nullptr) {
    ::close(fd);
    return core::Error{fmt::format("cannot open '{}': out of memory", path)};
  }
  gzbuffer(gz, kGzBufferBytes);
  return std::unique_ptr<ByteSource>(new ByteSource(path, gz, -1));
}

ByteSource::~ByteSource() {
  if (gz_ != nullptr) gzclose(static_cast<gzFile>(gz_));
  if (fd_ >= 0) ::close(fd_);
}

core::Result<std::size_t> ByteSource::read(char* dst, std::size_t n) {
  if (gz_ == nullptr) {
    while (true) {
      const ssize_t got = ::read(fd_, dst, n);
      if (got >= 0) {
        bytes_read_ += static_cast<std::uint64_t>(got);
        return static_cast<std::size_t>(got);
      }
      if (errno != EINTR) {
        return core::Error{fmt::format("'{}': read failed after {} bytes: {}", path_, bytes_read_, std::strerror(errno))};
      }
    }
  }
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
