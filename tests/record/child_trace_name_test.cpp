// The name of a child process's trace: the library writes it, perfhound record finds it; only the file name is
// tagged. Expected names written out by hand.
#include "record/child_trace_name.h"

#include <gtest/gtest.h>

namespace perfhound::record {
namespace {

TEST(ChildTraceName, ThePidGoesBeforeJsonInTheFileNameOnly) {
  EXPECT_EQ(child_trace_path("/x/run.json", 42), "/x/run.pid42.json");
  EXPECT_EQ(child_trace_path("/x/run", 42), "/x/run.pid42");
  EXPECT_EQ(child_trace_path("run.json", 7), "run.pid7.json");
  // A folder named like a trace is left alone: tagging it would name a folder that does not exist.
  EXPECT_EQ(child_trace_path("/r/a.json.d/out", 7), "/r/a.json.d/out.pid7");
  EXPECT_EQ(child_trace_path("/r/a.json.d/out.json", 7), "/r/a.json.d/out.pid7.json");
}

TEST(ChildTraceName, OnlyItsOwnNamesAreFound) {
  EXPECT_EQ(child_trace_pid("run.pid42.json", "run.json"), 42);
  EXPECT_EQ(child_trace_pid("out.pid7", "out"), 7);
  EXPECT_EQ(child_trace_pid("run.json", "run.json"), std::nullopt);              // the program's own
  EXPECT_EQ(child_trace_pid("run.pid.json", "run.json"), std::nullopt);          // no pid
  EXPECT_EQ(child_trace_pid("run.pid4x.json", "run.json"), std::nullopt);        // not a pid
  EXPECT_EQ(child_trace_pid("run.pid42.json.partial", "run.json"), std::nullopt);  // a write in progress
  EXPECT_EQ(child_trace_pid("other.pid42.json", "run.json"), std::nullopt);
  EXPECT_EQ(child_trace_pid("out.pid7.partial", "out"), std::nullopt);
}

}  // namespace
}  // namespace perfhound::record
