// The load client end to end over loopback against perfhound serve in-process, with the deterministic
// FixedStepEngine (one token per request per step), so every count is known: real sockets, chunked encoding,
// SSE, keep-alive, faults. Timing is asserted only where it is a bound by construction, never as a speed.
#include "load/load_runner.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/asio/ssl.hpp>

#include <algorithm>
#include <array>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <unistd.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <thread>

#include "load/receive_stamping_testing.h"
#include "load/length_distribution.h"
#include "load/request_latencies.h"
#include "load/workload.h"
#include "serve/http_server.h"
#include "serve/token_engine.h"

namespace perfhound::load {
namespace {

using ::testing::HasSubstr;
namespace net = boost::asio;
namespace ssl = net::ssl;
namespace beast = boost::beast;
using tcp = net::ip::tcp;

class RunningServer {
 public:
  explicit RunningServer(serve::FaultConfig faults = {}, double step_s = 1e-3, std::int64_t idle_timeout_ms = 120'000) {
    serve::ServerConfig config;
    config.port = 0;
    config.idle_timeout_ms = idle_timeout_ms;
    config.model_name = "test-model";
    config.faults = faults;
    config.handle_signals = false;  // SIGINT is the client's (the interrupt test raises it)
    auto server = serve::HttpServer::create(config, std::make_unique<serve::FixedStepEngine>(step_s));
    EXPECT_TRUE(server.ok()) << server.error().message;
    server_ = std::move(server).value();
    thread_ = std::thread([this] { server_->run(); });
  }
  ~RunningServer() {
    server_->stop();
    thread_.join();
  }
  std::uint16_t port() const { return server_->port(); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port()); }

  // GET path over a fresh connection; the body.
  std::string get(const std::string& path) const {
    namespace net = boost::asio;
    namespace http = boost::beast::http;
    net::io_context ioc;
    net::ip::tcp::socket socket(ioc);
    socket.connect({net::ip::make_address("127.0.0.1"), port()});
    http::request<http::empty_body> req{http::verb::get, path, 11};
    req.set(http::field::host, "127.0.0.1");
    http::write(socket, req);
    boost::beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(socket, buffer, res);
    return res.body();
  }

 private:
  std::unique_ptr<serve::HttpServer> server_;
  std::thread thread_;
};

class CollectingSink final : public RecordSink {
 public:
  void on_record(RequestRecord&& record) override { records.push_back(std::move(record)); }
  std::vector<RequestRecord> records;
};

ClientOptions client_for(const std::string& url) {
  ClientOptions client;
  auto parsed = parse_target_url(url);
  EXPECT_TRUE(parsed.ok());
  client.url = *parsed;
  client.request.model = "test-model";
  client.timeout_ns = 20'000'000'000;
  return client;
}

std::unique_ptr<Workload> fixed_workload(std::int64_t input, std::int64_t output) {
  return make_synthetic_workload(LengthDistribution::fixed(input), LengthDistribution::fixed(output), 7, false);
}

// A closed-loop run of `requests` requests, `concurrency` in flight, 8-token prompts asking for 4 tokens.
core::Result<RunOutcome> run_closed(const ClientOptions& client, std::int64_t concurrency, std::uint64_t requests,
                                    CollectingSink& sink) {
  RunPlan plan;
  plan.concurrency = concurrency;
  plan.measured_requests = requests;
  const auto workload = fixed_workload(8, 4);
  return run_load(client, plan, *workload, sink);
}

// An open-loop run of `requests` requests sent at intended(i), 8-token prompts asking for 4 tokens.
core::Result<RunOutcome> run_open(const ClientOptions& client, std::function<std::int64_t(std::uint64_t)> intended,
                                  std::uint64_t requests, CollectingSink& sink) {
  RunPlan plan;
  plan.mode = LoadMode::kOpenLoop;
  plan.intended_ns = std::move(intended);
  plan.measured_requests = requests;
  const auto workload = fixed_workload(8, 4);
  return run_load(client, plan, *workload, sink);
}

// Every index from 0 to n-1 exactly once.
void expect_each_index_once(const std::vector<RequestRecord>& records, std::size_t n) {
  std::set<std::uint64_t> seen;
  for (const auto& r : records) EXPECT_TRUE(seen.insert(r.index).second) << "index " << r.index << " twice";
  ASSERT_EQ(seen.size(), n);
  EXPECT_EQ(*seen.rbegin(), n - 1);
}

TEST(LoadRunner, ClosedLoopCompletesEveryRequestWithItsTokensOverKeptAliveConnections) {
  const testing::StampingOn stamping;
  ASSERT_TRUE(stamping.on()) << "no datagram came back stamped within a second of asking for SO_TIMESTAMPNS";
  RunningServer server;
  ClientOptions client = client_for(server.url());
  RunPlan plan;
  plan.mode = LoadMode::kClosedLoop;
  plan.concurrency = 4;
  plan.warmup_requests = 2;
  plan.measured_requests = 20;
  const auto workload = fixed_workload(16, 8);
  CollectingSink sink;
  auto outcome = run_load(client, plan, *workload, sink);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(outcome->issued, 22u);
  EXPECT_EQ(outcome->records, 22u);
  expect_each_index_once(sink.records, 22);
  for (const auto& r : sink.records) {
    EXPECT_TRUE(r.ok()) << error_kind_name(r.error) << ": " << r.error_message;
    EXPECT_EQ(r.warmup, r.index < 2);
    EXPECT_EQ(r.http_status, 200);
    EXPECT_EQ(r.content_chunks(), 8);          // one chunk per token from the fixed-step engine
    EXPECT_EQ(r.usage_completion_tokens, 8);   // include_usage was asked for
    EXPECT_EQ(r.usage_prompt_tokens, 16 + 4);  // the chat template's 4 tokens per message (docs/simulator.md)
    EXPECT_EQ(r.input_tokens, 16);
    EXPECT_EQ(r.intended_ns, r.sent_ns);       // closed loop: sent when the slot frees
    EXPECT_LE(r.sent_ns, r.first_byte_ns);
    EXPECT_LE(r.first_byte_ns, r.first_token_ns);
    EXPECT_LE(r.chunk_ns.back(), r.end_ns);
    EXPECT_TRUE(std::is_sorted(r.chunk_ns.begin(), r.chunk_ns.end()));
    // 8 engine steps of 1 ms at least separate send and end.
    EXPECT_GE(r.end_ns - r.sent_ns, 8'000'000);
  }
  // Keep-alive: one connection per concurrent slot, never one per request.
  EXPECT_EQ(outcome->health.connections_opened, 4);
  EXPECT_EQ(outcome->health.max_in_flight, 4);
  EXPECT_GT(outcome->health.loop_lag_ns.total_count(), 0);
  // Plain http: the reads carry the kernel's receive stamps.
  const auto& rx = outcome->health.receive;
  EXPECT_GE(rx.stamped_reads + rx.unstamped_reads, 22 * 2);  // at least the header read and one body read each
  EXPECT_GT(rx.stamped_reads, 10 * rx.unstamped_reads);
  EXPECT_EQ(rx.rejected_stamps, 0);
  EXPECT_EQ(rx.backlog_ns.total_count(), rx.stamped_reads);
}

TEST(LoadRunner, OpenLoopSendsOnScheduleAndMeasuresTheServersEmitDelay) {
  RunningServer server;
  ClientOptions client = client_for(server.url());
  client.request.emit_timestamps = true;
  CollectingSink sink;
  // 200 req/s, constant
  auto outcome = run_open(client, [](std::uint64_t i) { return static_cast<std::int64_t>(i) * 5'000'000; }, 30, sink);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  ASSERT_EQ(sink.records.size(), 30u);
  for (const auto& r : sink.records) {
    ASSERT_TRUE(r.ok()) << r.error_message;
    EXPECT_EQ(r.intended_ns, static_cast<std::int64_t>(r.index) * 5'000'000);
    EXPECT_GE(r.sent_ns, r.intended_ns);  // never early
  }
  EXPECT_EQ(outcome->health.dispatch_lag_ns.total_count(), 30);
  EXPECT_GT(outcome->health.emit_delay_ns.total_count(), 0);
  EXPECT_GE(outcome->health.emit_delay_ns.min(), 0);  // one steady clock: a chunk is never received before it is sent
}

TEST(LoadRunner, MaxConcurrencyHoldsArrivalsBackAndCountsTheWaitAsScheduleLag) {
  RunningServer server;
  ClientOptions client = client_for(server.url());
  RunPlan plan;
  plan.mode = LoadMode::kOpenLoop;
  plan.intended_ns = [](std::uint64_t) { return std::int64_t{0}; };  // all at once
  plan.max_concurrency = 2;
  plan.measured_requests = 6;
  const auto workload = fixed_workload(8, 10);  // 10 steps of 1 ms each
  CollectingSink sink;
  auto outcome = run_load(client, plan, *workload, sink);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->health.max_in_flight, 2);
  ASSERT_EQ(sink.records.size(), 6u);
  std::vector<std::int64_t> lags;
  for (const auto& r : sink.records) lags.push_back(r.sent_ns - r.intended_ns);
  std::sort(lags.begin(), lags.end());
  // The 5th and 6th wait for two requests ahead of them (>= 2 x 10 ms of steps).
  EXPECT_GE(lags[5], 20'000'000);
}

TEST(LoadRunner, EveryFaultIsARecordWithItsKindAndTheFailuresMatchTheServersCount) {
  serve::FaultConfig faults;
  faults.status_429 = 0.1;
  faults.status_503 = 0.1;
  faults.reset = 0.1;
  faults.malformed = 0.1;
  faults.overlong = 0.1;
  faults.seed = 3;
  RunningServer server(faults);
  ClientOptions client = client_for(server.url());
  client.max_event_bytes = 64 * 1024;  // the server's overlong line is 1 MiB
  RunPlan plan;
  plan.mode = LoadMode::kClosedLoop;
  plan.concurrency = 8;
  plan.measured_requests = 300;
  const auto workload = fixed_workload(8, 6);
  CollectingSink sink;
  auto outcome = run_load(client, plan, *workload, sink);
  ASSERT_TRUE(outcome.ok());
  expect_each_index_once(sink.records, 300);
  std::map<std::string, int> kinds;
  std::map<int, int> statuses;
  for (const auto& r : sink.records) {
    ++kinds[std::string(error_kind_name(r.error))];
    if (r.error == ErrorKind::kHttpStatus) {
      ++statuses[r.http_status];
      EXPECT_THAT(r.error_message, HasSubstr("HTTP "));
    }
    if (!r.ok()) {
      EXPECT_FALSE(r.error_message.empty());
    }
  }
  for (const char* kind : {"none", "http-status", "reset", "malformed", "overlong"}) {
    EXPECT_GT(kinds[kind], 0) << kind;
  }
  EXPECT_EQ(kinds.size(), 5u) << "only the injected kinds occur";
  EXPECT_GT(statuses[429], 0);
  EXPECT_GT(statuses[503], 0);
  // The server counts what it injected; the client must see exactly as many failures.
  const std::string metrics = server.get("/metrics");
  const std::string name = "\nperfhound:injected_faults_total{model_name=\"test-model\"} ";
  const std::size_t at = metrics.find(name);
  ASSERT_NE(at, std::string::npos) << metrics;
  const int injected = static_cast<int>(std::stod(metrics.substr(at + name.size())));
  EXPECT_EQ(300 - kinds["none"], injected);
}

// Resident memory of this process (client and in-process server), from /proc/self/status; 0 if unreadable.
std::int64_t resident_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  }
  return 0;
}

// Keeps only what the accounting needs (index and outcome), so the sink's own growth is known: 16 bytes a
// request. Reads the resident size after the 2,000th and the last record.
class AccountingSink final : public RecordSink {
 public:
  struct Outcome {
    std::uint64_t index;
    ErrorKind error;
    int http_status;
  };
  explicit AccountingSink(std::size_t expected) : expected_(expected) { outcomes.reserve(expected); }
  void on_record(RequestRecord&& r) override {
    outcomes.push_back({r.index, r.error, r.http_status});
    if (outcomes.size() == 2000) rss_early = resident_bytes();
    if (outcomes.size() == expected_) rss_late = resident_bytes();
  }
  std::vector<Outcome> outcomes;
  std::int64_t rss_early = 0, rss_late = 0;

 private:
  std::size_t expected_;
};

// The server's injected faults by kind, from its /metrics.
std::map<std::string, int> injected_by_kind(const std::string& metrics) {
  std::map<std::string, int> out;
  const std::string head = "perfhound:injected_faults_by_kind_total{model_name=\"test-model\",fault=\"";
  for (std::size_t at = metrics.find(head); at != std::string::npos; at = metrics.find(head, at + 1)) {
    const std::size_t name_start = at + head.size();
    const std::size_t name_end = metrics.find('"', name_start);
    out[metrics.substr(name_start, name_end - name_start)] = std::stoi(metrics.substr(metrics.find("} ", name_end) + 2));
  }
  return out;
}

// Issue 10: 10,000 requests with 5% of each of the seven fault kinds. Every request is recorded exactly once,
// each fault kind the server counts (by kind, on /metrics) is the error the client recorded as often, and the
// process's resident memory does not grow with the requests: past the first 2,000 it holds what it has.
TEST(LoadRunner, TenThousandRequestsUnderEveryFaultAreEachAccountedForAndMemoryStaysFlat) {
  serve::FaultConfig faults;
  faults.status_429 = faults.status_500 = faults.status_503 = 0.05;
  faults.reset = faults.stall = faults.malformed = faults.overlong = 0.05;
  // Beyond the client's 1 s timeout (a stall is a timeout), and short enough that few stalled sessions are still
  // open at the memory reading below.
  faults.stall_ms = 3'000;
  faults.seed = 11;
  RunningServer server(faults, 1e-4);
  ClientOptions client = client_for(server.url());
  // Long enough that no healthy request meets it on a busy CI host, sanitizer build included (at 100 ms, ctest -j2
  // beside this test turned 50 healthy or not-yet-faulted requests into timeouts), short enough to keep the stalls
  // cheap: about 500 of them, 64 at a time, cost some 8 s.
  client.timeout_ns = 1'000'000'000;
  client.max_event_bytes = 64 * 1024;  // the server's overlong line is 1 MiB
  RunPlan plan;
  plan.mode = LoadMode::kClosedLoop;
  plan.concurrency = 64;
  plan.measured_requests = 10'000;
  const auto workload = fixed_workload(8, 4);
  AccountingSink sink(10'000);
  auto outcome = run_load(client, plan, *workload, sink);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;

  std::vector<int> seen(10'000, 0);
  std::map<std::string, int> client_kinds;
  for (const auto& o : sink.outcomes) {
    ASSERT_LT(o.index, 10'000u);
    ++seen[o.index];
    std::string kind(error_kind_name(o.error));
    if (o.error == ErrorKind::kHttpStatus) kind = std::to_string(o.http_status);
    ++client_kinds[kind];
  }
  EXPECT_EQ(sink.outcomes.size(), 10'000u);
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 10'000) << "every request exactly once";

  const auto injected = injected_by_kind(server.get("/metrics"));
  // Server fault -> the client's outcome: the status codes as themselves, a stall as the client's timeout.
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"429", "429"}, {"500", "500"}, {"503", "503"}, {"reset", "reset"},
      {"stall", "timeout"}, {"malformed", "malformed"}, {"overlong", "overlong"}};
  int faulted = 0;
  for (const auto& [server_kind, client_kind] : expected) {
    const int n = injected.count(server_kind) ? injected.at(server_kind) : 0;
    // 5% of 10,000 is 500 with a binomial standard deviation of 21.8: 390-610 is five of them.
    EXPECT_GE(n, 390) << server_kind;
    EXPECT_LE(n, 610) << server_kind;
    EXPECT_EQ(client_kinds[client_kind], n) << server_kind << " injected " << n << ", the client saw "
                                            << client_kinds[client_kind] << " " << client_kind;
    faulted += n;
  }
  EXPECT_EQ(client_kinds["none"], 10'000 - faulted);
  EXPECT_EQ(client_kinds.size(), expected.size() + 1) << "no outcome the faults do not explain";

  // 8,000 requests after the first reading: a per-request leak of 2 KiB would add 16 MB. (The allowance is for
  // the allocator: the server's 1 MiB overlong lines come and go.)
  ASSERT_GT(sink.rss_early, 0);
  ::testing::Test::RecordProperty("rss_after_2000", std::to_string(sink.rss_early));
  ::testing::Test::RecordProperty("rss_after_10000", std::to_string(sink.rss_late));
  ::testing::Test::RecordProperty("faulted", faulted);
  EXPECT_LT(sink.rss_late - sink.rss_early, 16 << 20)
      << "resident " << sink.rss_early / 1e6 << " MB after 2,000 requests, " << sink.rss_late / 1e6 << " MB after 10,000";
}

TEST(LoadRunner, AStalledStreamHitsTheTimeoutAndTheRunEndsOnTime) {
  serve::FaultConfig faults;
  faults.stall = 1.0;
  faults.stall_ms = 30'000;
  RunningServer server(faults);
  ClientOptions client = client_for(server.url());
  client.timeout_ns = 300'000'000;
  RunPlan plan;
  plan.concurrency = 2;
  plan.measured_requests = 2;
  const auto workload = fixed_workload(8, 20);
  CollectingSink sink;
  auto outcome = run_load(client, plan, *workload, sink);
  ASSERT_TRUE(outcome.ok());
  ASSERT_EQ(sink.records.size(), 2u);
  for (const auto& r : sink.records) {
    EXPECT_EQ(r.error, ErrorKind::kTimeout) << r.error_message;
    EXPECT_GT(r.content_chunks(), 0);  // what arrived before the stall is kept
  }
  EXPECT_LT(outcome->health.wall_s, 5.0);
}

// A target that accepts connections (the kernel completes them into the listen backlog) and never reads or
// answers: every request hits its timeout and is recorded as such, and the run ends on time: the last intended
// send (250 ms) plus one timeout (300 ms), not later.
TEST(LoadRunner, ATargetThatNeverAnswersHitsTheTimeoutAndTheRunEndsOnTime) {
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::acceptor silent(ioc, {boost::asio::ip::make_address("127.0.0.1"), 0});
  silent.listen(64);
  ClientOptions client = client_for("http://127.0.0.1:" + std::to_string(silent.local_endpoint().port()));
  client.timeout_ns = 300'000'000;
  CollectingSink sink;
  const auto started = std::chrono::steady_clock::now();
  // 20 req/s
  auto outcome = run_open(client, [](std::uint64_t i) { return static_cast<std::int64_t>(i) * 50'000'000; }, 6, sink);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  ASSERT_EQ(sink.records.size(), 6u);
  expect_each_index_once(sink.records, 6);
  for (const auto& r : sink.records) {
    EXPECT_EQ(r.error, ErrorKind::kTimeout) << r.error_message;
    EXPECT_EQ(r.first_byte_ns, -1);
    EXPECT_GE(r.end_ns - r.sent_ns, 300'000'000 - 1'000'000);  // it waited the whole timeout (timer slack: 1 ms)
  }
  EXPECT_GE(wall_s, 0.25 + 0.3 - 0.01);
  EXPECT_LT(wall_s, 0.25 + 0.3 + 1.0);  // a second of slack for a loaded machine, never another timeout's worth more
}

// A response whose headers exceed the client's limit (16 KiB) is recorded as overlong, not read on without end.
TEST(LoadRunner, AResponseHeaderOverTheLimitIsOverlong) {
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::acceptor acceptor(ioc, {boost::asio::ip::make_address("127.0.0.1"), 0});
  const std::uint16_t port = acceptor.local_endpoint().port();
  std::thread server([&] {
    boost::asio::ip::tcp::socket socket(ioc);
    acceptor.accept(socket);
    boost::asio::streambuf request;
    boost::system::error_code ec;
    boost::asio::read_until(socket, request, "\r\n\r\n", ec);
    const std::string response = "HTTP/1.1 200 OK\r\nX-Padding: " + std::string(20 * 1024, 'p') +
                                 "\r\nContent-Type: text/event-stream\r\n\r\n";
    boost::asio::write(socket, boost::asio::buffer(response), ec);
    socket.shutdown(boost::asio::ip::tcp::socket::shutdown_send, ec);
    std::array<char, 4096> sink;
    while (!ec) socket.read_some(boost::asio::buffer(sink), ec);  // until the client closes
  });
  CollectingSink sink;
  auto outcome = run_closed(client_for("http://127.0.0.1:" + std::to_string(port)), 1, 1, sink);
  server.join();
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  ASSERT_EQ(sink.records.size(), 1u);
  EXPECT_EQ(sink.records[0].error, ErrorKind::kOverlong) << sink.records[0].error_message;
}

// A server that closes idle keep-alive connections (uvicorn, under vLLM, does after 5 s) leaves the client's pool
// holding closed sockets, all closed at about the same moment. A request that finds its connection closed is
// retried once on a new connection, not on the next pooled one, closed as well: every request completes. (Found
// by the 10-minute soak in bench/RESULTS.md: 4 of 24,000 requests failed this way against a 120 s timeout.)
TEST(LoadRunner, AfterAStaleConnectionTheRetryOpensANewOne) {
  RunningServer server({}, 1e-3, /*idle_timeout_ms=*/100);
  ClientOptions client = client_for(server.url());
  CollectingSink sink;
  // Two at once (two pooled connections), then one more after both have sat idle past the server's timeout.
  auto outcome = run_open(client, [](std::uint64_t i) { return i < 2 ? std::int64_t{0} : std::int64_t{500'000'000}; },
                          3, sink);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  ASSERT_EQ(sink.records.size(), 3u);
  for (const auto& r : sink.records) EXPECT_TRUE(r.ok()) << r.index << ": " << r.error_message;
  EXPECT_EQ(outcome->health.stale_connection_retries, 1);
  EXPECT_EQ(outcome->health.connections_opened, 3);
}

TEST(LoadRunner, ConnectionRefusedIsRecordedPerRequestAndTheRunGoesOn) {
  std::uint16_t closed_port = 0;
  {  // a port that was free a moment ago and has no listener now
    boost::asio::io_context ioc;
    boost::asio::ip::tcp::acceptor a(ioc, {boost::asio::ip::make_address("127.0.0.1"), 0});
    closed_port = a.local_endpoint().port();
  }
  CollectingSink sink;
  auto outcome = run_closed(client_for("http://127.0.0.1:" + std::to_string(closed_port)), 2, 5, sink);
  ASSERT_TRUE(outcome.ok());
  ASSERT_EQ(sink.records.size(), 5u);
  for (const auto& r : sink.records) {
    EXPECT_EQ(r.error, ErrorKind::kConnect) << r.error_message;
    EXPECT_THAT(r.error_message, HasSubstr(std::to_string(closed_port)));
  }
}

TEST(LoadRunner, SigintEndsTheRunWithEveryIssuedRequestRecordedAndMarksItPartial) {
  RunningServer server(serve::FaultConfig{}, 5e-3);
  ClientOptions client = client_for(server.url());
  RunPlan plan;
  plan.concurrency = 4;
  plan.measured_requests = 100000;
  const auto workload = fixed_workload(8, 50);  // 250 ms per request
  struct InterruptingSink final : RecordSink {
    void on_record(RequestRecord&& r) override {
      records.push_back(std::move(r));
      if (records.size() == 6) std::raise(SIGINT);
    }
    std::vector<RequestRecord> records;
  } sink;
  auto outcome = run_load(client, plan, *workload, sink);
  ASSERT_TRUE(outcome.ok());
  EXPECT_TRUE(outcome->interrupted);
  EXPECT_THAT(outcome->stop_reason, HasSubstr("SIGINT"));
  EXPECT_EQ(outcome->records, outcome->issued);
  EXPECT_EQ(sink.records.size(), outcome->issued);
  // Requests that ended between the raise and its handling completed; the rest were in flight: cancelled,
  // and recorded all the same.
  int cancelled = 0;
  for (const auto& r : sink.records) {
    EXPECT_TRUE(r.ok() || r.error == ErrorKind::kCancelled) << error_kind_name(r.error) << ": " << r.error_message;
    cancelled += r.error == ErrorKind::kCancelled;
  }
  EXPECT_GE(cancelled, 1);
  EXPECT_LT(outcome->issued, 40u);
}


// A TLS front for a plain server, as a TLS-terminating proxy would be: a self-signed certificate made with
// the openssl command line, each accepted connection handshaken and then piped both ways to the backend.
class TlsFront {
 public:
  TlsFront(std::uint16_t backend_port, const std::string& dir) : backend_port_(backend_port), ctx_(ssl::context::tls_server) {
    const std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost -keyout " + dir +
                            "/key.pem -out " + dir + "/cert.pem > /dev/null 2>&1";
    ok_ = std::system(cmd.c_str()) == 0;
    if (!ok_) return;
    ctx_.use_certificate_chain_file(dir + "/cert.pem");
    ctx_.use_private_key_file(dir + "/key.pem", ssl::context::pem);
    acceptor_.open(tcp::v4());
    acceptor_.bind({net::ip::make_address("127.0.0.1"), 0});
    acceptor_.listen();
    net::co_spawn(ioc_, accept_loop(), net::detached);
    thread_ = std::thread([this] { ioc_.run(); });
  }
  ~TlsFront() {
    ioc_.stop();
    if (thread_.joinable()) thread_.join();
  }
  bool ok() const { return ok_; }
  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }

 private:
  template <class From, class To>
  static net::awaitable<void> pipe(From& from, To& to) {
    std::array<char, 16384> buf{};
    boost::system::error_code ec;
    for (;;) {
      const std::size_t n = co_await from.async_read_some(net::buffer(buf), net::redirect_error(net::use_awaitable, ec));
      if (ec) break;
      co_await net::async_write(to, net::buffer(buf.data(), n), net::redirect_error(net::use_awaitable, ec));
      if (ec) break;
    }
    boost::system::error_code ignored;
    beast::get_lowest_layer(to).shutdown(tcp::socket::shutdown_send, ignored);
  }
  net::awaitable<void> serve(tcp::socket socket) {
    auto tls = std::make_shared<ssl::stream<tcp::socket>>(std::move(socket), ctx_);
    boost::system::error_code ec;
    co_await tls->async_handshake(ssl::stream_base::server, net::redirect_error(net::use_awaitable, ec));
    if (ec) co_return;
    auto backend = std::make_shared<tcp::socket>(ioc_);
    co_await backend->async_connect({net::ip::make_address("127.0.0.1"), backend_port_},
                                    net::redirect_error(net::use_awaitable, ec));
    if (ec) co_return;
    net::co_spawn(ioc_, [tls, backend]() -> net::awaitable<void> { co_await pipe(*tls, *backend); }, net::detached);
    co_await pipe(*backend, *tls);
  }
  net::awaitable<void> accept_loop() {
    for (;;) {
      boost::system::error_code ec;
      tcp::socket s = co_await acceptor_.async_accept(net::redirect_error(net::use_awaitable, ec));
      if (ec) co_return;
      net::co_spawn(ioc_, serve(std::move(s)), net::detached);
    }
  }

  std::uint16_t backend_port_;
  net::io_context ioc_;
  ssl::context ctx_;
  tcp::acceptor acceptor_{ioc_};
  std::thread thread_;
  bool ok_ = false;
};

TEST(LoadRunner, StreamsOverTlsAndRefusesAnUnverifiedCertificate) {
  RunningServer server;
  const std::string dir = "/tmp/perfhound_tls_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  TlsFront front(server.port(), dir);
  if (!front.ok()) GTEST_SKIP() << "the openssl command is not available to make a certificate";
  ClientOptions client = client_for("https://localhost:" + std::to_string(front.port()));
  RunPlan plan;
  plan.concurrency = 2;
  plan.measured_requests = 6;
  const auto workload = fixed_workload(8, 5);

  CollectingSink verified;  // the self-signed certificate is not in the system's CA store
  ASSERT_TRUE(run_load(client, plan, *workload, verified).ok());
  ASSERT_EQ(verified.records.size(), 6u);
  for (const auto& r : verified.records) EXPECT_EQ(r.error, ErrorKind::kTls) << r.error_message;

  client.verify_tls = false;  // --insecure
  CollectingSink insecure;
  auto outcome = run_load(client, plan, *workload, insecure);
  ASSERT_TRUE(outcome.ok());
  ASSERT_EQ(insecure.records.size(), 6u);
  for (const auto& r : insecure.records) {
    EXPECT_TRUE(r.ok()) << error_kind_name(r.error) << ": " << r.error_message;
    EXPECT_EQ(r.content_chunks(), 5);
  }
  EXPECT_EQ(outcome->health.connections_opened, 2);  // kept alive over TLS too
  EXPECT_EQ(outcome->health.receive.stamped_reads, 0);  // decrypted bytes have no kernel stamp: read-return times
  std::filesystem::remove_all(dir);
}

TEST(LoadRunner, FetchFirstModelReadsTheModelList) {
  RunningServer server;
  auto model = fetch_first_model(client_for(server.url()));
  ASSERT_TRUE(model.ok()) << model.error().message;
  EXPECT_EQ(*model, "test-model");
}

TEST(LoadRunner, APlanWithNothingToEndItIsAnError) {
  RunPlan plan;
  plan.concurrency = 1;
  const auto workload = fixed_workload(8, 4);
  CollectingSink sink;
  auto outcome = run_load(client_for("http://127.0.0.1:1"), plan, *workload, sink);
  ASSERT_FALSE(outcome.ok());
  EXPECT_THAT(outcome.error().message, HasSubstr("--requests or --duration"));
}

}  // namespace
}  // namespace perfhound::load
