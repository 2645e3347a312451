// perfhound record's trace against torch.profiler's of the same program (tests/data/traces/h100/README.md): the
// decoder's 20 steps in the "loop" range hold 3,200 kernels in each, and the GPU busy time the importer reads
// matches the figures computed from the files in Python (the README's table), so the recorder kept the same GPU
// work the framework's own profiler did, within 0.1%.
#include <gtest/gtest.h>

#include <string>

#include "trace/importer.h"
#include "trace/range_window.h"

namespace perfhound::trace {
namespace {

const std::string kH100 = std::string(PERFHOUND_TEST_DATA) + "/traces/h100/";

struct LoopKernels {
  int count = 0;
  std::int64_t busy_ns = 0;  // the kernels do not overlap (one stream): the sum is the busy union
};

LoopKernels loop_kernels(const std::string& file) {
  auto timeline = import_trace(kH100 + file);
  EXPECT_TRUE(timeline.ok()) << (timeline.ok() ? "" : timeline.error().message);
  LoopKernels k;
  if (!timeline.ok()) return k;
  const auto window = restrict_to_range(*timeline, "loop");
  EXPECT_TRUE(window.ok()) << (window.ok() ? "" : window.error().message);
  for (const auto& g : timeline->gpu) {
    if (g.kind != GpuKind::kKernel) continue;
    ++k.count;
    k.busy_ns += g.dur_ns;
  }
  return k;
}

TEST(RecordedVsProfiler, TheSameDecoderStepsHoldTheSameKernels) {
  const LoopKernels all = loop_kernels("decode_recorded_all.json.gz");
  const LoopKernels classified = loop_kernels("decode_recorded_classified.json.gz");
  const LoopKernels kineto = loop_kernels("decode_kineto.json.gz");
  EXPECT_EQ(all.count, 3200);
  EXPECT_EQ(classified.count, 3200);
  EXPECT_EQ(kineto.count, 3200);
  // The README's figures, from the files in Python, to within a nanosecond a kernel (timestamps are in us with
  // three decimals).
  EXPECT_NEAR(all.busy_ns, 10'942'859, 3200);
  EXPECT_NEAR(classified.busy_ns, 10'942'434, 3200);
  EXPECT_NEAR(kineto.busy_ns, 10'951'893, 3200);
  EXPECT_NEAR(static_cast<double>(all.busy_ns) / static_cast<double>(kineto.busy_ns), 1.0, 0.001);
}

}  // namespace
}  // namespace perfhound::trace
