// The live checks of `perfhound audit --url`: short runs against an endpoint that a published number should
// survive, after MLPerf Inference's compliance tests. Pure: the records of those runs in, pass or fail with the
// numbers out; src/cli/audit_live.cpp sends the requests.
//
//   repeated-prompt (TEST04)  the same prompt sent again and again must not be served much faster than distinct
//                             prompts of the same length: if it is, a cache answers, and a benchmark that repeats
//                             its prompts measures the cache. Fails when the Hodges-Lehmann 95% interval of
//                             TTFT(same) - TTFT(distinct) lies wholly below -10% of the distinct median.
//   stream-accounting (TEST06) every completed stream has exactly one finish_reason, a usage block (it was
//                             asked for), and no more content chunks than its usage counts tokens (a chunk
//                             carries at least one token).
//   output-length (TEST09)    no output exceeds its max_tokens; with ignore_eos asked, none is shorter either.
//   seed-stability (TEST05)   the same workload drawn with another seed gives the same TTFT and TPOT: fails when
//                             the 95% interval of the difference lies wholly outside +-10% of the first run's
//                             median (a system tuned to one prompt set).
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "load/request_record.h"

namespace perfhound::audit {

inline constexpr double kLiveTolerance = 0.10;   // a relative difference this large is material
inline constexpr double kLiveConfidence = 0.95;  // the Hodges-Lehmann interval's

struct LiveCheck {
  std::string_view id;      // stable: "repeated-prompt", "stream-accounting", "output-length", "seed-stability"
  std::string_view mlperf;  // the compliance test it follows: "TEST04"
  bool passed = false;
  std::string what;         // one line with the numbers
  nlohmann::ordered_json numbers = nlohmann::ordered_json::object();
};

// Completed, measured (not warm-up) records only are judged; failed ones are counted in the numbers.
LiveCheck judge_repeated_prompt(std::span<const load::RequestRecord> same, std::span<const load::RequestRecord> distinct);
LiveCheck judge_stream_accounting(std::span<const load::RequestRecord> records);
LiveCheck judge_output_length(std::span<const load::RequestRecord> records, bool ignore_eos);
LiveCheck judge_seed_stability(std::span<const load::RequestRecord> first, std::span<const load::RequestRecord> second);

nlohmann::ordered_json live_check_to_json(const LiveCheck& check);

}  // namespace perfhound::audit
