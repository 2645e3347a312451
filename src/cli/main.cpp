#include <iostream>
#include <sstream>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "cli/app.h"
#include "mpi/mpi_world.h"

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  // perfhound builds large vectors (a 1 GB trace is ~2 M events) and frees them within one run. glibc serves
  // blocks above 32 MiB with fresh mmap()s and unmaps them on free, so every regrowth and every analysis
  // pays a page fault per 4 KiB again (measured: 165 k faults, a third of the run, on a 1.1 GB trace).
  // Serving them from the heap and keeping freed memory for reuse halves the faults.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  namespace mpi = perfhound::mpi;
  // Under mpirun (and only there) MPI starts here. Rank 0 speaks for the run; the other ranks keep what they
  // would print, and say it only when they failed alone (a bad flag fails every rank alike: rank 0 says it once).
  if (const auto started = mpi::init(&argc, &argv); !started.ok()) {
    std::cerr << "perfhound: " << started.error().message << "\n";
    return 2;
  }
  std::ostringstream quiet_out, quiet_err;
  const bool speaks = mpi::rank() == 0;
  const int code = perfhound::cli::run_app(argc, argv, speaks ? std::cout : quiet_out, speaks ? std::cerr : quiet_err);
  // A rank that failed alone leaves the others waiting in a collective for it: end them all.
  constexpr int kWaitForTheOthersMs = 10'000;
  if (!mpi::finish_together(kWaitForTheOthersMs)) {
    if (!speaks) std::cerr << "perfhound rank " << mpi::rank() << ": " << quiet_err.str() << std::flush;
    mpi::abort(code == 0 ? 1 : code);
  }
  return code;
}
