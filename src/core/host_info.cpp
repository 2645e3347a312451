#include "core/host_info.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fmt/format.h>
#include <fstream>
#include <string>
#include <thread>

namespace perfhound::core {
namespace {

// Value after the first "key<spaces>:" line of a /proc file, trimmed; empty if absent.
std::string proc_field(const char* path, std::string_view key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const auto begin = line.find_first_not_of(" \t", colon + 1);
    return begin == std::string::npos ? std::string() : line.substr(begin);
  }
  return {};
}

}  // namespace

HostInfo read_host_info() {
  HostInfo h;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0) h.hostname = name;
  h.cpu_model = proc_field("/proc/cpuinfo", "model name");
  if (h.cpu_model.empty()) h.cpu_model = "unknown";
  h.logical_cores = static_cast<int>(std::thread::hardware_concurrency());
  const std::string mem_kb = proc_field("/proc/meminfo", "MemTotal");  // "24576000 kB"
  if (!mem_kb.empty()) h.memory_bytes = std::stoull(mem_kb) * 1024ULL;
  struct utsname u {};
  if (uname(&u) == 0) h.os = fmt::format("{} {}", u.sysname, u.release);
  return h;
}

std::string utc_timestamp_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

}  // namespace perfhound::core
