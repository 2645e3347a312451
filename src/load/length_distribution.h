// Token-length distributions for the input (prompt) and output (max_tokens) lengths of generated requests,
// and the counter-based randomness every load module draws from.
//
// Flag syntax (parse_length_distribution; the caller prefixes the flag, e.g. "--input-len: ..."):
//   512                     fixed: always 512 tokens (SI suffixes allowed: 2k = 2000)
//   uniform:LO,HI           uniform over the integers LO..HI, both inclusive; 1 <= LO <= HI
//   normal:MEAN,STDDEV      Gaussian; MEAN >= 1, STDDEV >= 0
//   lognormal:MEDIAN,SIGMA  exp(N(mu, SIGMA^2)) with mu = ln(MEDIAN): MEDIAN = e^mu is the median and SIGMA
//                           the standard deviation of the log; mean = MEDIAN * exp(SIGMA^2 / 2). MEDIAN > 0,
//                           SIGMA >= 0. Heavy right tail, the usual fit for real prompt lengths.
//   hist:FILE               an empirical histogram: one "LENGTH,WEIGHT" or "LENGTH WEIGHT" (tab or spaces)
//                           pair per line, LENGTH an integer >= 1, WEIGHT a count or any number >= 0; '#'
//                           starts a comment; blank lines and one leading header line ("length,count") are
//                           skipped. A length is drawn with probability WEIGHT / (sum of weights).
// Every parameter is at most kMaxLengthTokens.
//
// Samples are rounded to the nearest integer (halves away from zero) and clamped to
// [1, kMaxLengthTokens]: a request needs at least one token, so the left tail of a wide normal piles up at 1
// (the mean of such a distribution is then above MEAN; describe() shows the parameters, not the clamped
// moments). Only normal and lognormal can reach the clamp.
//
// Determinism: a sample is a pure function of (seed, index, stream), so request i gets the same lengths in
// whatever order requests are built and on whichever MPI rank builds them. The sampling code is ours (not
// std::*_distribution, whose output differs between standard libraries); it is identical on every IEEE-754
// platform up to the last-ulp behaviour of libm's log/exp/cos/sqrt, which rounding to an integer hides except
// for values within an ulp of a .5 tie.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace perfhound::load {

// Largest length a spec may name or a sample may take: 100M tokens, far above any model's context window,
// low enough that lengths fit int32 token counts and prompt buffers stay addressable.
inline constexpr std::int64_t kMaxLengthTokens = 100'000'000;

// Stream ids: each purpose draws from its own stream so that, for the same (seed, index), the input length,
// the output length, the prompt words, the dataset pick and the arrival gap are independent.
inline constexpr std::uint64_t kInputLengthStream = 1;
inline constexpr std::uint64_t kOutputLengthStream = 2;
inline constexpr std::uint64_t kPromptStream = 3;
inline constexpr std::uint64_t kDatasetPickStream = 4;
inline constexpr std::uint64_t kArrivalGapStream = 5;

// SplitMix64's output function (Steele, Lea & Flood, "Fast splittable pseudorandom number generators",
// OOPSLA 2014; constants from Vigna's splitmix64.c): a bijective 64-bit mix.
std::uint64_t splitmix64_mix(std::uint64_t z);

// A counter-based generator: the key is hashed from (seed, index, stream), then draw n is
// splitmix64_mix(key + n * golden gamma), SplitMix64 started at the key. Cheap to construct (three mixes), so
// one is made per request and purpose. Not thread-safe; make one per thread.
class CounterRng {
 public:
  CounterRng(std::uint64_t seed, std::uint64_t index, std::uint64_t stream);

  std::uint64_t next_u64();
  double uniform();       // [0, 1): the top 53 bits as a multiple of 2^-53
  double uniform_open();  // (0, 1): (top 53 bits + 0.5) * 2^-53, safe for log() and pow()
  // Uniform integer in [0, n) without modulo bias (rejects the top 2^64 mod n values). n >= 1.
  std::uint64_t below(std::uint64_t n);
  // Standard normal by Box-Muller (one cosine branch per call; the sine half is not kept so the generator
  // stays stateless between calls).
  double normal();
  // Exponential with mean 1 by inverse CDF: -ln(U), U in (0, 1).
  double exponential();
  // Gamma with this shape and scale 1 (mean = shape), Marsaglia & Tsang, "A simple method for generating
  // gamma variables", ACM TOMS 26(3), 2000; for shape < 1 their boost gamma(shape + 1) * U^(1/shape).
  // shape > 0.
  double gamma(double shape);

 private:
  std::uint64_t state_;
};

class LengthDistribution {
 public:
  enum class Kind { kFixed, kUniform, kNormal, kLognormal, kHistogram };

  // Always `tokens` (1 <= tokens <= kMaxLengthTokens; aborts otherwise: use parse_length_distribution for
  // user input).
  static LengthDistribution fixed(std::int64_t tokens);

  Kind kind() const { return kind_; }
  // The length for request `index`, from stream `stream` (kInputLengthStream / kOutputLengthStream).
  std::int64_t sample(std::uint64_t seed, std::uint64_t index, std::uint64_t stream) const;
  // The distribution's mean before rounding and clamping: the value, (LO + HI) / 2, MEAN,
  // MEDIAN * exp(SIGMA^2 / 2), or the weighted mean of the histogram.
  double nominal_mean() const;
  // The value of a fixed distribution; nullopt for every other kind.
  std::optional<std::int64_t> fixed_value() const;
  // The text it was parsed from ("512" for fixed()).
  const std::string& spec() const { return spec_; }
  // One line for people: "512", "uniform 128..1024", "normal mean 512 stddev 64",
  // "lognormal median 512 sigma 0.5 (mean 580)", "histogram 'lens.csv' (12 lengths 8..4096, mean 733)".
  std::string describe() const;
  // For the result's conditions: {"kind": "normal", "mean": 512, "stddev": 64, "spec": "normal:512,64"};
  // fixed {"kind","tokens"}, uniform {"kind","lo","hi"}, lognormal {"kind","median","sigma","mean"},
  // histogram {"kind","file","lengths","min","max","mean"}; every object ends with "spec".
  nlohmann::ordered_json to_json() const;

 private:
  struct Histogram {
    std::string file;
    std::vector<std::int64_t> lengths;
    std::vector<double> cumulative;  // running sum of the weights; back() is the total
    double mean = 0;
  };

  LengthDistribution() = default;
  friend core::Result<LengthDistribution> parse_length_distribution(std::string_view spec);
  friend core::Result<LengthDistribution> parse_length_histogram(std::string_view text, std::string_view source_name,
                                                                 std::string_view spec);

  Kind kind_ = Kind::kFixed;
  double a_ = 1;  // fixed value, LO, MEAN, or ln(MEDIAN)
  double b_ = 0;  // HI, STDDEV or SIGMA
  double median_ = 0;  // lognormal: MEDIAN as given (exp(a_) may differ from it in the last bit)
  std::string spec_;
  std::shared_ptr<const Histogram> histogram_;  // shared: copies of a distribution are cheap
};

// Parses a flag value (syntax above). hist:FILE reads FILE. Errors quote the spec and say the expected form:
//   "cannot parse 'normal:5' (use normal:MEAN,STDDEV)", "'uniform:10,5': LO 10 is above HI 5",
//   "'hist:lens.csv': cannot read 'lens.csv': No such file or directory".
core::Result<LengthDistribution> parse_length_distribution(std::string_view spec);

// The histogram form from text already read (hist:FILE reads the file and calls this). `source_name` names
// the file in errors ("'lens.csv' line 3: weight '-1' must be a number >= 0"); `spec` is kept as spec().
// Errors: a malformed line (not two fields, a length that is not an integer in 1..kMaxLengthTokens, a weight
// that is not a finite number >= 0), or no positive weight at all.
core::Result<LengthDistribution> parse_length_histogram(std::string_view text, std::string_view source_name,
                                                        std::string_view spec);

}  // namespace perfhound::load
