// Streams from a running `perfhound serve` over loopback and counts SSE events per second: the server's
// throughput target (issue 5: >= 500k SSE chunks/s on one core). Plain Asio/Beast client, one thread per
// connection group, each connection sending streaming completions back to back (keep-alive).
//
//   sse_client_bench PORT CONNECTIONS REQUESTS_PER_CONNECTION MAX_TOKENS [THREADS]
//
// Prints events, wall time and events/s. Run the server with tiny steps, e.g.
//   perfhound serve --port 0 --port-file p --fixed-step-time 1us
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: sse_client_bench PORT CONNECTIONS REQUESTS_PER_CONNECTION MAX_TOKENS [THREADS]\n");
    return 2;
  }
  const auto port = static_cast<unsigned short>(std::atoi(argv[1]));
  const int connections = std::atoi(argv[2]);
  const int requests = std::atoi(argv[3]);
  const int max_tokens = std::atoi(argv[4]);
  const int threads = argc > 5 ? std::atoi(argv[5]) : 1;
  const std::string body = "{\"model\":\"m\",\"prompt\":\"x\",\"max_tokens\":" + std::to_string(max_tokens) + ",\"stream\":true}";
  std::atomic<long long> events{0}, failures{0};

  auto worker = [&](int first, int count) {
    net::io_context ioc;
    // Each connection is a coroutine; all of this thread's connections share its io_context.
    for (int c = first; c < first + count; ++c) {
      net::co_spawn(ioc, [&]() -> net::awaitable<void> {
        tcp::socket socket(ioc);
        co_await socket.async_connect({net::ip::make_address("127.0.0.1"), port}, net::use_awaitable);
        beast::flat_buffer buffer;
        for (int r = 0; r < requests; ++r) {
          http::request<http::string_body> req{http::verb::post, "/v1/completions", 11};
          req.set(http::field::host, "127.0.0.1");
          req.set(http::field::content_type, "application/json");
          req.body() = body;
          req.prepare_payload();
          co_await http::async_write(socket, req, net::use_awaitable);
          http::response_parser<http::string_body> parser;
          parser.body_limit(1u << 30);
          co_await http::async_read(socket, buffer, parser, net::use_awaitable);
          const std::string& b = parser.get().body();
          long long n = 0;
          for (std::size_t pos = b.find("data: "); pos != std::string::npos; pos = b.find("data: ", pos + 6)) ++n;
          if (n != max_tokens + 2) ++failures;  // tokens, the finish chunk, [DONE]
          events += n;
        }
      }, [&](std::exception_ptr e) { if (e) ++failures; });
    }
    ioc.run();
  };

  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  const int per = connections / threads;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker, t * per, t + 1 == threads ? connections - t * per : per);
  for (auto& t : pool) t.join();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("connections %d, requests %d, max_tokens %d: %lld SSE events in %.3f s = %.0f events/s, %lld failures\n",
              connections, connections * requests, max_tokens, events.load(), wall, static_cast<double>(events.load()) / wall,
              failures.load());
  return failures.load() == 0 ? 0 : 1;
}
