// What perfhound record's injection library does on SIGINT, SIGTERM, SIGHUP and SIGQUIT (the signals whose default
// action ends a program without its exit handlers, so without the exit's write): write the trace so far, then let
// the signal do what it would have done without the library (the program's own handler, or the default action).
//
// The write never runs inside the signal handler, and the handler never waits for it. The handler interrupts whatever
// the thread was doing, which may be holding a lock the write needs (CUPTI's, inside a recorded launch; the
// allocator's): a write, or a wait for one, there waits for a lock its own thread holds. Seen on an H200 (2026-12-06):
// SIGINT to a launch-bound PyTorch loop, whose handler then waited up to 5 s for CUPTI's flush, saw no flush in the 5 s
// (the interrupted main thread, likely inside a launch, was held in the handler); Python's handler then ran, Python
// ended 0.8 s later, before the writer had written, and no trace was left. An earlier version that flushed in the
// handler did not end in 9 minutes on an H100. So the handler only holds the signal back and wakes a writer thread
// (sem_post, async-signal-safe), started at install with both signals blocked, and returns: the program runs on,
// letting go of what it held, while the writer flushes and writes. Then the writer delivers the held signals: the
// program's own handler (Python's SIGINT raises KeyboardInterrupt, then ends by re-raising SIGINT with the default
// action, skipping exit handlers) runs after the trace is on disk, and a default action (SIGTERM, or SIGINT in a C++
// program) ends the program as it would have ended. A repeat of a signal meanwhile (Ctrl-C reaches both perfhound and
// the program, and perfhound forwards it) is held with the first: one write, one delivery; a repeat
// kRepeatPassesAfterMs later is passed on at once. Once written, every signal goes on as without the library. Known
// differences from no library: the program's SA_SIGINFO handler sees the writer's redelivery (si_pid its own, SI_USER),
// and a signal sent to one thread (raise, pthread_kill) is redelivered to the process, so raise() returns before the
// handler has run.
// A process forked from the one that installed (no writer thread of its own) passes the signal on at once.
#pragma once

namespace perfhound::record {

// The trace's two steps on a signal.
struct SignalWrite {
  void (*flush)();            // the records still in CUPTI's buffers: may need the program's locks
  void (*write)(bool final);  // the file; `final`: nothing is written after it (the default action ends the program)
};

// A repeat of a signal this long after the first is a demand to stop now (Ctrl-C again, the write being slow or
// stuck): it is passed on at once, and the trace is what was written by then (nothing, if the write had not
// finished: the file is renamed into place only when whole).
inline constexpr int kRepeatPassesAfterMs = 3'000;

// Installs the handlers for SIGINT, SIGTERM, SIGHUP and SIGQUIT, except where the program ignores one (nohup's
// SIGHUP) or handles SIGHUP or SIGQUIT itself (a reload: its exit writes the trace), and starts the writer
// thread. Once per process; the steps run at most once, on the writer thread.
void write_trace_on_signals(SignalWrite steps);

// For the exit's write, once it is done: a signal whose default action the writer has not yet delivered (the
// program exited on its own meanwhile, say on an EINTR it took for an error) ends the process now, as it would
// have without the library, instead of letting it exit with a code of its own.
void end_by_held_signals();

}  // namespace perfhound::record
