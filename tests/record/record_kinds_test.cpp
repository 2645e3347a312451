// perfhound record --kinds / PERFHOUND_RECORD_KINDS: "all", "kernels", and kernels with kinds added one by one.
#include "record/record_kinds.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace perfhound::record {
namespace {

using ::testing::HasSubstr;

RecordKinds kinds_of(std::string_view text) {
  auto kinds = parse_record_kinds(text);
  EXPECT_TRUE(kinds.ok()) << text << ": " << (kinds.ok() ? "" : kinds.error().message);
  return kinds.ok() ? *kinds : RecordKinds{};
}

TEST(RecordKinds, AllIsEveryKindAndKernelsIsNone) {
  EXPECT_EQ(kinds_of("all"), (RecordKinds{true, true, true, true, true}));
  EXPECT_EQ(kinds_of("kernels"), (RecordKinds{false, false, false, false, false}));
}

// The default (no PERFHOUND_RECORD_KINDS, and perfhound record's --kinds default) is every kind but
// SYNCHRONIZATION: copies, fills and NVTX ranges with NVTX routed to CUPTI.
TEST(RecordKinds, TheDefaultIsAllButSynchronization) {
  EXPECT_EQ(RecordKinds{}, (RecordKinds{.memcpy = true, .memset = true, .synchronization = false, .marker = true,
                                        .nvtx_routing = true}));
  EXPECT_EQ(kinds_of("kernels,memcpy,memset,nvtx"), RecordKinds{});
  EXPECT_STREQ(kDefaultRecordKinds, "kernels,memcpy,memset,nvtx");
  EXPECT_NE(kinds_of("all"), RecordKinds{});
}

// Each name adds one thing to kernels, so the measurement (bench/record/record_knobs.sh) can tell them apart.
TEST(RecordKinds, EachNameAddsOneKind) {
  EXPECT_EQ(kinds_of("kernels,memcpy"), (RecordKinds{.memcpy = true, .memset = false, .synchronization = false,
                                                     .marker = false, .nvtx_routing = false}));
  EXPECT_EQ(kinds_of("kernels,memset"), (RecordKinds{false, true, false, false, false}));
  EXPECT_EQ(kinds_of("kernels,sync"), (RecordKinds{false, false, true, false, false}));
  EXPECT_EQ(kinds_of("kernels,marker"), (RecordKinds{false, false, false, true, false}));
  // NVTX ranges in full: the MARKER kind and NVTX routed to CUPTI (routing alone would record nothing).
  EXPECT_EQ(kinds_of("kernels,nvtx"), (RecordKinds{false, false, false, true, true}));
  EXPECT_EQ(kinds_of("kernels,marker,nvtx"), kinds_of("kernels,nvtx"));
}

TEST(RecordKinds, ListsCombineInAnyOrder) {
  EXPECT_EQ(kinds_of("kernels,memcpy,memset,sync,nvtx"), kinds_of("all"));
  EXPECT_EQ(kinds_of("kernels,nvtx,memset,memcpy"), kinds_of("kernels,memcpy,memset,nvtx"));
  EXPECT_EQ(kinds_of("kernels,sync,memcpy"), (RecordKinds{true, false, true, false, false}));
  EXPECT_EQ(kinds_of("kernels,memcpy,memcpy"), kinds_of("kernels,memcpy"));
}

TEST(RecordKinds, AnythingElseIsAnErrorQuotingIt) {
  for (const auto& [text, needle] : std::vector<std::pair<std::string, std::string>>{
           {"", "starts with kernels"},
           {"memcpy", "starts with kernels"},
           {"memcpy,kernels", "starts with kernels"},
           {"all,memcpy", "starts with kernels"},
           {"Kernels", "starts with kernels"},
           {"kernels,", "an empty item"},
           {"kernels,,memcpy", "an empty item"},
           {"kernels,copies", "'copies' is not a kind to add"},
           {"kernels,kernels", "'kernels' is not a kind to add"},
           {"kernels,all", "'all' is not a kind to add"},
           {"kernels, memcpy", "' memcpy' is not a kind to add"}}) {
    auto kinds = parse_record_kinds(text);
    ASSERT_FALSE(kinds.ok()) << text;
    EXPECT_THAT(kinds.error().message, HasSubstr("'" + text + "'"));
    EXPECT_THAT(kinds.error().message, HasSubstr(needle)) << text;
  }
}

}  // namespace
}  // namespace perfhound::record
