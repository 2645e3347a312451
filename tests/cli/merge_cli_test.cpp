// perfhound load --shard K/N and perfhound merge, end to end through the CLI against the embedded simulator:
// the shards of one schedule hold exactly the requests one client would send (index, intended time, warm-up,
// lengths), and the merged percentiles are those of all their records, computed here independently.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <functional>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "cli/cli_runner.h"
#include "cli/records_testing.h"

namespace perfhound::cli {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

using testing::linear_percentile;
using testing::read_records;
using testing::Records;

class MergeCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("perfhound_merge_cli_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // An open-loop run of 30 measured requests after 4 warm-up, its records to `records`.
  CliRun load(const std::string& records, std::vector<std::string> extra = {}) const {
    std::vector<std::string> a = {"load", "--sim-fixed-step-time", "500us", "--rate", "200", "--requests", "30",
                                  "--warmup", "4", "--input-len", "uniform:8,24", "--output-len", "uniform:3,7",
                                  "--seed", "11", "--quiet", "--records", path(records)};
    a.insert(a.end(), extra.begin(), extra.end());
    return run(a);
  }

  fs::path dir_;
};

TEST_F(MergeCli, ShardsHoldExactlyTheOneClientScheduleAndMergeOverAllRecords) {
  ASSERT_NE(load("one.jsonl").code, 2);
  for (int k = 0; k < 3; ++k) {
    const CliRun r = load("s" + std::to_string(k) + ".jsonl", {"--shard", std::to_string(k) + "/3"});
    ASSERT_NE(r.code, 2) << r.err;
  }
  const Records one = read_records(dir_ / "one.jsonl");
  ASSERT_EQ(one.size(), 34u);
  Records shards;
  for (int k = 0; k < 3; ++k) {
    for (auto& [index, r] : read_records(dir_ / ("s" + std::to_string(k) + ".jsonl"))) {
      EXPECT_EQ(index % 3, static_cast<std::uint64_t>(k)) << "shard " << k << " sent index " << index;
      EXPECT_TRUE(shards.emplace(index, r).second) << "index " << index << " twice";
    }
  }
  ASSERT_EQ(shards.size(), one.size());
  for (const auto& [index, r] : one) {
    ASSERT_TRUE(shards.contains(index)) << index;
    const auto& s = shards[index];
    EXPECT_EQ(s["intended_ns"], r["intended_ns"]) << index;
    EXPECT_EQ(s["warmup"], r["warmup"]) << index;
    EXPECT_EQ(s["input_tokens"], r["input_tokens"]) << index;
    EXPECT_EQ(s["max_tokens"], r["max_tokens"]) << index;
  }

  const CliRun m = run({"merge", path("s0.jsonl"), path("s1.jsonl"), path("s2.jsonl"), "--records", path("all.jsonl"), "--json"});
  ASSERT_EQ(m.code, 0) << m.err;
  const auto doc = nlohmann::json::parse(m.out);
  EXPECT_EQ(doc["kind"], "perfhound.merge");
  EXPECT_TRUE(doc["result"]["complete"]);
  const auto& summary = doc["result"]["summary"];
  EXPECT_EQ(summary["requests"]["completed"], 30);
  EXPECT_EQ(summary["requests"]["warmup_discarded"], 4);
  // TTFT from the intended send time of the 30 measured requests, from the shard files themselves.
  std::vector<double> ttft, e2e;
  for (const auto& [index, r] : shards) {
    if (r["warmup"].get<bool>()) continue;
    ttft.push_back(static_cast<double>(r["first_token_ns"].get<std::int64_t>() - r["intended_ns"].get<std::int64_t>()) / 1e9);
    e2e.push_back(static_cast<double>(r["end_ns"].get<std::int64_t>() - r["intended_ns"].get<std::int64_t>()) / 1e9);
  }
  const auto& lat = summary["latency"]["from_intended"];
  for (const auto& [q, key] : {std::pair{50.0, "p50_s"}, {90.0, "p90_s"}, {99.0, "p99_s"}}) {
    EXPECT_NEAR(lat["ttft"][key].get<double>(), linear_percentile(ttft, q), 1e-12) << key;
    EXPECT_NEAR(lat["e2e"][key].get<double>(), linear_percentile(e2e, q), 1e-12) << key;
  }
  // The merged records file: every record once, in index order, field for field the shards' own.
  std::ifstream in(dir_ / "all.jsonl");
  std::string line;
  std::getline(in, line);
  std::vector<std::uint64_t> order;
  while (std::getline(in, line)) {
    const auto r = nlohmann::json::parse(line);
    order.push_back(r["index"].get<std::uint64_t>());
    EXPECT_EQ(r, shards[order.back()]);
  }
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
  EXPECT_EQ(order.size(), shards.size());

  // audit reads the merged result as it reads one client's: the load, the warm-up and the figures computed above.
  ASSERT_EQ(run({"merge", path("s0.jsonl"), path("s1.jsonl"), path("s2.jsonl"), "-o", path("merged.json")}).code, 0);
  const CliRun a = run({"audit", path("merged.json"), "--json"});
  ASSERT_TRUE(a.code == 0 || a.code == 1) << a.err;
  const auto claim = nlohmann::json::parse(a.out)["result"]["claim"];
  EXPECT_EQ(claim["format"], "perfhound.merge");
  EXPECT_EQ(claim["conditions"]["request_rate_per_s"], 200);
  EXPECT_EQ(claim["method"]["warmup_discarded"], true);
  EXPECT_EQ(claim["method"]["completed"], 30);
  ASSERT_FALSE(claim["latency"].empty());
  EXPECT_EQ(claim["latency"][0]["metric"], "ttft");
  EXPECT_NEAR(claim["latency"][0]["percentiles"]["p99_s"].get<double>(), linear_percentile(ttft, 99), 1e-12);
  EXPECT_EQ(a.out.find("no figures were read"), std::string::npos);
}

TEST_F(MergeCli, AClosedLoopDividesConcurrencyRequestsAndWarmupOverTheShards) {
  // concurrency 4, 10 requests, 3 warm-up over 3 shards: concurrency 2/1/1, requests 4/3/3, warm-up 1/1/1.
  const std::vector<std::size_t> measured = {4, 3, 3};
  for (int k = 0; k < 3; ++k) {
    const CliRun r = run({"load", "--sim-fixed-step-time", "200us", "--concurrency", "4", "--requests", "10", "--warmup", "3",
                          "--input-len", "16", "--output-len", "4", "--quiet", "--shard", std::to_string(k) + "/3",
                          "--records", path("c" + std::to_string(k) + ".jsonl"), "--json"});
    ASSERT_NE(r.code, 2) << r.err;
    const auto doc = nlohmann::json::parse(r.out);
    EXPECT_THAT(doc["conditions"]["parameters"]["load"].get<std::string>(), HasSubstr(", shard " + std::to_string(k) + "/3 of it"));
    const Records recs = read_records(dir_ / ("c" + std::to_string(k) + ".jsonl"));
    std::size_t warm = 0;
    for (const auto& [index, rec] : recs) {
      EXPECT_EQ(index % 3, static_cast<std::uint64_t>(k));
      warm += rec["warmup"].get<bool>() ? 1 : 0;
    }
    EXPECT_EQ(warm, 1u) << "shard " << k;
    EXPECT_EQ(recs.size() - warm, measured[static_cast<std::size_t>(k)]) << "shard " << k;
    EXPECT_LE(doc["result"]["client"]["max_in_flight"].get<int>(), k == 0 ? 2 : 1);
  }
  const CliRun m = run({"merge", path("c0.jsonl"), path("c1.jsonl"), path("c2.jsonl"), "--json"});
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_EQ(nlohmann::json::parse(m.out)["result"]["summary"]["requests"]["completed"], 10);
}

TEST_F(MergeCli, MissingShardsAreSevereAndExitOne) {
  ASSERT_NE(load("s0.jsonl", {"--shard", "0/3"}).code, 2);
  ASSERT_NE(load("s2.jsonl", {"--shard", "2/3"}).code, 2);
  const CliRun m = run({"merge", path("s0.jsonl"), path("s2.jsonl")});
  EXPECT_EQ(m.code, 1) << m.err;
  // In the report, after its numbers and before its conditions: a report saved with '>' keeps it.
  EXPECT_THAT(m.out, HasSubstr("severe [missing-shards]: 2 of the 3 shards are here; missing: 1"));
  EXPECT_LT(m.out.find("[missing-shards]"), m.out.find("\nconditions:\n"));
  // audit: the missing shard is the source's own severe finding.
  ASSERT_EQ(run({"merge", path("s0.jsonl"), path("s2.jsonl"), "-o", path("merged.json")}).code, 1);
  const CliRun a = run({"audit", path("merged.json")});
  EXPECT_EQ(a.code, 1) << a.out;
  EXPECT_THAT(a.out, HasSubstr("missing-shards"));
}

TEST_F(MergeCli, FilesThatAreNotSharesOfOneLoadAreOneLineErrors) {
  ASSERT_NE(load("s0.jsonl", {"--shard", "0/2"}).code, 2);
  ASSERT_NE(load("one.jsonl").code, 2);
  // Another load: the fixture's flags with constant arrivals instead of Poisson (CLI11 refuses a repeated flag).
  ASSERT_NE(load("other.jsonl", {"--shard", "1/2", "--arrival", "constant"}).code, 2);
  ASSERT_NE(load("of3.jsonl", {"--shard", "1/3"}).code, 2);
  // Shard 1 with an edited header: a host that is not an object, a hostname of null (each a JSON type error before).
  const auto edited = [&](const std::string& stem, const std::function<void(nlohmann::json&)>& edit) {
    ASSERT_NE(load(stem + "_src.jsonl", {"--shard", "1/2"}).code, 2);
    std::ifstream in(path(stem + "_src.jsonl"));
    std::string first, rest, line;
    std::getline(in, first);
    while (std::getline(in, line)) rest += line + "\n";
    auto header = nlohmann::json::parse(first);
    edit(header);
    std::ofstream(path(stem + ".jsonl")) << header.dump() << "\n" << rest;
  };
  edited("hosts", [](nlohmann::json& h) { h["header"]["host"] = "x"; });
  edited("hostname", [](nlohmann::json& h) { h["header"]["host"]["hostname"] = nullptr; });
  for (const auto& [files, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"s0.jsonl", "hosts.jsonl"}, "hosts.jsonl' line 1: header.host is a string, not an object"},
           {{"s0.jsonl", "hostname.jsonl"}, "hostname.jsonl' line 1: header.host.hostname is a null, not a string"},
           {{"s0.jsonl", "s0.jsonl"}, "are both shard 0/2"},
           {{"s0.jsonl", "one.jsonl"}, "request index 0 is also in"},
           {{"s0.jsonl", "other.jsonl"}, "load 'open loop, 200 req/s constant' differs"},
           {{"s0.jsonl", "of3.jsonl"}, "shard 1/3 is of another split"},
           {{"s0.jsonl", "absent.jsonl"}, "absent.jsonl"},
       }) {
    std::vector<std::string> a = {"merge"};
    for (const auto& f : files) a.push_back(path(f));
    const CliRun m = run(a);
    EXPECT_TRUE(is_one_line_error(m, {says}));
  }
}

// Records are written in completion order, which varies run to run (it did under the sanitizers): the error names
// the lowest repeated index whatever order the lines are in, here the repeated file's records reversed.
TEST_F(MergeCli, ARepeatedScheduleNamesItsLowestRepeatedIndexWhateverTheRecordOrder) {
  ASSERT_NE(load("s0.jsonl", {"--shard", "0/2"}).code, 2);
  ASSERT_NE(load("one.jsonl").code, 2);
  std::vector<std::string> lines;
  {
    std::ifstream in(dir_ / "one.jsonl");
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  ASSERT_GT(lines.size(), 3u);
  std::reverse(lines.begin() + 1, lines.end());  // line 1 is the header
  {
    std::ofstream out(dir_ / "reversed.jsonl");
    for (const std::string& line : lines) out << line << '\n';
  }
  const CliRun m = run({"merge", path("s0.jsonl"), path("reversed.jsonl")});
  EXPECT_EQ(m.code, 2) << m.err;
  EXPECT_THAT(m.err, HasSubstr("reversed.jsonl': request index 0 is also in"));
  EXPECT_THAT(m.err, HasSubstr("s0.jsonl': the files repeat one schedule"));
}

// The merged records decide chunks-together, as one client's would. The shards as sent (500 us steps, each
// delivered alone) have few zero gaps, only where the client read late; the same shards with every second chunk
// moved onto the one before it (what a server sending tokens in pairs gives) have about half their gaps zero
// and are warned of. The zero gaps are counted here from the files' measured, completed records.
TEST_F(MergeCli, ChunksThatArrivedTogetherInTheShardsAreCountedAndWarnedOf) {
  ASSERT_NE(load("s0.jsonl", {"--shard", "0/2"}).code, 2);
  ASSERT_NE(load("s1.jsonl", {"--shard", "1/2"}).code, 2);
  const auto merged = [&](const std::string& a, const std::string& b) {
    const CliRun m = run({"merge", path(a), path(b), "--json"});
    EXPECT_NE(m.code, 2) << m.err;
    const auto doc = nlohmann::json::parse(m.out);
    bool warned = false;
    for (const auto& d : doc["diagnostics"]) warned = warned || d["id"] == "chunks-together";
    return std::tuple{doc["result"]["summary"]["itl_zero_gaps"].get<int>(),
                      doc["result"]["summary"]["itl"]["count"].get<int>(), warned};
  };
  int gaps = 0, zero_as_sent = 0, zero_paired = 0;
  for (const std::string shard : {"s0", "s1"}) {
    std::ifstream in(dir_ / (shard + ".jsonl"));
    std::ofstream out(dir_ / (shard + "_paired.jsonl"));
    std::string line;
    std::getline(in, line);
    out << line << '\n';  // the header
    while (std::getline(in, line)) {
      auto rec = nlohmann::json::parse(line);
      auto& chunks = rec["chunk_ns"];
      const bool measured = !rec["warmup"].get<bool>() && rec["error"] == "none";
      for (std::size_t i = 1; measured && i < chunks.size(); ++i) {
        ++gaps;
        zero_as_sent += chunks[i] == chunks[i - 1];
      }
      for (std::size_t i = 1; i < chunks.size(); i += 2) chunks[i] = chunks[i - 1];
      for (std::size_t i = 1; measured && i < chunks.size(); ++i) zero_paired += chunks[i] == chunks[i - 1];
      out << rec.dump() << '\n';
    }
  }
  ASSERT_GT(gaps, 40);
  const auto [as_sent, gaps_as_sent, warned_as_sent] = merged("s0.jsonl", "s1.jsonl");
  EXPECT_EQ(gaps_as_sent, gaps);
  EXPECT_EQ(as_sent, zero_as_sent);
  EXPECT_EQ(warned_as_sent, zero_as_sent * 20 > gaps);  // over 5%
  const auto [paired, gaps_paired, warned_paired] = merged("s0_paired.jsonl", "s1_paired.jsonl");
  EXPECT_EQ(gaps_paired, gaps);
  EXPECT_EQ(paired, zero_paired);
  EXPECT_GT(zero_paired * 3, gaps);  // every second gap of 3 to 7 chunks: at least a third
  EXPECT_TRUE(warned_paired);
}

TEST_F(MergeCli, BadShardAndStartAtFlagsAreOneLineErrors) {
  for (const auto& [flags, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--shard", "3/3"}, "--shard: '3/3'"},
           {{"--shard", "1"}, "--shard: '1'"},
           {{"--start-at", "soon"}, "--start-at: 'soon'"},
           {{"--start-at", "1000"}, "in the past"},
       }) {
    const CliRun r = load("x.jsonl", flags);
    EXPECT_TRUE(is_one_line_error(r, {says}));
  }
  const CliRun few = run({"load", "--sim-fixed-step-time", "200us", "--concurrency", "2", "--requests", "4", "--shard", "0/3"});
  EXPECT_EQ(few.code, 2);
  EXPECT_THAT(few.err, HasSubstr("--concurrency: 2 is fewer than the 3 shards"));
}

TEST_F(MergeCli, StartAtWaitsForTheGivenWallClockTime) {
  const auto now = std::chrono::system_clock::now();
  const double at = std::chrono::duration<double>(now.time_since_epoch()).count() + 1.5;
  const auto t0 = std::chrono::steady_clock::now();
  const CliRun r = load("x.jsonl", {"--start-at", fmt::format("{:.3f}", at), "--json"});
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_NE(r.code, 2) << r.err;
  EXPECT_GE(waited, 1.4);
  EXPECT_NEAR(nlohmann::json::parse(r.out)["conditions"]["parameters"]["start_at_unix_s"].get<double>(), at, 1e-3);
}

}  // namespace
}  // namespace perfhound::cli
