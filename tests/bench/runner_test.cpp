// bench::Runner: its flags, the document it writes after every benchmark, and the table.
#include "bench/runner.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace perfhound::bench {
namespace {

struct Args {
  std::vector<std::string> words;
  std::vector<char*> argv;
  explicit Args(std::vector<std::string> w) : words(std::move(w)) {
    for (auto& s : words) argv.push_back(s.data());
  }
  int argc() const { return static_cast<int>(argv.size()); }
};

TEST(Runner, FlagsSetTheStoppingRule) {
  Args a({"prog", "--max-noise", "2", "--min-samples", "20", "--min-time", "0.1", "--timeout", "3", "--quiet"});
  std::ostringstream out, err;
  Runner r("suite", a.argc(), a.argv.data(), out, err);
  ASSERT_FALSE(r.should_exit()) << err.str();
  EXPECT_DOUBLE_EQ(r.stopping_rule().max_noise, 0.02);
  EXPECT_EQ(r.stopping_rule().min_samples, 20);
  EXPECT_DOUBLE_EQ(r.stopping_rule().min_time_s, 0.1);
  EXPECT_DOUBLE_EQ(r.stopping_rule().timeout_s, 3);
}

TEST(Runner, ABadFlagIsOneLineNamingItAndExitCode2) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"prog", "--max-noise", "abc"}, "prog: --max-noise 'abc': not a number\n"},
      {{"prog", "--max-noise", "0"}, "prog: --max-noise 0: a percentage above 0 and below 100\n"},
      {{"prog", "--min-samples", "2.5"}, "prog: --min-samples 2.5: a whole number from 1 to 1000000\n"},
      // Above the stopping rule's 1,000,000-sample cap: a minimum the run could never reach.
      {{"prog", "--min-samples", "2000000"}, "prog: --min-samples 2000000: a whole number from 1 to 1000000\n"},
      {{"prog", "--device", "99999999999"}, "prog: --device 99999999999: a whole number from 0 to 1023\n"},
      {{"prog", "--json", "--timeout", "1"}, "prog: --json needs a value, got the flag '--timeout'\n"},
      {{"prog", "--json", ""}, "prog: --json: give a file name, not ''\n"},
      {{"prog", "--json", "/nonexistent-folder/b.json"}, "prog: --json: no folder '/nonexistent-folder'\n"},
      {{"prog", "--timeout"}, "prog: --timeout needs a value\n"},
      {{"prog", "--fast"}, "prog: unknown flag '--fast' (--help lists them)\n"},
      // from_chars reads "inf": a rule that could never stop, written as null in the conditions.
      {{"prog", "--min-time", "inf"}, "prog: --min-time 'inf': a finite number\n"},
      {{"prog", "--timeout", "inf"}, "prog: --timeout 'inf': a finite number\n"},
  };
  for (const auto& [words, message] : cases) {
    Args a(words);
    std::ostringstream out, err;
    Runner r("suite", a.argc(), a.argv.data(), out, err);
    EXPECT_TRUE(r.should_exit());
    EXPECT_EQ(r.exit_code(), 2);
    EXPECT_EQ(err.str(), message);
  }
}

TEST(Runner, HelpExitsZero) {
  Args a({"prog", "--help"});
  std::ostringstream out, err;
  Runner r("suite", a.argc(), a.argv.data(), out, err);
  EXPECT_TRUE(r.should_exit());
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_NE(out.str().find("--max-noise PERCENT"), std::string::npos);
}

SampledRun fake_run(const std::string& name, std::vector<double> samples) {
  Measurement m;
  m.name = name;
  m.mode = "cpu";
  m.samples_s = std::move(samples);
  m.summary = summarize_samples(m.samples_s);
  m.work.bytes = 1e6;
  return {m, std::nullopt};
}

TEST(Runner, TheDocumentIsRewrittenAfterEveryBenchmarkAndFiltersApply) {
  const auto path = std::filesystem::temp_directory_path() / "perfhound_runner_test.json";
  std::filesystem::remove(path);
  Args a({"prog", "--json", path.string(), "--filter", "copy", "--quiet"});
  std::ostringstream out, err;
  Runner r("suite", a.argc(), a.argv.data(), out, err);
  r.set_condition("input", "1 MB");
  EXPECT_TRUE(r.selected("copy 1 MB"));
  EXPECT_FALSE(r.selected("sort"));
  r.record(fake_run("copy 1 MB", {1e-3, 2e-3, 3e-3}));
  {
    std::ifstream in(path);
    const auto doc = nlohmann::json::parse(in);
    EXPECT_EQ(doc["kind"], "perfhound.bench");
    EXPECT_EQ(doc["conditions"]["parameters"]["input"], "1 MB");
    ASSERT_EQ(doc["result"]["benchmarks"].size(), 1u);
    EXPECT_DOUBLE_EQ(doc["result"]["benchmarks"][0]["p50_s"].get<double>(), 2e-3);
    EXPECT_EQ(doc["result"]["benchmarks"][0]["samples_s"].size(), 3u);
    EXPECT_DOUBLE_EQ(doc["result"]["benchmarks"][0]["at_median"]["bytes_per_s"].get<double>(), 5e8);
  }
  // A run that failed after two samples keeps them and makes the program exit 2.
  SampledRun failed = fake_run("copy 2 MB", {4e-3, 4e-3});
  failed.error = core::Error{"copy 2 MB: sample 3: cudaEventSynchronize: unspecified launch failure"};
  r.record(failed);
  {
    std::ifstream in(path);
    EXPECT_EQ(nlohmann::json::parse(in)["result"]["benchmarks"].size(), 2u);
  }
  EXPECT_NE(err.str().find("(the 2 samples before it are kept)"), std::string::npos);
  EXPECT_EQ(r.finish(), 2);
  EXPECT_NE(out.str().find("copy 2 MB"), std::string::npos);
  EXPECT_NE(out.str().find("500 MB/s"), std::string::npos);  // the rate at the median of the first
  std::filesystem::remove(path);
}

TEST(Runner, ASecondBenchmarkOfOneNameIsRefusedBeforeItRuns) {
  Args a({"prog", "--quiet"});
  std::ostringstream out, err;
  Runner r("suite", a.argc(), a.argv.data(), out, err);
  int calls_a = 0, calls_b = 0;
  CpuOptions quick;
  quick.calls_per_sample = 1;
  quick.warmup = 0;
  r.cpu("sqrt", [&] { ++calls_a; }, quick);
  r.cpu("sqrt", [&] { ++calls_b; }, quick);  // compare would pool it with the first
  EXPECT_GT(calls_a, 0);
  EXPECT_EQ(calls_b, 0);
  EXPECT_EQ(err.str(), "suite: benchmark 'sqrt' is named twice: give each benchmark its own name (compare pairs them "
                       "by name)\n");
  EXPECT_EQ(r.measurements().size(), 1u);
  EXPECT_EQ(r.finish(), 2);
}

TEST(Runner, AFilterThatSelectsNothingIsAnError) {
  Args a({"prog", "--filter", "nomatch", "--quiet"});
  std::ostringstream out, err;
  Runner r("suite", a.argc(), a.argv.data(), out, err);
  r.cpu("sort", [] {});
  EXPECT_EQ(r.finish(), 2);
  EXPECT_EQ(err.str(), "suite: --filter 'nomatch' selected no benchmark\n");
}

TEST(Runner, AFailedBenchmarkSaysErrorNotConvergedInTheTableAndTheDocument) {
  Args a({"prog", "--quiet"});
  std::ostringstream out, err;
  Runner r("suite", a.argc(), a.argv.data(), out, err);
  int calls = 0;
  CpuOptions quick;
  quick.calls_per_sample = 1;
  quick.warmup = 0;
  r.cpu("throws", [&] { if (++calls == 20) throw std::runtime_error("boom"); }, quick);
  ASSERT_EQ(r.measurements().size(), 1u);
  const Measurement& m = r.measurements()[0];
  EXPECT_EQ(m.samples_s.size(), 19u);
  EXPECT_EQ(stop_reason_name(m.stop), "error");
  EXPECT_EQ(r.finish(), 2);
  EXPECT_NE(out.str().find("  error  "), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("severe [bench-failed]: throws: sample 20: boom; the 19 samples before it are kept"),
            std::string::npos) << out.str();
}

}  // namespace
}  // namespace perfhound::bench
