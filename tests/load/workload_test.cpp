#include "load/workload.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <vector>

#include "serve/openai_protocol.h"

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define PH_UNDER_VALGRIND() (RUNNING_ON_VALGRIND != 0)
#else
#define PH_UNDER_VALGRIND() false
#endif

namespace perfhound::load {
namespace {

std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> words;
  std::size_t pos = 0;
  while (pos <= s.size()) {
    const std::size_t end = std::min(s.find(' ', pos), s.size());
    words.push_back(s.substr(pos, end - pos));
    pos = end + 1;
  }
  return words;
}

LengthDistribution parse_ok(std::string_view spec) {
  auto r = parse_length_distribution(spec);
  EXPECT_TRUE(r.ok()) << spec;
  return std::move(r).value();
}

TEST(SyntheticVocabulary, Has256DistinctShortLowercaseWordsOfOneApproximateToken) {
  const auto vocab = synthetic_vocabulary();
  ASSERT_EQ(vocab.size(), 256u);
  std::set<std::string_view> distinct(vocab.begin(), vocab.end());
  EXPECT_EQ(distinct.size(), 256u);
  for (std::string_view w : vocab) {
    EXPECT_GE(w.size(), 1u);
    EXPECT_LE(w.size(), 8u) << w;
    EXPECT_TRUE(std::all_of(w.begin(), w.end(), [](char c) { return c >= 'a' && c <= 'z'; })) << w;
    std::string spaced = " ";  // built in place: g++ 12 warns falsely (-Wrestrict) on string(" ") + string(w)
    spaced.append(w);
    EXPECT_EQ(serve::approximate_tokens(spaced), 1) << w;
  }
  EXPECT_EQ(vocab.front(), "the");  // the order is part of the seed contract
}

TEST(SyntheticPrompt, HitsTheRequestedLengthExactlyUnderTheServersApproximation) {
  for (std::int64_t n = 0; n <= 2100; ++n) {
    const std::string p = synthetic_prompt(17, static_cast<std::uint64_t>(n), n);
    ASSERT_EQ(serve::approximate_tokens(p), n) << "length " << n;
  }
  for (std::int64_t n : {4096, 8192, 32768, 131072}) {
    EXPECT_EQ(serve::approximate_tokens(synthetic_prompt(3, 9, n)), n);
  }
  EXPECT_EQ(synthetic_prompt(1, 1, 0), "");
  EXPECT_EQ(synthetic_prompt(1, 1, -3), "");
}

TEST(SyntheticPrompt, IsVocabularyWordsSeparatedBySingleSpaces) {
  const std::set<std::string_view> vocab(synthetic_vocabulary().begin(), synthetic_vocabulary().end());
  const std::string p = synthetic_prompt(5, 6, 777);
  const auto words = split_words(p);
  ASSERT_EQ(words.size(), 777u);  // no leading, trailing or double spaces
  for (auto w : words) EXPECT_EQ(vocab.count(w), 1u) << "'" << w << "'";
}

TEST(SyntheticPrompt, DrawsWordsUniformly) {
  // 1M words over 256 equally likely words: chi-square with 255 degrees of freedom has mean 255 and sd
  // sqrt(510) = 22.6; the bound is 5 sd above the mean.
  const auto vocab = synthetic_vocabulary();
  std::vector<int> counts(256, 0);
  std::int64_t total = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const std::string prompt = synthetic_prompt(8, i, 1000);  // outlives the views split_words returns
    for (auto w : split_words(prompt)) {
      ++counts[static_cast<std::size_t>(std::find(vocab.begin(), vocab.end(), w) - vocab.begin())];
      ++total;
    }
  }
  const double expected = static_cast<double>(total) / 256;
  double chi2 = 0;
  for (int c : counts) chi2 += (c - expected) * (c - expected) / expected;
  EXPECT_LT(chi2, 255 + 5 * std::sqrt(510.0));
}

TEST(SyntheticPrompt, NoTwoPromptsShareALongPrefix) {
  // Prefix caches share 16-token blocks. Two prompts share their first k words with probability 256^-k;
  // among 2000 prompts (2M pairs) a shared 8-word prefix has probability ~1e-13.
  std::vector<std::string> prompts;
  for (std::uint64_t i = 0; i < 2000; ++i) prompts.push_back(synthetic_prompt(99, i, 64));
  std::sort(prompts.begin(), prompts.end());
  std::size_t longest = 0;
  for (std::size_t i = 1; i < prompts.size(); ++i) {
    const auto a = split_words(prompts[i - 1]);
    const auto b = split_words(prompts[i]);
    std::size_t k = 0;
    while (k < a.size() && k < b.size() && a[k] == b[k]) ++k;
    longest = std::max(longest, k);
  }
  EXPECT_LT(longest, 8u);
}

TEST(SyntheticPrompt, ReusesTheCallersBuffer) {
  std::string buffer;
  build_synthetic_prompt(1, 1, 1000, buffer);
  const char* data = buffer.data();
  build_synthetic_prompt(1, 2, 1000, buffer);
  EXPECT_EQ(buffer.data(), data);  // no reallocation for a prompt that fits
  EXPECT_EQ(serve::approximate_tokens(buffer), 1000);
}

TEST(SyntheticPrompt, BuildingAThousandWordPromptTakesMicroseconds) {
  if (PH_UNDER_VALGRIND()) GTEST_SKIP() << "timing is meaningless under valgrind";
  std::string buffer;
  constexpr int kReps = 2000;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kReps; ++i) build_synthetic_prompt(1, static_cast<std::uint64_t>(i), 1000, buffer);
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / kReps;
  std::printf("build_synthetic_prompt(1000 words): %.2f us\n", us);
  // A few microseconds at -O1 and above; the bound leaves room for sanitizer and debug builds.
  EXPECT_LT(us, 200.0);
}

TEST(SyntheticTokenIds, AreInTheDocumentedRange) {
  const auto ids = synthetic_token_ids(4, 4, 50'000);
  ASSERT_EQ(ids.size(), 50'000u);
  double sum = 0;
  for (auto id : ids) {
    ASSERT_GE(id, kSyntheticTokenIdMin);
    ASSERT_LT(id, kSyntheticTokenIdEnd);
    sum += id;
  }
  // Uniform on [1000, 30000): mean 15499.5, sd 29000 / sqrt(12) = 8372; 5 standard errors.
  EXPECT_NEAR(sum / 50'000, 15499.5, 5 * 8372 / std::sqrt(50'000.0));
  EXPECT_EQ(ids, synthetic_token_ids(4, 4, 50'000));
  EXPECT_TRUE(synthetic_token_ids(4, 4, 0).empty());
}

TEST(SyntheticWorkload, ItemsFollowTheDistributionsAndPromptsMatchTheirLength) {
  const auto w = make_synthetic_workload(parse_ok("uniform:1,3000"), parse_ok("128"), 42, false);
  EXPECT_FALSE(w->size().has_value());
  EXPECT_FALSE(w->has_arrival_times());
  for (std::uint64_t i = 0; i < 300; ++i) {
    const WorkItem item = w->item(i);
    EXPECT_GE(item.input_tokens, 1);
    EXPECT_LE(item.input_tokens, 3000);
    EXPECT_EQ(serve::approximate_tokens(item.prompt), item.input_tokens);
    EXPECT_EQ(item.max_tokens, 128);
    EXPECT_TRUE(item.prompt_token_ids.empty());
    EXPECT_EQ(item.arrival_ns, -1);
    EXPECT_EQ(w->arrival_ns(i), -1);
  }
}

TEST(SyntheticWorkload, ItemIsAPureFunctionOfSeedAndIndex) {
  const auto a = make_synthetic_workload(parse_ok("normal:500,100"), parse_ok("uniform:10,500"), 7, false);
  const auto b = make_synthetic_workload(parse_ok("normal:500,100"), parse_ok("uniform:10,500"), 7, false);
  const auto other = make_synthetic_workload(parse_ok("normal:500,100"), parse_ok("uniform:10,500"), 8, false);
  std::vector<WorkItem> forward;
  for (std::uint64_t i = 0; i < 50; ++i) forward.push_back(a->item(i));
  for (std::uint64_t i = 50; i-- > 0;) {
    const WorkItem x = b->item(i);
    EXPECT_EQ(x.prompt, forward[i].prompt);
    EXPECT_EQ(x.input_tokens, forward[i].input_tokens);
    EXPECT_EQ(x.max_tokens, forward[i].max_tokens);
    EXPECT_NE(other->item(i).prompt, forward[i].prompt);
  }
}

TEST(SyntheticWorkload, TokenIdModeFillsIdsAndLeavesThePromptEmpty) {
  const auto w = make_synthetic_workload(parse_ok("uniform:100,200"), parse_ok("64"), 3, true);
  for (std::uint64_t i = 0; i < 100; ++i) {
    const WorkItem item = w->item(i);
    EXPECT_TRUE(item.prompt.empty());
    EXPECT_EQ(static_cast<std::int64_t>(item.prompt_token_ids.size()), item.input_tokens);
    for (auto id : item.prompt_token_ids) {
      ASSERT_GE(id, kSyntheticTokenIdMin);
      ASSERT_LT(id, kSyntheticTokenIdEnd);
    }
  }
}

TEST(SyntheticWorkload, DescribeNamesKindDistributionsAndSeed) {
  const auto w = make_synthetic_workload(parse_ok("lognormal:512,0.5"), parse_ok("256"), 11, false);
  const auto d = w->describe();
  EXPECT_EQ(d["kind"], "synthetic");
  EXPECT_EQ(d["input_len"]["kind"], "lognormal");
  EXPECT_EQ(d["input_len"]["spec"], "lognormal:512,0.5");
  EXPECT_NEAR(d["input_len"]["mean"].get<double>(), 512 * std::exp(0.125), 1e-9);  // median e^(sigma^2/2)
  EXPECT_EQ(d["output_len"].dump(), R"({"kind":"fixed","tokens":256,"spec":"256"})");
  EXPECT_EQ(d["prompt"], "words");
  EXPECT_EQ(d["vocabulary_words"], 256);
  EXPECT_EQ(d["seed"], 11);
  EXPECT_EQ(make_synthetic_workload(parse_ok("8"), parse_ok("8"), 0, true)->describe()["prompt"], "token_ids");
}

}  // namespace
}  // namespace perfhound::load
