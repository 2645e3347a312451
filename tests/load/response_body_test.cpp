// ResponseBody: what one response body's bytes mean for its record, fed as the load runner feeds socket reads.
#include "load/response_body.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace perfhound::load {
namespace {

using ::testing::HasSubstr;

std::string chat_event(const std::string& content, const std::string& finish = "null") {
  return R"(data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":")" + content +
         R"("},"finish_reason":)" + finish + "}]}\n\n";
}

RequestRecord record_with_status(int status) {
  RequestRecord r;
  r.http_status = status;
  return r;
}

TEST(ResponseBody, EachContentChunkIsTimedWhenTheBytesEndingItsEventArrived) {
  const std::string first = chat_event("Hel"), second = chat_event("lo", "\"stop\""), done = "data: [DONE]\n\n";
  const std::string stream = first + second + done;
  RequestRecord r = record_with_status(200);
  ChunkDecoder decoder;
  ResponseBody body(r, decoder, 64 * 1024);
  // One byte per read, read i at time i: an event completes with its blank line's '\n'.
  for (std::size_t i = 0; i < stream.size(); ++i) ASSERT_TRUE(body.feed(stream.substr(i, 1), static_cast<std::int64_t>(i)));
  body.finish();
  EXPECT_TRUE(r.ok()) << r.error_message;
  ASSERT_EQ(r.chunk_ns.size(), 2u);
  EXPECT_EQ(r.chunk_ns[0], static_cast<std::int64_t>(first.size() - 1));
  EXPECT_EQ(r.chunk_ns[1], static_cast<std::int64_t>(first.size() + second.size() - 1));
  EXPECT_EQ(r.first_token_ns, r.chunk_ns[0]);
  EXPECT_EQ(r.finish_events, 1);
  EXPECT_EQ(r.finish_reason, "stop");
}

TEST(ResponseBody, ANon2xxBodyBecomesItsErrorMessage) {
  RequestRecord r = record_with_status(429);
  ChunkDecoder decoder;
  ResponseBody body(r, decoder, 64 * 1024);
  const std::string json = R"({"error": {"message": "Rate limit reached", "type": "requests"}})";
  EXPECT_TRUE(body.feed(json.substr(0, 10), 1));  // an error body is read to its end
  EXPECT_TRUE(body.feed(json.substr(10), 2));
  body.finish();
  EXPECT_EQ(r.error, ErrorKind::kHttpStatus);
  EXPECT_EQ(r.error_message, "HTTP 429: Rate limit reached");
  EXPECT_TRUE(r.chunk_ns.empty());
}

TEST(ResponseBody, ALongPlainErrorBodyIsCutToItsStartOnOneLine) {
  RequestRecord r = record_with_status(502);
  ChunkDecoder decoder;
  ResponseBody body(r, decoder, 64 * 1024);
  EXPECT_TRUE(body.feed("Bad\r\nGateway " + std::string(100'000, 'x'), 1));
  body.finish();
  EXPECT_EQ(r.error, ErrorKind::kHttpStatus);
  EXPECT_EQ(r.error_message, "HTTP 502: Bad  Gateway " + std::string(200 - 13, 'x'));  // 200 bytes, newlines blanked
}

TEST(ResponseBody, AStreamThatStopsWithoutDoneOrAFinishIsMalformed) {
  RequestRecord r = record_with_status(200);
  ChunkDecoder decoder;
  ResponseBody body(r, decoder, 64 * 1024);
  EXPECT_TRUE(body.feed(chat_event("a"), 5));
  body.finish();
  EXPECT_EQ(r.error, ErrorKind::kMalformed);
  EXPECT_THAT(r.error_message, HasSubstr("without [DONE]"));
  EXPECT_EQ(r.chunk_ns.size(), 1u);  // what arrived is kept
}

TEST(ResponseBody, AnErrorEventOrAnOverlongEventStopsTheReading) {
  {
    RequestRecord r = record_with_status(200);
    ChunkDecoder decoder;
    ResponseBody body(r, decoder, 64 * 1024);
    EXPECT_FALSE(body.feed(chat_event("a") + "data: {\"error\": {\"message\": \"engine died\"}}\n\n", 3));
    EXPECT_EQ(r.error, ErrorKind::kStreamError);
    EXPECT_THAT(r.error_message, HasSubstr("engine died"));
  }
  {
    RequestRecord r = record_with_status(200);
    ChunkDecoder decoder;
    ResponseBody body(r, decoder, 1024);
    EXPECT_FALSE(body.feed("data: " + std::string(2000, 'z'), 4));
    EXPECT_EQ(r.error, ErrorKind::kOverlong);
    EXPECT_THAT(r.error_message, HasSubstr("1024 bytes"));
  }
}

TEST(RecordFailure, TheFirstFailureIsTheCause) {
  RequestRecord r;
  record_failure(r, ErrorKind::kTimeout, "first");
  record_failure(r, ErrorKind::kReset, "second");
  EXPECT_EQ(r.error, ErrorKind::kTimeout);
  EXPECT_EQ(r.error_message, "first");
}

}  // namespace
}  // namespace perfhound::load
