// The MPI edge of `perfhound load` and `perfhound sweep` over several client processes (mpirun -np N
// perfhound load ...). MPI is initialized only when a launcher started this process as one of several
// ranks (its environment says so), so a plain `perfhound` never touches MPI; every call here is a no-op
// (rank 0 of 1) otherwise. Where perfhound was built without MPI, init() refuses a multi-rank launch instead
// of letting every rank run the whole load.
//
// Collectives are called from the main thread only (MPI_THREAD_FUNNELED): the load client and the embedded
// simulator run on threads of their own that never call MPI.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"

namespace perfhound::mpi {

// How many ranks the launcher's environment announces (Open MPI's OMPI_COMM_WORLD_SIZE, PMIx's or PMI's
// size variables); 1 when none.
int launched_size();
bool built_with_mpi();

// MPI_Init_thread where launched_size() > 1; an error where that is so and MPI was not built in.
core::Status init(int* argc, char*** argv);
// The end of the command on every rank: true when every rank got here within `wait_ms` (they all finished,
// or failed alike, e.g. on the same bad flag), then MPI is finalized; false when some rank did not (it still
// waits in a collective for this one, which failed alone): the caller says why and calls abort(). True
// without MPI.
bool finish_together(int wait_ms);
// Ends every rank now (MPI_Abort): for an error on one rank while the others may wait in a collective.
[[noreturn]] void abort(int exit_code);

bool active();  // init() started MPI with more than one rank
int rank();     // 0 without MPI
int size();     // 1 without MPI

void barrier();
// Rank 0's value, on every rank.
std::string broadcast(const std::string& value);
// Rank 0: every rank's value in rank order; the others: empty. Values may be large (a rank's records).
std::vector<std::string> gather(const std::string& value);
// Every rank's value in rank order, on every rank.
std::vector<std::string> all_gather(const std::string& value);

// This host's name (gethostname), for the conditions and the one-host check of the embedded simulator.
std::string host_name();

// Each rank's wall clock (CLOCK_REALTIME) against rank 0's, by ping-pong (the sample with the least round
// trip of `rounds`; Cristian's estimate: offset = t_rank - (t_send + t_receive) / 2, error within rtt / 2).
struct ClockOffset {
  int rank = 0;
  std::string host;
  std::int64_t offset_ns = 0;  // this rank's clock minus rank 0's
  std::int64_t rtt_ns = 0;     // the round trip of the sample used
};
// Collective; the table on every rank.
std::vector<ClockOffset> measure_clock_offsets(int rounds);

// Collective: rank 0 picks a wall-clock instant `lead_ns` ahead; every rank sleeps until its own clock,
// corrected by its measured offset, reaches it. Returns that instant (rank 0's clock, ns since the epoch).
std::int64_t start_together(const std::vector<ClockOffset>& offsets, std::int64_t lead_ns);

}  // namespace perfhound::mpi
