// perfhound load and sweep under mpirun, 2 and 4 ranks on this one machine (--oversubscribe): the merged
// result holds request for request what one process sends on the same schedule (index, intended time,
// warm-up, lengths), each rank sent every N-th arrival and kept its own records file, and the merged
// percentiles are those of all the records, computed here independently. Skipped where perfhound was built
// without MPI or mpirun is missing (scripts/install-deps installs Open MPI, so `make test` runs them).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/records_testing.h"
#include <sstream>
#include <string>
#include <vector>

namespace perfhound {
namespace {

namespace fs = std::filesystem;
using testing::linear_percentile;
using testing::read_records;
using testing::Records;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class MpiCli : public ::testing::Test {
 protected:
  void SetUp() override {
#if !PERFHOUND_HAVE_MPI
    GTEST_SKIP() << "perfhound was built without MPI (apt-get install libopenmpi-dev, then reconfigure)";
#endif
    if (std::system("command -v mpirun > /dev/null 2>&1") != 0) GTEST_SKIP() << "mpirun is not on PATH (apt-get install openmpi-bin)";
    dir_ = fs::temp_directory_path() / ("perfhound_mpi_cli_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `perfhound ARGS` (under mpirun -np `ranks` when ranks > 0); stdout and stderr to files; the exit code.
  int perfhound(int ranks, const std::vector<std::string>& args) {
    std::string cmd;
    if (ranks > 0) {
      // Root is allowed in these containers; shared memory between the ranks of this one host only; a sanitized
      // build checks no leaks inside Open MPI's own allocations.
      cmd = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader "
            "OMPI_MCA_btl_vader_single_copy_mechanism=none ASAN_OPTIONS=detect_leaks=0 "
            "mpirun --oversubscribe -np " + std::to_string(ranks) + " ";
    }
    cmd += PERFHOUND_BINARY;
    for (const auto& a : args) cmd += " '" + a + "'";
    cmd += " > '" + (dir_ / "stdout").string() + "' 2> '" + (dir_ / "stderr").string() + "'";
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string out() const { return slurp(dir_ / "stdout"); }
  std::string err() const { return slurp(dir_ / "stderr"); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  static std::vector<std::string> open_loop(const std::string& records) {
    return {"load", "--sim-fixed-step-time", "500us", "--rate", "150", "--requests", "36", "--warmup", "5",
            "--input-len", "uniform:8,24", "--output-len", "uniform:3,7", "--seed", "5", "--quiet", "--json",
            "--records", records};
  }

  // The merged run of `ranks` ranks against one process on the same schedule.
  void expect_same_requests_as_one_process(int ranks) {
    ASSERT_NE(perfhound(0, open_loop(path("one.jsonl"))), 2) << err();
    const int code = perfhound(ranks, open_loop(path("all.jsonl")));
    // 0 or 1: a busy 2-core machine running 4 ranks may judge the client limited (INVALID, exit 1).
    ASSERT_TRUE(code == 0 || code == 1) << code << ": " << err();
    const auto doc = nlohmann::json::parse(out());
    const Records one = read_records(dir_ / "one.jsonl"), all = read_records(dir_ / "all.jsonl");
    ASSERT_EQ(one.size(), 41u);
    ASSERT_EQ(all.size(), one.size());
    for (const auto& [index, r] : one) {
      ASSERT_TRUE(all.contains(index)) << index;
      const auto& m = all.at(index);
      EXPECT_EQ(m["intended_ns"], r["intended_ns"]) << index;
      EXPECT_EQ(m["warmup"], r["warmup"]) << index;
      EXPECT_EQ(m["input_tokens"], r["input_tokens"]) << index;
      EXPECT_EQ(m["max_tokens"], r["max_tokens"]) << index;
      EXPECT_EQ(m["output_tokens"], r["output_tokens"]) << index;
    }
    // Each rank streamed its own share (every N-th arrival), and the union is the merged file.
    std::size_t from_ranks = 0;
    for (int k = 0; k < ranks; ++k) {
      const Records mine = read_records(dir_ / ("all.rank" + std::to_string(k) + ".jsonl"));
      for (const auto& [index, r] : mine) {
        EXPECT_EQ(index % static_cast<std::uint64_t>(ranks), static_cast<std::uint64_t>(k));
        EXPECT_EQ(r, all.at(index));
      }
      from_ranks += mine.size();
    }
    EXPECT_EQ(from_ranks, all.size());
    // Percentiles over every rank's records, computed here.
    std::vector<double> ttft, e2e;
    for (const auto& [index, r] : all) {
      if (r["warmup"].get<bool>()) continue;
      ttft.push_back(static_cast<double>(r["first_token_ns"].get<std::int64_t>() - r["intended_ns"].get<std::int64_t>()) / 1e9);
      e2e.push_back(static_cast<double>(r["end_ns"].get<std::int64_t>() - r["intended_ns"].get<std::int64_t>()) / 1e9);
    }
    ASSERT_EQ(ttft.size(), 36u);
    const auto& summary = doc["result"]["summary"];
    EXPECT_EQ(summary["requests"]["completed"], 36);
    for (const auto& [q, key] : {std::pair{50.0, "p50_s"}, {90.0, "p90_s"}, {99.0, "p99_s"}}) {
      EXPECT_NEAR(summary["latency"]["from_intended"]["ttft"][key].get<double>(), linear_percentile(ttft, q), 1e-12) << key;
      EXPECT_NEAR(summary["latency"]["from_intended"]["e2e"][key].get<double>(), linear_percentile(e2e, q), 1e-12) << key;
    }
    // The conditions carry the ranks and their clocks; the result the table of ranks.
    const auto& params = doc["conditions"]["parameters"];
    EXPECT_EQ(params["mpi_ranks"], ranks);
    ASSERT_EQ(params["mpi_clocks"].size(), static_cast<std::size_t>(ranks));
    EXPECT_EQ(params["mpi_clocks"][0]["clock_offset_s"], 0.0);
    for (const auto& c : params["mpi_clocks"]) EXPECT_LT(std::fabs(c["clock_offset_s"].get<double>()), 0.01);  // one host
    ASSERT_EQ(doc["result"]["ranks"].size(), static_cast<std::size_t>(ranks));
    std::size_t issued = 0;
    for (const auto& r : doc["result"]["ranks"]) issued += r["issued"].get<std::size_t>();
    EXPECT_EQ(issued, 41u);
    // perfhound merge of the ranks' own files, offline, gives the merged figures again.
    std::vector<std::string> merge = {"merge", "--json"};
    for (int k = 0; k < ranks; ++k) merge.push_back(path("all.rank" + std::to_string(k) + ".jsonl"));
    ASSERT_EQ(perfhound(0, merge), 0) << err();
    const auto merged = nlohmann::json::parse(out());
    EXPECT_EQ(merged["result"]["summary"]["latency"], summary["latency"]);
    EXPECT_EQ(merged["result"]["summary"]["requests"], summary["requests"]);
  }

  fs::path dir_;
};

TEST_F(MpiCli, TwoRanksSendExactlyTheOneProcessSchedule) { expect_same_requests_as_one_process(2); }
TEST_F(MpiCli, FourRanksSendExactlyTheOneProcessSchedule) { expect_same_requests_as_one_process(4); }

TEST_F(MpiCli, ClosedLoopConcurrencyIsDividedAcrossRanks) {
  const int code = perfhound(2, {"load", "--sim-fixed-step-time", "200us", "--concurrency", "3", "--requests", "9",
                                 "--warmup", "2", "--input-len", "16", "--output-len", "4", "--quiet", "--json"});
  ASSERT_TRUE(code == 0 || code == 1) << err();
  const auto doc = nlohmann::json::parse(out());
  EXPECT_EQ(doc["result"]["summary"]["requests"]["completed"], 9);         // 5 + 4
  EXPECT_EQ(doc["result"]["summary"]["requests"]["warmup_discarded"], 2);  // 1 + 1
  EXPECT_LE(doc["result"]["ranks"][0]["client"]["max_in_flight"].get<int>(), 2);
  EXPECT_LE(doc["result"]["ranks"][1]["client"]["max_in_flight"].get<int>(), 1);
}

TEST_F(MpiCli, SweepRunsEveryPointOverTheRanksAndRankZeroWritesIt) {
  const int code = perfhound(2, {"sweep", "--sim-fixed-step-time", "1ms", "--rate", "30,60", "--requests", "12",
                                 "--warmup", "2", "--input-len", "16", "--output-len", "4", "--cooldown", "0s",
                                 "--quiet", "--json", "--out", path("sweep")});
  ASSERT_TRUE(code == 0 || code == 1) << err();
  const auto doc = nlohmann::json::parse(out());
  ASSERT_EQ(doc["result"]["points"].size(), 2u);
  for (const auto& p : doc["result"]["points"]) EXPECT_EQ(p["summary"]["requests"]["completed"], 12);
  EXPECT_TRUE(fs::exists(dir_ / "sweep" / "sweep.json"));
  EXPECT_EQ(read_records(dir_ / "sweep" / "rate-30.records.jsonl").size(), 14u);
  EXPECT_TRUE(fs::exists(dir_ / "sweep" / "rate-60.records.rank1.jsonl"));
}

TEST_F(MpiCli, ABadFlagIsOneLineFromRankZeroAndExitTwo) {
  const int code = perfhound(2, {"load", "--rate", "-1", "--requests", "3"});
  EXPECT_EQ(code, 2);
  const std::string e = err();
  EXPECT_NE(e.find("--rate"), std::string::npos) << e;
  EXPECT_EQ(std::count(e.begin(), e.end(), '\n') >= 1, true);
  EXPECT_EQ(e.find("perfhound rank 1"), std::string::npos) << e;  // rank 1 fails alike and stays quiet
}

}  // namespace
}  // namespace perfhound
