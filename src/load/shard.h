// One client's share of a load spread over several (MPI ranks, or independent runs merged later): which
// requests shard k of N sends so that the union over the shards is exactly the one-process run.
//
//   open loop, replay  shard k sends arrivals k, k + N, k + 2N, ... of the one schedule (every shard walks the
//                      same gaps, so it computes bitwise the same intended times as one process would). The
//                      stop rules read the whole schedule: --duration is a time, the same for every shard;
//                      --requests M becomes an index limit, w + M, where w is the schedule's warm-up prefix
//                      (arrivals with index < --warmup N, or intended before --warmup T: times never decrease,
//                      so warm-up is always a prefix). The shards' records then hold exactly the indices one
//                      process would send, each with the same intended time and warm-up flag.
//   closed loop        the concurrency, --requests and a request-count --warmup are divided, the first
//                      (total mod N) shards taking one more; shard k sends workload items k, k + N, ... so no
//                      prompt is sent twice. Who sends what next depends on when responses come back, so a
//                      closed loop is the same load, not the same requests.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "core/result.h"

namespace perfhound::load {

struct Shard {
  std::uint64_t index = 0;  // k, from 0
  std::uint64_t count = 1;  // N
  bool whole() const { return count == 1; }
};

// "K/N" with 0 <= K < N (as --shard spells it); the error names --shard and says what is wrong.
core::Result<Shard> parse_shard(std::string_view text);

// Shard k's part of a total divided over N: total / N, plus one for the first total % N shards.
std::uint64_t shard_part(std::uint64_t total, const Shard& shard);

// The schedule's issue limit for --requests `measured` (see above): w + measured, where w counts the
// arrivals i = 0, 1, ... with i < warmup_requests or intended_ns(i) < warmup_ns, a prefix. intended_ns(i)
// must not decrease with i; it is called for i = 0, 1, ... in order, at most w + 1 times. `size` bounds the
// schedule (a replayed trace's rows): the walk stops there.
std::uint64_t shard_issue_limit(const std::function<std::int64_t(std::uint64_t)>& intended_ns,
                                std::uint64_t warmup_requests, std::int64_t warmup_ns, std::uint64_t measured,
                                std::optional<std::uint64_t> size);

}  // namespace perfhound::load
