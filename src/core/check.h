// Invariant checks. A broken invariant is a bug in perfhound, not bad input: it aborts with file:line so the
// bug is found, instead of printing a wrong number. Bad input goes through Result (result.h) instead.
#pragma once

#include <cstdio>
#include <cstdlib>

#define PH_CHECK(cond)                                                                          \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      std::fprintf(stderr, "perfhound: internal error at %s:%d: check failed: %s\n", __FILE__, \
                   __LINE__, #cond);                                                            \
      std::abort();                                                                             \
    }                                                                                           \
  } while (0)
