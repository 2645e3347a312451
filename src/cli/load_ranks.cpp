#include "cli/load_ranks.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "load/client_health_wire.h"
#include "load/record_io.h"

namespace perfhound::cli {

std::string pack_rank_share(const std::vector<load::RequestRecord>& records, const load::RunOutcome& outcome) {
  const nlohmann::json head = {{"health", load::health_to_wire(outcome.health)},
                               {"interrupted", outcome.interrupted},
                               {"stop_reason", outcome.stop_reason},
                               {"issued", outcome.issued},
                               {"records", outcome.records}};
  fmt::memory_buffer out;
  const std::string line = head.dump();
  out.append(line);
  out.push_back('\n');
  for (const load::RequestRecord& r : records) load::append_record_jsonl(out, r);
  return fmt::to_string(out);
}

core::Result<RankShare> unpack_rank_share(std::string_view packed, int rank) {
  RankShare share;
  std::size_t line_no = 0;
  for (std::size_t at = 0; at < packed.size();) {
    std::size_t end = packed.find('\n', at);
    if (end == std::string_view::npos) end = packed.size();
    const std::string_view line = packed.substr(at, end - at);
    at = end + 1;
    ++line_no;
    const auto where = [&](const core::Error& e) { return core::Error{fmt::format("rank {} line {}: {}", rank, line_no, e.message)}; };
    if (line_no == 1) {
      const auto head = nlohmann::json::parse(line, nullptr, false);
      if (head.is_discarded() || !head.is_object()) return where(core::Error{"not the rank's outcome object"});
      auto health = load::health_from_wire(head.value("health", nlohmann::json()));
      if (!health.ok()) return where(health.error());
      share.outcome.health = std::move(health).value();
      share.outcome.interrupted = head.value("interrupted", false);
      share.outcome.stop_reason = head.value("stop_reason", std::string());
      share.outcome.issued = head.value("issued", std::uint64_t{0});
      share.outcome.records = head.value("records", std::uint64_t{0});
      continue;
    }
    auto record = load::parse_record_line(line);
    if (!record.ok()) return where(record.error());
    share.records.push_back(std::move(record).value());
  }
  if (line_no == 0) return core::Error{fmt::format("rank {}: sent nothing", rank)};
  return share;
}

std::string pack_load_run(const LoadRun& run) {
  return nlohmann::ordered_json{{"document", run.document},
                                {"text", run.text},
                                {"interrupted", run.interrupted},
                                {"valid", run.valid},
                                {"client_limited", run.client_limited},
                                {"slo_passed", run.slo_passed},
                                {"drift_found", run.drift_found}}
      .dump();
}

core::Result<LoadRun> unpack_load_run(std::string_view packed) {
  const auto j = nlohmann::ordered_json::parse(packed, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("document")) {
    return core::Error{"rank 0 sent no run document"};
  }
  LoadRun run;
  run.document = j["document"];
  run.text = j.value("text", std::string());
  run.interrupted = j.value("interrupted", false);
  run.valid = j.value("valid", false);
  run.client_limited = j.value("client_limited", false);
  run.slo_passed = j.value("slo_passed", true);
  run.drift_found = j.value("drift_found", false);
  return run;
}

std::string rank_records_path(const std::string& path, int rank) {
  const std::size_t slash = path.find_last_of('/');
  const std::size_t dot = path.find_last_of('.');
  const std::string tag = fmt::format(".rank{}", rank);
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path + tag;
  return path.substr(0, dot) + tag + path.substr(dot);
}

}  // namespace perfhound::cli
