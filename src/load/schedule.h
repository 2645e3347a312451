// When each request is meant to be sent: the open-loop arrival schedule (and trace replay), deterministic
// from the seed. Times are int64 nanoseconds from the schedule's start; the runner measures latency from
// them (intended send time, STYLE.md rule 11).
//
// Arrival processes, at a steady rate r (requests/s), as vLLM's benchmark_serving defines --burstiness:
//   poisson    gaps exponential with mean 1/r (coefficient of variation 1)
//   gamma      gaps gamma with shape k = burstiness and scale 1/(r k): mean 1/r, CV 1/sqrt(k). k < 1 is
//              burstier than Poisson, k > 1 more regular, k = 1 is Poisson
//   constant   gaps exactly 1/r
// Arrival 0 is at t = 0 (vLLM also sends its first request at once); arrival i > 0 is at
//   t_i = L^-1(G_1 + ... + G_i),
// where G_j is the j-th gap of the unit-rate process (mean 1; drawn from (seed, j, kArrivalGapStream), so a
// pure function of the seed and j) and L(t) is the cumulative intensity, the expected number of arrivals
// in (0, t]. Without a ramp L(t) = r t, so t_i = (G_1 + ... + G_i) / r.
//
// Ramp-up (ramp_up_ns = T > 0): the rate rises linearly from r0 = ramp_start_rate_per_s to r1 = rate_per_s
// over [0, T], then stays at r1:
//   L(t) = r0 t + (r1 - r0) t^2 / (2T)       for t <= T        (L(T) = (r0 + r1) T / 2)
//   L(t) = L(T) + r1 (t - T)                 for t > T
// and arrivals come from the time change above: the unit-rate renewal process mapped through L^-1 (solved
// in closed form, t = 2s / (r0 + sqrt(r0^2 + 2 (r1 - r0) s / T)) on the ramp). For Poisson gaps this is
// exactly the non-homogeneous Poisson process of rate r(t); for gamma and constant gaps it keeps their
// regularity in "intensity time" (constant gaps give one arrival per unit of L). r0 may be above r1 (a
// ramp down); r0 = 0 starts from nothing.
//
// Walking: the gaps must be summed in order, so arrival i costs O(i) from scratch and O(1) amortized when
// walked in order by an ArrivalCursor. A later MPI split gives rank r of N the cursor (first = r,
// stride = N): every rank sums the same gaps in the same order and so computes bitwise the same times for
// the arrivals it owns, paying O(N) gap draws (~10 ns each) per own arrival.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "core/result.h"
#include "load/workload.h"

namespace perfhound::load {

enum class ArrivalProcess { kPoisson, kGamma, kConstant };

// "poisson", "gamma", "constant"; the error lists them.
core::Result<ArrivalProcess> parse_arrival_process(std::string_view text);
std::string_view arrival_process_name(ArrivalProcess process);

struct OpenLoopConfig {
  double rate_per_s = 0;                  // r1, the steady rate; > 0
  ArrivalProcess process = ArrivalProcess::kPoisson;
  double burstiness = 1.0;                // gamma shape; > 0, and 1 unless the process is gamma
  std::int64_t ramp_up_ns = 0;            // T; 0 = no ramp
  double ramp_start_rate_per_s = 0;       // r0; >= 0; nonzero only with a ramp
  std::uint64_t seed = 0;
};

struct Arrival {
  std::uint64_t index = 0;       // position in the schedule (the workload item to send)
  std::int64_t intended_ns = 0;  // when it is meant to be sent, from the schedule's start
};

// The open-loop schedule: immutable and cheap to copy.
class ArrivalSchedule {
 public:
  // Errors name the flags as the CLI spells them: --rate (not > 0 or not finite), --burstiness (not > 0,
  // or not 1 without --arrival gamma), --ramp-up (negative), --ramp-start-rate (negative, or set without
  // --ramp-up).
  static core::Result<ArrivalSchedule> create(const OpenLoopConfig& config);

  const OpenLoopConfig& config() const { return config_; }
  // G_index, the unit-mean gap before arrival `index` (index >= 1) of the unit-rate process.
  double unit_gap(std::uint64_t index) const;
  // L(t), the expected number of arrivals in (0, t] (t in ns; 0 for t <= 0).
  double cumulative_intensity(std::int64_t t_ns) const;
  // L^-1(s) in ns, rounded to the nearest ns and saturated at INT64_MAX; 0 for s <= 0.
  std::int64_t time_for_intensity(double s) const;
  // The intended time of arrival `index`, summing its gaps from 0: O(index). A cursor walks in O(1) each.
  std::int64_t intended_ns(std::uint64_t index) const;
  // {"process", "rate_per_s", "burstiness", "ramp_up_s", "ramp_start_rate_per_s", "seed"}.
  nlohmann::ordered_json describe() const;

 private:
  explicit ArrivalSchedule(const OpenLoopConfig& config) : config_(config) {}
  OpenLoopConfig config_;
};

// Walks arrivals in index order: first, first + stride, first + 2 stride, ...
class ArrivalCursor {
 public:
  virtual ~ArrivalCursor();
  // The next arrival, or nullopt when the schedule has ended (a replayed trace's last row; an open-loop
  // schedule only ends when the index would pass 2^64 - 1).
  virtual std::optional<Arrival> next() = 0;
  // The schedule for the result's conditions (ArrivalSchedule::describe(), or the replay's), plus the
  // cursor's "first" and "stride".
  virtual nlohmann::ordered_json describe() const = 0;
};

// O(stride) gap draws per next(), i.e. O(1) per arrival of the whole process. stride >= 1.
std::unique_ptr<ArrivalCursor> make_open_loop_cursor(const ArrivalSchedule& schedule, std::uint64_t first = 0,
                                                     std::uint64_t stride = 1);

// Trace replay: arrival i is workload.arrival_ns(i) / speedup (rounded to the nearest ns), for i below
// workload.size(). speedup 2 replays twice as fast. `workload` must outlive the cursor. Errors: speedup not
// a finite number > 0 ("--trace-speedup ..."), a workload without arrival times or without a size. stride >= 1.
core::Result<std::unique_ptr<ArrivalCursor>> make_trace_replay_cursor(const Workload& workload, double speedup,
                                                                      std::uint64_t first = 0,
                                                                      std::uint64_t stride = 1);

}  // namespace perfhound::load
