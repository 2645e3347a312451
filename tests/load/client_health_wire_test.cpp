// load/client_health_wire: a client's health survives the trip to another process exactly, and several
// clients' health merges as the header says (values chosen by hand).
#include "load/client_health_wire.h"

#include <gtest/gtest.h>

namespace perfhound::load {
namespace {

ClientHealth sample(std::int64_t base, double cpu_ratio) {
  ClientHealth h;
  h.wall_s = 10 + base;
  h.cpu_s = 2;
  h.cpu_ratio = cpu_ratio;
  h.dispatch_spin_s = 0.5;
  for (std::int64_t v = 1; v <= 1000; ++v) h.dispatch_lag_ns.record(base + v * 1'003);
  h.loop_lag_ns.record(123'457);
  h.loop_lag_ns.record(98'765'431);
  h.receive.stamped_reads = 7;
  h.receive.unstamped_reads = 1;
  h.receive.rejected_stamps = 2;
  h.receive.backlog_ns.record(4'321);
  h.connections_opened = 3;
  h.stale_connection_retries = 1;
  h.max_in_flight = 5;
  return h;
}

TEST(ClientHealthWire, RoundTripKeepsEveryPercentileAndTheExactExtremes) {
  const ClientHealth h = sample(17, 0.25);
  const auto back = health_from_wire(nlohmann::json::parse(health_to_wire(h).dump()));
  ASSERT_TRUE(back.ok()) << back.error().message;
  for (const double q : {0.0, 1.0, 50.0, 90.0, 99.0, 99.9, 100.0}) {
    EXPECT_EQ(back->dispatch_lag_ns.value_at_percentile(q), h.dispatch_lag_ns.value_at_percentile(q)) << q;
  }
  EXPECT_EQ(back->dispatch_lag_ns.total_count(), 1000);
  EXPECT_EQ(back->dispatch_lag_ns.min(), 17 + 1'003);       // recorded exactly, not its bucket's lowest value
  EXPECT_EQ(back->dispatch_lag_ns.max(), 17 + 1'003'000);
  EXPECT_EQ(back->loop_lag_ns.min(), 123'457);
  EXPECT_EQ(back->loop_lag_ns.max(), 98'765'431);
  EXPECT_EQ(back->receive.backlog_ns.max(), 4'321);
  EXPECT_EQ(back->emit_delay_ns.total_count(), 0);
  EXPECT_DOUBLE_EQ(back->cpu_ratio, 0.25);
  EXPECT_EQ(back->receive.rejected_stamps, 2);
  EXPECT_EQ(back->stale_connection_retries, 1);
}

TEST(ClientHealthWire, AMissingFieldIsAnErrorThatNamesIt) {
  auto wire = health_to_wire(sample(0, 0.1));
  wire.erase("connections_opened");
  const auto back = health_from_wire(wire);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("connections_opened"), std::string::npos) << back.error().message;
}

TEST(ClientHealthWire, MergeSumsCountsPoolsSamplesAndKeepsTheBusiestClient) {
  const ClientHealth a = sample(0, 0.2), b = sample(5'000'000, 0.7);
  const ClientHealth m = merge_health(std::vector<ClientHealth>{a, b});
  EXPECT_EQ(m.dispatch_lag_ns.total_count(), 2000);
  // The pooled median lies between the two clients' samples: a's all end at 1.003 ms, b's start at 5.001 ms.
  EXPECT_EQ(m.dispatch_lag_ns.min(), 1'003);
  EXPECT_EQ(m.dispatch_lag_ns.max(), 5'000'000 + 1'003'000);
  EXPECT_LE(m.dispatch_lag_ns.value_at_percentile(25), 1'003'000 * 1001 / 1000);
  EXPECT_GE(m.dispatch_lag_ns.value_at_percentile(75), 5'000'000);
  EXPECT_DOUBLE_EQ(m.cpu_ratio, 0.7);
  EXPECT_DOUBLE_EQ(m.cpu_s, 4);
  EXPECT_DOUBLE_EQ(m.wall_s, 10 + 5'000'000);
  EXPECT_EQ(m.receive.stamped_reads, 14);
  EXPECT_EQ(m.connections_opened, 6);
  EXPECT_EQ(m.max_in_flight, 10);
}

}  // namespace
}  // namespace perfhound::load
