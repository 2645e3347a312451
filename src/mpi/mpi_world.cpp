#include "mpi/mpi_world.h"

#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <fmt/format.h>
#include <thread>

#if PERFHOUND_HAVE_MPI
#include <mpi.h>
#endif

namespace perfhound::mpi {
namespace {

bool g_active = false;
int g_rank = 0, g_size = 1;

std::int64_t wall_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int launched_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"}) {
    if (const char* v = std::getenv(name)) {
      const long n = std::strtol(v, nullptr, 10);
      if (n > 0 && n < INT_MAX) return static_cast<int>(n);
    }
  }
  return 1;
}

std::string host_name() {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

bool active() { return g_active; }
int rank() { return g_rank; }
int size() { return g_size; }

#if PERFHOUND_HAVE_MPI

bool built_with_mpi() { return true; }

core::Status init(int* argc, char*** argv) {
  if (launched_size() <= 1) return {};
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    return core::Error{"mpirun: MPI_Init_thread failed"};
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  g_active = g_size > 1;
  if (!g_active) MPI_Finalize();
  return {};
}

bool finish_together(int wait_ms) {
  if (!g_active) return true;
  MPI_Request request;
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  int done = 0;
  while (MPI_Test(&request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done == 0) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  MPI_Finalize();
  g_active = false;
  return true;
}

void abort(int exit_code) {
  if (g_active) MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);
}

void barrier() {
  if (g_active) MPI_Barrier(MPI_COMM_WORLD);
}

std::string broadcast(const std::string& value) {
  if (!g_active) return value;
  unsigned long long n = value.size();
  MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  std::string out = g_rank == 0 ? value : std::string(n, '\0');
  // In pieces of at most INT_MAX bytes: MPI counts are ints.
  for (unsigned long long at = 0; at < n;) {
    const int piece = static_cast<int>(std::min<unsigned long long>(n - at, INT_MAX));
    MPI_Bcast(out.data() + at, piece, MPI_CHAR, 0, MPI_COMM_WORLD);
    at += static_cast<unsigned long long>(piece);
  }
  return out;
}

namespace {
// Point-to-point in pieces (a rank's records may pass 2 GiB): the length, then the bytes.
void send_string(const std::string& value, int to) {
  unsigned long long n = value.size();
  MPI_Send(&n, 1, MPI_UNSIGNED_LONG_LONG, to, 0, MPI_COMM_WORLD);
  for (unsigned long long at = 0; at < n;) {
    const int piece = static_cast<int>(std::min<unsigned long long>(n - at, INT_MAX));
    MPI_Send(value.data() + at, piece, MPI_CHAR, to, 1, MPI_COMM_WORLD);
    at += static_cast<unsigned long long>(piece);
  }
}
std::string receive_string(int from) {
  unsigned long long n = 0;
  MPI_Recv(&n, 1, MPI_UNSIGNED_LONG_LONG, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  std::string out(n, '\0');
  for (unsigned long long at = 0; at < n;) {
    const int piece = static_cast<int>(std::min<unsigned long long>(n - at, INT_MAX));
    MPI_Recv(out.data() + at, piece, MPI_CHAR, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    at += static_cast<unsigned long long>(piece);
  }
  return out;
}
}  // namespace

std::vector<std::string> gather(const std::string& value) {
  if (!g_active) return {value};
  std::vector<std::string> all;
  if (g_rank == 0) {
    all.push_back(value);
    for (int r = 1; r < g_size; ++r) all.push_back(receive_string(r));
  } else {
    send_string(value, 0);
  }
  return all;
}

std::vector<std::string> all_gather(const std::string& value) {
  if (!g_active) return {value};
  std::vector<std::string> all = gather(value);
  std::string packed;
  for (const std::string& v : all) packed += fmt::format("{}:{}", v.size(), v);
  packed = broadcast(packed);
  all.clear();
  for (std::size_t at = 0; at < packed.size();) {
    const std::size_t colon = packed.find(':', at);
    const std::size_t n = std::stoull(packed.substr(at, colon - at));
    all.push_back(packed.substr(colon + 1, n));
    at = colon + 1 + n;
  }
  return all;
}

std::vector<ClockOffset> measure_clock_offsets(int rounds) {
  std::vector<ClockOffset> table;
  const std::vector<std::string> hosts = all_gather(host_name());
  std::vector<long long> packed(2 * static_cast<std::size_t>(g_size), 0);  // offset, rtt per rank
  if (g_active) {
    for (int r = 1; r < g_size; ++r) {
      if (g_rank == 0) {
        long long best_rtt = -1, best_offset = 0;
        for (int i = 0; i < rounds; ++i) {
          long long remote = 0;
          const std::int64_t t0 = wall_ns();
          MPI_Send(&remote, 1, MPI_LONG_LONG, r, 2, MPI_COMM_WORLD);
          MPI_Recv(&remote, 1, MPI_LONG_LONG, r, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          const std::int64_t t2 = wall_ns();
          const long long rtt = t2 - t0;
          if (best_rtt < 0 || rtt < best_rtt) best_rtt = rtt, best_offset = remote - (t0 + rtt / 2);
        }
        packed[2 * static_cast<std::size_t>(r)] = best_offset;
        packed[2 * static_cast<std::size_t>(r) + 1] = best_rtt;
      } else if (g_rank == r) {
        for (int i = 0; i < rounds; ++i) {
          long long stamp = 0;
          MPI_Recv(&stamp, 1, MPI_LONG_LONG, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          stamp = wall_ns();
          MPI_Send(&stamp, 1, MPI_LONG_LONG, 0, 3, MPI_COMM_WORLD);
        }
      }
    }
    MPI_Bcast(packed.data(), 2 * g_size, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  }
  for (int r = 0; r < g_size; ++r) {
    table.push_back({r, hosts[static_cast<std::size_t>(r)], packed[2 * static_cast<std::size_t>(r)],
                     packed[2 * static_cast<std::size_t>(r) + 1]});
  }
  return table;
}

std::int64_t start_together(const std::vector<ClockOffset>& offsets, std::int64_t lead_ns) {
  long long start = wall_ns() + lead_ns;
  if (g_active) MPI_Bcast(&start, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  // Rank 0's instant in this rank's clock.
  const std::int64_t here = start + (static_cast<std::size_t>(g_rank) < offsets.size() ? offsets[static_cast<std::size_t>(g_rank)].offset_ns : 0);
  std::this_thread::sleep_until(std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::nanoseconds(here))));
  return start;
}

#else  // built without MPI: one rank, always

bool built_with_mpi() { return false; }

core::Status init(int* /*argc*/, char*** /*argv*/) {
  if (const int n = launched_size(); n > 1) {
    return core::Error{fmt::format("mpirun: this perfhound was built without MPI (install libopenmpi-dev and "
                                   "rebuild), so each of the {} ranks would run the whole load alone", n)};
  }
  return {};
}
bool finish_together(int /*wait_ms*/) { return true; }
void abort(int exit_code) { std::_Exit(exit_code); }
void barrier() {}
std::string broadcast(const std::string& value) { return value; }
std::vector<std::string> gather(const std::string& value) { return {value}; }
std::vector<std::string> all_gather(const std::string& value) { return {value}; }
std::vector<ClockOffset> measure_clock_offsets(int /*rounds*/) { return {ClockOffset{0, host_name(), 0, 0}}; }
std::int64_t start_together(const std::vector<ClockOffset>& /*offsets*/, std::int64_t /*lead_ns*/) { return wall_ns(); }

#endif

}  // namespace perfhound::mpi
