#include "trace/nsys_sqlite_importer.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

// Schema reference: NVIDIA Nsight Systems Analysis Guide, "SQLite Schema Reference" and "SQLite Schema Event
// Values" (docs.nvidia.com/nsight-systems/), compared between schema 3.16.1 (nsys 2024.6) and 3.28.1. Columns
// are looked up by name in every table because they move and multiply between versions, and a table with no
// rows is not created at all ("lazy" export).

namespace perfhound::trace {
namespace {

using core::Error;
using core::Result;
using core::Status;

constexpr std::string_view kFormatName = "nsys-sqlite";
// The first 16 bytes of every SQLite 3 database, NUL included (sqlite.org/fileformat.html, "The Database Header").
constexpr char kSqliteMagic[] = "SQLite format 3";
static_assert(sizeof(kSqliteMagic) == 16);

constexpr std::string_view kStringIdsTable = "StringIds";
constexpr std::string_view kKernelTable = "CUPTI_ACTIVITY_KIND_KERNEL";
constexpr std::string_view kMemcpyTable = "CUPTI_ACTIVITY_KIND_MEMCPY";
constexpr std::string_view kMemsetTable = "CUPTI_ACTIVITY_KIND_MEMSET";
constexpr std::string_view kRuntimeTable = "CUPTI_ACTIVITY_KIND_RUNTIME";
constexpr std::string_view kSyncTable = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
constexpr std::string_view kNvtxTable = "NVTX_EVENTS";
constexpr std::string_view kGpuInfoTable = "TARGET_INFO_GPU";
constexpr std::string_view kCudaDeviceTable = "TARGET_INFO_CUDA_DEVICE";

// ENUM_NSYS_EVENT_CLASS: driver calls share the RUNTIME table and differ only in eventClass.
constexpr std::int64_t kEventClassCudaRuntime = 0;
constexpr std::int64_t kEventClassCudaDriver = 1;

// ENUM_NSYS_EVENT_TYPE values of the two NVTX range kinds; everything else in NVTX_EVENTS (marks 34, categories
// 33, thread names 39, domain create/destroy 75/76, ...) is a label or metadata, not an interval.
constexpr std::int64_t kNvtxPushPopRange = 59;
constexpr std::int64_t kNvtxStartEndRange = 60;

// globalTid layout <hardware:8><vm:8><pid:24><tid:24> ("Common SQLite Examples", thread name query).
constexpr std::uint64_t kGlobalIdFieldSpan = 0x1000000;

// ENUM_CUDA_MEMCPY_OPER (copyKind). 0..10 are CUpti_ActivityMemcpyKind; nsys adds 11..13 for unified memory
// migrations. Labels follow Kineto's memcpyKindString (pytorch/kineto libkineto/src/cupti_strings.cpp) so
// both importers name a copy the same way.
constexpr std::array<std::string_view, 14> kCopyKindLabels = {
    "<unknown>", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD",
    "DtoA",      "DtoD", "HtoH", "PtoP", "UVM HtoD", "UVM DtoH", "UVM DtoD"};

// ENUM_CUDA_MEM_KIND (srcKind, dstKind, memKind). Unlike CUpti_ActivityMemoryKind (UNKNOWN = 0, PAGEABLE = 1)
// nsys numbers PAGEABLE = 0 and puts UNKNOWN last. Labels are Kineto's memoryKindString.
constexpr std::array<std::string_view, 8> kMemoryKindLabels = {
    "Pageable", "Pinned", "Device", "Array", "Managed", "Device Static", "Managed Static", "Unknown"};

// ENUM_CUPTI_SYNC_TYPE (syncType), as CUpti_ActivitySynchronizationType numbers it.
constexpr std::array<std::string_view, 5> kSyncTypeLabels = {"Unknown sync", "Event sync", "Stream wait sync",
                                                             "Stream sync", "Context sync"};

CopyDirection copy_direction(std::int64_t copy_kind) {
  switch (copy_kind) {
    case 1: case 11: return CopyDirection::kHostToDevice;
    case 2: case 12: return CopyDirection::kDeviceToHost;
    case 8: case 13: return CopyDirection::kDeviceToDevice;
    case 9: return CopyDirection::kHostToHost;
    case 10: return CopyDirection::kPeerToPeer;
    default: return CopyDirection::kUnknown;  // unknown and the CUDA-array copies (HtoA, AtoD, ...)
  }
}

MemoryKind memory_kind(std::optional<std::int64_t> kind) {
  if (!kind) return MemoryKind::kUnknown;
  switch (*kind) {
    case 0: return MemoryKind::kPageable;
    case 1: return MemoryKind::kPinned;
    case 2: return MemoryKind::kDevice;
    case 4: return MemoryKind::kManaged;
    default: return MemoryKind::kUnknown;
  }
}

// Index into kCopyKindLabels / kMemoryKindLabels, folding values the enum does not have onto "unknown", so
// that a small number keys the memcpy name cache.
std::size_t copy_label_index(std::int64_t copy_kind) {
  return copy_kind >= 0 && copy_kind < std::ssize(kCopyKindLabels) ? static_cast<std::size_t>(copy_kind) : 0;
}
std::size_t memory_label_index(std::optional<std::int64_t> kind) {
  constexpr std::size_t kUnknownIndex = kMemoryKindLabels.size() - 1;
  return kind && *kind >= 0 && *kind < std::ssize(kMemoryKindLabels) ? static_cast<std::size_t>(*kind)
                                                                      : kUnknownIndex;
}

std::string_view sync_label(std::int64_t sync_type) {
  return sync_type >= 0 && sync_type < std::ssize(kSyncTypeLabels) ? kSyncTypeLabels[sync_type]
                                                                   : kSyncTypeLabels[0];
}

struct SqliteClose {
  // close_v2: statements still open (an early return) are finalized by their own handles later.
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct SqliteFinalize {
  void operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }
};
using DbHandle = std::unique_ptr<sqlite3, SqliteClose>;
using StmtHandle = std::unique_ptr<sqlite3_stmt, SqliteFinalize>;

std::string_view sqlite_type_name(int type) {
  switch (type) {
    case SQLITE_INTEGER: return "INTEGER";
    case SQLITE_FLOAT: return "REAL";
    case SQLITE_TEXT: return "TEXT";
    case SQLITE_BLOB: return "BLOB";
    default: return "NULL";
  }
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += ", ";
    out += p;
  }
  return out;
}

// A column of a Table's SELECT: its index in the result row, or -1 when the table lacks it.
struct Column {
  int index = -1;
  std::string_view name;
  bool present() const { return index >= 0; }
};

// One table's rows through a prepared `SELECT rowid, <columns it has> FROM table`. Reading a value keeps the
// first problem of the row (a NULL where a value is needed, a value of the wrong type) so that the caller
// checks once per row; row_error() then names the file, table, rowid and column.
class Table {
 public:
  Table(std::string_view where, std::string_view name, StmtHandle stmt, std::vector<std::string> all_columns,
        std::vector<Column> selected)
      : where_(where), name_(name), stmt_(std::move(stmt)), all_columns_(std::move(all_columns)),
        selected_(std::move(selected)) {}

  std::string_view name() const { return name_; }

  // A column the importer can do without; not present() if the table lacks it.
  Column column(std::string_view name) const {
    for (const auto& c : selected_) {
      if (c.name == name) return c;
    }
    return Column{-1, name};
  }
  // A column the importer needs: an error naming the table's actual columns if it is missing.
  Result<Column> require(std::string_view name) const {
    const Column c = column(name);
    if (!c.present()) return missing_column_error(name);
    return c;
  }
  Error missing_column_error(std::string_view name) const {
    return Error{fmt::format("{} table {}: has no column '{}' (it has: {}); this nsys export schema is not "
                             "supported",
                             where_, name_, name, join(all_columns_))};
  }

  // Advances to the next row: false at the end, an error with sqlite's message if the file cannot be read.
  Result<bool> step() {
    row_problem_.clear();
    const int rc = sqlite3_step(stmt_.get());
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return Error{fmt::format("{} table {}: cannot read: {}", where_, name_,
                             sqlite3_errmsg(sqlite3_db_handle(stmt_.get())))};
  }

  std::int64_t rowid() const { return sqlite3_column_int64(stmt_.get(), 0); }

  // A needed integer; 0 and a row problem if it is NULL or not an integer.
  std::int64_t int_value(const Column& c) {
    const auto v = optional_int(c);
    if (!v && ok()) fail(fmt::format("column '{}' is NULL", c.name));
    return v.value_or(0);
  }
  // An integer that may be absent or NULL.
  std::optional<std::int64_t> optional_int(const Column& c) {
    if (!c.present()) return std::nullopt;
    const int type = sqlite3_column_type(stmt_.get(), c.index);
    if (type == SQLITE_NULL) return std::nullopt;
    if (type != SQLITE_INTEGER) {
      fail(fmt::format("column '{}' holds {}, expected INTEGER", c.name, sqlite_type_name(type)));
      return std::nullopt;
    }
    return sqlite3_column_int64(stmt_.get(), c.index);
  }
  std::int32_t int32_value(const Column& c) { return narrow32(c, int_value(c)); }
  std::optional<std::int32_t> optional_int32(const Column& c) {
    const auto v = optional_int(c);
    if (!v) return std::nullopt;
    return narrow32(c, *v);
  }
  // A count of bytes, which cannot be negative.
  std::uint64_t bytes_value(const Column& c) { return non_negative(c, int_value(c)); }
  std::optional<std::uint64_t> optional_bytes(const Column& c) {
    const auto v = optional_int(c);
    if (!v) return std::nullopt;
    return non_negative(c, *v);
  }
  // Text that may be absent or NULL; the view is valid until the next step().
  std::optional<std::string_view> optional_text(const Column& c) {
    if (!c.present()) return std::nullopt;
    const int type = sqlite3_column_type(stmt_.get(), c.index);
    if (type == SQLITE_NULL) return std::nullopt;
    if (type != SQLITE_TEXT) {
      fail(fmt::format("column '{}' holds {}, expected TEXT", c.name, sqlite_type_name(type)));
      return std::nullopt;
    }
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_.get(), c.index));
    return std::string_view(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt_.get(), c.index)));
  }
  // start and end as start_ns and dur_ns; end before start is a row problem.
  void interval(const Column& start, const Column& end, std::int64_t& start_ns, std::int64_t& dur_ns) {
    start_ns = int_value(start);
    const std::int64_t end_ns = int_value(end);
    if (!ok()) return;
    if (end_ns < start_ns) {
      fail(fmt::format("end {} is before start {}", end_ns, start_ns));
    } else if (__builtin_sub_overflow(end_ns, start_ns, &dur_ns)) {
      fail(fmt::format("end {} minus start {} overflows a 64-bit duration", end_ns, start_ns));
    }
  }

  bool ok() const { return row_problem_.empty(); }
  // Records the row's first problem; later ones would only repeat its consequences.
  void fail(std::string problem) {
    if (ok()) row_problem_ = std::move(problem);
  }
  Error row_error() const {
    return Error{fmt::format("{} table {} row {}: {}", where_, name_, rowid(), row_problem_)};
  }

 private:
  std::int32_t narrow32(const Column& c, std::int64_t v) {
    if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max()) {
      fail(fmt::format("column '{}' value {} does not fit in 32 bits", c.name, v));
      return 0;
    }
    return static_cast<std::int32_t>(v);
  }
  std::uint64_t non_negative(const Column& c, std::int64_t v) {
    if (v < 0) {
      fail(fmt::format("column '{}' is negative ({})", c.name, v));
      return 0;
    }
    return static_cast<std::uint64_t>(v);
  }

  std::string_view where_;
  std::string_view name_;
  StmtHandle stmt_;
  std::vector<std::string> all_columns_;
  std::vector<Column> selected_;
  std::string row_problem_;
};

// How a StringIds value becomes a timeline name.
enum class NameForm { kAsIs, kApi };

// The state of one import: the open database, the StringIds cache and the timeline being built.
class NsysImport {
 public:
  explicit NsysImport(const std::string& path) : path_(path), where_(fmt::format("'{}'", path)) {}

  Result<Timeline> run() && {
    std::error_code ec;
    const std::uintmax_t file_bytes = std::filesystem::file_size(path_, ec);
    if (ec) return Error{fmt::format("{}: cannot read: {}", where_, ec.message())};
    if (file_bytes == 0) return Error{fmt::format("{}: is empty, not an nsys SQLite export", where_)};
    PH_TRY(check_not_truncated(file_bytes));
    PH_TRY(open_database());
    PH_TRY(check_required_tables());

    PH_TRY(read_kernels());
    PH_TRY(read_memcpys());
    PH_TRY(read_memsets());
    PH_TRY(read_runtime());
    PH_TRY(read_syncs());
    PH_TRY(read_nvtx());
    PH_TRY(read_devices());
    if (timeline_.gpu.empty()) {
      return Error{fmt::format("{}: no GPU activity: the kernel, memcpy and memset tables hold no rows (capture "
                               "with nsys profile --trace=cuda)",
                               where_)};
    }

    timeline_.info.format = std::string(kFormatName);
    timeline_.info.source = path_;
    timeline_.stats.bytes_read = file_bytes;
    finalize_timeline(timeline_);
    return std::move(timeline_);
  }

 private:
  // SQLite notices most short files itself ("database disk image is malformed"), not all: with a legacy
  // header it reads the missing tail as zeros. Saying "truncated" with the sizes is also more useful for the
  // common cause, an export or copy cut short. The header's page count is only authoritative when the change
  // counter (offset 24) equals version-valid-for (offset 92) (sqlite.org/fileformat.html, "In-header
  // database size").
  Status check_not_truncated(std::uintmax_t file_bytes) const {
    std::array<unsigned char, 100> header{};
    std::ifstream in(path_, std::ios::binary);
    if (!in.read(reinterpret_cast<char*>(header.data()), header.size())) return Status::success();
    if (std::memcmp(header.data(), kSqliteMagic, sizeof(kSqliteMagic)) != 0) return Status::success();
    auto be32 = [&](std::size_t at) {
      return (std::uint32_t{header[at]} << 24) | (std::uint32_t{header[at + 1]} << 16) |
             (std::uint32_t{header[at + 2]} << 8) | std::uint32_t{header[at + 3]};
    };
    const std::uint32_t raw_page_size = (std::uint32_t{header[16]} << 8) | header[17];
    const std::uint64_t page_size = raw_page_size == 1 ? 65536 : raw_page_size;  // 1 encodes 65536
    const bool valid_page_size = page_size >= 512 && (page_size & (page_size - 1)) == 0;
    if (!valid_page_size) return Status::success();  // corrupt header: sqlite says so when it opens the file
    // A database is a whole number of pages, whatever the header's page count says.
    if (file_bytes % page_size != 0) {
      return Error{fmt::format("{}: truncated SQLite file: {} bytes is not a whole number of {}-byte pages; "
                               "export the report again",
                               where_, file_bytes, page_size)};
    }
    const std::uint64_t pages = be32(28);
    if (pages == 0 || be32(24) != be32(92)) return Status::success();
    if (file_bytes < pages * page_size) {
      return Error{fmt::format("{}: truncated SQLite file: its header says {} pages of {} bytes ({} bytes) but "
                               "the file has {} bytes; export the report again",
                               where_, pages, page_size, pages * page_size, file_bytes)};
    }
    return Status::success();
  }

  Status open_database() {
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(path_.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
    db_.reset(raw);
    if (rc != SQLITE_OK) {
      return Error{fmt::format("{}: cannot open as SQLite: {}", where_,
                               raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc))};
    }
    // The first statement reads the schema, so this is where a file that is not SQLite, or is corrupt, fails.
    auto stmt = prepare("SELECT name FROM sqlite_master WHERE type = 'table'");
    if (!stmt) return not_readable();
    int step_rc = 0;
    while ((step_rc = sqlite3_step(stmt.get())) == SQLITE_ROW) {
      tables_.emplace(reinterpret_cast<const char*>(sqlite3_column_text(stmt.get(), 0)));
    }
    if (step_rc != SQLITE_DONE) return not_readable();
    return Status::success();
  }

  Error not_readable() const {
    return Error{fmt::format("{}: cannot read as an SQLite database: {}", where_, sqlite3_errmsg(db_.get()))};
  }

  bool has_table(std::string_view name) const { return tables_.find(name) != tables_.end(); }

  Status check_required_tables() {
    if (!has_table(kKernelTable) && !has_table(kMemcpyTable) && !has_table(kMemsetTable)) {
      return Error{fmt::format("{}: not an nsys trace with GPU kernels: table {} is missing, and so are {} and {} "
                               "(capture with `nsys profile --trace=cuda` and export with "
                               "`nsys export --type sqlite`)",
                               where_, kKernelTable, kMemcpyTable, kMemsetTable)};
    }
    if (!has_table(kStringIdsTable)) {
      return Error{fmt::format("{}: not an nsys SQLite export: table {} is missing", where_, kStringIdsTable)};
    }
    string_lookup_ = prepare("SELECT value FROM StringIds WHERE id = ?1");
    if (!string_lookup_) {
      return Error{fmt::format("{} table {}: {}", where_, kStringIdsTable, sqlite3_errmsg(db_.get()))};
    }
    return Status::success();
  }

  StmtHandle prepare(const std::string& sql) const {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_.get(), sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr) != SQLITE_OK) {
      sqlite3_finalize(stmt);
      return nullptr;
    }
    return StmtHandle(stmt);
  }

  // The rows of `table` with whichever of `wanted` it has, or nullopt if the export has no such table.
  Result<std::optional<Table>> open_table(std::string_view table, std::initializer_list<std::string_view> wanted) {
    if (!has_table(table)) return std::optional<Table>();
    auto info = prepare("SELECT name FROM pragma_table_info(?1)");
    if (!info) return Error{fmt::format("{} table {}: {}", where_, table, sqlite3_errmsg(db_.get()))};
    sqlite3_bind_text(info.get(), 1, table.data(), static_cast<int>(table.size()), SQLITE_STATIC);
    std::vector<std::string> columns;
    int rc = 0;
    while ((rc = sqlite3_step(info.get())) == SQLITE_ROW) {
      columns.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(info.get(), 0)));
    }
    if (rc != SQLITE_DONE) return Error{fmt::format("{} table {}: {}", where_, table, sqlite3_errmsg(db_.get()))};

    std::string sql = "SELECT rowid";
    std::vector<Column> selected;
    for (const std::string_view name : wanted) {
      if (std::find(columns.begin(), columns.end(), name) == columns.end()) continue;
      selected.push_back(Column{static_cast<int>(selected.size()) + 1, name});
      sql += fmt::format(", \"{}\"", name);  // quoted: "end" is an SQL keyword
    }
    sql += fmt::format(" FROM \"{}\"", table);
    auto stmt = prepare(sql);
    if (!stmt) return Error{fmt::format("{} table {}: {}", where_, table, sqlite3_errmsg(db_.get()))};
    return std::optional<Table>(std::in_place, where_, table, std::move(stmt), std::move(columns),
                                std::move(selected));
  }

  // StringIds[id] as an interned name, cached: a trace names a few thousand strings millions of times, and
  // StringIds.id is the rowid, so a miss is one b-tree lookup. A missing id is a row problem of `table`.
  StringId nsys_string(Table& table, const Column& column, std::int64_t id, NameForm form) {
    auto& cache = form == NameForm::kApi ? api_names_ : names_;
    if (const auto it = cache.find(id); it != cache.end()) return it->second;
    sqlite3_stmt* lookup = string_lookup_.get();
    sqlite3_reset(lookup);
    sqlite3_bind_int64(lookup, 1, id);
    const int rc = sqlite3_step(lookup);
    if (rc == SQLITE_DONE) {
      table.fail(fmt::format("column '{}' refers to id {}, which is not in {}", column.name, id, kStringIdsTable));
      return 0;
    }
    if (rc != SQLITE_ROW) {
      table.fail(fmt::format("cannot read {} id {}: {}", kStringIdsTable, id, sqlite3_errmsg(db_.get())));
      return 0;
    }
    if (sqlite3_column_type(lookup, 0) != SQLITE_TEXT) {
      table.fail(fmt::format("column '{}' refers to {} id {}, whose value is not TEXT", column.name,
                             kStringIdsTable, id));
      return 0;
    }
    std::string_view text(reinterpret_cast<const char*>(sqlite3_column_text(lookup, 0)),
                          static_cast<std::size_t>(sqlite3_column_bytes(lookup, 0)));
    if (form == NameForm::kApi) text = strip_nsys_api_version(text);
    const StringId interned = timeline_.strings.intern(text);
    cache.emplace(id, interned);
    return interned;
  }

  // Steps through every row of `table`, calling read_row(table) for each, and stops at the first bad row.
  template <class ReadRow>
  Status for_each_row(Table& table, ReadRow read_row) {
    while (true) {
      PH_ASSIGN_OR_RETURN(const bool has_row, table.step());
      if (!has_row) return Status::success();
      ++timeline_.stats.events_read;
      read_row(table);
      if (!table.ok()) return table.row_error();
    }
  }

  // The columns every GPU activity table shares, and the part of a GpuActivity they fill.
  struct GpuColumns {
    Column start, end, device, stream, correlation;

    static Result<GpuColumns> of(Table& t) {
      GpuColumns c;
      PH_ASSIGN_OR_RETURN(c.start, t.require("start"));
      PH_ASSIGN_OR_RETURN(c.end, t.require("end"));
      PH_ASSIGN_OR_RETURN(c.device, t.require("deviceId"));
      PH_ASSIGN_OR_RETURN(c.stream, t.require("streamId"));
      c.correlation = t.column("correlationId");
      return c;
    }

    GpuActivity read(Table& row, GpuKind kind) const {
      GpuActivity a;
      a.kind = kind;
      row.interval(start, end, a.start_ns, a.dur_ns);
      a.device = row.int32_value(device);
      a.stream = row.int_value(stream);
      a.correlation = row.optional_int(correlation).value_or(-1);
      return a;
    }
  };

  Status read_kernels() {
    PH_ASSIGN_OR_RETURN(auto opened, open_table(kKernelTable, {"start", "end", "deviceId", "streamId",
                                                               "correlationId", "demangledName", "shortName"}));
    if (!opened) return Status::success();
    Table& t = *opened;
    PH_ASSIGN_OR_RETURN(const GpuColumns gpu, GpuColumns::of(t));
    const Column demangled = t.column("demangledName");
    const Column short_name = t.column("shortName");
    if (!demangled.present() && !short_name.present()) return t.missing_column_error("demangledName");
    return for_each_row(t, [&](Table& row) {
      GpuActivity a = gpu.read(row, GpuKind::kKernel);
      Column name_column = demangled;
      auto name_id = row.optional_int(demangled);
      if (!name_id) {
        name_column = short_name;
        name_id = row.optional_int(short_name);
      }
      if (!name_id) {
        row.fail(fmt::format("column '{}' is NULL", demangled.present() ? demangled.name : short_name.name));
        return;
      }
      a.name = nsys_string(row, name_column, *name_id, NameForm::kAsIs);
      timeline_.gpu.push_back(a);
    });
  }

  StringId memcpy_name(std::int64_t copy_kind, std::optional<std::int64_t> src, std::optional<std::int64_t> dst) {
    const std::size_t k = copy_label_index(copy_kind);
    const std::size_t s = memory_label_index(src);
    const std::size_t d = memory_label_index(dst);
    const std::size_t key = (k * kMemoryKindLabels.size() + s) * kMemoryKindLabels.size() + d;
    if (const auto it = memcpy_names_.find(key); it != memcpy_names_.end()) return it->second;
    const StringId id = timeline_.strings.intern(
        fmt::format("Memcpy {} ({} -> {})", kCopyKindLabels[k], kMemoryKindLabels[s], kMemoryKindLabels[d]));
    memcpy_names_.emplace(key, id);
    return id;
  }

  Status read_memcpys() {
    PH_ASSIGN_OR_RETURN(auto opened, open_table(kMemcpyTable, {"start", "end", "deviceId", "streamId",
                                                               "correlationId", "bytes", "copyKind", "srcKind",
                                                               "dstKind"}));
    if (!opened) return Status::success();
    Table& t = *opened;
    PH_ASSIGN_OR_RETURN(const GpuColumns gpu, GpuColumns::of(t));
    PH_ASSIGN_OR_RETURN(const Column bytes, t.require("bytes"));
    PH_ASSIGN_OR_RETURN(const Column copy_kind, t.require("copyKind"));
    const Column src_kind = t.column("srcKind");
    const Column dst_kind = t.column("dstKind");
    return for_each_row(t, [&](Table& row) {
      GpuActivity a = gpu.read(row, GpuKind::kMemcpy);
      a.bytes = row.bytes_value(bytes);
      const std::int64_t kind = row.int_value(copy_kind);
      const auto src = row.optional_int(src_kind);
      const auto dst = row.optional_int(dst_kind);
      if (!row.ok()) return;
      a.direction = copy_direction(kind);
      a.src_memory = memory_kind(src);
      a.dst_memory = memory_kind(dst);
      a.name = memcpy_name(kind, src, dst);
      timeline_.gpu.push_back(a);
    });
  }

  Status read_memsets() {
    PH_ASSIGN_OR_RETURN(auto opened, open_table(kMemsetTable, {"start", "end", "deviceId", "streamId",
                                                               "correlationId", "bytes", "memKind"}));
    if (!opened) return Status::success();
    Table& t = *opened;
    PH_ASSIGN_OR_RETURN(const GpuColumns gpu, GpuColumns::of(t));
    PH_ASSIGN_OR_RETURN(const Column bytes, t.require("bytes"));
    const Column mem_kind = t.column("memKind");
    std::array<StringId, kMemoryKindLabels.size()> names{};
    for (std::size_t i = 0; i < names.size(); ++i) {
      names[i] = timeline_.strings.intern(fmt::format("Memset ({})", kMemoryKindLabels[i]));
    }
    return for_each_row(t, [&](Table& row) {
      GpuActivity a = gpu.read(row, GpuKind::kMemset);
      a.bytes = row.bytes_value(bytes);
      const auto kind = row.optional_int(mem_kind);
      if (!row.ok()) return;
      a.name = names[memory_label_index(kind)];
      timeline_.gpu.push_back(a);
    });
  }

  Status read_runtime() {
    PH_ASSIGN_OR_RETURN(auto opened, open_table(kRuntimeTable, {"start", "end", "eventClass", "globalTid",
                                                                "correlationId", "nameId"}));
    if (!opened) return Status::success();
    Table& t = *opened;
    PH_ASSIGN_OR_RETURN(const Column start, t.require("start"));
    PH_ASSIGN_OR_RETURN(const Column end, t.require("end"));
    PH_ASSIGN_OR_RETURN(const Column name_id, t.require("nameId"));
    const Column event_class = t.column("eventClass");
    const Column global_tid = t.column("globalTid");
    const Column correlation = t.column("correlationId");
    return for_each_row(t, [&](Table& row) {
      HostEvent e;
      row.interval(start, end, e.start_ns, e.dur_ns);
      e.correlation = row.optional_int(correlation).value_or(-1);
      set_thread(e, row.optional_int(global_tid));
      e.name = nsys_string(row, name_id, row.int_value(name_id), NameForm::kApi);
      if (!row.ok()) return;
      if (event_class.present()) {
        const std::int64_t cls = row.int_value(event_class);
        if (!row.ok()) return;
        if (cls == kEventClassCudaRuntime) {
          e.kind = HostKind::kRuntime;
        } else if (cls == kEventClassCudaDriver) {
          e.kind = HostKind::kDriver;
        } else {
          ++timeline_.stats.unknown_categories[fmt::format("{} eventClass {}", kRuntimeTable, cls)];
          return;
        }
      } else {
        // Exports without eventClass: the API family shows in the name (runtime cuda*, driver cu*).
        const std::string_view name = timeline_.name(e.name);
        const bool driver = name.starts_with("cu") && !name.starts_with("cuda");
        e.kind = driver ? HostKind::kDriver : HostKind::kRuntime;
      }
      timeline_.host.push_back(e);
    });
  }

  Status read_syncs() {
    PH_ASSIGN_OR_RETURN(auto opened,
                        open_table(kSyncTable, {"start", "end", "globalPid", "correlationId", "syncType"}));
    if (!opened) return Status::success();
    Table& t = *opened;
    PH_ASSIGN_OR_RETURN(const Column start, t.require("start"));
    PH_ASSIGN_OR_RETURN(const Column end, t.require("end"));
    PH_ASSIGN_OR_RETURN(const Column sync_type, t.require("syncType"));
    const Column global_pid = t.column("globalPid");
    const Column correlation = t.column("correlationId");
    std::array<StringId, kSyncTypeLabels.size()> names{};
    for (std::size_t i = 0; i < names.size(); ++i) names[i] = timeline_.strings.intern(kSyncTypeLabels[i]);
    return for_each_row(t, [&](Table& row) {
      HostEvent e;
      e.kind = HostKind::kSync;
      row.interval(start, end, e.start_ns, e.dur_ns);
      e.correlation = row.optional_int(correlation).value_or(-1);
      const auto pid = row.optional_int(global_pid);
      e.pid = pid ? decode_nsys_global_id(*pid).pid : -1;
      e.tid = -1;  // the table records the waiting process, not the thread
      const std::int64_t type = row.int_value(sync_type);
      if (!row.ok()) return;
      e.name = timeline_.strings.intern(sync_label(type));
      timeline_.host.push_back(e);
    });
  }

  Status read_nvtx() {
    PH_ASSIGN_OR_RETURN(auto opened,
                        open_table(kNvtxTable, {"start", "end", "eventType", "text", "textId", "globalTid"}));
    if (!opened) return Status::success();
    Table& t = *opened;
    PH_ASSIGN_OR_RETURN(const Column start, t.require("start"));
    PH_ASSIGN_OR_RETURN(const Column event_type, t.require("eventType"));
    const Column end = t.column("end");
    const Column text = t.column("text");
    const Column text_id = t.column("textId");
    const Column global_tid = t.column("globalTid");
    return for_each_row(t, [&](Table& row) {
      const std::int64_t type = row.int_value(event_type);
      const bool range = type == kNvtxPushPopRange || type == kNvtxStartEndRange;
      // A range still open when capture stopped has no end; it has no duration to report.
      if (!row.ok() || !range || !row.optional_int(end)) {
        if (row.ok()) ++timeline_.stats.events_ignored;
        return;
      }
      HostEvent e;
      e.kind = HostKind::kUserAnnotation;
      row.interval(start, end, e.start_ns, e.dur_ns);
      set_thread(e, row.optional_int(global_tid));
      if (const auto inline_text = row.optional_text(text)) {
        e.name = timeline_.strings.intern(*inline_text);
      } else if (const auto id = row.optional_int(text_id)) {
        e.name = nsys_string(row, text_id, *id, NameForm::kAsIs);
      }  // else an unnamed range: name 0, the empty string
      if (!row.ok()) return;
      timeline_.host.push_back(e);
    });
  }

  Status read_devices() {
    std::vector<DeviceInfo>& devices = timeline_.info.devices;
    auto find_device = [&](std::int32_t id) {
      return std::find_if(devices.begin(), devices.end(), [&](const DeviceInfo& d) { return d.id == id; });
    };
    PH_ASSIGN_OR_RETURN(auto gpu_info, open_table(kGpuInfoTable, {"id", "name", "smCount", "totalMemory",
                                                                  "computeMajor", "computeMinor"}));
    if (gpu_info) {
      Table& t = *gpu_info;
      PH_ASSIGN_OR_RETURN(const Column id, t.require("id"));
      const Column name = t.column("name"), sm_count = t.column("smCount"), memory = t.column("totalMemory");
      const Column major = t.column("computeMajor"), minor = t.column("computeMinor");
      while (true) {
        PH_ASSIGN_OR_RETURN(const bool has_row, t.step());
        if (!has_row) break;
        DeviceInfo d;
        d.id = t.int32_value(id);
        d.name = std::string(t.optional_text(name).value_or(""));
        d.sm_count = t.optional_int32(sm_count).value_or(0);
        d.memory_bytes = t.optional_bytes(memory).value_or(0);
        d.compute_major = t.optional_int32(major).value_or(0);
        d.compute_minor = t.optional_int32(minor).value_or(0);
        if (!t.ok()) return t.row_error();
        // One row per GPU per VM; the same GPU seen twice is described once.
        if (find_device(d.id) == devices.end()) devices.push_back(std::move(d));
      }
    }
    // Per-process CUDA view of the GPUs: fills in what TARGET_INFO_GPU lacks (or is absent for). gpuId is the
    // TARGET_INFO_GPU id, which is what the activity tables' deviceId holds.
    PH_ASSIGN_OR_RETURN(auto cuda_info, open_table(kCudaDeviceTable, {"gpuId", "cudaId", "numMultiprocessors"}));
    if (cuda_info) {
      Table& t = *cuda_info;
      PH_ASSIGN_OR_RETURN(const Column cuda_id, t.require("cudaId"));
      const Column gpu_id = t.column("gpuId"), sm_count = t.column("numMultiprocessors");
      while (true) {
        PH_ASSIGN_OR_RETURN(const bool has_row, t.step());
        if (!has_row) break;
        const std::int32_t cuda = t.int32_value(cuda_id);
        const std::int32_t id = t.optional_int32(gpu_id).value_or(cuda);
        const std::int32_t sms = t.optional_int32(sm_count).value_or(0);
        if (!t.ok()) return t.row_error();
        auto it = find_device(id);
        if (it == devices.end()) {
          DeviceInfo d;
          d.id = id;
          devices.push_back(std::move(d));
          it = devices.end() - 1;
        }
        if (it->sm_count == 0) it->sm_count = sms;
      }
    }
    std::sort(devices.begin(), devices.end(), [](const DeviceInfo& a, const DeviceInfo& b) { return a.id < b.id; });
    return Status::success();
  }

  static void set_thread(HostEvent& e, std::optional<std::int64_t> global_tid) {
    if (!global_tid) {
      e.pid = -1;
      e.tid = -1;
      return;
    }
    const NsysGlobalId decoded = decode_nsys_global_id(*global_tid);
    e.pid = decoded.pid;
    e.tid = decoded.tid;
  }

  const std::string& path_;
  std::string where_;  // "'path'", the head of every message
  DbHandle db_;
  StmtHandle string_lookup_;  // declared after db_: finalized before the database closes
  std::set<std::string, std::less<>> tables_;
  std::unordered_map<std::int64_t, StringId> names_;      // StringIds id -> interned text
  std::unordered_map<std::int64_t, StringId> api_names_;  // StringIds id -> interned text without "_v7000"
  std::unordered_map<std::size_t, StringId> memcpy_names_;
  Timeline timeline_;
};

class NsysSqliteImporter final : public TraceImporter {
 public:
  std::string_view format_name() const override { return kFormatName; }
  bool recognizes(std::span<const std::uint8_t> head) const override {
    return head.size() >= sizeof(kSqliteMagic) && std::memcmp(head.data(), kSqliteMagic, sizeof(kSqliteMagic)) == 0;
  }
  Result<Timeline> import(const std::string& path) const override { return NsysImport(path).run(); }
};

}  // namespace

NsysGlobalId decode_nsys_global_id(std::int64_t global_id) {
  // Unsigned: a hardware id of 128 or more sets the sign bit of the stored INTEGER.
  const auto bits = static_cast<std::uint64_t>(global_id);
  return NsysGlobalId{.pid = static_cast<std::int64_t>(bits / kGlobalIdFieldSpan % kGlobalIdFieldSpan),
                      .tid = static_cast<std::int64_t>(bits % kGlobalIdFieldSpan)};
}

std::string_view strip_nsys_api_version(std::string_view name) {
  // nsys suffixes are the CUDA version that introduced the call, CUDA_VERSION style (3020 = 3.2,
  // 10000 = 10.0): at least four digits. "_v2" in cuMemAlloc_v2 is part of the symbol (cuda.h maps
  // cuMemAlloc to it) and stays.
  constexpr std::size_t kMinVersionDigits = 4;
  const std::size_t marker = name.rfind("_v");
  if (marker == std::string_view::npos) return name;
  const std::string_view digits = name.substr(marker + 2);
  if (digits.size() < kMinVersionDigits) return name;
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return name;
  return name.substr(0, marker);
}

std::unique_ptr<TraceImporter> make_nsys_sqlite_importer() { return std::make_unique<NsysSqliteImporter>(); }

}  // namespace perfhound::trace
