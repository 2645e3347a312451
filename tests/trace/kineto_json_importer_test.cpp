#include "trace/kineto_json_importer.h"

#include <zlib.h>

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <set>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "trace/importer.h"

namespace perfhound::trace {
namespace {

using ::testing::HasSubstr;

const std::string kH200 = std::string(PERFHOUND_TEST_DATA) + "/traces/h200/";

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("perfhound_kineto_test_" + name)).string();
}

std::string write_temp(const std::string& name, const std::string& content) {
  const std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

Timeline import_ok(const std::string& path) {
  auto r = import_trace(path);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? std::move(r).value() : Timeline{};
}

std::string import_error(const std::string& path) {
  auto r = import_trace(path);
  EXPECT_FALSE(r.ok()) << path << " imported but should not";
  return r.ok() ? "" : r.error().message;
}

struct KindTotals {
  std::size_t count = 0;
  std::int64_t dur_ns = 0;
};
KindTotals totals(const Timeline& t, GpuKind kind) {
  KindTotals k;
  for (const auto& a : t.gpu) {
    if (a.kind != kind) continue;
    ++k.count;
    k.dur_ns += a.dur_ns;
  }
  return k;
}

// Expected figures: tests/data/traces/h200/reference_figures.txt, computed by reference_figures.py beside it
// (Python's json + Decimal, exact integer ns), independently of perfhound.
struct Reference {
  const char* file;
  std::int64_t window_start_ns, window_end_ns;
  std::size_t kernels;
  std::int64_t kernel_ns;
  std::size_t memcpys;
  std::int64_t memcpy_ns;
  std::size_t memsets;
  std::int64_t memset_ns;
};
constexpr Reference kReferences[] = {
    {"llama1b_decode_bs1.json.gz", 5359713011073246, 5359713775383793, 11464, 28377075, 188, 190736, 16, 13984},
    {"llama1b_prefill_bs8x1024.json.gz", 5359716764575483, 5359716811949485, 662, 33625117, 0, 0, 97, 98913},
    {"pageable_memcpy.json.gz", 5359688580118276, 5359689001449534, 5, 632190, 10, 413477098, 0, 0},
    {"small_ops_cudagraph.json.gz", 5359687506441418, 5359687528989415, 5120, 15172478, 0, 0, 0, 0},
    {"small_ops_eager.json.gz", 5359686591589690, 5359686752994925, 5120, 14654110, 0, 0, 0, 0},
};

TEST(KinetoImporter, RealH200TracesMatchTheIndependentReference) {
  for (const auto& ref : kReferences) {
    SCOPED_TRACE(ref.file);
    const Timeline t = import_ok(kH200 + ref.file);
    EXPECT_EQ(t.info.format, "kineto-json");
    EXPECT_EQ(t.window_start_ns, ref.window_start_ns);
    EXPECT_EQ(t.window_end_ns, ref.window_end_ns);
    const auto k = totals(t, GpuKind::kKernel);
    EXPECT_EQ(k.count, ref.kernels);
    EXPECT_EQ(k.dur_ns, ref.kernel_ns);
    const auto c = totals(t, GpuKind::kMemcpy);
    EXPECT_EQ(c.count, ref.memcpys);
    EXPECT_EQ(c.dur_ns, ref.memcpy_ns);
    const auto s = totals(t, GpuKind::kMemset);
    EXPECT_EQ(s.count, ref.memsets);
    EXPECT_EQ(s.dur_ns, ref.memset_ns);
    // The device and versions come from the trace header (info.json beside the traces: 132 SMs, CUDA 13.0).
    ASSERT_EQ(t.info.devices.size(), 1u);
    EXPECT_EQ(t.info.devices[0].name, "NVIDIA H200");
    EXPECT_EQ(t.info.devices[0].sm_count, 132);
    EXPECT_EQ(t.info.devices[0].memory_bytes, 150109880320u);
    EXPECT_EQ(t.info.devices[0].compute_major, 9);
    EXPECT_EQ(t.info.cuda_runtime_version, "13.0");
    EXPECT_EQ(t.info.cuda_driver_version, "13.0");
    EXPECT_TRUE(t.stats.unknown_categories.empty());
    EXPECT_TRUE(std::is_sorted(t.gpu.begin(), t.gpu.end(),
                               [](const GpuActivity& a, const GpuActivity& b) { return a.start_ns < b.start_ns; }));
  }
}

TEST(KinetoImporter, PageableCopiesKeepDirectionMemoryKindAndBytes) {
  const Timeline t = import_ok(kH200 + "pageable_memcpy.json.gz");
  int htod = 0, dtoh = 0;
  for (const auto& a : t.gpu) {
    if (a.kind != GpuKind::kMemcpy) continue;
    EXPECT_EQ(a.bytes, 268435456u);  // 256 MiB, the workload's buffer
    if (a.direction == CopyDirection::kHostToDevice) {
      ++htod;
      EXPECT_EQ(a.src_memory, MemoryKind::kPageable);
      EXPECT_EQ(a.dst_memory, MemoryKind::kDevice);
    } else if (a.direction == CopyDirection::kDeviceToHost) {
      ++dtoh;
      EXPECT_EQ(a.src_memory, MemoryKind::kDevice);
      EXPECT_EQ(a.dst_memory, MemoryKind::kPageable);
    }
  }
  EXPECT_EQ(htod, 5);
  EXPECT_EQ(dtoh, 5);
}

TEST(KinetoImporter, GraphReplaysShareTheLaunchCorrelation) {
  // small_ops_cudagraph: 20 cudaGraphLaunch calls, each replaying 256 kernels under its correlation id.
  const Timeline t = import_ok(kH200 + "small_ops_cudagraph.json.gz");
  std::map<std::int64_t, int> kernels_per_correlation;
  for (const auto& a : t.gpu) ++kernels_per_correlation[a.correlation];
  int launches = 0;
  for (const auto& h : t.host) {
    if (t.name(h.name) != "cudaGraphLaunch") continue;
    ++launches;
    EXPECT_EQ(h.kind, HostKind::kRuntime);
    EXPECT_EQ(kernels_per_correlation[h.correlation], 256);
  }
  EXPECT_EQ(launches, 20);
}

TEST(KinetoImporter, HostEventsKeepKindThreadAndIds) {
  const Timeline t = import_ok(kH200 + "pageable_memcpy.json.gz");
  int annotations = 0, memcpy_calls = 0;
  int profiler = 0;
  for (const auto& h : t.host) {
    if (h.kind == HostKind::kProfiler) {  // Kineto's own "overhead" row (pid -1): buffer requests, flushes
      ++profiler;
      EXPECT_EQ(h.pid, -1);
      continue;
    }
    EXPECT_EQ(h.pid, 452);  // the profiled python process
    if (h.kind == HostKind::kUserAnnotation && t.name(h.name) == "pageable_memcpy") ++annotations;
    if (h.kind == HostKind::kRuntime && t.name(h.name) == "cudaMemcpyAsync") {
      ++memcpy_calls;
      EXPECT_GE(h.correlation, 0);
    }
  }
  EXPECT_EQ(annotations, 5);
  EXPECT_EQ(memcpy_calls, 10);
  EXPECT_GE(profiler, 1);
  EXPECT_EQ(t.gpu_annotations.size(), 5u);  // gpu_user_annotation: labels, not GPU work
}

// A small trace in the older bare-array layout with PyTorch 1.8 category names and integer microseconds.
TEST(KinetoImporter, BareArrayLegacyCategoriesAndIntegerMicroseconds) {
  const std::string path = write_temp("legacy.json", R"JSON([
    {"ph": "X", "cat": "Kernel", "name": "k1", "pid": 1, "tid": 14, "ts": 100, "dur": 5,
     "args": {"device": 1, "stream": 14, "correlation": 9}},
    {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 77, "tid": 78, "ts": 90, "dur": 4,
     "args": {"correlation": 9}},
    {"ph": "X", "cat": "Memcpy", "name": "Memcpy DtoH (Device -> Pinned)", "pid": 1, "tid": 14, "ts": 110,
     "dur": 2, "args": {"bytes": 4096}},
    {"ph": "i", "name": "marker", "pid": 77, "tid": 78, "ts": 200, "s": "t"},
    {"ph": "M", "name": "process_name", "pid": 1, "ts": 0, "args": {"name": "GPU 1"}}
  ])JSON");
  const Timeline t = import_ok(path);
  ASSERT_EQ(t.gpu.size(), 2u);
  EXPECT_EQ(t.gpu[0].start_ns, 100000);
  EXPECT_EQ(t.gpu[0].dur_ns, 5000);
  EXPECT_EQ(t.gpu[0].device, 1);
  EXPECT_EQ(t.gpu[0].stream, 14);
  EXPECT_EQ(t.gpu[0].correlation, 9);
  EXPECT_EQ(t.gpu[1].kind, GpuKind::kMemcpy);
  EXPECT_EQ(t.gpu[1].direction, CopyDirection::kDeviceToHost);
  EXPECT_EQ(t.gpu[1].dst_memory, MemoryKind::kPinned);
  EXPECT_EQ(t.gpu[1].bytes, 4096u);
  ASSERT_EQ(t.host.size(), 1u);
  EXPECT_EQ(t.host[0].kind, HostKind::kRuntime);
  EXPECT_EQ(t.host[0].tid, 78);
  // The instant at 200 us extends the window; the metadata event's ts 0 does not.
  EXPECT_EQ(t.window_start_ns, 90000);
  EXPECT_EQ(t.window_end_ns, 200000);
  EXPECT_EQ(t.stats.events_read, 5u);
  EXPECT_EQ(t.stats.events_ignored, 2u);
}

// Some writers spell ids as doubles (7.0): those read as the integer.
TEST(KinetoImporter, IdsWrittenAsIntegralDoublesRead) {
  const std::string path = write_temp("double_ids.json", R"JSON({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 3, "tid": 7, "ts": 10, "dur": 2,
     "args": {"device": 2.0, "stream": 7.0, "correlation": 9e0, "External id": 40.0}}
  ]})JSON");
  const Timeline t = import_ok(path);
  ASSERT_EQ(t.gpu.size(), 1u);
  EXPECT_EQ(t.gpu[0].device, 2);
  EXPECT_EQ(t.gpu[0].stream, 7);
  EXPECT_EQ(t.gpu[0].correlation, 9);
  EXPECT_EQ(t.gpu[0].external_id, 40);
}

// A field perfhound uses, of the wrong type or value, on an event perfhound uses, stops the import naming the
// event and the field. Read leniently, each of these changed the figures without a word (a review found them):
// a device of 1e12 cut to 32 bits became "GPU -727379968", 1.7 became GPU 1, a negative or text byte count
// dropped a 256 MiB copy from the copy volume, a text correlation cut a kernel from its launch. The first case,
// 1e114, is also tests/fuzz/regressions/fuzz_trace_import/int-from-huge-double: converting it was undefined
// behaviour.
TEST(KinetoImporterErrors, AUsedFieldOfTheWrongTypeOrValueIsNamed) {
  const std::pair<const char*, const char*> cases[] = {
      {R"("args": {"device": 1e114})", "event 1 ('', cat 'kernel'): 'args.device' is not an integer: 1e114"},
      {R"("args": {"device": 1e12})", "event 1 ('', cat 'kernel'): 'args.device' 1000000000000 is not a device index"},
      {R"("args": {"device": 1.7})", "event 1 ('', cat 'kernel'): 'args.device' is not an integer: 1.7"},
      {R"("args": {"device": -1})", "event 1 ('', cat 'kernel'): 'args.device' -1 is not a device index"},
      {R"("args": {"bytes": -100})", "event 1 ('', cat 'kernel'): 'args.bytes' is negative: -100"},
      {R"("args": {"bytes": "lots"})", R"(event 1 ('', cat 'kernel'): 'args.bytes' is not an integer: "lots")"},
      {R"("args": {"correlation": "x"})", R"(event 1 ('', cat 'kernel'): 'args.correlation' is not an integer: "x")"},
      {R"("args": {"External id": [1]})", "event 1 ('', cat 'kernel'): 'args.External id' is not an integer: an array"},
      {R"("args": "x")", R"(event 1 ('', cat 'kernel'): 'args' is not an object: "x")"},
      {R"("name": 123)", "event 1 ('', cat 'kernel'): 'name' is not a string: 123"},
      {R"("tid": 7.5)", "event 1 ('', cat 'kernel'): 'tid' is not an integer: 7.5"},
      {R"("pid": 4294967296)",
       "event 1 ('', cat 'kernel'): 'pid' 4294967296 is not a device index, and no 'args.device' says which GPU it ran on"},
  };
  for (const auto& [field, message] : cases) {
    const std::string path = write_temp("bad_field.json", fmt::format(
        R"({{"traceEvents": [{{"ph": "X", "cat": "kernel", "ts": 1, "dur": 1, {}}}]}})", field));
    EXPECT_THAT(import_error(path), ::testing::MatchesRegex("'" + path + "' byte [0-9]+: .*")) << field;
    EXPECT_THAT(import_error(path), ::testing::EndsWith(message)) << field;
  }
}

// The same fields on events perfhound does not read (an instant, a category it does not know) are other
// writers' business: they do not stop the import.
TEST(KinetoImporter, FieldsOfAnyShapeOnEventsNotUsedAreLeftAlone) {
  const std::string path = write_temp("other_args.json", R"JSON({"traceEvents": [
    {"ph": "i", "name": 5, "pid": 1.5, "ts": 2, "s": "t", "args": {"device": "cpu", "bytes": -1}},
    {"ph": "X", "cat": "mystery", "name": "m", "ts": 1, "dur": 1, "args": "free text"},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1}
  ]})JSON");
  const Timeline t = import_ok(path);
  EXPECT_EQ(t.gpu.size(), 1u);
  EXPECT_EQ(t.stats.events_read, 3u);
}

TEST(KinetoImporterErrors, AnElementOfTraceEventsThatIsNotAnObject) {
  const std::string path = write_temp("not_object.json", R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1}, 42]})");
  EXPECT_THAT(import_error(path), ::testing::EndsWith("traceEvents element 2 is not an event object: 42"));
}

// A folder of traces is compared rank by rank: a rank cut to 32 bits, or ignored, could make two files one rank.
TEST(KinetoImporterErrors, DistributedInfoOutsideItsRange) {
  const std::pair<const char*, const char*> cases[] = {
      {R"("rank": 4294967297, "world_size": 2)", "'distributedInfo.rank' is not a rank (an integer from 0): 4294967297"},
      {R"("rank": -3)", "'distributedInfo.rank' is not a rank (an integer from 0): -3"},
      {R"("rank": "zero")", R"('distributedInfo.rank' is not a rank (an integer from 0): "zero")"},
      {R"("world_size": 0)", "'distributedInfo.world_size' is not a world size (an integer from 1): 0"},
      {R"("world_size": 2, "rank": 2)", "'distributedInfo': rank 2 is not below world_size 2"},
  };
  for (const auto& [fields, message] : cases) {
    const std::string path = write_temp("rank.json", fmt::format(
        R"({{"distributedInfo": {{"backend": "nccl", {}}}, "traceEvents": [{{"ph": "X", "cat": "kernel", "ts": 1, "dur": 1}}]}})",
        fields));
    EXPECT_THAT(import_error(path), ::testing::EndsWith(message)) << fields;
  }
  const std::string good = write_temp("rank_ok.json", R"({"distributedInfo": {"rank": 1, "world_size": 2},
    "traceEvents": [{"ph": "X", "cat": "kernel", "ts": 1, "dur": 1}]})");
  EXPECT_EQ(import_ok(good).info.rank, 1);
}

TEST(KinetoImporter, SubNanosecondDigitsRoundAndUnknownCategoriesAreCounted) {
  const std::string path = write_temp("round.json", "\xEF\xBB\xBF" R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1.0004, "dur": 2.0005},
    {"ph": "X", "cat": "mystery", "name": "m", "pid": 0, "tid": 7, "ts": 1, "dur": 1},
    {"ph": "X", "cat": "mystery", "name": "m", "pid": 0, "tid": 7, "ts": 1, "dur": 1},
    {"ph": "X", "cat": "kernel", "name": "e", "pid": 0, "tid": 7, "ts": 1.5e1, "dur": 0}
  ], "traceName": "x"})");
  const Timeline t = import_ok(path);
  ASSERT_EQ(t.gpu.size(), 2u);
  EXPECT_EQ(t.gpu[0].start_ns, 1000);  // 1.0004 us = 1000.4 ns, rounds down
  EXPECT_EQ(t.gpu[0].dur_ns, 2001);    // 2.0005 us = 2000.5 ns, rounds half up
  EXPECT_EQ(t.gpu[1].start_ns, 15000);  // exponent form
  EXPECT_EQ(t.gpu[1].dur_ns, 0);
  ASSERT_EQ(t.stats.unknown_categories.size(), 1u);
  EXPECT_EQ(t.stats.unknown_categories.at("mystery"), 2u);
}

// Names with escaped quotes and brackets, and enough events that the reader refills its 8 MiB buffer
// several times: every event must arrive exactly once whatever byte a chunk ends on.
TEST(KinetoImporter, LargeTraceAcrossChunkBoundaries) {
  std::string text = R"({"schemaVersion": 1, "traceEvents": [)";
  constexpr int kEvents = 60000;
  std::int64_t expected_dur_ns = 0;
  for (int i = 0; i < kEvents; ++i) {
    if (i > 0) text += ",\n";
    const int dur_ns = 1000 + (i % 997);
    expected_dur_ns += dur_ns;
    text += fmt::format(
        R"J({{"ph": "X", "cat": "kernel", "name": "void k<{}>(\"}}]{{[\\\" padding {:0>200})", "pid": 0, "tid": {},)J"
        R"( "ts": {}.{:03}, "dur": {}.{:03}, "args": {{"correlation": {}, "grid": [1, 2, 3]}}}})",
        i % 3, i, 7 + i % 2, 1000 + i, i % 1000, dur_ns / 1000, dur_ns % 1000, i);
  }
  text += R"(], "traceName": "synthetic"})";
  ASSERT_GT(text.size(), 2u * (8u << 20));
  const Timeline t = import_ok(write_temp("large.json", text));
  ASSERT_EQ(t.gpu.size(), static_cast<std::size_t>(kEvents));
  std::int64_t dur_ns = 0;
  std::set<std::int64_t> correlations;
  for (const auto& a : t.gpu) {
    dur_ns += a.dur_ns;
    correlations.insert(a.correlation);
  }
  EXPECT_EQ(dur_ns, expected_dur_ns);
  EXPECT_EQ(correlations.size(), static_cast<std::size_t>(kEvents));
  // The first event's name, unescaped: its quotes and brackets arrive as text.
  EXPECT_NE(t.strings.find("void k<0>(\"}]{[\\\" padding " + std::string(200, '0') + ")"), StringTable::kNotFound);
  EXPECT_EQ(t.stats.bytes_read, text.size());
}

std::string gzip(const std::string& text) {
  uLongf size = compressBound(static_cast<uLong>(text.size())) + 32;
  std::string out(size, '\0');
  z_stream zs{};
  deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);  // +16: gzip header
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

TEST(KinetoImporterErrors, TruncatedJsonNamesTheFileAndOffset) {
  std::ifstream in(kH200 + "pageable_memcpy.json.gz", std::ios::binary);
  // Decompress, cut in half, and write plain: a run killed while writing its trace.
  gzFile gz = gzopen((kH200 + "pageable_memcpy.json.gz").c_str(), "rb");
  std::string text(1 << 20, '\0');
  text.resize(static_cast<std::size_t>(gzread(gz, text.data(), static_cast<unsigned>(text.size()))));
  gzclose(gz);
  const std::string path = write_temp("truncated.json", text.substr(0, text.size() / 2));
  const std::string message = import_error(path);
  EXPECT_THAT(message, HasSubstr("'" + path + "' is truncated: it ends at byte " + std::to_string(text.size() / 2)));
  EXPECT_THAT(message, HasSubstr("inside traceEvents"));
}

// A complete file with one closing quote missing read as "truncated" at its last byte: the rest of the file
// became one string. The message now names where the unfinished event starts (a review's case).
TEST(KinetoImporterErrors, AMissingQuoteNamesTheEventThatNeverCloses) {
  const std::string text = R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1},)"
                           R"( {"ph": "X", "cat": "kernel", "name": "k2, "ts": 2, "dur": 1}]})";
  const std::string path = write_temp("missing_quote.json", text);
  const std::size_t second = text.find("{\"ph\"", 20);
  EXPECT_THAT(import_error(path), HasSubstr(fmt::format("after 1 events; the event from byte {} never closes and the "
                                                        "file ends inside a string", second)));
}

TEST(KinetoImporterErrors, TruncatedGzip) {
  const std::string compressed = gzip(R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1}]})");
  const std::string path = write_temp("cut.json.gz", compressed.substr(0, compressed.size() - 12));
  EXPECT_THAT(import_error(path), HasSubstr(path));
}

TEST(KinetoImporterErrors, GzipWorksLikePlain) {
  const std::string path = write_temp(
      "ok.json.gz", gzip(R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2}]})"));
  const Timeline t = import_ok(path);
  ASSERT_EQ(t.gpu.size(), 1u);
  EXPECT_EQ(t.gpu[0].dur_ns, 2000);
}

TEST(KinetoImporterErrors, InvalidJsonInAnEventGivesItsByteOffset) {
  const std::string text = R"({"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 1, "dur": 1},)"
                           R"( {"ph": "X", "cat": "kernel", "ts": 2, "dur": tru}]})";
  const std::string path = write_temp("invalid.json", text);
  const std::string message = import_error(path);
  EXPECT_THAT(message, ::testing::MatchesRegex("'" + path + "' byte [0-9]+: .*"));
  EXPECT_THAT(message, HasSubstr("'dur' is not a number of microseconds within +-2^62 ns: 'tru'"));
}

TEST(KinetoImporterErrors, MismatchedBracket) {
  const std::string path = write_temp("bracket.json", R"({"traceEvents": [{"ph": "X", "args": [1}]})");
  // The event scanner counts brackets; simdjson, parsing the event, finds the mismatch.
  EXPECT_THAT(import_error(path), ::testing::MatchesRegex("'" + path + "' byte 1[78]: event 1: .*improper structure.*"));
}

TEST(KinetoImporterErrors, JsonThatIsNotATrace) {
  const std::string path = write_temp("config.json", R"({"hidden_size": 2048, "num_layers": 16})");
  EXPECT_EQ(import_error(path),
            "'" + path + "': not a Chrome/Kineto trace: no 'traceEvents' array (top-level keys: hidden_size, num_layers)");
  const std::string number = write_temp("number.json", "42");
  EXPECT_THAT(import_error(number), HasSubstr("is not a trace perfhound reads"));
}

TEST(KinetoImporterErrors, TraceWithNoGpuEvents) {
  const std::string path = write_temp("cpu_only.json", R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
    {"ph": "X", "cat": "mtia_ccp_events", "name": "fc", "pid": 9, "tid": 4, "ts": 1, "dur": 1}]})");
  EXPECT_EQ(import_error(path),
            "'" + path + "': no GPU activity: no kernel, gpu_memcpy or gpu_memset events among 2 events (1 host events, "
            "1 'mtia_ccp_events'); record with torch.profiler activities=[CPU, CUDA]");
}

TEST(KinetoImporterErrors, NegativeOrMissingDuration) {
  std::string path = write_temp("negative.json",
                                R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 5, "dur": -1.5}]})");
  EXPECT_THAT(import_error(path), HasSubstr("event 1 ('k', cat 'kernel') has a negative duration of -1500 ns"));
  path = write_temp("nodur.json", R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 5}]})");
  EXPECT_THAT(import_error(path), HasSubstr("event 1 ('k', cat 'kernel') has no 'dur'"));
}

TEST(KinetoImporterErrors, EmptyAndMissingFiles) {
  EXPECT_THAT(import_error(write_temp("empty.json", "")), HasSubstr("is empty"));
  EXPECT_THAT(import_error(write_temp("blank.json", "  \n ")), HasSubstr("is not a trace perfhound reads"));
  EXPECT_THAT(import_error("/nonexistent/trace.json"), HasSubstr("cannot open '/nonexistent/trace.json'"));
  EXPECT_THAT(import_error(write_temp("text.txt", "hello")), HasSubstr("is not a trace perfhound reads"));
}

}  // namespace
}  // namespace perfhound::trace
