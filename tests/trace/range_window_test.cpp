// restrict_to_range on a hand-built timeline: which events stay, which are cut at the range's edges, and the
// errors that name what the trace has.
#include "trace/range_window.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace perfhound::trace {
namespace {

using ::testing::HasSubstr;

void add_host(Timeline& t, HostKind kind, std::string_view name, std::int64_t start, std::int64_t dur) {
  HostEvent e;
  e.kind = kind;
  e.name = t.strings.intern(name);
  e.start_ns = start;
  e.dur_ns = dur;
  t.host.push_back(e);
}

void add_kernel(Timeline& t, std::int64_t start, std::int64_t dur) {
  GpuActivity a;
  a.start_ns = start;
  a.dur_ns = dur;
  a.name = t.strings.intern("k");
  t.gpu.push_back(a);
}

// Two "step" ranges, [100, 200] and [300, 400]; kernels before, inside, across the edges and after.
Timeline two_steps() {
  Timeline t;
  add_host(t, HostKind::kUserAnnotation, "step", 100, 100);
  add_host(t, HostKind::kUserAnnotation, "step", 300, 100);
  add_host(t, HostKind::kUserAnnotation, "setup", 0, 50);
  add_host(t, HostKind::kRuntime, "cudaLaunchKernel", 90, 20);  // across the first range's start
  add_kernel(t, 10, 20);    // before
  add_kernel(t, 120, 30);   // inside
  add_kernel(t, 190, 40);   // across the end: 190-230
  add_kernel(t, 200, 10);   // starts at the end: nothing inside
  add_kernel(t, 320, 10);   // in the second range
  finalize_timeline(t);
  return t;
}

TEST(RestrictToRange, KeepsWhatOverlapsAndCutsItToTheRange) {
  Timeline t = two_steps();
  const auto w = restrict_to_range(t, "step");
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->occurrences, 2);
  EXPECT_EQ(w->start_ns, 100);
  EXPECT_EQ(w->end_ns, 200);
  ASSERT_EQ(t.gpu.size(), 2u);
  EXPECT_EQ(t.gpu[0].start_ns, 120);
  EXPECT_EQ(t.gpu[0].dur_ns, 30);
  EXPECT_EQ(t.gpu[1].start_ns, 190);
  EXPECT_EQ(t.gpu[1].dur_ns, 10);  // 190-230 cut at 200
  EXPECT_EQ(w->gpu_dropped, 3u);   // before, at the end, in the second range
  EXPECT_EQ(w->gpu_clipped, 1u);
  // Host: the range itself and the launch call 90-110 cut to 100-110; "setup" and the second step dropped.
  // Both now start at 100; finalize_timeline orders ties by duration, the cut launch call first.
  ASSERT_EQ(t.host.size(), 2u);
  EXPECT_EQ(t.host[0].start_ns, 100);
  EXPECT_EQ(t.host[0].dur_ns, 10);
  EXPECT_EQ(t.host[0].kind, HostKind::kRuntime);
  EXPECT_EQ(t.host[1].start_ns, 100);
  EXPECT_EQ(t.host[1].dur_ns, 100);
  EXPECT_EQ(w->host_dropped, 2u);
  EXPECT_EQ(w->host_clipped, 1u);
  EXPECT_EQ(t.window_start_ns, 100);
  EXPECT_EQ(t.window_end_ns, 200);
}

TEST(RestrictToRange, TheSecondOccurrence) {
  Timeline t = two_steps();
  const auto w = restrict_to_range(t, "step", 2);
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->start_ns, 300);
  ASSERT_EQ(t.gpu.size(), 1u);
  EXPECT_EQ(t.gpu[0].start_ns, 320);
}

TEST(RestrictToRange, ErrorsNameWhatTheTraceHasAndLeaveItAlone) {
  Timeline t = two_steps();
  auto w = restrict_to_range(t, "loop");
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(w.error().message, HasSubstr("--range 'loop': the trace has no range of that name"));
  EXPECT_THAT(w.error().message, HasSubstr("'setup'"));
  EXPECT_THAT(w.error().message, HasSubstr("'step'"));
  w = restrict_to_range(t, "step", 3);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().message, "--range 'step' #3: the trace has 2 ranges of that name");
  EXPECT_EQ(t.gpu.size(), 5u);
  Timeline empty;
  EXPECT_THAT(restrict_to_range(empty, "step").error().message, HasSubstr("no user annotations or NVTX ranges"));
}

// The hint's range: the name with the most time over its instances, and its instance of median length. Steps of
// 1000 (a warm-up), 100, 120 and 110 ns hold 1330 ns; a "setup" of 500 ns holds less; lengths sorted 100 (#2), 110
// (#4), 120 (#3), 1000 (#1): the lower median of four is the second, #4.
TEST(SuggestRange, TheMostTimeAndItsMedianInstance) {
  Timeline t;
  add_host(t, HostKind::kUserAnnotation, "setup", 0, 500);
  add_host(t, HostKind::kUserAnnotation, "step", 1000, 1000);
  add_host(t, HostKind::kUserAnnotation, "step", 3000, 100);
  add_host(t, HostKind::kUserAnnotation, "step", 4000, 120);
  add_host(t, HostKind::kUserAnnotation, "step", 5000, 110);
  add_host(t, HostKind::kRuntime, "cudaLaunchKernel", 5000, 9000);  // not a range
  finalize_timeline(t);
  SuggestedRange r = suggest_range(t);
  EXPECT_EQ(r.name, "step");
  EXPECT_EQ(r.occurrences, 4);
  EXPECT_EQ(r.occurrence, 4);
  EXPECT_THAT(r.names, ::testing::ElementsAre("step", "setup"));
  // A loop around the steps (1400 ns) holds more than they do: it is the one, its only instance.
  add_host(t, HostKind::kUserAnnotation, "loop", 2900, 2400);
  add_host(t, HostKind::kUserAnnotation, "", 0, 90000);  // no name: never suggested
  finalize_timeline(t);
  r = suggest_range(t);
  EXPECT_EQ(r.name, "loop");
  EXPECT_EQ(r.occurrence, 1);
  EXPECT_EQ(r.occurrences, 1);
  // What restrict_to_range counts as the 4th "step" is the 110 ns one the hint means.
  r = suggest_range(t, "loop");
  EXPECT_EQ(r.name, "step");
  const auto w = restrict_to_range(t, "step", r.occurrence);
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->end_ns - w->start_ns, 110);
}

TEST(SuggestRange, NoRangesNoSuggestion) {
  Timeline t;
  add_host(t, HostKind::kRuntime, "cudaLaunchKernel", 0, 10);
  finalize_timeline(t);
  EXPECT_TRUE(suggest_range(t).name.empty());
}

}  // namespace
}  // namespace perfhound::trace
