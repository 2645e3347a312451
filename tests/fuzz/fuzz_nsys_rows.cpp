// libFuzzer target: the nsys SQLite importer's row handling. The input is not a database file (SQLite's page
// checks reject nearly every mutation of one before a row is read) but the rows: a database with the tables of a
// real export (tests/trace/nsys_test_schema.h, plus TARGET_INFO_GPU and the rest) is filled with values the input
// chooses, in any column: NULL, integers of every size and sign, reals (NaN and infinities too), text and blobs,
// and small ids that hit StringIds. Then perfhound trace's importer reads it. NOT NULL columns refuse a NULL, as
// a real export never has one; every other oddity is the importer's to handle.
#include <sqlite3.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "trace/importer.h"
#include "trace/nsys_test_schema.h"

namespace {

struct Cursor {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t pos = 0;
  bool more() const { return pos < size; }
  std::uint8_t byte() { return pos < size ? data[pos++] : 0; }
  std::uint64_t word() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | byte();
    return v;
  }
};

// The column count of each table, read back from SQLite so the schemas stay the only place they are written.
int column_count(sqlite3* db, const std::string& table) {
  sqlite3_stmt* stmt = nullptr;
  int n = 0;
  if (sqlite3_prepare_v2(db, ("PRAGMA table_info(" + table + ")").c_str(), -1, &stmt, nullptr) == SQLITE_OK) {
    while (sqlite3_step(stmt) == SQLITE_ROW) ++n;
  }
  sqlite3_finalize(stmt);
  return n;
}

std::string table_name(const char* schema) {
  const std::string s(schema);
  const std::size_t start = std::strlen("CREATE TABLE ");
  return s.substr(start, s.find(' ', start) - start);
}

void bind_value(sqlite3_stmt* stmt, int column, Cursor& in) {
  switch (in.byte() % 7) {
    case 0: sqlite3_bind_null(stmt, column); break;
    case 1: sqlite3_bind_int64(stmt, column, static_cast<std::int8_t>(in.byte())); break;
    case 2: sqlite3_bind_int64(stmt, column, static_cast<std::int64_t>(in.word())); break;
    case 3: {
      const std::uint64_t bits = in.word();
      double d;
      std::memcpy(&d, &bits, sizeof d);
      sqlite3_bind_double(stmt, column, d);
      break;
    }
    case 4: {
      std::string text;
      for (std::uint8_t n = in.byte() % 48; n > 0 && in.more(); --n) text.push_back(static_cast<char>(in.byte()));
      sqlite3_bind_text(stmt, column, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
      break;
    }
    case 5: {
      const std::uint8_t n = in.byte() % 16;
      std::vector<std::uint8_t> blob;
      for (std::uint8_t i = 0; i < n && in.more(); ++i) blob.push_back(in.byte());
      sqlite3_bind_blob(stmt, column, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
      break;
    }
    default: sqlite3_bind_int64(stmt, column, in.byte() % 8); break;  // an id StringIds may hold, a small time
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/perfhound-fuzz-nsys-" + std::to_string(::getpid()) + ".sqlite";
  ::unlink(path.c_str());
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
    sqlite3_close(db);
    return 0;
  }
  sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;", nullptr, nullptr, nullptr);
  std::vector<std::string> tables;
  for (const char* schema : perfhound::trace::kAllNsysSchemas) {
    sqlite3_exec(db, schema, nullptr, nullptr, nullptr);
    tables.push_back(table_name(schema));
  }
  sqlite3_exec(db, perfhound::trace::kOtherTables, nullptr, nullptr, nullptr);
  Cursor in{data, size};
  for (int rows = 0; in.more() && rows < 256; ++rows) {
    const std::string& table = tables[in.byte() % tables.size()];
    const int columns = column_count(db, table);
    std::string sql = "INSERT INTO " + table + " VALUES (";
    for (int c = 0; c < columns; ++c) sql += c == 0 ? "?" : ", ?";
    sql += ")";
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK) {
      for (int c = 1; c <= columns; ++c) bind_value(stmt, c, in);
      sqlite3_step(stmt);  // a NOT NULL or primary-key refusal leaves the row out
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_exec(db, "COMMIT;", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  const auto timeline = perfhound::trace::import_trace(path);
  static_cast<void>(timeline);
  return 0;
}
