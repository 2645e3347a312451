// parse_prometheus_text: a hand-written exposition with the format's edge cases, bad lines with the error
// each must give, and the real output of our server's PrometheusWriter read back.
#include "load/prometheus_text.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "serve/prometheus_writer.h"

namespace perfhound::load {
namespace {

using ::testing::HasSubstr;

TEST(PrometheusText, HandWrittenExposition) {
  const std::string text =
      "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.\n"
      "# TYPE vllm:num_requests_waiting gauge\n"
      "vllm:num_requests_waiting{model_name=\"llama 3, 8b\",engine=\"0\"} 4.0\n"
      "vllm:num_requests_waiting{model_name=\"llama 3, 8b\",engine=\"1\"} 3\n"
      "\n"
      "# a free comment, then a blank line with spaces and a tab\n"
      "   \t \n"
      "up 1\n"
      "weird{a=\"say \\\"hi\\\"\", b=\"{not} a brace\",c=\"x\\\\y\\nz\",} -2.5e-3 1712345678901\n"
      "  spaced  {  a = \"1\" ,  b=\"2\"  }   7   -12  \n"
      "inf_pos +Inf\n"
      "inf_neg -Inf\n"
      "not_a_number NaN\n"
      "empty_labels{} 0\r\n"
      "crlf_line 42\r\n"
      "# EOF\n"
      "last_line_without_newline .5";
  const auto parsed = parse_prometheus_text(text);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const auto& s = *parsed;
  ASSERT_EQ(s.size(), 11u);

  EXPECT_EQ(s[0].name, "vllm:num_requests_waiting");
  EXPECT_EQ(s[0].labels, "model_name=\"llama 3, 8b\",engine=\"0\"");
  EXPECT_DOUBLE_EQ(s[0].value, 4.0);
  EXPECT_EQ(s[1].labels, "model_name=\"llama 3, 8b\",engine=\"1\"");
  EXPECT_DOUBLE_EQ(s[1].value, 3.0);

  EXPECT_EQ(s[2].name, "up");
  EXPECT_EQ(s[2].labels, "");
  EXPECT_DOUBLE_EQ(s[2].value, 1.0);

  // Raw labels keep the escapes, the blank after the comma and the trailing comma; the '}' inside a quoted
  // value does not end the label set; the timestamp is dropped.
  EXPECT_EQ(s[3].name, "weird");
  EXPECT_EQ(s[3].labels, "a=\"say \\\"hi\\\"\", b=\"{not} a brace\",c=\"x\\\\y\\nz\",");
  EXPECT_DOUBLE_EQ(s[3].value, -0.0025);

  EXPECT_EQ(s[4].name, "spaced");
  EXPECT_EQ(s[4].labels, "  a = \"1\" ,  b=\"2\"  ");
  EXPECT_DOUBLE_EQ(s[4].value, 7.0);

  EXPECT_TRUE(std::isinf(s[5].value) && s[5].value > 0);
  EXPECT_TRUE(std::isinf(s[6].value) && s[6].value < 0);
  EXPECT_TRUE(std::isnan(s[7].value));
  EXPECT_EQ(s[8].name, "empty_labels");
  EXPECT_EQ(s[8].labels, "");
  EXPECT_DOUBLE_EQ(s[8].value, 0.0);
  EXPECT_EQ(s[9].name, "crlf_line");
  EXPECT_DOUBLE_EQ(s[9].value, 42.0);
  EXPECT_EQ(s[10].name, "last_line_without_newline");
  EXPECT_DOUBLE_EQ(s[10].value, 0.5);

  // 4 + 3 over the two engines; absent names give nullopt.
  EXPECT_EQ(sum_samples(s, "vllm:num_requests_waiting"), 7.0);
  EXPECT_EQ(sum_samples(s, "up"), 1.0);
  EXPECT_EQ(sum_samples(s, "vllm:num_requests_running"), std::nullopt);
  EXPECT_EQ(sum_samples(s, "vllm:num_requests"), std::nullopt);  // whole names only
  EXPECT_TRUE(std::isnan(*sum_samples(s, "not_a_number")));
}

TEST(PrometheusText, EmptyAndCommentOnlyTextHasNoSamples) {
  EXPECT_TRUE(parse_prometheus_text("")->empty());
  EXPECT_TRUE(parse_prometheus_text("# HELP x X.\n# TYPE x gauge\n\n")->empty());
}

TEST(PrometheusText, ValueSpellings) {
  // strconv.ParseFloat's forms: exponent, leading dot, trailing dot, sign, any-case Inf / NaN.
  const auto parsed = parse_prometheus_text("a 1e3\nb -.25\nc 5.\nd +7\ne inf\nf -infinity\ng nan\nh 1E-2\n");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const auto& s = *parsed;
  ASSERT_EQ(s.size(), 8u);
  EXPECT_DOUBLE_EQ(s[0].value, 1000.0);
  EXPECT_DOUBLE_EQ(s[1].value, -0.25);
  EXPECT_DOUBLE_EQ(s[2].value, 5.0);
  EXPECT_DOUBLE_EQ(s[3].value, 7.0);
  EXPECT_TRUE(std::isinf(s[4].value) && s[4].value > 0);
  EXPECT_TRUE(std::isinf(s[5].value) && s[5].value < 0);
  EXPECT_TRUE(std::isnan(s[6].value));
  EXPECT_DOUBLE_EQ(s[7].value, 0.01);
}

struct BadCase {
  std::string text;
  std::string error;
};

TEST(PrometheusText, ErrorsNameTheLineAndTheProblem) {
  const std::string ok = "# HELP g G.\n# TYPE g gauge\ng 1\n";  // three good lines, then the bad one
  const std::vector<BadCase> cases = {
      {ok + "vllm:x{model_name=\"m\"}\n", "line 4: expected a value after 'vllm:x{...}'"},
      {ok + "vllm:x{model_name=\"m\"}   \n", "line 4: expected a value after 'vllm:x{...}'"},
      {ok + "up\n", "line 4: expected a value after 'up'"},
      {ok + "up 12x\n", "line 4: cannot parse '12x' as the value of 'up' (use a number, +Inf, -Inf or NaN)"},
      {ok + "up +-1\n", "line 4: cannot parse '+-1' as the value of 'up'"},
      {ok + "up 0x10\n", "line 4: cannot parse '0x10' as the value of 'up'"},
      {ok + "up 1 12.5\n", "line 4: cannot parse '12.5' as the timestamp of 'up'"},
      {ok + "up 1 +-5\n", "line 4: cannot parse '+-5' as the timestamp of 'up'"},
      {ok + "up 1 100 extra\n", "line 4: unexpected 'extra' after the timestamp of 'up'"},
      {ok + "9lives 1\n", "line 4: expected a metric name, found '9lives'"},
      {ok + "{a=\"b\"} 1\n", "line 4: expected a metric name, found '{a=\"b\"}'"},
      {ok + "foo-bar 1\n", "line 4: unexpected '-' after metric name 'foo'"},
      {ok + "x{a=\"b\" 1\n", "line 4: expected ',' or '}' after the value of label 'a' in the labels of 'x'"},
      {ok + "x{a=\"b\"\n", "line 4: missing '}' in the labels of 'x'"},
      {ok + "x{a=\"b} 1\n", "line 4: unterminated value of label 'a' in the labels of 'x'"},
      {ok + "x{a=\"b\\\"} 1\n", "line 4: unterminated value of label 'a'"},
      {ok + "x{a=\"b\\\n", "line 4: unterminated value of label 'a'"},
      {ok + "x{a=b} 1\n", "line 4: expected '\"' to open the value of label 'a' in the labels of 'x'"},
      {ok + "x{a} 1\n", "line 4: expected '=' after label name 'a' in the labels of 'x'"},
      {ok + "x{,a=\"b\"} 1\n", "line 4: expected a label name or '}' in the labels of 'x', found ',a=\"b\"}'"},
      {ok + "x{a=\"b\",,} 1\n", "line 4: expected a label name or '}' in the labels of 'x', found ',}'"},
      {ok + "x{a:b=\"c\"} 1\n", "line 4: expected '=' after label name 'a'"},
      {ok + "x{a=\"tab\\t\"} 1\n", "line 4: invalid escape '\\t' in the value of label 'a' (use \\\\, \\\" or \\n)"},
      // CRLF line endings count lines the same way.
      {"# HELP g G.\r\n\r\ng 1\r\nup\r\n", "line 4: expected a value after 'up'"},
  };
  for (const auto& c : cases) {
    const auto parsed = parse_prometheus_text(c.text);
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_THAT(parsed.error().message, HasSubstr(c.error)) << c.text;
  }
}

TEST(PrometheusText, ReadsWhatOurServerWrites) {
  namespace vm = serve::vllm_metrics;
  serve::PrometheusWriter w;
  // A model name with the characters the writer escapes and a brace and comma the parser must not split on.
  const std::string model = "my \"model\", {v2}\\x";
  const serve::PrometheusLabels engine0 = {{vm::kModelNameLabel, model}, {vm::kEngineLabel, "0"}};
  const serve::PrometheusLabels engine1 = {{vm::kModelNameLabel, model}, {vm::kEngineLabel, "1"}};
  w.gauge(vm::kNumRequestsWaiting, vm::kNumRequestsWaitingHelp, engine0, 3);
  w.gauge(vm::kNumRequestsWaiting, vm::kNumRequestsWaitingHelp, engine1, 2);
  w.gauge(vm::kKvCacheUsagePerc, vm::kKvCacheUsagePercHelp, engine0, 0.25);
  w.counter(vm::kGenerationTokensTotal, vm::kGenerationTokensTotalHelp, engine0, 1e20);
  // Observations 0.05, 0.2, 0.3, 0.7, 3.0 (sum 4.25): per-bucket counts 1, 2, 1 for bounds 0.1, 0.5, 1.
  const std::array<double, 3> bounds = {0.1, 0.5, 1.0};
  const std::array<std::uint64_t, 3> counts = {1, 2, 1};
  w.histogram(vm::kTimeToFirstTokenSeconds, vm::kTimeToFirstTokenSecondsHelp, engine0, bounds, counts, 4.25, 5);

  const auto parsed = parse_prometheus_text(w.str());
  ASSERT_TRUE(parsed.ok()) << parsed.error().message << "\n" << w.str();
  const auto& s = *parsed;
  // 2 waiting + 1 cache usage + 1 counter + (3 buckets + the +Inf bucket + sum + count) = 10.
  ASSERT_EQ(s.size(), 10u);
  // The writer escapes " and \ in the value: my \"model\", {v2}\\x.
  const std::string labels0 = "model_name=\"my \\\"model\\\", {v2}\\\\x\",engine=\"0\"";
  EXPECT_EQ(s[0].name, "vllm:num_requests_waiting");
  EXPECT_EQ(s[0].labels, labels0);
  EXPECT_EQ(sum_samples(s, vm::kNumRequestsWaiting), 5.0);  // 3 + 2
  EXPECT_EQ(sum_samples(s, vm::kKvCacheUsagePerc), 0.25);
  EXPECT_EQ(sum_samples(s, vm::kGenerationTokensTotal), 1e20);  // written as "1e+20"
  // Cumulative buckets 1, 3, 4, then +Inf = count = 5.
  EXPECT_EQ(sum_samples(s, "vllm:time_to_first_token_seconds_bucket"), 1.0 + 3 + 4 + 5);
  EXPECT_EQ(s[5].labels, labels0 + ",le=\"0.5\"");
  EXPECT_EQ(s[5].value, 3.0);
  EXPECT_EQ(s[7].labels, labels0 + ",le=\"+Inf\"");
  EXPECT_EQ(s[7].value, 5.0);
  EXPECT_EQ(sum_samples(s, "vllm:time_to_first_token_seconds_sum"), 4.25);
  EXPECT_EQ(sum_samples(s, "vllm:time_to_first_token_seconds_count"), 5.0);
}

}  // namespace
}  // namespace perfhound::load
