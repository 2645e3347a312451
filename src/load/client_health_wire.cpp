#include "load/client_health_wire.h"

#include <algorithm>
#include <fmt/format.h>

namespace perfhound::load {
namespace {

nlohmann::json histogram_to_wire(const core::LogHistogram& h) {
  auto buckets = nlohmann::json::array();
  for (const auto& [lowest, count] : h.nonempty_buckets()) buckets.push_back({lowest, count});
  return {{"min", h.min()}, {"max", h.max()}, {"buckets", buckets}};
}

// Each bucket is recorded at its lowest value, except that the exact min and max are recorded themselves
// (they fall in the first and last buckets), so min() and max() come back exact too.
core::Status histogram_from_wire(const nlohmann::json& wire, core::LogHistogram& h) {
  if (!wire.is_object() || !wire.contains("buckets") || !wire["buckets"].is_array()) {
    return core::Error{"histogram without a buckets array"};
  }
  const std::int64_t min = wire.value("min", std::int64_t{0}), max = wire.value("max", std::int64_t{0});
  const auto& buckets = wire["buckets"];
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    const auto& b = buckets[i];
    if (!b.is_array() || b.size() != 2 || !b[0].is_number_integer() || !b[1].is_number_integer()) {
      return core::Error{fmt::format("histogram bucket {} is not [value, count]", i)};
    }
    std::int64_t lowest = b[0].get<std::int64_t>(), count = b[1].get<std::int64_t>();
    if (count < 1) return core::Error{fmt::format("histogram bucket {} has count {}", i, count)};
    if (i == 0) h.record(min), --count, lowest = std::max(lowest, min);
    if (i + 1 == buckets.size() && count > 0) h.record(max), --count;
    if (count > 0) h.record(lowest, count);
  }
  return {};
}

}  // namespace

nlohmann::json health_to_wire(const ClientHealth& h) {
  return {{"wall_s", h.wall_s},
          {"cpu_s", h.cpu_s},
          {"cpu_ratio", h.cpu_ratio},
          {"dispatch_spin_s", h.dispatch_spin_s},
          {"loop_lag_ns", histogram_to_wire(h.loop_lag_ns)},
          {"dispatch_lag_ns", histogram_to_wire(h.dispatch_lag_ns)},
          {"emit_delay_ns", histogram_to_wire(h.emit_delay_ns)},
          {"receive_backlog_ns", histogram_to_wire(h.receive.backlog_ns)},
          {"stamped_reads", h.receive.stamped_reads},
          {"unstamped_reads", h.receive.unstamped_reads},
          {"rejected_stamps", h.receive.rejected_stamps},
          {"connections_opened", h.connections_opened},
          {"stale_connection_retries", h.stale_connection_retries},
          {"max_in_flight", h.max_in_flight}};
}

core::Result<ClientHealth> health_from_wire(const nlohmann::json& wire) {
  ClientHealth h;
  try {
    h.wall_s = wire.at("wall_s").get<double>();
    h.cpu_s = wire.at("cpu_s").get<double>();
    h.cpu_ratio = wire.at("cpu_ratio").get<double>();
    h.dispatch_spin_s = wire.at("dispatch_spin_s").get<double>();
    h.receive.stamped_reads = wire.at("stamped_reads").get<std::int64_t>();
    h.receive.unstamped_reads = wire.at("unstamped_reads").get<std::int64_t>();
    h.receive.rejected_stamps = wire.at("rejected_stamps").get<std::int64_t>();
    h.connections_opened = wire.at("connections_opened").get<std::int64_t>();
    h.stale_connection_retries = wire.at("stale_connection_retries").get<std::int64_t>();
    h.max_in_flight = wire.at("max_in_flight").get<std::int64_t>();
    for (const auto& [name, target] : {std::pair<const char*, core::LogHistogram*>{"loop_lag_ns", &h.loop_lag_ns},
                                       {"dispatch_lag_ns", &h.dispatch_lag_ns},
                                       {"emit_delay_ns", &h.emit_delay_ns},
                                       {"receive_backlog_ns", &h.receive.backlog_ns}}) {
      PH_TRY(histogram_from_wire(wire.at(name), *target).with_context(name));
    }
  } catch (const nlohmann::json::exception& e) {
    return core::Error{fmt::format("client health: {}", e.what())};
  }
  return h;
}

ClientHealth merge_health(std::span<const ClientHealth> clients) {
  ClientHealth m;
  for (const ClientHealth& c : clients) {
    m.wall_s = std::max(m.wall_s, c.wall_s);
    m.cpu_s += c.cpu_s;
    m.cpu_ratio = std::max(m.cpu_ratio, c.cpu_ratio);
    m.dispatch_spin_s += c.dispatch_spin_s;
    // Same configuration by construction (ClientHealth's members), so merge cannot fail.
    (void)m.loop_lag_ns.merge(c.loop_lag_ns);
    (void)m.dispatch_lag_ns.merge(c.dispatch_lag_ns);
    (void)m.emit_delay_ns.merge(c.emit_delay_ns);
    (void)m.receive.backlog_ns.merge(c.receive.backlog_ns);
    m.receive.stamped_reads += c.receive.stamped_reads;
    m.receive.unstamped_reads += c.receive.unstamped_reads;
    m.receive.rejected_stamps += c.receive.rejected_stamps;
    m.connections_opened += c.connections_opened;
    m.stale_connection_retries += c.stale_connection_retries;
    m.max_in_flight += c.max_in_flight;
  }
  return m;
}

}  // namespace perfhound::load
