// The OpenAI wire format: every produced shape parsed back with nlohmann and checked field by field against
// the OpenAI API reference (chat.completion.chunk, text_completion, the include_usage chunk, chat.completion,
// /v1/models, the error object), the SSE framing, request parsing with each prompt form and every error, and
// the token-count approximation on hand-counted strings.
#include "serve/openai_protocol.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace perfhound::serve {
namespace {

using nlohmann::json;

// ---- helpers

// Splits an SSE buffer into the JSON payloads of its "data: ...\n\n" events, checking the framing.
std::vector<std::string> sse_payloads(const fmt::memory_buffer& buf) {
  const std::string s = fmt::to_string(buf);
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < s.size()) {
    EXPECT_EQ(s.compare(pos, 6, "data: "), 0) << "event does not start with 'data: ' at byte " << pos << ": " << s;
    const std::size_t end = s.find("\n\n", pos);
    EXPECT_NE(end, std::string::npos) << "event not terminated by a blank line: " << s;
    if (end == std::string::npos) break;
    const std::string payload = s.substr(pos + 6, end - pos - 6);
    EXPECT_EQ(payload.find('\n'), std::string::npos) << "payload spans lines: " << payload;
    out.push_back(payload);
    pos = end + 2;
  }
  return out;
}

json parse_one_event(const fmt::memory_buffer& buf) {
  const auto events = sse_payloads(buf);
  EXPECT_EQ(events.size(), 1u);
  return events.empty() ? json() : json::parse(events[0]);
}

ResponseIdentity identity(std::string id, std::int64_t created, Endpoint endpoint) {
  ResponseIdentity r;
  r.id = std::move(id);
  r.created = created;
  r.model = "llama-3-8b";
  r.endpoint = endpoint;
  return r;
}
ResponseIdentity chat_id() { return identity("chatcmpl-7", 1700000000, Endpoint::kChatCompletions); }
ResponseIdentity completions_id() { return identity("cmpl-9", 1700000001, Endpoint::kCompletions); }

void expect_head(const json& j, const ResponseIdentity& id, const char* object) {
  EXPECT_EQ(j.at("id"), id.id);
  EXPECT_EQ(j.at("object"), object);
  EXPECT_EQ(j.at("created"), id.created);
  EXPECT_TRUE(j.at("created").is_number_integer());
  EXPECT_EQ(j.at("model"), id.model);
}

ParsedRequest parse_ok(std::string_view body, Endpoint endpoint = Endpoint::kCompletions) {
  const ParseResult r = parse_request(body, endpoint);
  EXPECT_TRUE(r.ok) << body << " -> " << r.error.param << ": " << r.error.message;
  return r.request;
}

ApiError parse_error(std::string_view body, Endpoint endpoint = Endpoint::kCompletions) {
  const ParseResult r = parse_request(body, endpoint);
  EXPECT_FALSE(r.ok) << body;
  return r.error;
}

// Checks status 400, the param, and that the message names the field and quotes `fragment`.
void expect_400(std::string_view body, std::string_view param, std::string_view fragment,
                Endpoint endpoint = Endpoint::kCompletions) {
  const ApiError e = parse_error(body, endpoint);
  EXPECT_EQ(e.status, 400) << body;
  EXPECT_EQ(e.param, param) << body << " -> " << e.message;
  EXPECT_NE(e.message.find(fragment), std::string::npos) << body << " -> " << e.message;
  if (!param.empty()) {
    EXPECT_NE(e.message.find(param), std::string::npos) << e.message;
  }
}

// ---- streaming chunks

TEST(ChatChunk, FirstCallSendsTheRoleChunkThenTheToken) {
  fmt::memory_buffer buf;
  append_token_chunk(buf, chat_id(), "Hello", /*first=*/true, -1);
  const auto events = sse_payloads(buf);
  ASSERT_EQ(events.size(), 2u);

  const json role = json::parse(events[0]);
  expect_head(role, chat_id(), "chat.completion.chunk");
  ASSERT_EQ(role.at("choices").size(), 1u);
  const json& c0 = role["choices"][0];
  EXPECT_EQ(c0.at("index"), 0);
  EXPECT_EQ(c0.at("delta"), json({{"role", "assistant"}, {"content", ""}}));
  EXPECT_TRUE(c0.at("logprobs").is_null());
  EXPECT_TRUE(c0.at("finish_reason").is_null());
  EXPECT_FALSE(role.contains("usage"));
  EXPECT_FALSE(role.contains("perfhound_emit_ts"));

  const json tok = json::parse(events[1]);
  expect_head(tok, chat_id(), "chat.completion.chunk");
  const json& c1 = tok["choices"][0];
  EXPECT_EQ(c1.at("index"), 0);
  EXPECT_EQ(c1.at("delta"), json({{"content", "Hello"}}));
  EXPECT_TRUE(c1.at("logprobs").is_null());
  EXPECT_TRUE(c1.at("finish_reason").is_null());
}

TEST(ChatChunk, LaterTokensAndFinish) {
  fmt::memory_buffer buf;
  append_token_chunk(buf, chat_id(), " world", /*first=*/false, -1);
  const json tok = parse_one_event(buf);
  EXPECT_EQ(tok["choices"][0].at("delta"), json({{"content", " world"}}));

  buf.clear();
  append_finish_chunk(buf, chat_id(), "length");
  const json fin = parse_one_event(buf);
  expect_head(fin, chat_id(), "chat.completion.chunk");
  ASSERT_EQ(fin.at("choices").size(), 1u);
  const json& c = fin["choices"][0];
  EXPECT_EQ(c.at("index"), 0);
  EXPECT_EQ(c.at("delta"), json::object());
  EXPECT_TRUE(c.at("logprobs").is_null());
  EXPECT_EQ(c.at("finish_reason"), "length");
}

TEST(CompletionsChunk, TokenAndFinish) {
  fmt::memory_buffer buf;
  append_token_chunk(buf, completions_id(), "Once", /*first=*/true, -1);  // first changes nothing here
  const json tok = parse_one_event(buf);
  expect_head(tok, completions_id(), "text_completion");
  ASSERT_EQ(tok.at("choices").size(), 1u);
  const json& c = tok["choices"][0];
  EXPECT_EQ(c.at("text"), "Once");
  EXPECT_EQ(c.at("index"), 0);
  EXPECT_TRUE(c.at("logprobs").is_null());
  EXPECT_TRUE(c.at("finish_reason").is_null());
  EXPECT_FALSE(c.contains("delta"));

  buf.clear();
  append_finish_chunk(buf, completions_id(), "stop");
  const json fin = parse_one_event(buf);
  expect_head(fin, completions_id(), "text_completion");
  EXPECT_EQ(fin["choices"][0].at("text"), "");
  EXPECT_EQ(fin["choices"][0].at("index"), 0);
  EXPECT_EQ(fin["choices"][0].at("finish_reason"), "stop");
}

TEST(UsageChunk, EmptyChoicesAndTotals) {
  for (const ResponseIdentity& id : {chat_id(), completions_id()}) {
    fmt::memory_buffer buf;
    append_usage_chunk(buf, id, 12, 30);
    const json u = parse_one_event(buf);
    expect_head(u, id, id.endpoint == Endpoint::kChatCompletions ? "chat.completion.chunk" : "text_completion");
    EXPECT_TRUE(u.at("choices").is_array());
    EXPECT_TRUE(u.at("choices").empty());
    EXPECT_EQ(u.at("usage"), json({{"prompt_tokens", 12}, {"completion_tokens", 30}, {"total_tokens", 42}}));
  }
}

TEST(UsageChunk, WithIncludeUsageEveryOtherChunkCarriesUsageNull) {
  ResponseIdentity id = chat_id();
  id.include_usage = true;
  fmt::memory_buffer buf;
  append_token_chunk(buf, id, "a", /*first=*/true, -1);
  append_token_chunk(buf, id, "b", /*first=*/false, -1);
  append_finish_chunk(buf, id, "length");
  append_usage_chunk(buf, id, 5, 2);
  append_done(buf);
  auto events = sse_payloads(buf);
  ASSERT_EQ(events.size(), 6u);
  EXPECT_EQ(events.back(), "[DONE]");
  events.pop_back();
  for (std::size_t i = 0; i + 1 < events.size(); ++i) {
    const json j = json::parse(events[i]);
    ASSERT_TRUE(j.contains("usage")) << events[i];
    EXPECT_TRUE(j["usage"].is_null()) << events[i];
  }
  EXPECT_EQ(json::parse(events.back()).at("usage").at("total_tokens"), 7);
}

TEST(Done, IsTheLiteralSentinel) {
  fmt::memory_buffer buf;
  append_done(buf);
  EXPECT_EQ(fmt::to_string(buf), "data: [DONE]\n\n");
}

TEST(EmitTimestamp, AddedOnlyWhenNonNegative) {
  fmt::memory_buffer buf;
  append_token_chunk(buf, chat_id(), "x", /*first=*/true, 1234567890123456789LL);
  const auto events = sse_payloads(buf);
  ASSERT_EQ(events.size(), 2u);
  for (const auto& e : events) {
    const json j = json::parse(e);
    EXPECT_EQ(j.at("perfhound_emit_ts").get<std::int64_t>(), 1234567890123456789LL);  // exact, an integer
  }
  buf.clear();
  append_token_chunk(buf, completions_id(), "x", false, 0);
  EXPECT_EQ(parse_one_event(buf).at("perfhound_emit_ts"), 0);
  buf.clear();
  append_token_chunk(buf, completions_id(), "x", false, -1);
  EXPECT_FALSE(parse_one_event(buf).contains("perfhound_emit_ts"));
}

TEST(Escaping, TokenTextWithQuotesNewlinesControlsAndUnicode) {
  const std::string nasty = std::string("say \"hi\"\\ back\nline\r\ttab\b\f") + '\x01' + '\x1f' + " caf\xc3\xa9 " +
                            "\xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80 </script>";
  fmt::memory_buffer buf;
  append_token_chunk(buf, chat_id(), nasty, false, -1);
  const std::string raw = fmt::to_string(buf);
  EXPECT_NE(raw.find("say \\\"hi\\\"\\\\ back\\nline\\r\\ttab\\b\\f\\u0001\\u001f"), std::string::npos) << raw;
  EXPECT_NE(raw.find("caf\xc3\xa9"), std::string::npos);  // UTF-8 passes through unescaped
  EXPECT_EQ(parse_one_event(buf)["choices"][0]["delta"]["content"], nasty);

  buf.clear();
  append_token_chunk(buf, completions_id(), nasty, false, -1);
  EXPECT_EQ(parse_one_event(buf)["choices"][0]["text"], nasty);

  ResponseIdentity odd = completions_id();
  odd.model = "we\"ird\\model";
  odd.id = "cmpl-\n1";
  buf.clear();
  append_finish_chunk(buf, odd, "stop");
  const json j = parse_one_event(buf);
  EXPECT_EQ(j["model"], odd.model);
  EXPECT_EQ(j["id"], odd.id);
}

// ---- whole bodies

TEST(FullResponse, ChatCompletion) {
  const json j = json::parse(full_response(chat_id(), "Hi \"there\"", 10, 3, "length"));
  expect_head(j, chat_id(), "chat.completion");
  ASSERT_EQ(j.at("choices").size(), 1u);
  const json& c = j["choices"][0];
  EXPECT_EQ(c.at("index"), 0);
  EXPECT_EQ(c.at("message"), json({{"role", "assistant"}, {"content", "Hi \"there\""}}));
  EXPECT_TRUE(c.at("logprobs").is_null());
  EXPECT_EQ(c.at("finish_reason"), "length");
  EXPECT_EQ(j.at("usage"), json({{"prompt_tokens", 10}, {"completion_tokens", 3}, {"total_tokens", 13}}));
}

TEST(FullResponse, TextCompletion) {
  const json j = json::parse(full_response(completions_id(), "upon a time", 4, 16, "stop"));
  expect_head(j, completions_id(), "text_completion");
  ASSERT_EQ(j.at("choices").size(), 1u);
  const json& c = j["choices"][0];
  EXPECT_EQ(c.at("text"), "upon a time");
  EXPECT_EQ(c.at("index"), 0);
  EXPECT_TRUE(c.at("logprobs").is_null());
  EXPECT_EQ(c.at("finish_reason"), "stop");
  EXPECT_FALSE(c.contains("message"));
  EXPECT_EQ(j.at("usage"), json({{"prompt_tokens", 4}, {"completion_tokens", 16}, {"total_tokens", 20}}));
}

TEST(Models, ListsOneModel) {
  const json j = json::parse(models_body("llama-3-8b", 1700000000));
  EXPECT_EQ(j.at("object"), "list");
  ASSERT_EQ(j.at("data").size(), 1u);
  const json& m = j["data"][0];
  EXPECT_EQ(m.at("id"), "llama-3-8b");
  EXPECT_EQ(m.at("object"), "model");
  EXPECT_EQ(m.at("created"), 1700000000);
  EXPECT_EQ(m.at("owned_by"), "perfhound");
  EXPECT_EQ(m.size(), 4u);
}

TEST(ErrorBody, InvalidRequestShape) {
  const json j = json::parse(error_body({400, "'max_tokens' must be an integer >= 1, got 0", "max_tokens"}));
  ASSERT_EQ(j.size(), 1u);
  const json& e = j.at("error");
  EXPECT_EQ(e.at("message"), "'max_tokens' must be an integer >= 1, got 0");
  EXPECT_EQ(e.at("type"), "invalid_request_error");
  EXPECT_EQ(e.at("param"), "max_tokens");
  EXPECT_TRUE(e.at("code").is_null());
  EXPECT_EQ(e.size(), 4u);
}

TEST(ErrorBody, NoParamIsNullAndStatusPicksTheType) {
  const json bad = json::parse(error_body({400, "request body is not valid JSON", ""}));
  EXPECT_TRUE(bad["error"].at("param").is_null());
  const json limited = json::parse(error_body({429, "slow down", ""}));
  EXPECT_EQ(limited["error"]["type"], "requests");
  EXPECT_EQ(limited["error"]["code"], "rate_limit_exceeded");
  const json server = json::parse(error_body({503, "overloaded", ""}));
  EXPECT_EQ(server["error"]["type"], "server_error");
  EXPECT_TRUE(server["error"]["code"].is_null());
  // Messages quoting client bytes that are not UTF-8 still give valid JSON.
  const json replaced = json::parse(error_body({400, "bad \xff byte", "model"}));
  EXPECT_EQ(replaced["error"]["param"], "model");
}

// ---- approximate_tokens, counted by hand

TEST(ApproximateTokens, HandCounted) {
  EXPECT_EQ(approximate_tokens(""), 0);
  EXPECT_EQ(approximate_tokens(" \t\r\n "), 0);
  EXPECT_EQ(approximate_tokens("hello"), 1);
  EXPECT_EQ(approximate_tokens("Hello, world!"), 4);   // Hello , world !
  EXPECT_EQ(approximate_tokens("don't"), 3);           // don ' t
  EXPECT_EQ(approximate_tokens("a+b=c"), 5);           // a + b = c
  EXPECT_EQ(approximate_tokens("3.14"), 3);            // 3 . 14
  EXPECT_EQ(approximate_tokens("x...y"), 5);           // x . . . y
  EXPECT_EQ(approximate_tokens("  two   words  "), 2);
}

TEST(ApproximateTokens, LongWordsSplitPerFourBytesBeyondEight) {
  EXPECT_EQ(approximate_tokens("abcdefgh"), 1);              // 8 bytes
  EXPECT_EQ(approximate_tokens("abcdefghi"), 2);             // 9: 1 + ceil(1/4)
  EXPECT_EQ(approximate_tokens("abcdefghijkl"), 2);          // 12: 1 + ceil(4/4)
  EXPECT_EQ(approximate_tokens("abcdefghijklm"), 3);         // 13: 1 + ceil(5/4)
  EXPECT_EQ(approximate_tokens("internationalization"), 4);  // 20: 1 + ceil(12/4)
}

TEST(ApproximateTokens, Utf8StaysInsideWords) {
  EXPECT_EQ(approximate_tokens("h\xc3\xa9llo"), 1);                       // héllo, 6 bytes
  EXPECT_EQ(approximate_tokens("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"), 2);  // 日本語, 9 bytes
  EXPECT_EQ(approximate_tokens("caf\xc3\xa9, ok"), 3);                   // café , ok
}

// ---- parse_request: prompt forms and defaults

TEST(ParseRequest, CompletionsStringPromptAndDefaults) {
  const ParsedRequest r = parse_ok(R"({"model": "m", "prompt": "Hello, world!"})");
  EXPECT_EQ(r.endpoint, Endpoint::kCompletions);
  EXPECT_EQ(r.model, "m");
  EXPECT_EQ(r.prompt_tokens, 4);
  EXPECT_EQ(r.max_tokens, 16);
  EXPECT_EQ(r.max_tokens, kDefaultCompletionsMaxTokens);
  EXPECT_FALSE(r.stream);
  EXPECT_FALSE(r.include_usage);
  EXPECT_FALSE(r.ignore_eos);
  EXPECT_FALSE(r.emit_timestamps);
}

TEST(ParseRequest, PromptArrayOfStringsSums) {
  EXPECT_EQ(parse_ok(R"({"model": "m", "prompt": ["Hello, world!", "two words", ""]})").prompt_tokens, 4 + 2 + 0);
}

TEST(ParseRequest, PromptTokenIdsCount) {
  EXPECT_EQ(parse_ok(R"({"model": "m", "prompt": [101, 2023, 0, 7]})").prompt_tokens, 4);
  EXPECT_EQ(parse_ok(R"({"model": "m", "prompt": [[1, 2], [3], [4, 5, 6]]})").prompt_tokens, 6);
}

TEST(ParseRequest, VllmPromptTokenIds) {
  EXPECT_EQ(parse_ok(R"({"model": "m", "prompt_token_ids": [1, 2, 3, 4, 5]})").prompt_tokens, 5);
  // Explicit ids decide the length over the approximation, on either endpoint.
  EXPECT_EQ(parse_ok(R"({"model": "m", "prompt": "a b c d e f g", "prompt_token_ids": [9, 9]})").prompt_tokens, 2);
  EXPECT_EQ(parse_ok(R"({"model": "m", "prompt_token_ids": [1, 2, 3]})", Endpoint::kChatCompletions).prompt_tokens,
            3);
}

TEST(ParseRequest, ChatMessagesAddFourPerMessage) {
  // "You are terse." = You are terse . = 4, +4; "Hello, world!" = 4, +4; total 16.
  const ParsedRequest r = parse_ok(
      R"({"model": "m", "messages": [{"role": "system", "content": "You are terse."},
                                     {"role": "user", "content": "Hello, world!"}]})",
      Endpoint::kChatCompletions);
  EXPECT_EQ(r.endpoint, Endpoint::kChatCompletions);
  EXPECT_EQ(r.prompt_tokens, (4 + 4) + (4 + 4));
  EXPECT_EQ(r.max_tokens, kDefaultChatMaxTokens);
}

TEST(ParseRequest, ChatContentPartsAndNullContent) {
  // Parts "Hi there" (2) + "again" (1) = 3, +4; assistant with content null: 0 + 4.
  const ParsedRequest r = parse_ok(
      R"({"model": "m", "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Hi there"}, {"type": "text", "text": "again"}]},
            {"role": "assistant", "content": null, "tool_calls": []}]})",
      Endpoint::kChatCompletions);
  EXPECT_EQ(r.prompt_tokens, (3 + 4) + (0 + 4));
}

TEST(ParseRequest, ChatMaxCompletionTokensWinsOverMaxTokens) {
  EXPECT_EQ(parse_ok(R"({"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":50})",
                     Endpoint::kChatCompletions)
                .max_tokens,
            50);
  EXPECT_EQ(parse_ok(R"({"model":"m","messages":[{"role":"user","content":"x"}],"max_completion_tokens":7})",
                     Endpoint::kChatCompletions)
                .max_tokens,
            7);
  EXPECT_EQ(parse_ok(R"({"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":50,
                         "max_completion_tokens":7})",
                     Endpoint::kChatCompletions)
                .max_tokens,
            7);
}

TEST(ParseRequest, FlagsAndExtensions) {
  const ParsedRequest r = parse_ok(
      R"({"model": "m", "prompt": "x", "max_tokens": 128, "n": 1, "stream": true,
          "stream_options": {"include_usage": true}, "ignore_eos": true, "perfhound_emit_ts": true,
          "temperature": 0.7, "top_p": 1, "stop": null})");
  EXPECT_EQ(r.max_tokens, 128);
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.include_usage);
  EXPECT_TRUE(r.ignore_eos);
  EXPECT_TRUE(r.emit_timestamps);
}

TEST(ParseRequest, NullMeansAbsent) {
  const ParsedRequest r =
      parse_ok(R"({"model": "m", "prompt": "x", "max_tokens": null, "n": null, "stream": null,
                   "stream_options": null})");
  EXPECT_EQ(r.max_tokens, 16);
  EXPECT_FALSE(r.stream);
  EXPECT_FALSE(r.include_usage);
}

TEST(ParseRequest, StreamOptionsWithoutIncludeUsage) {
  EXPECT_FALSE(parse_ok(R"({"model": "m", "prompt": "x", "stream": true, "stream_options": {}})").include_usage);
}

// ---- parse_request: every error names its field

// Found by tests/fuzz/fuzz_openai_request (its input is tests/fuzz/regressions/fuzz_openai_request/
// number-overflow): nlohmann throws out_of_range, not parse_error, for a number no double holds, and the
// uncaught exception took the whole simulator down. Now it is a 400 like any other bad body.
TEST(ParseRequestErrors, ANumberTooLargeForADoubleIsA400NotACrash) {
  for (const char* body : {R"({"model": "m", "prompt": "x", "max_tokens": 1e999})",
                           R"({"model": "m", "prompt": "x", "temperature": 88888888888888888888888882E888888})"}) {
    const ApiError e = parse_error(body);
    EXPECT_EQ(e.status, 400) << body;
    EXPECT_NE(e.message.find("not valid JSON: number overflow parsing"), std::string::npos) << e.message;
    EXPECT_EQ(e.message.find("json.exception"), std::string::npos) << e.message;
  }
}

TEST(ParseRequestErrors, InvalidJson) {
  const ApiError e = parse_error(R"({"model": "m", "prompt": )");
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.param, "");
  EXPECT_NE(e.message.find("not valid JSON"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("byte"), std::string::npos) << e.message;
  EXPECT_EQ(e.message.find("json.exception"), std::string::npos) << e.message;
  EXPECT_EQ(parse_error("").status, 400);
  EXPECT_EQ(parse_error("{\"model\": \"m\"} trailing").status, 400);
}

TEST(ParseRequestErrors, BodyNotAnObject) { expect_400(R"([{"model": "m"}])", "", "JSON object"); }

TEST(ParseRequestErrors, Model) {
  expect_400(R"({"prompt": "x"})", "model", "required");
  expect_400(R"({"model": null, "prompt": "x"})", "model", "required");
  expect_400(R"({"model": 5, "prompt": "x"})", "model", "a string");
  expect_400(R"({"model": "", "prompt": "x"})", "model", "empty");
}

TEST(ParseRequestErrors, MissingPromptOrMessages) {
  expect_400(R"({"model": "m"})", "prompt", "required");
  expect_400(R"({"model": "m"})", "messages", "required", Endpoint::kChatCompletions);
  // A completions-style prompt does not stand in for chat messages.
  expect_400(R"({"model": "m", "prompt": "x"})", "messages", "required", Endpoint::kChatCompletions);
}

TEST(ParseRequestErrors, PromptTypes) {
  expect_400(R"({"model": "m", "prompt": 5})", "prompt", "got an integer (5)");
  expect_400(R"({"model": "m", "prompt": {"text": "x"}})", "prompt", "an object");
  expect_400(R"({"model": "m", "prompt": []})", "prompt", "empty");
  expect_400(R"({"model": "m", "prompt": ["a", 1]})", "prompt[1]", "a string");
  expect_400(R"({"model": "m", "prompt": [1, -2]})", "prompt[1]", "-2");
  expect_400(R"({"model": "m", "prompt": [1, "a"]})", "prompt[1]", "\"a\"");
  expect_400(R"({"model": "m", "prompt": [1, 2.5]})", "prompt[1]", "2.5");
  expect_400(R"({"model": "m", "prompt": [[1], [2, "x"]]})", "prompt[1][1]", "token id");
  expect_400(R"({"model": "m", "prompt": [[1], 2]})", "prompt[1]", "an integer");
  expect_400(R"({"model": "m", "prompt": [true]})", "prompt[0]", "a boolean");
  expect_400(R"({"model": "m", "prompt_token_ids": "1 2 3"})", "prompt_token_ids", "a string");
  expect_400(R"({"model": "m", "prompt_token_ids": [1, "2"]})", "prompt_token_ids[1]", "token id");
}

TEST(ParseRequestErrors, MessageTypes) {
  const auto chat = Endpoint::kChatCompletions;
  expect_400(R"({"model": "m", "messages": "hi"})", "messages", "a string", chat);
  expect_400(R"({"model": "m", "messages": []})", "messages", "empty", chat);
  expect_400(R"({"model": "m", "messages": [5]})", "messages[0]", "an integer", chat);
  expect_400(R"({"model": "m", "messages": [{"content": "hi"}]})", "messages[0].role", "required", chat);
  expect_400(R"({"model": "m", "messages": [{"role": 1, "content": "hi"}]})", "messages[0].role", "a string", chat);
  expect_400(R"({"model": "m", "messages": [{"role": "user", "content": "a"}, {"role": "user", "content": 7}]})",
             "messages[1].content", "an integer", chat);
  expect_400(R"({"model": "m", "messages": [{"role": "user", "content": [{"type": "image_url",
                 "image_url": {"url": "http://x"}}]}]})",
             "messages[0].content[0].type", "image_url", chat);
  expect_400(R"({"model": "m", "messages": [{"role": "user", "content": [{"type": "text"}]}]})",
             "messages[0].content[0].text", "a string", chat);
  expect_400(R"({"model": "m", "messages": [{"role": "user", "content": ["hi"]}]})", "messages[0].content[0]",
             "a string", chat);
}

TEST(ParseRequestErrors, MaxTokens) {
  expect_400(R"({"model": "m", "prompt": "x", "max_tokens": 0})", "max_tokens", "got 0");
  expect_400(R"({"model": "m", "prompt": "x", "max_tokens": -3})", "max_tokens", "got -3");
  expect_400(R"({"model": "m", "prompt": "x", "max_tokens": "16"})", "max_tokens", "a string (\"16\")");
  expect_400(R"({"model": "m", "prompt": "x", "max_tokens": 1.5})", "max_tokens", "1.5");
  expect_400(R"({"model": "m", "prompt": "x", "max_tokens": 18446744073709551615})", "max_tokens", "too large");
  expect_400(R"({"model": "m", "messages": [{"role": "user", "content": "x"}], "max_completion_tokens": 0})",
             "max_completion_tokens", "got 0", Endpoint::kChatCompletions);
}

TEST(ParseRequestErrors, N) {
  expect_400(R"({"model": "m", "prompt": "x", "n": 2})", "n", "got 2");
  expect_400(R"({"model": "m", "prompt": "x", "n": 0})", "n", "got 0");
  expect_400(R"({"model": "m", "prompt": "x", "n": "1"})", "n", "a string");
}

TEST(ParseRequestErrors, BooleansAndStreamOptions) {
  expect_400(R"({"model": "m", "prompt": "x", "stream": "yes"})", "stream", "true or false");
  expect_400(R"({"model": "m", "prompt": "x", "stream": 1})", "stream", "an integer");
  expect_400(R"({"model": "m", "prompt": "x", "ignore_eos": 1})", "ignore_eos", "true or false");
  expect_400(R"({"model": "m", "prompt": "x", "perfhound_emit_ts": "on"})", "perfhound_emit_ts", "true or false");
  expect_400(R"({"model": "m", "prompt": "x", "stream_options": {"include_usage": true}})", "stream_options",
             "only allowed when 'stream' is true");
  expect_400(R"({"model": "m", "prompt": "x", "stream": true, "stream_options": true})", "stream_options",
             "an object");
  expect_400(R"({"model": "m", "prompt": "x", "stream": true, "stream_options": {"include_usage": "true"}})",
             "stream_options.include_usage", "true or false");
}

TEST(ParseRequestErrors, OversizedBodyIs413) {
  const std::string body(kMaxBodyBytes + 1, ' ');
  const ApiError e = parse_error(body);
  EXPECT_EQ(e.status, 413);
  EXPECT_NE(e.message.find("limit"), std::string::npos);
}

TEST(ParseRequestErrors, ErrorsRoundTripThroughTheErrorBody) {
  const ApiError e = parse_error(R"({"model": "m", "prompt": "x", "n": 2})");
  const json j = json::parse(error_body(e));
  EXPECT_EQ(j["error"]["param"], "n");
  EXPECT_EQ(j["error"]["type"], "invalid_request_error");
  EXPECT_EQ(j["error"]["message"], e.message);
}

}  // namespace
}  // namespace perfhound::serve
