#include "load/shard.h"

#include <charconv>
#include <fmt/format.h>

namespace perfhound::load {

core::Result<Shard> parse_shard(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return core::Error{fmt::format("--shard: '{}' {}; expected K/N with 0 <= K < N, e.g. 0/4", text, why)};
  };
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) return bad("has no '/'");
  const auto number = [](std::string_view s, std::uint64_t& out) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size() && !s.empty();
  };
  Shard shard;
  if (!number(text.substr(0, slash), shard.index)) return bad("does not start with a whole number K");
  if (!number(text.substr(slash + 1), shard.count)) return bad("does not end with a whole number N");
  if (shard.count < 1) return bad("has N = 0");
  if (shard.index >= shard.count) return bad("has K >= N (shards count from 0)");
  return shard;
}

std::uint64_t shard_part(std::uint64_t total, const Shard& shard) {
  return total / shard.count + (shard.index < total % shard.count ? 1 : 0);
}

std::uint64_t shard_issue_limit(const std::function<std::int64_t(std::uint64_t)>& intended_ns,
                                std::uint64_t warmup_requests, std::int64_t warmup_ns, std::uint64_t measured,
                                std::optional<std::uint64_t> size) {
  std::uint64_t warm = warmup_requests;
  if (warmup_ns > 0) {
    // The time-based prefix can reach past the count-based one; walk the schedule until it ends.
    std::uint64_t i = 0;
    while ((!size || i < *size) && intended_ns(i) < warmup_ns) ++i;
    warm = std::max(warm, i);
  }
  if (size) warm = std::min(warm, *size);
  return warm + measured;
}

}  // namespace perfhound::load
