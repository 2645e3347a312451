// SIGINT, SIGTERM and SIGHUP sent to a real perfhound process (the binary, not run_app in-process, so the signal
// dispositions are the ones a user's Ctrl-C meets): load, sweep and record keep what they measured, say the
// result is partial, and end promptly with 130 (128 + SIGINT, as shells report an interrupted run) or, for
// record, the recorded program's own exit code.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <functional>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace perfhound {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

// A perfhound process with its stdout and stderr in files; with `ignore_hangup`, started as nohup starts one.
class Process {
 public:
  Process(const std::vector<std::string>& args, const fs::path& dir, bool ignore_hangup = false)
      : out_(dir / "stdout"), err_(dir / "stderr") {
    pid_ = ::fork();
    if (pid_ != 0) return;
    const int out = ::open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    std::signal(SIGHUP, ignore_hangup ? SIG_IGN : SIG_DFL);  // an ignored signal stays ignored across exec
    std::vector<char*> argv{const_cast<char*>(PERFHOUND_BINARY)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(PERFHOUND_BINARY, argv.data());
    ::_exit(127);
  }
  ~Process() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  void send(int sig) const { ::kill(pid_, sig); }

  // The exit code (128 + signal for a process killed by one), or -1 when it still runs after `limit` (then killed).
  int wait_exit(std::chrono::milliseconds limit) {
    const auto until = Clock::now() + limit;
    int status = 0;
    while (Clock::now() < until) {
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
  }

  std::string out() const { return read(out_); }
  std::string err() const { return read(err_); }

 private:
  static std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  pid_t pid_ = -1;
  bool exited_ = false;
  fs::path out_, err_;
};

bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit) {
  const auto until = Clock::now() + limit;
  while (Clock::now() < until) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return condition();
}

std::vector<std::string> lines_of(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

class Signals : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();  // "Case/Sigint"
    for (char& c : name) c = c == '/' ? '_' : c;
    dir_ = fs::temp_directory_path() / ("perfhound_signals_" + std::to_string(::getpid()) + "_" + name);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  int sig() const { return GetParam(); }
  const char* sig_name() const { return sig() == SIGINT ? "SIGINT" : sig() == SIGTERM ? "SIGTERM" : "SIGHUP"; }
  fs::path dir_;
};

// Every request the run issued is a line of the records file (warm-up included), the result document says
// partial with the signal's name, and its request count is that line count.
TEST_P(Signals, LoadKeepsEveryRecordAndMarksTheResultPartial) {
  const fs::path records = dir_ / "records.jsonl", result = dir_ / "result.json";
  Process p({"load", "--sim-fixed-step-time", "1ms", "--rate", "40", "--duration", "120s", "--warmup", "2",
             "--input-len", "16", "--output-len", "8", "--records", records.string(), "-o", result.string(), "--quiet"},
            dir_);
  ASSERT_TRUE(eventually([&] { return lines_of(records).size() >= 11; }, std::chrono::seconds(30))) << p.err();
  p.send(sig());
  const auto sent = Clock::now();
  EXPECT_EQ(p.wait_exit(std::chrono::seconds(20)), 130) << p.err();
  EXPECT_LT(Clock::now() - sent, std::chrono::seconds(10));  // in-flight requests drain; nothing waits for 120 s
  EXPECT_THAT(p.out(), HasSubstr(fmt::format("[partial-run]: interrupted ({})", sig_name())));  // in the report, before its conditions

  const auto doc = read_json(result);
  EXPECT_TRUE(doc["result"]["partial"]);
  EXPECT_THAT(doc["result"]["stop_reason"].get<std::string>(), HasSubstr(sig_name()));
  const auto lines = lines_of(records);
  ASSERT_GE(lines.size(), 11u);
  EXPECT_EQ(nlohmann::json::parse(lines[0])["kind"], "perfhound.load.records");
  std::set<std::int64_t> indices;
  int completed = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto record = nlohmann::json::parse(lines[i]);  // whole lines only: none cut by the signal
    indices.insert(record["index"].get<std::int64_t>());
    completed += record["error"] == "none" && !record["warmup"].get<bool>();
  }
  EXPECT_EQ(indices.size(), lines.size() - 1);  // each request once
  const auto& requests = doc["result"]["summary"]["requests"];
  EXPECT_EQ(requests["total"].get<std::size_t>(), lines.size() - 1);
  EXPECT_EQ(requests["completed"].get<int>(), completed);
}

// A signal during the cooldown between two points ends the sweep then, not after the 60 s pause: sweep.json
// holds the measured point and says partial.
TEST_P(Signals, SweepStopsInTheCooldownAndKeepsThePointsMeasured) {
  const fs::path out = dir_ / "sweep";
  Process p({"sweep", "--sim-fixed-step-time", "200us", "--concurrency", "1,2", "--requests", "8", "--warmup", "1",
             "--input-len", "16", "--output-len", "4", "--cooldown", "60s", "--out", out.string(), "--quiet"},
            dir_);
  ASSERT_TRUE(eventually([&] { return fs::exists(out / "sweep.json"); }, std::chrono::seconds(30))) << p.err();
  p.send(sig());
  EXPECT_EQ(p.wait_exit(std::chrono::seconds(10)), 130) << p.err();
  EXPECT_THAT(p.err(), HasSubstr(std::string("interrupted (") + sig_name() + ") before concurrency 2"));
  const auto sweep = read_json(out / "sweep.json");
  EXPECT_TRUE(sweep["result"]["partial"]);
  EXPECT_FALSE(sweep["result"]["complete"]);
  ASSERT_EQ(sweep["result"]["points"].size(), 1u);
  EXPECT_EQ(sweep["result"]["points"][0]["summary"]["requests"]["completed"], 8);
  EXPECT_FALSE(fs::exists(out / "concurrency-2.json"));
}

// A signal while a point runs ends that point (partial, its records kept) and the sweep after it.
TEST_P(Signals, SweepInterruptedInAPointKeepsItsRecords) {
  const fs::path out = dir_ / "sweep";
  Process p({"sweep", "--sim-fixed-step-time", "1ms", "--concurrency", "2,4", "--duration", "120s", "--warmup", "0",
             "--input-len", "16", "--output-len", "8", "--out", out.string(), "--quiet"},
            dir_);
  const fs::path records = out / "concurrency-2.records.jsonl";
  ASSERT_TRUE(eventually([&] { return lines_of(records).size() >= 6; }, std::chrono::seconds(30))) << p.err();
  p.send(sig());
  EXPECT_EQ(p.wait_exit(std::chrono::seconds(20)), 130) << p.err();
  const auto sweep = read_json(out / "sweep.json");
  EXPECT_TRUE(sweep["result"]["partial"]);
  ASSERT_EQ(sweep["result"]["points"].size(), 1u);
  const auto& point = sweep["result"]["points"][0];
  EXPECT_TRUE(point["partial"]);
  EXPECT_EQ(point["summary"]["requests"]["total"].get<std::size_t>(), lines_of(records).size() - 1);
  EXPECT_TRUE(read_json(out / "concurrency-2.json")["result"]["partial"]);
}

// perfhound record passes the signal to the program it runs (which, under CUDA, writes its trace as it ends) and
// returns the program's own exit code; here a shell that exits 3 on either signal.
TEST_P(Signals, RecordPassesTheSignalToTheProgramAndReturnsItsExitCode) {
  if (!fs::exists(fs::path(PERFHOUND_BINARY).parent_path() / "libperfhound_record_inject.so")) {
    GTEST_SKIP() << "built without CUPTI";
  }
  Process p({"record", "-o", (dir_ / "t.json").string(), "--", "/bin/sh", "-c",
             "trap 'exit 3' INT TERM HUP; echo ready; while :; do sleep 0.02; done"},
            dir_);
  ASSERT_TRUE(eventually([&] { return p.out().find("ready") != std::string::npos; }, std::chrono::seconds(10)));
  p.send(sig());
  EXPECT_EQ(p.wait_exit(std::chrono::seconds(10)), 3) << p.err();
  EXPECT_THAT(p.err(), HasSubstr("exited 3"));
}

// Under nohup SIGHUP is ignored from the start, and a run asked to survive the terminal closing does: it
// finishes every request it planned, with a whole result, not a partial one.
TEST(SignalsUnderNohup, LoadRunsThroughAHangup) {
  const fs::path dir = fs::temp_directory_path() / ("perfhound_signals_nohup_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path records = dir / "records.jsonl", result = dir / "result.json";
  Process p({"load", "--sim-fixed-step-time", "1ms", "--rate", "100", "--requests", "100", "--warmup", "0",
             "--input-len", "16", "--output-len", "4", "--records", records.string(), "-o", result.string(), "--quiet"},
            dir, /*ignore_hangup=*/true);
  ASSERT_TRUE(eventually([&] { return lines_of(records).size() >= 11; }, std::chrono::seconds(30))) << p.err();
  p.send(SIGHUP);
  const int code = p.wait_exit(std::chrono::seconds(30));
  EXPECT_TRUE(code == 0 || code == 1) << code << ": " << p.err();  // 1 only when a busy machine limits the client
  const auto doc = read_json(result);
  EXPECT_FALSE(doc["result"].value("partial", false)) << doc["result"].value("stop_reason", "");
  EXPECT_EQ(doc["result"]["summary"]["requests"]["total"], 100);
  EXPECT_EQ(lines_of(records).size(), 101u);  // the header and every request
  fs::remove_all(dir);
}

// SIGHUP: the terminal a run was started from closed (an ssh session dropped); the run keeps what it measured.
INSTANTIATE_TEST_SUITE_P(, Signals, ::testing::Values(SIGINT, SIGTERM, SIGHUP), [](const auto& info) {
  return std::string(info.param == SIGINT ? "Sigint" : info.param == SIGTERM ? "Sigterm" : "Sighup");
});

}  // namespace
}  // namespace perfhound
