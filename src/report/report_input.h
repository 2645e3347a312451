// One perfhound result document as `perfhound report` reads it: the file it came from and its JSON, with the
// envelope of report/json_document.h checked ({"schema_version", "kind": "perfhound.<command>",
// "conditions", "result", "diagnostics"}). Pure: text in, document or error out; reading the file is the
// caller's.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/result.h"

namespace perfhound::report {

struct ReportInput {
  std::string path;                  // as the user named it; labels the run in the report
  nlohmann::ordered_json document;  // the whole envelope

  const std::string& kind() const;              // "perfhound.load", "perfhound.sweep", ...
  const nlohmann::ordered_json& conditions() const;
  const nlohmann::ordered_json& result() const;
  const nlohmann::ordered_json& diagnostics() const;  // an array; empty when the document has none
};

// Parses `text`, the content of `path`. Errors name the file: malformed JSON with its line and column
// ("'run.json': not JSON: line 3, column 7: syntax error ..."), anything else that lacks the envelope with
// the field it lacks, a schema_version newer than this perfhound reads with both numbers, and what
// check_load_document refuses. Documents of kinds this perfhound has no charts for are accepted (the report
// shows their conditions).
core::Result<ReportInput> parse_report_input(std::string path, std::string_view text);

// A perfhound.load or perfhound.sweep document's other checks: each load summary (the document's, or each sweep
// point's) an object whose throughputs (`*_per_s`) and latency and ITL figures (`*_s`) are numbers of 0 or more
// where present (a partial run may have null), `windows` an array where present, and `latency_from` ("intended
// send time" or "actual send time") stated by a load run, and valid where a sweep or its point states it (a
// sweep that does not is read by its mode): every reader of the figures draws or tests them, so text, a negative
// latency or a guessed start must be refused, not drawn. Other kinds pass unchecked.
core::Status check_load_document(const ReportInput& input);

// The first part of it, for one summary object: `where` is its path in the document ("result.summary").
core::Status check_load_summary(std::string_view path, const nlohmann::ordered_json& summary, std::string_view where);

// The latency_from a load run or sweep point states: the point's own, else the document's
// (conditions.parameters, then conditions); null when none is stated or it is empty.
const nlohmann::ordered_json* stated_latency_from(const ReportInput& input, const nlohmann::ordered_json* point);

}  // namespace perfhound::report
