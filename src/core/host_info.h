// Facts about the machine this process runs on, for the Conditions block. Reads /proc and uname; the only
// I/O in core, kept here so everything else in core stays pure.
#pragma once

#include <cstdint>
#include <string>

namespace perfhound::core {

struct HostInfo {
  std::string hostname;
  std::string cpu_model;      // /proc/cpuinfo "model name", or "unknown"
  int logical_cores = 0;      // std::thread::hardware_concurrency()
  std::uint64_t memory_bytes = 0;  // MemTotal from /proc/meminfo, 0 if unknown
  std::string os;             // uname sysname + release, e.g. "Linux 6.1.0-18-amd64"
};

HostInfo read_host_info();

// Current UTC time as ISO 8601 with seconds, e.g. "2026-12-02T14:30:13Z".
std::string utc_timestamp_now();

}  // namespace perfhound::core
