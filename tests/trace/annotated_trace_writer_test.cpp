// The annotated trace: written, then read back with perfhound's own importer and with nlohmann::json. The
// markers (cat "perfhound") must never read as GPU work, the input's GPU activities must survive unchanged, and the output
// must stay valid JSON in every form (plain, gzip, a fresh trace for nsys input).
// Expected figures for small_ops_eager come from tests/data/traces/h200/reference_figures.txt (an
// independent Python computation): 5120 kernels summing 14654110 ns, in 5120 merged busy blocks, so 5119
// interior idle gaps; GPU span [5359686596249990, 5359686732531408] ns.
#include "trace/annotated_trace_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "trace/importer.h"
#include "trace/trace_analysis.h"

namespace perfhound::trace {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const std::string kEager = std::string(PERFHOUND_TEST_DATA) + "/traces/h200/small_ops_eager.json.gz";
constexpr std::uint64_t kEagerKernels = 5120;
constexpr std::int64_t kEagerKernelNs = 14654110;
constexpr std::uint64_t kEagerInteriorGaps = 5120 - 1;

std::int64_t total_gpu_ns(const Timeline& t) {
  std::int64_t total = 0;
  for (const auto& a : t.gpu) total += a.dur_ns;
  return total;
}

// The importer reads cat "perfhound" as a known category it does not need (kineto_json_importer.cpp
// kCategories): counted in events_ignored, never GPU work, never an unknown category. So the markers a
// writer added are the growth of events_ignored over the input's.
std::uint64_t markers_added(const Timeline& input, const Timeline& annotated) {
  EXPECT_EQ(annotated.stats.unknown_categories.count("perfhound"), 0u);
  return annotated.stats.events_ignored - input.stats.events_ignored;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every field of every GPU activity, names compared as text (the two timelines have their own string tables).
void expect_same_gpu_activities(const Timeline& expected, const Timeline& actual) {
  ASSERT_EQ(actual.gpu.size(), expected.gpu.size());
  for (std::size_t i = 0; i < expected.gpu.size(); ++i) {
    SCOPED_TRACE("GPU activity " + std::to_string(i));
    const GpuActivity& e = expected.gpu[i];
    const GpuActivity& a = actual.gpu[i];
    EXPECT_EQ(a.start_ns, e.start_ns);
    EXPECT_EQ(a.dur_ns, e.dur_ns);
    EXPECT_EQ(a.device, e.device);
    EXPECT_EQ(a.stream, e.stream);
    EXPECT_EQ(a.kind, e.kind);
    EXPECT_EQ(actual.name(a.name), expected.name(e.name));
    EXPECT_EQ(a.correlation, e.correlation);
    EXPECT_EQ(a.bytes, e.bytes);
    EXPECT_EQ(a.direction, e.direction);
    EXPECT_EQ(a.src_memory, e.src_memory);
    EXPECT_EQ(a.dst_memory, e.dst_memory);
    if (::testing::Test::HasFailure()) return;  // one broken activity is enough to read
  }
}

class AnnotatedTraceWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "annotated_trace_test_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // The eager trace, imported once per test and analyzed.
  void load_eager() {
    auto t = import_trace(kEager);
    ASSERT_TRUE(t.ok()) << t.error().message;
    eager_ = std::move(*t);
    analysis_ = analyze_trace(eager_);
    ASSERT_EQ(eager_.gpu.size(), kEagerKernels);
    ASSERT_EQ(total_gpu_ns(eager_), kEagerKernelNs);
  }

  fs::path dir_;
  Timeline eager_;
  TraceAnalysis analysis_;
};

TEST_F(AnnotatedTraceWriterTest, KinetoCopyKeepsEveryGpuActivityAndAddsMarkersOnly) {
  load_eager();
  const std::string out = path("annotated.json");
  const core::Status s = write_annotated_trace(eager_, analysis_, out);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_FALSE(fs::exists(out + ".tmp"));

  auto back = import_trace(out);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->gpu.size(), kEagerKernels);
  EXPECT_EQ(total_gpu_ns(*back), kEagerKernelNs);
  expect_same_gpu_activities(eager_, *back);
  EXPECT_EQ(back->host.size(), eager_.host.size());
  EXPECT_EQ(back->window_start_ns, eager_.window_start_ns);
  EXPECT_EQ(back->window_end_ns, eager_.window_end_ns);
  // Added and ignored on re-read: a slice per interior gap, the verdict slice, and the two row names
  // (thread_name metadata). No unknown category appears (the input has none either).
  EXPECT_EQ(markers_added(eager_, *back), kEagerInteriorGaps + 1 + 2);
  EXPECT_TRUE(eager_.stats.unknown_categories.empty());
  EXPECT_TRUE(back->stats.unknown_categories.empty());
  EXPECT_EQ(back->stats.events_read, eager_.stats.events_read + kEagerInteriorGaps + 1 + 2);

  // Valid JSON, the markers first in the event array.
  std::ifstream in(out);
  const auto doc = nlohmann::json::parse(in);  // throws (and fails the test) on invalid JSON
  ASSERT_TRUE(doc["traceEvents"].is_array());
  const auto& first = doc["traceEvents"][0];
  EXPECT_EQ(first["ph"], "M");
  EXPECT_EQ(first["name"], "thread_name");
  EXPECT_EQ(first["pid"], 0);
  EXPECT_EQ(first["tid"], kGapRowTid);
  EXPECT_EQ(first["args"]["name"], "perfhound: idle gaps");
  const auto& second = doc["traceEvents"][1];
  EXPECT_EQ(second["ph"], "X");
  EXPECT_EQ(second["cat"], "perfhound");
  EXPECT_THAT(second["name"].get<std::string>(), ::testing::StartsWith("idle: "));
  // The input's top-level metadata is still there.
  EXPECT_TRUE(doc.contains("deviceProperties"));

  // The verdict slice spans the GPU's active span, in exact microseconds: start 5359686596249990 ns,
  // length 5359686732531408 - 5359686596249990 = 136281418 ns.
  const std::string text = read_bytes(out);
  EXPECT_THAT(text, HasSubstr("\"tid\": 900000002, \"ts\": 5359686596249.990, \"dur\": 136281.418, "));
  EXPECT_THAT(text, HasSubstr("\"name\": \"perfhound: overhead-bound (launch): "));
}

TEST_F(AnnotatedTraceWriterTest, GzipOutputReimports) {
  load_eager();
  const std::string out = path("annotated.json.gz");
  const core::Status s = write_annotated_trace(eager_, analysis_, out);
  ASSERT_TRUE(s.ok()) << s.error().message;
  const std::string head = read_bytes(out).substr(0, 2);
  EXPECT_EQ(head, std::string("\x1f\x8b", 2));  // gzip magic (RFC 1952)
  auto back = import_trace(out);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->gpu.size(), kEagerKernels);
  EXPECT_EQ(total_gpu_ns(*back), kEagerKernelNs);
  expect_same_gpu_activities(eager_, *back);
  EXPECT_EQ(markers_added(eager_, *back), kEagerInteriorGaps + 1 + 2);
}

TEST_F(AnnotatedTraceWriterTest, PlainOutputOfAPlainInputReimports) {
  // A .json input (events_array_offset counted in plain bytes) annotated again from the annotated copy:
  // the second copy has the first one's markers plus its own.
  load_eager();
  const std::string once = path("once.json");
  ASSERT_TRUE(write_annotated_trace(eager_, analysis_, once).ok());
  auto t = import_trace(once);
  ASSERT_TRUE(t.ok()) << t.error().message;
  const std::string twice = path("twice.json");
  const core::Status s = write_annotated_trace(*t, analyze_trace(*t), twice);
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto back = import_trace(twice);
  ASSERT_TRUE(back.ok()) << back.error().message;
  expect_same_gpu_activities(eager_, *back);
  EXPECT_EQ(markers_added(eager_, *back), 2 * (kEagerInteriorGaps + 1 + 2));
}

// A tiny nsys export: a pageable HtoD copy [500,900), a memset [950,990), kernels [1000,3000) and
// [3500,4000) on device 0 stream 7, and the API calls that issued them. Interior gaps: [900,950),
// [990,1000), [3000,3500): three.
constexpr const char* kNsysSql =
    "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT "
    "NULL, streamId INTEGER NOT NULL, correlationId INTEGER, demangledName INTEGER, shortName INTEGER);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT "
    "NULL, streamId INTEGER NOT NULL, correlationId INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, "
    "srcKind INTEGER, dstKind INTEGER);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT "
    "NULL, streamId INTEGER NOT NULL, correlationId INTEGER, bytes INTEGER NOT NULL, memKind INTEGER);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER "
    "NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL);"
    "CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, smCount INTEGER);"
    "INSERT INTO StringIds VALUES (1, 'void gemm_kernel<float, 128>(const float*, float*, int)'), "
    "(2, 'gemm_kernel'), (3, 'cudaLaunchKernel_v7000'), (4, 'cudaMemcpyAsync_v3020'), "
    "(5, 'cudaMemsetAsync_v3020');"
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 3000, 0, 7, 101, 1, 2), (3500, 4000, 0, 7, 103, 1, 2);"
    // copyKind 1 = HtoD, srcKind 0 = pageable, dstKind 2 = device (nsys ENUM_CUDA_MEM_KIND).
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (500, 900, 0, 7, 100, 4096, 1, 0, 2);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (950, 990, 0, 7, 99, 1024, 2);"
    // globalTid 281560221750233: vm 1, pid 5081, tid 5081.
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (400, 480, 0, 281560221750233, 100, 4), "
    "(900, 940, 0, 281560221750233, 99, 5), (960, 990, 0, 281560221750233, 101, 3), "
    "(3300, 3350, 0, 281560221750233, 103, 3);"
    "INSERT INTO TARGET_INFO_GPU VALUES (1, 0, 'NVIDIA H200', 132);";

TEST_F(AnnotatedTraceWriterTest, NsysInputBecomesAFreshChromeTrace) {
  const std::string db_path = path("tiny.sqlite");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  char* message = nullptr;
  const int rc = sqlite3_exec(db, kNsysSql, nullptr, nullptr, &message);
  EXPECT_EQ(rc, SQLITE_OK) << (message ? message : "");
  sqlite3_free(message);
  sqlite3_close(db);

  auto t = import_trace(db_path);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->info.format, "nsys-sqlite");
  ASSERT_EQ(t->info.events_array_offset, -1);
  ASSERT_EQ(t->gpu.size(), 4u);
  const TraceAnalysis a = analyze_trace(*t);

  const std::string out = path("tiny_annotated.json");
  const core::Status s = write_annotated_trace(*t, a, out);
  ASSERT_TRUE(s.ok()) << s.error().message;
  std::ifstream in(out);
  const auto doc = nlohmann::json::parse(in);
  ASSERT_TRUE(doc["traceEvents"].is_array());
  // 4 GPU activities + 4 runtime calls + (1 row name + 3 gap slices) + (1 row name + 1 verdict slice).
  EXPECT_EQ(doc["traceEvents"].size(), 4u + 4u + 4u + 2u);

  auto back = import_trace(out);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->info.format, "kineto-json");
  expect_same_gpu_activities(*t, *back);
  EXPECT_EQ(total_gpu_ns(*back), 400 + 40 + 2000 + 500);
  EXPECT_EQ(back->host.size(), 4u);
  // Nothing in the fresh trace is ignored but the markers: 3 gap slices, the verdict, the two row names.
  EXPECT_EQ(back->stats.events_ignored, 3u + 1u + 2u);
  EXPECT_TRUE(back->stats.unknown_categories.empty());
  // The copy's name carries its direction and memory kinds through the Chrome trace.
  const auto copy = std::find_if(back->gpu.begin(), back->gpu.end(),
                                 [](const GpuActivity& g) { return g.kind == GpuKind::kMemcpy; });
  ASSERT_NE(copy, back->gpu.end());
  EXPECT_EQ(back->name(copy->name), "Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(copy->src_memory, MemoryKind::kPageable);
}

// Kernels [0,200) [1000,1200) [2000,2200); the host waits in CUPTI synchronization records over both gaps,
// [200,1000) and [1200,2000): sync-bound (the gaps are 1600 of the 2200 ns span).
constexpr const char* kNsysSyncSql =
    "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT INTO StringIds VALUES (1, 'gemm_kernel');"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT "
    "NULL, streamId INTEGER NOT NULL, correlationId INTEGER, demangledName INTEGER, shortName INTEGER);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (0, 200, 0, 7, 1, 1, 1), (1000, 1200, 0, 7, 2, 1, 1), "
    "(2000, 2200, 0, 7, 3, 1, 1);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId "
    "INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, syncType INTEGER NOT "
    "NULL);"
    // syncType 3 = stream sync; globalPid of pid 5081.
    "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (200, 1000, 0, 7, 10, 281560221745152, 3), "
    "(1200, 2000, 0, 7, 11, 281560221745152, 3);";

TEST_F(AnnotatedTraceWriterTest, NsysSyncEventsSurviveTheFreshChromeTrace) {
  const std::string db_path = path("sync.sqlite");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  char* message = nullptr;
  EXPECT_EQ(sqlite3_exec(db, kNsysSyncSql, nullptr, nullptr, &message), SQLITE_OK) << (message ? message : "");
  sqlite3_free(message);
  sqlite3_close(db);
  auto t = import_trace(db_path);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->host.size(), 2u);
  const TraceAnalysis a = analyze_trace(*t);
  ASSERT_EQ(a.verdict.kind, BottleneckKind::kSyncBound);
  const std::string out = path("sync_annotated.json");
  ASSERT_TRUE(write_annotated_trace(*t, a, out).ok());
  auto back = import_trace(out);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->host.size(), 2u);
  EXPECT_EQ(analyze_trace(*back).verdict.kind, BottleneckKind::kSyncBound);
}

TEST_F(AnnotatedTraceWriterTest, HandBuiltTimelineWithoutAChromeSource) {
  // A timeline that never was a Chrome trace (events_array_offset -1) from a source that does not exist:
  // the writer must not try to read it. Kernel [0,100) and a pinned DtoH copy [300,400): one gap [100,300).
  Timeline t;
  t.info.format = "perfhound-recorder";
  t.info.source = path("does-not-exist.bin");
  GpuActivity k;
  k.name = t.strings.intern("void add_kernel<\"quoted\">(float*)");  // JSON-escaped on the way out
  k.dur_ns = 100;
  k.stream = 3;
  k.correlation = 1;
  t.gpu.push_back(k);
  GpuActivity c;
  c.kind = GpuKind::kMemcpy;
  c.name = t.strings.intern("Memcpy DtoH (Device -> Pinned)");
  c.start_ns = 300;
  c.dur_ns = 100;
  c.stream = 3;
  c.bytes = 65536;
  c.direction = CopyDirection::kDeviceToHost;
  c.src_memory = MemoryKind::kDevice;
  c.dst_memory = MemoryKind::kPinned;
  t.gpu.push_back(c);
  finalize_timeline(t);
  const std::string out = path("hand.json.gz");
  const core::Status s = write_annotated_trace(t, analyze_trace(t), out);
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto back = import_trace(out);
  ASSERT_TRUE(back.ok()) << back.error().message;
  expect_same_gpu_activities(t, *back);
  EXPECT_EQ(back->stats.events_ignored, 1u + 1u + 2u);  // one gap slice, the verdict, two row names
}

TEST_F(AnnotatedTraceWriterTest, RefusesToOverwriteTheInput) {
  // A private copy of the input, so a failing guard cannot damage the fixture.
  const std::string input = path("input.json.gz");
  fs::copy_file(kEager, input);
  auto t = import_trace(input);
  ASSERT_TRUE(t.ok()) << t.error().message;
  const TraceAnalysis a = analyze_trace(*t);
  const core::Status s = write_annotated_trace(*t, a, input);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message, HasSubstr("--annotate"));
  EXPECT_THAT(s.error().message, HasSubstr("overwrite"));
  EXPECT_TRUE(read_bytes(input) == read_bytes(kEager)) << "the input changed";
  EXPECT_FALSE(fs::exists(input + ".tmp"));
}

TEST_F(AnnotatedTraceWriterTest, RefusesToOverwriteTheInputSpelledAnotherWay) {
  const std::string input = path("input.json.gz");
  fs::copy_file(kEager, input);
  auto t = import_trace(input);
  ASSERT_TRUE(t.ok()) << t.error().message;
  const std::string same_file = (dir_ / "." / "input.json.gz").string();
  const core::Status s = write_annotated_trace(*t, analyze_trace(*t), same_file);
  EXPECT_FALSE(s.ok()) << "the input was overwritten through '" << same_file << "'";
  EXPECT_TRUE(read_bytes(input) == read_bytes(kEager)) << "the input changed";
}

TEST_F(AnnotatedTraceWriterTest, UnwritablePathsNameTheFlag) {
  load_eager();
  const std::string missing_dir = path("no/such/dir/out.json");
  core::Status s = write_annotated_trace(eager_, analysis_, missing_dir);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message, HasSubstr("--annotate"));
  EXPECT_THAT(s.error().message, HasSubstr("'" + missing_dir + "'"));

  // A folder in the way: the temporary file is written, the rename onto the folder fails, and the
  // temporary file is removed.
  const std::string folder = path("a_folder");
  fs::create_directory(folder);
  s = write_annotated_trace(eager_, analysis_, folder);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message, HasSubstr("--annotate"));
  EXPECT_THAT(s.error().message, HasSubstr("'" + folder + "'"));
  EXPECT_FALSE(fs::exists(folder + ".tmp"));
  EXPECT_TRUE(fs::is_directory(folder));
}

}  // namespace
}  // namespace perfhound::trace
