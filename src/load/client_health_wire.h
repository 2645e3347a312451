// A client's health (load_runner.h's ClientHealth) as JSON that rebuilds it exactly in another process, and
// the health of several clients that ran one load together (MPI ranks): how rank 0 judges the merged run.
#pragma once

#include <span>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "load/load_runner.h"

namespace perfhound::load {

// Every field; histograms as their non-empty buckets plus exact min and max, so from_wire(to_wire(h))
// answers every percentile, min and max as h does.
nlohmann::json health_to_wire(const ClientHealth& health);
// Errors name the field that is missing or of the wrong type.
core::Result<ClientHealth> health_from_wire(const nlohmann::json& wire);

// The clients together: histograms merged (percentiles over every client's samples), counts, CPU and spin
// time summed, wall time the longest. cpu_ratio is the highest client's (each client has its own core, and
// the busiest one is the one that can limit the load); max_in_flight is the sum of each client's maximum
// (an upper bound: the maxima need not coincide; the records' exact figure is in the summary).
ClientHealth merge_health(std::span<const ClientHealth> clients);

}  // namespace perfhound::load
