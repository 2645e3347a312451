// perfhound record without a GPU: the runs that need no CUDA device (no CUDA call: no trace, the program's own exit
// code; bad flags: one line, exit 2). The recording itself is checked on an H200 (bench/RESULTS.md "perfhound
// record"), since this machine has no driver for CUPTI to attach to.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"

namespace perfhound::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

bool injection_library_built() {
  return std::filesystem::exists(std::filesystem::path(PERFHOUND_BINARY_DIR) / "libperfhound_record_inject.so");
}

TEST(RecordCli, AProgramWithoutCudaWritesNoTraceAndKeepsItsExitCode) {
  if (!injection_library_built()) GTEST_SKIP() << "built without CUPTI";
  ::setenv("PERFHOUND_RECORD_LIB", (std::string(PERFHOUND_BINARY_DIR) + "/libperfhound_record_inject.so").c_str(), 1);
  const std::string out = (std::filesystem::temp_directory_path() / "perfhound_record_cli_none.json").string();
  CliRun r = run({"record", "-o", out, "--", "/bin/sh", "-c", "exit 3"});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_THAT(r.err, HasSubstr("no trace written"));
  EXPECT_FALSE(std::filesystem::exists(out));
  r = run({"record", "-o", out, "--", "true"});
  EXPECT_EQ(r.code, 0) << r.err;
}

// A program a signal ends before any trace is written: the signal is named as the cause, not a missing CUDA call,
// and the exit code is 128 + the signal's number (SIGTERM, 15: 143).
TEST(RecordCli, AProgramEndedByASignalWithNoTraceSaysSo) {
  if (!injection_library_built()) GTEST_SKIP() << "built without CUPTI";
  ::setenv("PERFHOUND_RECORD_LIB", (std::string(PERFHOUND_BINARY_DIR) + "/libperfhound_record_inject.so").c_str(), 1);
  const std::string out = (std::filesystem::temp_directory_path() / "perfhound_record_cli_signal.json").string();
  const CliRun r = run({"record", "-o", out, "--", "/bin/sh", "-c", "kill -TERM $$"});
  EXPECT_EQ(r.code, 143) << r.err;
  EXPECT_THAT(r.err, HasSubstr("no trace written: the program was ended by signal 15"));
  EXPECT_FALSE(std::filesystem::exists(out));
}

// A program whose CUDA work runs in a process it starts (a shell, a launcher): the library writes that process's
// trace beside the program's, named after its pid (OUT.pid<N>.json); record says so and reads it back instead of
// "no trace written". The child here is faked: the shell writes a two-kernel trace where the library would.
TEST(RecordCli, AChildProcesssTraceIsFoundAndRead) {
  if (!injection_library_built()) GTEST_SKIP() << "built without CUPTI";
  ::setenv("PERFHOUND_RECORD_LIB", (std::string(PERFHOUND_BINARY_DIR) + "/libperfhound_record_inject.so").c_str(), 1);
  const auto dir = std::filesystem::temp_directory_path();
  // As a script writes it ("$OUT/t.json" with OUT ending in a slash): the folder's listing names it without the "//".
  const std::string out = dir.string() + "//perfhound_record_cli_child.json";
  const std::string stale = (dir / "perfhound_record_cli_child.pid99.json").string();
  std::ofstream(stale) << "left from an earlier run";
  const std::string child_trace = R"({"traceEvents":[)"
                                  R"({"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":10.0,"dur":2.0,"args":{"device":0,"stream":7,"correlation":1}},)"
                                  R"({"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":13.0,"dur":2.0,"args":{"device":0,"stream":7,"correlation":2}}]})";
  const std::string write_child = "printf '%s' '" + child_trace + "' > \"${PERFHOUND_RECORD_OUTPUT%.json}.pid4242.json\"";
  const CliRun r = run({"record", "-o", out, "--", "/bin/sh", "-c", write_child});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("no trace of the program's own process (it made no CUDA call), 1 of the process(es) it started"));
  EXPECT_THAT(r.out, HasSubstr("perfhound_record_cli_child.pid4242.json' (process 4242, started by the program): 2 kernels"));
  EXPECT_THAT(r.out, HasSubstr("next: perfhound trace " + (dir / "perfhound_record_cli_child.pid4242.json").string()));
  EXPECT_FALSE(std::filesystem::exists(stale));  // an earlier run's is not taken for this one's
  std::filesystem::remove(dir / "perfhound_record_cli_child.pid4242.json");
}

// The program's trace as the library writes it, faked by the shell (this machine has no GPU for CUPTI).
CliRun record_faked_trace(const std::string& out, const std::string& trace_json) {
  return run({"record", "-o", out, "--", "/bin/sh", "-c", "printf '%s' '" + trace_json + "' > \"$PERFHOUND_RECORD_OUTPUT\""});
}

// The command `record` prints under next:, run as a user pastes it: through the shell, with the perfhound built.
std::string run_printed_command(const std::string& out, const std::string& needle) {
  const std::size_t at = out.find(needle);
  if (at == std::string::npos) return "no line with '" + needle + "' in: " + out;
  std::string line = out.substr(at, out.find("  (", at) - at);  // the command, not the note after it
  line.replace(0, std::string("perfhound").size(), PERFHOUND_BINARY);
  std::string text;
  if (std::FILE* p = ::popen((line + " --json 2>&1").c_str(), "r")) {
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof(buffer), p)) > 0;) text.append(buffer, n);
    ::pclose(p);
  }
  return text;
}

// The whole run holds start-up; where the trace has NVTX ranges, record names them (the most time first) and the
// command that reads the one holding the most time alone, quoted for the shell: "decode loop" (100 us) before
// "step" (10 us).
TEST(RecordCli, NvtxRangesAreOfferedForTrace) {
  if (!injection_library_built()) GTEST_SKIP() << "built without CUPTI";
  ::setenv("PERFHOUND_RECORD_LIB", (std::string(PERFHOUND_BINARY_DIR) + "/libperfhound_record_inject.so").c_str(), 1);
  const std::string out = (std::filesystem::temp_directory_path() / "perfhound_record_cli_ranges.json").string();
  CliRun r = record_faked_trace(
      out, R"({"traceEvents":[)"
           R"({"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":10.0,"dur":2.0,"args":{"device":0,"stream":7,"correlation":1}},)"
           R"({"ph":"X","cat":"user_annotation","name":"step","pid":1,"tid":1,"ts":5.0,"dur":10.0},)"
           R"({"ph":"X","cat":"user_annotation","name":"decode loop","pid":1,"tid":1,"ts":1.0,"dur":100.0}]})");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("next: perfhound trace " + out + "\n"));
  EXPECT_THAT(r.out, HasSubstr("perfhound trace " + out + " --range 'decode loop'  (the range holding the most time; "
                               "NVTX ranges, the most time first: decode loop, step)"));
  const auto range_read = [&](const std::string& printed) {
    const std::string text = run_printed_command(printed, "perfhound trace " + out + " --range");
    const auto doc = nlohmann::json::parse(text, nullptr, false);
    return doc.is_discarded() ? nlohmann::json(text) : doc["conditions"]["parameters"]["range"];
  };
  nlohmann::json range = range_read(r.out);
  EXPECT_EQ(range["name"], "decode loop") << range;
  EXPECT_EQ(range["occurrence"], 1) << range;

  // A step range repeated, the first (warm-up) longest: 50, 10, 20 us. The hint names the median one, the 3rd
  // (20 us), not the first, which is what --range alone would read; '#' opens a shell comment, so it is quoted.
  r = record_faked_trace(
      out, R"({"traceEvents":[)"
           R"({"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":10.0,"dur":2.0,"args":{"device":0,"stream":7,"correlation":1}},)"
           R"({"ph":"X","cat":"user_annotation","name":"#step","pid":1,"tid":1,"ts":0.0,"dur":50.0},)"
           R"({"ph":"X","cat":"user_annotation","name":"#step","pid":1,"tid":1,"ts":60.0,"dur":10.0},)"
           R"({"ph":"X","cat":"user_annotation","name":"#step","pid":1,"tid":1,"ts":80.0,"dur":20.0}]})");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("perfhound trace " + out + " --range '#step' --range-index 3  (the '#step' of median "
                               "length, 3 of 3; NVTX ranges, the most time first: #step)"));
  range = range_read(r.out);
  EXPECT_EQ(range["name"], "#step") << range;
  EXPECT_EQ(range["occurrence"], 3) << range;
  EXPECT_DOUBLE_EQ(range["duration_s"].get<double>(), 20e-6) << range;
  std::filesystem::remove(out);
}

// --capture-range cudaProfilerApi in a program that never opened a window: the trace is empty, and record says
// why (not perfhound trace's "no GPU activity").
TEST(RecordCli, NoCaptureWindowIsSaid) {
  if (!injection_library_built()) GTEST_SKIP() << "built without CUPTI";
  ::setenv("PERFHOUND_RECORD_LIB", (std::string(PERFHOUND_BINARY_DIR) + "/libperfhound_record_inject.so").c_str(), 1);
  const std::string out = (std::filesystem::temp_directory_path() / "perfhound_record_cli_nowindow.json").string();
  const CliRun r = record_faked_trace(
      out, R"({"perfhound_record":{"dropped_records":0,"capture_range":"cudaProfilerApi","capture_windows":0},"traceEvents":[]})");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("with nothing in it: the program never called cudaProfilerStart"));
  EXPECT_THAT(r.out, Not(HasSubstr("next:")));
  std::filesystem::remove(out);
}

// nohup perfhound record -- ...: a signal perfhound was started ignoring stays ignored in the program (exec keeps
// an ignore, not a handler: forwarding it would have reset it to the default, and logout would end the program).
// The shell exits 1 when SIGHUP (bit 0 of SigIgn) is ignored in it.
TEST(RecordCli, AnIgnoredHangupStaysIgnoredInTheProgram) {
  if (!injection_library_built()) GTEST_SKIP() << "built without CUPTI";
  ::setenv("PERFHOUND_RECORD_LIB", (std::string(PERFHOUND_BINARY_DIR) + "/libperfhound_record_inject.so").c_str(), 1);
  const std::string out = (std::filesystem::temp_directory_path() / "perfhound_record_cli_nohup.json").string();
  const std::vector<std::string> args{"record", "-o", out, "--", "/bin/sh", "-c",
                                      "mask=$(awk '/^SigIgn/ {print $2}' /proc/self/status); exit $(( 0x$mask & 1 ))"};
  struct sigaction ignore {}, old {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGHUP, &ignore, &old);
  const CliRun ignored = run(args);
  ::sigaction(SIGHUP, &old, nullptr);
  EXPECT_EQ(ignored.code, 1) << ignored.err;
  EXPECT_EQ(run(args).code, 0);  // not ignored here: not ignored there
}

// What the injection library is told, seen by the program it is injected into: every driver call is recorded
// only with --driver-api.
TEST(RecordCli, TheProgramSeesTheRecordersSettings) {
  if (!injection_library_built()) GTEST_SKIP() << "built without CUPTI";
  ::setenv("PERFHOUND_RECORD_LIB", (std::string(PERFHOUND_BINARY_DIR) + "/libperfhound_record_inject.so").c_str(), 1);
  const std::string out = (std::filesystem::temp_directory_path() / "perfhound_record_cli_env.json").string();
  const std::string print = "exit $((1$PERFHOUND_RECORD_DRIVER_API$PERFHOUND_RECORD_BUFFER_MB - 100))";
  EXPECT_EQ(run({"record", "-o", out, "--", "/bin/sh", "-c", print}).code, 8);  // 1 0 8 - 100
  EXPECT_EQ(run({"record", "-o", out, "--driver-api", "--buffer-mb", "2", "--", "/bin/sh", "-c", print}).code, 12);  // 1 1 2 - 100
}

// Runs perfhound record with `flags` on a shell that exits 0 where the environment variable `name`, which the
// injection library reads, is `value`: 0 says the flags reached the library as `value`.
int record_sees(const std::vector<std::string>& flags, const std::string& name, const std::string& value) {
  ::setenv("PERFHOUND_RECORD_LIB", (std::string(PERFHOUND_BINARY_DIR) + "/libperfhound_record_inject.so").c_str(), 1);
  const std::string out = (std::filesystem::temp_directory_path() / "perfhound_record_cli_flags.json").string();
  std::vector<std::string> args{"record", "-o", out};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"--", "/bin/sh", "-c", "test \"$" + name + "\" = " + value});
  return run(args).code;
}

// --kinds: kernels,memcpy,memset,nvtx by default (all but synchronizations); all, kernels (the cheaper recording
// measured in bench/RESULTS.md) or a list reaches the library.
TEST(RecordCli, KindsReachTheLibrary) {
  if (!injection_library_built()) GTEST_SKIP() << "built without CUPTI";
  const auto kinds_are = [](const std::vector<std::string>& flags, const std::string& kinds) {
    return record_sees(flags, "PERFHOUND_RECORD_KINDS", kinds);
  };
  EXPECT_EQ(kinds_are({}, "kernels,memcpy,memset,nvtx"), 0);
  EXPECT_EQ(kinds_are({"--kinds", "all"}, "all"), 0);
  EXPECT_EQ(kinds_are({"--kinds", "kernels"}, "kernels"), 0);
  EXPECT_EQ(kinds_are({"--kinds", "kernels"}, "all"), 1);
  // A list (kernels and kinds added one by one, record/record_kinds.h) reaches it as given.
  EXPECT_EQ(kinds_are({"--kinds", "kernels,sync,nvtx"}, "kernels,sync,nvtx"), 0);
}

// NVTX is routed to the library from the program's start (NVTX_INJECTION64_PATH names it), so a range before CUDA
// starts cannot turn NVTX off for the run; not where the kinds leave NVTX out, nor over a tool the program set.
TEST(RecordCli, NvtxIsRoutedBeforeTheProgramStarts) {
  if (!injection_library_built()) GTEST_SKIP() << "built without CUPTI";
  const std::string library = std::string(PERFHOUND_BINARY_DIR) + "/libperfhound_record_inject.so";
  ::unsetenv("NVTX_INJECTION64_PATH");
  EXPECT_EQ(record_sees({}, "NVTX_INJECTION64_PATH", library), 0);
  EXPECT_EQ(record_sees({"--kinds", "kernels,nvtx"}, "NVTX_INJECTION64_PATH", library), 0);
  EXPECT_EQ(record_sees({"--kinds", "kernels"}, "NVTX_INJECTION64_PATH", "''"), 0);
  EXPECT_EQ(record_sees({"--kinds", "kernels,marker"}, "NVTX_INJECTION64_PATH", "''"), 0);
  ::setenv("NVTX_INJECTION64_PATH", "/opt/other-tool.so", 1);
  EXPECT_EQ(record_sees({}, "NVTX_INJECTION64_PATH", "/opt/other-tool.so"), 0);
  ::unsetenv("NVTX_INJECTION64_PATH");
}

// --capture-range: none (the whole run) by default; cudaProfilerApi reaches the library as nsys spells it.
TEST(RecordCli, CaptureRangeReachesTheLibrary) {
  if (!injection_library_built()) GTEST_SKIP() << "built without CUPTI";
  const auto range_is = [](const std::vector<std::string>& flags, const std::string& range) {
    return record_sees(flags, "PERFHOUND_RECORD_CAPTURE_RANGE", range);
  };
  EXPECT_EQ(range_is({}, "none"), 0);
  EXPECT_EQ(range_is({"--capture-range", "cudaProfilerApi"}, "cudaProfilerApi"), 0);
  EXPECT_EQ(range_is({"--capture-range", "cudaProfilerApi"}, "none"), 1);
}

// --api: classified by default (the runtime calls perfhound trace reads; all cost the decoder twice as much,
// bench/RESULTS.md); all and none reach the library as given.
TEST(RecordCli, ApiReachesTheLibrary) {
  if (!injection_library_built()) GTEST_SKIP() << "built without CUPTI";
  const auto api_is = [](const std::vector<std::string>& flags, const std::string& api) {
    return record_sees(flags, "PERFHOUND_RECORD_API", api);
  };
  EXPECT_EQ(api_is({}, "classified"), 0);
  EXPECT_EQ(api_is({"--api", "all"}, "all"), 0);
  EXPECT_EQ(api_is({"--api", "none"}, "none"), 0);
  EXPECT_EQ(api_is({"--api", "all"}, "classified"), 1);
}

TEST(RecordCli, BadInputIsOneLineAndExitTwo) {
  if (!injection_library_built()) GTEST_SKIP() << "built without CUPTI";
  ::setenv("PERFHOUND_RECORD_LIB", (std::string(PERFHOUND_BINARY_DIR) + "/libperfhound_record_inject.so").c_str(), 1);
  for (const auto& [args, needle] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"record"}, "after --"},
           {{"record", "--buffer-mb", "0", "--", "true"}, "--buffer-mb"},
           {{"record", "--kinds", "memcpy", "--", "true"}, "--kinds"},
           {{"record", "--kinds", "kernels,copies", "--", "true"}, "'copies' is not a kind to add"},
           {{"record", "--kinds", "kernels,copies", "--", "true"}, "any of memcpy, memset, sync, marker and nvtx"},
           {{"record", "--capture-range", "nvtx", "--", "true"}, "--capture-range"},
           {{"record", "-o", "/nonexistent-folder/t.json", "--", "true"}, "-o: no folder"},
           {{"record", "--", "/nonexistent/program"}, "cannot run '/nonexistent/program'"}}) {
    const CliRun r = run(args);
    EXPECT_EQ(r.code, 2) << needle << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr(needle));
  }
}

// A mistyped program or -o changes nothing on disk: the earlier run's trace (and its child's) are still there, and
// a folder given as -o is neither deleted nor written over.
TEST(RecordCli, AMistakeInTheCommandLeavesTheOldTraceAlone) {
  if (!injection_library_built()) GTEST_SKIP() << "built without CUPTI";
  ::setenv("PERFHOUND_RECORD_LIB", (std::string(PERFHOUND_BINARY_DIR) + "/libperfhound_record_inject.so").c_str(), 1);
  const auto dir = std::filesystem::temp_directory_path() / ("perfhound_record_cli_keep_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "empty");
  const std::string out = (dir / "t.json").string();
  std::ofstream(out) << "{}";
  std::ofstream(dir / "t.pid7.json") << "{}";
  CliRun r = run({"record", "-o", out, "--", "perfhound-no-such-program", "train.py"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("cannot run 'perfhound-no-such-program': not found on PATH"));
  EXPECT_TRUE(std::filesystem::exists(out));
  EXPECT_TRUE(std::filesystem::exists(dir / "t.pid7.json"));
  r = run({"record", "-o", out, "--", dir.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("a folder, not a program"));
  EXPECT_TRUE(std::filesystem::exists(out));
  r = run({"record", "-o", (dir / "empty").string(), "--", "true"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("-o: '" + (dir / "empty").string() + "' is a folder: give a file in it"));
  EXPECT_TRUE(std::filesystem::is_directory(dir / "empty"));
  r = run({"record", "-o", "", "--", "true"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("--output: empty; give a value or leave the flag out"));
  std::filesystem::remove_all(dir);
}

TEST(RecordCli, WithoutTheInjectionLibraryItSaysSo) {
  ::setenv("PERFHOUND_RECORD_LIB", "/nonexistent/libperfhound_record_inject.so", 1);
  const CliRun r = run({"record", "--", "true"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("PERFHOUND_RECORD_LIB: no injection library file '/nonexistent/libperfhound_record_inject.so'"));
  ::unsetenv("PERFHOUND_RECORD_LIB");
}

}  // namespace
}  // namespace perfhound::cli
