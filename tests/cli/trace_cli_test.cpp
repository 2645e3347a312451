// End-to-end tests of `perfhound trace`, driven in-process through run_app: the bundled H200 traces, the
// JSON document, --annotate, per-rank folders built by hand, and every kind of bad input (exit 2 and one
// line on stderr naming the file).
#include <sqlite3.h>
#include <stdlib.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/app.h"
#include "cli/cli_runner.h"

namespace perfhound::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kH200 = std::string(PERFHOUND_TEST_DATA) + "/traces/h200/";
const std::string kEager = kH200 + "small_ops_eager.json.gz";


std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The whole uncompressed text of a .json.gz.
std::string gunzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  EXPECT_NE(f, nullptr) << path;
  if (f == nullptr) return "";
  std::string text;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(f, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<std::size_t>(n));
  gzclose(f);
  return text;
}

class TraceCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "trace_cli_test_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& bytes) const {
    const std::string p = path(name);
    fs::create_directories(fs::path(p).parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }

  // Runs `perfhound trace <input> <extra...>` and checks the bad-input contract: exit 2, exactly one line on
  // stderr, prefixed by the command, naming `named` (the input file unless told otherwise) in quotes.
  std::string expect_bad_input(const std::string& input, const std::vector<std::string>& extra = {},
                               std::string named = "") {
    if (named.empty()) named = input;
    std::vector<std::string> args = {"trace", input};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliRun r = run(args);
    EXPECT_TRUE(is_one_line_error(r, {"'" + named + "'"}));
    EXPECT_THAT(r.err, StartsWith("perfhound trace: "));
    EXPECT_TRUE(r.out.empty()) << r.out;
    return r.err;
  }

  fs::path dir_;
};

// ---- the bundled traces

TEST(TraceCli, EagerSmallOpsIsLaunchBound) {
  const CliRun r = run({"trace", kEager});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("perfhound trace:"));
  EXPECT_THAT(r.out, HasSubstr("VERDICT: overhead-bound (launch)"));
  EXPECT_TRUE(r.err.empty()) << r.err;
}

// --range on the real eager trace: 20 iterations of one chain, each inside a "small_ops_eager" range
// (tests/data/traces/h200/README.md), so one range holds a twentieth of the trace's 5120 kernels.
TEST(TraceCli, ARangeIsAnalyzedAlone) {
  const CliRun r = run({"trace", kEager, "--range", "small_ops_eager", "--range-index", "5", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["result"]["utilization"]["devices"][0]["activity_count"], 5120 / 20);
  EXPECT_EQ(doc["conditions"]["parameters"]["range"]["occurrence"], 5);
  EXPECT_EQ(doc["conditions"]["parameters"]["range"]["occurrences"], 20);
  EXPECT_EQ(doc["conditions"]["parameters"]["range"]["gpu_events_dropped"], 5120 - 5120 / 20);
  EXPECT_EQ(doc["result"]["verdict"]["bottleneck"], "launch-bound");

  const CliRun bad = run({"trace", kEager, "--range", "ProfilerStep#1"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--range 'ProfilerStep#1': the trace has no range of that name (its ranges include "
                                 "'small_ops_eager')"));
  EXPECT_EQ(run({"trace", kEager, "--range-index", "2"}).code, 2);
  // An empty name was taken as no --range: the whole trace, exit 0 (a review found it).
  const CliRun empty = run({"trace", kEager, "--range", ""});
  EXPECT_EQ(empty.code, 2);
  EXPECT_THAT(empty.err, HasSubstr("--range: give a range name, not ''"));
}

TEST(TraceCli, EveryBundledTraceRuns) {
  // The verdicts per trace are the ones tests/trace/trace_analysis_test.cpp checks on the timelines.
  const std::pair<const char*, const char*> cases[] = {
      {"small_ops_cudagraph.json.gz", "bottleneck: kernel-bound"},
      {"pageable_memcpy.json.gz", "bottleneck: data-movement"},
      {"llama1b_prefill_bs8x1024.json.gz", "bottleneck: kernel-bound"},
  };
  for (const auto& [file, verdict] : cases) {
    SCOPED_TRACE(file);
    const CliRun r = run({"trace", kH200 + file});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, StartsWith("perfhound trace:"));
    EXPECT_THAT(r.out, HasSubstr(verdict));
  }
}

TEST_F(TraceCliTest, JsonDocumentOnStdoutAndInTheOutputFile) {
  const std::string out_file = path("result.json");
  const CliRun r = run({"trace", kEager, "--json", "-o", out_file});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["kind"], "perfhound.trace");
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["result"]["verdict"]["bottleneck"], "launch-bound");
  EXPECT_EQ(doc["result"]["verdict"]["class"], "overhead");
  const auto& parameters = doc["conditions"]["parameters"];
  EXPECT_EQ(parameters["gpu"], "NVIDIA H200");  // tests/data/traces/h200/info.json
  EXPECT_EQ(parameters["cuda_runtime"], "13.0");
  EXPECT_EQ(parameters["trace"], kEager);
  EXPECT_EQ(parameters["trace_format"], "kineto-json");
  // reference_figures.txt: GPU busy union 14654110 ns.
  EXPECT_DOUBLE_EQ(doc["result"]["utilization"]["devices"][0]["busy_s"].get<double>(), 14654110e-9);
  // -o writes the same document.
  const auto file_doc = nlohmann::json::parse(read_file(out_file));
  EXPECT_EQ(file_doc, doc);
}

TEST_F(TraceCliTest, OutputFileWithTheTableOnStdout) {
  const std::string out_file = path("result.json");
  const CliRun r = run({"trace", kEager, "-o", out_file});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("perfhound trace:"));
  const auto doc = nlohmann::json::parse(read_file(out_file));
  EXPECT_EQ(doc["kind"], "perfhound.trace");
  EXPECT_EQ(doc["result"]["verdict"]["bottleneck"], "launch-bound");
}

TEST_F(TraceCliTest, AnnotateWritesTheAnnotatedTrace) {
  const std::string annotated = path("annotated.json");
  const CliRun r = run({"trace", kEager, "--annotate", annotated});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("VERDICT: overhead-bound (launch)"));
  EXPECT_EQ(r.err, "perfhound trace: wrote the annotated trace to '" + annotated + "' (open it in ui.perfetto.dev)\n");
  ASSERT_TRUE(fs::exists(annotated));
  const auto doc = nlohmann::json::parse(read_file(annotated));
  ASSERT_TRUE(doc["traceEvents"].is_array());
  EXPECT_EQ(doc["traceEvents"][0]["args"]["name"], "perfhound: idle gaps");
  // The annotated trace is itself a trace perfhound reads, with the same verdict.
  const CliRun again = run({"trace", annotated, "--json"});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["result"]["verdict"]["bottleneck"], "launch-bound");
}

// ---- bad input

// A perfhound record --capture-range trace: two 1 ms windows 10 ms apart, a 0.5 ms kernel in each. Over both,
// the unrecorded 9 ms between them reads as idle (1 ms busy of 11 ms), which the capture-windows warning says,
// on stderr and in the JSON; one window alone is half busy (0.5 of 1 ms) and has nothing to warn of.
TEST_F(TraceCliTest, SeveralCaptureWindowsAreWarnedOf) {
  const std::string windows = write("windows.json", R"({"traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "perfhound capture window", "pid": 1, "tid": 1, "ts": 0.000, "dur": 1000.000},
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 100.000, "dur": 500.000},
  {"ph": "X", "cat": "user_annotation", "name": "perfhound capture window", "pid": 1, "tid": 1, "ts": 10000.000, "dur": 1000.000},
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10100.000, "dur": 500.000}
]})");
  const CliRun both = run({"trace", windows, "--json"});
  ASSERT_EQ(both.code, 0) << both.err;
  EXPECT_THAT(both.err, HasSubstr("[capture-windows]: '" + windows + "' holds 2 capture windows"));
  EXPECT_EQ(std::count(both.err.begin(), both.err.end(), '\n'), 1) << both.err;
  const auto whole = nlohmann::json::parse(both.out);
  EXPECT_EQ(whole["diagnostics"][0]["id"], "capture-windows");
  EXPECT_NEAR(whole["result"]["utilization"]["devices"][0]["window_busy_ratio"].get<double>(), 1.0 / 11.0, 1e-9);

  const CliRun one = run({"trace", windows, "--range", "perfhound capture window", "--range-index", "2", "--json"});
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_TRUE(one.err.empty()) << one.err;
  const auto window = nlohmann::json::parse(one.out);
  EXPECT_TRUE(window["diagnostics"].empty());
  EXPECT_NEAR(window["result"]["utilization"]["devices"][0]["window_busy_ratio"].get<double>(), 0.5, 1e-9);
}

// A kernel's p99 is quoted from 100 calls on: fewer and the top 1% holds no call, so it is about the maximum
// (few-samples-for-tail). kernel_a: 99 calls of 10 us and one of 50 us, p99 = 10 + 0.01 x 40 = 10.4 us (numpy
// linear: h = 99 x 0.99 = 98.01); kernel_b: 99 calls of 20 us, p99 left out, max 20 us.
TEST_F(TraceCliTest, AKernelsP99NeedsAHundredCalls) {
  std::string events;
  double ts = 0;
  const auto add = [&](const char* name, double dur_us) {
    events += fmt::format(R"({}{{"ph": "X", "cat": "kernel", "name": "{}", "pid": 0, "tid": 7, "ts": {:.3f}, "dur": {:.3f}}})",
                          events.empty() ? "" : ",\n", name, ts, dur_us);
    ts += 100;
  };
  for (int i = 0; i < 99; ++i) add("kernel_a", 10);
  add("kernel_a", 50);
  for (int i = 0; i < 99; ++i) add("kernel_b", 20);
  const CliRun r = run({"trace", write("calls.json", "{\"traceEvents\": [" + events + "]}")});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto row = [&r](const std::string& kernel) {
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      if (line.starts_with(kernel + " ")) {
        std::istringstream cells(line);
        std::vector<std::string> words{std::istream_iterator<std::string>(cells), {}};
        return words;
      }
    }
    return std::vector<std::string>{};
  };
  // kernel family count total share mean(2 words) p50(2) p99(2 or "-") max(2)
  const auto a = row("kernel_a"), b = row("kernel_b");
  ASSERT_EQ(a.size(), 14u) << r.out;
  EXPECT_EQ(a[2], "100");
  EXPECT_EQ(a[10] + " " + a[11], "10.4 us");
  EXPECT_EQ(a[12] + " " + a[13], "50.0 us");
  ASSERT_EQ(b.size(), 13u) << r.out;
  EXPECT_EQ(b[2], "99");
  EXPECT_EQ(b[10], "-");
  EXPECT_EQ(b[11] + " " + b[12], "20.0 us");
  EXPECT_THAT(r.out, HasSubstr("p99 '-': fewer than 100 calls"));
}

// Records perfhound record lost (CUPTI had no buffer free) are GPU work missing from the trace: the count goes into
// the conditions and, above zero, a records-dropped warning; a trace that lost none has no warning.
TEST_F(TraceCliTest, DroppedRecordsAreWarnedOf) {
  const auto recorded = [&](int dropped) {
    return write("dropped" + std::to_string(dropped) + ".json",
                 R"({"perfhound_record": {"dropped_records": )" + std::to_string(dropped) + R"(}, "traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 100.000, "dur": 500.000}
]})");
  };
  const std::string lost = recorded(4096);
  const CliRun r = run({"trace", lost, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("[records-dropped]: '" + lost + "': perfhound record lost 4096 records"));
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["diagnostics"][0]["id"], "records-dropped");
  EXPECT_EQ(doc["conditions"]["parameters"]["recorder_dropped_records"], 4096);
  const CliRun none = run({"trace", recorded(0), "--json"});
  ASSERT_EQ(none.code, 0) << none.err;
  EXPECT_TRUE(none.err.empty()) << none.err;
  EXPECT_EQ(nlohmann::json::parse(none.out)["conditions"]["parameters"]["recorder_dropped_records"], 0);
}

TEST_F(TraceCliTest, TruncatedJson) {
  const std::string text = gunzip(kEager);
  ASSERT_GT(text.size(), 1000u);
  const std::string half = write("half.json", text.substr(0, text.size() / 2));
  EXPECT_THAT(expect_bad_input(half), HasSubstr("truncated"));
}

TEST_F(TraceCliTest, InvalidJsonInsideAnEvent) {
  const std::string bad = write("bad_event.json", R"({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1.000, "dur": 2.000},
  {"ph": "X", "cat": "kernel" "name": "k2", "pid": 0, "tid": 7, "ts": 5.000, "dur": 2.000}
]})");
  EXPECT_THAT(expect_bad_input(bad), HasSubstr("byte "));
}

TEST_F(TraceCliTest, JsonThatIsNotATrace) {
  const std::string not_trace = write("not_trace.json", R"({"a": 1})");
  EXPECT_THAT(expect_bad_input(not_trace), HasSubstr("no 'traceEvents' array"));
}

TEST_F(TraceCliTest, TraceWithoutGpuEvents) {
  const std::string host_only = write("host_only.json", R"({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1.000, "dur": 2.000},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1.500, "dur": 0.500}
]})");
  EXPECT_THAT(expect_bad_input(host_only), HasSubstr("no GPU activity"));
}

TEST_F(TraceCliTest, NegativeDuration) {
  const std::string negative = write("negative.json", R"({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10.000, "dur": -1.000}
]})");
  EXPECT_THAT(expect_bad_input(negative), HasSubstr("negative duration"));
}

TEST_F(TraceCliTest, MissingDuration) {
  const std::string no_dur = write("no_dur.json", R"({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10.000}
]})");
  EXPECT_THAT(expect_bad_input(no_dur), HasSubstr("has no 'dur'"));
}

TEST_F(TraceCliTest, UnknownCategoryOnly) {
  const std::string unknown = write("unknown.json", R"({"traceEvents": [
  {"ph": "X", "cat": "mtia_kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10.000, "dur": 1.000},
  {"ph": "X", "cat": "mtia_kernel", "name": "k", "pid": 0, "tid": 7, "ts": 20.000, "dur": 1.000}
]})");
  const std::string err = expect_bad_input(unknown);
  EXPECT_THAT(err, HasSubstr("no GPU activity"));
  EXPECT_THAT(err, HasSubstr("2 'mtia_kernel'"));  // says what the trace did have
}

TEST_F(TraceCliTest, SqliteWithoutGpuTables) {
  const std::string db_path = path("unrelated.sqlite");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  char* message = nullptr;
  EXPECT_EQ(sqlite3_exec(db, "CREATE TABLE inventory (id INTEGER, item TEXT); INSERT INTO inventory VALUES (1, 'x');",
                         nullptr, nullptr, &message),
            SQLITE_OK)
      << (message ? message : "");
  sqlite3_free(message);
  sqlite3_close(db);
  EXPECT_THAT(expect_bad_input(db_path), HasSubstr("CUPTI_ACTIVITY_KIND_KERNEL"));
}

TEST_F(TraceCliTest, MissingFile) {
  EXPECT_THAT(expect_bad_input(path("no_such_trace.json")), HasSubstr("cannot open"));
}

TEST_F(TraceCliTest, EmptyFolder) {
  const std::string empty = path("empty_folder");
  fs::create_directory(empty);
  // A file that is not a trace by name does not count.
  write("empty_folder/notes.txt", "not a trace");
  EXPECT_THAT(expect_bad_input(empty), HasSubstr("holds no trace files"));
}

TEST_F(TraceCliTest, AnnotateWithAFolderInput) {
  const std::string folder = path("ranks");
  fs::create_directory(folder);
  const CliRun r = run({"trace", folder, "--annotate", path("out.json")});
  EXPECT_TRUE(is_one_line_error(r, {"--annotate"}));
  EXPECT_THAT(r.err, StartsWith("perfhound trace: "));
  EXPECT_FALSE(fs::exists(path("out.json")));
}

TEST_F(TraceCliTest, AnnotateWithAFolderInputNamesTheFolder) {
  const std::string folder = path("ranks");
  fs::create_directory(folder);
  expect_bad_input(folder, {"--annotate", path("out.json")});
}

TEST_F(TraceCliTest, AnnotateOntoAFolder) {
  const std::string folder = path("a_folder");
  fs::create_directory(folder);
  const std::string err = expect_bad_input(kEager, {"--annotate", folder}, folder);
  EXPECT_THAT(err, HasSubstr("--annotate"));
  EXPECT_FALSE(fs::exists(folder + ".tmp"));
}

TEST_F(TraceCliTest, AnnotateIntoAMissingFolder) {
  const std::string target = path("no/such/dir/out.json");
  const std::string err = expect_bad_input(kEager, {"--annotate", target}, target);
  EXPECT_THAT(err, HasSubstr("--annotate"));
}

// ---- per-rank folders

// A Kineto trace of one rank: three ProfilerStep#N ranges of `step_us` each starting at 1000 us, each with a
// launch call and its GEMM (half the step) followed by an all-reduce (a tenth of the step).
std::string rank_trace(int rank, double step_us) {
  std::string events;
  auto add = [&](const std::string& event) {
    if (!events.empty()) events += ",\n";
    events += "  " + event;
  };
  for (int step = 0; step < 3; ++step) {
    const double start = 1000.0 + step * step_us;
    const int gemm = 10 * step + 1, nccl = 10 * step + 2;
    char buffer[1024];
    std::snprintf(buffer, sizeof buffer,
                  R"json({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 1, "tid": 1, "ts": %.3f, "dur": %.3f})json",
                  step + 1, start, step_us);
    add(buffer);
    std::snprintf(buffer, sizeof buffer,
                  R"json({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %.3f, "dur": 5.000, "args": {"correlation": %d}})json",
                  start + 10, gemm);
    add(buffer);
    std::snprintf(buffer, sizeof buffer,
                  R"json({"ph": "X", "cat": "kernel", "name": "void gemm_kernel<float>(float*)", "pid": 0, "tid": 7, "ts": %.3f, "dur": %.3f, "args": {"device": 0, "stream": 7, "correlation": %d}})json",
                  start + 20, step_us / 2, gemm);
    add(buffer);
    std::snprintf(buffer, sizeof buffer,
                  R"json({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %.3f, "dur": 5.000, "args": {"correlation": %d}})json",
                  start + 30, nccl);
    add(buffer);
    std::snprintf(buffer, sizeof buffer,
                  R"json({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 13, "ts": %.3f, "dur": %.3f, "args": {"device": 0, "stream": 13, "correlation": %d}})json",
                  start + 20 + step_us / 2, step_us / 10, nccl);
    add(buffer);
  }
  return "{\"schemaVersion\": 1,\n"
         " \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H200\", \"numSms\": 132, \"computeMajor\": 9, "
         "\"computeMinor\": 0}],\n"
         " \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": " +
         std::to_string(rank) +
         ", \"world_size\": 2},\n"
         " \"cuda_runtime_version\": 13000,\n"
         " \"traceEvents\": [\n" +
         events + "\n]}\n";
}

TEST_F(TraceCliTest, FolderWithAStragglerRank) {
  // Rank 0 steps of 10 ms, rank 1 of 13 ms (30% longer). The file of rank 1 sorts first: the rank must come
  // from distributedInfo, not the file order. Median of the two = (10 + 13) / 2 = 11.5 ms;
  // 13 / 11.5 = 1.1304 >= 1.10: a straggler.
  write("ranks/a_rank1.json", rank_trace(1, 13000.0));
  write("ranks/b_rank0.json", rank_trace(0, 10000.0));
  const std::string folder = path("ranks");
  const CliRun r = run({"trace", folder});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("perfhound trace: folder '" + folder + "', 2 ranks\n"));
  EXPECT_THAT(r.out, HasSubstr("VERDICT: straggler: rank 1 takes 1.13x the median rank's time (13.0 ms vs 11.5 ms); "
                               "every collective waits for it"));

  const CliRun j = run({"trace", folder, "--json"});
  ASSERT_EQ(j.code, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["kind"], "perfhound.trace");
  const auto& c = doc["result"]["comparison"];
  EXPECT_EQ(c["straggler"], true);
  EXPECT_EQ(c["slowest_rank"], 1);
  EXPECT_DOUBLE_EQ(c["median_time_s"].get<double>(), 0.0115);
  EXPECT_DOUBLE_EQ(c["slowest_over_median"].get<double>(), 13.0 / 11.5);
  ASSERT_EQ(c["ranks"].size(), 2u);
  EXPECT_EQ(c["ranks"][0]["rank"], 0);
  EXPECT_EQ(c["ranks"][0]["time_is"], "median_profiler_step");
  EXPECT_DOUBLE_EQ(c["ranks"][0]["time_s"].get<double>(), 0.010);
  EXPECT_DOUBLE_EQ(c["ranks"][1]["time_s"].get<double>(), 0.013);
  // Communication per rank: three all-reduces of a tenth of a step, 3 ms and 3.9 ms: rank 0 waits least.
  EXPECT_EQ(c["least_communication_rank"], 0);
  EXPECT_EQ(doc["result"]["ranks"].size(), 2u);
  EXPECT_EQ(doc["conditions"]["parameters"]["rank_count"], 2);
  EXPECT_EQ(doc["conditions"]["parameters"]["gpu"], "NVIDIA H200");
}

// tests/data/traces/h100 holds six recordings of different programs: no communication, no distributedInfo. The
// slowest is not a rank every collective waits for (the verdict said so before a review caught it).
TEST_F(TraceCliTest, AFolderOfUnrelatedTracesIsNotCalledOneJob) {
  const CliRun r = run({"trace", std::string(PERFHOUND_TEST_DATA) + "/traces/h100"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("VERDICT: straggler: rank "));
  EXPECT_THAT(r.out, HasSubstr("but no trace has communication or distributedInfo (ranks are the files' order)"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("every collective waits")));
}

TEST_F(TraceCliTest, FolderWithEqualRanks) {
  write("ranks/rank0.json", rank_trace(0, 10000.0));
  write("ranks/rank1.json", rank_trace(1, 10000.0));
  const std::string folder = path("ranks");
  const CliRun r = run({"trace", folder});
  ASSERT_EQ(r.code, 0) << r.err;
  // Equal times: the first rank is the slowest, at 1.00x the median.
  EXPECT_THAT(r.out, HasSubstr("VERDICT: no straggler: the slowest rank (rank 0) is within 10% of the median"));
  const CliRun j = run({"trace", folder, "--json"});
  ASSERT_EQ(j.code, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["result"]["comparison"]["straggler"], false);
  EXPECT_DOUBLE_EQ(doc["result"]["comparison"]["slowest_over_median"].get<double>(), 1.0);
}

TEST_F(TraceCliTest, FolderWithOneRank) {
  write("ranks/rank0.json", rank_trace(0, 10000.0));
  const CliRun r = run({"trace", path("ranks")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("VERDICT: one rank: nothing to compare"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("straggler")));
}

TEST_F(TraceCliTest, FolderWithTwoTracesOfOneRank) {
  const std::string first = write("ranks/a.json", rank_trace(0, 10000.0));
  const std::string second = write("ranks/b.json", rank_trace(0, 13000.0));
  const std::string err = expect_bad_input(path("ranks"), {}, first);
  EXPECT_THAT(err, HasSubstr("'" + second + "'"));
  EXPECT_THAT(err, HasSubstr("rank 0"));
}

TEST_F(TraceCliTest, FolderWithABadRankFileNamesIt) {
  write("ranks/rank0.json", rank_trace(0, 10000.0));
  const std::string bad = write("ranks/rank1.json", R"({"a": 1})");
  const std::string err = expect_bad_input(path("ranks"), {}, bad);
  EXPECT_THAT(err, HasSubstr("rank file 2 of 2"));
}

}  // namespace
}  // namespace perfhound::cli
