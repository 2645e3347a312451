#include "record/signal_trace.h"

#include <semaphore.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <system_error>
#include <thread>

namespace perfhound::record {
namespace {

// Everything the handler touches is a lock-free atomic or the semaphore: both async-signal-safe.
SignalWrite g_steps{};
sem_t g_wake;                           // posted by the handler, once
std::atomic<int> g_signal{0};           // the first signal's number; 0 until one comes
std::atomic<std::int64_t> g_first_ns{0};  // when it came (CLOCK_MONOTONIC)
std::atomic<unsigned> g_pending{0};     // the signals held back while the trace is written (bit_of)
std::atomic<bool> g_written{false};     // the writer is done: a signal now goes on as without the library
std::atomic<pid_t> g_writer_pid{0};     // the process whose writer thread this is
// The signals whose default action ends the program without running exit handlers, so without the exit's write:
// Ctrl-C, kill's default, a closed terminal (an ssh session dropped), Ctrl-\.
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
constexpr int kSignalCount = sizeof(kSignals) / sizeof(kSignals[0]);
struct sigaction g_previous[kSignalCount];  // the handlers found at install, one a signal of kSignals

static_assert(std::atomic<int>::is_always_lock_free && std::atomic<unsigned>::is_always_lock_free &&
              std::atomic<bool>::is_always_lock_free && std::atomic<pid_t>::is_always_lock_free &&
              std::atomic<std::int64_t>::is_always_lock_free);

std::int64_t monotonic_ns() {  // clock_gettime: async-signal-safe
  struct timespec t {};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

int index_of(int sig) {
  for (int i = 0; i < kSignalCount; ++i) {
    if (kSignals[i] == sig) return i;
  }
  return 0;  // not reached: the handler is installed for kSignals only
}

struct sigaction& previous_of(int sig) { return g_previous[index_of(sig)]; }

unsigned bit_of(int sig) { return 1U << index_of(sig); }

const char* name_of(int sig) {
  static constexpr const char* kNames[] = {"SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"};
  return kNames[index_of(sig)];
}

bool has_own_handler(const struct sigaction& previous) {
  return (previous.sa_flags & SA_SIGINFO) != 0 ? previous.sa_sigaction != nullptr : previous.sa_handler != SIG_DFL;
}

// kSignals: held in the handler, and never delivered to the writer thread.
sigset_t handled_signals() {
  sigset_t all;
  sigemptyset(&all);
  for (const int s : kSignals) sigaddset(&all, s);
  return all;
}

// The signal again, with the default action in place: it ends the process as it would have without the library,
// through a thread that does not hold it (in a handler, once the handler returns).
void end_by_default_action(int sig) {
  ::signal(sig, SIG_DFL);
  ::kill(::getpid(), sig);
}

// The signal as it would have gone without the library. A handler installed with SA_RESETHAND is a one-shot: the
// default comes back before it runs, as the kernel would have done.
void pass_on(int sig, siginfo_t* info, void* context) {
  const struct sigaction previous = previous_of(sig);
  if ((previous.sa_flags & SA_RESETHAND) != 0) ::signal(sig, SIG_DFL);
  if (!has_own_handler(previous)) {
    end_by_default_action(sig);
  } else if ((previous.sa_flags & SA_SIGINFO) != 0) {
    previous.sa_sigaction(sig, info, context);
  } else {
    previous.sa_handler(sig);
  }
}

void on_signal(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;  // the interrupted code's errno, which sem_post or kill may change
  if (::getpid() != g_writer_pid.load() || g_written.load()) {
    // A forked child (no writer thread here, and not its trace to write), or the trace is written: this one is
    // the writer's redelivery of a held signal or a later one.
    pass_on(sig, info, context);
  } else if (int expected = 0; g_signal.compare_exchange_strong(expected, sig)) {
    g_first_ns.store(monotonic_ns());
    g_pending.fetch_or(bit_of(sig));
    ::sem_post(&g_wake);
  } else if (const std::int64_t first = g_first_ns.load();
             first != 0 && monotonic_ns() - first > std::int64_t{kRepeatPassesAfterMs} * 1'000'000) {
    pass_on(sig, info, context);  // asked again, long after the first: stop now, the trace as far as it got
  } else {
    g_pending.fetch_or(bit_of(sig));
    // The writer finished between the check above and the hold: it may have taken the pending signals before
    // this one was added. Whoever clears the bit delivers the signal, so it is delivered once.
    if (g_written.load() && (g_pending.fetch_and(~bit_of(sig)) & bit_of(sig)) != 0) pass_on(sig, info, context);
  }
  errno = saved_errno;
}

void writer_thread() {
  while (::sem_wait(&g_wake) != 0) {  // EINTR only: kSignals are blocked here, others may not be
  }
  const int sig = g_signal.load();
  std::fprintf(stderr, "perfhound record: %s: writing the trace recorded so far\n", name_of(sig));
  g_steps.flush();
  // A default action ends the program: this is its last write. A handler of the program's own may let it go
  // on to exit normally, and the exit's write replaces this one.
  g_steps.write(/*final=*/!has_own_handler(previous_of(sig)));
  g_written.store(true);
  // The held signals, delivered now: the program's own handlers first (through on_signal, which passes them
  // on), then a default action, which ends the program.
  const unsigned held = g_pending.exchange(0);
  for (const int s : kSignals) {
    if ((held & bit_of(s)) != 0 && has_own_handler(previous_of(s))) ::kill(::getpid(), s);
  }
  for (const int s : kSignals) {
    if ((held & bit_of(s)) != 0 && !has_own_handler(previous_of(s))) end_by_default_action(s);
  }
}

void install(int sig) {
  struct sigaction& previous = previous_of(sig);
  if (::sigaction(sig, nullptr, &previous) != 0 || previous.sa_handler == SIG_IGN) return;  // ignored stays ignored
  // SIGHUP and SIGQUIT only where their default action would end the program: a program that handles them
  // (SIGHUP as "reload", SIGQUIT as a graceful stop) goes on, or exits through its exit handlers, which write.
  // Taking its handler's turn would make the trace a one-shot snapshot at the reload.
  if ((sig == SIGHUP || sig == SIGQUIT) && has_own_handler(previous)) return;
  struct sigaction ours {};
  ours.sa_sigaction = on_signal;
  // The program's own restart choice is kept: Python's handler wants interrupted sleeps to return (EINTR) so it
  // can raise KeyboardInterrupt promptly. A program with no handler never expected EINTR, and now runs on
  // after the signal until the trace is written: most interrupted calls restart, but poll, select, nanosleep and
  // the like return EINTR whatever the flag, which such a program may take for an error and exit on (the exit
  // then ends it by the held signal: end_by_held_signals). The program's alternate stack (SA_ONSTACK) and mask
  // are kept too, with kSignals added.
  const bool own = has_own_handler(previous);
  ours.sa_flags = SA_SIGINFO | (own ? (previous.sa_flags & (SA_RESTART | SA_ONSTACK)) : SA_RESTART);
  ours.sa_mask = own ? previous.sa_mask : handled_signals();
  for (const int s : kSignals) sigaddset(&ours.sa_mask, s);
  ::sigaction(sig, &ours, nullptr);
}

}  // namespace

void end_by_held_signals() {
  if (::getpid() != g_writer_pid.load()) return;
  for (const int s : kSignals) {
    if (!has_own_handler(previous_of(s)) && (g_pending.fetch_and(~bit_of(s)) & bit_of(s)) != 0) {
      end_by_default_action(s);
      // The signal may land on another thread: this one waits for it rather than finish the exit first.
      struct timespec t {1, 0};
      while (::nanosleep(&t, &t) != 0 && errno == EINTR) {
      }
    }
  }
}

void write_trace_on_signals(SignalWrite steps) {
  g_steps = steps;
  if (::sem_init(&g_wake, 0, 0) != 0) return;  // no writer, no handlers: the exit's write still happens
  g_writer_pid = ::getpid();
  // The writer inherits this mask: none of kSignals is ever delivered to it, so its handler never waits on itself.
  // SIGPIPE too: its stderr line on a pipe whose reader is gone (`| tee log`, ended with the terminal that sent
  // SIGHUP) would raise it at the writer and end the program before the trace is written; blocked, the line
  // fails with EPIPE and the write goes on.
  sigset_t handled = handled_signals();
  sigaddset(&handled, SIGPIPE);
  sigset_t old;
  ::pthread_sigmask(SIG_BLOCK, &handled, &old);
  bool started = true;
  try {
    std::thread(writer_thread).detach();
  } catch (const std::system_error&) {
    started = false;  // no thread to write: leave the signals as they were (the exit's write still happens)
  }
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (!started) return;
  for (const int s : kSignals) install(s);
}

}  // namespace perfhound::record
