#include "cli/input_diagnostics.h"

#include <fmt/format.h>

#include "record/recorded_trace.h"

namespace perfhound::cli {
namespace {

std::string text_of(const nlohmann::ordered_json& entry, const char* key) {
  const auto it = entry.find(key);
  return it != entry.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::vector<core::Diagnostic> trace_diagnostics(const trace::Timeline& t) {
  std::vector<core::Diagnostic> diagnostics;
  for (const auto& [category, count] : t.stats.unknown_categories) {
    diagnostics.push_back({&core::kUnknownCategory, fmt::format("{} events of category '{}' were not imported", count, category)});
  }
  std::size_t windows = 0;
  for (const auto& h : t.host) {
    windows += h.kind == trace::HostKind::kUserAnnotation && t.name(h.name) == record::kCaptureWindowRangeName;
  }
  if (windows > 1) {
    diagnostics.push_back({&core::kCaptureWindows, fmt::format("'{}' holds {} capture windows", t.info.source, windows)});
  }
  if (t.info.recorder_dropped_records.value_or(0) > 0) {
    diagnostics.push_back({&core::kRecordsDropped, fmt::format("'{}': perfhound record lost {} records (CUPTI had no "
                                                               "buffer free)",
                                                               t.info.source, *t.info.recorder_dropped_records)});
  }
  return diagnostics;
}

std::vector<core::Diagnostic> ncu_diagnostics(const roofline::NcuCsv& csv) {
  std::vector<core::Diagnostic> found;
  for (const auto& note : csv.notes) {
    if (note.find("==WARNING==") != std::string::npos && note.find("unmodified GPU clocks") != std::string::npos) {
      found.push_back({&core::kUnlockedClocks, note});
    }
  }
  return found;
}

nlohmann::ordered_json carried_diagnostics(const nlohmann::ordered_json& document, std::string_view source) {
  auto out = nlohmann::ordered_json::array();
  const auto it = document.find("diagnostics");
  if (it == document.end() || !it->is_array()) return out;
  for (const auto& entry : *it) {
    if (!entry.is_object()) continue;
    const std::string severity = text_of(entry, "severity");
    if (severity == "info" || text_of(entry, "id").empty()) continue;
    out.push_back({{"id", text_of(entry, "id")},
                   {"severity", severity.empty() ? std::string("warning") : severity},
                   {"message", text_of(entry, "message")},
                   {"remedy", text_of(entry, "remedy")},
                   {"source", source}});
  }
  return out;
}

nlohmann::ordered_json carried_diagnostics(const std::vector<core::Diagnostic>& diagnostics, std::string_view source) {
  nlohmann::ordered_json document = {{"diagnostics", core::diagnostics_to_json(diagnostics)}};
  return carried_diagnostics(document, source);
}

std::string format_carried_diagnostic(const nlohmann::ordered_json& entry) {
  const std::string id = text_of(entry, "id"), remedy = text_of(entry, "remedy"), source = text_of(entry, "source");
  const std::string severity = text_of(entry, "severity");
  const std::string quoted = "'" + source + "'";
  std::string message = text_of(entry, "message");
  // Named once: a trace's own messages name their file already ("'run.json' holds 3 capture windows").
  if (message.find(quoted) == std::string::npos) message = quoted + ": " + message;
  const core::DiagnosticKind kind{id, severity == "severe" ? core::Severity::kSevere : core::Severity::kWarning, "",
                                  remedy.empty() ? std::string_view("none given by the input") : remedy};
  return core::format_diagnostic({&kind, message});
}

}  // namespace perfhound::cli
