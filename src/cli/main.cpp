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
  // Under mpirun (and only there) MPI starts here. Rank 0 speaks for the run; the other ranks print nothing
  // unless they fail after meeting the others (a bad flag fails every rank alike, and rank 0 says so once).
  if (const auto started = perfhound::mpi::init(&argc, &argv); !started.ok()) {
    std::cerr << "perfhound: " << started.error().message << "\n";
    return 2;
  }
  if (perfhound::mpi::rank() == 0) {
    const int code = perfhound::cli::run_app(argc, argv, std::cout, std::cerr);
    if (code == 2 && perfhound::mpi::started()) perfhound::mpi::abort(code);
    perfhound::mpi::finalize();
    return code;
  }
  std::ostringstream out, err;
  const int code = perfhound::cli::run_app(argc, argv, out, err);
  if (code == 2 && perfhound::mpi::started()) {
    std::cerr << "perfhound rank " << perfhound::mpi::rank() << ": " << err.str() << std::flush;
    perfhound::mpi::abort(code);
  }
  perfhound::mpi::finalize();
  return code;
}
