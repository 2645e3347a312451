#include "load/record_io.h"
#include "core/json_error.h"
#include "core/json_type_name.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <utility>

namespace perfhound::load {
namespace {

using core::Error;
using core::Result;
using core::Status;
using nlohmann::json;

constexpr std::string_view kCsvHeader =
    "index,warmup,intended_ns,sent_ns,first_byte_ns,first_token_ns,end_ns,http_status,error,error_message,"
    "input_tokens,max_tokens,usage_prompt_tokens,usage_completion_tokens,output_tokens,bytes_received,"
    "chunk_ns\n";

bool ends_with_ci(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  for (std::size_t i = 0; i < suffix.size(); ++i) {
    char c = s[s.size() - suffix.size() + i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != suffix[i]) return false;
  }
  return true;
}

// Writes all of [data, data + n); returns 0 or the errno that stopped it.
int write_all(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += w;
    n -= static_cast<std::size_t>(w);
  }
  return 0;
}

// RFC 4180: a field holding a comma, quote, CR or LF is quoted, its quotes doubled.
void append_csv_field(fmt::memory_buffer& out, std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
    out.append(s);
    return;
  }
  out.push_back('"');
  for (const char c : s) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
}

void append_ints(fmt::memory_buffer& out, const std::vector<std::int64_t>& values, char separator) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out.push_back(separator);
    const fmt::format_int text(values[i]);
    out.append(text.data(), text.data() + text.size());
  }
}

// JSON string with invalid UTF-8 replaced by U+FFFD, so the reader (and any JSON tool) can parse the line.
// Only error messages and the header go through here, never the per-chunk data.
std::string json_string(const std::string& s) {
  return json(s).dump(-1, ' ', false, json::error_handler_t::replace);
}

// ---- reading


Result<const json*> field(const json& obj, const char* name) {
  const auto it = obj.find(name);
  if (it == obj.end()) return Error{fmt::format("missing field '{}'", name)};
  return &*it;
}

Status to_int64(const json& v, std::string_view name, std::int64_t& out) {
  if (!v.is_number_integer()) return Error{fmt::format("field '{}' must be an integer, got {}", name, core::json_type_name(v))};
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
    return Error{fmt::format("field '{}' is out of range: {}", name, v.dump())};
  }
  out = v.get<std::int64_t>();
  return {};
}

Status read_int64(const json& obj, const char* name, std::int64_t& out) {
  PH_ASSIGN_OR_RETURN(const json* v, field(obj, name));
  return to_int64(*v, name, out);
}

Status read_record(const json& obj, RequestRecord& r) {
  if (!obj.is_object()) return Error{fmt::format("expected a JSON object, got {}", core::json_type_name(obj))};

  PH_ASSIGN_OR_RETURN(const json* index, field(obj, "index"));
  if (!index->is_number_unsigned()) {
    return Error{fmt::format("field 'index' must be an integer >= 0, got {}", index->dump())};
  }
  r.index = index->get<std::uint64_t>();

  PH_ASSIGN_OR_RETURN(const json* warmup, field(obj, "warmup"));
  if (!warmup->is_boolean()) {
    return Error{fmt::format("field 'warmup' must be true or false, got {}", core::json_type_name(*warmup))};
  }
  r.warmup = warmup->get<bool>();

  PH_TRY(read_int64(obj, "intended_ns", r.intended_ns));
  PH_TRY(read_int64(obj, "sent_ns", r.sent_ns));
  PH_TRY(read_int64(obj, "first_byte_ns", r.first_byte_ns));
  PH_TRY(read_int64(obj, "first_token_ns", r.first_token_ns));
  PH_TRY(read_int64(obj, "end_ns", r.end_ns));

  std::int64_t status = 0;
  PH_TRY(read_int64(obj, "http_status", status));
  if (status < 0 || status > 999) return Error{fmt::format("field 'http_status' must be 0..999, got {}", status)};
  r.http_status = static_cast<int>(status);

  PH_ASSIGN_OR_RETURN(const json* error, field(obj, "error"));
  if (!error->is_string()) return Error{fmt::format("field 'error' must be a string, got {}", core::json_type_name(*error))};
  if (!parse_error_kind(error->get_ref<const std::string&>(), r.error)) {
    return Error{fmt::format("field 'error': unknown error kind {}", error->dump())};
  }
  r.error_message.clear();
  if (const auto it = obj.find("error_message"); it != obj.end()) {
    if (!it->is_string()) {
      return Error{fmt::format("field 'error_message' must be a string, got {}", core::json_type_name(*it))};
    }
    r.error_message = it->get<std::string>();
  }

  PH_TRY(read_int64(obj, "input_tokens", r.input_tokens));
  PH_TRY(read_int64(obj, "max_tokens", r.max_tokens));
  PH_TRY(read_int64(obj, "usage_prompt_tokens", r.usage_prompt_tokens));
  PH_TRY(read_int64(obj, "usage_completion_tokens", r.usage_completion_tokens));
  PH_TRY(read_int64(obj, "bytes_received", r.bytes_received));

  PH_ASSIGN_OR_RETURN(const json* chunks, field(obj, "chunk_ns"));
  if (!chunks->is_array()) {
    return Error{fmt::format("field 'chunk_ns' must be an array of integers, got {}", core::json_type_name(*chunks))};
  }
  r.chunk_ns.resize(chunks->size());
  for (std::size_t i = 0; i < chunks->size(); ++i) {
    PH_TRY(to_int64((*chunks)[i], fmt::format("chunk_ns[{}]", i), r.chunk_ns[i]));
  }
  return {};
}

Status read_envelope(const nlohmann::ordered_json& first, nlohmann::ordered_json* header) {
  const auto kind = first.is_object() ? first.find("kind") : first.end();
  if (kind == first.end() || !kind->is_string() || kind->get_ref<const std::string&>() != kRecordsKind) {
    return Error{fmt::format("not a perfhound load records file (the first line must be an object with "
                             "\"kind\":\"{}\")", kRecordsKind)};
  }
  const auto version = first.find("schema_version");
  if (version == first.end()) return Error{"missing field 'schema_version'"};
  if (!version->is_number_integer() || *version != kRecordsSchemaVersion) {
    return Error{fmt::format("schema_version {} is not supported (this perfhound reads {})", version->dump(),
                             kRecordsSchemaVersion)};
  }
  const auto h = first.find("header");
  if (h == first.end()) return Error{"missing field 'header'"};
  if (header != nullptr) *header = *h;
  return {};
}

// The start of a bad line, quoted, for an error message.
std::string quote_start(std::string_view line) {
  constexpr std::size_t kQuoteBytes = 60;
  return fmt::format("{:?}{}", line.substr(0, kQuoteBytes), line.size() > kQuoteBytes ? "..." : "");
}

Error not_json(const json::exception& e, std::string_view line) {
  const auto byte = core::json_error_byte(e);
  return Error{fmt::format("not JSON ({}): {}", byte ? fmt::format("byte {}", *byte) : core::json_error_text(e),
                           quote_start(line))};
}

}  // namespace

Result<RequestRecord> parse_record_line(std::string_view line) {
  if (line.empty()) return Error{"empty line (each line must be one JSON object)"};
  RequestRecord record;
  try {
    PH_TRY(read_record(json::parse(line.begin(), line.end()), record));
  } catch (const json::exception& e) {
    return not_json(e, line);
  }
  return record;
}

void append_record_jsonl(fmt::memory_buffer& out_buffer, const RequestRecord& r) {
  auto out = std::back_inserter(out_buffer);
  fmt::format_to(out,
                 "{{\"index\":{},\"warmup\":{},\"intended_ns\":{},\"sent_ns\":{},\"first_byte_ns\":{},"
                 "\"first_token_ns\":{},\"end_ns\":{},\"http_status\":{},\"error\":\"{}\"",
                 r.index, r.warmup, r.intended_ns, r.sent_ns, r.first_byte_ns, r.first_token_ns, r.end_ns,
                 r.http_status, error_kind_name(r.error));
  if (!r.error_message.empty()) fmt::format_to(out, ",\"error_message\":{}", json_string(r.error_message));
  fmt::format_to(out,
                 ",\"input_tokens\":{},\"max_tokens\":{},\"usage_prompt_tokens\":{},"
                 "\"usage_completion_tokens\":{},\"output_tokens\":{},\"bytes_received\":{},\"chunk_ns\":[",
                 r.input_tokens, r.max_tokens, r.usage_prompt_tokens, r.usage_completion_tokens,
                 r.output_tokens(), r.bytes_received);
  append_ints(out_buffer, r.chunk_ns, ',');
  out_buffer.append(std::string_view("]}\n"));
}

Result<RecordFormat> record_format_for_path(std::string_view path) {
  if (ends_with_ci(path, ".jsonl") || ends_with_ci(path, ".ndjson")) return RecordFormat::kJsonl;
  if (ends_with_ci(path, ".csv")) return RecordFormat::kCsv;
  return Error{fmt::format("'{}': cannot tell the records format from the file name (use a .jsonl, .ndjson or "
                           ".csv extension)", path)};
}

RecordWriter::RecordWriter(std::string path, RecordFormat format, int fd)
    : path_(std::move(path)), format_(format), fd_(fd) {}

RecordWriter::RecordWriter(RecordWriter&& other) noexcept
    : path_(std::move(other.path_)),
      format_(other.format_),
      fd_(std::exchange(other.fd_, -1)),
      written_(other.written_),
      line_(std::move(other.line_)) {}

RecordWriter& RecordWriter::operator=(RecordWriter&& other) noexcept {
  if (this != &other) {
    (void)close();
    path_ = std::move(other.path_);
    format_ = other.format_;
    fd_ = std::exchange(other.fd_, -1);
    written_ = other.written_;
    line_ = std::move(other.line_);
  }
  return *this;
}

RecordWriter::~RecordWriter() { (void)close(); }

Result<RecordWriter> RecordWriter::open(const std::string& path, RecordFormat format,
                                        const nlohmann::ordered_json& header) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Error{fmt::format("cannot open '{}' for writing: {}", path, std::strerror(errno))};
  RecordWriter writer(path, format, fd);
  if (format == RecordFormat::kJsonl) {
    nlohmann::ordered_json envelope;
    envelope["schema_version"] = kRecordsSchemaVersion;
    envelope["kind"] = kRecordsKind;
    envelope["header"] = header;
    writer.line_.append(envelope.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    writer.line_.push_back('\n');
  } else {
    writer.line_.append(kCsvHeader);
  }
  PH_TRY(writer.flush_line());
  return writer;
}

Status RecordWriter::flush_line() {
  const int err = write_all(fd_, line_.data(), line_.size());
  line_.clear();
  if (err != 0) return Error{fmt::format("cannot write '{}': {}", path_, std::strerror(err))};
  return {};
}

Status RecordWriter::write(const RequestRecord& r) {
  if (fd_ < 0) return Error{fmt::format("cannot write '{}': the records file is closed", path_)};
  line_.clear();
  auto out = std::back_inserter(line_);
  if (format_ == RecordFormat::kJsonl) {
    append_record_jsonl(line_, r);
  } else {
    fmt::format_to(out, "{},{},{},{},{},{},{},{},{},", r.index, r.warmup, r.intended_ns, r.sent_ns,
                   r.first_byte_ns, r.first_token_ns, r.end_ns, r.http_status, error_kind_name(r.error));
    append_csv_field(line_, r.error_message);
    fmt::format_to(out, ",{},{},{},{},{},{},", r.input_tokens, r.max_tokens, r.usage_prompt_tokens,
                   r.usage_completion_tokens, r.output_tokens(), r.bytes_received);
    append_ints(line_, r.chunk_ns, ';');
    line_.push_back('\n');
  }
  PH_TRY(flush_line());
  ++written_;
  return {};
}

Status RecordWriter::close() {
  if (fd_ < 0) return {};
  // close(2) can report a deferred write error (NFS, quota); a retry after EINTR is unsafe on Linux.
  const int rc = ::close(std::exchange(fd_, -1));
  if (rc != 0) return Error{fmt::format("cannot write '{}': {}", path_, std::strerror(errno))};
  return {};
}

Result<std::vector<RequestRecord>> read_records_jsonl(const std::string& path, nlohmann::ordered_json* header) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) return Error{fmt::format("cannot open '{}': {}", path, std::strerror(errno))};
  char* raw = nullptr;  // getline's buffer, grown by it and reused for every line
  std::size_t capacity = 0;
  struct FreeLine {
    char*& p;
    ~FreeLine() { std::free(p); }
  } free_line{raw};
  std::vector<RequestRecord> records;
  std::size_t line_no = 0;
  while (true) {
    errno = 0;
    const ssize_t n = ::getline(&raw, &capacity, file.get());
    if (n < 0) break;
    ++line_no;
    std::string_view line(raw, static_cast<std::size_t>(n));
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    auto at_line = [&](const Error& e) { return Error{fmt::format("'{}' line {}: {}", path, line_no, e.message)}; };
    if (line.empty()) return at_line(Error{"empty line (each line must be one JSON object)"});
    try {
      // The first line keeps its key order (the header is shown to people); records need lookups only.
      if (line_no == 1) {
        if (Status s = read_envelope(nlohmann::ordered_json::parse(line.begin(), line.end()), header); !s.ok()) {
          return at_line(s.error());
        }
        continue;
      }
      auto parsed = parse_record_line(line);
      if (!parsed.ok()) return at_line(parsed.error());
      records.push_back(std::move(parsed).value());
    } catch (const json::exception& e) {  // parse_error, or out_of_range for a number too large
      return at_line(not_json(e, line));
    }
  }
  if (std::ferror(file.get())) return Error{fmt::format("cannot read '{}': {}", path, std::strerror(errno))};
  if (line_no == 0) return Error{fmt::format("'{}': empty file, expected the {} header line", path, kRecordsKind)};
  return records;
}

}  // namespace perfhound::load
