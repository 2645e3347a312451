// SseParser against the WHATWG event-stream rules: each field and line-ending form on its own, then one
// stream that uses all of them fed whole, split at every offset and every pair of offsets, and byte by byte
// (the result must not depend on where the network cut it), the limits, and that whole lines are not copied.
#include "load/sse_parser.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <random>
#include <string>
#include <vector>

// Counts allocations so a test can assert that a loop makes none. GCC flags the malloc/free pairing inside
// replacement operators as mismatched; here it is the definition of the pairing. noinline keeps the calls
// going through the symbols, which valgrind replaces as a pair (else it sees its new freed by our free).
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
namespace {
std::atomic<long> g_allocations{0};
}  // namespace
[[gnu::noinline]] void* operator new(std::size_t n) {
  ++g_allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void* operator new(std::size_t n, const std::nothrow_t&) noexcept {  // simdjson uses the nothrow forms
  ++g_allocations;
  return std::malloc(n == 0 ? 1 : n);
}
[[gnu::noinline]] void* operator new[](std::size_t n) { return operator new(n); }
[[gnu::noinline]] void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace perfhound::load {
namespace {

struct Ev {
  std::string type;
  std::string data;
  bool operator==(const Ev&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Ev& e) { return os << "{" << e.type << ", '" << e.data << "'}"; }

struct Outcome {
  std::vector<Ev> events;
  SseStatus status = SseStatus::kOk;
};

// Feeds `stream` cut at the given ascending offsets; the status is the first non-kOk one.
Outcome feed_split(SseParser& parser, std::string_view stream, const std::vector<std::size_t>& cuts) {
  Outcome out;
  std::size_t from = 0;
  auto on_event = [&](const SseEvent& e) { out.events.push_back({std::string(e.type), std::string(e.data)}); };
  for (std::size_t i = 0; i <= cuts.size(); ++i) {
    const std::size_t to = i < cuts.size() ? cuts[i] : stream.size();
    // Each piece lives in its own buffer, freed after the call, so a view kept past feed() would be caught
    // by valgrind / ASan.
    const std::string piece(stream.substr(from, to - from));
    const SseStatus s = parser.feed(piece, on_event);
    if (out.status == SseStatus::kOk) out.status = s;
    from = to;
  }
  return out;
}

Outcome feed_split(std::string_view stream, const std::vector<std::size_t>& cuts, std::size_t max = 1 << 20) {
  SseParser parser(max);
  return feed_split(parser, stream, cuts);
}

std::vector<Ev> parse(std::string_view stream) { return feed_split(stream, {}).events; }

// ---- single rules

TEST(SseParser, DataLineWithAndWithoutSpace) {
  EXPECT_EQ(parse("data: a\n\ndata:b\n\ndata:  c\n\n"),
            (std::vector<Ev>{{"message", "a"}, {"message", "b"}, {"message", " c"}}));
}

TEST(SseParser, MultipleDataLinesJoinWithNewline) {
  EXPECT_EQ(parse("data: one\ndata: two\ndata:\ndata: four\n\n"),
            (std::vector<Ev>{{"message", "one\ntwo\n\nfour"}}));
}

TEST(SseParser, EventTypeAppliesToOneEventOnly) {
  EXPECT_EQ(parse("event: error\ndata: x\n\ndata: y\n\n"), (std::vector<Ev>{{"error", "x"}, {"message", "y"}}));
}

TEST(SseParser, TypeWithoutDataIsDiscardedAtTheBlankLine) {
  EXPECT_EQ(parse("event: ping\n\ndata: y\n\n"), (std::vector<Ev>{{"message", "y"}}));
}

TEST(SseParser, BlankLinesWithoutDataDispatchNothing) { EXPECT_TRUE(parse("\n\n\r\n\r\r\n").empty()); }

TEST(SseParser, EmptyDataLineDispatchesEmptyData) {
  EXPECT_EQ(parse("data:\n\ndata\n\n"), (std::vector<Ev>{{"message", ""}, {"message", ""}}));
}

TEST(SseParser, CommentsIdRetryAndUnknownFieldsAreIgnored) {
  EXPECT_EQ(parse(": keep-alive\n:\nid: 7\nretry: 1000\nfoo: bar\nDATA: upper\ndata: x\n\n"),
            (std::vector<Ev>{{"message", "x"}}));
}

TEST(SseParser, FieldNameIsEverythingBeforeTheFirstColon) {
  EXPECT_EQ(parse("data: a:b: c\n\ndata : not data\n\n"), (std::vector<Ev>{{"message", "a:b: c"}}));
}

TEST(SseParser, AllThreeLineEndings) {
  EXPECT_EQ(parse("data: a\r\n\r\ndata: b\r\rdata: c\n\ndata: d\r\ndata: e\r\r\n"),
            (std::vector<Ev>{{"message", "a"}, {"message", "b"}, {"message", "c"}, {"message", "d\ne"}}));
}

TEST(SseParser, CrLfSplitAcrossFeedsIsOneLineEnding) {
  // Were the LF taken as a second line ending, the blank line would dispatch "a" alone before "b".
  const Outcome out = feed_split("data: a\r\ndata: b\r\n\r\n", {8});
  EXPECT_EQ(out.events, (std::vector<Ev>{{"message", "a\nb"}}));
}

TEST(SseParser, LeadingBomIsSkippedOnce) {
  EXPECT_EQ(parse("\xEF\xBB\xBF" "data: a\n\n"), (std::vector<Ev>{{"message", "a"}}));
  // A second BOM is part of the first field name, so that line is an unknown field.
  EXPECT_EQ(parse("\xEF\xBB\xBF\xEF\xBB\xBF" "data: a\n\ndata: b\n\n"), (std::vector<Ev>{{"message", "b"}}));
  // A BOM later in the stream is not special either.
  EXPECT_EQ(parse("data: a\n\n\xEF\xBB\xBF" "data: b\n\n"), (std::vector<Ev>{{"message", "a"}}));
}

TEST(SseParser, BomPrefixThatIsNotABomIsKeptAsLineContent) {
  // EF BB then 'd': the two bytes begin the field name, so the line is not "data".
  EXPECT_EQ(parse("\xEF\xBB" "data: a\n\ndata: b\n\n"), (std::vector<Ev>{{"message", "b"}}));
  const Outcome split = feed_split("\xEF\xBB" ":x\ndata: b\n\n", {1, 2});
  EXPECT_EQ(split.events, (std::vector<Ev>{{"message", "b"}}));
}

TEST(SseParser, UnterminatedEventIsNotDispatched) {
  EXPECT_TRUE(parse("data: a\n").empty());
  EXPECT_TRUE(parse("data: a").empty());
}

TEST(SseParser, EventsCountsDispatchesAndResetStartsOver) {
  SseParser parser;
  int seen = 0;
  auto count = [&](const SseEvent&) { ++seen; };
  EXPECT_EQ(parser.feed("data: a\n\ndata: b\n\ndata: partial", count), SseStatus::kOk);
  EXPECT_EQ(parser.events(), 2u);
  parser.reset();
  EXPECT_EQ(parser.events(), 0u);
  // The partial line was dropped: this is a fresh stream, where a BOM is skipped again.
  EXPECT_EQ(parser.feed("\xEF\xBB\xBF" "data: c\n\n", [&](const SseEvent& e) { EXPECT_EQ(e.data, "c"); }),
            SseStatus::kOk);
  EXPECT_EQ(parser.events(), 1u);
  EXPECT_EQ(seen, 2);
}

// ---- split invariance

// Every rule above in one stream: BOM, all line endings (a CR LF pair right before a blank line), comments,
// types, multi-line and empty data, ignored fields, a type with no data, lines without a colon.
const std::string kStream =
    "\xEF\xBB\xBF"
    ": ping\r\n"
    "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n"
    "event: error\r"
    "data: line one\r"
    "data:line two\r\n"
    "\r\n"
    "id: 42\n"
    "retry: 3000\n"
    "event: lonely\n"
    "\n"
    "data\n"
    "\r"
    "data: \n"
    "data\n"
    "unknown: x\n"
    "\n"
    "data: tail\r\n\r\n"
    "data: [DONE]\r\r";

const std::vector<Ev> kExpected = {
    {"message", "{\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}"},
    {"error", "line one\nline two"},
    {"message", ""},
    {"message", "\n"},
    {"message", "tail"},
    {"message", "[DONE]"},
};

TEST(SseParser, WholeStreamGivesTheExpectedEvents) { EXPECT_EQ(parse(kStream), kExpected); }

TEST(SseParser, EverySingleSplitGivesTheSameEvents) {
  for (std::size_t cut = 0; cut <= kStream.size(); ++cut) {
    const Outcome out = feed_split(kStream, {cut});
    ASSERT_EQ(out.events, kExpected) << "split at " << cut;
  }
}

TEST(SseParser, EveryPairOfSplitsGivesTheSameEvents) {
  SseParser parser;
  for (std::size_t a = 0; a <= kStream.size(); ++a) {
    for (std::size_t b = a; b <= kStream.size(); ++b) {
      parser.reset();
      const Outcome out = feed_split(parser, kStream, {a, b});
      ASSERT_EQ(out.events, kExpected) << "splits at " << a << " and " << b;
      ASSERT_EQ(parser.events(), kExpected.size());
    }
  }
}

TEST(SseParser, ByteByByteGivesTheSameEvents) {
  std::vector<std::size_t> cuts;
  for (std::size_t i = 1; i < kStream.size(); ++i) cuts.push_back(i);
  EXPECT_EQ(feed_split(kStream, cuts).events, kExpected);
}

TEST(SseParser, RandomSplitsOfALongStreamGiveTheSameEvents) {
  std::string stream;
  for (int i = 0; i < 300; ++i) stream += kStream.substr(i == 0 ? 0 : 3);  // the BOM only at the very start
  const std::vector<Ev> whole = parse(stream);
  ASSERT_EQ(whole.size(), 300 * kExpected.size());
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<std::size_t> cuts;
    std::size_t at = 0;
    while (true) {
      at += std::uniform_int_distribution<std::size_t>(0, 40)(rng);
      if (at >= stream.size()) break;
      cuts.push_back(at);
    }
    ASSERT_EQ(feed_split(stream, cuts).events, whole) << "trial " << trial;
  }
}

// ---- limits

TEST(SseParser, LineLongerThanTheLimitIsOverlong) {
  const std::string ok = "data: " + std::string(10, 'x') + "\n\n";  // 16-byte line
  EXPECT_EQ(feed_split(ok, {}, 16).status, SseStatus::kOk);
  EXPECT_EQ(feed_split(ok, {}, 15).status, SseStatus::kOverlong);
  // A comment counts as a line too.
  EXPECT_EQ(feed_split(": " + std::string(20, 'c') + "\n", {}, 16).status, SseStatus::kOverlong);
}

TEST(SseParser, EventLongerThanTheLimitIsOverlongWhateverTheSplit) {
  // Three 4-byte data lines join to 14 bytes ("aaaa\nbbbb\ncccc"): allowed at 14, overlong at 13, though
  // each line alone (10 bytes with "data: ") fits.
  const std::string stream = "data: first\n\ndata: aaaa\ndata: bbbb\ndata: cccc\n\ndata: never\n\n";
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    const Outcome fits = feed_split(stream, {cut}, 14);
    ASSERT_EQ(fits.status, SseStatus::kOk) << cut;
    ASSERT_EQ(fits.events.size(), 3u) << cut;
    const Outcome over = feed_split(stream, {cut}, 13);
    ASSERT_EQ(over.status, SseStatus::kOverlong) << cut;
    ASSERT_EQ(over.events, (std::vector<Ev>{{"message", "first"}})) << cut;
  }
}

TEST(SseParser, OverlongIsStickyUntilReset) {
  SseParser parser(8);
  int seen = 0;
  auto count = [&](const SseEvent&) { ++seen; };
  EXPECT_EQ(parser.feed("data: much too long\n\n", count), SseStatus::kOverlong);
  EXPECT_EQ(parser.feed("data: a\n\n", count), SseStatus::kOverlong);
  EXPECT_EQ(seen, 0);
  parser.reset();
  EXPECT_EQ(parser.feed("data: a\n\n", count), SseStatus::kOk);
  EXPECT_EQ(seen, 1);
}

TEST(SseParser, EndlessLineStopsAtTheLimit) {
  // A server that never ends a line: the parser must give up at the limit, not buffer forever.
  SseParser parser(64 * 1024);
  const std::string chunk(4096, 'x');
  int feeds = 0;
  while (parser.feed(chunk, [](const SseEvent&) {}) == SseStatus::kOk) ++feeds;
  EXPECT_EQ(feeds, 16);  // 16 * 4096 bytes is exactly the limit; the 17th feed passes it
}

// ---- copies

TEST(SseParser, WholeSingleLineEventIsAViewOfTheInput) {
  const std::string input = "data: {\"a\":1}\n\n";
  SseParser parser;
  bool in_input = false;
  (void)parser.feed(input, [&](const SseEvent& e) {
    in_input = e.data.data() >= input.data() && e.data.data() + e.data.size() <= input.data() + input.size();
  });
  EXPECT_TRUE(in_input);
}

TEST(SseParser, DataPendingAtTheEndOfAFeedSurvivesIt) {
  SseParser parser;
  std::string got;
  {
    std::string first = "data: kept\n";
    (void)parser.feed(first, [&](const SseEvent& e) { got = e.data; });
    first.assign(first.size(), '#');  // the caller reuses its buffer
  }
  (void)parser.feed("\n", [&](const SseEvent& e) { got = e.data; });
  EXPECT_EQ(got, "kept");
}

TEST(SseParser, SteadyStateAllocatesNothing) {
  // The mixed stream cut into 7-byte pieces exercises partial lines, multi-line data and data pending at
  // the end of a feed; after one pass the buffers have all the capacity they need.
  std::vector<std::string> pieces;
  for (std::size_t at = 3; at < kStream.size(); at += 7) pieces.push_back(kStream.substr(at, 7));
  SseParser parser;
  std::size_t bytes = 0;
  auto on_event = [&](const SseEvent& e) { bytes += e.data.size(); };
  for (const auto& piece : pieces) (void)parser.feed(piece, on_event);
  const long before = g_allocations.load();
  for (int pass = 0; pass < 100; ++pass) {
    for (const auto& piece : pieces) (void)parser.feed(piece, on_event);
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
  EXPECT_EQ(parser.events(), 101 * kExpected.size());
  EXPECT_GT(bytes, 0u);
}

}  // namespace
}  // namespace perfhound::load
