// perfhound sweep end to end through the CLI against its embedded perfhound serve (fixed-step engine: one
// token per request per step, so the counts of every point are known): the files written as the sweep goes,
// --resume, --rate auto's plan, the operating point and the exit codes.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"

namespace perfhound::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

class SweepCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("perfhound_sweep_cli_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<std::string> args(std::vector<std::string> extra) const {
    std::vector<std::string> a = {"sweep", "--sim-fixed-step-time", "200us", "--requests", "12", "--warmup", "3",
                                  "--input-len", "16", "--output-len", "6", "--cooldown", "0s", "--quiet",
                                  "--out", dir_.string()};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  nlohmann::json read(const std::string& name) const {
    std::ifstream in(dir_ / name);
    return nlohmann::json::parse(in);
  }
  std::size_t lines(const std::string& name) const {
    std::ifstream in(dir_ / name);
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) ++n;
    return n;
  }

  fs::path dir_;
};

TEST_F(SweepCli, WritesEveryPointAndTheSweepInLoadOrder) {
  const CliRun r = run(args({"--concurrency", "1,4", "--json"}));
  ASSERT_TRUE(r.code == 0) << r.err;  // no --slo: no gate, so INVALID points do not fail the sweep
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["kind"], "perfhound.sweep");
  const auto& points = doc["result"]["points"];
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0]["load"], 1);
  EXPECT_EQ(points[1]["load"], 4);
  EXPECT_TRUE(doc["result"]["complete"]);
  EXPECT_TRUE(doc["result"]["operating_point"].is_null());  // none without an SLO
  for (const char* stem : {"concurrency-1", "concurrency-4"}) {
    const auto point = read(std::string(stem) + ".json");
    EXPECT_EQ(point["kind"], "perfhound.load");
    EXPECT_EQ(point["result"]["summary"]["requests"]["completed"], 12);
    EXPECT_EQ(point["result"]["summary"]["throughput"]["total_output_tokens"], 12 * 6);
    EXPECT_EQ(lines(std::string(stem) + ".records.jsonl"), 1u + 15u);  // header + 3 warm-up + 12 measured
  }
  EXPECT_EQ(read("concurrency-4.json")["conditions"]["parameters"]["load"], "closed loop, concurrency 4");
  // sweep.json on disk is the document printed.
  EXPECT_EQ(read("sweep.json")["result"]["points"].size(), 2u);
}

// Each point's diagnostics reach the sweep: its point entry, the sweep's own list (led by the point, which is what
// report and diagnose read) and the summary under the table. 12 measured requests a point: p99 from 12.
TEST_F(SweepCli, EachPointsDiagnosticsAreTheSweeps) {
  const CliRun r = run(args({"--concurrency", "1,4", "--json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  std::vector<std::string> messages;
  for (const auto& d : doc["diagnostics"]) {
    if (d["id"] == "few-samples-for-tail") messages.push_back(d["message"]);
  }
  EXPECT_EQ(messages, (std::vector<std::string>{"concurrency 1: p95 (needs 20) and p99 (needs 100) from 12 completed requests",
                                                "concurrency 4: p95 (needs 20) and p99 (needs 100) from 12 completed requests"}));
  for (const auto& point : doc["result"]["points"]) {
    bool few = false;
    for (const auto& d : point["diagnostics"]) few |= d["message"] == "p95 (needs 20) and p99 (needs 100) from 12 completed requests";
    EXPECT_TRUE(few) << point["label"];
  }
  // --warmup 3 under concurrency 4: a slot's first request is measured, at that point only.
  std::vector<std::string> cold;
  for (const auto& d : doc["diagnostics"]) {
    if (d["id"] == "cold-slots") cold.push_back(d["message"].get<std::string>().substr(0, 16));
  }
  EXPECT_EQ(cold, std::vector<std::string>{"concurrency 4: a"});
  EXPECT_EQ(read("sweep.json")["diagnostics"], doc["diagnostics"]);

  fs::remove_all(dir_);
  const CliRun text = run(args({"--concurrency", "1,4"}));
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("\nwarning [few-samples-for-tail]: concurrency 4: p95 (needs 20) and p99 (needs 100) from 12 completed requests. Remedy: collect more samples before quoting the tail.\n"));
  // Each point says the warm-up it discarded: --warmup 3 here.
  EXPECT_THAT(text.out, HasSubstr("point 2/2: concurrency 4: "));
  EXPECT_THAT(text.out, HasSubstr("12 completed, 0 failed (3 warm-up discarded)"));

  // The default warm-up (10) rises to one per slot: 16 at concurrency 16, which the sweep's policy does not say.
  fs::remove_all(dir_);
  std::vector<std::string> defaults = args({"--concurrency", "16"});
  defaults.erase(std::find(defaults.begin(), defaults.end(), "--warmup"), std::find(defaults.begin(), defaults.end(), "--warmup") + 2);
  const CliRun wide = run(defaults);
  ASSERT_EQ(wide.code, 0) << wide.err;
  // (VALID or, on a loaded machine such as a sanitizer build's, client-limited: the status is not what is tested.)
  EXPECT_THAT(wide.out, HasSubstr("point 1/1: concurrency 16: "));
  EXPECT_THAT(wide.out, HasSubstr(", 12 completed, 0 failed (16 warm-up discarded), "));
}

// audit judges a sweep at one point (here the last: no SLO, no operating point), so only that point's severe
// diagnostics make it source-invalid; a client-limited low-load point does not.
TEST_F(SweepCli, AuditReadsOnlyTheJudgedPointsSevereDiagnostics) {
  ASSERT_EQ(run(args({"--concurrency", "1,4"})).code, 0);
  auto sweep = read("sweep.json");
  const nlohmann::json severe = {{"id", "client-limited"}, {"severity", "severe"}, {"message", "made up"}, {"remedy", "r"}};
  sweep["result"]["points"][0]["diagnostics"].push_back(severe);
  sweep["diagnostics"].push_back(severe);
  std::ofstream((dir_ / "low.json").string()) << sweep.dump();
  const CliRun low = run({"audit", (dir_ / "low.json").string()});
  EXPECT_THAT(low.out, Not(HasSubstr("source-invalid"))) << low.out;
  sweep["result"]["points"][1]["diagnostics"].push_back(severe);
  std::ofstream((dir_ / "judged.json").string()) << sweep.dump();
  const CliRun judged = run({"audit", (dir_ / "judged.json").string()});
  EXPECT_EQ(judged.code, 1);
  EXPECT_THAT(judged.out, HasSubstr("source-invalid"));
}

// -o inside the --out folder the sweep makes: checked after the folder exists (a check as the flags were read
// refused it: "no folder"). A folder that cannot be made still stops the sweep before it measures.
TEST_F(SweepCli, OutputInsideTheOutFolderItMakes) {
  const CliRun r = run(args({"--concurrency", "1", "-o", (dir_ / "summary.json").string()}));
  ASSERT_TRUE(r.code == 0) << r.err;
  EXPECT_EQ(read("summary.json")["kind"], "perfhound.sweep");
  const CliRun bad = run(args({"--concurrency", "1", "-o", "/nonexistent/dir/summary.json"}));
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.err, ::testing::HasSubstr("-o: no folder '/nonexistent/dir'"));
}

TEST_F(SweepCli, ResumeKeepsCompletePointsAndRunsTheRest) {
  ASSERT_EQ(run(args({"--concurrency", "1,4"})).code, 0);
  const std::string kept_time = read("concurrency-1.json")["conditions"]["timestamp_utc"];
  fs::remove(dir_ / "concurrency-4.json");
  const CliRun again = run(args({"--concurrency", "1,4", "--resume"}));
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_THAT(again.err, HasSubstr("concurrency 1: kept from"));
  EXPECT_THAT(again.err, Not(HasSubstr("concurrency 4: kept from")));
  EXPECT_EQ(read("concurrency-1.json")["conditions"]["timestamp_utc"], kept_time);
  EXPECT_EQ(read("concurrency-4.json")["result"]["summary"]["requests"]["completed"], 12);
  EXPECT_EQ(read("sweep.json")["result"]["points"].size(), 2u);
}

TEST_F(SweepCli, ResumeRefusesPointsOfAnotherWorkload) {
  ASSERT_EQ(run(args({"--concurrency", "1"})).code, 0);
  auto a = args({"--concurrency", "1", "--resume"});
  a[8] = "32";  // --input-len 16 -> 32
  const CliRun r = run(a);
  EXPECT_TRUE(is_one_line_error(r, {"--resume: ", "concurrency-1.json was measured with workload"}));
}

TEST_F(SweepCli, OperatingPointIsTheHighestValidThroughputInsideTheSlo) {
  const CliRun r = run(args({"--concurrency", "1,2,4", "--slo", "ttft=10s,tpot=1s", "--expected-rate", "2",
                             "--target-rate", "1000", "--json"}));
  const auto doc = nlohmann::json::parse(r.out);
  const auto& res = doc["result"];
  // The expectation from the point documents themselves: of the points that are VALID and met the SLO gate,
  // the one with the highest request rate. (A busy test machine may mark a point client-limited; the rule
  // still decides which point is chosen.)
  int best = -1;
  double best_rate = 0;
  for (int i = 0; i < 3; ++i) {
    const auto& p = res["points"][i];
    const double rate = p["summary"]["throughput"]["requests_per_s"];
    if (p["status"] == "VALID" && p["slo_gate"]["passed"] == true && rate > best_rate) best = i, best_rate = rate;
  }
  if (best < 0) {
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(res["operating_point"].is_null());
    return;
  }
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(res["operating_point"]["index"], best);
  EXPECT_DOUBLE_EQ(res["headroom"]["ratio"].get<double>(), best_rate / 2);
  EXPECT_EQ(res["capacity"]["replicas"], static_cast<int>(std::ceil(1000 / best_rate)));
}

TEST_F(SweepCli, AnSloNoPointMeetsExitsOne) {
  const CliRun r = run(args({"--concurrency", "1,4", "--slo", "ttft=1ns"}));
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("operating point: none"));
  EXPECT_TRUE(read("sweep.json")["result"]["operating_point"].is_null());
}

TEST_F(SweepCli, RateAutoMeasuresTheEndsThenFillsInBetween) {
  // Steps of 2 ms (not the fixture's 200 us) so the engine, not the HTTP round trip, sets both ends: a loaded
  // two-core machine once measured the concurrency-8 run no faster than the synchronous one at 200 us steps,
  // and planning (rightly) refuses a max rate that is not above the synchronous rate.
  auto a = args({"--rate", "auto", "--points", "2", "--auto-concurrency", "8", "--json"});
  a[2] = "2ms";  // --sim-fixed-step-time
  const CliRun r = run(a);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  const auto& points = doc["result"]["points"];
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[0]["label"], "synchronous");
  EXPECT_EQ(points[3]["label"], "throughput");
  const double sync = points[0]["summary"]["throughput"]["requests_per_s"];
  const double max = points[3]["summary"]["throughput"]["requests_per_s"];
  // Two rates evenly spaced strictly between: sync + (max - sync) * k / 3 for k = 1, 2.
  EXPECT_NEAR(points[1]["load"].get<double>(), sync + (max - sync) / 3, 1e-6 * max);
  EXPECT_NEAR(points[2]["load"].get<double>(), sync + 2 * (max - sync) / 3, 1e-6 * max);
  EXPECT_EQ(points[1]["load_kind"], "rate_per_s");
  EXPECT_EQ(points[1]["summary"]["requests"]["completed"], 12);
  // Progress (stderr under --json) counts in the order measured: the two ends, then the rates between. It said
  // 1/4, 2/4, 2/4, 3/4 (the count of points held, one of which was set aside while the middle ran).
  for (const char* line : {"point 1/4: synchronous", "point 2/4: throughput", "point 3/4: rate", "point 4/4: rate"}) {
    EXPECT_THAT(r.err, HasSubstr(line));
  }
  // Each point says where its latency starts: the synchronous and throughput ends are closed loops, the rates
  // between open ones, so one value for the sweep would be wrong for some.
  EXPECT_EQ(points[0]["latency_from"], "actual send time");
  EXPECT_EQ(points[1]["latency_from"], "intended send time");
  EXPECT_EQ(points[3]["latency_from"], "actual send time");
  // The sweep as written is read by report and diagnose (a check that wanted latency_from in the sweep's own
  // conditions refused every sweep perfhound writes).
  const std::string sweep = (dir_ / "sweep.json").string();
  const CliRun report = run({"report", sweep, "-o", (dir_ / "report.html").string()});
  EXPECT_EQ(report.code, 0) << report.err;
  const CliRun diagnose = run({"diagnose", sweep});
  EXPECT_EQ(diagnose.code, 0) << diagnose.err;
}

TEST_F(SweepCli, BadInputIsOneLineAndExitTwo) {
  for (const auto& [extra, names] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--concurrency", "1,x"}, "--concurrency: item 2 'x'"},
           {{"--concurrency", "1,1"}, "--concurrency"},
           {{"--rate", "1", "--concurrency", "2"}, "--concurrency or --rate"},
           {{}, "--concurrency or --rate"},
           {{"--rate", "auto", "--points", "0"}, "--points"},
           {{"--concurrency", "1", "--cooldown", "soon"}, "--cooldown"},
           {{"--concurrency", "1", "--expected-rate", "-3"}, "--expected-rate"},
           // --rate auto's middle points are open loops: their flags were read only after both ends had run.
           {{"--rate", "auto", "--ramp-start-rate", "2"}, "--ramp-start-rate 2 needs --ramp-up"},
           {{"--rate", "auto", "--arrival", "foo"}, "--arrival: unknown arrival process 'foo'"},
       }) {
    const CliRun r = run(args(extra));
    EXPECT_TRUE(is_one_line_error(r, {names}));
    EXPECT_FALSE(std::filesystem::exists(dir_ / "synchronous.json")) << names << ": measured before refusing";
  }
  ASSERT_EQ(run(args({"--concurrency", "1"})).code, 0);
  const CliRun again = run(args({"--concurrency", "1"}));
  EXPECT_EQ(again.code, 2);
  EXPECT_THAT(again.err, HasSubstr("already holds a sweep"));
}

}  // namespace
}  // namespace perfhound::cli
