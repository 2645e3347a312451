// SseParser: an incremental Server-Sent Events parser, the hot path of every streamed response.
//
// Follows the "Interpreting an event stream" rules of the WHATWG HTML standard
// (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
//   - lines end in CRLF, LF or CR; a CR at the end of one feed() and an LF at the start of the next are one
//     line ending. Input may be split at any byte across feed() calls, the result is the same;
//   - one leading UTF-8 BOM (EF BB BF) of the stream is skipped;
//   - "field:value" with one optional space after the colon stripped; a line without a colon is a field
//     with an empty value; a line starting with ':' is a comment;
//   - "data" lines are joined with '\n'; "event" sets the type, which is "message" when an event has none;
//     "id", "retry" and unknown fields are accepted and ignored;
//   - a blank line dispatches the event; an event with no data line at all is not dispatched (one empty
//     "data:" line does dispatch, with empty data). An unterminated event when the stream ends is discarded
//     (the spec's end-of-file rule): the caller simply stops feeding.
//
// Limits: a line longer than max_event_bytes (terminator excluded), or an event whose joined data is longer,
// makes feed() return kOverlong. That is sticky: every later feed() returns kOverlong without looking at its
// bytes, until reset(). Events completed before the overlong point are still delivered. Memory stays below
// about 3 * max_event_bytes whatever the input.
//
// Cost: a line that lies whole inside the fed bytes is never copied; a single-line event inside one feed is
// handed out as a view of the caller's bytes. Only lines split across feeds, multi-line data and data still
// pending when feed() returns are buffered, in buffers that keep their capacity (no allocation per event in
// steady state). Line ends are found with memchr, each byte scanned at most once per terminator kind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace perfhound::load {

// One dispatched event. The views are valid only during the on_event callback.
struct SseEvent {
  std::string_view type;  // "message" unless an "event:" line set it
  std::string_view data;  // the data lines joined with '\n'
};

enum class SseStatus { kOk, kOverlong };

class SseParser {
 public:
  static constexpr std::size_t kDefaultMaxEventBytes = 256 * 1024;

  // max_event_bytes must be at least 1.
  explicit SseParser(std::size_t max_event_bytes = kDefaultMaxEventBytes);
  std::size_t max_event_bytes() const { return max_event_bytes_; }

  // Parses `bytes`, calling on_event(const SseEvent&) for each event completed by them, in order.
  // on_event must not call back into this parser.
  template <class OnEvent>
  SseStatus feed(std::string_view bytes, OnEvent&& on_event) {
    begin_feed(bytes);
    while (next_event()) {
      on_event(static_cast<const SseEvent&>(event_));
      end_event();
    }
    return end_feed();
  }

  // Back to the start of a new stream (BOM expected again, nothing pending, not overlong, events() == 0);
  // buffers keep their capacity.
  void reset();

  // Events dispatched since construction or reset().
  std::size_t events() const { return events_; }

 private:
  void begin_feed(std::string_view bytes);
  bool next_event();  // true when event_ holds an event to dispatch; false at the end of the bytes or overlong
  void end_event();
  SseStatus end_feed();
  void find_line_ends();
  // Interprets one complete line; `in_input` when it is a view of the caller's bytes (not of line_).
  // Returns true when it dispatches an event.
  bool process_line(std::string_view line, bool in_input);

  std::size_t max_event_bytes_;

  // Per-stream state.
  std::string line_;              // the start of a line split across feeds
  std::string data_;              // the data buffer, when it cannot be a view of the caller's bytes
  std::string type_;              // the event type buffer
  std::string_view data_view_;    // the data buffer when data_in_view_: one line of the current feed's bytes
  bool data_in_view_ = false;
  bool has_data_ = false;         // a data line arrived since the last dispatch
  bool pending_cr_ = false;       // the last feed ended in CR: an LF opening the next one belongs to it
  std::uint8_t bom_matched_ = 0;  // leading BOM bytes consumed so far
  bool at_start_ = true;          // still where a BOM may be
  bool overlong_ = false;
  std::size_t events_ = 0;
  SseEvent event_;

  // The bytes of the current feed() and offsets into them; lf_ / cr_ are the next LF / CR at or after
  // pos_, or size_ when there is none.
  const char* base_ = nullptr;
  std::size_t size_ = 0;
  std::size_t pos_ = 0;
  std::size_t lf_ = 0;
  std::size_t cr_ = 0;
};

}  // namespace perfhound::load
