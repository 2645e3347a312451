#include "record/chrome_trace_writer.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>
#include <utility>

namespace perfhound::record {
namespace {

// A name as a JSON string literal; invalid UTF-8 is replaced, not thrown on. Kernel names repeat by the million:
// each is escaped once. The records' names are views of interned strings, so one name mostly comes back at the
// same address: looked up by address and length first, which spares hashing a 250-character C++ kernel name
// for every event; by its text where the address is new.
class NameCache {
 public:
  const std::string& quoted(std::string_view name) {
    const auto key = std::pair{static_cast<const void*>(name.data()), name.size()};
    if (const auto at = by_address_.find(key); at != by_address_.end()) return *at->second;
    auto it = cache_.find(name);
    if (it == cache_.end()) {
      it = cache_.emplace(name, nlohmann::json(std::string(name)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
               .first;
    }
    by_address_.emplace(key, &it->second);
    return it->second;
  }

 private:
  struct AddressHash {
    std::size_t operator()(const std::pair<const void*, std::size_t>& k) const {
      return std::hash<const void*>()(k.first) ^ (k.second * 0x9e3779b97f4a7c15ULL);
    }
  };
  std::unordered_map<std::string_view, std::string> cache_;  // node-based: the strings stay put
  std::unordered_map<std::pair<const void*, std::size_t>, const std::string*, AddressHash> by_address_;
};

// ns as Kineto's microseconds with three decimals, exact to the ns, formatted straight into the trace (no string
// a value: CUPTI's timestamps need 20 digits, past std::string's inline buffer).
struct Micros {
  std::uint64_t ns;
};
Micros us(std::uint64_t ns) { return {ns}; }
Micros dur_us(std::uint64_t start, std::uint64_t end) { return {end > start ? end - start : 0}; }

std::string_view gpu_category(GpuKind k) {
  switch (k) {
    case GpuKind::kKernel: return "kernel";
    case GpuKind::kMemcpy: return "gpu_memcpy";
    case GpuKind::kMemset: return "gpu_memset";
  }
  return "kernel";
}

}  // namespace
}  // namespace perfhound::record

template <>
struct fmt::formatter<perfhound::record::Micros> {
  constexpr auto parse(fmt::format_parse_context& ctx) { return ctx.begin(); }
  template <typename Context>
  auto format(perfhound::record::Micros m, Context& ctx) const {
    return fmt::format_to(ctx.out(), FMT_COMPILE("{}.{:03}"), m.ns / 1000, m.ns % 1000);
  }
};

namespace perfhound::record {
namespace {

// Written to a file in pieces of this size: the trace's text is never whole in memory (a million kernels make
// about 400 MB of it), beside the records themselves, in a program being ended by a signal.
constexpr std::size_t kDrainBytes = 16u << 20;

// The trace into `out`; with `drain`, handed over (and `out` emptied) whenever it holds kDrainBytes.
void write_events(const RecordedTrace& t, std::string& out, const std::function<void(std::string&)>* drain) {
  NameCache names;
  auto o = std::back_inserter(out);
  nlohmann::ordered_json head;
  head["schemaVersion"] = 1;
  // First, before the command line (traceName, of any length) and the devices: perfhound record reads these
  // counts from the file's first few KiB, even where the trace has no event to import.
  head["perfhound_record"] = {{"dropped_records", t.dropped_records}};
  if (!t.recorder.empty()) head["perfhound_record"]["recorder"] = t.recorder;
  if (t.capture_windows >= 0) {
    head["perfhound_record"]["capture_range"] = "cudaProfilerApi";
    head["perfhound_record"]["capture_windows"] = t.capture_windows;
  }
  nlohmann::ordered_json devices = nlohmann::ordered_json::array();
  for (const auto& d : t.devices) {
    devices.push_back({{"id", d.id}, {"name", std::string(d.name)}, {"totalGlobalMem", d.global_memory_bytes},
                       {"computeMajor", d.compute_major}, {"computeMinor", d.compute_minor}, {"numSms", d.sm_count}});
  }
  head["deviceProperties"] = std::move(devices);
  if (t.cuda_runtime_version > 0) head["cuda_runtime_version"] = t.cuda_runtime_version;
  if (t.cuda_driver_version > 0) head["cuda_driver_version"] = t.cuda_driver_version;
  if (t.cupti_version > 0) head["cupti_version"] = t.cupti_version;
  head["displayTimeUnit"] = "ms";
  head["traceName"] = t.command;
  std::string h = head.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  h.pop_back();  // the closing brace: traceEvents follows
  // About what each event takes (a kernel with its C++ name ~450 bytes, a launch call ~200): one allocation
  // instead of a copy of the whole text at every doubling.
  out.reserve(drain != nullptr ? kDrainBytes + (64u << 10)
                                : out.size() + h.size() + 450 * t.gpu.size() +
                                      200 * (t.api.size() + t.syncs.size() + t.ranges.size()));
  out += h;
  out += ",\"traceEvents\":[\n";
  bool first = true;
  const auto sep = [&] {
    if (!first) out += ",\n";
    first = false;
    if (drain != nullptr && out.size() >= kDrainBytes) (*drain)(out);
  };
  std::set<std::uint32_t> gpu_pids;
  std::set<std::pair<std::uint32_t, std::uint32_t>> streams, threads;
  std::pair<std::uint32_t, std::uint32_t> last_stream, last_thread;  // the row just added: most events repeat it
  std::unordered_map<std::uint32_t, std::uint32_t> context_device;    // a context lives on one device
  for (const auto& g : t.gpu) {
    sep();
    fmt::format_to(o, FMT_COMPILE(R"({{"ph":"X","cat":"{}","name":{},"pid":{},"tid":{},"ts":{},"dur":{},"args":{{"device":{},"context":{},"stream":{},"correlation":{})"),
                   gpu_category(g.kind), names.quoted(g.name), g.device, g.stream, us(g.start_ns), dur_us(g.start_ns, g.end_ns),
                   g.device, g.context, g.stream, g.correlation);
    if (g.kind == GpuKind::kKernel) {
      fmt::format_to(o, FMT_COMPILE(R"(,"grid":[{},{},{}],"block":[{},{},{}],"registers per thread":{},"shared memory":{})"), g.grid[0],
                     g.grid[1], g.grid[2], g.block[0], g.block[1], g.block[2], g.registers_per_thread, g.shared_memory);
    } else {
      fmt::format_to(o, FMT_COMPILE(R"(,"bytes":{})"), g.bytes);
    }
    out += "}}";
    if (streams.empty() || g.device != last_stream.first || g.stream != last_stream.second) {  // rows, for the names
      last_stream = {g.device, g.stream};
      gpu_pids.insert(g.device);
      streams.insert(last_stream);
      context_device.emplace(g.context, g.device);
    }
  }
  for (const auto& a : t.api) {
    sep();
    fmt::format_to(o, FMT_COMPILE(R"({{"ph":"X","cat":"{}","name":{},"pid":{},"tid":{},"ts":{},"dur":{},"args":{{"cbid":{},"correlation":{}}}}})"),
                   a.domain == ApiDomain::kRuntime ? "cuda_runtime" : "cuda_driver", names.quoted(a.name), a.process, a.thread,
                   us(a.start_ns), dur_us(a.start_ns, a.end_ns), a.callback_id, a.correlation);
    if (threads.empty() || a.process != last_thread.first || a.thread != last_thread.second) {
      last_thread = {a.process, a.thread};
      threads.insert(last_thread);
    }
  }
  // CUPTI gives a synchronization its context and stream, not its thread or device: it goes on the stream's row of
  // its context's device (as Kineto puts cuda_sync), device 0 where no GPU record names the context, and perfhound
  // trace reads it as a marker, not as GPU work.
  for (const auto& s : t.syncs) {
    sep();
    const auto device = context_device.find(s.context);
    fmt::format_to(o, R"({{"ph":"X","cat":"cuda_sync","name":{},"pid":{},"tid":{},"ts":{},"dur":{},"args":{{"stream":{},"correlation":{}}}}})",
                   names.quoted(s.name), device == context_device.end() ? 0u : device->second, s.stream, us(s.start_ns),
                   dur_us(s.start_ns, s.end_ns), s.stream, s.correlation);
  }
  for (const auto& r : t.ranges) {
    sep();
    fmt::format_to(o, R"({{"ph":"X","cat":"user_annotation","name":{},"pid":{},"tid":{},"ts":{},"dur":{}}})", names.quoted(r.name),
                   r.process, r.thread, us(r.start_ns), dur_us(r.start_ns, r.end_ns));
    threads.insert({r.process, r.thread});
  }
  for (const std::uint32_t d : gpu_pids) {
    sep();
    fmt::format_to(o, R"({{"ph":"M","name":"process_name","pid":{},"tid":0,"args":{{"name":"GPU {}"}}}})", d, d);
  }
  for (const auto& [d, s] : streams) {
    sep();
    fmt::format_to(o, R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":"stream {}"}}}})", d, s, s);
  }
  for (const auto& [p, th] : threads) {
    sep();
    fmt::format_to(o, R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":"thread {}"}}}})", p, th, th);
  }
  out += "\n]}\n";
  if (drain != nullptr) (*drain)(out);
}

}  // namespace

void write_chrome_trace(const RecordedTrace& t, std::string& out) { write_events(t, out, nullptr); }

core::Status write_chrome_trace_file(const RecordedTrace& trace, const std::string& path) {
  const std::string temp = path + ".partial";
  {
    std::ofstream f(temp, std::ios::binary | std::ios::trunc);
    if (!f) return core::Error{fmt::format("cannot write '{}': {}", temp, std::strerror(errno))};
    const std::function<void(std::string&)> drain = [&f](std::string& piece) {
      f.write(piece.data(), static_cast<std::streamsize>(piece.size()));
      piece.clear();
    };
    std::string piece;
    write_events(trace, piece, &drain);
    f.flush();
    // A disk filled part-way: what was written stays (a run never loses what it measured), named as incomplete.
    if (!f) return core::Error{fmt::format("cannot write '{}' (left there, incomplete): {}", temp, std::strerror(errno))};
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) return core::Error{fmt::format("cannot rename '{}' to '{}': {}", temp, path, ec.message())};
  return {};
}

}  // namespace perfhound::record
