// What perfhound record's injection library does on SIGTERM and SIGINT: write the trace so far, then let the
// signal do what it would have done without the library (the program's own handler, or the default action).
//
// The write never runs inside the signal handler. The handler interrupts whatever the thread was doing, which
// may be holding a lock the write needs (CUPTI's, inside a recorded launch; the allocator's): a write there
// waits for a lock its own thread holds, and the program hangs instead of ending (seen on an H100, 2026-12-06:
// SIGTERM to a launch-bound PyTorch loop under --api classified never ended it). So the handler only wakes a
// writer thread (sem_post, async-signal-safe), started at install with both signals blocked, and returns:
// - the default action (SIGTERM, or SIGINT in a C++ program): the program runs on, releasing what it held,
//   while the writer writes; then the writer restores the default and sends the signal again, which ends the
//   program as it would have ended. A repeat of the signal meanwhile (Ctrl-C reaches both perfhound and the
//   program, and perfhound forwards it) is not a second request.
// - the program's own handler (Python's SIGINT raises KeyboardInterrupt, then ends by re-raising SIGINT with
//   the default action, skipping exit handlers): the handler waits up to kChainedWaitMs for the write, then
//   runs the program's handler, so the trace is written before Python's end unless the write is stuck.
// A process forked from the one that installed (no writer thread of its own) passes the signal on at once.
#pragma once

namespace perfhound::record {

// Writes the trace; `final` says nothing will be recorded after it (the default action ends the program).
using TraceWrite = void (*)(bool final);

// How long a signal the program handles itself waits for the write before the program's handler runs.
inline constexpr int kChainedWaitMs = 5000;

// Installs the handlers for SIGTERM and SIGINT, except where the program ignores one, and starts the writer
// thread. Once per process; `write` is called at most once, on the writer thread.
void write_trace_on_signals(TraceWrite write);

}  // namespace perfhound::record
