// End-to-end tests of the perfhound command line, driven in-process through run_app.
#include "cli/app.h"
#include "cli/cli_runner.h"

#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

namespace perfhound::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;


std::string temp_file(const std::string& name, const std::string& content) {
  // The process id keeps test cases apart: ctest runs them as parallel processes, and two writing one name
  // would read each other's half-written files.
  const auto path = std::filesystem::temp_directory_path() /
                    ("perfhound_cli_test_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path) << content;
  return path.string();
}

std::string one_to_hundred() {
  std::string s = "# the integers 1..100\n";
  for (int i = 1; i <= 100; ++i) s += std::to_string(i) + "\n";
  return s;
}

TEST(Cli, HelpListsEveryCommand) {
  const CliRun r = run({"--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("stats"));
  EXPECT_THAT(r.out, HasSubstr("help"));
  EXPECT_THAT(r.out, HasSubstr("Exit codes"));
}

TEST(Cli, NoArgumentsPrintsHelp) {
  const CliRun r = run({});
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("stats"));
}

TEST(Cli, VersionHasVersionAndSha) {
  const CliRun r = run({"--version"});
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, ::testing::MatchesRegex("perfhound [0-9]+\\.[0-9]+\\.[0-9]+ \\(git ([0-9a-f]+(-dirty)?|unknown), .*\n"));
}

TEST(Cli, HelpCommandDescribesOneCommand) {
  CliRun r = run({"help", "stats"});
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("--warmup"));
  EXPECT_THAT(r.out, HasSubstr("--json"));
  r = run({"stats", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("--warmup"));
  r = run({"help", "nosuch"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "perfhound help: no command named 'nosuch' (see 'perfhound --help')\n");
}

// A refused flag is said by the command it was given to, pointing at that command's flags. A mistyped flag is named
// even where a required argument is missing too: `stats --nosuch` had said only "file is required".
TEST(Cli, UnknownCommandOrFlagIsOneLineAndExitTwo) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"nosuch"}, "perfhound: The following argument was not expected: nosuch (see 'perfhound --help')\n"},
      {{"stats", "--nosuch"},
       "perfhound stats: The following argument was not expected: --nosuch (see 'perfhound stats --help')\n"},
      {{"stats", "x.txt", "--nosuch"},
       "perfhound stats: The following argument was not expected: --nosuch (see 'perfhound stats --help')\n"},
      {{"stats"}, "perfhound stats: file is required (see 'perfhound stats --help')\n"},
      {{"load", "--requests", "x"},
       "perfhound load: --requests: must be a whole number, got 'x' (see 'perfhound load --help')\n"},
      // Every stray flag, in the order given; a stray bare value keeps the message about what is missing.
      {{"stats", "--a", "--b"},
       "perfhound stats: The following arguments were not expected: --a --b (see 'perfhound stats --help')\n"},
      {{"mfu", "llama-3-8b", "--hw", "h100-sxm", "--phase", "decode"},
       "perfhound mfu: --model is required ('llama-3-8b' was given with no flag) (see 'perfhound mfu --help')\n"},
      // `--` is a separator, not a stray flag: `merge -- $FILES` with an empty glob is a missing file.
      {{"merge", "--"}, "perfhound merge: records is required (see 'perfhound merge --help')\n"},
      // A flag before the command name is the order gone wrong: --json is a flag of stats, not unknown to it.
      {{"--json", "stats", "samples.txt"},
       "perfhound: --json: flags go after the command name ('perfhound stats --json ...')\n"},
      {{"--json", "stats"}, "perfhound: --json: flags go after the command name ('perfhound stats --json ...')\n"},
      // ... unless the command has no such flag either.
      {{"--nosuch", "stats", "x.txt"},
       "perfhound: --nosuch: not a flag of perfhound stats (see 'perfhound stats --help')\n"},
  };
  for (const auto& [args, expected] : cases) {
    const CliRun r = run(args);
    EXPECT_EQ(r.code, 2) << args.back();
    EXPECT_EQ(r.err, expected);
  }
}

// A flag given an empty value (a script's unset variable) is refused, never read as left out: load --url "" tested
// the embedded simulator instead of the server meant. Each is one line naming the flag, before anything runs.
TEST(Cli, AnEmptyValueIsRefusedNotLeftOut) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"load", "--url", ""}, "perfhound load: --url: empty"},
      {{"load", "--slo", "", "--requests", "1"}, "perfhound load: --slo: empty"},
      {{"mfu", "--model", "llama-3-8b", "--hw", "h200-sxm", "--phase", "decode", "--tpot", ""}, "perfhound mfu: --tpot: empty"},
      {{"serve", "--port", ""}, "perfhound serve: --port: empty"},
  };
  for (const auto& [args, expected] : cases) {
    const CliRun r = run(args);
    EXPECT_TRUE(is_one_line_error(r, {expected, ": empty; give a value or leave the flag out\n"}));
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  // An empty argument of the program record runs is the program's, not refused as an empty flag.
  const std::string trace = (std::filesystem::temp_directory_path() / "perfhound_cli_test_empty_arg.json").string();
  const CliRun record = run({"record", "-o", trace, "--", "/bin/sh", "-c", "test -z \"$1\"", "sh", ""});
  EXPECT_THAT(record.err, Not(HasSubstr(": empty;"))) << record.err;
  std::filesystem::remove(trace);
}

// An output flag that names an input would replace what was measured with the result (merge --records onto a
// shard, stats -o onto its samples): refused before anything is read or written, the input left as it was.
TEST(Cli, AnOutputThatIsAnInputIsRefused) {
  const std::string in = temp_file("input.txt", "kept\n");
  const std::string other = temp_file("other.txt", "kept\n");
  const std::string link = in + ".link";
  std::filesystem::remove(link);
  std::filesystem::create_hard_link(in, link);  // another name, the same file
  const std::vector<std::vector<std::string>> cases = {
      {"stats", in, "-o", in},
      {"stats", in, "-o", link},
      {"merge", in, other, "--records", other},
      {"merge", in, other, "-o", in},
      {"merge", in, other, "--records", link, "-o", in},
      {"report", in, "-o", link},
      {"roofline", "--ncu", in, "--chart", in},
      {"roofline", "--ncu", in, "-o", in},
      {"audit", in, "-o", in},
      {"compare", in, other, "-o", other},
      {"load", "--dataset", in, "--records", in},
      {"load", "--dataset", in, "-o", link},
      {"sweep", "--concurrency", "1", "--dataset", in, "-o", in},
      {"trace", in, "-o", link},
      {"trace", in, "--annotate", in},
  };
  for (const auto& args : cases) {
    const CliRun r = run(args);
    EXPECT_TRUE(is_one_line_error(r, {"is the input '"})) << args[0] << " " << args.back();
  }
  // Two outputs on one file (the second write would replace the first): said as that, not as an input.
  const std::vector<std::pair<std::vector<std::string>, std::string>> two_outputs = {
      {{"load", "--records", other, "-o", other}, "--records and -o name one file ('" + other + "')"},
      {{"merge", in, "--records", other, "-o", other}, "--records and -o name one file ('" + other + "')"},
      {{"trace", in, "--annotate", other, "-o", other}, "--annotate and -o name one file ('" + other + "')"},
  };
  for (const auto& [args, expected] : two_outputs) {
    EXPECT_TRUE(is_one_line_error(run(args), {expected})) << args[0];
  }
  std::ifstream kept(in);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(kept), {}), "kept\n");
  for (const auto& p : {in, other, link}) std::filesystem::remove(p);
}

// Values past what the machine or the simulator can hold are refused up front, one line each: each of these aborted
// (a time scale that rounds a step to 0 ns, 100000001-token prompts), ran out of memory (2^31 slots, 2^31 running
// sequences) or would have failed a sweep minutes in.
TEST(Cli, OutOfRangeLoadsAreRefusedBeforeTheyRun) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"load", "--requests", "5", "--sim-time-scale", "1e15"}, "--sim-time-scale: must be 0.001 to 1e+06, got 1e+15"},
      {{"load", "--requests", "5", "--sim-time-scale", "1e-300"}, "--sim-time-scale: must be 0.001 to 1e+06"},
      {{"load", "--requests", "5", "--concurrency", "2147483648"}, "--concurrency: must be 1 to 100000"},
      {{"sweep", "--concurrency", "1,100001", "--out", "/nonexistent/never-made"}, "--concurrency: 100001 is over the 100000"},
      {{"sweep", "--rate", "auto", "--auto-concurrency", "2147483647"}, "--auto-concurrency: must be 1 to 100000"},
      {{"audit", "--live", "--requests", "8", "--input-len", "100000001"}, "--input-len: at most 100000000 tokens"},
      {{"audit", "--live", "--requests", "8", "--concurrency", "2147483647"}, "--concurrency: at most 100000"},
      {{"serve", "--max-num-seqs", "2147483647"}, "--max-num-seqs: must be 1 to 1000000"},
      {{"load", "--dataset", "data/load/generic_trace.csv", "--trace-speedup", "1e-300"},
       "--trace-speedup: must be 1e-06 to 1e+06, got 1e-300"},
      {{"load", "--dataset", "data/load/generic_trace.csv", "--trace-speedup", "inf"},
       "--trace-speedup: must be 1e-06 to 1e+06, got inf"},
      // Past 2^64: std::stoull threw ("unexpected error: stoull").
      {{"load", "--warmup", "18446744073709551616", "--requests", "1"}, "--warmup: 18446744073709551616 requests is more"},
      // A 3-hour trace slowed a millionfold: past the nanosecond clock (it replayed 3 requests as 1).
      {{"load", "--dataset", temp_file("long.csv", "timestamp_s,input_tokens,output_tokens\n0,16,4\n10800,16,4\n"),
        "--trace-speedup", "1e-6"},
       "the arrival trace"},
      {{"stats", temp_file("two.txt", "1\n2\n"), "--column", "99999999999999999999999"},
       "--column 99999999999999999999999 is out of range (the line has 1 column)"},
  };
  for (const auto& [args, expected] : cases) {
    const CliRun r = run(args);
    EXPECT_TRUE(is_one_line_error(r, {expected}));
  }
}

// Flags that shape an open loop's arrivals mean nothing without --rate; they were dropped without a word.
TEST(Cli, OpenLoopFlagsWithoutARateAreRefused) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"load", "--arrival", "gamma", "--requests", "3"}, "perfhound load: --arrival: shapes an open loop's arrivals"},
      {{"load", "--concurrency", "4", "--burstiness", "0.5"}, "perfhound load: --burstiness: shapes an open loop's"},
      {{"load", "--ramp-start-rate", "2", "--ramp-up", "5s"}, "perfhound load: --ramp-start-rate: shapes"},
      {{"sweep", "--concurrency", "1,2", "--arrival", "constant"}, "perfhound sweep: --arrival: shapes an open loop's"},
      // Two more flags that were dropped without a word.
      {{"load", "--metrics-path", "/m", "--requests", "2"}, "perfhound load: --metrics-path: scraped during a --soak only"},
      // (--metrics-path none, the documented way to turn scraping off, stays accepted: below.)
      {{"audit", "claim.yaml", "--list-rules"}, "perfhound audit: --list-rules lists the rules and audits nothing"},
  };
  for (const auto& [args, expected] : cases) {
    const CliRun r = run(args);
    EXPECT_TRUE(is_one_line_error(r, {expected}));
  }
  const CliRun none = run({"load", "--metrics-path", "none", "--requests", "1", "--sim-fixed-step-time", "100us",
                           "--input-len", "4", "--output-len", "2", "--quiet"});
  EXPECT_THAT(none.err, Not(HasSubstr("--metrics-path"))) << none.err;
}

// A flag given that the run would not use was dropped without a word: a prompt length beside a dataset that has its
// own, a simulator flag beside the --url that replaces the simulator, --points in a sweep that plans no rates.
// Refused, naming the flag, before any target is started; the same flags where they apply are accepted.
TEST(Cli, FlagsThatDoNotApplyAreRefused) {
  const std::string trace = "data/load/generic_trace.csv";  // timestamp_s,input_tokens,output_tokens
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"load", "--dataset", trace, "--input-len", "512"},
       "perfhound load: --input-len: the --dataset's prompts have their own lengths"},
      {{"load", "--dataset", "data/load/sharegpt_small.json", "--input-len", "1024"}, "--input-len: the --dataset's"},
      {{"load", "--dataset", trace, "--output-len", "64"},
       "--output-len: an arrival trace gives each request's output length"},
      {{"load", "--dataset", "data/load/sharegpt_small.json", "--prompt-token-ids"},
       "--prompt-token-ids: the sharegpt dataset's prompts are text"},
      {{"load", "--dataset-format", "jsonl", "--requests", "1"}, "--dataset-format: says how to read --dataset"},
      {{"load", "--concurrency", "4", "--max-concurrency", "2"}, "--max-concurrency: caps an open loop's requests"},
      {{"load", "--requests", "3", "--trace-speedup", "2"}, "--trace-speedup: paces an arrival-trace replay"},
      {{"load", "--dataset", trace, "--concurrency", "2", "--trace-speedup", "2"}, "--trace-speedup: paces"},
      // Given at its default value, still not applied: it is the giving that is refused.
      {{"load", "--concurrency", "2", "--arrival", "poisson"}, "--arrival: shapes an open loop's arrivals"},
      {{"load", "--url", "http://127.0.0.1:1", "--sim-hw", "h100-sxm"},
       "perfhound load: --sim-hw: configures the embedded server, which --url replaces"},
      {{"audit", "--live", "--url", "http://127.0.0.1:1", "--sim-tp", "2"}, "perfhound audit: --sim-tp: configures"},
      {{"sweep", "--concurrency", "1,2", "--points", "3"}, "perfhound sweep: --points: plans a --rate auto sweep"},
      {{"sweep", "--rate", "1,2", "--auto-concurrency", "8"}, "--auto-concurrency: plans a --rate auto sweep"},
      {{"sweep", "--concurrency", "1,2", "--max-concurrency", "4"}, "perfhound sweep: --max-concurrency: caps"},
      // A Mooncake .jsonl trace is read as prompts unless told: the flags that show a trace was meant say how.
      {{"load", "--dataset", "data/load/mooncake_trace.jsonl", "--trace-speedup", "10"},
       "(a .jsonl arrival trace needs --dataset-format trace)"},
      {{"load", "--dataset", trace, "--ramp-up", "1s"}, "--ramp-up: a replayed trace keeps its own times"},
      {{"load", "--max-concurrency", "0", "--requests", "1"}, "--max-concurrency: caps an open loop's"},
      {{"load", "--metrics-path", "/metrics", "--requests", "1"}, "--metrics-path: scraped during a --soak only"},
      // Refused before the sweep makes its --out folder.
      {{"sweep", "--concurrency", "1", "--url", "http://127.0.0.1:1", "--sim-tp", "2", "--out", "never-made-sweep"},
       "perfhound sweep: --sim-tp: configures the embedded server"},
      // Auditing a file sends nothing: the live checks' flags beside it are refused.
      {{"audit", "data/audit/perfhound_load_clean.json", "--requests", "9"},
       "perfhound audit: --requests: a flag of the live checks; auditing 'data/audit/perfhound_load_clean.json'"},
      {{"audit", "data/audit/perfhound_load_clean.json", "--sim-tp", "2"}, "--sim-tp: a flag of the live checks"},
      {{"audit", "--list-rules", "--requests", "5"}, "--requests: a flag of the live checks; listing the rules sends"},
      // A concurrency no client holds is said before the target: it had been said only after GET /v1/models.
      {{"load", "--url", "http://127.0.0.1:1", "--concurrency", "0"}, "--concurrency: must be 1 to 100000"},
  };
  for (const auto& [args, expected] : cases) {
    EXPECT_TRUE(is_one_line_error(run(args), {expected}));
  }
  EXPECT_FALSE(std::filesystem::exists("never-made-sweep"));
  const std::vector<std::string> quick = {"--sim-fixed-step-time", "100us", "--warmup", "0", "--quiet"};
  const auto with_quick = [&](std::vector<std::string> args) {
    args.insert(args.end(), quick.begin(), quick.end());
    return args;
  };
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"load", "--dataset", trace, "--trace-speedup", "1000"},
           {"load", "--dataset", trace, "--prompt-token-ids", "--endpoint", "completions", "--trace-speedup", "1000"},
           {"load", "--rate", "200", "--max-concurrency", "2", "--requests", "3", "--input-len", "4", "--output-len",
            "2"},
           {"load", "--dataset", "data/load/prompts.jsonl", "--output-len", "3", "--requests", "2"},
           {"load", "--dataset", "data/load/mooncake_trace.jsonl", "--dataset-format", "trace", "--trace-speedup",
            "1000"},
       }) {
    const CliRun r = run(with_quick(args));
    EXPECT_NE(r.code, 2) << r.err;
    EXPECT_THAT(r.out, HasSubstr("measured requests")) << r.err;
  }
}

// report's -o named for another format than --format: an SVG written into r.png opened as neither.
TEST(Cli, ReportOutputNamedForAnotherFormatIsRefused) {
  const std::string in = temp_file("report_in.json", "{}");
  for (const auto& [format, out, expected] : {std::tuple{"svg", "r.png", "-o 'r.png' is named .png, but --format is svg"},
                                              {"html", "r.svg", "-o 'r.svg' is named .svg, but --format is html"},
                                              {"png", "r.htm", "-o 'r.htm' is named .htm, but --format is png"}}) {
    const CliRun r = run({"report", in, "--format", format, "-o", out});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr(expected));
  }
  std::filesystem::remove(in);
}

TEST(Cli, EveryFlagHasHelp) {
  BuiltApp built = build_app();
  for (const CLI::App* sub : built.app->get_subcommands({})) {
    EXPECT_FALSE(sub->get_description().empty()) << sub->get_name();
    for (const CLI::Option* opt : sub->get_options()) {
      EXPECT_FALSE(opt->get_description().empty()) << sub->get_name() << " " << opt->get_name();
    }
  }
}

// Expected values: numpy 1.24, `numpy.percentile(numpy.arange(1, 101), [50, 90, 95, 99, 99.9])` =
// [50.5, 90.1, 95.05, 99.01, 99.901]; mean 50.5, `numpy.std(numpy.arange(1, 101), ddof=1)` = 29.011491975882016.
TEST(CliStats, JsonSummaryOfOneToHundred) {
  const CliRun r = run({"stats", temp_file("1to100.txt", one_to_hundred()), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["kind"], "perfhound.stats");
  const auto& res = doc["result"];
  EXPECT_EQ(res["count"], 100);
  EXPECT_DOUBLE_EQ(res["mean"], 50.5);
  EXPECT_NEAR(res["stddev"].get<double>(), 29.011491975882016, 1e-12);
  EXPECT_DOUBLE_EQ(res["p50"], 50.5);
  EXPECT_NEAR(res["p90"].get<double>(), 90.1, 1e-12);
  EXPECT_NEAR(res["p95"].get<double>(), 95.05, 1e-12);
  EXPECT_NEAR(res["p99"].get<double>(), 99.01, 1e-12);
  EXPECT_NEAR(res["p99_9"].get<double>(), 99.901, 1e-12);
  EXPECT_EQ(res["min"], 1);
  EXPECT_EQ(res["max"], 100);
  const auto& ci = res["confidence_intervals"]["p50"];
  EXPECT_LE(ci["lo"].get<double>(), 50.5);
  EXPECT_GE(ci["hi"].get<double>(), 50.5);
  EXPECT_EQ(doc["conditions"]["parameters"]["warmup_discarded"], 0);
  EXPECT_EQ(doc["conditions"]["parameters"]["source"], temp_file("1to100.txt", one_to_hundred()));  // no quotes
  EXPECT_EQ(doc["conditions"]["parameters"]["bootstrap"]["seed"], 1);
  // 100 samples is enough for p99 but not for p99.9, nothing was discarded as warm-up, and 1..100 has a
  // coefficient of variation of 29.0115 / 50.5 = 0.574, above the 0.2 threshold.
  ASSERT_EQ(doc["diagnostics"].size(), 3u);
  EXPECT_EQ(doc["diagnostics"][0]["id"], "few-samples-for-tail");
  EXPECT_EQ(doc["diagnostics"][0]["message"], "p99.9 (needs 1000) from 100 samples");
  EXPECT_EQ(doc["diagnostics"][1]["id"], "no-warmup-discarded");
  EXPECT_EQ(doc["diagnostics"][2]["id"], "high-variability");
  EXPECT_EQ(doc["diagnostics"][2]["message"], "coefficient of variation 0.57");
}

// numpy.percentile(numpy.arange(11, 101), 50) = 55.5 after discarding the first 10 samples.
TEST(CliStats, WarmupIsDiscardedAndReported) {
  const CliRun r = run({"stats", temp_file("1to100w.txt", one_to_hundred()), "--warmup", "10", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["result"]["count"], 90);
  EXPECT_EQ(doc["result"]["warmup_discarded"], 10);
  EXPECT_DOUBLE_EQ(doc["result"]["p50"], 55.5);
  EXPECT_EQ(doc["result"]["min"], 11);
}

TEST(CliStats, TimeUnitsBecomeSecondsInJsonAndReadableInText) {
  const std::string f = temp_file("us.txt", "dur_us\n1000\n2000\n3000\n");
  CliRun r = run({"stats", f, "--unit", "us", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["result"]["unit"], "s");
  EXPECT_DOUBLE_EQ(doc["result"]["p50_s"], 2e-3);
  EXPECT_EQ(doc["conditions"]["parameters"]["column"], "dur_us");
  r = run({"stats", f, "--unit", "us"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("p50        2.00 ms  [1.00 ms, 3.00 ms]\n"));
  EXPECT_THAT(r.out, HasSubstr("conditions:"));
  EXPECT_THAT(r.out, HasSubstr("warning [few-samples-for-tail]"));
}

TEST(CliStats, OutputFileGetsTheJsonDocument) {
  const std::string out = (std::filesystem::temp_directory_path() / "perfhound_cli_test_out.json").string();
  std::filesystem::remove(out);
  const CliRun r = run({"stats", temp_file("o.txt", one_to_hundred()), "-o", out});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("p50"));  // the table still goes to stdout
  std::ifstream in(out);
  const auto doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["kind"], "perfhound.stats");
  EXPECT_DOUBLE_EQ(doc["result"]["p50"], 50.5);
}

// A stats document is a micro-benchmark to audit: the hardware is the one condition it needs, and only the user
// knows it. Without --hardware audit fails it and names the flag; with it, conditions-missing is gone.
TEST(CliStats, HardwareIsStatedForAudit) {
  const std::string samples = temp_file("hw.txt", one_to_hundred());
  const std::string with = (std::filesystem::temp_directory_path() / "perfhound_cli_test_hw_with.json").string();
  const std::string without = (std::filesystem::temp_directory_path() / "perfhound_cli_test_hw_without.json").string();
  ASSERT_EQ(run({"stats", samples, "--unit", "ms", "--warmup", "5", "--hardware", "NVIDIA H200", "-o", with}).code, 0);
  ASSERT_EQ(run({"stats", samples, "--unit", "ms", "--warmup", "5", "-o", without}).code, 0);
  std::ifstream in(with);
  EXPECT_EQ(nlohmann::json::parse(in)["conditions"]["parameters"]["hardware"], "NVIDIA H200");
  const CliRun stated = run({"audit", with});
  EXPECT_EQ(stated.code, 0) << stated.out;
  EXPECT_THAT(stated.out, Not(HasSubstr("conditions-missing")));
  const CliRun unstated = run({"audit", without});
  EXPECT_EQ(unstated.code, 1) << unstated.out;
  EXPECT_THAT(unstated.out, HasSubstr("hardware is not stated"));
  EXPECT_THAT(unstated.out, HasSubstr("perfhound stats states what the samples were measured on with --hardware"));
  const CliRun blank = run({"stats", samples, "--hardware", ""});
  EXPECT_EQ(blank.code, 2);
  EXPECT_THAT(blank.err, HasSubstr("--hardware: empty"));
  for (const std::string& bad : {std::string("\v"), std::string("H200\v"), std::string("H200\nH100")}) {
    const CliRun r = run({"stats", samples, "--hardware", bad});
    EXPECT_TRUE(is_one_line_error(r, {"--hardware"})) << bad;
  }
  std::filesystem::remove(with);
  std::filesystem::remove(without);
}

TEST(CliStats, BadInputIsOneLineExitTwo) {
  const std::string bad = temp_file("bad.txt", "1\n2\nthree\n");
  CliRun r = run({"stats", bad});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "perfhound stats: '" + bad + "' line 3: cannot parse 'three' as a number in column 1\n");
  r = run({"stats", "/nonexistent/x.txt"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("cannot open '/nonexistent/x.txt'"));
  r = run({"stats", bad, "--unit", "furlongs"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("--unit"));
  r = run({"stats", temp_file("header_only.txt", "latency_ms\n")});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("holds no numbers in 'latency_ms'"));
  r = run({"stats", temp_file("two.txt", "1\n2\n"), "--warmup", "2"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("--warmup 2 discards all 2 samples"));
  r = run({"stats", temp_file("o2.txt", "1\n2\n"), "-o", "/nonexistent/dir/out.json"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("-o: cannot write '/nonexistent/dir/out.json'"));
  // A folder where a file belongs read as an empty file ("not JSON: line 1, column 1").
  const std::string folder = std::filesystem::temp_directory_path().string();
  r = run({"report", folder});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("'" + folder + "' is a folder, not a file"));
  r = run({"stats", folder});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "perfhound stats: '" + folder + "' is a folder: give a file of samples\n");
}

}  // namespace
}  // namespace perfhound::cli
