// `perfhound load` and `sweep` under mpirun: what each rank sends rank 0 once its share of a run is done
// (its records, client health and outcome), and the finished run rank 0 sends back to every rank, so a sweep
// takes the same decisions (--rate auto's plan, the stop after an interrupt) on every rank.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cli/load_session.h"
#include "core/result.h"
#include "load/load_runner.h"
#include "load/request_record.h"

namespace perfhound::cli {

struct RankShare {
  std::vector<load::RequestRecord> records;
  load::RunOutcome outcome;  // its health included
};

// One JSON line (the outcome, health exactly: client_health_wire.h) then the records' JSONL lines.
std::string pack_rank_share(const std::vector<load::RequestRecord>& records, const load::RunOutcome& outcome);
// Errors name the line that does not parse ("rank 2 line 17: ...").
core::Result<RankShare> unpack_rank_share(std::string_view packed, int rank);

// The run's document, text and verdicts (not its diagnostics: only rank 0 prints).
std::string pack_load_run(const LoadRun& run);
core::Result<LoadRun> unpack_load_run(std::string_view packed);

// Where rank k streams its own records while the run goes, beside the merged file rank 0 writes at the end:
// "out/run.jsonl" -> "out/run.rank1.jsonl" (the extension kept, so the format is the same).
std::string rank_records_path(const std::string& path, int rank);

}  // namespace perfhound::cli
