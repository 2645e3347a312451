#include "core/diagnostics.h"

#include <array>
#include <fmt/format.h>

namespace perfhound::core {

std::span<const DiagnosticKind> all_diagnostic_kinds() {
  static constexpr std::array kAll{
      kFewSamplesForTail, kNoWarmupDiscarded, kHighVariability,   kUnknownCategory,       kCaptureWindows,
      kRecordsDropped,    kBeatsTheRoof,      kDoesNotFit,        kModelAssumption,       kUnlockedClocks,
      kClientLimited,     kClientBusy,        kRequestsFailed,    kPartialRun,            kMissingShards,
      kTokensCounted,     kChunksTogether,    kColdSlots,         kConcurrencyNotReached, kSoakDrift,         kConditionsDiffer,      kClockDropped,
      kClockThrottled,    kClockPowerCapped,  kNvmlUnavailable,   kFigureUnsupported,     kBenchNotConverged,
      kBenchFailed,       kBlockingKernelTimedOut};
  return kAll;
}

std::string_view severity_name(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kSevere: return "severe";
  }
  return "unknown";
}

std::string format_diagnostic(const Diagnostic& d) {
  // A message quoted from another tool (ncu's "==WARNING== ... may be inconsistent.") brings its own full stop.
  std::string_view message = d.message;
  if (message.ends_with('.') && !message.ends_with("..")) message.remove_suffix(1);  // "..." stays
  return fmt::format("{} [{}]: {}. Remedy: {}.\n", severity_name(d.kind->severity), d.kind->id, message,
                     d.kind->remedy);
}

nlohmann::ordered_json diagnostics_to_json(const std::vector<Diagnostic>& diagnostics) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& d : diagnostics) {
    out.push_back({{"id", d.kind->id},
                   {"severity", severity_name(d.kind->severity)},
                   {"message", d.message},
                   {"remedy", d.kind->remedy}});
  }
  return out;
}

}  // namespace perfhound::core
