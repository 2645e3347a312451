#include "report/report_input.h"

#include <fmt/format.h>

#include "core/json_error.h"
#include "report/json_document.h"

namespace perfhound::report {
namespace {

using Json = nlohmann::ordered_json;

const Json& empty_array() {
  static const Json kEmpty = Json::array();
  return kEmpty;
}

}  // namespace

const std::string& ReportInput::kind() const { return document.at("kind").get_ref<const std::string&>(); }
const Json& ReportInput::conditions() const { return document.at("conditions"); }
const Json& ReportInput::result() const { return document.at("result"); }
const Json& ReportInput::diagnostics() const {
  const auto it = document.find("diagnostics");
  return it != document.end() && it->is_array() ? *it : empty_array();
}

core::Result<ReportInput> parse_report_input(std::string path, std::string_view text) {
  Json document;
  try {
    document = Json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range (core/json_error.h)
    return core::Error{fmt::format("'{}': not JSON: {}", path, core::json_error_text(e))};
  }
  const auto not_perfhound = [&](std::string_view why) {
    return core::Error{fmt::format("'{}': not a perfhound result document ({}; perfhound writes one with "
                                   "--json or -o)",
                                   path, why)};
  };
  if (!document.is_object()) return not_perfhound(fmt::format("a JSON {}, not an object", document.type_name()));
  const auto version = document.find("schema_version");
  if (version == document.end() || !version->is_number_integer()) return not_perfhound("no integer 'schema_version'");
  const auto kind = document.find("kind");
  if (kind == document.end() || !kind->is_string() || !kind->get_ref<const std::string&>().starts_with("perfhound.")) {
    return not_perfhound("no 'kind' of the form \"perfhound.<command>\"");
  }
  if (version->get<std::int64_t>() > kSchemaVersion) {
    return core::Error{fmt::format("'{}': schema_version {} is newer than this perfhound reads ({}); use the "
                                   "perfhound that wrote it",
                                   path, version->get<std::int64_t>(), kSchemaVersion)};
  }
  const auto conditions = document.find("conditions");
  if (conditions == document.end() || !conditions->is_object()) return not_perfhound("no object 'conditions'");
  if (!document.contains("result")) return not_perfhound("no 'result'");
  return ReportInput{std::move(path), std::move(document)};
}

}  // namespace perfhound::report
