// Test support: the host's kernel receive stamping switched on before a test reads, for tests that expect
// their reads stamped (kernel_receive_time_test, load_runner_test).
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "load/kernel_receive_time.h"

namespace perfhound::load::testing {

// Holds the host's receive stamping on while it lives. Linux turns stamping on for the whole host a moment after
// the first socket asks (a deferred static key) and off when the last such socket closes, so a run's first
// segments may come unstamped. A loopback UDP socket that asks sends itself a byte until one comes back stamped
// (up to a second: a busy host can delay the switch past any fixed pause).
class StampingOn {
 public:
  StampingOn() : fd_(socket(AF_INET, SOCK_DGRAM, 0)) {
    sockaddr_in self{};
    self.sin_family = AF_INET;
    self.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(self);
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&self), sizeof(self)) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&self), &length) != 0 || !enable_receive_timestamps(fd_)) {
      return;
    }
    for (int attempt = 0; attempt < 200 && !on_; ++attempt) {
      if (sendto(fd_, "s", 1, 0, reinterpret_cast<sockaddr*>(&self), sizeof(self)) != 1) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      char c = 0;
      iovec iov{&c, 1};
      const StampedReceive r = receive_stamped(fd_, &iov, 1);
      on_ = r.bytes == 1 && r.arrival_realtime_ns >= 0;
    }
  }
  ~StampingOn() {
    if (fd_ >= 0) close(fd_);
  }
  StampingOn(const StampingOn&) = delete;
  StampingOn& operator=(const StampingOn&) = delete;
  bool on() const { return on_; }

 private:
  int fd_;
  bool on_ = false;
};

}  // namespace perfhound::load::testing
