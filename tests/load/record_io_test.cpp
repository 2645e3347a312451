// Record files: the format chosen from the extension, a JSONL round trip (records and header back equal,
// extremes included), the exact JSONL and CSV text of hand-built records (CSV quoting), that each write is in
// the file before close(), and every reader and writer error with its path and line.
#include "load/record_io.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace perfhound::load {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

class RecordIo : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("perfhound_record_io_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::string write_file(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }

  static std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  fs::path dir_;
};

RequestRecord sample_ok() {
  RequestRecord r;
  r.index = 3;
  r.intended_ns = 1000000;
  r.sent_ns = 1000250;
  r.first_byte_ns = 5000000;
  r.first_token_ns = 5100000;
  r.end_ns = 9000000;
  r.chunk_ns = {5100000, 6000000, 9000000};
  r.http_status = 200;
  r.input_tokens = 128;
  r.max_tokens = 3;
  r.usage_prompt_tokens = 130;
  r.usage_completion_tokens = 3;
  r.bytes_received = 1234;
  return r;
}

RequestRecord sample_error() {
  RequestRecord r;
  r.index = 4;
  r.warmup = true;
  r.intended_ns = 2000000;
  r.sent_ns = 2000100;
  r.first_byte_ns = 2500000;
  r.end_ns = 2600000;
  r.http_status = 503;
  r.error = ErrorKind::kHttpStatus;
  r.error_message = "server said \"busy\", retry\nlater";
  r.input_tokens = 64;
  r.max_tokens = 16;
  r.bytes_received = 77;
  return r;
}

void expect_same(const RequestRecord& a, const RequestRecord& b) {
  EXPECT_EQ(a.index, b.index);
  EXPECT_EQ(a.warmup, b.warmup);
  EXPECT_EQ(a.intended_ns, b.intended_ns);
  EXPECT_EQ(a.sent_ns, b.sent_ns);
  EXPECT_EQ(a.first_byte_ns, b.first_byte_ns);
  EXPECT_EQ(a.first_token_ns, b.first_token_ns);
  EXPECT_EQ(a.end_ns, b.end_ns);
  EXPECT_EQ(a.chunk_ns, b.chunk_ns);
  EXPECT_EQ(a.http_status, b.http_status);
  EXPECT_EQ(a.error, b.error);
  EXPECT_EQ(a.error_message, b.error_message);
  EXPECT_EQ(a.input_tokens, b.input_tokens);
  EXPECT_EQ(a.max_tokens, b.max_tokens);
  EXPECT_EQ(a.usage_prompt_tokens, b.usage_prompt_tokens);
  EXPECT_EQ(a.usage_completion_tokens, b.usage_completion_tokens);
  EXPECT_EQ(a.bytes_received, b.bytes_received);
}

// The error text, or "" when it succeeded.
template <class R>
std::string error_of(const R& r) {
  return r.ok() ? std::string() : r.error().message;
}

// ---- format from the path

TEST(RecordFormat, FromExtension) {
  EXPECT_EQ(*record_format_for_path("out/run.jsonl"), RecordFormat::kJsonl);
  EXPECT_EQ(*record_format_for_path("run.NDJSON"), RecordFormat::kJsonl);
  EXPECT_EQ(*record_format_for_path("run.Csv"), RecordFormat::kCsv);
  for (const char* bad : {"run.json", "run", "run.csv.gz", "jsonl"}) {
    const auto r = record_format_for_path(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find(std::string("'") + bad + "'"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find(".jsonl, .ndjson or .csv"), std::string::npos) << r.error().message;
  }
}

// ---- JSONL

TEST_F(RecordIo, JsonlRoundTrip) {
  RequestRecord extreme;
  extreme.index = std::numeric_limits<std::uint64_t>::max();
  extreme.intended_ns = std::numeric_limits<std::int64_t>::min();
  extreme.end_ns = std::numeric_limits<std::int64_t>::max();
  extreme.error = ErrorKind::kClient;
  extreme.error_message = "caf\xC3\xA9 \t\x01 \\ \"q\"";  // UTF-8, control bytes, escapes
  const std::vector<RequestRecord> records = {sample_ok(), sample_error(), RequestRecord{}, extreme};

  ordered_json header;
  header["tool"] = "perfhound";
  header["argv"] = {"perfhound", "load", "--rate", "5"};
  header["seed"] = 42;
  header["zeta_first"] = true;  // order is kept, not sorted
  header["alpha_last"] = nullptr;

  const std::string p = path("r.jsonl");
  {
    auto w = RecordWriter::open(p, RecordFormat::kJsonl, header);
    ASSERT_TRUE(w.ok()) << error_of(w);
    for (const auto& r : records) ASSERT_TRUE(w->write(r).ok());
    EXPECT_EQ(w->written(), records.size());
    ASSERT_TRUE(w->close().ok());
  }
  ordered_json header_back;
  const auto back = read_records_jsonl(p, &header_back);
  ASSERT_TRUE(back.ok()) << error_of(back);
  ASSERT_EQ(back->size(), records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    SCOPED_TRACE(i);
    expect_same((*back)[i], records[i]);
  }
  EXPECT_EQ(header_back, header);
  EXPECT_EQ(header_back.dump(), header.dump());
}

TEST_F(RecordIo, JsonlExactText) {
  const std::string p = path("exact.jsonl");
  {
    auto w = RecordWriter::open(p, RecordFormat::kJsonl, ordered_json{{"seed", 1}});
    ASSERT_TRUE(w.ok()) << error_of(w);
    ASSERT_TRUE(w->write(sample_ok()).ok());
    ASSERT_TRUE(w->write(sample_error()).ok());
  }  // the destructor closes
  EXPECT_EQ(slurp(p),
            "{\"schema_version\":1,\"kind\":\"perfhound.load.records\",\"header\":{\"seed\":1}}\n"
            "{\"index\":3,\"warmup\":false,\"intended_ns\":1000000,\"sent_ns\":1000250,\"first_byte_ns\":5000000,"
            "\"first_token_ns\":5100000,\"end_ns\":9000000,\"http_status\":200,\"error\":\"none\","
            "\"input_tokens\":128,\"max_tokens\":3,\"usage_prompt_tokens\":130,\"usage_completion_tokens\":3,"
            "\"output_tokens\":3,\"bytes_received\":1234,\"chunk_ns\":[5100000,6000000,9000000]}\n"
            "{\"index\":4,\"warmup\":true,\"intended_ns\":2000000,\"sent_ns\":2000100,\"first_byte_ns\":2500000,"
            "\"first_token_ns\":-1,\"end_ns\":2600000,\"http_status\":503,\"error\":\"http-status\","
            "\"error_message\":\"server said \\\"busy\\\", retry\\nlater\",\"input_tokens\":64,\"max_tokens\":16,"
            "\"usage_prompt_tokens\":-1,\"usage_completion_tokens\":-1,\"output_tokens\":0,\"bytes_received\":77,"
            "\"chunk_ns\":[]}\n");
}

TEST_F(RecordIo, InvalidUtf8InAMessageBecomesReplacementCharacter) {
  const std::string p = path("utf8.jsonl");
  RequestRecord r = sample_error();
  r.error_message = "bad \xFF byte";
  {
    auto w = RecordWriter::open(p, RecordFormat::kJsonl, ordered_json::object());
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(w->write(r).ok());
  }
  const auto back = read_records_jsonl(p);
  ASSERT_TRUE(back.ok()) << error_of(back);
  EXPECT_EQ((*back)[0].error_message, "bad \xEF\xBF\xBD byte");
}

TEST_F(RecordIo, EachWriteIsInTheFileBeforeClose) {
  const std::string p = path("live.jsonl");
  auto w = RecordWriter::open(p, RecordFormat::kJsonl, ordered_json::object());
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE(w->write(sample_ok()).ok());
  // Another reader (or the file after a crash) already sees the record.
  const auto back = read_records_jsonl(p);
  ASSERT_TRUE(back.ok()) << error_of(back);
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0].index, 3u);
  ASSERT_TRUE(w->write(sample_error()).ok());
  EXPECT_EQ(read_records_jsonl(p)->size(), 2u);
}

TEST_F(RecordIo, MovedWriterKeepsWritingAndClosesOnce) {
  const std::string p = path("moved.csv");
  auto opened = RecordWriter::open(p, RecordFormat::kCsv, ordered_json::object());
  ASSERT_TRUE(opened.ok());
  RecordWriter a = std::move(opened).value();
  ASSERT_TRUE(a.write(sample_ok()).ok());
  RecordWriter b = std::move(a);
  ASSERT_TRUE(b.write(sample_ok()).ok());
  EXPECT_EQ(b.written(), 2u);
  EXPECT_EQ(b.path(), p);
  ASSERT_TRUE(b.close().ok());
  ASSERT_TRUE(b.close().ok());  // idempotent
  const auto after = b.write(sample_ok());
  ASSERT_FALSE(after.ok());
  EXPECT_NE(after.error().message.find("closed"), std::string::npos);
}

// ---- CSV

TEST_F(RecordIo, CsvExactText) {
  const std::string p = path("exact.csv");
  RequestRecord quoted = sample_error();
  quoted.error_message = "upstream said \"no\", go away";
  {
    auto w = RecordWriter::open(p, RecordFormat::kCsv, ordered_json{{"ignored", true}});
    ASSERT_TRUE(w.ok()) << error_of(w);
    ASSERT_TRUE(w->write(sample_ok()).ok());
    ASSERT_TRUE(w->write(quoted).ok());
    ASSERT_TRUE(w->write(sample_error()).ok());  // a message with a newline
    ASSERT_TRUE(w->close().ok());
  }
  EXPECT_EQ(slurp(p),
            "index,warmup,intended_ns,sent_ns,first_byte_ns,first_token_ns,end_ns,http_status,error,error_message,"
            "input_tokens,max_tokens,usage_prompt_tokens,usage_completion_tokens,output_tokens,bytes_received,"
            "chunk_ns\n"
            "3,false,1000000,1000250,5000000,5100000,9000000,200,none,,128,3,130,3,3,1234,5100000;6000000;9000000\n"
            "4,true,2000000,2000100,2500000,-1,2600000,503,http-status,\"upstream said \"\"no\"\", go away\","
            "64,16,-1,-1,0,77,\n"
            "4,true,2000000,2000100,2500000,-1,2600000,503,http-status,\"server said \"\"busy\"\", retry\nlater\","
            "64,16,-1,-1,0,77,\n");
}

// ---- writer errors

TEST_F(RecordIo, UnwritablePathNamesThePath) {
  const std::string p = path("no/such/dir/r.jsonl");
  const auto w = RecordWriter::open(p, RecordFormat::kJsonl, ordered_json::object());
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.error().message.find("'" + p + "'"), std::string::npos) << w.error().message;
  EXPECT_NE(w.error().message.find("No such file or directory"), std::string::npos) << w.error().message;
}

TEST_F(RecordIo, FullDiskNamesThePath) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  for (const RecordFormat format : {RecordFormat::kJsonl, RecordFormat::kCsv}) {
    const auto w = RecordWriter::open("/dev/full", format, ordered_json::object());
    ASSERT_FALSE(w.ok());
    EXPECT_EQ(w.error().message, "cannot write '/dev/full': No space left on device");
  }
}

// ---- reader errors

constexpr const char* kEnvelope = R"({"schema_version":1,"kind":"perfhound.load.records","header":{}})";
constexpr const char* kGoodRecord =
    R"({"index":0,"warmup":false,"intended_ns":0,"sent_ns":0,"first_byte_ns":1,"first_token_ns":2,"end_ns":3,"http_status":200,"error":"none","input_tokens":1,"max_tokens":1,"usage_prompt_tokens":-1,"usage_completion_tokens":-1,"output_tokens":1,"bytes_received":9,"chunk_ns":[2]})";

// kGoodRecord with `key`'s value replaced by `value` (or the field removed when value is empty).
std::string record_with(const std::string& key, const std::string& value) {
  nlohmann::json j = nlohmann::json::parse(kGoodRecord);
  if (value.empty()) {
    j.erase(key);
  } else {
    j[key] = nlohmann::json::parse(value);
  }
  return j.dump();
}

TEST_F(RecordIo, ReaderAcceptsUnknownFieldsAndNoErrorMessage) {
  const std::string p =
      write_file("ok.jsonl", std::string(kEnvelope) + "\n" + record_with("future_field", "[1]") + "\n");
  const auto r = read_records_jsonl(p);
  ASSERT_TRUE(r.ok()) << error_of(r);
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].chunk_ns, std::vector<std::int64_t>{2});
}

TEST_F(RecordIo, ReaderErrorsNameTheFileAndLine) {
  struct Case {
    std::string text;
    std::string expected;  // after "'<path>' "
  };
  const std::string env = std::string(kEnvelope) + "\n";
  const std::string good = std::string(kGoodRecord) + "\n";
  const std::vector<Case> cases = {
      {"{\"kind\":\"perfhound.trace\"}\n", "line 1: not a perfhound load records file"},
      {"[1]\n", "line 1: not a perfhound load records file"},
      {"{\"schema_version\":2,\"kind\":\"perfhound.load.records\",\"header\":{}}\n",
       "line 1: schema_version 2 is not supported (this perfhound reads 1)"},
      {"{\"schema_version\":1,\"kind\":\"perfhound.load.records\"}\n", "line 1: missing field 'header'"},
      {"{\"kind\":\"perfhound.load.records\",\"header\":{}}\n", "line 1: missing field 'schema_version'"},
      {env + "{\"index\":0,\n", "line 2: not JSON (byte "},
      {env + good + "\n", "line 3: empty line"},
      {env + good + "[]\n", "line 3: expected a JSON object, got an array"},
      {env + good + record_with("end_ns", "") + "\n", "line 3: missing field 'end_ns'"},
      {env + record_with("sent_ns", "\"5\"") + "\n", "line 2: field 'sent_ns' must be an integer, got a string"},
      {env + record_with("sent_ns", "1.5") + "\n", "line 2: field 'sent_ns' must be an integer, got a number"},
      {env + record_with("end_ns", "9223372036854775808") + "\n", "line 2: field 'end_ns' is out of range"},
      {env + record_with("index", "-1") + "\n", "line 2: field 'index' must be an integer >= 0, got -1"},
      {env + record_with("warmup", "0") + "\n", "line 2: field 'warmup' must be true or false"},
      {env + record_with("http_status", "1000") + "\n", "line 2: field 'http_status' must be 0..999, got 1000"},
      {env + record_with("error", "\"exploded\"") + "\n", "line 2: field 'error': unknown error kind \"exploded\""},
      {env + record_with("error_message", "7") + "\n", "line 2: field 'error_message' must be a string"},
      {env + record_with("chunk_ns", "[1,2.5]") + "\n", "line 2: field 'chunk_ns[1]' must be an integer"},
      {env + record_with("chunk_ns", "{}") + "\n", "line 2: field 'chunk_ns' must be an array of integers"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string p = write_file("bad" + std::to_string(i) + ".jsonl", cases[i].text);
    const auto r = read_records_jsonl(p);
    ASSERT_FALSE(r.ok()) << cases[i].text;
    const std::string want = "'" + p + "' " + cases[i].expected;
    EXPECT_EQ(r.error().message.substr(0, want.size()), want) << r.error().message;
  }
}

TEST_F(RecordIo, ReaderFileErrors) {
  const std::string missing = path("missing.jsonl");
  const auto r = read_records_jsonl(missing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "cannot open '" + missing + "': No such file or directory");

  const std::string empty = write_file("empty.jsonl", "");
  const auto e = read_records_jsonl(empty);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message, "'" + empty + "': empty file, expected the perfhound.load.records header line");
}

TEST_F(RecordIo, ReaderOfHeaderOnlyFileGivesNoRecords) {
  const std::string p = write_file("header_only.jsonl", std::string(kEnvelope) + "\n");
  const auto r = read_records_jsonl(p);
  ASSERT_TRUE(r.ok()) << error_of(r);
  EXPECT_TRUE(r->empty());
}

}  // namespace
}  // namespace perfhound::load
