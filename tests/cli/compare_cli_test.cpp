// perfhound compare end to end: synthetic load results with records whose latencies are known (so the
// Hodges-Lehmann shift and the p-value are known), sweeps paired by label, stats documents and raw sample
// files, the conditions rule (refuse, --variable, --force), the --fail-on gate's exit code, bad input as one
// line with exit 2, and two real runs of the embedded simulator.
//
// Reference numbers are from scipy 1.10.1 / numpy 1.24.2 (Debian 12's python3-scipy), not from this code:
// scipy.stats.mannwhitneyu(A, B, alternative='two-sided', method='asymptotic').pvalue, and the Hodges-Lehmann
// shift and Moses interval by brute force over all differences (d = sorted B_j - A_i, numpy.median(d),
// k = floor(N / 2 + 0.5 - norm.ppf(0.975) sqrt(N (n1 + n2 + 1) / 12)), [d[k - 1], d[N - k]]).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "bench/runner.h"
#include "cli/cli_runner.h"

namespace perfhound::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::ordered_json;

class CompareCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("perfhound_compare_cli_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  static Json conditions(Json parameters) {
    Json c;
    c["tool"] = {{"name", "perfhound"}, {"version", "0.1.0"}, {"git_sha", "abc1234"}, {"build_type", "Release"},
                 {"compiler", "GNU 12.2.0"}};
    c["host"] = {{"hostname", "bench-1"}, {"cpu_model", "EPYC"}, {"logical_cores", 2}, {"memory_bytes", 1 << 30},
                 {"os", "Linux 6.1"}};
    c["timestamp_utc"] = "2026-01-01T00:00:00Z";
    c["command_line"] = {"perfhound", "load"};
    c["parameters"] = std::move(parameters);
    return c;
  }

  static Json parameters(const std::string& precision = "fp16") {
    return {{"target", "http://127.0.0.1:8000"}, {"model", "m"}, {"precision", precision},
            {"load", "closed loop, concurrency 4"}, {"latency_from", "actual send time"}};
  }

  // A load result named stem.json (kind perfhound.load) and, when ttft_ns is not empty, its records
  // stem.records.jsonl: one measured request per TTFT, six content chunks tpot_ns apart, so TPOT = tpot_ns
  // and ITL = tpot_ns exactly; plus one warm-up and one failed request, which compare must skip.
  void write_load(const std::string& stem, const std::vector<std::int64_t>& ttft_ns, std::int64_t tpot_ns,
                  const Json& params, double requests_per_s, double p99_s = 0.02, const std::string& timestamp = "") {
    Json cond = conditions(params);
    if (!timestamp.empty()) cond["timestamp_utc"] = timestamp;
    Json result;
    result["status"] = "VALID";
    Json dist = {{"count", ttft_ns.size()}, {"p50_s", p99_s / 2}, {"p95_s", p99_s * 0.9}, {"p99_s", p99_s}};
    result["summary"] = {
        {"requests", {{"completed", ttft_ns.size()}}},
        {"throughput", {{"requests_per_s", requests_per_s}, {"output_tokens_per_s", requests_per_s * 6}}},
        {"latency", {{"from_sent", {{"ttft", dist}, {"tpot", dist}, {"e2e", dist}}}}},
        {"itl", dist}};
    if (!ttft_ns.empty()) {
      result["records_file"] = stem + ".records.jsonl";  // relative: resolved beside the document
      std::ofstream rec(path(stem + ".records.jsonl"));
      rec << Json{{"schema_version", 1}, {"kind", "perfhound.load.records"}, {"header", cond}}.dump() << "\n";
      const auto record = [&](std::size_t index, bool warmup, const std::string& error, std::int64_t ttft) {
        const std::int64_t sent = static_cast<std::int64_t>(index) * 50'000'000;
        Json chunks = Json::array();
        for (int k = 0; k < 6; ++k) chunks.push_back(sent + ttft + k * tpot_ns);
        return Json{{"index", index}, {"warmup", warmup}, {"intended_ns", sent}, {"sent_ns", sent},
                    {"first_byte_ns", sent + ttft}, {"first_token_ns", sent + ttft},
                    {"end_ns", sent + ttft + 5 * tpot_ns}, {"http_status", 200}, {"error", error},
                    {"input_tokens", 16}, {"max_tokens", 6}, {"usage_prompt_tokens", 16},
                    {"usage_completion_tokens", 6}, {"output_tokens", 6}, {"bytes_received", 100},
                    {"chunk_ns", chunks}};
      };
      rec << record(0, true, "none", 999'000'000).dump() << "\n";  // warm-up: far slower, must not count
      for (std::size_t i = 0; i < ttft_ns.size(); ++i) rec << record(i + 1, false, "none", ttft_ns[i]).dump() << "\n";
      rec << record(ttft_ns.size() + 1, false, "timeout", 1).dump() << "\n";  // failed: must not count
    }
    std::ofstream(path(stem + ".json")) << Json{{"schema_version", 1}, {"kind", "perfhound.load"}, {"conditions", cond},
                                                {"result", result}, {"diagnostics", Json::array()}}
                                               .dump(2);
  }

  // 40 TTFTs of 10 ms + i * 0.1 ms, shifted by `by_ns`.
  static std::vector<std::int64_t> ttfts(std::int64_t by_ns = 0) {
    std::vector<std::int64_t> v;
    for (int i = 0; i < 40; ++i) v.push_back(10'000'000 + i * 100'000 + by_ns);
    return v;
  }

  static const Json& metric(const Json& doc, const std::string& name, std::size_t benchmark = 0) {
    for (const Json& m : doc["result"]["benchmarks"][benchmark]["metrics"]) {
      if (m["metric"] == name) return m;
    }
    static const Json kNull;
    ADD_FAILURE() << "no metric " << name;
    return kNull;
  }

  fs::path dir_;
};

TEST_F(CompareCli, AClearImprovementIsTheKnownShiftWithItsInterval) {
  write_load("a", ttfts(), 2'000'000, parameters(), 10);
  write_load("b", ttfts(-1'000'000), 2'000'000, parameters(), 10);
  const CliRun r = run({"compare", path("a.json"), path("b.json"), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["kind"], "perfhound.compare");
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_DOUBLE_EQ(doc["conditions"]["parameters"]["alpha"].get<double>(), 0.05);
  const Json& bm = doc["result"]["benchmarks"][0];
  EXPECT_TRUE(bm["conditions_diff"]["comparable"].get<bool>());
  EXPECT_EQ(bm["a"][0]["conditions"]["parameters"]["precision"], "fp16");  // the inputs' conditions travel along
  const Json& ttft = metric(doc, "ttft");
  EXPECT_EQ(ttft["n_a"], 40);  // the warm-up and the failed request are skipped
  EXPECT_EQ(ttft["n_b"], 40);
  EXPECT_EQ(ttft["test"], "mann-whitney u");
  // scipy: p = 0.0007691714821234269; HL shift -1 ms, 95% [-1.5 ms, -0.5 ms] (k = 596 of 1600); median(A) 11.95 ms.
  EXPECT_NEAR(ttft["p_value"].get<double>(), 0.0007691714821234269, 1e-12);
  EXPECT_NEAR(ttft["shift"].get<double>(), -1e-3, 1e-12);
  EXPECT_NEAR(ttft["shift_lo"].get<double>(), -1.5e-3, 1e-12);
  EXPECT_NEAR(ttft["shift_hi"].get<double>(), -0.5e-3, 1e-12);
  EXPECT_NEAR(ttft["a"].get<double>(), 11.95e-3, 1e-12);
  EXPECT_NEAR(ttft["change"].get<double>(), -1.0 / 11.95, 1e-9);
  EXPECT_EQ(ttft["verdict"], "better");
  EXPECT_EQ(ttft["direction"], "lower is better");
  // TPOT and ITL are identical: every value 2 ms, so p = 1 and no difference.
  for (const char* name : {"tpot", "itl"}) {
    const Json& m = metric(doc, name);
    EXPECT_DOUBLE_EQ(m["p_value"].get<double>(), 1.0) << name;
    EXPECT_EQ(m["verdict"], "no significant difference") << name;
  }
  EXPECT_EQ(metric(doc, "itl")["n_a"], 40 * 5);  // 5 gaps between 6 chunks
  // One run a side: a pNN row is the bootstrap of the records where the top (100 - NN)% of each side holds a
  // value (p95 of 40: the top 5% is 2 values); p99 of 40 is about the largest value, not tested (100 a side
  // are needed). Throughput is a ratio without a test.
  EXPECT_EQ(metric(doc, "ttft_p95")["test"], "percentile bootstrap");
  EXPECT_EQ(metric(doc, "ttft_p95")["verdict"], "better");
  EXPECT_EQ(metric(doc, "ttft_p99")["test"], "none");
  EXPECT_EQ(metric(doc, "ttft_p99")["verdict"], "no test");
  EXPECT_EQ(metric(doc, "ttft_p99")["note"], "p99 of 40 and 40 values is about the largest: at least 100 a side are needed to test it");
  EXPECT_EQ(metric(doc, "requests_per_s")["verdict"], "no test");
  EXPECT_TRUE(metric(doc, "requests_per_s")["p_value"].is_null());
  EXPECT_EQ(metric(doc, "requests_per_s")["direction"], "higher is better");

  const CliRun text = run({"compare", path("a.json"), path("b.json")});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("TTFT"));
  EXPECT_THAT(text.out, HasSubstr("-8.4%"));  // -1 / 11.95
  EXPECT_THAT(text.out, HasSubstr("[-12.6%, -4.2%]"));
  EXPECT_THAT(text.out, HasSubstr("better"));
  EXPECT_THAT(text.out, HasSubstr("conditions: identical\n"));
  EXPECT_THAT(text.out, HasSubstr("one run per side: the ratio alone"));
}

TEST_F(CompareCli, ARegressionOfAFailOnMetricExitsOne) {
  write_load("a", ttfts(), 2'000'000, parameters(), 10);
  write_load("b", ttfts(+1'000'000), 2'000'000, parameters(), 10);
  const CliRun gated = run({"compare", path("a.json"), path("b.json"), "--fail-on", "ttft,tpot"});
  EXPECT_EQ(gated.code, 1) << gated.err;
  EXPECT_THAT(gated.out, HasSubstr("WORSE"));
  EXPECT_THAT(gated.out, HasSubstr("gate --fail-on ttft,tpot: FAILED: ttft worse in"));
  const CliRun other = run({"compare", path("a.json"), path("b.json"), "--fail-on", "tpot", "--json"});
  EXPECT_EQ(other.code, 0) << other.err;
  EXPECT_TRUE(Json::parse(other.out)["result"]["gate"]["passed"].get<bool>());
  // A metric with no test cannot gate: the run says so instead of passing silently.
  const CliRun untested = run({"compare", path("a.json"), path("b.json"), "--fail-on", "throughput"});
  EXPECT_EQ(untested.code, 0);
  EXPECT_THAT(untested.err, HasSubstr("--fail-on requests_per_s cannot gate"));
}

TEST_F(CompareCli, ConditionsThatDifferBeyondTheVariableAreRefused) {
  write_load("a", ttfts(), 2'000'000, parameters("fp16"), 10);
  write_load("b", ttfts(), 2'000'000, parameters("fp8"), 10, 0.02, "2026-01-02T00:00:00Z");
  const CliRun refused = run({"compare", path("a.json"), path("b.json")});
  EXPECT_TRUE(is_one_line_error(refused, {"refusing to compare", "precision ('fp16' vs 'fp8')"}));
  EXPECT_THAT(refused.err, Not(HasSubstr("timestamp_utc")));  // always differs: ignored, not a reason

  const CliRun declared = run({"compare", path("a.json"), path("b.json"), "--variable", "precision", "--json"});
  ASSERT_EQ(declared.code, 0) << declared.err;
  const Json diff = Json::parse(declared.out)["result"]["benchmarks"][0]["conditions_diff"];
  EXPECT_TRUE(diff["comparable"].get<bool>());
  EXPECT_EQ(diff["variable"][0]["key"], "precision");
  EXPECT_EQ(diff["ignored"][0], "timestamp_utc");
  const CliRun text = run({"compare", path("a.json"), path("b.json"), "--variable", "precision"});
  EXPECT_THAT(text.out, HasSubstr("the same but the variable: precision ('fp16' vs 'fp8'); ignored: timestamp_utc"));

  const CliRun forced = run({"compare", path("a.json"), path("b.json"), "--force", "--json"});
  ASSERT_EQ(forced.code, 0) << forced.err;
  EXPECT_THAT(forced.err, HasSubstr("WARNING: conditions differ beyond the variable"));
  EXPECT_THAT(forced.err, HasSubstr("NOT one change"));
  const Json fdoc = Json::parse(forced.out);
  EXPECT_EQ(fdoc["diagnostics"][0]["id"], "conditions-differ");
  EXPECT_TRUE(fdoc["result"]["benchmarks"][0]["conditions_diff"]["forced"].get<bool>());
  // The table's own conditions line says so too (it read "identical" before: a review found it).
  const CliRun forced_text = run({"compare", path("a.json"), path("b.json"), "--force"});
  EXPECT_THAT(forced_text.out, HasSubstr("conditions: DIFFER (compared anyway, --force): precision ('fp16' vs 'fp8')"));

  const CliRun typo = run({"compare", path("a.json"), path("b.json"), "--variable", "precison"});
  EXPECT_EQ(typo.code, 2);
  EXPECT_THAT(typo.err, HasSubstr("--variable 'precison': no such key"));
}

TEST_F(CompareCli, WithoutRecordsOnlyTheReportedNumbersCompare) {
  write_load("a", {}, 0, parameters(), 10, 0.020);
  write_load("b", {}, 0, parameters(), 11, 0.022);
  const CliRun r = run({"compare", path("a.json"), path("b.json"), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  const Json& ttft = metric(doc, "ttft");
  EXPECT_EQ(ttft["verdict"], "no test");
  EXPECT_THAT(ttft["note"].get<std::string>(), HasSubstr("no samples"));
  EXPECT_THAT(ttft["note"].get<std::string>(), HasSubstr("kept no records"));
  const Json& p99 = metric(doc, "ttft_p99");
  EXPECT_EQ(p99["verdict"], "no test");
  EXPECT_TRUE(p99["p_value"].is_null());
  EXPECT_NEAR(p99["ratio"].get<double>(), 1.1, 1e-12);
  EXPECT_NEAR(metric(doc, "requests_per_s")["change"].get<double>(), 0.1, 1e-12);
  // These documents do not say what warm-up they discarded: said, not taken as none.
  EXPECT_TRUE(doc["result"]["benchmarks"][0]["a"][0]["warmup_discarded"].is_null());
  const CliRun text = run({"compare", path("a.json"), path("b.json")});
  EXPECT_THAT(text.out, HasSubstr("  A: " + path("a.json") + " (no samples; warm-up not stated)\n"));
}

TEST_F(CompareCli, SeveralRunsASideAreTestedAsRuns) {
  // requests/s: A = 10..14, B = 20..24. scipy p = 0.012185780355344813; HL shift 10, 95% [7, 13] (k = 3).
  std::vector<std::string> args = {"compare"};
  for (int i = 0; i < 5; ++i) {
    write_load("a" + std::to_string(i), {}, 0, parameters(), 10 + i);
    args.push_back(path("a" + std::to_string(i) + ".json"));
  }
  args.push_back("--");
  for (int i = 0; i < 5; ++i) {
    write_load("b" + std::to_string(i), {}, 0, parameters(), 20 + i);
    args.push_back(path("b" + std::to_string(i) + ".json"));
  }
  // Flags before the "--", and a greedy-looking one first: --variable takes one word, the files stay files.
  args.insert(args.begin() + 1, {"--variable", "model", "--json"});
  const CliRun r = run(args);
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["result"]["benchmarks"].size(), 1u);
  const Json& rps = metric(doc, "requests_per_s");
  EXPECT_EQ(rps["n_a"], 5);
  EXPECT_EQ(rps["basis"], "runs");
  EXPECT_NEAR(rps["p_value"].get<double>(), 0.012185780355344813, 1e-14);
  EXPECT_DOUBLE_EQ(rps["shift"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(rps["shift_lo"].get<double>(), 7.0);
  EXPECT_DOUBLE_EQ(rps["shift_hi"].get<double>(), 13.0);
  EXPECT_DOUBLE_EQ(rps["change"].get<double>(), 10.0 / 12.0);  // relative to A's median run
  EXPECT_EQ(rps["verdict"], "better");
}

TEST_F(CompareCli, SeveralPairsAreSummarisedByTheGeomeanOfTheirRatios) {
  // requests/s ratios 2 and 8: geomean 4. TTFT ratios of the reported numbers 1 and 1: geomean 1.
  write_load("a1", {}, 0, parameters(), 10);
  write_load("b1", {}, 0, parameters(), 20);
  write_load("a2", {}, 0, parameters(), 10);
  write_load("b2", {}, 0, parameters(), 80);
  const CliRun r = run({"compare", path("a1.json"), path("b1.json"), path("a2.json"), path("b2.json"), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  ASSERT_EQ(doc["result"]["benchmarks"].size(), 2u);
  bool found = false;
  for (const Json& g : doc["result"]["geomean"]) {
    if (g["metric"] != "requests_per_s") continue;
    found = true;
    EXPECT_NEAR(g["ratio"].get<double>(), 4.0, 1e-12);
    EXPECT_EQ(g["benchmarks"], 2);
  }
  EXPECT_TRUE(found);
  const CliRun text = run({"compare", path("a1.json"), path("b1.json"), path("a2.json"), path("b2.json")});
  EXPECT_THAT(text.out, HasSubstr("geomean of B / A over the 2 benchmarks"));
  EXPECT_THAT(text.out, HasSubstr("4.000"));
}

TEST_F(CompareCli, SweepsPairTheirPointsByLabel) {
  fs::create_directories(dir_ / "sa");
  fs::create_directories(dir_ / "sb");
  const auto sweep = [&](const std::string& sub, const std::vector<std::pair<std::string, std::int64_t>>& points) {
    Json pts = Json::array();
    for (const auto& [label, shift] : points) {
      const std::string stem = sub + "/" + label.substr(label.find(' ') + 1);
      Json p = parameters();
      p["load"] = "closed loop, " + label;
      write_load(stem, ttfts(shift), 2'000'000, p, 10);
      // As perfhound sweep writes it: relative to the directory the sweep ran in.
      pts.push_back({{"label", label}, {"result_file", "runs/" + stem + ".json"}});
    }
    std::ofstream(path(sub + "/sweep.json"))
        << Json{{"schema_version", 1}, {"kind", "perfhound.sweep"}, {"conditions", conditions(parameters())},
                {"result", {{"points", pts}}}, {"diagnostics", Json::array()}}
               .dump(2);
  };
  sweep("sa", {{"concurrency 1", 0}, {"concurrency 4", 0}});
  sweep("sb", {{"concurrency 4", 1'000'000}, {"concurrency 16", 0}});
  const CliRun r = run({"compare", path("sa/sweep.json"), path("sb/sweep.json"), "--json", "--fail-on", "ttft"});
  EXPECT_EQ(r.code, 1) << r.err;  // concurrency 4 got 1 ms slower
  const Json doc = Json::parse(r.out);
  ASSERT_EQ(doc["result"]["benchmarks"].size(), 1u);
  EXPECT_EQ(doc["result"]["benchmarks"][0]["name"], "concurrency 4");
  EXPECT_NEAR(metric(doc, "ttft")["shift"].get<double>(), 1e-3, 1e-12);
  EXPECT_EQ(metric(doc, "ttft")["verdict"], "worse");
  const Json& unpaired = doc["result"]["unpaired"];
  ASSERT_EQ(unpaired.size(), 2u);
  EXPECT_EQ(unpaired[0]["label"], "concurrency 1");
  EXPECT_EQ(unpaired[0]["only_in"], "A");
  EXPECT_EQ(unpaired[1]["label"], "concurrency 16");
  EXPECT_EQ(unpaired[1]["only_in"], "B");
}

// perfhound::bench documents (bench/examples, docs/bench.md): benchmarks pair by name, their samples (seconds
// per operation) compare as distributions, lower is better. B is A + 10 us sample for sample, so the
// Hodges-Lehmann shift is exactly +10 us (every pairwise difference is A_j - A_i + 10 us, symmetric about it).
TEST_F(CompareCli, BenchResultsPairTheirBenchmarksByName) {
  const auto bench = [&](const std::string& name, const std::vector<std::pair<std::string, double>>& benchmarks) {
    Json list = Json::array();
    for (const auto& [bm, shift] : benchmarks) {
      Json samples = Json::array();
      for (int i = 1; i <= 40; ++i) samples.push_back(i * 1e-6 + shift);
      // numpy.percentile(range(1, 41), 50) = 20.5
      list.push_back({{"name", bm}, {"mode", "cold"}, {"unit", "s"}, {"count", 40}, {"p50_s", 20.5e-6 + shift},
                      {"p90_s", 36.1e-6 + shift}, {"p95_s", 38.05e-6 + shift}, {"p99_s", 39.61e-6 + shift},
                      {"samples_s", samples}});
    }
    Json p = {{"suite", "copy kernel"}, {"gpu", {{"name", "NVIDIA H200"}, {"compute_capability", "9.0"}}}};
    std::ofstream(path(name))
        << Json{{"schema_version", 1}, {"kind", "perfhound.bench"}, {"conditions", conditions(p)},
                {"result", {{"suite", "copy kernel"}, {"benchmarks", list}}}, {"diagnostics", Json::array()}}
               .dump(2);
  };
  bench("a.json", {{"copy 16 MiB cold", 0}, {"copy 1 GiB cold", 0}});
  bench("b.json", {{"copy 1 GiB cold", 10e-6}, {"copy 16 MiB hot", 0}});
  const CliRun r = run({"compare", path("a.json"), path("b.json"), "--json", "--fail-on", "samples"});
  EXPECT_EQ(r.code, 1) << r.err;  // the 1 GiB copy got slower
  const Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["result"]["input_kind"], "perfhound.bench");
  ASSERT_EQ(doc["result"]["benchmarks"].size(), 1u);
  EXPECT_EQ(doc["result"]["benchmarks"][0]["name"], "copy 1 GiB cold");
  const Json& samples = metric(doc, "samples");
  EXPECT_EQ(samples["n_a"], 40);
  EXPECT_NEAR(samples["shift"].get<double>(), 10e-6, 1e-15);
  EXPECT_EQ(samples["verdict"], "worse");
  EXPECT_EQ(samples["direction"], "lower is better");
  EXPECT_NEAR(metric(doc, "p50")["a"].get<double>(), 20.5e-6, 1e-15);  // the document's own p50
  ASSERT_EQ(doc["result"]["unpaired"].size(), 2u);
  EXPECT_EQ(doc["result"]["unpaired"][0]["label"], "copy 16 MiB cold");
  EXPECT_EQ(doc["result"]["unpaired"][1]["only_in"], "B");
  // ... and in the text, where a reader would otherwise not learn that two benchmarks were left out.
  const CliRun text = run({"compare", path("a.json"), path("b.json")});
  EXPECT_THAT(text.out, HasSubstr("not compared (on one side only): 'copy 16 MiB cold' (only in A), 'copy 16 MiB hot' "
                                  "(only in B)\n"));

  // Two benchmarks of one name in a document would be pooled: refused, naming both.
  bench("dup.json", {{"copy 1 GiB cold", 0}, {"copy 1 GiB cold", 5e-6}});
  const CliRun dup = run({"compare", path("a.json"), path("dup.json")});
  EXPECT_EQ(dup.code, 2);
  EXPECT_THAT(dup.err, HasSubstr("benchmarks 0 and 1 are both named 'copy 1 GiB cold'"));

  const CliRun higher = run({"compare", path("a.json"), path("b.json"), "--higher-is-better"});
  EXPECT_EQ(higher.code, 2);
  EXPECT_THAT(higher.err, HasSubstr("bench samples are seconds per operation"));
}

// The documents a perfhound::bench program writes (bench::Runner --json), not hand-built ones, read by compare as
// a user runs it: the same suite before and after a change, paired by benchmark name. B's "copy" samples are A's
// plus 10 us (a shift compare must find, and call worse); "sort" is the same in both.
TEST_F(CompareCli, WhatABenchProgramWritesComparesByName) {
  const auto write = [&](const std::string& file, double copy_shift_s) {
    std::string prog = "copy_bench", json_flag = "--json", out = path(file), quiet = "--quiet";
    std::vector<char*> argv{prog.data(), json_flag.data(), out.data(), quiet.data()};
    std::ostringstream text, err;
    bench::Runner runner("copy kernel", static_cast<int>(argv.size()), argv.data(), text, err);
    ASSERT_FALSE(runner.should_exit()) << err.str();
    runner.set_condition("input", "16 MiB");
    for (const auto& [name, shift] : {std::pair<std::string, double>{"copy 16 MiB", copy_shift_s}, {"sort 1M", 0.0}}) {
      bench::Measurement m;
      m.name = name;
      m.mode = "cpu";
      for (int i = 1; i <= 40; ++i) m.samples_s.push_back(i * 1e-6 + shift);
      m.summary = bench::summarize_samples(m.samples_s);
      runner.record({m, std::nullopt});
    }
    EXPECT_EQ(runner.finish(), 0) << err.str();
  };
  write("bench_a.json", 0);
  write("bench_b.json", 10e-6);
  const CliRun r = run({"compare", path("bench_a.json"), path("bench_b.json"), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["result"]["input_kind"], "perfhound.bench");
  ASSERT_EQ(doc["result"]["benchmarks"].size(), 2u);
  for (const Json& b : doc["result"]["benchmarks"]) {
    const Json* samples = nullptr;
    for (const Json& m : b["metrics"]) {
      if (m["metric"] == "samples") samples = &m;
    }
    ASSERT_NE(samples, nullptr) << b.dump();
    EXPECT_EQ((*samples)["n_a"], 40);
    if (b["name"] == "copy 16 MiB") {
      EXPECT_NEAR((*samples)["shift"].get<double>(), 10e-6, 1e-12);
      EXPECT_EQ((*samples)["verdict"], "worse");
    } else {
      EXPECT_EQ(b["name"], "sort 1M");
      EXPECT_NEAR((*samples)["shift"].get<double>(), 0, 1e-12);
      EXPECT_NE((*samples)["verdict"], "worse");
    }
  }
}

TEST_F(CompareCli, RawSampleFilesAndStatsDocuments) {
  // A = 100..119 ms, B = A - 10 ms. scipy p = 5.2125496206037515e-05; HL shift -10 ms, 95% [-14, -6] ms.
  {
    std::ofstream a(path("a.txt")), b(path("b.txt"));
    a << "latency_ms\n";
    b << "latency_ms\n";
    for (int i = 0; i < 20; ++i) {
      a << 100 + i << "\n";
      b << 90 + i << "\n";
    }
  }
  const CliRun r = run({"compare", "--samples", "--unit", "ms", path("a.txt"), path("b.txt"), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  const Json& s = metric(doc, "samples");
  EXPECT_NEAR(s["p_value"].get<double>(), 5.2125496206037515e-05, 1e-15);
  EXPECT_NEAR(s["shift"].get<double>(), -10e-3, 1e-12);
  EXPECT_NEAR(s["shift_lo"].get<double>(), -14e-3, 1e-12);
  EXPECT_NEAR(s["shift_hi"].get<double>(), -6e-3, 1e-12);
  EXPECT_EQ(s["unit"], "s");
  EXPECT_EQ(s["verdict"], "better");
  EXPECT_TRUE(doc["result"]["benchmarks"][0]["conditions_diff"].is_null());
  // Read as a rate (higher is better), the same samples are a regression.
  const CliRun rate = run({"compare", "--samples", "--higher-is-better", path("a.txt"), path("b.txt"), "--json"});
  ASSERT_EQ(rate.code, 0) << rate.err;
  EXPECT_EQ(metric(Json::parse(rate.out), "samples")["verdict"], "worse");

  // perfhound stats documents of the same files: compare re-reads the samples from the source they name.
  ASSERT_EQ(run({"stats", path("a.txt"), "--unit", "ms", "-o", path("a.stats.json")}).code, 0);
  ASSERT_EQ(run({"stats", path("b.txt"), "--unit", "ms", "-o", path("b.stats.json")}).code, 0);
  const CliRun stats = run({"compare", path("a.stats.json"), path("b.stats.json"), "--json"});
  ASSERT_EQ(stats.code, 0) << stats.err;
  const Json sdoc = Json::parse(stats.out);
  EXPECT_NEAR(metric(sdoc, "samples")["p_value"].get<double>(), 5.2125496206037515e-05, 1e-15);
  EXPECT_NEAR(metric(sdoc, "samples")["shift"].get<double>(), -10e-3, 1e-12);
  EXPECT_NEAR(metric(sdoc, "p50")["a"].get<double>(), 109.5e-3, 1e-12);
  // The source differs by nature (two files), so it is ignored rather than refused.
  const Json& ignored = sdoc["result"]["benchmarks"][0]["conditions_diff"]["ignored"];
  EXPECT_NE(std::find(ignored.begin(), ignored.end(), "source"), ignored.end()) << ignored.dump();

  // Each side's warm-up is said beside it: the stats documents state none discarded, --warmup 2 two of each file.
  const CliRun stated = run({"compare", path("a.stats.json"), path("b.stats.json")});
  EXPECT_THAT(stated.out, HasSubstr("  A: " + path("a.stats.json") + " (samples: " + path("a.txt") +
                                    "; 0 warm-up samples discarded)\n"));
  const CliRun raw = run({"compare", "--samples", "--warmup", "2", path("a.txt"), path("b.txt")});
  EXPECT_THAT(raw.out, HasSubstr("  B: " + path("b.txt") + " (2 warm-up samples discarded)\n"));
}

TEST_F(CompareCli, BadInputIsOneLineAndExitTwo) {
  write_load("a", {}, 0, parameters(), 10);
  std::ofstream(path("bad.json")) << "{\"kind\": ";
  std::ofstream(path("trace.json")) << Json{{"schema_version", 1}, {"kind", "perfhound.trace"},
                                            {"conditions", conditions({})}, {"result", Json::object()}}
                                           .dump();
  std::ofstream(path("stats.json")) << Json{{"schema_version", 1}, {"kind", "perfhound.stats"},
                                            {"conditions", conditions({})}, {"result", {{"count", 1}}}}
                                           .dump();
  // Damaged load documents, each compared with exit 0 before a review (no summary: "n/a" rows; a negative rate:
  // "-100.2%"; a text percentile: ignored).
  const auto damaged = [&](const std::string& stem, const std::function<void(Json&)>& damage) {
    std::ifstream in(path("a.json"));
    Json doc = Json::parse(in);
    damage(doc);
    std::ofstream(path(stem + ".json")) << doc.dump();
  };
  damaged("no_summary", [](Json& d) { d["result"].erase("summary"); });
  damaged("negative", [](Json& d) { d["result"]["summary"]["throughput"]["requests_per_s"] = -5; });
  damaged("text", [](Json& d) { d["result"]["summary"]["latency"]["from_sent"]["ttft"]["p50_s"] = "fast"; });
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"compare", path("a.json"), path("no_summary.json")}, "no_summary.json': a perfhound.load document without result.summary"},
      {{"compare", path("a.json"), path("negative.json")},
       "negative.json': result.summary.throughput.requests_per_s is not a number of 0 or more: -5"},
      {{"compare", path("a.json"), path("text.json")},
       "text.json': result.summary.latency.from_sent.ttft.p50_s is not a number of 0 or more: \"fast\""},
      {{"compare", path("a.json")}, "in pairs"},
      {{"compare", path("a.json"), path("a.json"), path("a.json")}, "got 3 files"},
      {{"compare", path("a.json"), path("missing.json")}, "missing.json': no such file or not readable"},
      {{"compare", path("a.json"), path("bad.json")}, "not valid JSON"},
      {{"compare", path("a.json"), path("trace.json")}, "is a perfhound.trace document"},
      {{"compare", path("a.json"), path("stats.json")}, "results of one kind"},
      {{"compare", path("a.json"), path("a.json"), "--fail-on", "latency"}, "--fail-on: no metric 'latency'"},
      {{"compare", path("a.json"), "--"}, "give files on both sides"},
      {{"compare", path("a.json"), "--", path("a.json"), "--json"}, "put the flags before '--'"},
      {{"compare", path("a.json"), path("a.json"), "--alpha", "0"}, "--alpha"},
      {{"compare", path("a.json"), path("a.json"), "--unit", "ms"}, "add --samples"},
      {{"compare", "--samples", path("a.json"), path("a.json")}, "a.json"},
  };
  for (const auto& [args, expected] : cases) {
    const CliRun r = run(args);
    EXPECT_TRUE(is_one_line_error(r, {expected})) << args.back();
  }
}

// A latency block with no percentiles has none to compare: "n/a" rows, not a crash (its p50 row read the block's
// missing field through a const operator[], which segfaulted). A block that is not an object is an error.
TEST_F(CompareCli, AnEmptyLatencyBlockIsNotApplicable) {
  write_load("a", {}, 0, parameters(), 10);
  const auto damaged = [&](const std::string& stem, const Json& block) {
    std::ifstream in(path("a.json"));
    Json doc = Json::parse(in);
    doc["result"]["summary"]["latency"]["from_sent"]["ttft"] = block;
    std::ofstream(path(stem + ".json")) << doc.dump();
    return run({"compare", path("a.json"), path(stem + ".json"), "--json"});
  };
  const CliRun empty = damaged("empty", Json::object());
  ASSERT_EQ(empty.code, 0) << empty.err;
  const Json out = Json::parse(empty.out);
  EXPECT_TRUE(metric(out, "ttft_p50")["ratio"].is_null());
  EXPECT_NEAR(metric(out, "tpot_p99")["ratio"].get<double>(), 1.0, 1e-12);  // the other blocks still compare
  const CliRun null = damaged("null", Json());
  EXPECT_EQ(null.code, 2);
  EXPECT_THAT(null.err, HasSubstr("null.json': result.summary.latency.from_sent.ttft is a null, not an object"));

  // A stats result with no count is not a stats result.
  std::ofstream(path("s.json")) << Json{{"schema_version", 1}, {"kind", "perfhound.stats"},
                                        {"conditions", conditions({})}, {"result", Json::object()}}
                                       .dump();
  const CliRun r = run({"compare", path("s.json"), path("s.json")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("s.json': result.count: missing"));
}

// Two real runs of the embedded simulator: the same harness, one change (the step time grows tenfold, so TPOT and
// ITL do). The change is in the "target" condition, which must be declared. Steps of 1 ms and more keep the engine,
// not a slow (sanitizer-built, loaded) client or server, setting each run's pace.
TEST_F(CompareCli, TwoSimulatorRunsOneChange) {
  const auto load = [&](const std::string& stem, const std::string& step) {
    return run({"load", "--sim-fixed-step-time", step, "--concurrency", "4", "--requests", "40", "--warmup", "3",
                "--input-len", "16", "--output-len", "6", "--quiet", "--records", path(stem + ".records.jsonl"),
                "--json", "-o", path(stem + ".json")});
  };
  const CliRun a = load("a", "1ms");
  ASSERT_TRUE(a.code == 0 || a.code == 1) << a.err;  // 1 only when a busy machine judged the client limited
  const CliRun b = load("b", "10ms");
  ASSERT_TRUE(b.code == 0 || b.code == 1) << b.err;
  const CliRun refused = run({"compare", path("a.json"), path("b.json")});
  EXPECT_EQ(refused.code, 2);
  EXPECT_THAT(refused.err, HasSubstr("target ("));
  const CliRun r = run({"compare", path("a.json"), path("b.json"), "--variable", "target", "--fail-on", "tpot", "--json"});
  EXPECT_EQ(r.code, 1) << r.err;
  const Json doc = Json::parse(r.out);
  const Json& tpot = metric(doc, "tpot");
  EXPECT_EQ(tpot["n_a"], 40);
  EXPECT_EQ(tpot["n_b"], 40);
  EXPECT_EQ(tpot["verdict"], "worse");
  EXPECT_GT(tpot["change"].get<double>(), 1.0);  // 1 ms -> 10 ms per step: about +900% on an idle machine
  // The records give the same centers as the run reported (numpy-linear percentiles of the same values).
  const Json run_a = Json::parse(std::ifstream(path("a.json")));
  EXPECT_NEAR(metric(doc, "tpot_p50")["a"].get<double>(),
              run_a["result"]["summary"]["latency"]["from_sent"]["tpot"]["p50_s"].get<double>(), 1e-12);
  // The warm-up each run discarded (--warmup 3), beside it in the text and the JSON.
  EXPECT_EQ(doc["result"]["benchmarks"][0]["a"][0]["warmup_discarded"], 3);
  EXPECT_EQ(doc["result"]["benchmarks"][0]["b"][0]["warmup_unit"], "request");
  const CliRun text = run({"compare", path("a.json"), path("b.json"), "--variable", "target"});
  EXPECT_THAT(text.out, HasSubstr("  A: " + path("a.json") + " (samples: " + path("a.records.jsonl") +
                                  "; 3 warm-up requests discarded)\n"));
}

}  // namespace
}  // namespace perfhound::cli
