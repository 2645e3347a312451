#include "cli/record_command.h"

#include <fmt/format.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <ostream>
#include <string>
#include <vector>

#include "cli/program_path.h"
#include "core/output_file.h"
#include "core/units.h"
#include "core/version.h"
#include "record/child_trace_name.h"
#include "record/recorded_trace.h"
#include "record/record_kinds.h"
#include "trace/importer.h"
#include "trace/range_window.h"

namespace perfhound::cli {
namespace {

constexpr const char* kInjectionLibrary = "libperfhound_record_inject.so";

std::atomic<pid_t> g_child{0};

// Ctrl-C, SIGTERM, SIGHUP and SIGQUIT go to the recorded program, which writes its trace as it ends; perfhound
// waits for it (a closed terminal's SIGHUP no longer ends perfhound before the program has written).
void forward_signal(int sig) {
  const pid_t child = g_child.load();
  if (child > 0) ::kill(child, sig);
}

// The injection library: $PERFHOUND_RECORD_LIB, else beside the perfhound executable.
std::string find_injection_library() {
  if (const char* env = std::getenv("PERFHOUND_RECORD_LIB")) return env;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return (exe.parent_path() / kInjectionLibrary).string();
}

struct ChildTrace {
  std::string path;
  long pid = 0;
};

// The traces of CUDA processes the program started, beside `output` and named after it (record/child_trace_name.h),
// by pid.
std::vector<ChildTrace> child_traces(const std::string& output) {
  const std::filesystem::path out(output);
  const std::string output_name = out.filename().string();
  std::vector<ChildTrace> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(out.parent_path(), ec)) {
    if (const auto pid = record::child_trace_pid(entry.path().filename().string(), output_name)) {
      found.push_back({entry.path().string(), *pid});
    }
  }
  std::sort(found.begin(), found.end(), [](const ChildTrace& a, const ChildTrace& b) { return a.pid < b.pid; });
  return found;
}

// `word` as the shell reads it back: as is where it is plain, else in single quotes ('#' opens a comment, '~'
// and '=' are expanded, at the start of a word).
std::string shell_word(const std::string& word) {
  const bool plain = !word.empty() && std::strchr("#~=", word.front()) == nullptr &&
                     std::all_of(word.begin(), word.end(), [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) || (c != 0 && std::strchr("_-.:#/+=@%", c) != nullptr);
                     });
  if (plain) return word;
  std::string quoted = "'";
  for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// One trace the library wrote, read back: the line "wrote 'PATH'<who>: N kernels, ...", and the NVTX range to read
// its steady state by (perfhound trace --range); the error says it does not read back.
struct TraceSummary {
  std::string line;
  trace::SuggestedRange range;
};

core::Result<TraceSummary> summarize(const std::string& path, const std::string& who) {
  // The writer puts its count of capture windows first in the metadata: read before the import, since a run with
  // no capture window has no event to import. (The dropped-record count the importer reads.)
  std::int64_t windows = -1;
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    char head[4096] = {};
    const std::size_t n = std::fread(head, 1, sizeof(head) - 1, f);
    std::fclose(f);
    constexpr std::string_view kKey = "\"capture_windows\":";
    const std::size_t at = std::string_view(head, n).find(kKey);
    if (at != std::string_view::npos) windows = std::strtoll(head + at + kKey.size(), nullptr, 10);
  }
  if (windows == 0) {
    return core::Error{fmt::format("wrote '{}'{} with nothing in it: the program never called cudaProfilerStart "
                                   "(torch.cuda.profiler.start()), and --capture-range cudaProfilerApi records only "
                                   "from there to cudaProfilerStop",
                                   path, who)};
  }
  auto timeline = trace::import_trace(path);
  if (!timeline.ok()) return core::Error{fmt::format("wrote '{}'{}, which does not read back: {}", path, who, timeline.error().message)};
  std::size_t kernels = 0, copies = 0, fills = 0;
  for (const auto& g : timeline->gpu) {
    kernels += g.kind == trace::GpuKind::kKernel;
    copies += g.kind == trace::GpuKind::kMemcpy;
    fills += g.kind == trace::GpuKind::kMemset;
  }
  TraceSummary summary;
  summary.range = trace::suggest_range(*timeline, record::kCaptureWindowRangeName);
  const std::string window_note =
      windows > 0 ? fmt::format(" in {} capture window(s) (cudaProfilerStart to cudaProfilerStop)", windows) : "";
  summary.line = fmt::format("wrote '{}'{}: {} kernels, {} copies, {} fills, {} host events, {} GPU(s){}; {} records "
                             "dropped (no CUPTI buffer free)",
                             path, who, kernels, copies, fills, timeline->host.size(), timeline->info.devices.size(),
                             window_note, timeline->info.recorder_dropped_records.value_or(0));
  return summary;
}

class RecordCommand final : public Command {
 public:
  std::string_view name() const override { return "record"; }
  std::string_view summary() const override {
    return "Record a GPU timeline (kernels, copies, API calls, NVTX) of any CUDA program through CUPTI, as a Chrome trace";
  }

  void add_flags(CLI::App& app) override {
    app.add_option("command", command_, "The program and its arguments, after --: perfhound record -o t.json -- python3 train.py");
    app.add_option("-o,--output", output_, "The Chrome trace to write (perfhound trace and Perfetto read it)")
        ->default_val("perfhound-record.json");
    app.add_option("--buffer-mb", buffer_mb_, "Size of each CUPTI activity buffer, MiB (1-1024)")->default_val(8);
    app.add_option("--api", api_,
                   "Which runtime calls to record: classified (default): those perfhound trace reads (launches, "
                   "copies, fills, synchronizations, the frees that synchronize), as torch.profiler leaves out "
                   "cudaGetDevice and the like; all: every runtime call, which cost an eager PyTorch decoder 15% where "
                   "classified cost 7% (bench/RESULTS.md); none: the GPU's activity alone (kernels, copies, NVTX), the "
                   "least overhead, but no launches to attribute host time to. Unless none, the driver calls that "
                   "launch, copy, fill or wait are recorded too: libraries (cuBLASLt, cuDNN, Triton) launch their "
                   "kernels through the driver")
        ->check(CLI::IsMember({"all", "classified", "none"}))
        ->default_val("classified");
    app.add_option("--kinds", kinds_,
                   "Which GPU activity to record, kernels followed by any of memcpy, memset, sync and nvtx (NVTX "
                   "ranges), or all. The default, kernels,memcpy,memset,nvtx, is what perfhound trace reads; sync "
                   "(CUPTI's synchronization records, which it does not read) cost about 6 us on every kernel launch "
                   "of a launch-bound loop on an H200 (bench/RESULTS.md). kernels alone is the cheapest, without "
                   "copies, fills or NVTX ranges (perfhound trace --range); marker is CUPTI's marker kind without "
                   "NVTX routed to it, which records nothing: a measurement")
        ->check(CLI::Validator(
            [](std::string& text) {
              auto kinds = record::parse_record_kinds(text);
              return kinds.ok() ? std::string() : kinds.error().message;
            },
            "KINDS"))
        ->default_val(record::kDefaultRecordKinds);
    app.add_option("--capture-range", capture_range_,
                   "What part of the run to record: none (default), the whole run; cudaProfilerApi, as nsys -c "
                   "cudaProfilerApi: only between the program's cudaProfilerStart and cudaProfilerStop "
                   "(torch.cuda.profiler.start()/stop()), every such window into one trace, so the rest runs "
                   "without the recorder's cost")
        ->check(CLI::IsMember({"none", "cudaProfilerApi"}))
        ->default_val("none");
    app.add_flag("--driver-api", driver_api_,
                 "Record every driver API call, not only those that launch, copy, fill or wait (which are "
                 "recorded anyway unless --api none); every call costs the program time");
  }

  core::Result<int> run(const Context& context) override {
    if (command_.empty()) return core::Error{"give the program to record after --: perfhound record -- COMMAND [ARGS...]"};
    if (buffer_mb_ < 1 || buffer_mb_ > 1024) return core::Error{fmt::format("--buffer-mb: must be 1-1024, got {}", buffer_mb_)};
    const std::string library = find_injection_library();
    std::error_code ec;
    if (std::getenv("PERFHOUND_RECORD_LIB") != nullptr && !std::filesystem::is_regular_file(library, ec)) {
      return core::Error{fmt::format("PERFHOUND_RECORD_LIB: no injection library file '{}' (unset it to use the one "
                                     "beside perfhound)",
                                     library)};
    }
    if (library.empty() || !std::filesystem::exists(library, ec)) {
      return core::Error{fmt::format("built without CUPTI: no injection library at '{}' (configure where the CUDA toolkit "
                                     "and CUPTI are found, or set PERFHOUND_RECORD_LIB)",
                                     library)};
    }
    // Normal form ("/x//t.json" -> "/x/t.json"), so the child traces' names, made from it, match what the folder
    // lists; the path checked is this one, the one written.
    const std::string output = output_.empty() ? output_ : std::filesystem::absolute(output_).lexically_normal().string();
    // Both checked before the old trace is removed: a mistyped program or -o leaves it, and the folder, alone.
    PH_TRY(core::check_output_file("-o", output, "trace.json"));
    if (const std::string why = why_program_cannot_run(command_.front()); !why.empty()) {
      return core::Error{fmt::format("cannot run '{}': {}", command_.front(), why)};
    }
    // A trace left from an earlier run must not pass for this one's: the program's, and its child processes'.
    std::filesystem::remove(output, ec);
    for (const ChildTrace& stale : child_traces(output)) std::filesystem::remove(stale.path, ec);

    const auto kinds = record::parse_record_kinds(kinds_);
    const bool route_nvtx = kinds.ok() && kinds->nvtx_routing;
    std::string joined;
    for (const auto& a : command_) joined += (joined.empty() ? "" : " ") + a;
    // Which build recorded the trace, written into it (made here: the child only sets it between fork and exec).
    const std::string recorder = fmt::format("perfhound {} ({})", core::tool_version(), core::git_sha());
    *context.err << fmt::format("perfhound record: {} -> {}\n", joined, output);
    const auto started = std::chrono::steady_clock::now();
    // exec's failure comes back through a close-on-exec pipe: a program that exits 127 on its own is not confused
    // with one that could not start.
    int exec_failure[2];
    if (::pipe2(exec_failure, O_CLOEXEC) != 0) return core::Error{fmt::format("pipe: {}", std::strerror(errno))};
    // The handlers go in before the fork, so a signal while the program starts is forwarded too (exec puts the
    // child's back to the defaults).
    // A signal perfhound was started ignoring (nohup's SIGHUP, a background job's SIGINT and SIGQUIT) is left
    // ignored: the program inherits that, as it would without perfhound (exec keeps an ignore, not a handler).
    constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    struct sigaction forward {}, old[std::size(kForwarded)] {};
    bool installed[std::size(kForwarded)] = {};
    forward.sa_handler = forward_signal;
    sigemptyset(&forward.sa_mask);
    for (std::size_t i = 0; i < std::size(kForwarded); ++i) {
      installed[i] = ::sigaction(kForwarded[i], nullptr, &old[i]) == 0 && old[i].sa_handler != SIG_IGN &&
                     ::sigaction(kForwarded[i], &forward, nullptr) == 0;
    }
    const auto restore_signals = [&] {
      for (std::size_t i = 0; i < std::size(kForwarded); ++i) {
        if (installed[i]) ::sigaction(kForwarded[i], &old[i], nullptr);
      }
      g_child = 0;
    };
    const pid_t child = ::fork();
    if (child < 0) {
      restore_signals();
      return core::Error{fmt::format("fork: {}", std::strerror(errno))};
    }
    if (child == 0) {
      ::close(exec_failure[0]);
      ::setenv("CUDA_INJECTION64_PATH", library.c_str(), 1);
      ::setenv("PERFHOUND_RECORD_OUTPUT", output.c_str(), 1);
      ::setenv("PERFHOUND_RECORD_COMMAND", joined.c_str(), 1);
      ::setenv("PERFHOUND_RECORD_RECORDER", recorder.c_str(), 1);
      ::setenv("PERFHOUND_RECORD_BUFFER_MB", std::to_string(buffer_mb_).c_str(), 1);
      ::setenv("PERFHOUND_RECORD_PID", std::to_string(::getpid()).c_str(), 1);  // exec keeps the pid
      ::setenv("PERFHOUND_RECORD_DRIVER_API", driver_api_ ? "1" : "0", 1);
      ::setenv("PERFHOUND_RECORD_API", api_.c_str(), 1);
      ::setenv("PERFHOUND_RECORD_KINDS", kinds_.c_str(), 1);
      ::setenv("PERFHOUND_RECORD_CAPTURE_RANGE", capture_range_.c_str(), 1);
      // NVTX decides at the program's first NVTX call whether a tool gets its ranges, which may come before CUDA
      // starts (and the library with it): the library is named now, unless the program has a tool of its own.
      if (route_nvtx) ::setenv("NVTX_INJECTION64_PATH", library.c_str(), 0);
      std::vector<char*> argv;
      for (auto& a : command_) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execvp(argv[0], argv.data());
      const int error = errno;
      [[maybe_unused]] const ssize_t written = ::write(exec_failure[1], &error, sizeof(error));
      ::_exit(127);
    }
    g_child = child;
    ::close(exec_failure[1]);
    int exec_error = 0;
    ssize_t got = 0;
    do {
      got = ::read(exec_failure[0], &exec_error, sizeof(exec_error));
    } while (got < 0 && errno == EINTR);  // a forwarded signal interrupts the read, not the start
    ::close(exec_failure[0]);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    restore_signals();
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (got == static_cast<ssize_t>(sizeof(exec_error))) {
      return core::Error{fmt::format("cannot run '{}': {}", command_.front(), std::strerror(exec_error))};
    }

    const std::vector<ChildTrace> children = child_traces(output);
    const bool wrote = std::filesystem::exists(output, ec);
    const std::string ran = fmt::format("the program exited {} after {}", code, core::format_duration_ns(wall_s * 1e9));
    if (!wrote) {
      // A signal that ends the program can come before the injection library has written (a second signal after
      // the library's own, a SIGKILL): the program did run CUDA, perhaps, and the cause is the signal.
      const std::string why =
          WIFSIGNALED(status) ? fmt::format("the program was ended by signal {} ({}) before a trace was written",
                                            WTERMSIG(status), ::strsignal(WTERMSIG(status)))
                              : "the program made no CUDA call that reached the driver (or CUPTI could not start)";
      if (children.empty()) {
        *context.err << fmt::format("perfhound record: no trace written: {}; {}\n", why, ran);
      } else {
        *context.err << fmt::format("perfhound record: no trace of the program's own process ({}), {} of the process(es) "
                                    "it started; {}\n", WIFSIGNALED(status) ? why : "it made no CUDA call", children.size(), ran);
      }
    }
    // The program's trace, then those of CUDA processes it started (a launcher, a shell, worker processes), each
    // beside the program's, named after its pid by the library. `next` names the first that reads back.
    std::vector<std::pair<std::string, std::string>> traces;  // path, who
    if (wrote) traces.emplace_back(output, "");
    for (const ChildTrace& child : children) {
      traces.emplace_back(child.path, fmt::format(" (process {}, started by the program)", child.pid));
    }
    std::string next;
    trace::SuggestedRange next_range;
    for (const auto& [path, who] : traces) {
      const auto summary = summarize(path, who);
      if (!summary.ok()) {
        *context.err << "perfhound record: " << summary.error().message << (who.empty() ? "; " + ran : "") << "\n";
        continue;
      }
      *context.out << "perfhound record: " << summary->line << (who.empty() ? "; " + ran : "") << "\n";
      if (next.empty()) {
        next = who.empty() ? output_ : path;
        next_range = summary->range;
      }
    }
    if (!next.empty()) *context.out << fmt::format("next: perfhound trace {}\n", shell_word(next));
    // The whole run holds start-up (model loading, cuBLAS handles, the first launches), which can outweigh the
    // steady state the program was recorded for: a range cuts to it.
    if (!next_range.name.empty()) {
      std::string names;
      for (std::size_t i = 0; i < next_range.names.size() && i < 5; ++i) names += (i == 0 ? "" : ", ") + next_range.names[i];
      if (next_range.names.size() > 5) names += ", ...";
      const std::string which =
          next_range.occurrences == 1
              ? "the range holding the most time"
              : fmt::format("the '{}' of median length, {} of {}", next_range.name, next_range.occurrence,
                            next_range.occurrences);
      *context.out << fmt::format("      perfhound trace {} --range {}{}  ({}; NVTX ranges, the most time first: {})\n",
                                  shell_word(next), shell_word(next_range.name),
                                  next_range.occurrences == 1 ? "" : fmt::format(" --range-index {}", next_range.occurrence),
                                  which, names);
    }
    return code;
  }

 private:
  std::vector<std::string> command_;
  std::string output_;
  int buffer_mb_ = 8;
  bool driver_api_ = false;
  std::string api_ = "classified";
  std::string kinds_ = record::kDefaultRecordKinds;
  std::string capture_range_ = "none";
};

}  // namespace

std::unique_ptr<Command> make_record_command() { return std::make_unique<RecordCommand>(); }

}  // namespace perfhound::cli
