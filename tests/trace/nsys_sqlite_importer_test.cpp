#include "trace/nsys_sqlite_importer.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "trace/nsys_test_schema.h"

namespace perfhound::trace {
namespace {

namespace fs = std::filesystem;

// globalTid of the docs' example thread: vm 1, pid 5081, tid 5081 = (1 << 48) + 5081 * 2^24 + 5081.
constexpr std::int64_t kMainThread = 281560221750233;
// The same process' second thread, tid 5090: 281560221745152 + 5090.
constexpr std::int64_t kWorkerThread = 281560221750242;
// globalPid of that process: the tid bits are 0.
constexpr std::int64_t kProcess = 281560221745152;

constexpr const char* kGemmName = "void gemm_kernel<float, 128>(const float*, float*, int)";
constexpr const char* kSoftmaxName = "void softmax_kernel<__half>(__half*, int)";

std::string kernel_row(std::int64_t start, std::int64_t end, std::int64_t stream, std::int64_t correlation,
                       std::int64_t demangled, std::int64_t short_name) {
  return "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, "
         "globalPid, demangledName, shortName, mangledName, registersPerThread, gridX, gridY, gridZ, blockX, "
         "blockY, blockZ, staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId) "
         "VALUES (" +
         std::to_string(start) + ", " + std::to_string(end) + ", 0, 1, " + std::to_string(stream) + ", " +
         std::to_string(correlation) + ", " + std::to_string(kProcess) + ", " + std::to_string(demangled) + ", " +
         std::to_string(short_name) + ", 3, 128, 64, 1, 1, 256, 1, 1, 0, 49152, 0, 0, 7);";
}

std::string runtime_row(std::int64_t start, std::int64_t end, std::int64_t event_class, std::int64_t tid,
                        std::int64_t correlation, std::int64_t name_id) {
  return "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, correlationId, nameId, "
         "returnValue, callchainId) VALUES (" +
         std::to_string(start) + ", " + std::to_string(end) + ", " + std::to_string(event_class) + ", " +
         std::to_string(tid) + ", " + std::to_string(correlation) + ", " + std::to_string(name_id) + ", 0, NULL);";
}

// The full fixture: 3 kernels on 2 streams (inserted out of order, two starting together), a pageable HtoD
// and a pinned DtoH copy, a memset, the API calls that launched them (version-suffixed names, correlation ids
// matching the GPU rows), driver calls, an eventClass the importer does not know, a stream sync, NVTX ranges,
// a mark, an unclosed range and a domain record, and the GPU description.
std::string full_trace_sql() {
  std::string sql = std::string(kStringIdsSchema) + kKernelSchema + kMemcpySchema + kMemsetSchema +
                    kRuntimeSchema + kSyncSchema + kNvtxSchema + kGpuInfoSchema + kOtherTables;
  sql += "INSERT INTO StringIds VALUES (1, '" + std::string(kGemmName) + "'), (2, 'gemm_kernel'), "
         "(3, '_Z11gemm_kernelIfLi128EEvPKfPfi'), (4, '" + kSoftmaxName + "'), (5, 'softmax_kernel'), "
         "(6, 'cudaLaunchKernel_v7000'), (7, 'cudaMemcpyAsync_v3020'), (8, 'cudaMemsetAsync_v3020'), "
         "(9, 'cuLaunchKernel'), (10, 'cuMemAlloc_v2'), (11, 'cudaStreamSynchronize_v3020'), "
         "(12, 'cuEGLStreamConsumerConnect'), (20, 'forward'), (21, 'unused');";
  // start, end, stream, correlation, demangledName, shortName
  sql += kernel_row(3500, 4000, 7, 103, 1, 2);   // K3: gemm again, launched by the driver call
  sql += kernel_row(1000, 2500, 13, 102, 4, 5);  // K2: softmax, same start as K1 on another stream
  sql += kernel_row(1000, 3000, 7, 101, 1, 2);   // K1: gemm
  sql += "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, correlationId, "
         "globalPid, bytes, copyKind, srcKind, dstKind, srcDeviceId, dstDeviceId, migrationCause) VALUES "
         "(4200, 4600, 0, 1, 13, 104, " + std::to_string(kProcess) + ", 8192, 2, 2, 1, 0, NULL, NULL), "
         "(500, 900, 0, 1, 7, 100, " + std::to_string(kProcess) + ", 4096, 1, 0, 2, NULL, 0, NULL);";
  sql += "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, streamId, correlationId, "
         "globalPid, value, bytes, memKind) VALUES (950, 990, 0, 1, 7, 99, " + std::to_string(kProcess) +
         ", 0, 1024, 2);";
  // start, end, eventClass (0 runtime, 1 driver), globalTid, correlation, nameId
  sql += runtime_row(100, 150, 1, kMainThread, 98, 10);     // cuMemAlloc_v2 (driver; _v2 is its real name)
  sql += runtime_row(400, 480, 0, kMainThread, 100, 7);     // cudaMemcpyAsync -> HtoD copy
  sql += runtime_row(800, 850, 0, kMainThread, 101, 6);     // cudaLaunchKernel -> K1
  sql += runtime_row(940, 945, 0, kMainThread, 99, 8);      // cudaMemsetAsync -> memset
  sql += runtime_row(960, 990, 0, kMainThread, 102, 6);     // cudaLaunchKernel -> K2
  sql += runtime_row(3300, 3350, 1, kWorkerThread, 103, 9); // cuLaunchKernel -> K3, from the second thread
  sql += runtime_row(4100, 4150, 0, kMainThread, 104, 7);   // cudaMemcpyAsync -> DtoH copy
  sql += runtime_row(4160, 4700, 0, kMainThread, 105, 11);  // cudaStreamSynchronize
  sql += runtime_row(4300, 4310, 13, kMainThread, 106, 12); // eventClass 13 (EGL driver): counted, not imported
  sql += "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, contextId, streamId, "
         "correlationId, globalPid, syncType, eventId) VALUES (4170, 4690, 0, 1, 13, 105, " +
         std::to_string(kProcess) + ", 3, 0);";
  // NVTX: eventType 59 push/pop, 60 start/end, 34 mark, 75 domain create.
  sql += "INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, text, globalTid, endGlobalTid, textId, "
         "domainId, color) VALUES "
         "(50, 4800, 59, NULL, 'step 0', " + std::to_string(kMainThread) + ", NULL, NULL, 0, 4278190335), "
         "(1100, 1400, 60, 1, NULL, " + std::to_string(kWorkerThread) + ", " + std::to_string(kMainThread) +
         ", 20, 0, NULL), "
         "(2000, NULL, 34, NULL, 'checkpoint', " + std::to_string(kMainThread) + ", NULL, NULL, 0, NULL), "
         "(4750, NULL, 59, NULL, 'step 1', " + std::to_string(kMainThread) + ", NULL, NULL, 0, NULL), "
         "(10, NULL, 75, NULL, 'my_domain', " + std::to_string(kMainThread) + ", NULL, NULL, 1, NULL);";
  sql += "INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, isDiscrete, totalMemory, clockRate, smCount, "
         "chipName, computeMajor, computeMinor, smMajor, smMinor) VALUES "
         "(1, 0, 'NVIDIA H200', '0000:19:00.0', 1, 150754820096, 1980000000, 132, 'GH100', 9, 0, 9, 0);";
  return sql;
}

class NsysSqliteImporterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "nsys_sqlite_test_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Writes a database made by `sql` to <tmp>/name and returns its path.
  std::string make_db(const std::string& name, const std::string& sql) {
    const std::string path = (dir_ / name).string();
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* message = nullptr;
    // One transaction: thousands of autocommitted inserts would each wait for a sync.
    const std::string script = "BEGIN;" + sql + "COMMIT;";
    const int rc = sqlite3_exec(db, script.c_str(), nullptr, nullptr, &message);
    EXPECT_EQ(rc, SQLITE_OK) << (message ? message : "") << "\nin: " << sql;
    sqlite3_free(message);
    sqlite3_close(db);
    return path;
  }

  std::string make_file(const std::string& name, const std::string& bytes) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  static core::Result<Timeline> import(const std::string& path) { return make_nsys_sqlite_importer()->import(path); }

  // The error import(path) gives; fails the test if it succeeded, or if the message is not one line.
  static std::string import_error(const std::string& path) {
    auto r = import(path);
    EXPECT_FALSE(r.ok()) << path << " imported without an error";
    if (r.ok()) return "";
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos) << r.error().message;
    return r.error().message;
  }

  fs::path dir_;
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(NsysSqliteImporterBasics, NameAndRecognizesSqliteHeader) {
  const auto importer = make_nsys_sqlite_importer();
  EXPECT_EQ(importer->format_name(), "nsys-sqlite");
  const std::string sqlite_head("SQLite format 3\0\x10\x00\x01\x01", 20);
  EXPECT_TRUE(importer->recognizes(
      std::span(reinterpret_cast<const std::uint8_t*>(sqlite_head.data()), sqlite_head.size())));
  const std::string json = R"({"traceEvents": [)";
  EXPECT_FALSE(importer->recognizes(std::span(reinterpret_cast<const std::uint8_t*>(json.data()), json.size())));
  const std::string no_nul = "SQLite format 3X";  // the NUL is part of the magic
  EXPECT_FALSE(
      importer->recognizes(std::span(reinterpret_cast<const std::uint8_t*>(no_nul.data()), no_nul.size())));
  EXPECT_FALSE(importer->recognizes(std::span(reinterpret_cast<const std::uint8_t*>(sqlite_head.data()), 15)));
}

TEST(NsysSqliteImporterBasics, DecodesGlobalIds) {
  // The docs' example: hardware 0, vm 1, pid 5081, tid 5081.
  const NsysGlobalId id = decode_nsys_global_id(281560221750233);
  EXPECT_EQ(id.pid, 5081);
  EXPECT_EQ(id.tid, 5081);
  // A globalPid carries no tid.
  EXPECT_EQ(decode_nsys_global_id(kProcess).pid, 5081);
  EXPECT_EQ(decode_nsys_global_id(kProcess).tid, 0);
  // Hardware id 0x80 sets the sign bit: pid 0x123456, tid 0xABCDEF still decode.
  const auto high = static_cast<std::int64_t>((std::uint64_t{0x80} << 56) | (std::uint64_t{0x02} << 48) |
                                              (std::uint64_t{0x123456} << 24) | 0xABCDEF);
  EXPECT_LT(high, 0);
  EXPECT_EQ(decode_nsys_global_id(high).pid, 0x123456);
  EXPECT_EQ(decode_nsys_global_id(high).tid, 0xABCDEF);
}

TEST(NsysSqliteImporterBasics, StripsNsysVersionSuffixOnly) {
  EXPECT_EQ(strip_nsys_api_version("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(strip_nsys_api_version("cudaGraphAddKernelNode_v10000"), "cudaGraphAddKernelNode");
  EXPECT_EQ(strip_nsys_api_version("cudaStreamGetCaptureInfo_v2_v11030"), "cudaStreamGetCaptureInfo_v2");
  EXPECT_EQ(strip_nsys_api_version("cudaLaunchKernel_ptsz_v7000"), "cudaLaunchKernel_ptsz");
  EXPECT_EQ(strip_nsys_api_version("cuMemAlloc_v2"), "cuMemAlloc_v2");  // the driver symbol's own name
  EXPECT_EQ(strip_nsys_api_version("cuLaunchKernel"), "cuLaunchKernel");
  EXPECT_EQ(strip_nsys_api_version("cudaFoo_v12a4"), "cudaFoo_v12a4");
  EXPECT_EQ(strip_nsys_api_version("_v7000"), "");
  EXPECT_EQ(strip_nsys_api_version(""), "");
}

TEST_F(NsysSqliteImporterTest, ImportsEveryTableOfAFullExport) {
  const std::string path = make_db("full.sqlite", full_trace_sql());
  auto r = import(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Timeline& t = *r;

  EXPECT_EQ(t.info.format, "nsys-sqlite");
  EXPECT_EQ(t.info.source, path);
  EXPECT_EQ(t.info.cuda_runtime_version, "");
  EXPECT_FALSE(t.info.rank.has_value());
  ASSERT_EQ(t.info.devices.size(), 1u);
  EXPECT_EQ(t.info.devices[0].id, 0);
  EXPECT_EQ(t.info.devices[0].name, "NVIDIA H200");
  EXPECT_EQ(t.info.devices[0].sm_count, 132);
  EXPECT_EQ(t.info.devices[0].memory_bytes, 150754820096u);
  EXPECT_EQ(t.info.devices[0].compute_major, 9);
  EXPECT_EQ(t.info.devices[0].compute_minor, 0);

  // GPU work sorted by start, then device, then stream (K1 and K2 both start at 1000).
  ASSERT_EQ(t.gpu.size(), 6u);
  struct ExpectedGpu {
    GpuKind kind;
    std::int64_t start, dur, stream, correlation;
    std::string name;
    std::uint64_t bytes;
    CopyDirection direction;
    MemoryKind src, dst;
  };
  const std::vector<ExpectedGpu> expected_gpu = {
      {GpuKind::kMemcpy, 500, 400, 7, 100, "Memcpy HtoD (Pageable -> Device)", 4096, CopyDirection::kHostToDevice,
       MemoryKind::kPageable, MemoryKind::kDevice},
      {GpuKind::kMemset, 950, 40, 7, 99, "Memset (Device)", 1024, CopyDirection::kUnknown, MemoryKind::kUnknown,
       MemoryKind::kUnknown},
      {GpuKind::kKernel, 1000, 2000, 7, 101, kGemmName, 0, CopyDirection::kUnknown, MemoryKind::kUnknown,
       MemoryKind::kUnknown},
      {GpuKind::kKernel, 1000, 1500, 13, 102, kSoftmaxName, 0, CopyDirection::kUnknown, MemoryKind::kUnknown,
       MemoryKind::kUnknown},
      {GpuKind::kKernel, 3500, 500, 7, 103, kGemmName, 0, CopyDirection::kUnknown, MemoryKind::kUnknown,
       MemoryKind::kUnknown},
      {GpuKind::kMemcpy, 4200, 400, 13, 104, "Memcpy DtoH (Device -> Pinned)", 8192, CopyDirection::kDeviceToHost,
       MemoryKind::kDevice, MemoryKind::kPinned},
  };
  for (std::size_t i = 0; i < expected_gpu.size(); ++i) {
    SCOPED_TRACE("gpu[" + std::to_string(i) + "]");
    const GpuActivity& a = t.gpu[i];
    const ExpectedGpu& e = expected_gpu[i];
    EXPECT_EQ(a.kind, e.kind);
    EXPECT_EQ(a.start_ns, e.start);
    EXPECT_EQ(a.dur_ns, e.dur);
    EXPECT_EQ(a.device, 0);
    EXPECT_EQ(a.stream, e.stream);
    EXPECT_EQ(a.correlation, e.correlation);
    EXPECT_EQ(a.external_id, -1);
    EXPECT_EQ(t.name(a.name), e.name);
    EXPECT_EQ(a.bytes, e.bytes);
    EXPECT_EQ(a.direction, e.direction);
    EXPECT_EQ(a.src_memory, e.src);
    EXPECT_EQ(a.dst_memory, e.dst);
  }
  EXPECT_EQ(t.gpu[2].name, t.gpu[4].name) << "one kernel name is interned once";

  // Host events sorted by start: API calls without their _v suffix, the sync, the two closed NVTX ranges.
  ASSERT_EQ(t.host.size(), 11u);
  struct ExpectedHost {
    HostKind kind;
    std::int64_t start, dur, pid, tid, correlation;
    std::string name;
  };
  const std::vector<ExpectedHost> expected_host = {
      {HostKind::kUserAnnotation, 50, 4750, 5081, 5081, -1, "step 0"},
      {HostKind::kDriver, 100, 50, 5081, 5081, 98, "cuMemAlloc_v2"},
      {HostKind::kRuntime, 400, 80, 5081, 5081, 100, "cudaMemcpyAsync"},
      {HostKind::kRuntime, 800, 50, 5081, 5081, 101, "cudaLaunchKernel"},
      {HostKind::kRuntime, 940, 5, 5081, 5081, 99, "cudaMemsetAsync"},
      {HostKind::kRuntime, 960, 30, 5081, 5081, 102, "cudaLaunchKernel"},
      {HostKind::kUserAnnotation, 1100, 300, 5081, 5090, -1, "forward"},
      {HostKind::kDriver, 3300, 50, 5081, 5090, 103, "cuLaunchKernel"},
      {HostKind::kRuntime, 4100, 50, 5081, 5081, 104, "cudaMemcpyAsync"},
      {HostKind::kRuntime, 4160, 540, 5081, 5081, 105, "cudaStreamSynchronize"},
      {HostKind::kSync, 4170, 520, 5081, -1, 105, "Stream sync"},
  };
  for (std::size_t i = 0; i < expected_host.size(); ++i) {
    SCOPED_TRACE("host[" + std::to_string(i) + "]");
    const HostEvent& h = t.host[i];
    const ExpectedHost& e = expected_host[i];
    EXPECT_EQ(h.kind, e.kind);
    EXPECT_EQ(h.start_ns, e.start);
    EXPECT_EQ(h.dur_ns, e.dur);
    EXPECT_EQ(h.pid, e.pid);
    EXPECT_EQ(h.tid, e.tid);
    EXPECT_EQ(h.correlation, e.correlation);
    EXPECT_EQ(h.external_id, -1);
    EXPECT_EQ(t.name(h.name), e.name);
  }
  EXPECT_EQ(t.host[3].name, t.host[5].name);
  EXPECT_EQ(t.strings.find("cudaLaunchKernel_v7000"), StringTable::kNotFound);
  EXPECT_EQ(t.strings.find("unused"), StringTable::kNotFound) << "StringIds are read on demand";
  EXPECT_TRUE(t.gpu_annotations.empty());

  // The NVTX push/pop range opens the window at 50 and closes it at 4800.
  EXPECT_EQ(t.window_start_ns, 50);
  EXPECT_EQ(t.window_end_ns, 4800);

  EXPECT_EQ(t.stats.bytes_read, fs::file_size(path));
  EXPECT_EQ(t.stats.events_read, 3u + 2u + 1u + 9u + 1u + 5u);  // kernels, copies, memset, API, sync, NVTX
  EXPECT_EQ(t.stats.events_ignored, 3u);  // the mark, the unclosed range, the domain record
  const std::map<std::string, std::uint64_t> unknown = {{"CUPTI_ACTIVITY_KIND_RUNTIME eventClass 13", 1}};
  EXPECT_EQ(t.stats.unknown_categories, unknown);
}

TEST_F(NsysSqliteImporterTest, CopyOnlyTraceWithReorderedColumnsAndNoOptionalTables) {
  // No KERNEL, RUNTIME, SYNCHRONIZATION, NVTX or TARGET_INFO table (nsys creates tables lazily); columns in
  // another order than the docs', plus one the importer has never heard of.
  const std::string path = make_db(
      "copies.sqlite",
      std::string(kStringIdsSchema) +
          "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (copyKind INTEGER NOT NULL, bytes INTEGER NOT NULL, "
          "streamId INTEGER NOT NULL, end INTEGER NOT NULL, futureColumn TEXT, deviceId INTEGER NOT NULL, "
          "start INTEGER NOT NULL, contextId INTEGER NOT NULL, correlationId INTEGER, srcKind INTEGER, "
          "dstKind INTEGER);"
          // copyKind, bytes, stream, end, future, device, start, context, correlation, src, dst
          "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (10, 1048576, 21, 2600, 'x', 1, 2000, 1, 7, 2, 2);"
          "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (11, 65536, 22, 1300, NULL, 0, 1000, 1, NULL, 4, 2);"
          "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (3, 512, 22, 1500, NULL, 0, 1500, 1, 8, NULL, 3);");
  auto r = import(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Timeline& t = *r;
  ASSERT_EQ(t.gpu.size(), 3u);

  EXPECT_EQ(t.gpu[0].start_ns, 1000);
  EXPECT_EQ(t.gpu[0].dur_ns, 300);
  EXPECT_EQ(t.gpu[0].device, 0);
  EXPECT_EQ(t.gpu[0].stream, 22);
  EXPECT_EQ(t.gpu[0].correlation, -1);  // NULL correlationId
  EXPECT_EQ(t.gpu[0].bytes, 65536u);
  EXPECT_EQ(t.name(t.gpu[0].name), "Memcpy UVM HtoD (Managed -> Device)");
  EXPECT_EQ(t.gpu[0].direction, CopyDirection::kHostToDevice);
  EXPECT_EQ(t.gpu[0].src_memory, MemoryKind::kManaged);
  EXPECT_EQ(t.gpu[0].dst_memory, MemoryKind::kDevice);

  EXPECT_EQ(t.gpu[1].start_ns, 1500);
  EXPECT_EQ(t.gpu[1].dur_ns, 0);
  EXPECT_EQ(t.gpu[1].correlation, 8);
  EXPECT_EQ(t.name(t.gpu[1].name), "Memcpy HtoA (Unknown -> Array)");
  EXPECT_EQ(t.gpu[1].direction, CopyDirection::kUnknown);
  EXPECT_EQ(t.gpu[1].src_memory, MemoryKind::kUnknown);  // NULL srcKind
  EXPECT_EQ(t.gpu[1].dst_memory, MemoryKind::kUnknown);  // CUDA array: no MemoryKind for it

  EXPECT_EQ(t.gpu[2].start_ns, 2000);
  EXPECT_EQ(t.gpu[2].dur_ns, 600);
  EXPECT_EQ(t.gpu[2].device, 1);
  EXPECT_EQ(t.gpu[2].stream, 21);
  EXPECT_EQ(t.gpu[2].correlation, 7);
  EXPECT_EQ(t.gpu[2].bytes, 1048576u);
  EXPECT_EQ(t.name(t.gpu[2].name), "Memcpy PtoP (Device -> Device)");
  EXPECT_EQ(t.gpu[2].direction, CopyDirection::kPeerToPeer);
  for (const auto& a : t.gpu) EXPECT_EQ(a.kind, GpuKind::kMemcpy);

  EXPECT_TRUE(t.host.empty());
  EXPECT_TRUE(t.info.devices.empty());
  EXPECT_EQ(t.window_start_ns, 1000);
  EXPECT_EQ(t.window_end_ns, 2600);
  EXPECT_EQ(t.stats.events_read, 3u);
  EXPECT_EQ(t.stats.events_ignored, 0u);
  EXPECT_TRUE(t.stats.unknown_categories.empty());
}

TEST_F(NsysSqliteImporterTest, OlderSchemaFallbacks) {
  // A kernel table where demangledName may be NULL (a table without the column: KernelTableWithShortNameOnly);
  // a RUNTIME table without eventClass (the API family is then read from the name); NVTX with neither text nor
  // textId (an unnamed range); a memset without memKind.
  const std::string path = make_db(
      "older.sqlite",
      std::string(kStringIdsSchema) +
          "INSERT INTO StringIds VALUES (1, 'kernel_a'), (2, 'kernel_b_short'), (3, 'cudaMalloc_v3020'), "
          "(4, 'cuCtxSynchronize');"
          "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, "
          "deviceId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, demangledName INTEGER, "
          "shortName INTEGER NOT NULL);"
          "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 20, 0, 7, 1, 1, 1), (30, 45, 0, 7, 2, NULL, 2);"
          "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, "
          "deviceId INTEGER NOT NULL, streamId INTEGER NOT NULL, bytes INTEGER NOT NULL);"
          "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (50, 52, 0, 7, 64);"
          "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, "
          "globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL);"
          "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1, 5, NULL, 1, 3), (60, 70, 281560221750233, NULL, 4);"
          "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, "
          "text TEXT, textId INTEGER, globalTid INTEGER);"
          "INSERT INTO NVTX_EVENTS VALUES (0, 100, 59, NULL, NULL, 281560221750233);");
  auto r = import(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Timeline& t = *r;
  ASSERT_EQ(t.gpu.size(), 3u);
  EXPECT_EQ(t.name(t.gpu[0].name), "kernel_a");
  EXPECT_EQ(t.name(t.gpu[1].name), "kernel_b_short") << "NULL demangledName falls back to shortName";
  EXPECT_EQ(t.gpu[1].dur_ns, 15);
  EXPECT_EQ(t.gpu[2].kind, GpuKind::kMemset);
  EXPECT_EQ(t.name(t.gpu[2].name), "Memset (Unknown)");
  EXPECT_EQ(t.gpu[2].correlation, -1);

  ASSERT_EQ(t.host.size(), 3u);
  EXPECT_EQ(t.host[0].kind, HostKind::kUserAnnotation);
  EXPECT_EQ(t.name(t.host[0].name), "");
  EXPECT_EQ(t.host[1].kind, HostKind::kRuntime);
  EXPECT_EQ(t.name(t.host[1].name), "cudaMalloc");
  EXPECT_EQ(t.host[1].pid, -1) << "NULL globalTid: thread unknown";
  EXPECT_EQ(t.host[1].tid, -1);
  EXPECT_EQ(t.host[2].kind, HostKind::kDriver);
  EXPECT_EQ(t.name(t.host[2].name), "cuCtxSynchronize");
  EXPECT_EQ(t.host[2].correlation, -1);
  EXPECT_EQ(t.host[2].pid, 5081);
  EXPECT_EQ(t.window_start_ns, 0);
  EXPECT_EQ(t.window_end_ns, 100);
}

TEST_F(NsysSqliteImporterTest, KernelTableWithShortNameOnly) {
  const std::string path = make_db("short.sqlite",
                                   std::string(kStringIdsSchema) +
                                       "INSERT INTO StringIds VALUES (5, 'elementwise');"
                                       "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, "
                                       "end INTEGER NOT NULL, deviceId INTEGER NOT NULL, streamId INTEGER NOT NULL, "
                                       "shortName INTEGER NOT NULL);"
                                       "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (5, 9, 2, 3, 5);");
  auto r = import(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->gpu.size(), 1u);
  EXPECT_EQ(r->name(r->gpu[0].name), "elementwise");
  EXPECT_EQ(r->gpu[0].device, 2);
  EXPECT_EQ(r->gpu[0].correlation, -1);
}

TEST_F(NsysSqliteImporterTest, DevicesFromGpuAndCudaDeviceTables) {
  // Rows out of id order, GPU 0 listed for two VMs, GPU 1 without smCount, GPU 2 only in the CUDA view.
  const std::string path = make_db(
      "devices.sqlite",
      std::string(kStringIdsSchema) + kGpuInfoSchema +
          "CREATE TABLE TARGET_INFO_CUDA_DEVICE (gpuId INTEGER, cudaId INTEGER NOT NULL, pid INTEGER NOT NULL, "
          "uuid TEXT, numMultiprocessors INTEGER);"
          "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, "
          "deviceId INTEGER NOT NULL, streamId INTEGER NOT NULL, bytes INTEGER NOT NULL, memKind INTEGER);"
          "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (0, 1, 0, 7, 8, 4);"
          "INSERT INTO TARGET_INFO_GPU (vmId, id, name, totalMemory, smCount, computeMajor, computeMinor) VALUES "
          "(1, 1, 'NVIDIA H100 80GB HBM3', 85029158912, NULL, 9, 0), "
          "(1, 0, 'NVIDIA A100-SXM4-80GB', 85097971712, 108, 8, 0), "
          "(2, 0, 'NVIDIA A100-SXM4-80GB (vm 2)', 85097971712, 108, 8, 0);"
          "INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (1, 0, 4242, 'GPU-1', 132), (2, 1, 4242, 'GPU-2', 66), "
          "(0, 2, 4242, 'GPU-0', 999);");
  auto r = import(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto& devices = r->info.devices;
  ASSERT_EQ(devices.size(), 3u);
  EXPECT_EQ(devices[0].id, 0);
  EXPECT_EQ(devices[0].name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(devices[0].sm_count, 108) << "TARGET_INFO_GPU wins where it has the value";
  EXPECT_EQ(devices[0].memory_bytes, 85097971712u);
  EXPECT_EQ(devices[0].compute_major, 8);
  EXPECT_EQ(devices[1].id, 1);
  EXPECT_EQ(devices[1].sm_count, 132);
  EXPECT_EQ(devices[1].compute_major, 9);
  EXPECT_EQ(devices[2].id, 2);
  EXPECT_EQ(devices[2].name, "");
  EXPECT_EQ(devices[2].sm_count, 66);
  EXPECT_EQ(devices[2].memory_bytes, 0u);
  ASSERT_EQ(r->gpu.size(), 1u);
  EXPECT_EQ(r->name(r->gpu[0].name), "Memset (Managed)");
}

// --- bad input -----------------------------------------------------------------------------------------------

TEST_F(NsysSqliteImporterTest, TextFileIsNotADatabase) {
  const std::string path =
      make_file("notes.sqlite", std::string(4096, 'x') + "\nthis is a text file, not an nsys export\n");
  EXPECT_EQ(import_error(path), "'" + path + "': cannot read as an SQLite database: file is not a database");
}

TEST_F(NsysSqliteImporterTest, MissingAndEmptyFiles) {
  const std::string missing = (dir_ / "absent.sqlite").string();
  EXPECT_EQ(import_error(missing), "'" + missing + "': cannot read: No such file or directory");
  const std::string empty = make_file("empty.sqlite", "");
  EXPECT_EQ(import_error(empty), "'" + empty + "': is empty, not an nsys SQLite export");
}

TEST_F(NsysSqliteImporterTest, DatabaseWithoutGpuTablesNamesTheTablesItLookedFor) {
  const std::string path = make_db("cpu_only.sqlite", std::string(kStringIdsSchema) + kRuntimeSchema + kOtherTables +
                                                          "INSERT INTO StringIds VALUES (1, 'cudaFree_v3020');" +
                                                          runtime_row(1, 2, 0, kMainThread, 1, 1));
  EXPECT_EQ(import_error(path),
            "'" + path +
                "': not an nsys trace with GPU kernels: table CUPTI_ACTIVITY_KIND_KERNEL is missing, and so are "
                "CUPTI_ACTIVITY_KIND_MEMCPY and CUPTI_ACTIVITY_KIND_MEMSET (capture with `nsys profile "
                "--trace=cuda` and export with `nsys export --type sqlite`)");
}

TEST_F(NsysSqliteImporterTest, MissingStringIds) {
  const std::string path = make_db("no_strings.sqlite", std::string(kKernelSchema) + kernel_row(1, 2, 7, 1, 1, 1));
  EXPECT_EQ(import_error(path), "'" + path + "': not an nsys SQLite export: table StringIds is missing");
}

TEST_F(NsysSqliteImporterTest, EndBeforeStartNamesTableAndRow) {
  const std::string path =
      make_db("backwards.sqlite", std::string(kStringIdsSchema) + kKernelSchema +
                                      "INSERT INTO StringIds VALUES (1, 'k');" + kernel_row(10, 20, 7, 1, 1, 1) +
                                      kernel_row(200, 100, 7, 2, 1, 1));
  EXPECT_EQ(import_error(path),
            "'" + path + "' table CUPTI_ACTIVITY_KIND_KERNEL row 2: end 100 is before start 200");
}

TEST_F(NsysSqliteImporterTest, NullInNeededColumnNamesTableRowAndColumn) {
  const std::string path = make_db(
      "null_bytes.sqlite",
      std::string(kStringIdsSchema) +
          "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, "
          "streamId INTEGER, bytes INTEGER, copyKind INTEGER);"
          "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1, 2, 0, 7, NULL, 1);");
  EXPECT_EQ(import_error(path), "'" + path + "' table CUPTI_ACTIVITY_KIND_MEMCPY row 1: column 'bytes' is NULL");
}

TEST_F(NsysSqliteImporterTest, WrongTypeNegativeBytesAndUnknownStringId) {
  const std::string memset_schema =
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, streamId, bytes, memKind);";
  std::string path = make_db("text_start.sqlite", std::string(kStringIdsSchema) + memset_schema +
                                                      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES "
                                                      "(1, 2, 0, 7, 8, 2), ('soon', 2, 0, 7, 8, 2);");
  EXPECT_EQ(import_error(path),
            "'" + path + "' table CUPTI_ACTIVITY_KIND_MEMSET row 2: column 'start' holds TEXT, expected INTEGER");

  path = make_db("negative.sqlite", std::string(kStringIdsSchema) + memset_schema +
                                        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (1, 2, 0, 7, -8, 2);");
  EXPECT_EQ(import_error(path),
            "'" + path + "' table CUPTI_ACTIVITY_KIND_MEMSET row 1: column 'bytes' is negative (-8)");

  path = make_db("dangling.sqlite", std::string(kStringIdsSchema) + kKernelSchema +
                                        "INSERT INTO StringIds VALUES (1, 'k');" + kernel_row(1, 2, 7, 1, 42, 1));
  EXPECT_EQ(import_error(path), "'" + path +
                                    "' table CUPTI_ACTIVITY_KIND_KERNEL row 1: column 'demangledName' refers to id "
                                    "42, which is not in StringIds");
}

TEST_F(NsysSqliteImporterTest, MissingNeededColumnListsTheTablesColumns) {
  const std::string path =
      make_db("no_stream.sqlite", std::string(kStringIdsSchema) +
                                      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, "
                                      "deviceId INTEGER, shortName INTEGER);");
  EXPECT_EQ(import_error(path), "'" + path +
                                    "' table CUPTI_ACTIVITY_KIND_KERNEL: has no column 'streamId' (it has: start, "
                                    "end, deviceId, shortName); this nsys export schema is not supported");
}

// The fixture plus enough kernels that the database spans many pages.
std::string large_trace_sql() {
  std::string sql = full_trace_sql();
  for (int i = 0; i < 2000; ++i) sql += kernel_row(10000 + i, 10001 + i, 7, 1000 + i, 1, 2);
  return sql;
}

std::uint64_t page_size_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string header(100, '\0');
  in.read(header.data(), 100);
  return (std::uint64_t{static_cast<unsigned char>(header[16])} << 8) | static_cast<unsigned char>(header[17]);
}

TEST_F(NsysSqliteImporterTest, TruncatedFile) {
  const std::string path = make_db("truncated.sqlite", large_trace_sql());
  const std::uint64_t full_size = fs::file_size(path);
  const std::uint64_t page = page_size_of(path);
  ASSERT_EQ(full_size % page, 0u);
  ASSERT_GT(full_size / page, 8u);
  const std::uint64_t pages = full_size / page;

  // Cut in half at a page boundary, as an interrupted copy would: the header's page count says so.
  const std::uint64_t half = pages / 2 * page;
  fs::resize_file(path, half);
  EXPECT_EQ(import_error(path), "'" + path + "': truncated SQLite file: its header says " + std::to_string(pages) +
                                    " pages of " + std::to_string(page) + " bytes (" + std::to_string(full_size) +
                                    " bytes) but the file has " + std::to_string(half) +
                                    " bytes; export the report again");

  // Cut mid-page.
  fs::resize_file(path, half - 100);
  EXPECT_EQ(import_error(path), "'" + path + "': truncated SQLite file: " + std::to_string(half - 100) +
                                    " bytes is not a whole number of " + std::to_string(page) +
                                    "-byte pages; export the report again");
}

TEST_F(NsysSqliteImporterTest, TruncatedFileWithLegacyHeaderGivesSqlitesMessage) {
  // When version-valid-for (offset 92) differs from the change counter (offset 24) the header's page count is
  // not authoritative and only sqlite's own checks can tell.
  const std::string path = make_db("legacy.sqlite", large_trace_sql());
  const std::uint64_t page = page_size_of(path);
  const std::uint64_t pages = fs::file_size(path) / page;
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(92);
    f.write("\x7f\x7f\x7f\x7f", 4);
  }
  fs::resize_file(path, pages / 2 * page);
  const std::string message = import_error(path);
  EXPECT_TRUE(message.starts_with("'" + path + "'")) << message;
  EXPECT_TRUE(contains(message, "database disk image is malformed")) << message;
}

TEST_F(NsysSqliteImporterTest, CorruptPagesGiveSqlitesMessage) {
  const std::string path = make_db("corrupt.sqlite", large_trace_sql());
  const auto size = fs::file_size(path);
  const std::uint64_t page = page_size_of(path);
  {
    // Keep the first page (header and schema) and the size; overwrite every page after it.
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(page));
    const std::string garbage(size - page, '\xA5');
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  ASSERT_EQ(fs::file_size(path), size);
  const std::string message = import_error(path);
  EXPECT_TRUE(message.starts_with("'" + path + "'")) << message;
  EXPECT_TRUE(contains(message, "malformed")) << message;
}

TEST_F(NsysSqliteImporterTest, ThroughTheImporterInterfaceFileIsNotModified) {
  const std::string path = make_db("ro.sqlite", full_trace_sql());
  const auto before = fs::last_write_time(path);
  const auto size = fs::file_size(path);
  ASSERT_TRUE(import(path).ok());
  EXPECT_EQ(fs::last_write_time(path), before);
  EXPECT_EQ(fs::file_size(path), size);
  EXPECT_FALSE(fs::exists(path + "-journal"));
}

}  // namespace
}  // namespace perfhound::trace
