// A soak's view of the target: its Prometheus /metrics scraped every interval on a thread of its own, kept
// for the names drift judges (resident memory, KV cache usage, waiting and running requests). I/O edge: the
// parsing and the judging are pure (prometheus_text.h, drift.h).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "load/drift.h"
#include "load/load_runner.h"

namespace perfhound::load {

// The metric names a soak keeps (each summed over its label sets): process_resident_memory_bytes, any name
// containing "cache_usage", and names ending in "num_requests_waiting" or "num_requests_running".
bool soak_tracked_metric(std::string_view name);

struct ScrapeOutcome {
  std::vector<MetricSample> samples;  // t_s from the scraper's start
  std::uint64_t scrapes = 0, failed = 0;
  std::string first_error;  // "GET /metrics: HTTP 404", "line 3: expected a value ..."
};

class MetricsScraper {
 public:
  // Scrapes at once, then every interval_ns, until stop(). `path` includes the base path ("/metrics").
  MetricsScraper(ClientOptions client, std::string path, std::int64_t interval_ns);
  ~MetricsScraper();
  MetricsScraper(const MetricsScraper&) = delete;
  MetricsScraper& operator=(const MetricsScraper&) = delete;

  // Stops the thread (a scrape in flight finishes first, bounded by its 5 s timeout) and returns what it saw.
  ScrapeOutcome stop();

 private:
  void loop();
  void scrape_once();

  ClientOptions client_;
  std::string path_;
  std::chrono::nanoseconds interval_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  ScrapeOutcome outcome_;
  std::thread thread_;
};

}  // namespace perfhound::load
