// perfhound::bench on CPU code: std::sort against std::stable_sort of 1M shuffled ints (the shuffled copy
// is made in every call, so both pay it). docs/bench.md.
#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "bench/runner.h"

namespace bench = perfhound::bench;

int main(int argc, char** argv) {
  bench::Runner runner("sorting 1M ints", argc, argv);
  if (runner.should_exit()) return runner.exit_code();
  std::vector<int> shuffled(1 << 20), work;
  std::iota(shuffled.begin(), shuffled.end(), 0);
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(42));
  runner.set_condition("input", {{"elements", shuffled.size()}, {"order", "shuffled, std::mt19937 seed 42"}});
  const auto items = bench::Work::items_done(static_cast<double>(shuffled.size()));
  runner.cpu("std::sort", [&] { work = shuffled; std::sort(work.begin(), work.end()); bench::do_not_optimize(work.data()); }, items);
  runner.cpu("std::stable_sort", [&] { work = shuffled; std::stable_sort(work.begin(), work.end()); bench::do_not_optimize(work.data()); }, items);
  return runner.finish();
}
