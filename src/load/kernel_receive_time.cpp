#include "load/kernel_receive_time.h"

#include <sys/socket.h>
#include <time.h>

#include <algorithm>
#include <cerrno>

namespace perfhound::load {
namespace {

std::int64_t clock_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

bool enable_receive_timestamps(int fd) {
  const int on = 1;
  return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) == 0;
}

StampedReceive receive_stamped(int fd, const iovec* iov, int iov_count) {
  StampedReceive r;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
  msghdr msg{};
  msg.msg_iov = const_cast<iovec*>(iov);  // recvmsg's signature; it writes the buffers, not the array
  msg.msg_iovlen = static_cast<std::size_t>(iov_count);
  for (;;) {
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    r.bytes = recvmsg(fd, &msg, MSG_DONTWAIT);
    if (r.bytes >= 0 || errno != EINTR) break;
  }
  // CLOCK_MONOTONIC is what std::chrono::steady_clock reads on Linux.
  r.steady_now_ns = clock_ns(CLOCK_MONOTONIC);
  r.realtime_now_ns = clock_ns(CLOCK_REALTIME);
  if (r.bytes < 0) {
    r.error = errno;
    return r;
  }
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS && c->cmsg_len >= CMSG_LEN(sizeof(timespec))) {
      timespec ts{};
      std::copy_n(reinterpret_cast<const char*>(CMSG_DATA(c)), sizeof(ts), reinterpret_cast<char*>(&ts));
      r.arrival_realtime_ns = static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
    }
  }
  return r;
}

std::int64_t arrival_steady_ns(const StampedReceive& r) {
  if (r.arrival_realtime_ns < 0) return r.steady_now_ns;
  return r.steady_now_ns - std::max<std::int64_t>(0, r.realtime_now_ns - r.arrival_realtime_ns);
}

}  // namespace perfhound::load
