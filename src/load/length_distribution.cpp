#include "load/length_distribution.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <numbers>
#include <sstream>
#include <system_error>
#include <cstring>
#include <cerrno>

#include "core/check.h"
#include "core/units.h"

namespace perfhound::load {
namespace {

constexpr std::uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ull;  // 2^64 / golden ratio, SplitMix64's increment
constexpr double kTwoPow53Inv = 1.0 / 9007199254740992.0;     // 2^-53

constexpr std::string_view kForms =
    "use a token count like 512, uniform:LO,HI, normal:MEAN,STDDEV, lognormal:MEDIAN,SIGMA or hist:FILE";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// A number with an optional SI suffix (1.5k), or nullopt.
std::optional<double> parse_number(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  auto r = core::parse_si_number(text);
  if (!r.ok() || !std::isfinite(*r)) return std::nullopt;
  return *r;
}

// "a,b" -> two numbers, or nullopt when there are not exactly two parseable fields.
std::optional<std::pair<double, double>> parse_pair(std::string_view args) {
  const auto comma = args.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  const auto a = parse_number(args.substr(0, comma));
  const auto b = parse_number(args.substr(comma + 1));
  if (!a || !b) return std::nullopt;
  return std::pair{*a, *b};
}

bool is_token_count(double v) { return v == std::floor(v) && v >= 1 && v <= static_cast<double>(kMaxLengthTokens); }

std::string number_text(double v) { return fmt::format("{}", v); }  // shortest round-trip: 512, 0.5, 1e+06

// A mean for people: whole tokens from 100 up, three significant digits below.
std::string mean_text(double v) { return v >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v); }

}  // namespace

std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

CounterRng::CounterRng(std::uint64_t seed, std::uint64_t index, std::uint64_t stream) {
  // Each coordinate goes through a full mix before the next is folded in, so nearby (seed, index, stream)
  // triples land on unrelated keys; the streams they start are then 2^64 / golden apart on average, far
  // more than any request draws.
  std::uint64_t h = splitmix64_mix(seed + kGoldenGamma);
  h = splitmix64_mix(h ^ (index * kGoldenGamma + 0x632BE59BD9B4E019ull));
  h = splitmix64_mix(h ^ (stream * 0xD1B54A32D192ED03ull + 0x8CB92BA72F3D8DD7ull));
  state_ = h;
}

std::uint64_t CounterRng::next_u64() {
  state_ += kGoldenGamma;
  return splitmix64_mix(state_);
}

double CounterRng::uniform() { return static_cast<double>(next_u64() >> 11) * kTwoPow53Inv; }

double CounterRng::uniform_open() { return (static_cast<double>(next_u64() >> 11) + 0.5) * kTwoPow53Inv; }

std::uint64_t CounterRng::below(std::uint64_t n) {
  PH_CHECK(n >= 1);
  // Values below `threshold` would make the low residues more likely; (2^64 - n) mod n of them exist.
  const std::uint64_t threshold = (0 - n) % n;
  for (;;) {
    const std::uint64_t r = next_u64();
    if (r >= threshold) return r % n;
  }
}

double CounterRng::normal() {
  const double u1 = uniform_open();
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double CounterRng::exponential() { return -std::log(uniform_open()); }

double CounterRng::gamma(double shape) {
  PH_CHECK(shape > 0);
  if (shape < 1) {
    // Marsaglia & Tsang section 6: if X ~ gamma(a + 1) and U ~ U(0,1), X * U^(1/a) ~ gamma(a).
    const double x = gamma(shape + 1.0);
    return x * std::pow(uniform_open(), 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x = 0;
    double v = 0;
    do {
      x = normal();
      v = 1.0 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = uniform_open();
    const double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2) return d * v;               // the cheap squeeze
    if (std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) return d * v;
  }
}

LengthDistribution LengthDistribution::fixed(std::int64_t tokens) {
  PH_CHECK(tokens >= 1 && tokens <= kMaxLengthTokens);
  LengthDistribution d;
  d.kind_ = Kind::kFixed;
  d.a_ = static_cast<double>(tokens);
  d.spec_ = fmt::format("{}", tokens);
  return d;
}

std::int64_t LengthDistribution::sample(std::uint64_t seed, std::uint64_t index, std::uint64_t stream) const {
  if (kind_ == Kind::kFixed) return static_cast<std::int64_t>(a_);
  CounterRng rng(seed, index, stream);
  double x = 0;
  switch (kind_) {
    case Kind::kFixed: break;
    case Kind::kUniform: {
      const auto lo = static_cast<std::uint64_t>(a_);
      const auto span = static_cast<std::uint64_t>(b_) - lo + 1;
      return static_cast<std::int64_t>(lo + rng.below(span));
    }
    case Kind::kNormal: x = a_ + b_ * rng.normal(); break;
    case Kind::kLognormal: x = std::exp(a_ + b_ * rng.normal()); break;
    case Kind::kHistogram: {
      const auto& cum = histogram_->cumulative;
      const double target = rng.uniform() * cum.back();
      // The first bin whose running sum exceeds the target; zero-weight bins have no width and are never hit.
      auto it = std::upper_bound(cum.begin(), cum.end(), target);
      if (it == cum.end()) --it;  // target == total can only come from rounding
      return histogram_->lengths[static_cast<std::size_t>(it - cum.begin())];
    }
  }
  // The clamp comes before the conversion: a lognormal tail can exceed int64 or be +inf.
  x = std::clamp(std::round(x), 1.0, static_cast<double>(kMaxLengthTokens));
  return static_cast<std::int64_t>(x);
}

double LengthDistribution::nominal_mean() const {
  switch (kind_) {
    case Kind::kFixed: return a_;
    case Kind::kUniform: return (a_ + b_) / 2;
    case Kind::kNormal: return a_;
    case Kind::kLognormal: return std::exp(a_ + b_ * b_ / 2);
    case Kind::kHistogram: return histogram_->mean;
  }
  return 0;
}

std::optional<std::int64_t> LengthDistribution::fixed_value() const {
  if (kind_ == Kind::kFixed) return static_cast<std::int64_t>(a_);
  return std::nullopt;
}

std::string LengthDistribution::describe() const {
  switch (kind_) {
    case Kind::kFixed: return fmt::format("{}", static_cast<std::int64_t>(a_));
    case Kind::kUniform: return fmt::format("uniform {}..{}", static_cast<std::int64_t>(a_), static_cast<std::int64_t>(b_));
    case Kind::kNormal: return fmt::format("normal mean {} stddev {}", number_text(a_), number_text(b_));
    case Kind::kLognormal:
      return fmt::format("lognormal median {} sigma {} (mean {})", number_text(median_), number_text(b_),
                         mean_text(nominal_mean()));
    case Kind::kHistogram:
      return fmt::format("histogram '{}' ({} lengths {}..{}, mean {})", histogram_->file, histogram_->lengths.size(),
                         *std::min_element(histogram_->lengths.begin(), histogram_->lengths.end()),
                         *std::max_element(histogram_->lengths.begin(), histogram_->lengths.end()),
                         mean_text(histogram_->mean));
  }
  return {};
}

nlohmann::ordered_json LengthDistribution::to_json() const {
  nlohmann::ordered_json j;
  switch (kind_) {
    case Kind::kFixed:
      j["kind"] = "fixed";
      j["tokens"] = static_cast<std::int64_t>(a_);
      break;
    case Kind::kUniform:
      j["kind"] = "uniform";
      j["lo"] = static_cast<std::int64_t>(a_);
      j["hi"] = static_cast<std::int64_t>(b_);
      break;
    case Kind::kNormal:
      j["kind"] = "normal";
      j["mean"] = a_;
      j["stddev"] = b_;
      break;
    case Kind::kLognormal:
      j["kind"] = "lognormal";
      j["median"] = median_;
      j["sigma"] = b_;
      j["mean"] = nominal_mean();
      break;
    case Kind::kHistogram:
      j["kind"] = "histogram";
      j["file"] = histogram_->file;
      j["lengths"] = histogram_->lengths.size();
      j["min"] = *std::min_element(histogram_->lengths.begin(), histogram_->lengths.end());
      j["max"] = *std::max_element(histogram_->lengths.begin(), histogram_->lengths.end());
      j["mean"] = histogram_->mean;
      break;
  }
  j["spec"] = spec_;
  return j;
}

core::Result<LengthDistribution> parse_length_histogram(std::string_view text, std::string_view source_name,
                                                        std::string_view spec) {
  auto hist = std::make_shared<LengthDistribution::Histogram>();
  hist->file = std::string(source_name);
  double total = 0;
  double weighted_sum = 0;
  bool seen_data_or_header = false;
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t eol = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) {
      if (eol == text.size()) break;
      continue;
    }
    // Fields split on a comma, or else on runs of tabs and spaces.
    std::string_view first;
    std::string_view second;
    std::size_t fields = 0;
    if (line.find(',') != std::string_view::npos) {
      std::size_t start = 0;
      while (start <= line.size()) {
        const std::size_t end = std::min(line.find(',', start), line.size());
        (fields == 0 ? first : second) = trim(line.substr(start, end - start));
        ++fields;
        start = end + 1;
        if (end == line.size()) break;
      }
    } else {
      std::size_t i = 0;
      while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        if (i == line.size()) break;
        std::size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
        (fields == 0 ? first : second) = line.substr(i, j - i);
        ++fields;
        i = j;
      }
    }
    if (fields != 2) {
      return core::Error{fmt::format("'{}' line {}: expected 'LENGTH,WEIGHT' or 'LENGTH WEIGHT', got '{}'", source_name,
                                     line_no, line)};
    }
    double length = 0;
    const auto [lptr, lec] = std::from_chars(first.data(), first.data() + first.size(), length);
    const bool length_is_number = lec == std::errc() && lptr == first.data() + first.size();
    if (!length_is_number && !seen_data_or_header) {  // a header such as "length,count"
      seen_data_or_header = true;
      continue;
    }
    seen_data_or_header = true;
    if (!length_is_number || !is_token_count(length)) {
      return core::Error{fmt::format("'{}' line {}: length '{}' must be an integer from 1 to {}", source_name, line_no,
                                     first, kMaxLengthTokens)};
    }
    double weight = 0;
    const auto [wptr, wec] = std::from_chars(second.data(), second.data() + second.size(), weight);
    if (wec != std::errc() || wptr != second.data() + second.size() || !std::isfinite(weight) || weight < 0) {
      return core::Error{
          fmt::format("'{}' line {}: weight '{}' must be a number >= 0", source_name, line_no, second)};
    }
    total += weight;
    weighted_sum += weight * length;
    hist->lengths.push_back(static_cast<std::int64_t>(length));
    hist->cumulative.push_back(total);
    if (eol == text.size()) break;
  }
  if (hist->lengths.empty()) {
    return core::Error{fmt::format("'{}': no 'LENGTH,WEIGHT' lines in the histogram", source_name)};
  }
  if (!(total > 0) || !std::isfinite(total)) {
    return core::Error{fmt::format("'{}': the weights sum to {} (need a positive finite total)", source_name, total)};
  }
  hist->mean = weighted_sum / total;
  LengthDistribution d;
  d.kind_ = LengthDistribution::Kind::kHistogram;
  d.spec_ = std::string(spec);
  d.histogram_ = std::move(hist);
  return d;
}

core::Result<LengthDistribution> parse_length_distribution(std::string_view spec) {
  const std::string_view s = trim(spec);
  if (s.empty()) return core::Error{fmt::format("empty length distribution ({})", kForms)};
  const auto colon = s.find(':');
  LengthDistribution d;
  d.spec_ = std::string(s);
  if (colon == std::string_view::npos) {
    const auto v = parse_number(s);
    if (!v) return core::Error{fmt::format("cannot parse '{}' as a length distribution ({})", s, kForms)};
    if (!is_token_count(*v)) {
      return core::Error{fmt::format("'{}': a token count must be an integer from 1 to {}", s, kMaxLengthTokens)};
    }
    d.kind_ = LengthDistribution::Kind::kFixed;
    d.a_ = *v;
    return d;
  }
  const std::string_view kind = s.substr(0, colon);
  const std::string_view args = s.substr(colon + 1);
  if (kind == "hist") {
    const std::string path(trim(args));
    if (path.empty()) return core::Error{fmt::format("cannot parse '{}' (use hist:FILE)", s)};
    std::ifstream in(path, std::ios::binary);
    if (!in) return core::Error{fmt::format("'{}': cannot read '{}': {}", s, path, std::strerror(errno))};
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return parse_length_histogram(buffer.str(), path, s);
  }
  const auto pair = parse_pair(args);
  if (kind == "uniform") {
    if (!pair) return core::Error{fmt::format("cannot parse '{}' (use uniform:LO,HI, e.g. uniform:128,1024)", s)};
    const auto [lo, hi] = *pair;
    if (!is_token_count(lo)) {
      return core::Error{fmt::format("'{}': LO {} must be an integer from 1 to {}", s, number_text(lo), kMaxLengthTokens)};
    }
    if (!is_token_count(hi)) {
      return core::Error{fmt::format("'{}': HI {} must be an integer from 1 to {}", s, number_text(hi), kMaxLengthTokens)};
    }
    if (lo > hi) return core::Error{fmt::format("'{}': LO {} is above HI {}", s, number_text(lo), number_text(hi))};
    d.kind_ = LengthDistribution::Kind::kUniform;
    d.a_ = lo;
    d.b_ = hi;
    return d;
  }
  if (kind == "normal") {
    if (!pair) return core::Error{fmt::format("cannot parse '{}' (use normal:MEAN,STDDEV, e.g. normal:512,64)", s)};
    const auto [mean, stddev] = *pair;
    if (mean < 1 || mean > static_cast<double>(kMaxLengthTokens)) {
      return core::Error{fmt::format("'{}': MEAN {} must be from 1 to {}", s, number_text(mean), kMaxLengthTokens)};
    }
    if (stddev < 0 || stddev > static_cast<double>(kMaxLengthTokens)) {
      return core::Error{fmt::format("'{}': STDDEV {} must be from 0 to {}", s, number_text(stddev), kMaxLengthTokens)};
    }
    d.kind_ = LengthDistribution::Kind::kNormal;
    d.a_ = mean;
    d.b_ = stddev;
    return d;
  }
  if (kind == "lognormal") {
    if (!pair) {
      return core::Error{fmt::format("cannot parse '{}' (use lognormal:MEDIAN,SIGMA, e.g. lognormal:512,0.5)", s)};
    }
    const auto [median, sigma] = *pair;
    if (!(median > 0) || median > static_cast<double>(kMaxLengthTokens)) {
      return core::Error{fmt::format("'{}': MEDIAN {} must be > 0 and at most {}", s, number_text(median), kMaxLengthTokens)};
    }
    // SIGMA is the standard deviation of ln(length); above ~10 the distribution is all clamp.
    if (sigma < 0 || sigma > 10) {
      return core::Error{fmt::format("'{}': SIGMA {} must be from 0 to 10 (it is the stddev of ln(length))", s,
                                     number_text(sigma))};
    }
    d.kind_ = LengthDistribution::Kind::kLognormal;
    d.a_ = std::log(median);
    d.median_ = median;
    d.b_ = sigma;
    return d;
  }
  return core::Error{fmt::format("cannot parse '{}': unknown distribution '{}' ({})", s, kind, kForms)};
}

}  // namespace perfhound::load
