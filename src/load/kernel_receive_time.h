// Kernel receive timestamps for TCP sockets (SO_TIMESTAMPNS). A client that stamps a chunk when its read
// returns adds its own backlog to every latency: with 1,000 streams written in one burst, the last socket is
// read milliseconds after its bytes arrived. The kernel stamps each segment as it reaches the socket, so the
// receive time no longer depends on how busy the reader is. The stamp is CLOCK_REALTIME; the latencies run
// on the steady clock, so a stamp is carried over as its age (realtime now - stamp), taken at the read.
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <cstdint>

#include "core/log_histogram.h"

namespace perfhound::load {

// What the client learns of its own reads: how long bytes waited in the kernel before they were read (the
// reader's backlog: zero when it keeps up), and how many reads carried a kernel stamp.
struct ReceiveStampStats {
  core::LogHistogram backlog_ns{3'600'000'000'000, 3};
  std::int64_t stamped_reads = 0;
  std::int64_t unstamped_reads = 0;  // the kernel gave no stamp: the read's return time stands in
  std::int64_t rejected_stamps = 0;  // a stamp before the request was sent or after the read: not used
};

// Asks the kernel to stamp the segments `fd` receives; false where the socket refuses (the reads then fall
// back to their return time).
bool enable_receive_timestamps(int fd);

struct StampedReceive {
  ssize_t bytes = -1;                     // as recvmsg: > 0 read, 0 end of stream, -1 failed (see `error`)
  int error = 0;                          // errno when bytes < 0 (EAGAIN: nothing to read yet)
  std::int64_t arrival_realtime_ns = -1;  // the kernel's stamp of the last segment read; -1 when it gave none
  std::int64_t realtime_now_ns = 0;       // CLOCK_REALTIME and CLOCK_MONOTONIC right after the read, the pair
  std::int64_t steady_now_ns = 0;         // that carries the stamp over to the steady clock
};

// One non-blocking recvmsg into `iov` (EINTR retried).
StampedReceive receive_stamped(int fd, const iovec* iov, int iov_count);

// The arrival on the steady clock: the read's steady time less the bytes' age in the kernel. An age below
// zero (the two clocks read a few ns apart) counts as zero; the arrival is never after the read.
std::int64_t arrival_steady_ns(const StampedReceive& r);

}  // namespace perfhound::load
