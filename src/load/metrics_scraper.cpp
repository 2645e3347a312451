#include "load/metrics_scraper.h"

#include <fmt/format.h>
#include <map>

#include "load/prometheus_text.h"

namespace perfhound::load {
namespace {
constexpr std::int64_t kScrapeTimeoutNs = 5'000'000'000;
}  // namespace

bool soak_tracked_metric(std::string_view name) {
  return name == "process_resident_memory_bytes" || name.find("cache_usage") != std::string_view::npos ||
         name.ends_with("num_requests_waiting") || name.ends_with("num_requests_running");
}

MetricsScraper::MetricsScraper(ClientOptions client, std::string path, std::int64_t interval_ns)
    : client_(std::move(client)),
      path_(std::move(path)),
      interval_(interval_ns),
      start_(std::chrono::steady_clock::now()),
      thread_([this] { loop(); }) {}

MetricsScraper::~MetricsScraper() { stop(); }

ScrapeOutcome MetricsScraper::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  return outcome_;
}

void MetricsScraper::loop() {
  auto next = start_;
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    scrape_once();
    lock.lock();
    next += interval_;
    wake_.wait_until(lock, next, [this] { return stopping_; });
  }
}

void MetricsScraper::scrape_once() {
  const double t_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  auto response = http_get(client_, path_, kScrapeTimeoutNs);
  std::string error;
  std::vector<MetricSample> samples;
  if (!response.ok()) {
    error = response.error().message;
  } else if (response->status != 200) {
    error = fmt::format("GET {}: HTTP {}", path_, response->status);
  } else if (auto parsed = parse_prometheus_text(response->body); !parsed.ok()) {
    error = fmt::format("GET {}: {}", path_, parsed.error().message);
  } else {
    std::map<std::string, double, std::less<>> sums;  // one value per name: label sets summed
    for (const PrometheusSample& s : *parsed) {
      if (soak_tracked_metric(s.name)) sums[s.name] += s.value;
    }
    for (auto& [name, value] : sums) samples.push_back({t_s, name, value});
  }
  std::lock_guard lock(mutex_);
  ++outcome_.scrapes;
  if (!error.empty()) {
    ++outcome_.failed;
    if (outcome_.first_error.empty()) outcome_.first_error = error;
  }
  outcome_.samples.insert(outcome_.samples.end(), samples.begin(), samples.end());
}

}  // namespace perfhound::load
