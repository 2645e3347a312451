// The HTTP server end to end over loopback, with a deterministic engine (FixedStepEngine: one token per
// request per step) so every count is known: real sockets, real chunked encoding, real SSE.
#include "serve/http_server.h"

#include "serve/openai_protocol.h"
#include "serve/sim_token_engine.h"

#include "hw/chip_spec.h"
#include "model/model_shape.h"
#include "model/transformer_math.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

namespace perfhound::serve {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using ::testing::HasSubstr;
using Json = nlohmann::json;

// A server on a free loopback port, run on its own thread for the test's lifetime.
class RunningServer {
 public:
  explicit RunningServer(FaultConfig faults = {}, double step_s = 1e-3, double time_scale = 1000) {
    ServerConfig config;
    config.port = 0;
    config.model_name = "test-model";
    config.time_scale = time_scale;
    config.faults = faults;
    auto server = HttpServer::create(config, std::make_unique<FixedStepEngine>(step_s));
    EXPECT_TRUE(server.ok()) << server.error().message;
    server_ = std::move(server).value();
    thread_ = std::thread([this] { server_->run(); });
  }
  ~RunningServer() {
    server_->stop();
    thread_.join();
  }
  std::uint16_t port() const { return server_->port(); }

 private:
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
};

class Client {
 public:
  explicit Client(std::uint16_t port) : socket_(ioc_) { socket_.connect({net::ip::make_address("127.0.0.1"), port}); }

  http::response<http::string_body> send(http::verb verb, std::string target, std::string body = "",
                                         const std::vector<std::pair<std::string, std::string>>& headers = {}) {
    http::request<http::string_body> req{verb, target, 11};
    req.set(http::field::host, "127.0.0.1");
    for (const auto& [name, value] : headers) req.set(name, value);
    req.set(http::field::content_type, "application/json");
    req.keep_alive(true);
    req.body() = std::move(body);
    req.prepare_payload();
    http::write(socket_, req);
    http::response_parser<http::string_body> parser;
    parser.body_limit(64u << 20);
    http::read(socket_, buffer_, parser);
    return parser.release();
  }

 private:
  net::io_context ioc_;
  tcp::socket socket_;
  beast::flat_buffer buffer_;
};

// The JSON payloads of an SSE body ("data: ...\n\n" events), "[DONE]" kept as a string.
std::vector<std::string> sse_data(const std::string& body) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while ((pos = body.find("data: ", pos)) != std::string::npos) {
    const auto end = body.find("\n\n", pos);
    out.push_back(body.substr(pos + 6, end - pos - 6));
    pos = end == std::string::npos ? body.size() : end + 2;
  }
  return out;
}

constexpr const char* kChatStream =
    R"({"model": "test-model", "messages": [{"role": "user", "content": "hi there"}], "max_tokens": 7,
        "stream": true, "stream_options": {"include_usage": true}})";

TEST(HttpServer, HealthModelsAndUnknownRoutes) {
  RunningServer server;
  Client c(server.port());
  EXPECT_EQ(c.send(http::verb::get, "/health").result_int(), 200);
  const auto models = c.send(http::verb::get, "/v1/models");
  ASSERT_EQ(models.result_int(), 200);
  const Json m = Json::parse(models.body());
  EXPECT_EQ(m["object"], "list");
  EXPECT_EQ(m["data"][0]["id"], "test-model");
  const auto missing = c.send(http::verb::get, "/v2/nothing");
  EXPECT_EQ(missing.result_int(), 404);
  EXPECT_EQ(Json::parse(missing.body())["error"]["type"], "invalid_request_error");
  EXPECT_EQ(c.send(http::verb::get, "/v1/completions").result_int(), 405);
}

TEST(HttpServer, StreamedChatHasRoleContentFinishUsageDone) {
  RunningServer server;
  Client c(server.port());
  const auto res = c.send(http::verb::post, "/v1/chat/completions", kChatStream);
  ASSERT_EQ(res.result_int(), 200);
  EXPECT_EQ(res[http::field::content_type], "text/event-stream");
  EXPECT_TRUE(res.chunked());
  const auto events = sse_data(res.body());
  // 7 tokens: the first chunk carries the role and the first token's text comes in its own chunk? No: the
  // protocol layer puts the role in the first token chunk's delta; count content-carrying chunks instead.
  ASSERT_GE(events.size(), 4u);
  EXPECT_EQ(events.back(), "[DONE]");
  int content = 0;
  std::string id;
  for (std::size_t i = 0; i + 1 < events.size(); ++i) {
    const Json e = Json::parse(events[i]);
    if (id.empty()) id = e["id"];
    EXPECT_EQ(e["id"], id);  // one id for the whole stream
    EXPECT_EQ(e["object"], "chat.completion.chunk");
    if (!e["choices"].empty() && e["choices"][0]["delta"].contains("content") &&
        !e["choices"][0]["delta"]["content"].get<std::string>().empty()) {
      ++content;
    }
  }
  EXPECT_EQ(content, 7);
  const Json finish = Json::parse(events[events.size() - 3]);
  EXPECT_EQ(finish["choices"][0]["finish_reason"], "length");
  const Json usage = Json::parse(events[events.size() - 2]);
  EXPECT_TRUE(usage["choices"].empty());
  EXPECT_EQ(usage["usage"]["completion_tokens"], 7);
  // Prompt: "hi there" is 2 tokens, plus the 4-token per-message overhead.
  EXPECT_EQ(usage["usage"]["prompt_tokens"], 6);
  EXPECT_EQ(usage["usage"]["total_tokens"], 13);
}

TEST(HttpServer, NonStreamingCompletionAndKeepAlive) {
  RunningServer server;
  Client c(server.port());
  for (int i = 0; i < 3; ++i) {  // three requests on one connection
    const auto res = c.send(http::verb::post, "/v1/completions", R"({"model": "m", "prompt": "a b c", "max_tokens": 4})");
    ASSERT_EQ(res.result_int(), 200);
    const Json r = Json::parse(res.body());
    EXPECT_EQ(r["object"], "text_completion");
    EXPECT_EQ(r["choices"][0]["text"], " the model streams tokens");
    EXPECT_EQ(r["usage"]["completion_tokens"], 4);
    EXPECT_EQ(r["usage"]["prompt_tokens"], 3);
  }
}

TEST(HttpServer, BadRequestsGetTheOpenAiErrorAndTheServerStaysUp) {
  RunningServer server;
  Client c(server.port());
  const auto bad_json = c.send(http::verb::post, "/v1/completions", "{not json");
  EXPECT_EQ(bad_json.result_int(), 400);
  EXPECT_EQ(Json::parse(bad_json.body())["error"]["type"], "invalid_request_error");
  const auto no_tokens = c.send(http::verb::post, "/v1/completions", R"({"model": "m", "prompt": "x", "max_tokens": 0})");
  EXPECT_EQ(no_tokens.result_int(), 400);
  EXPECT_EQ(Json::parse(no_tokens.body())["error"]["param"], "max_tokens");
  const auto no_model = c.send(http::verb::post, "/v1/completions", R"({"prompt": "x"})");
  EXPECT_EQ(no_model.result_int(), 400);
  EXPECT_EQ(Json::parse(no_model.body())["error"]["param"], "model");
  // Still serving afterwards, on the same connection.
  EXPECT_EQ(c.send(http::verb::get, "/health").result_int(), 200);
}

// The simulator listens on loopback unless told otherwise: the kernel's own table of listening sockets
// (/proc/net/tcp, addresses in little-endian hex) shows 127.0.0.1 for its port, not 0.0.0.0.
TEST(HttpServer, ListensOnLoopbackByDefault) {
  RunningServer server;
  std::ifstream tcp("/proc/net/tcp");
  if (!tcp) GTEST_SKIP() << "no /proc/net/tcp";
  char port_hex[8];
  std::snprintf(port_hex, sizeof port_hex, "%04X", static_cast<unsigned>(server.port()));
  std::string line, local_address;
  std::getline(tcp, line);  // the header
  while (std::getline(tcp, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state;
    fields >> slot >> local >> remote >> state;
    if (state == "0A" && local.substr(local.find(':') + 1) == port_hex) local_address = local.substr(0, local.find(':'));
  }
  EXPECT_EQ(local_address, "0100007F");  // 127.0.0.1
}

// Request line and headers have a limit too (16 KiB, as h11 under vLLM's uvicorn): over it is a 431 and the
// connection closes; just under it is served.
TEST(HttpServer, OversizedHeadersAre431AndJustUnderTheLimitIsServed) {
  RunningServer server;
  Client c(server.port());
  const auto over = c.send(http::verb::get, "/health", "", {{"X-Padding", std::string(kMaxHeaderBytes, 'a')}});
  EXPECT_EQ(over.result_int(), 431);
  EXPECT_FALSE(over.keep_alive());
  EXPECT_THAT(Json::parse(over.body())["error"]["message"].get<std::string>(), HasSubstr("16384 bytes"));
  Client under(server.port());
  // The padding plus the request line, Host, Content-Type and Connection stay below 16,384 bytes.
  EXPECT_EQ(under.send(http::verb::get, "/health", "", {{"X-Padding", std::string(kMaxHeaderBytes - 512, 'a')}}).result_int(),
            200);
}

TEST(HttpServer, OversizedBodyIs413) {
  RunningServer server;
  Client c(server.port());
  const std::string huge = R"({"model": "m", "prompt": ")" + std::string(kMaxBodyBytes + 10, 'a') + R"("})";
  EXPECT_EQ(c.send(http::verb::post, "/v1/completions", huge).result_int(), 413);
  Client again(server.port());
  EXPECT_EQ(again.send(http::verb::get, "/health").result_int(), 200);
}

// When each token of one streamed completion (max_tokens) arrived, in seconds after the request was written: a
// raw socket, so the times are of the reads that returned each token's event.
std::vector<double> token_arrivals(std::uint16_t port, int max_tokens) {
  net::io_context ioc;
  tcp::socket socket(ioc);
  socket.connect({net::ip::make_address("127.0.0.1"), port});
  const std::string body = R"({"model": "test-model", "prompt": "hello", "stream": true, "max_tokens": )" +
                           std::to_string(max_tokens) + "}";
  const std::string request = "POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                              "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  const auto sent = std::chrono::steady_clock::now();
  net::write(socket, net::buffer(request));
  std::vector<double> token_s;
  std::string text;
  while (text.find("[DONE]") == std::string::npos) {
    std::array<char, 4096> buf;
    const std::size_t n = socket.read_some(net::buffer(buf));
    const double at = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
    const std::string piece(buf.data(), n);
    for (std::size_t pos = 0; (pos = piece.find("\"text\":\"", pos)) != std::string::npos; ++pos) {
      if (piece.compare(pos, 9, "\"text\":\"\"") != 0) token_s.push_back(at);  // an empty text is not a token
    }
    text += piece;
  }
  return token_s;
}

// Steps of milliseconds are delivered one at a time, each at its own end: a lone request's first token comes one
// step after it is sent and the rest a step apart. (The delivery batching once took a second step before
// checking the window, so tokens came in pairs every two steps and TTFT was two steps.) 20 ms steps at time
// scale 0.1 are 200 ms of wall time: a delivery would have to be 100 ms late to fail this.
TEST(HttpServer, StepsLongerThanTheDeliveryWindowAreDeliveredOneAtATime) {
  constexpr double kStepWallS = 0.2;
  RunningServer server({}, 0.02, 0.1);
  const std::vector<double> token_s = token_arrivals(server.port(), 5);
  ASSERT_EQ(token_s.size(), 5u);
  EXPECT_GE(token_s[0], kStepWallS * 0.95);  // never before its step's end
  EXPECT_LT(token_s[0], kStepWallS * 1.5);   // one step, not two
  for (std::size_t i = 1; i < token_s.size(); ++i) {
    EXPECT_GT(token_s[i] - token_s[i - 1], kStepWallS * 0.5) << "token " << i << " came with the one before";
  }
}

// An engine whose steps take the listed times, one token a step for its one request.
class ScriptedEngine final : public TokenEngine {
 public:
  explicit ScriptedEngine(std::vector<double> steps_s) : steps_s_(std::move(steps_s)) {}
  core::Result<std::uint64_t> submit(std::int64_t, std::int64_t, double) override {
    active_ = true;
    return std::uint64_t{1};
  }
  bool has_work() const override { return active_ && next_ < steps_s_.size(); }
  EngineStep step(double) override {
    EngineStep s;
    s.duration_s = steps_s_[next_++];
    s.events.push_back({1, 1, next_ == steps_s_.size()});
    return s;
  }
  EngineGauges gauges() const override { return {}; }

 private:
  std::vector<double> steps_s_;
  std::size_t next_ = 0;
  bool active_ = false;
};

// Two 10 us steps, then a 300 ms one (a prefill after decodes): the two short steps fit the 50 us window and
// are taken together, the long one is taken with them (it was expected to be as short) but ends far past the
// window. The short steps' tokens go at their own end, not held for the long step's; its token at its end.
TEST(HttpServer, AStepEndingPastTheWindowDoesNotHoldTheTokensBeforeIt) {
  ServerConfig config;
  config.port = 0;
  config.model_name = "test-model";
  auto server = HttpServer::create(config, std::make_unique<ScriptedEngine>(std::vector<double>{10e-6, 10e-6, 0.3}));
  ASSERT_TRUE(server.ok());
  std::thread thread([&] { server.value()->run(); });
  const std::vector<double> token_s = token_arrivals(server.value()->port(), 3);
  server.value()->stop();
  thread.join();
  ASSERT_EQ(token_s.size(), 3u);
  EXPECT_LT(token_s[1], 0.15) << "the short steps' tokens waited for the long step";
  EXPECT_GE(token_s[2], 0.3 * 0.95);
}

TEST(HttpServer, ManyConcurrentStreamsAllComplete) {
  RunningServer server;
  constexpr int kClients = 64;
  std::vector<std::thread> threads;
  std::atomic<int> complete{0};
  for (int i = 0; i < kClients; ++i) {
    threads.emplace_back([&] {
      Client c(server.port());
      const auto res = c.send(http::verb::post, "/v1/chat/completions", kChatStream);
      const auto events = sse_data(res.body());
      if (res.result_int() == 200 && !events.empty() && events.back() == "[DONE]") ++complete;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(complete.load(), kClients);
  Client c(server.port());
  const std::string metrics = c.send(http::verb::get, "/metrics").body();
  EXPECT_THAT(metrics, HasSubstr("vllm:request_success_total{model_name=\"test-model\",finished_reason=\"length\"} 64"));
  EXPECT_THAT(metrics, HasSubstr("vllm:generation_tokens_total{model_name=\"test-model\"} 448"));  // 64 x 7
  EXPECT_THAT(metrics, HasSubstr("vllm:time_to_first_token_seconds_count{model_name=\"test-model\"} 64"));
}

TEST(HttpServerFaults, StatusFaultsAnswerWithTheOpenAiError) {
  FaultConfig f;
  f.status_503 = 1.0;
  RunningServer server(f);
  Client c(server.port());
  const auto res = c.send(http::verb::post, "/v1/chat/completions", kChatStream);
  EXPECT_EQ(res.result_int(), 503);
  EXPECT_THAT(Json::parse(res.body())["error"]["message"].get<std::string>(), HasSubstr("simulated fault"));
}

TEST(HttpServerFaults, ResetClosesTheStreamHalfway) {
  FaultConfig f;
  f.reset = 1.0;
  RunningServer server(f);
  Client c(server.port());
  bool failed = false;
  try {
    c.send(http::verb::post, "/v1/chat/completions", kChatStream);
  } catch (const boost::system::system_error&) {
    failed = true;  // the chunked body never completes
  }
  EXPECT_TRUE(failed);
  Client again(server.port());
  EXPECT_EQ(again.send(http::verb::get, "/health").result_int(), 200);
}

TEST(HttpServerFaults, MalformedChunkAndStall) {
  FaultConfig f;
  f.malformed = 1.0;
  {
    RunningServer server(f);
    Client c(server.port());
    const auto events = sse_data(c.send(http::verb::post, "/v1/chat/completions", kChatStream).body());
    int invalid = 0;
    for (const auto& e : events) {
      if (e != "[DONE]" && Json::parse(e, nullptr, false).is_discarded()) ++invalid;
    }
    EXPECT_EQ(invalid, 1);
    EXPECT_EQ(events.back(), "[DONE]");
  }
  FaultConfig stall;
  stall.stall = 1.0;
  stall.stall_ms = 200;
  RunningServer server(stall);
  Client c(server.port());
  const auto start = std::chrono::steady_clock::now();
  const auto events = sse_data(c.send(http::verb::post, "/v1/chat/completions", kChatStream).body());
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_GE(elapsed, std::chrono::milliseconds(200));
  EXPECT_EQ(events.back(), "[DONE]");
}

// curl, the reference HTTP client, reads the stream as a user would (`curl -N`).
TEST(HttpServerWithCurl, StreamsToCurl) {
  if (std::system("command -v curl > /dev/null 2>&1") != 0) GTEST_SKIP() << "curl is not installed";
  RunningServer server;
  const std::string cmd = "curl -sN -H 'Content-Type: application/json' -d '{\"model\":\"m\",\"prompt\":\"x\",\"max_tokens\":5,"
                          "\"stream\":true}' http://127.0.0.1:" +
                          std::to_string(server.port()) + "/v1/completions";
  std::FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  EXPECT_EQ(pclose(pipe), 0);
  const auto events = sse_data(out);
  ASSERT_EQ(events.size(), 7u);  // 5 tokens, the finish chunk, [DONE]
  EXPECT_EQ(Json::parse(events[0])["choices"][0]["text"], " the");
  EXPECT_EQ(events.back(), "[DONE]");
}

TEST(HttpServerFaults, OverlongLineArrivesWhole) {
  FaultConfig f;
  f.overlong = 1.0;
  f.overlong_bytes = 100000;
  RunningServer server(f);
  Client c(server.port());
  const auto events = sse_data(c.send(http::verb::post, "/v1/chat/completions", kChatStream).body());
  std::size_t longest = 0;
  for (const auto& e : events) longest = std::max(longest, e.size());
  EXPECT_GT(longest, 100000u);
  EXPECT_EQ(events.back(), "[DONE]");
}

// The real engine model behind HTTP: one request alone on Llama-3-8B / H200 has TTFT = its prefill step,
// max(FLOPs / (989.5 TFLOP/s x 0.7), bytes / (4.8 TB/s x 0.8)) + 300 us (docs/simulator.md), and /metrics
// reports it. The server adds only scheduling delay, which --time-scale 0.01 shrinks a hundredfold in simulated
// time: the 5 ms allowance below is half a second of wall time, room for a loaded host or a sanitizer build.
TEST(HttpServerWithEngineModel, TtftOfALoneRequestIsItsPrefillStep) {
  sim::EngineConfig ec;
  ec.shape = model::model_preset("llama-3-8b").value();
  ec.chip = hw::find_chip("h200-sxm").value();
  auto engine = sim::Engine::create(ec);
  ASSERT_TRUE(engine.ok()) << engine.error().message;
  ServerConfig config;
  config.port = 0;
  config.model_name = "llama-3-8b";
  config.time_scale = 0.01;
  auto server = HttpServer::create(config, std::make_unique<SimTokenEngine>(std::move(engine).value()));
  ASSERT_TRUE(server.ok());
  std::thread thread([&] { server.value()->run(); });
  // 1000 prompt tokens: 1000 single-byte-free words "w " -> one token each.
  std::string prompt;
  for (int i = 0; i < 1000; ++i) prompt += "w ";
  {
    Client c(server.value()->port());
    const auto res = c.send(http::verb::post, "/v1/completions",
                            R"({"model": "llama-3-8b", "prompt": ")" + prompt + R"(", "max_tokens": 2})");
    ASSERT_EQ(res.result_int(), 200);
    EXPECT_EQ(Json::parse(res.body())["usage"]["prompt_tokens"], 1000);
    const std::string metrics = c.send(http::verb::get, "/metrics").body();
    const auto at = metrics.find("vllm:time_to_first_token_seconds_sum{model_name=\"llama-3-8b\"} ");
    ASSERT_NE(at, std::string::npos);
    const double ttft = std::stod(metrics.substr(metrics.find("} ", at) + 2));
    const auto shape = model::model_preset("llama-3-8b").value();
    const auto params = model::count_parameters(shape);
    model::Workload w;
    w.input_len = 1000;
    const model::StepCost cost = model::prefill_cost(shape, params, w);
    const double expected = std::max(cost.flops / (989.5e12 * 0.7), cost.bytes() / (4.8e12 * 0.8)) + 300e-6;
    EXPECT_GE(ttft, expected * (1 - 1e-6));
    EXPECT_LE(ttft, expected + 5e-3);  // scheduling delay: up to 0.5 s of wall time at this time scale
  }
  server.value()->stop();
  thread.join();
}

}  // namespace
}  // namespace perfhound::serve
