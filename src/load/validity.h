// VALID or INVALID, with reasons and remedies, as MLPerf LoadGen ends a run (STYLE.md rule 12). A run is
// INVALID when its latencies are not the server's: the client limited it, or nothing completed. Pure.
//
// Client-limited, any of (thresholds chosen so that a healthy client on an idle core is far inside them:
// bench/RESULTS.md measured dispatch lag p99 and loop lag p99 in the tens of microseconds):
//   - open loop: dispatch lag p99 > 1 ms (requests left later than the schedule meant, for the client's reasons)
//   - event-loop lag p99 > 5 ms (the client's only thread was busy when a response arrived)
//   - client CPU > 90% of its core over the run
//   - perfhound serve emit -> receive delay p99 > 1 ms (the client read late what the server had sent)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace perfhound::load {

inline constexpr double kMaxDispatchLagP99S = 1e-3;
inline constexpr double kMaxLoopLagP99S = 5e-3;
inline constexpr double kMaxClientCpuRatio = 0.9;
inline constexpr double kMaxEmitDelayP99S = 1e-3;

struct ValidityInputs {
  bool open_loop = false;
  double dispatch_lag_p99_s = 0;  // open loop only
  double loop_lag_p99_s = 0;
  double client_cpu_ratio = 0;
  bool emit_delay_measured = false;
  double emit_delay_p99_s = 0;
  std::uint64_t completed = 0;    // measured requests that completed
};

struct ValidityReason {
  std::string what;    // "dispatch lag p99 3.2 ms > 1 ms"
  std::string remedy;
};

struct Validity {
  bool valid = true;
  bool client_limited = false;
  std::vector<ValidityReason> reasons;
};

Validity evaluate_validity(const ValidityInputs& inputs);

}  // namespace perfhound::load
