// libFuzzer target: perfhound trace's importers on arbitrary bytes (Kineto JSON, plain or gzip, and nsys
// SQLite exports), through an in-memory file (memfd) so the real file-reading path is what runs.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "trace/importer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const int fd = memfd_create("perfhound-fuzz-trace", 0);
  if (fd < 0) return 0;
  std::size_t written = 0;
  while (written < size) {
    const ssize_t n = write(fd, data + written, size - written);
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  const auto timeline = perfhound::trace::import_trace("/proc/self/fd/" + std::to_string(fd));
  static_cast<void>(timeline);
  close(fd);
  return 0;
}
