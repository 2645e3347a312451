#include <iostream>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "cli/app.h"

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  // perfhound builds large vectors (a 1 GB trace is ~2 M events) and frees them within one run. glibc serves
  // blocks above 32 MiB with fresh mmap()s and unmaps them on free, so every regrowth and every analysis
  // pays a page fault per 4 KiB again (measured: 165 k faults, a third of the run, on a 1.1 GB trace).
  // Serving them from the heap and keeping freed memory for reuse halves the faults.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  return perfhound::cli::run_app(argc, argv, std::cout, std::cerr);
}
