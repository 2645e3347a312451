// The injection library's signal path (record/signal_trace.h), without a GPU: each case runs in a forked child
// that installs it with a flush that takes a lock (standing for CUPTI's) and a write that puts "final" or
// "snapshot" in the file (to FILE.partial, then renamed, as the real writer does), and the test sends the signal
// and reads how the child ended and what was written. A child still running after kHangS is a hang: killed, and
// the case fails.
#include "record/signal_trace.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

namespace perfhound::record {
namespace {

constexpr int kHangS = 20;

std::string g_path;       // the child's trace file
std::mutex g_trace_lock;  // stands for a lock the write needs (CUPTI's, the allocator's)

void flush_marker() { std::lock_guard lock(g_trace_lock); }

void write_marker(bool final) {
  const std::string partial = g_path + ".partial";
  if (FILE* f = std::fopen(partial.c_str(), "w")) {
    std::fputs(final ? "final\n" : "snapshot\n", f);
    std::fclose(f);
    std::rename(partial.c_str(), g_path.c_str());
  }
}

// A large trace: seconds to write.
void slow_write_marker(bool final) {
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  write_marker(final);
}

constexpr SignalWrite kMarker{flush_marker, write_marker};

std::string written() {
  std::ifstream in(g_path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void sleep_s(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

struct Ended {
  bool hung = false;
  int signal = 0;  // the signal that ended it, or 0
  int code = -1;   // its exit code where it exited
};

// Forks; the child runs `child` (which writes one byte to `ready` when the signal may come, and never returns
// unless it means to exit 0), the parent sends `signals`, `between_s` apart, and waits. Apart, because the kernel
// keeps one pending instance of a signal: two sent back to back mostly arrive as one.
Ended run_child(const std::function<void(int ready)>& child, std::initializer_list<int> signals,
                double between_s = 0.2) {
  g_path = (std::filesystem::temp_directory_path() / ("perfhound_signal_trace_" + std::to_string(::getpid()) + "_" +
                                                      ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
  std::filesystem::remove(g_path);
  int pipe_fds[2];
  EXPECT_EQ(::pipe(pipe_fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fds[0]);
    child(pipe_fds[1]);
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  // Waited for no longer than a hang: a child stuck before it is ready would otherwise hold the test forever.
  struct pollfd ready {pipe_fds[0], POLLIN, 0};
  char byte = 0;
  const bool said_ready = ::poll(&ready, 1, kHangS * 1000) == 1 && ::read(pipe_fds[0], &byte, 1) == 1;
  EXPECT_TRUE(said_ready) << "the child never said it was ready";
  ::close(pipe_fds[0]);
  for (const int* sig = signals.begin(); sig != signals.end(); ++sig) {
    if (sig != signals.begin()) sleep_s(between_s);
    ::kill(pid, *sig);
  }
  Ended e;
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kHangS);
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      e.hung = true;
      return e;
    }
    sleep_s(0.01);
  }
  if (WIFSIGNALED(status)) e.signal = WTERMSIG(status);
  if (WIFEXITED(status)) e.code = WEXITSTATUS(status);
  return e;
}

void say_ready(int ready) {
  const char byte = 1;
  [[maybe_unused]] const auto n = ::write(ready, &byte, 1);
}

// Says ready with the lock the flush needs held, keeps it 1 s (the signals land in here: a second one may cut
// the first sleep short), then lets go.
void signals_land_while_the_flush_lock_is_held(int ready) {
  g_trace_lock.lock();
  say_ready(ready);
  sleep_s(0.5);
  sleep_s(0.5);
  g_trace_lock.unlock();
}

// The case the library hung on (an H100, 2026-12-06): the signal interrupts a thread holding a lock the flush
// needs. Run in the handler, the flush would wait for its own thread forever; here the thread runs on, lets go
// within a second, the writer flushes and writes, and the signal then ends the program as its default action.
TEST(SignalTrace, AThreadHoldingALockTheFlushNeedsDoesNotHangIt) {
  const Ended e = run_child(
      [](int ready) {
        write_trace_on_signals(kMarker);
        g_trace_lock.lock();
        say_ready(ready);
        sleep_s(1.0);  // the signal lands in here, the lock held
        g_trace_lock.unlock();
        for (;;) sleep_s(1.0);
      },
      {SIGTERM});
  ASSERT_FALSE(e.hung) << "the program never ended";
  EXPECT_EQ(e.signal, SIGTERM);
  EXPECT_EQ(written(), "final\n");
}

// Ctrl-C reaches both perfhound and the program, and perfhound forwards it: the program gets it twice. The
// second is not a second write, nor an end before the first write is done.
TEST(SignalTrace, ARepeatedSignalIsOneWriteThenTheDefaultAction) {
  const Ended e = run_child(
      [](int ready) {
        write_trace_on_signals(kMarker);
        signals_land_while_the_flush_lock_is_held(ready);
        for (;;) sleep_s(1.0);
      },
      {SIGINT, SIGINT});
  ASSERT_FALSE(e.hung);
  EXPECT_EQ(e.signal, SIGINT);
  EXPECT_EQ(written(), "final\n");
}

// A program with its own handler (Python's SIGINT): the trace is written before that handler runs, as a
// snapshot (the program may go on and exit normally, when the exit's write replaces it). The handler looks for
// the file itself (access(), async-signal-safe): the write must be complete before it runs, not merely before
// the program reads the file afterwards. The child exits 0 when the handler saw it and the file is a snapshot.
std::atomic<int> g_handled{0};
std::atomic<bool> g_file_at_handler{false};
std::atomic<int> g_writes{0};
void own_handler(int) {
  g_file_at_handler = ::access(g_path.c_str(), F_OK) == 0;
  ++g_handled;
}

// Waits up to kHangS for the program's handler to have run `times`.
bool handled(int times) {
  for (int i = 0; i < kHangS * 1000 && g_handled < times; ++i) sleep_s(0.001);
  return g_handled >= times;
}

// The program's handler ran (waited for as `handled`), found the file there when it ran, and it is a snapshot.
bool handled_after_the_snapshot() { return handled(1) && g_file_at_handler && written() == "snapshot\n"; }

SignalWrite g_steps{};
Ended snapshot_before_own_handler(SignalWrite steps) {
  g_steps = steps;
  return run_child(
      [](int ready) {
        ::signal(SIGINT, own_handler);
        write_trace_on_signals(g_steps);
        say_ready(ready);
        ::_exit(handled_after_the_snapshot() ? 0 : 1);
      },
      {SIGINT});
}

TEST(SignalTrace, TheProgramsOwnHandlerRunsAfterTheWrite) {
  const Ended e = snapshot_before_own_handler(kMarker);
  ASSERT_FALSE(e.hung);
  EXPECT_EQ(e.code, 0) << "the program's handler ran before the trace was written";
}

TEST(SignalTrace, TheProgramsOwnHandlerRunsAfterASlowWrite) {
  const Ended e = snapshot_before_own_handler({flush_marker, slow_write_marker});
  ASSERT_FALSE(e.hung);
  EXPECT_EQ(e.code, 0) << "the program's handler ran before the trace was written";
}

// The case that lost the trace on an H200 (2026-12-06): Python's SIGINT lands in a thread holding the lock the
// flush needs (inside a launch). The signal must not hold that thread: it goes on (here it keeps the lock 1 s,
// then lets go), the flush and write follow, and only then the program's handler runs, with the file there. The
// earlier design held the thread up to 5 s, then ran Python's handler before the write; Python ended first.
// Exit 0: the thread was not held (its 1 s took under 2 s), the handler did not run while the lock was held,
// and it saw the file.
TEST(SignalTrace, AFlushBlockedByTheInterruptedThreadDefersTheProgramsHandlerWithoutHoldingTheThread) {
  const Ended e = run_child(
      [](int ready) {
        ::signal(SIGINT, own_handler);
        write_trace_on_signals(kMarker);
        g_trace_lock.lock();
        const auto start = std::chrono::steady_clock::now();
        say_ready(ready);
        sleep_s(1.0);  // the signal lands in here, the lock held
        const auto held_for = std::chrono::steady_clock::now() - start;
        const bool handled_while_locked = g_handled > 0;
        g_trace_lock.unlock();
        ::_exit(held_for < std::chrono::seconds(2) && !handled_while_locked && handled_after_the_snapshot() ? 0 : 1);
      },
      {SIGINT});
  ASSERT_FALSE(e.hung);
  EXPECT_EQ(e.code, 0);
}

// Ctrl-C twice to a program with its own handler (the terminal's and perfhound's forwarded copy): one write,
// and the program's handler runs once, after it. Exit 0: handled once in the 0.5 s after the first handling.
TEST(SignalTrace, ARepeatedSignalIsOneWriteThenTheProgramsHandlerOnce) {
  const Ended e = run_child(
      [](int ready) {
        ::signal(SIGINT, own_handler);
        write_trace_on_signals(kMarker);
        signals_land_while_the_flush_lock_is_held(ready);
        const bool snapshot_first = handled_after_the_snapshot();
        sleep_s(0.5);
        ::_exit(snapshot_first && g_handled == 1 ? 0 : 1);
      },
      {SIGINT, SIGINT});
  ASSERT_FALSE(e.hung);
  EXPECT_EQ(e.code, 0);
}

// SIGTERM (default action) while SIGINT's write (the program's own handler) is held: one write, the snapshot,
// and the program ends by SIGTERM after it, as it would have without the library.
TEST(SignalTrace, ADefaultActionHeldBehindTheProgramsHandlerStillEndsTheProgram) {
  const Ended e = run_child(
      [](int ready) {
        ::signal(SIGINT, own_handler);
        write_trace_on_signals(kMarker);
        signals_land_while_the_flush_lock_is_held(ready);
        for (;;) sleep_s(1.0);
      },
      {SIGINT, SIGTERM});
  ASSERT_FALSE(e.hung) << "the program never ended";
  EXPECT_EQ(e.signal, SIGTERM);
  EXPECT_EQ(written(), "snapshot\n");
}

// Once the trace is written, a later signal goes straight to the program's handler, with no second write.
// Exit 0: the second SIGINT (sent by the child to itself) was handled, and the file is still the one snapshot.
TEST(SignalTrace, ASignalAfterTheWriteGoesStraightToTheProgramsHandler) {
  const Ended e = run_child(
      [](int ready) {
        ::signal(SIGINT, own_handler);
        write_trace_on_signals({flush_marker, [](bool final) {
                                  write_marker(final);
                                  ++g_writes;
                                }});
        say_ready(ready);
        const bool first = handled(1);
        ::kill(::getpid(), SIGINT);
        ::_exit(first && handled(2) && g_writes == 1 && written() == "snapshot\n" ? 0 : 1);
      },
      {SIGINT});
  ASSERT_FALSE(e.hung);
  EXPECT_EQ(e.code, 0);
}

// Asked again long after the first (kRepeatPassesAfterMs), with the write stuck: the repeat is a demand to stop
// now and ends the program, no trace written, instead of waiting on a write that never finishes.
TEST(SignalTrace, ARepeatLongAfterTheFirstEndsTheProgramWhileTheWriteIsStuck) {
  const Ended e = run_child(
      [](int ready) {
        write_trace_on_signals(kMarker);
        g_trace_lock.lock();  // never let go: the flush never comes
        say_ready(ready);
        for (;;) sleep_s(1.0);
      },
      {SIGTERM, SIGTERM}, kRepeatPassesAfterMs / 1000.0 + 0.5);
  ASSERT_FALSE(e.hung) << "the repeat did not end the program";
  EXPECT_EQ(e.signal, SIGTERM);
  EXPECT_FALSE(std::filesystem::exists(g_path));
}

// SIGTERM (default action) held while the writer writes, and the program exits on its own meanwhile (its poll
// returned EINTR, which it takes for an error): the exit's end_by_held_signals ends it by SIGTERM, as without the
// library, not by its own exit code. The write step returns 2 s after the file is there, so the writer has not
// delivered the signal when the exit comes.
TEST(SignalTrace, AProgramExitingWhileASignalIsHeldEndsByThatSignal) {
  const Ended e = run_child(
      [](int ready) {
        write_trace_on_signals({flush_marker, [](bool final) {
                                  write_marker(final);
                                  sleep_s(2.0);
                                }});
        say_ready(ready);
        const bool interrupted = ::poll(nullptr, 0, kHangS * 1000) < 0 && errno == EINTR;
        for (int i = 0; i < 500 && written().empty(); ++i) sleep_s(0.01);  // the exit's own write, done
        end_by_held_signals();
        ::_exit(interrupted ? 3 : 4);
      },
      {SIGTERM});
  ASSERT_FALSE(e.hung);
  EXPECT_EQ(e.signal, SIGTERM) << "exit code " << e.code;
  EXPECT_EQ(written(), "final\n");
}

// A handler installed with SA_RESETHAND runs once, then the default comes back, as the kernel does without the
// library: a second SIGINT, after the first was handled, ends the program.
TEST(SignalTrace, AOneShotHandlerIsResetAfterItRuns) {
  const Ended e = run_child(
      [](int ready) {
        struct sigaction one_shot {};
        one_shot.sa_handler = own_handler;
        one_shot.sa_flags = SA_RESETHAND;
        ::sigaction(SIGINT, &one_shot, nullptr);
        write_trace_on_signals(kMarker);
        say_ready(ready);
        if (!handled(1)) ::_exit(1);
        ::kill(::getpid(), SIGINT);
        sleep_s(1.0);
        ::_exit(0);
      },
      {SIGINT});
  ASSERT_FALSE(e.hung);
  EXPECT_EQ(e.signal, SIGINT) << "the handler ran again (exit code " << e.code << ")";
  EXPECT_EQ(written(), "snapshot\n");
}

// A closed terminal (an ssh session dropped) sends SIGHUP, whose default action ends the program without its exit
// handlers, as SIGTERM's does: the trace is written, then SIGHUP ends it.
TEST(SignalTrace, AClosedTerminalsHangupWritesTheTraceThenEndsTheProgram) {
  const Ended e = run_child(
      [](int ready) {
        write_trace_on_signals(kMarker);
        say_ready(ready);
        for (;;) sleep_s(1.0);
      },
      {SIGHUP});
  ASSERT_FALSE(e.hung);
  EXPECT_EQ(e.signal, SIGHUP);
  EXPECT_EQ(written(), "final\n");
}

// SIGQUIT (Ctrl-\) with its default action (a core dump, turned off here): the trace first, then SIGQUIT ends it.
TEST(SignalTrace, SigquitsDefaultActionWritesTheTraceFirst) {
  const Ended e = run_child(
      [](int ready) {
        const struct rlimit no_core {0, 0};
        ::setrlimit(RLIMIT_CORE, &no_core);
        write_trace_on_signals(kMarker);
        say_ready(ready);
        for (;;) sleep_s(1.0);
      },
      {SIGQUIT});
  ASSERT_FALSE(e.hung);
  EXPECT_EQ(e.signal, SIGQUIT);
  EXPECT_EQ(written(), "final\n");
}

// A program that handles SIGHUP itself (a reload) is left alone: its handler runs at once, nothing is written
// then, and the program goes on (its exit writes the whole trace). Taking the handler's turn would have made the
// trace a snapshot at the reload. Exit 0: the handler ran and no file was there.
TEST(SignalTrace, AProgramsOwnHangupHandlerIsLeftAlone) {
  const Ended e = run_child(
      [](int ready) {
        ::signal(SIGHUP, own_handler);
        write_trace_on_signals(kMarker);
        say_ready(ready);
        ::_exit(handled(1) && !g_file_at_handler && !std::filesystem::exists(g_path) ? 0 : 1);
      },
      {SIGHUP});
  ASSERT_FALSE(e.hung);
  EXPECT_EQ(e.code, 0) << "the program's SIGHUP handler was taken over (or never ran)";
}

// A signal the program ignores stays ignored: no write, and the program ends on its own.
TEST(SignalTrace, AnIgnoredSignalStaysIgnored) {
  const Ended e = run_child(
      [](int ready) {
        ::signal(SIGTERM, SIG_IGN);
        write_trace_on_signals(kMarker);
        say_ready(ready);
        sleep_s(0.3);
      },
      {SIGTERM});
  ASSERT_FALSE(e.hung);
  EXPECT_EQ(e.code, 0);
  EXPECT_FALSE(std::filesystem::exists(g_path));
}

// A process forked from the recorded one has no writer thread and is not the one whose trace it is: the
// signal ends it at once, with nothing written. Exit 0 from the child: its fork ended by SIGTERM, no file.
TEST(SignalTrace, AForkedProcessPassesTheSignalOnAtOnce) {
  const Ended e = run_child(
      [](int ready) {
        write_trace_on_signals(kMarker);
        const pid_t grandchild = ::fork();
        if (grandchild == 0) {
          for (;;) sleep_s(1.0);
        }
        sleep_s(0.1);
        ::kill(grandchild, SIGTERM);
        int status = 0;
        ::waitpid(grandchild, &status, 0);
        say_ready(ready);
        ::_exit(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM && !std::filesystem::exists(g_path) ? 0 : 1);
      },
      {});
  ASSERT_FALSE(e.hung);
  EXPECT_EQ(e.code, 0);
}

}  // namespace
}  // namespace perfhound::record
