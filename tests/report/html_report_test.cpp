// perfhound report's pure part: the Vega-Lite specs built from result documents (report/report_charts.h),
// the envelope check (report/report_input.h) and the HTML page (report/html_report.h). The expected numbers
// are the ones written by hand into tests/data/report/*.json, not values computed by the code under test.
#include <fstream>
#include <functional>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <set>
#include <sstream>

#include "report/html_report.h"
#include "report/report_charts.h"
#include "report/report_input.h"

namespace perfhound::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::ordered_json;

ReportInput load_fixture(const std::string& name) {
  const std::string path = std::string(PERFHOUND_TEST_DATA) + "/report/" + name;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  auto input = parse_report_input(path, text.str());
  if (!input.ok()) ADD_FAILURE() << input.error().message;
  return std::move(input).value();
}

const Json& dataset(const ChartSpec& chart, const std::string& name) { return chart.spec.at("datasets").at(name); }

std::set<std::string> layer_names(const Json& spec) {
  std::set<std::string> names;
  for (const Json& layer : spec.at("layer")) names.insert(layer.at("name").get<std::string>());
  return names;
}

std::size_t count(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

// Stand-ins for the bundles: the page's structure is under test here, drawing is the browser test's.
const HtmlAssets kFakeAssets{"/* vega */", "/* vega-lite */",
                             "/* vega-embed */ var s = '</SCRIPT>';\n//# sourceMappingURL=vega-embed.min.js.map\n",
                             "vega 0.0.0, vega-lite 0.0.0, vega-embed 0.0.0"};

// ---- the goodput Pareto chart ----

TEST(ParetoChart, HoldsExactlyTheSweepPointsWithTheirValues) {
  const std::vector<ReportInput> inputs{load_fixture("sweep_concurrency.json")};
  const ChartSpec chart = chart_spec(ChartId::kPareto, inputs);
  ASSERT_TRUE(chart.has_data);
  EXPECT_TRUE(chart.notes.empty());
  const Json& points = dataset(chart, "pareto_points");
  // load, requests/s, output tokens/s, p95 TTFT (the SLO's ttft term is p95), in_slo: as in the fixture.
  struct Expected {
    double load, rps, tokens, latency;
    const char* label;
    const char* slo;
    const char* status;
  };
  const Expected expected[] = {{2, 1.9, 380, 0.12, "c=2", "within SLO", "VALID"},
                               {4, 3.7, 740, 0.15, "c=4", "within SLO", "VALID"},
                               {8, 7.0, 1400, 0.24, "c=8", "within SLO", "VALID"},
                               {16, 11.5, 2300, 0.45, "c=16", "within SLO", "VALID"},
                               {32, 12.6, 2520, 1.9, "c=32 (INVALID)", "outside SLO", "INVALID"}};  // said on the chart
  ASSERT_EQ(points.size(), std::size(expected));
  for (std::size_t i = 0; i < std::size(expected); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(points[i].at("run"), "sweep_concurrency");
    EXPECT_DOUBLE_EQ(points[i].at("load").get<double>(), expected[i].load);
    EXPECT_DOUBLE_EQ(points[i].at("requests_per_s").get<double>(), expected[i].rps);
    EXPECT_DOUBLE_EQ(points[i].at("output_tokens_per_s").get<double>(), expected[i].tokens);
    EXPECT_DOUBLE_EQ(points[i].at("latency_s").get<double>(), expected[i].latency);
    EXPECT_EQ(points[i].at("load_label"), expected[i].label);
    EXPECT_EQ(points[i].at("slo"), expected[i].slo);
    EXPECT_EQ(points[i].at("status"), expected[i].status);
  }
  EXPECT_EQ(points[4].at("client_limited"), true);

  const Json& slo = dataset(chart, "slo");
  ASSERT_EQ(slo.size(), 1u);
  EXPECT_DOUBLE_EQ(slo[0].at("lo").get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(slo[0].at("threshold_s").get<double>(), 0.5);

  const Json& knee = dataset(chart, "knee");
  ASSERT_EQ(knee.size(), 1u);
  EXPECT_EQ(knee[0].at("index"), 3);
  EXPECT_EQ(knee[0].at("label"), "knee (c=16)");
  EXPECT_DOUBLE_EQ(knee[0].at("requests_per_s").get<double>(), 11.5);
  EXPECT_DOUBLE_EQ(knee[0].at("latency_s").get<double>(), 0.45);
  EXPECT_EQ(knee[0].at("rule"), "max Kneedle difference of normalised p95 latency vs throughput");

  const Json& op = dataset(chart, "operating_point");
  ASSERT_EQ(op.size(), 1u);
  EXPECT_EQ(op[0].at("index"), 2);
  EXPECT_EQ(op[0].at("label"), "operating point (c=8)");
  EXPECT_DOUBLE_EQ(op[0].at("requests_per_s").get<double>(), 7.0);
  EXPECT_DOUBLE_EQ(op[0].at("latency_s").get<double>(), 0.24);
  EXPECT_DOUBLE_EQ(op[0].at("output_tokens_per_s").get<double>(), 1400);

  EXPECT_EQ(layer_names(chart.spec), (std::set<std::string>{"slo_box", "slo_threshold", "pareto_curve", "pareto_points",
                                                            "load_labels", "knee", "knee_label", "operating_point",
                                                            "operating_point_label"}));
  for (const Json& layer : chart.spec.at("layer")) {
    if (layer.at("name") == "pareto_points") {
      EXPECT_EQ(layer.at("encoding").at("x").at("field"), "requests_per_s");
      EXPECT_EQ(layer.at("encoding").at("x").at("title"), "achieved throughput (requests/s)");
      EXPECT_EQ(layer.at("encoding").at("y").at("title"), "p95 TTFT (s)");
    }
    if (layer.at("name") == "slo_box") {
      EXPECT_EQ(layer.at("mark").at("type"), "rect");
      EXPECT_EQ(layer.at("encoding").at("y").at("field"), "lo");
      EXPECT_EQ(layer.at("encoding").at("y2").at("field"), "threshold_s");
      EXPECT_FALSE(layer.at("encoding").contains("x"));  // the box spans the whole throughput axis
    }
  }
}

TEST(ParetoChart, PlotsTheSweepsPercentileAndNotesAnSloAtAnother) {
  ReportInput sweep = load_fixture("sweep_concurrency.json");
  sweep.document["result"]["slo"]["terms"][0]["percentile"] = 99;
  const std::vector<ReportInput> inputs{sweep};
  const ChartSpec chart = chart_spec(ChartId::kPareto, inputs);
  const Json& points = dataset(chart, "pareto_points");
  ASSERT_EQ(points.size(), 5u);
  EXPECT_DOUBLE_EQ(points[2].at("latency_s").get<double>(), 0.24);  // latency_percentile 95: c=8 p95_s
  EXPECT_THAT(chart.spec.dump(), HasSubstr("p95 TTFT (s)"));
  EXPECT_EQ(dataset(chart, "slo")[0].at("label"), "sweep_concurrency: p99 TTFT \u2264 500 ms");
  EXPECT_THAT(chart.notes, ::testing::Contains(HasSubstr("the SLO's TTFT term is at p99 and the curve at p95")));
}

TEST(ParetoChart, WithoutALatencyPercentileThePercentileTheSloNames) {
  ReportInput sweep = load_fixture("sweep_concurrency.json");
  sweep.document["result"].erase("latency_percentile");
  sweep.document["result"]["slo"]["terms"][0]["percentile"] = 99;
  const std::vector<ReportInput> inputs{sweep};
  const ChartSpec chart = chart_spec(ChartId::kPareto, inputs);
  const Json& points = dataset(chart, "pareto_points");
  ASSERT_EQ(points.size(), 5u);
  EXPECT_DOUBLE_EQ(points[2].at("latency_s").get<double>(), 0.31);  // c=8 p99_s
  EXPECT_DOUBLE_EQ(points[4].at("latency_s").get<double>(), 2.6);   // c=32 p99_s
  EXPECT_THAT(chart.spec.dump(), HasSubstr("p99 TTFT (s)"));
  EXPECT_TRUE(chart.notes.empty());
}

TEST(ParetoChart, PointsWithoutANumericLoadKeepTheSweepsLabel) {
  ReportInput sweep = load_fixture("sweep_concurrency.json");
  sweep.document["result"]["points"][4]["load"] = nullptr;
  sweep.document["result"]["points"][4]["label"] = "throughput";
  const std::vector<ReportInput> inputs{sweep};
  const ChartSpec chart = chart_spec(ChartId::kPareto, inputs);
  EXPECT_EQ(dataset(chart, "pareto_points")[4].at("load_label"), "throughput (INVALID)");  // point 4 is INVALID
  EXPECT_EQ(dataset(chart, "pareto_points")[4].at("index"), 4);
}

TEST(ParetoChart, WithoutSloThereIsNoBoxAndTheAxisIsP95) {
  ReportInput sweep = load_fixture("sweep_concurrency.json");
  sweep.document["result"]["slo"] = nullptr;
  for (Json& point : sweep.document["result"]["points"]) point.erase("in_slo");
  const std::vector<ReportInput> inputs{sweep};
  const ChartSpec chart = chart_spec(ChartId::kPareto, inputs);
  EXPECT_TRUE(dataset(chart, "slo").empty());
  EXPECT_EQ(layer_names(chart.spec).count("slo_box"), 0u);
  EXPECT_DOUBLE_EQ(dataset(chart, "pareto_points")[3].at("latency_s").get<double>(), 0.45);
  EXPECT_EQ(dataset(chart, "pareto_points")[3].at("slo"), "no SLO");
}

TEST(ParetoChart, KneeWithoutAPointSitsAtItsOwnCoordinatesAndMissingMarksAreNoted) {
  ReportInput sweep = load_fixture("sweep_concurrency.json");
  sweep.document["result"]["knee"]["index"] = nullptr;
  sweep.document["result"]["knee"]["throughput_rps"] = 10.0;
  sweep.document["result"]["knee"]["latency_s"] = 0.4;
  sweep.document["result"]["operating_point"]["index"] = 9;  // out of range
  sweep.document["result"]["points"][1]["summary"]["latency"]["from_sent"]["ttft"].erase("p95_s");
  const std::vector<ReportInput> inputs{sweep};
  const ChartSpec chart = chart_spec(ChartId::kPareto, inputs);
  const Json& knee = dataset(chart, "knee");
  ASSERT_EQ(knee.size(), 1u);
  EXPECT_DOUBLE_EQ(knee[0].at("requests_per_s").get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(knee[0].at("latency_s").get<double>(), 0.4);
  EXPECT_EQ(knee[0].at("label"), "knee (between points)");
  EXPECT_TRUE(dataset(chart, "operating_point").empty());
  EXPECT_EQ(dataset(chart, "pareto_points").size(), 4u);
  EXPECT_THAT(chart.notes, ::testing::Contains(HasSubstr("1 of 5 points have no requests/s or p95 TTFT")));
  EXPECT_THAT(chart.notes, ::testing::Contains(HasSubstr("operating point names no plotted point")));
}

TEST(ParetoChart, EverySweepIsItsOwnSeries) {
  ReportInput a = load_fixture("sweep_concurrency.json");
  ReportInput b = a;
  b.path = "elsewhere/sweep_concurrency.json";  // same file name: labelled by the whole path
  const std::vector<ReportInput> inputs{a, b, load_fixture("load_rate8.json")};
  const ChartSpec chart = chart_spec(ChartId::kPareto, inputs);
  std::set<std::string> runs;
  for (const Json& p : dataset(chart, "pareto_points")) runs.insert(p.at("run").get<std::string>());
  EXPECT_EQ(runs, (std::set<std::string>{a.path, b.path}));
  EXPECT_EQ(dataset(chart, "pareto_points").size(), 10u);
  EXPECT_EQ(dataset(chart, "knee").size(), 2u);
  EXPECT_EQ(dataset(chart, "slo").size(), 2u);
}

TEST(ParetoChart, NoSweepNoData) {
  const std::vector<ReportInput> inputs{load_fixture("load_rate8.json")};
  EXPECT_FALSE(chart_spec(ChartId::kPareto, inputs).has_data);
  EXPECT_EQ(default_chart(inputs), ChartId::kTtftCdf);
  const std::vector<ReportInput> with_sweep{load_fixture("load_rate8.json"), load_fixture("sweep_concurrency.json")};
  EXPECT_EQ(default_chart(with_sweep), ChartId::kPareto);
}

// ---- distributions ----

std::vector<std::pair<double, double>> cdf_of(const ChartSpec& chart, const std::string& name, const std::string& series) {
  std::vector<std::pair<double, double>> out;
  for (const Json& row : dataset(chart, name)) {
    if (row.at("series") == series) out.emplace_back(row.at("quantile").get<double>(), row.at("latency_s").get<double>());
  }
  return out;
}

TEST(CdfCharts, PointsAreTheRunsPercentilesFromTheLatencyItsConditionsName) {
  const std::vector<ReportInput> inputs{load_fixture("load_rate8.json"), load_fixture("load_concurrency12.json")};
  const ChartSpec ttft = chart_spec(ChartId::kTtftCdf, inputs);
  ASSERT_TRUE(ttft.has_data);
  // load_rate8: latency_from "intended send time", so summary.latency.from_intended.ttft.
  const std::vector<std::pair<double, double>> rate8{{0.0, 0.041},  {0.01, 0.045}, {0.05, 0.052}, {0.10, 0.058},
                                                     {0.25, 0.071}, {0.50, 0.090}, {0.75, 0.118}, {0.90, 0.152},
                                                     {0.95, 0.181}, {0.99, 0.260}, {0.999, 0.340}, {1.0, 0.372}};
  EXPECT_EQ(cdf_of(ttft, "ttft_cdf", "load_rate8"), rate8);
  // load_concurrency12: "actual send time", so from_sent (its from_intended p50 is 0.130, not 0.120).
  // load_concurrency12 is INVALID (client-limited): its series says so wherever it is drawn.
  const auto c12 = cdf_of(ttft, "ttft_cdf", "load_concurrency12 (INVALID)");
  ASSERT_EQ(c12.size(), 12u);
  EXPECT_EQ(c12[5], std::make_pair(0.50, 0.120));
  EXPECT_EQ(c12[9], std::make_pair(0.99, 0.380));

  const ChartSpec tpot = chart_spec(ChartId::kTpotCdf, inputs);
  const auto t8 = cdf_of(tpot, "tpot_cdf", "load_rate8");
  ASSERT_EQ(t8.size(), 12u);
  EXPECT_EQ(t8[8], std::make_pair(0.95, 0.0275));
  // Its p99_9_s is null: left out, not drawn as zero.
  const auto t12 = cdf_of(tpot, "tpot_cdf", "load_concurrency12 (INVALID)");
  ASSERT_EQ(t12.size(), 11u);
  EXPECT_EQ(t12.back(), std::make_pair(1.0, 0.054));
  EXPECT_EQ(t12[9], std::make_pair(0.99, 0.045));
}

TEST(CdfCharts, SeveralRunsAndSweepPointsOverlayAsSeries) {
  const std::vector<ReportInput> inputs{load_fixture("load_rate8.json"), load_fixture("load_concurrency12.json"),
                                        load_fixture("sweep_concurrency.json")};
  const ChartSpec ttft = chart_spec(ChartId::kTtftCdf, inputs);
  std::set<std::string> series;
  for (const Json& row : dataset(ttft, "ttft_cdf")) series.insert(row.at("series").get<std::string>());
  EXPECT_EQ(series, (std::set<std::string>{"load_rate8", "load_concurrency12 (INVALID)", "sweep_concurrency c=2",
                                           "sweep_concurrency c=4", "sweep_concurrency c=8", "sweep_concurrency c=16",
                                           "sweep_concurrency c=32 (INVALID)"}));
  // A sweep point reports p50, p95 and p99 (from_sent: the sweep is closed loop).
  EXPECT_EQ(cdf_of(ttft, "ttft_cdf", "sweep_concurrency c=16"),
            (std::vector<std::pair<double, double>>{{0.50, 0.21}, {0.95, 0.45}, {0.99, 0.62}}));
  for (const Json& layer : ttft.spec.at("layer")) EXPECT_EQ(layer.at("encoding").at("color").at("field"), "series");
}

// ---- over time ----

TEST(OverTimeCharts, LatencyAtWindowMidpointsAndNullsNoted) {
  const std::vector<ReportInput> inputs{load_fixture("load_rate8.json"), load_fixture("load_concurrency12.json")};
  const ChartSpec chart = chart_spec(ChartId::kLatencyOverTime, inputs);
  ASSERT_TRUE(chart.has_data);
  const Json& rows = dataset(chart, "latency_over_time");
  // load_rate8: 4 windows x 9 values; load_concurrency12: 2 windows x 9 (its third has only nulls).
  EXPECT_EQ(rows.size(), 4u * 9 + 2u * 9);
  bool found = false;
  for (const Json& r : rows) {
    if (r.at("series") == "load_rate8" && r.at("metric") == "TTFT" && r.at("percentile") == "p95" &&
        r.at("t_s").get<double>() == 7.5) {
      EXPECT_DOUBLE_EQ(r.at("latency_s").get<double>(), 0.175);
      found = true;
    }
  }
  EXPECT_TRUE(found);
  EXPECT_THAT(chart.notes, ::testing::Contains(HasSubstr("9 window latencies are null")));
  EXPECT_EQ(chart.spec.at("facet").at("row").at("field"), "metric");
}

TEST(OverTimeCharts, ConcurrencyFromBinsAndThroughputFromWindows) {
  const std::vector<ReportInput> inputs{load_fixture("load_rate8.json")};
  const ChartSpec chart = chart_spec(ChartId::kConcurrencyOverTime, inputs);
  const Json& rows = dataset(chart, "concurrency_over_time");
  ASSERT_EQ(rows.size(), 4u + 4u * 2);
  EXPECT_EQ(rows[0].at("quantity"), "requests in flight (mean)");
  EXPECT_DOUBLE_EQ(rows[0].at("t_s").get<double>(), 7.5);  // bin [0, 15): its middle
  EXPECT_DOUBLE_EQ(rows[0].at("value").get<double>(), 6.9);
  EXPECT_EQ(rows[4].at("quantity"), "completed requests/s");
  EXPECT_DOUBLE_EQ(rows[4].at("value").get<double>(), 7.87);
  EXPECT_EQ(rows[5].at("quantity"), "output tokens/s");
  EXPECT_DOUBLE_EQ(rows[5].at("value").get<double>(), 1574);
}

TEST(Charts, NamesRoundTripAndUnknownNamesListTheChoices) {
  for (const ChartInfo& c : chart_catalogue()) {
    const auto id = chart_from_name(c.name);
    ASSERT_TRUE(id.ok());
    EXPECT_EQ(*id, c.id);
  }
  const auto bad = chart_from_name("histogram");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "no chart named 'histogram' (charts: pareto, ttft_cdf, tpot_cdf, latency_over_time, "
                                 "concurrency_over_time)");
}

// ---- the envelope ----

TEST(ReportInputParse, MalformedJsonNamesTheFileAndPosition) {
  const auto r = parse_report_input("run.json", "{\"schema_version\": 1,\n \"kind\" \"perfhound.load\"}");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("'run.json': not JSON: line 2, column"));
  EXPECT_THAT(r.error().message, Not(HasSubstr("json.exception")));
  EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
}

TEST(ReportInputParse, OtherJsonIsNotAPerfhoundDocument) {
  for (const char* text : {"[1, 2]", "{\"hello\": 1}", "{\"schema_version\": 1, \"kind\": \"mlperf\"}",
                           "{\"schema_version\": 1, \"kind\": \"perfhound.load\", \"result\": {}}"}) {
    const auto r = parse_report_input("x.json", text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_THAT(r.error().message, HasSubstr("'x.json': not a perfhound result document")) << text;
  }
  const auto newer = parse_report_input(
      "new.json", R"({"schema_version": 2, "kind": "perfhound.load", "conditions": {}, "result": {}})");
  ASSERT_FALSE(newer.ok());
  EXPECT_THAT(newer.error().message, HasSubstr("schema_version 2 is newer than this perfhound reads (1)"));
  const auto ok = parse_report_input(
      "t.json", R"({"schema_version": 1, "kind": "perfhound.trace", "conditions": {}, "result": {}})");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->kind(), "perfhound.trace");
  EXPECT_TRUE(ok->diagnostics().empty());
}

// A load document whose figures are damaged is refused, naming the field: drawn, a text percentile vanished
// from its chart without a note, a negative latency was plotted, and a missing latency_from was read as the
// intended send time.
TEST(ReportInputParse, DamagedLoadFiguresAreRefusedNamingTheField) {
  const std::string path = std::string(PERFHOUND_TEST_DATA) + "/report/load_rate8.json";
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const Json good = Json::parse(text.str());
  const auto parsed = [](const Json& doc) { return parse_report_input("r.json", doc.dump()); };
  ASSERT_TRUE(parsed(good).ok());
  const std::vector<std::pair<std::function<void(Json&)>, std::string>> cases = {
      {[](Json& d) { d["result"]["summary"]["latency"]["from_intended"]["ttft"]["p50_s"] = "fast"; },
       "'r.json': result.summary.latency.from_intended.ttft.p50_s is not a number of 0 or more: \"fast\""},
      {[](Json& d) { d["result"]["summary"]["latency"]["from_intended"]["ttft"]["p50_s"] = -1; },
       "'r.json': result.summary.latency.from_intended.ttft.p50_s is not a number of 0 or more: -1"},
      {[](Json& d) { d["result"]["summary"]["throughput"]["requests_per_s"] = -2.5; },
       "'r.json': result.summary.throughput.requests_per_s is not a number of 0 or more: -2.5"},
      {[](Json& d) { d["result"]["summary"] = "x"; }, "'r.json': result.summary is a string, not an object"},
      {[](Json& d) { d["result"]["windows"] = 5; }, "'r.json': result.windows is a number, not an array"},
      {[](Json& d) { d["conditions"]["parameters"].erase("latency_from"); },
       "'r.json': conditions.parameters.latency_from is missing: 'intended send time' or 'actual send time'"},
  };
  for (const auto& [damage, message] : cases) {
    Json doc = good;
    damage(doc);
    const auto r = parsed(doc);
    ASSERT_FALSE(r.ok()) << message;
    EXPECT_EQ(r.error().message, message);
  }
  // A partial run's missing figure is null, not damage.
  Json partial = good;
  partial["result"]["summary"]["latency"]["from_intended"]["ttft"]["p99_9_s"] = nullptr;
  EXPECT_TRUE(parsed(partial).ok());
}

// A sweep states latency_from per point (older sweeps not at all: the mode decides); a stated one must be known.
TEST(ReportInputParse, ASweepsLatencyStartIsPerPointAndMayBeUnstated) {
  ReportInput sweep = load_fixture("sweep_concurrency.json");
  Json doc = sweep.document;
  doc["conditions"]["parameters"].erase("latency_from");
  EXPECT_TRUE(parse_report_input("s.json", doc.dump()).ok());
  doc["result"]["points"][1]["latency_from"] = "soon";
  const auto bad = parse_report_input("s.json", doc.dump());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "'s.json': result.points[1].latency_from is \"soon\": 'intended send time' or 'actual send time'");
}

// ---- the HTML page ----

TEST(HtmlReport, ConditionsBlockHoldsEveryKeyValueStatusAndDiagnostics) {
  const std::vector<ReportInput> inputs{load_fixture("load_rate8.json"), load_fixture("load_concurrency12.json")};
  const std::string html = render_html_report(inputs, kFakeAssets);
  for (const char* text : {"<th>model</th><td>meta-llama/Llama-3.1-8B-Instruct</td>",
                           "<th>latency_from</th><td>intended send time</td>",
                           "<th>latency_from</th><td>actual send time</td>",
                           "<th>load</th><td>Poisson arrivals at 8 requests/s</td>",
                           "<th>host.cpu_model</th><td>AMD EPYC 9654</td>",
                           "<th>tool.git_sha</th><td>f5bdae9</td>",
                           "<th>timestamp_utc</th><td>2025-06-02T10:00:00Z</td>",
                           "<th>command_line</th><td>perfhound load --url http://10.0.0.5:8000 --rate 8 --duration 60s</td>",
                           "<th>seed</th><td>1</td>",
                           "status <span class=\"status-valid\">VALID</span>",
                           "status <span class=\"status-invalid\">INVALID</span>",
                           "invalid: 2.1% of requests failed (limit 1%)",
                           "warning [few-samples-for-tail]: p99.9 from 478 samples (want &gt;= 1000)"}) {
    EXPECT_THAT(html, HasSubstr(text));
  }
  // The conditions come before the charts.
  EXPECT_LT(html.find("id=\"conditions\""), html.find("id=\"charts\""));
  EXPECT_THAT(html, HasSubstr("data-charts=\"4\""));  // no sweep: no Pareto chart
  EXPECT_THAT(html, HasSubstr("pareto (needs a perfhound.sweep input)"));
  EXPECT_THAT(html, HasSubstr("vega 0.0.0, vega-lite 0.0.0, vega-embed 0.0.0"));
}

TEST(HtmlReport, NoValueCanCloseTheScriptElement) {
  // load_concurrency12's workload condition is "prompts from 'data/<b>odd</b></script><script>alert(1)</script>.jsonl'".
  ReportInput sweep = load_fixture("sweep_concurrency.json");
  sweep.document["result"]["knee"]["rule"] = "</script><script>alert(2)</script>";  // reaches a spec's data
  const std::vector<ReportInput> inputs{load_fixture("load_concurrency12.json"), sweep};
  const std::string html = render_html_report(inputs, kFakeAssets, {"<i>title</i>"});
  EXPECT_THAT(html, HasSubstr("prompts from &#39;data/&lt;b&gt;odd&lt;/b&gt;&lt;/script&gt;&lt;script&gt;alert(1)"
                              "&lt;/script&gt;.jsonl&#39;"));
  EXPECT_THAT(html, Not(HasSubstr("alert(1)</script>")));
  EXPECT_THAT(html, Not(HasSubstr("alert(2)</script>")));
  EXPECT_THAT(html, HasSubstr("<\\/script>\\u003cscript>alert(2)<\\/script>"));  // inside the spec JSON
  EXPECT_THAT(html, HasSubstr("<title>&lt;i&gt;title&lt;/i&gt;</title>"));
  // Exactly the page's own scripts: the error hook, three libraries, one spec per chart, the boot script.
  EXPECT_EQ(count(html, "<script"), 1u + 3u + 5u + 1u);
  EXPECT_EQ(count(html, "</script>"), count(html, "<script"));
  // The bundle's own "</SCRIPT>" is escaped and its source map comment dropped.
  EXPECT_THAT(html, HasSubstr("var s = '<\\/SCRIPT>';"));
  EXPECT_THAT(html, Not(HasSubstr("sourceMappingURL")));
}

TEST(HtmlReport, JsonForScriptEscapesAndStaysTheSameJson) {
  const Json value = {{"a", "</script><!-- x <SCRIPT a<b"}, {"b", 1}};
  const std::string text = json_for_script(value);
  EXPECT_EQ(text, R"({"a":"<\/script><\u0021-- x \u003cSCRIPT a<b","b":1})");
  EXPECT_EQ(Json::parse(text), value);
  EXPECT_EQ(html_escape("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&#39;");
}

TEST(HtmlReport, UnknownKindShowsItsConditionsAndANote) {
  const std::vector<ReportInput> inputs{load_fixture("trace_h200.json")};
  const std::string html = render_html_report(inputs, kFakeAssets);
  EXPECT_THAT(html, HasSubstr("no charts for kind perfhound.trace yet"));
  EXPECT_THAT(html, HasSubstr("<th>trace</th><td>h200_decode.json.gz</td>"));
  EXPECT_THAT(html, HasSubstr("warning [dropped-events]: 12 events without a device"));
  EXPECT_THAT(html, HasSubstr("data-charts=\"0\""));
}

TEST(HtmlReport, SweepAndRunsSideBySide) {
  const std::vector<ReportInput> inputs{load_fixture("sweep_concurrency.json"), load_fixture("load_rate8.json"),
                                        load_fixture("load_concurrency12.json"), load_fixture("trace_h200.json")};
  const std::string html = render_html_report(inputs, kFakeAssets);
  EXPECT_EQ(count(html, "<article class=\"input\""), 4u);
  EXPECT_THAT(html, HasSubstr("data-charts=\"5\""));
  for (const char* chart : {"pareto", "ttft_cdf", "tpot_cdf", "latency_over_time", "concurrency_over_time"}) {
    EXPECT_THAT(html, HasSubstr(std::string("<div class=\"chart\" id=\"chart-") + chart + "\" data-chart=\"" + chart));
  }
  EXPECT_THAT(html, HasSubstr("knee at concurrency 16: 11.5 requests/s, 0.45 s (max Kneedle difference"));
  EXPECT_THAT(html, HasSubstr("operating point at concurrency 8: 7 requests/s, 1400 output tokens/s"));
  EXPECT_THAT(html, HasSubstr("<title>perfhound report: sweep_concurrency, load_rate8, load_concurrency12, "
                              "trace_h200</title>"));
}

TEST(HtmlReport, SloAsCoreWritesIt) {
  // perfhound sweep writes core's Slo::to_json: {"spec": ..., "terms": [...]}.
  ReportInput sweep = load_fixture("sweep_concurrency.json");
  sweep.document["result"]["slo"] = {{"spec", "ttft=500ms@p99"},
                                     {"terms", {{{"metric", "ttft"}, {"threshold_s", 0.5}, {"percentile", 99}}}}};
  const std::vector<ReportInput> inputs{sweep};
  EXPECT_THAT(render_html_report(inputs, kFakeAssets), HasSubstr("<li>SLO: ttft=500ms@p99</li>"));
}

}  // namespace
}  // namespace perfhound::report
