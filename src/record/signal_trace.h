// What perfhound record's injection library does on SIGTERM and SIGINT: write the trace so far, then let the
// signal do what it would have done without the library (the program's own handler, or the default action).
//
// The write never runs inside the signal handler. The handler interrupts whatever the thread was doing, which
// may be holding a lock the write needs (CUPTI's, inside a recorded launch; the allocator's): a write there
// waits for a lock its own thread holds, and the program hangs instead of ending. On an H100 (2026-12-06),
// SIGTERM to a launch-bound PyTorch loop under --api classified did not end it in 9 minutes; where its threads
// waited was not captured, so this is the likely cause, not a seen one. So the handler only wakes a
// writer thread (sem_post, async-signal-safe), started at install with both signals blocked, and returns:
// - the default action (SIGTERM, or SIGINT in a C++ program): the program runs on, releasing what it held,
//   while the writer writes; then the writer restores the default and sends the signal again, which ends the
//   program as it would have ended. A repeat of the signal meanwhile (Ctrl-C reaches both perfhound and the
//   program, and perfhound forwards it) is not a second request.
// - the program's own handler (Python's SIGINT raises KeyboardInterrupt, then ends by re-raising SIGINT with
//   the default action, skipping exit handlers): the handler waits for the trace to be written, then runs the
//   program's handler, so the trace is there before Python's end. The wait is in two steps: up to
//   kFlushWaitMs for the flush, which may need a lock the interrupted thread holds (then it is stuck until the
//   handler returns, and the program's handler runs without the wait); once flushed, up to kWriteWaitMs for the
//   file, which needs only the library's own state.
// A process forked from the one that installed (no writer thread of its own) passes the signal on at once.
#pragma once

namespace perfhound::record {

// The trace's two steps on a signal.
struct SignalWrite {
  void (*flush)();            // the records still in CUPTI's buffers: may need the program's locks
  void (*write)(bool final);  // the file; `final`: nothing is written after it (the default action ends the program)
};

// How long a signal the program handles itself waits for the flush, then for the file, before the program's
// handler runs.
inline constexpr int kFlushWaitMs = 5'000;
inline constexpr int kWriteWaitMs = 120'000;

// Installs the handlers for SIGTERM and SIGINT, except where the program ignores one, and starts the writer
// thread. Once per process; the steps run at most once, on the writer thread.
void write_trace_on_signals(SignalWrite steps);

}  // namespace perfhound::record
