// Kernel receive timestamps on a real loopback TCP connection: bytes written, left unread for a while, then
// read, must carry the time they were written (the kernel's stamp), not the time the read returned.
#include "load/kernel_receive_time.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <chrono>
#include <thread>

#include "load/receive_stamping_testing.h"
#include "load/stamped_tcp_stream.h"

namespace perfhound::load {
namespace {

using Clock = std::chrono::steady_clock;

std::int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// A connected loopback TCP pair: `client` reads, `server` writes.
struct TcpPair {
  TcpPair() {
    const int listener = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    EXPECT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(listen(listener, 1), 0);
    EXPECT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    client = socket(AF_INET, SOCK_STREAM, 0);
    EXPECT_EQ(connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    server = accept(listener, nullptr, nullptr);
    close(listener);
  }
  ~TcpPair() {
    if (client >= 0) close(client);
    close(server);
  }
  int client = -1, server = -1;
};

constexpr std::int64_t kUnreadNs = 30'000'000;  // how long the bytes wait in the kernel before the read

TEST(KernelReceiveTime, ArrivalIsTheReadTimeLessTheBytesAgeByHand) {
  StampedReceive r;
  r.bytes = 10;
  r.steady_now_ns = 5'000'000'000;
  r.realtime_now_ns = 1'700'000'000'000'000'000;
  r.arrival_realtime_ns = r.realtime_now_ns - 2'500'000;  // 2.5 ms in the kernel
  EXPECT_EQ(arrival_steady_ns(r), 5'000'000'000 - 2'500'000);
  r.arrival_realtime_ns = r.realtime_now_ns + 40;  // clocks read 40 ns apart: not after the read
  EXPECT_EQ(arrival_steady_ns(r), 5'000'000'000);
  r.arrival_realtime_ns = -1;  // no stamp: the read's own time
  EXPECT_EQ(arrival_steady_ns(r), 5'000'000'000);
}

TEST(KernelReceiveTime, AStampedReadCarriesTheWriteTimeNotTheReadTime) {
  const testing::StampingOn stamping;  // held for the test: a segment sent at once may otherwise come unstamped
  TcpPair pair;
  ASSERT_TRUE(enable_receive_timestamps(pair.client));
  ASSERT_TRUE(stamping.on()) << "no datagram came back stamped within a second of asking for SO_TIMESTAMPNS";
  const std::int64_t before_write = steady_now_ns();
  ASSERT_EQ(write(pair.server, "chunk", 5), 5);
  const std::int64_t after_write = steady_now_ns();
  std::this_thread::sleep_for(std::chrono::nanoseconds(kUnreadNs));
  char buf[16];
  iovec iov{buf, sizeof(buf)};
  const StampedReceive r = receive_stamped(pair.client, &iov, 1);
  ASSERT_EQ(r.bytes, 5);
  ASSERT_GE(r.arrival_realtime_ns, 0) << "the kernel gave no SCM_TIMESTAMPNS";
  const std::int64_t arrival = arrival_steady_ns(r);
  // Loopback delivers within the write call; allow 2 ms for a descheduled test thread.
  EXPECT_GE(arrival, before_write - 1'000);  // clocks read apart by a few hundred ns at most
  EXPECT_LE(arrival, after_write + 2'000'000);
  EXPECT_GE(r.steady_now_ns - arrival, kUnreadNs - 1'000'000);  // the wait in the kernel is not in the stamp
}

TEST(KernelReceiveTime, WithoutTimestampsOnTheReadHasNoStampAndAnEmptySocketSaysEagain) {
  TcpPair pair;
  char buf[16];
  iovec iov{buf, sizeof(buf)};
  const StampedReceive empty = receive_stamped(pair.client, &iov, 1);
  EXPECT_EQ(empty.bytes, -1);
  EXPECT_TRUE(empty.error == EAGAIN || empty.error == EWOULDBLOCK);
  ASSERT_EQ(write(pair.server, "x", 1), 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const StampedReceive r = receive_stamped(pair.client, &iov, 1);
  EXPECT_EQ(r.bytes, 1);
  EXPECT_EQ(r.arrival_realtime_ns, -1);
  shutdown(pair.server, SHUT_WR);
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(receive_stamped(pair.client, &iov, 1).bytes, 0);  // the peer closed: end of stream
}

namespace net = boost::asio;

// The Asio adaptor: an async read waits for the bytes, reports the kernel's arrival, and counts the backlog;
// a read with nothing coming ends at the request deadline with beast's timeout error.
TEST(StampedTcpStream, AsyncReadReportsTheArrivalAndTheDeadlineEndsAStalledRead) {
  const testing::StampingOn stamping;  // held for the test: a segment sent at once may otherwise come unstamped
  net::io_context ioc;
  TcpPair pair;
  boost::beast::tcp_stream stream(ioc);
  stream.socket().assign(net::ip::tcp::v4(), pair.client);
  pair.client = -1;  // the stream owns it now
  ASSERT_TRUE(enable_receive_timestamps(stream.socket().native_handle()));
  ASSERT_TRUE(stamping.on()) << "no datagram came back stamped within a second of asking for SO_TIMESTAMPNS";
  RequestDeadline deadline(ioc.get_executor());
  ReceiveStampStats stats;
  StampedTcpStream stamped(stream, deadline, stats);

  const std::int64_t before_write = steady_now_ns();
  ASSERT_EQ(write(pair.server, "data: 1\n\n", 9), 9);
  const std::int64_t after_write = steady_now_ns();
  std::this_thread::sleep_for(std::chrono::nanoseconds(kUnreadNs));
  char buf[64];
  boost::system::error_code ec;
  std::size_t n = 0;
  stamped.async_read_some(net::buffer(buf), [&](boost::system::error_code e, std::size_t k) { ec = e, n = k; });
  EXPECT_EQ(n, 0u);  // not completed inside the initiating call
  ioc.run();
  ioc.restart();
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(n, 9u);
  EXPECT_GE(stamped.last_arrival_steady_ns(), before_write - 1'000);
  EXPECT_LE(stamped.last_arrival_steady_ns(), after_write + 2'000'000);  // 2 ms for a descheduled test thread
  EXPECT_EQ(stats.stamped_reads, 1);
  EXPECT_GE(stats.backlog_ns.max(), kUnreadNs - 1'000'000);

  // Nothing more is written: the deadline, 50 ms out, ends the wait.
  const auto start = Clock::now();
  deadline.arm(stream.socket(), start + std::chrono::milliseconds(50));
  stamped.async_read_some(net::buffer(buf), [&](boost::system::error_code e, std::size_t k) { ec = e, n = k; });
  ioc.run();
  ioc.restart();
  EXPECT_EQ(ec, boost::beast::error::timeout) << ec.message();
  EXPECT_EQ(n, 0u);
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(50));

  // Disarmed, a new read waits for its bytes again (the expired flag belongs to the last request).
  deadline.arm(stream.socket(), Clock::now() + std::chrono::seconds(10));
  deadline.disarm();
  ASSERT_EQ(write(pair.server, "data: 2\n\n", 9), 9);
  stamped.async_read_some(net::buffer(buf), [&](boost::system::error_code e, std::size_t k) { ec = e, n = k; });
  ioc.run();
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_EQ(n, 9u);
  EXPECT_EQ(stats.stamped_reads, 2);
}

}  // namespace
}  // namespace perfhound::load
