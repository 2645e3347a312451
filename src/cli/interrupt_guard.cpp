#include "cli/interrupt_guard.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

namespace perfhound::cli {
namespace {

std::atomic<int> g_signal{0};  // lock-free, so the handler may store to it

void note_signal(int sig) {
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);
}

void install(int sig, struct sigaction* old) {
  struct sigaction note {};
  note.sa_handler = note_signal;
  sigemptyset(&note.sa_mask);
  ::sigaction(sig, &note, old);
}

}  // namespace

InterruptGuard::InterruptGuard() {
  g_signal = 0;
  install(SIGINT, &old_int_);
  install(SIGTERM, &old_term_);
  hangup_ = ::sigaction(SIGHUP, nullptr, &old_hup_) == 0 && old_hup_.sa_handler != SIG_IGN;
  if (hangup_) install(SIGHUP, nullptr);
}

InterruptGuard::~InterruptGuard() {
  ::sigaction(SIGINT, &old_int_, nullptr);
  ::sigaction(SIGTERM, &old_term_, nullptr);
  if (hangup_) ::sigaction(SIGHUP, &old_hup_, nullptr);
}

void InterruptGuard::rearm() {
  install(SIGINT, nullptr);
  install(SIGTERM, nullptr);
  if (hangup_) install(SIGHUP, nullptr);
}

int InterruptGuard::signal() const { return g_signal.load(); }

bool InterruptGuard::sleep_unless_interrupted(std::int64_t ns) const {
  // Slices of at most 20 ms: a signal ends the wait within one, without a self-pipe.
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
  while (signal() == 0) {
    const auto left = until - std::chrono::steady_clock::now();
    if (left <= std::chrono::nanoseconds(0)) break;
    std::this_thread::sleep_for(std::min<std::chrono::nanoseconds>(left, std::chrono::milliseconds(20)));
  }
  return signal() != 0;
}

}  // namespace perfhound::cli
