#include "cli/load_summary_text.h"

#include <cmath>
#include <fmt/format.h>

#include "core/units.h"
#include "report/table_writer.h"

namespace perfhound::cli {
namespace {
std::string seconds(double s) { return std::isfinite(s) ? core::format_duration_ns(s * 1e9) : "-"; }
}  // namespace

std::string render_summary_table(const load::LoadSummary& s, bool open_loop) {
  std::string out;
  report::TableWriter table({{"metric", report::Align::kLeft}, {"count"}, {"p50"}, {"p90"}, {"p95"}, {"p99"}, {"max"},
                             {"mean"}, {"stddev"}});
  const auto row = [&](std::string name, const load::SampleSummary& t) {
    if (t.count == 0) return;
    table.add_row({std::move(name), fmt::format("{}", t.count), seconds(t.p50), seconds(t.p90), seconds(t.p95),
                   seconds(t.p99), seconds(t.max), seconds(t.mean), seconds(t.stddev)});
  };
  const load::StartLatencies& main = open_loop ? s.from_intended : s.from_sent;
  const std::string from = open_loop ? " (from intended send)" : "";
  row("TTFT" + from, main.ttft_s);
  if (open_loop) row("TTFT (from actual send)", s.from_sent.ttft_s);
  row("TPOT", main.tpot_s);
  row("ITL (per chunk, pooled)", s.itl_s);
  row("ITL (mean per request)", main.mean_itl_s);
  row("NTPOT (E2E / output tokens)", main.ntpot_s);
  row("E2E" + from, main.e2e_s);
  if (open_loop) row("E2E (from actual send)", s.from_sent.e2e_s);
  if (open_loop) row("schedule lag (sent - intended)", s.schedule_lag_s);
  out += table.render();
  // Three significant digits, whole from 1000 (docs/metrics.md): "91.0 req/s, 11654 output tok/s".
  out += fmt::format("\nthroughput: {} req/s, {} output tok/s, {} total tok/s; output tokens from {}\n",
                     core::format_number(s.requests_per_s), core::format_number(s.output_tokens_per_s),
                     core::format_number(s.total_tokens_per_s), load::token_source_name(s.output_token_source));
  if (s.goodput_defined) {
    out += fmt::format("goodput: {} req/s ({} of completed met the SLO)\n", core::format_number(s.goodput_per_s),
                       core::format_percent(s.goodput_ratio));
  }
  return out;
}

}  // namespace perfhound::cli
