// A plain-TCP read stream for Beast whose reads keep the kernel's receive time of the bytes they read
// (kernel_receive_time.h says why). It stands in for beast::tcp_stream's reads, which go through recv and drop
// the stamp; writes still go through the tcp_stream. Its reads bypass the tcp_stream's per-operation timer, so
// a RequestDeadline set once per request bounds them instead (one timer a request, not one a chunk).
#pragma once

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>

#include <array>
#include <chrono>
#include <cstdint>

#include "load/kernel_receive_time.h"

namespace perfhound::load {

// When it passes, waits on the socket are cancelled and StampedTcpStream's reads fail with
// beast::error::timeout. A fire that lands after disarm() (queued before it) is told apart by its generation.
class RequestDeadline {
 public:
  explicit RequestDeadline(const boost::asio::any_io_executor& executor) : timer_(executor) {}

  void arm(boost::asio::ip::tcp::socket& socket, std::chrono::steady_clock::time_point at) {
    expired_ = false;
    timer_.expires_at(at);
    timer_.async_wait([this, generation = ++generation_, &socket](const boost::system::error_code& ec) {
      if (ec || generation != generation_) return;  // cancelled, or a fire from an earlier request
      expired_ = true;
      boost::system::error_code ignored;
      socket.cancel(ignored);
    });
  }
  void disarm() {
    ++generation_;
    timer_.cancel();
  }
  bool expired() const { return expired_; }

 private:
  boost::asio::steady_timer timer_;
  std::uint64_t generation_ = 0;
  bool expired_ = false;
};

class StampedTcpStream {
 public:
  using executor_type = boost::beast::tcp_stream::executor_type;

  StampedTcpStream(boost::beast::tcp_stream& stream, RequestDeadline& deadline, ReceiveStampStats& stats)
      : stream_(stream), deadline_(deadline), stats_(stats) {}

  executor_type get_executor() noexcept { return stream_.get_executor(); }

  template <class ConstBuffers, class Token>
  auto async_write_some(const ConstBuffers& buffers, Token&& token) {
    return stream_.async_write_some(buffers, std::forward<Token>(token));
  }

  template <class MutableBuffers, class Token>
  auto async_read_some(const MutableBuffers& buffers, Token&& token) {
    return boost::asio::async_compose<Token, void(boost::system::error_code, std::size_t)>(
        ReadOp<MutableBuffers>{*this, buffers}, token, stream_.socket());
  }

  // The steady-clock time (ns since the clock's epoch) the bytes of the last read reached the socket: the
  // kernel's stamp, or the read's return time where there was none. -1 before the first read.
  std::int64_t last_arrival_steady_ns() const { return last_arrival_ns_; }

 private:
  static constexpr std::size_t kMaxBuffers = 16;

  template <class MutableBuffers>
  struct ReadOp {
    StampedTcpStream& s;
    MutableBuffers buffers;
    enum { kStart, kWaiting, kPosted } state = kStart;
    boost::system::error_code result{};
    std::size_t bytes = 0;

    template <class Self>
    void operator()(Self& self, boost::system::error_code ec = {}) {
      namespace net = boost::asio;
      switch (state) {
        case kStart:
          if (s.deadline_.expired() || net::buffer_size(buffers) == 0 || s.try_read(buffers, result, bytes)) {
            if (s.deadline_.expired()) result = boost::beast::error::timeout;
            state = kPosted;  // a completion is never invoked from inside its initiating call
            net::post(s.get_executor(), std::move(self));
            return;
          }
          state = kWaiting;
          s.stream_.socket().async_wait(net::socket_base::wait_read, std::move(self));
          return;
        case kWaiting:
          if (ec || s.deadline_.expired()) {
            self.complete(s.deadline_.expired() ? boost::system::error_code(boost::beast::error::timeout) : ec, 0);
            return;
          }
          if (!s.try_read(buffers, result, bytes)) {  // woken with nothing to read: wait again
            s.stream_.socket().async_wait(net::socket_base::wait_read, std::move(self));
            return;
          }
          self.complete(result, bytes);
          return;
        case kPosted:
          self.complete(result, bytes);
          return;
      }
    }
  };

  // One non-blocking read; false when there is nothing to read yet.
  template <class MutableBuffers>
  bool try_read(const MutableBuffers& buffers, boost::system::error_code& ec, std::size_t& bytes) {
    std::array<iovec, kMaxBuffers> iov{};
    int count = 0;
    for (auto it = boost::asio::buffer_sequence_begin(buffers);
         it != boost::asio::buffer_sequence_end(buffers) && count < static_cast<int>(kMaxBuffers); ++it) {
      const boost::asio::mutable_buffer b = *it;
      iov[static_cast<std::size_t>(count++)] = iovec{b.data(), b.size()};
    }
    const StampedReceive r = receive_stamped(stream_.socket().native_handle(), iov.data(), count);
    if (r.bytes < 0 && (r.error == EAGAIN || r.error == EWOULDBLOCK)) return false;
    bytes = 0;
    if (r.bytes < 0) {
      ec = boost::system::error_code(r.error, boost::system::system_category());
    } else if (r.bytes == 0) {
      ec = boost::asio::error::eof;
    } else {
      ec = {};
      bytes = static_cast<std::size_t>(r.bytes);
      last_arrival_ns_ = arrival_steady_ns(r);
      if (r.arrival_realtime_ns >= 0) {
        ++stats_.stamped_reads;
        stats_.backlog_ns.record(r.steady_now_ns - last_arrival_ns_);
      } else {
        ++stats_.unstamped_reads;
      }
    }
    return true;
  }

  boost::beast::tcp_stream& stream_;
  RequestDeadline& deadline_;
  ReceiveStampStats& stats_;
  std::int64_t last_arrival_ns_ = -1;
};

}  // namespace perfhound::load
