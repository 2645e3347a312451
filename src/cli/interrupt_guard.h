// SIGINT / SIGTERM (and SIGHUP, unless ignored as nohup ignores it) between measurements (a sweep's cooldown, the moments between its points): noted instead of
// fatal, so the command stops at the next boundary and writes what it measured, marked partial. While a load
// runs, the load runner's own signal set takes the signals; when it ends Asio puts back the default action,
// so rearm() after every run.
#pragma once

#include <csignal>
#include <cstdint>

namespace perfhound::cli {

class InterruptGuard {
 public:
  InterruptGuard();  // clears what an earlier guard saw and installs the handlers
  ~InterruptGuard();  // puts back the handlers there were before
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  void rearm();
  // 0, or the first signal that arrived since this guard was made.
  int signal() const;
  // Sleeps `ns`, ending early at a signal; true when one arrived (before or during the sleep).
  bool sleep_unless_interrupted(std::int64_t ns) const;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
  struct sigaction old_hup_ {};
  bool hangup_ = false;  // SIGHUP noted too: it was not ignored (nohup) when the guard was made
};

}  // namespace perfhound::cli
