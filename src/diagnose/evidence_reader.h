// Fills Evidence (diagnose/evidence.h) from what the other commands write: their versioned JSON documents
// (perfhound.trace, .mfu, .roofline, .load, .sweep; the envelope is report/json_document.h) and, for inputs
// given raw, the trace analysis's own JSON and an Nsight Compute export. Pure: parsed documents in, Evidence
// updated or an error out; reading files is the caller's.
//
// Rules: at most one trace, one mfu and one roofline input (a second is an error naming both files: the
// diagnosis would have to pick one); any number of load results and sweeps, each a load point. A document
// of another kind, a per-rank trace folder's result, or one lacking a field the playbook reads is an error
// naming the file and the field.
//
// Load results and sweeps are one curve, so they must have measured one system under one workload: where two
// documents both carry one of the system keys of their conditions (target, model, endpoint, ignore_eos and the
// workload but its seed), the values must agree, or the second is an error naming the key, both values and both
// files. The load, the warm-up and the seeds may differ: they follow the load.
//
// Load points are ordered on the measured mean requests in flight (summary.concurrency.mean_in_flight:
// it rises with the offered load in open and closed loops alike, by Little's law), else on a sweep point's
// offered `load`. Latencies are read from the start the run measured them from (conditions.parameters
// .latency_from: intended send time for open loops, actual send time for closed), else whichever is present.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "core/result.h"
#include "diagnose/evidence.h"
#include "roofline/ncu_csv_reader.h"

namespace perfhound::diagnose {

// A whole perfhound result document, dispatched on its "kind". `source` names the file in errors.
core::Status add_document(Evidence& evidence, const nlohmann::ordered_json& document, std::string_view source);

// The "result" object of a perfhound.trace document for one trace (trace::to_json(TraceAnalysis)).
core::Status add_trace_result(Evidence& evidence, const nlohmann::ordered_json& result, std::string_view source);

// Every kernel of an ncu export, placed against the ceilings ncu measured on the device (as `perfhound
// roofline --ncu` does without --hw).
core::Status add_ncu_kernels(Evidence& evidence, const roofline::NcuCsv& csv, std::string_view source);

}  // namespace perfhound::diagnose
