// ChunkDecoder on the chunk shapes real servers send: `perfhound serve`'s own stream (made by
// serve/openai_protocol.h and split by SseParser, so the two sides are checked against each other), literal
// chunks as vLLM, OpenAI, llama.cpp, TGI and SGLang send them, error events and bodies, malformed data with
// the reason it gives, and that steady-state decoding allocates nothing.
#include "load/openai_stream.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "load/sse_parser.h"
#include "serve/openai_protocol.h"

// Counts allocations so a test can assert that a loop makes none. GCC flags the malloc/free pairing inside
// replacement operators as mismatched; here it is the definition of the pairing. noinline keeps the calls
// going through the symbols, which valgrind replaces as a pair (else it sees its new freed by our free).
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
namespace {
std::atomic<long> g_allocations{0};
}  // namespace
[[gnu::noinline]] void* operator new(std::size_t n) {
  ++g_allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void* operator new(std::size_t n, const std::nothrow_t&) noexcept {  // simdjson uses the nothrow forms
  ++g_allocations;
  return std::malloc(n == 0 ? 1 : n);
}
[[gnu::noinline]] void* operator new[](std::size_t n) { return operator new(n); }
[[gnu::noinline]] void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace perfhound::load {
namespace {

ChunkInfo decode(ChunkDecoder& d, std::string_view data) { return d.decode("message", data); }

// Every field at its default except those the test names: catches a decoder that sets too much.
void expect_plain(const ChunkInfo& c) {
  EXPECT_FALSE(c.done);
  EXPECT_FALSE(c.error) << c.error_message;
  EXPECT_FALSE(c.malformed) << c.malformed_reason;
}

// ---- perfhound serve

struct Decoded {
  std::string type;
  std::string data;
};

std::vector<Decoded> split_events(const fmt::memory_buffer& buf) {
  std::vector<Decoded> out;
  SseParser parser;
  EXPECT_EQ(parser.feed(std::string_view(buf.data(), buf.size()),
                        [&](const SseEvent& e) { out.push_back({std::string(e.type), std::string(e.data)}); }),
            SseStatus::kOk);
  return out;
}

serve::ResponseIdentity identity(serve::Endpoint endpoint, bool include_usage) {
  serve::ResponseIdentity id;
  id.id = "chatcmpl-7";
  id.created = 1718000000;
  id.model = "llama-3-8b";
  id.endpoint = endpoint;
  id.include_usage = include_usage;
  return id;
}

TEST(ChunkDecoder, OurChatStreamWithUsageAndTimestamps) {
  const auto id = identity(serve::Endpoint::kChatCompletions, true);
  fmt::memory_buffer buf;
  serve::append_token_chunk(buf, id, "Hello", /*first=*/true, 1000);
  serve::append_token_chunk(buf, id, " \"world\"\n", /*first=*/false, 2000);
  serve::append_finish_chunk(buf, id, "length");
  serve::append_usage_chunk(buf, id, 12, 2);
  serve::append_done(buf);
  const auto events = split_events(buf);
  ASSERT_EQ(events.size(), 6u);
  ChunkDecoder d;

  const ChunkInfo role = decode(d, events[0].data);  // {"role":"assistant","content":""}
  expect_plain(role);
  EXPECT_FALSE(role.content);
  EXPECT_FALSE(role.usage);  // "usage": null
  EXPECT_EQ(role.emit_ts_ns, 1000);

  const ChunkInfo first = decode(d, events[1].data);
  expect_plain(first);
  EXPECT_TRUE(first.content);
  EXPECT_FALSE(first.finish);
  EXPECT_FALSE(first.usage);
  EXPECT_EQ(first.emit_ts_ns, 1000);

  const ChunkInfo second = decode(d, events[2].data);
  EXPECT_TRUE(second.content);
  EXPECT_EQ(second.emit_ts_ns, 2000);

  const ChunkInfo finish = decode(d, events[3].data);
  expect_plain(finish);
  EXPECT_FALSE(finish.content);
  EXPECT_TRUE(finish.finish);
  EXPECT_EQ(finish.emit_ts_ns, -1);

  const ChunkInfo usage = decode(d, events[4].data);
  expect_plain(usage);
  EXPECT_FALSE(usage.content);
  EXPECT_FALSE(usage.finish);
  EXPECT_TRUE(usage.usage);
  EXPECT_EQ(usage.prompt_tokens, 12);
  EXPECT_EQ(usage.completion_tokens, 2);

  EXPECT_TRUE(decode(d, events[5].data).done);
}

TEST(ChunkDecoder, OurCompletionsStream) {
  const auto id = identity(serve::Endpoint::kCompletions, false);
  fmt::memory_buffer buf;
  serve::append_token_chunk(buf, id, "tok", true, -1);
  serve::append_finish_chunk(buf, id, "stop");
  const auto events = split_events(buf);
  ASSERT_EQ(events.size(), 2u);  // completions has no role event
  ChunkDecoder d;
  const ChunkInfo tok = decode(d, events[0].data);
  expect_plain(tok);
  EXPECT_TRUE(tok.content);
  EXPECT_EQ(tok.emit_ts_ns, -1);
  const ChunkInfo fin = decode(d, events[1].data);  // text ""
  EXPECT_FALSE(fin.content);
  EXPECT_TRUE(fin.finish);
}

// ---- other servers (literal chunks as they send them)

TEST(ChunkDecoder, VllmChatChunks) {
  ChunkDecoder d;
  const ChunkInfo role = decode(d,
      R"({"id":"chatcmpl-b0a1","object":"chat.completion.chunk","created":1718000000,"model":"meta-llama/Meta-Llama-3-8B-Instruct","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]})");
  expect_plain(role);
  EXPECT_FALSE(role.content);
  EXPECT_FALSE(role.finish);

  const ChunkInfo tok = decode(d,
      R"({"id":"chatcmpl-b0a1","object":"chat.completion.chunk","created":1718000000,"model":"m","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}]})");
  EXPECT_TRUE(tok.content);

  // vLLM's last chunk: empty content, finish_reason and stop_reason.
  const ChunkInfo fin = decode(d,
      R"({"id":"chatcmpl-b0a1","object":"chat.completion.chunk","created":1718000000,"model":"m","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"length","stop_reason":null}]})");
  EXPECT_FALSE(fin.content);
  EXPECT_TRUE(fin.finish);

  // stream_options.continuous_usage_stats: usage on every chunk, content alongside.
  const ChunkInfo cont = decode(d,
      R"({"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" there"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":10,"total_tokens":12,"completion_tokens":2}})");
  EXPECT_TRUE(cont.content);
  EXPECT_TRUE(cont.usage);
  EXPECT_EQ(cont.prompt_tokens, 10);
  EXPECT_EQ(cont.completion_tokens, 2);
}

TEST(ChunkDecoder, ReasoningOutputIsContent) {
  ChunkDecoder d;
  EXPECT_TRUE(decode(d, R"({"choices":[{"index":0,"delta":{"reasoning_content":"Let me think"},"finish_reason":null}]})").content);
  EXPECT_TRUE(decode(d, R"({"choices":[{"index":0,"delta":{"reasoning":"Hmm","content":null},"finish_reason":null}]})").content);
  EXPECT_FALSE(decode(d, R"({"choices":[{"index":0,"delta":{"reasoning_content":"","content":""}}]})").content);
}

TEST(ChunkDecoder, OpenAiIncludeUsageFinalChunk) {
  ChunkDecoder d;
  const ChunkInfo c = decode(d,
      R"({"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","system_fingerprint":"fp_44709d6fcb","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":12,"total_tokens":21,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}})");
  expect_plain(c);
  EXPECT_FALSE(c.content);
  EXPECT_FALSE(c.finish);
  EXPECT_TRUE(c.usage);
  EXPECT_EQ(c.prompt_tokens, 9);
  EXPECT_EQ(c.completion_tokens, 12);
}

TEST(ChunkDecoder, OpenAiToolCallChunks) {
  ChunkDecoder d;
  EXPECT_TRUE(decode(d,
      R"({"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_DdmO9pD3xa9XTPNJ32zg2hcA","type":"function","function":{"name":"get_weather","arguments":""}}],"refusal":null},"logprobs":null,"finish_reason":null}]})")
      .content);
  EXPECT_TRUE(decode(d, R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\""}}]}}]})").content);
  EXPECT_FALSE(decode(d, R"({"choices":[{"index":0,"delta":{"content":null,"tool_calls":[]}}]})").content);
  const ChunkInfo fin = decode(d, R"({"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}]})");
  EXPECT_FALSE(fin.content);
  EXPECT_TRUE(fin.finish);
}

TEST(ChunkDecoder, LlamaCppChunks) {
  ChunkDecoder d;
  const ChunkInfo chat = decode(d,
      R"({"choices":[{"finish_reason":null,"index":0,"delta":{"content":" world"}}],"created":1735000000,"id":"chatcmpl-abc","model":"gpt-3.5-turbo","system_fingerprint":"b4393-d79d8f39","object":"chat.completion.chunk"})");
  expect_plain(chat);
  EXPECT_TRUE(chat.content);
  // The last chunk carries usage and llama.cpp's own timings object.
  const ChunkInfo last = decode(d,
      R"({"choices":[{"finish_reason":"length","index":0,"delta":{}}],"created":1735000000,"id":"chatcmpl-abc","model":"gpt-3.5-turbo","object":"chat.completion.chunk","usage":{"completion_tokens":16,"prompt_tokens":5,"total_tokens":21},"timings":{"prompt_n":5,"prompt_ms":12.5,"predicted_n":16,"predicted_per_second":80.1}})");
  expect_plain(last);
  EXPECT_FALSE(last.content);
  EXPECT_TRUE(last.finish);
  EXPECT_EQ(last.completion_tokens, 16);
  const ChunkInfo completion = decode(d,
      R"({"choices":[{"text":"Hi","index":0,"logprobs":null,"finish_reason":null}],"created":1735000000,"model":"m","object":"text_completion","id":"cmpl-1"})");
  EXPECT_TRUE(completion.content);
}

TEST(ChunkDecoder, TgiChunks) {
  ChunkDecoder d;
  // TGI puts the role and the first text in the same delta, and sends "usage": null.
  const ChunkInfo c = decode(d,
      R"({"object":"chat.completion.chunk","id":"","created":1718000000,"model":"tgi","system_fingerprint":"2.0.4-native","choices":[{"index":0,"delta":{"role":"assistant","content":"Deep"},"logprobs":null,"finish_reason":null}],"usage":null})");
  expect_plain(c);
  EXPECT_TRUE(c.content);
  EXPECT_FALSE(c.usage);
  // TGI 2.x sends tool_calls as one object rather than an array.
  EXPECT_TRUE(decode(d,
      R"({"object":"chat.completion.chunk","id":"","created":1,"model":"tgi","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":{"index":0,"id":"","type":"function","function":{"name":null,"arguments":"{\""}}},"logprobs":null,"finish_reason":null}]})")
      .content);
  // TGI's error: a string.
  const ChunkInfo err = decode(d, R"({"error":"Request failed during generation: Server error: CUDA out of memory","error_type":"generation"})");
  EXPECT_TRUE(err.error);
  EXPECT_FALSE(err.malformed);
  EXPECT_EQ(err.error_message, "Request failed during generation: Server error: CUDA out of memory");
}

TEST(ChunkDecoder, SeveralChoicesAnyCarryingContentCounts) {
  ChunkDecoder d;
  const ChunkInfo c = decode(d, R"({"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"},{"index":1,"delta":{"content":"x"},"finish_reason":null}]})");
  EXPECT_TRUE(c.content);
  EXPECT_TRUE(c.finish);
}

TEST(ChunkDecoder, UnknownFieldsOfAnyTypeAreSkipped) {
  ChunkDecoder d;
  const ChunkInfo c = decode(d, R"({"x":[1,{"a":null}],"choices":[{"delta":{"content":"a","extra":{"b":[true]}},"logprobs":{"content":[{"token":"a","logprob":-0.1}]},"text_offset":3}],"y":"z","usage":{"prompt_tokens":null,"completion_tokens":3,"cost":0.01}})");
  expect_plain(c);
  EXPECT_TRUE(c.content);
  EXPECT_TRUE(c.usage);
  EXPECT_EQ(c.prompt_tokens, -1);
  EXPECT_EQ(c.completion_tokens, 3);
}

TEST(ChunkDecoder, EscapedContentIsNotEmpty) {
  ChunkDecoder d;
  EXPECT_TRUE(decode(d, R"({"choices":[{"delta":{"content":"\n"}}]})").content);
  EXPECT_TRUE(decode(d, R"({"choices":[{"delta":{"content":"\u00e9"}}]})").content);
}

// ---- done and errors

TEST(ChunkDecoder, DoneIsExactlyTheMarker) {
  ChunkDecoder d;
  const ChunkInfo done = decode(d, "[DONE]");
  EXPECT_TRUE(done.done);
  EXPECT_FALSE(done.malformed);
  EXPECT_TRUE(decode(d, "[DONE] ").malformed);
  EXPECT_TRUE(decode(d, "[done]").malformed);
}

TEST(ChunkDecoder, ErrorObjectBody) {
  ChunkDecoder d;
  // vLLM / SGLang / OpenAI streaming error.
  const ChunkInfo c = decode(d, R"({"error":{"object":"error","message":"The model `x` does not exist.","type":"NotFoundError","param":null,"code":404}})");
  EXPECT_TRUE(c.error);
  EXPECT_FALSE(c.malformed);
  EXPECT_EQ(c.error_message, "The model `x` does not exist.");
  // vLLM's ErrorResponse body, message before "object".
  const ChunkInfo v = decode(d, R"({"message":"maximum context length is 4096 tokens","object":"error","type":"BadRequestError","param":null,"code":400})");
  EXPECT_TRUE(v.error);
  EXPECT_EQ(v.error_message, "maximum context length is 4096 tokens");
  // An error without a message: the raw data stands in.
  const ChunkInfo bare = decode(d, R"({"error":{"code":500}})");
  EXPECT_TRUE(bare.error);
  EXPECT_EQ(bare.error_message, R"({"error":{"code":500}})");
  // "error": null is no error.
  EXPECT_FALSE(decode(d, R"({"error":null,"choices":[]})").error);
}

TEST(ChunkDecoder, ErrorEventType) {
  ChunkDecoder d;
  const ChunkInfo text = d.decode("error", "upstream overloaded, retry later");
  EXPECT_TRUE(text.error);
  EXPECT_FALSE(text.malformed);
  EXPECT_EQ(text.error_message, "upstream overloaded, retry later");
  const ChunkInfo json = d.decode("error", R"({"error":{"message":"boom","type":"server_error"}})");
  EXPECT_TRUE(json.error);
  EXPECT_EQ(json.error_message, "boom");
  const ChunkInfo other = d.decode("error", R"({"detail":"x"})");
  EXPECT_TRUE(other.error);
  EXPECT_EQ(other.error_message, R"({"detail":"x"})");
  // An error event with no data still says what failed (fuzz_http_response found the empty message).
  const ChunkInfo empty = d.decode("error", "");
  EXPECT_TRUE(empty.error);
  EXPECT_EQ(empty.error_message, "an error event with no message");
}

TEST(ChunkDecoder, ErrorMessageOutlivesTheCallersData) {
  ChunkDecoder d;
  ChunkInfo c;
  {
    std::string data = "plain text error";
    c = d.decode("error", data);
    data.assign(data.size(), '#');
  }
  EXPECT_EQ(c.error_message, "plain text error");
}

// ---- malformed

struct BadCase {
  std::string data;
  std::string reason_prefix;
};

TEST(ChunkDecoder, MalformedDataSaysWhy) {
  const std::vector<BadCase> cases = {
      {"not json", "not JSON ("},
      {"", "not JSON ("},
      {R"({"choices":[{"delta":{"content":"a"})", "not JSON ("},  // truncated
      {R"({"choices":[]} trailing)", "not JSON ("},
      {R"({"choices":[]}{"choices":[]})", "not JSON (Unexpected trailing content"},  // a lost blank line
      {R"({"usage": nul})", "not JSON ("},
      {"[1,2]", "not a JSON object but an array: \"[1,2]\""},
      {"42", "not a JSON object but a number"},
      {R"("text")", "not a JSON object but a string"},
      {R"({"choices":"x"})", "'choices' is a string, expected an array or null"},
      {R"({"choices":[1]})", "'choices[0]' is a number, expected an object"},
      {R"({"choices":[{"delta":{}},{"delta":{"content":5}}]})", "'choices[1].delta.content' is a number, expected a string or null"},
      {R"({"choices":[{"delta":[]}]})", "'choices[0].delta' is an array, expected an object or null"},
      {R"({"choices":[{"text":true}]})", "'choices[0].text' is a boolean, expected a string or null"},
      {R"({"choices":[{"delta":{"tool_calls":"f"}}]})", "'choices[0].delta.tool_calls' is a string, expected an array, an object or null"},
      {R"({"usage":"x"})", "'usage' is a string, expected an object or null"},
      {R"({"usage":{"completion_tokens":1.5}})", "'usage.completion_tokens' is a number, expected an integer or null"},
      {R"({"perfhound_emit_ts":"1"})", "'perfhound_emit_ts' is a string, expected an integer or null"},
  };
  ChunkDecoder d;
  for (const BadCase& c : cases) {
    const ChunkInfo info = decode(d, c.data);
    EXPECT_TRUE(info.malformed) << c.data;
    EXPECT_FALSE(info.content || info.finish || info.usage || info.error || info.done) << c.data;
    EXPECT_EQ(info.malformed_reason.substr(0, c.reason_prefix.size()), c.reason_prefix) << c.data;
  }
}

TEST(ChunkDecoder, MalformedReasonQuotesTheStartOfLongData) {
  ChunkDecoder d;
  const std::string data = "<html>" + std::string(200, 'x');
  const ChunkInfo info = decode(d, data);
  ASSERT_TRUE(info.malformed);
  EXPECT_NE(info.malformed_reason.find("\"<html>xxx"), std::string_view::npos) << info.malformed_reason;
  EXPECT_EQ(info.malformed_reason.substr(info.malformed_reason.size() - 3), "...");
  EXPECT_EQ(info.malformed_reason.find(std::string(55, 'x')), std::string_view::npos);  // cut at 60 bytes
  EXPECT_EQ(info.malformed_reason.find('\n'), std::string_view::npos);
}

// ---- reuse

TEST(ChunkDecoder, BigChunkThenSmallOnesStillDecode) {
  ChunkDecoder d;
  const std::string big = R"({"choices":[{"delta":{"content":")" + std::string(1 << 20, 'a') + R"("}}]})";
  EXPECT_TRUE(decode(d, big).content);
  EXPECT_TRUE(decode(d, R"({"choices":[{"delta":{"content":"b"}}]})").content);
  EXPECT_TRUE(decode(d, "{}").content == false);
}

TEST(ChunkDecoder, SteadyStateDecodingDoesNotAllocate) {
  ChunkDecoder d;
  const std::string tok = R"({"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}],"usage":null,"perfhound_emit_ts":5})";
  const std::string usage = R"({"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":12,"total_tokens":21}})";
  (void)decode(d, tok);  // warm-up: the buffer and the parser grow once
  (void)decode(d, usage);
  const long before = g_allocations.load();
  int content = 0;
  for (int i = 0; i < 1000; ++i) {
    content += decode(d, tok).content ? 1 : 0;
    content += decode(d, usage).content ? 1 : 0;
    content += decode(d, "[DONE]").done ? 0 : 1;
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
  EXPECT_EQ(content, 1000);
}

TEST(ChunkDecoder, MovedDecoderKeepsWorking) {
  ChunkDecoder a;
  (void)decode(a, "{}");
  ChunkDecoder b = std::move(a);
  EXPECT_TRUE(decode(b, R"({"choices":[{"text":"x"}]})").content);
}

}  // namespace
}  // namespace perfhound::load
