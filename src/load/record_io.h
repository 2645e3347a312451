// Per-request records on disk: streaming JSONL and CSV writers, and the JSONL reader (`perfhound load
// --records FILE`, and the analyses that re-read a run).
//
// JSONL (schema_version 1): the first line is
//   {"schema_version":1,"kind":"perfhound.load.records","header":<the header given to open()>}
// then one object per record, fields in this order:
//   index, warmup, intended_ns, sent_ns, first_byte_ns, first_token_ns, end_ns, http_status,
//   error (error_kind_name), error_message (only when non-empty), input_tokens, max_tokens,
//   usage_prompt_tokens, usage_completion_tokens, output_tokens, bytes_received, chunk_ns (array)
// Times are integer nanoseconds relative to the run start, exactly as in RequestRecord (-1: did not happen).
// output_tokens is RequestRecord::output_tokens(), derived, written for readers' convenience.
//
// CSV: a header row with the same columns (error_message always present, empty when none), then one row per
// record; warmup is true/false, chunk_ns holds the times separated by ';'. Fields with a comma, quote, CR or
// LF are quoted with quotes doubled (RFC 4180); rows end in LF. CSV has no room for the run header: use
// JSONL when the run's provenance must travel with the records.
//
// Every write() hands its whole line to the OS before returning (one write(2)), so records already written
// survive a crash or Ctrl-C. Strings are written as UTF-8; invalid bytes in a message become U+FFFD in JSONL.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/result.h"
#include "load/request_record.h"

namespace perfhound::load {

inline constexpr int kRecordsSchemaVersion = 1;
inline constexpr std::string_view kRecordsKind = "perfhound.load.records";

enum class RecordFormat { kJsonl, kCsv };

// By extension, case-insensitively: .jsonl / .ndjson -> kJsonl, .csv -> kCsv; anything else is an error that
// names the path and the accepted extensions.
core::Result<RecordFormat> record_format_for_path(std::string_view path);

class RecordWriter {
 public:
  // Creates or truncates `path` and writes the first line (JSONL envelope with `header`, or the CSV column
  // row; CSV ignores `header`). Errors name the path and the OS reason.
  static core::Result<RecordWriter> open(const std::string& path, RecordFormat format,
                                         const nlohmann::ordered_json& header);

  RecordWriter(RecordWriter&& other) noexcept;
  RecordWriter& operator=(RecordWriter&& other) noexcept;
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;
  ~RecordWriter();  // closes, ignoring errors: call close() to see them

  // Appends one record. After an error (e.g. disk full) the file may end in a partial line; later writes
  // keep trying. Writing to a closed writer is an error.
  core::Status write(const RequestRecord& record);
  // Closes the file; idempotent. Errors name the path.
  core::Status close();

  std::uint64_t written() const { return written_; }  // records written successfully
  const std::string& path() const { return path_; }

 private:
  RecordWriter(std::string path, RecordFormat format, int fd);
  core::Status flush_line();

  std::string path_;
  RecordFormat format_ = RecordFormat::kJsonl;
  int fd_ = -1;
  std::uint64_t written_ = 0;
  fmt::memory_buffer line_;  // the line being formatted, reused
};

// One record as its JSONL line (newline included), as RecordWriter writes it; and one line (without the
// newline) back, with the reader's checks. Errors say what is wrong, not where: the caller adds that. Also how
// records travel between MPI ranks.
void append_record_jsonl(fmt::memory_buffer& out, const RequestRecord& record);
core::Result<RequestRecord> parse_record_line(std::string_view line);

// Reads a JSONL records file written by RecordWriter. The header line must have schema_version 1 and kind
// perfhound.load.records; *header (when given) receives its "header" object. Every record field but
// error_message (optional, default empty) and output_tokens (derived, ignored) is required; unknown fields
// are ignored. Errors: "'<path>' line N: <what>" for a line that is not JSON, not an object, lacks a field or
// has one of the wrong type or range (e.g. an unknown error kind); "'<path>': ..." when it cannot be read.
core::Result<std::vector<RequestRecord>> read_records_jsonl(const std::string& path,
                                                            nlohmann::ordered_json* header = nullptr);

}  // namespace perfhound::load
