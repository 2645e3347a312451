#include "trace/annotated_trace_writer.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <vector>

#include "trace/byte_source.h"

namespace perfhound::trace {
namespace {

using Json = nlohmann::ordered_json;

// Dumps as JSON, replacing invalid UTF-8 (trace names are not guaranteed valid) instead of throwing.
std::string dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

// Chrome trace times are microseconds; three decimals keep the nanoseconds exact.
std::string us(std::int64_t ns) {
  const char* sign = ns < 0 ? "-" : "";
  const std::int64_t a = ns < 0 ? -ns : ns;
  return fmt::format("{}{}.{:03}", sign, a / 1000, a % 1000);
}

// One JSON event per line; times written by hand so they stay exact (nlohmann would print doubles).
std::string event_line(std::string_view ph, std::string_view name, std::int64_t pid, std::int64_t tid,
                       std::int64_t ts_ns, std::int64_t dur_ns, const Json& args) {
  std::string line = fmt::format(R"({{"ph": "{}", "cat": "perfhound", "name": {}, "pid": {}, "tid": {}, "ts": {})",
                                 ph, dump(Json(std::string(name))), pid, tid, us(ts_ns));
  if (ph == "X") line += fmt::format(R"(, "dur": {})", us(dur_ns));
  if (ph == "i") line += R"(, "s": "t")";
  if (!args.is_null()) line += fmt::format(R"(, "args": {})", dump(args));
  line += "}";
  return line;
}

std::string thread_name(std::int64_t pid, std::int64_t tid, std::string_view name) {
  return fmt::format(R"({{"ph": "M", "name": "thread_name", "pid": {}, "tid": {}, "args": {{"name": {}}}}})", pid, tid,
                     dump(Json(std::string(name))));
}

std::vector<std::string> marker_events(const TraceAnalysis& a) {
  std::vector<std::string> events;
  for (const auto& d : a.gaps.devices) {
    if (d.gaps.empty()) continue;
    events.push_back(thread_name(d.device, kGapRowTid, "perfhound: idle gaps"));
    for (const auto& g : d.gaps) {
      Json args;
      args["host_was"] = host_category_name(g.category);
      Json split = Json::object();
      for (std::size_t c = 0; c < kHostCategoryCount; ++c) {
        if (g.ns_by_category[c] > 0) {
          split[std::string(host_category_name(static_cast<HostCategory>(c)))] = us(g.ns_by_category[c]) + " us";
        }
      }
      args["split"] = split;
      events.push_back(event_line("X", fmt::format("idle: {}", host_category_name(g.category)), d.device, kGapRowTid,
                                  g.start_ns, g.dur_ns(), args));
    }
  }
  const Verdict& v = a.verdict;
  for (const auto& d : a.utilization.devices) {
    if (d.device != v.device || !d.has_activity) continue;
    Json args;
    args["bottleneck"] = bottleneck_kind_name(v.kind);
    args["class"] = v.bottleneck_class;
    args["evidence"] = v.evidence;
    args["next_steps"] = v.next_steps;
    events.push_back(thread_name(d.device, kVerdictRowTid, "perfhound: verdict"));
    events.push_back(event_line("X", "perfhound: " + v.summary, d.device, kVerdictRowTid, d.active_start_ns,
                                d.active_span_ns, args));
  }
  return events;
}

// The Timeline itself as Chrome-trace events, for inputs that are not Chrome traces.
std::vector<std::string> timeline_events(const Timeline& t) {
  std::vector<std::string> events;
  events.reserve(t.gpu.size() + t.host.size());
  for (const auto& g : t.gpu) {
    Json args;
    args["correlation"] = g.correlation;
    if (g.bytes > 0) args["bytes"] = g.bytes;
    const char* cat = g.kind == GpuKind::kKernel ? "kernel" : g.kind == GpuKind::kMemcpy ? "gpu_memcpy" : "gpu_memset";
    std::string line = event_line("X", t.name(g.name), g.device, g.stream, g.start_ns, g.dur_ns, args);
    line.replace(line.find("\"perfhound\""), 11, fmt::format("\"{}\"", cat));
    events.push_back(std::move(line));
  }
  for (const auto& h : t.host) {
    Json args;
    if (h.correlation >= 0) args["correlation"] = h.correlation;
    const char* cat = h.kind == HostKind::kRuntime      ? "cuda_runtime"
                      : h.kind == HostKind::kDriver     ? "cuda_driver"
                      : h.kind == HostKind::kCpuOp      ? "cpu_op"
                      : h.kind == HostKind::kPython     ? "python_function"
                      : h.kind == HostKind::kSync       ? "host_sync"
                      : h.kind == HostKind::kProfiler   ? "overhead"
                                                        : "user_annotation";
    std::string line = event_line("X", t.name(h.name), h.pid, h.tid, h.start_ns, h.dur_ns, args.empty() ? Json() : args);
    line.replace(line.find("\"perfhound\""), 11, fmt::format("\"{}\"", cat));
    events.push_back(std::move(line));
  }
  return events;
}

class Output {
 public:
  static core::Result<std::unique_ptr<Output>> open(const std::string& path) {
    const std::string tmp = path + ".tmp";
    const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
    gzFile f = gzopen(tmp.c_str(), gz ? "wb6" : "wbT");  // "T": plain, no gzip header
    if (f == nullptr) return core::Error{fmt::format("--annotate: cannot write '{}': {}", path, std::strerror(errno))};
    return std::unique_ptr<Output>(new Output(path, tmp, f));
  }
  ~Output() {
    if (file_ != nullptr) {
      gzclose(file_);
      std::remove(tmp_.c_str());
    }
  }
  core::Status write(std::string_view bytes) {
    if (bytes.empty()) return {};
    if (gzwrite(file_, bytes.data(), static_cast<unsigned>(bytes.size())) != static_cast<int>(bytes.size())) {
      return core::Error{fmt::format("--annotate: write to '{}' failed", path_)};
    }
    return {};
  }
  core::Status commit() {
    const int rc = gzclose(file_);
    file_ = nullptr;
    if (rc != Z_OK || std::rename(tmp_.c_str(), path_.c_str()) != 0) {
      std::remove(tmp_.c_str());
      return core::Error{fmt::format("--annotate: cannot write '{}'", path_)};
    }
    return {};
  }

 private:
  Output(std::string path, std::string tmp, gzFile f) : path_(std::move(path)), tmp_(std::move(tmp)), file_(f) {}
  std::string path_, tmp_;
  gzFile file_;
};

core::Status write_joined(Output& out, const std::vector<std::string>& events, bool trailing_comma) {
  for (std::size_t i = 0; i < events.size(); ++i) {
    PH_TRY(out.write("\n  "));
    PH_TRY(out.write(events[i]));
    if (i + 1 < events.size() || trailing_comma) PH_TRY(out.write(","));
  }
  return {};
}

}  // namespace

core::Status write_annotated_trace(const Timeline& t, const TraceAnalysis& a, const std::string& out_path) {
  std::error_code ec;
  if (out_path == t.info.source || std::filesystem::equivalent(out_path, t.info.source, ec)) {
    return core::Error{fmt::format("--annotate: refusing to overwrite the input trace '{}'", t.info.source)};
  }
  PH_ASSIGN_OR_RETURN(auto out, Output::open(out_path));
  const auto markers = marker_events(a);
  if (t.info.events_array_offset < 0) {
    PH_TRY(out->write("{\"displayTimeUnit\": \"ms\", \"traceEvents\": ["));
    auto events = timeline_events(t);
    events.insert(events.end(), markers.begin(), markers.end());
    PH_TRY(write_joined(*out, events, false));
    PH_TRY(out->write("\n]}\n"));
    return out->commit();
  }
  // Copy the input, inserting the markers after the '[' at events_array_offset. The array holds the trace's
  // GPU events, so it is never empty and a comma after the markers keeps it valid.
  PH_ASSIGN_OR_RETURN(auto in, ByteSource::open(t.info.source));
  const auto split = static_cast<std::uint64_t>(t.info.events_array_offset) + 1;
  std::vector<char> buffer(1 << 20);
  std::uint64_t copied = 0;
  bool inserted = false;
  while (true) {
    PH_ASSIGN_OR_RETURN(const std::size_t n, in->read(buffer.data(), buffer.size()));
    if (n == 0) break;
    std::string_view chunk(buffer.data(), n);
    if (!inserted && copied + n >= split) {
      const auto head = static_cast<std::size_t>(split - copied);
      PH_TRY(out->write(chunk.substr(0, head)));
      PH_TRY(write_joined(*out, markers, true));
      chunk.remove_prefix(head);
      inserted = true;
    }
    PH_TRY(out->write(chunk));
    copied += n;
  }
  if (!inserted) return core::Error{fmt::format("--annotate: '{}' changed while it was read", t.info.source)};
  return out->commit();
}

}  // namespace perfhound::trace
