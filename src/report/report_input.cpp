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

// "'run.json': result.summary is a string, not an object": a field of the wrong JSON type.
core::Error wrong_type(std::string_view path, std::string_view where, const Json& value, std::string_view expected) {
  return core::Error{fmt::format("'{}': {} is a {}, not {}", path, where, value.type_name(), expected)};
}

}  // namespace

const std::string& ReportInput::kind() const { return document.at("kind").get_ref<const std::string&>(); }
const Json& ReportInput::conditions() const { return document.at("conditions"); }
const Json& ReportInput::result() const { return document.at("result"); }
const Json& ReportInput::diagnostics() const {
  const auto it = document.find("diagnostics");
  return it != document.end() && it->is_array() ? *it : empty_array();
}

core::Status check_load_summary(std::string_view path, const Json& summary, std::string_view where) {
  if (!summary.is_object()) return wrong_type(path, where, summary, "an object");
  const auto check_block = [&](const Json& block, const std::string& at, std::string_view suffix) -> core::Status {
    if (!block.is_object()) return wrong_type(path, at, block, "an object");
    for (const auto& [field, v] : block.items()) {
      if (!field.ends_with(suffix) || v.is_null()) continue;
      if (v.is_number() && v.get<double>() >= 0) continue;
      return core::Error{fmt::format("'{}': {}.{} is not a number of 0 or more: {}", path, at, field, v.dump())};
    }
    return {};
  };
  const std::string base(where);
  if (summary.contains("throughput")) PH_TRY(check_block(summary["throughput"], base + ".throughput", "_per_s"));
  if (summary.contains("itl")) PH_TRY(check_block(summary["itl"], base + ".itl", "_s"));
  if (summary.contains("latency")) {
    const Json& latency = summary["latency"];
    const std::string at = base + ".latency";
    if (!latency.is_object()) return wrong_type(path, at, latency, "an object");
    for (const auto& [from, metrics] : latency.items()) {
      if (!metrics.is_object()) return wrong_type(path, at + "." + from, metrics, "an object");
      for (const auto& [metric, block] : metrics.items()) PH_TRY(check_block(block, at + "." + from + "." + metric, "_s"));
    }
  }
  return {};
}

const Json* stated_latency_from(const ReportInput& input, const Json* point) {
  const auto stated = [](const Json& j) -> const Json* {
    if (!j.is_object()) return nullptr;
    const auto it = j.find("latency_from");
    return it != j.end() && !(it->is_string() && it->get_ref<const std::string&>().empty()) ? &*it : nullptr;
  };
  if (point != nullptr) {
    if (const Json* own = stated(*point)) return own;
  }
  const Json& conditions = input.conditions();
  const auto parameters = conditions.find("parameters");
  if (parameters != conditions.end()) {
    if (const Json* p = stated(*parameters)) return p;
  }
  return stated(conditions);
}

core::Status check_load_document(const ReportInput& input) {
  const bool load = input.kind() == "perfhound.load", sweep = input.kind() == "perfhound.sweep";
  if (!load && !sweep) return {};
  // Open and closed loops count latency from different starts; a reader must not guess which. A load run
  // states it in its conditions; a sweep per point (older sweeps: not at all, and the sweep's mode decides).
  const auto check_from = [&](const Json* point, const std::string& where) -> core::Status {
    const Json* from = stated_latency_from(input, point);
    if (from == nullptr && sweep) return {};
    if (from != nullptr && from->is_string() &&
        (from->get<std::string>() == "intended send time" || from->get<std::string>() == "actual send time")) {
      return {};
    }
    return core::Error{fmt::format("'{}': {}latency_from is {}: 'intended send time' or 'actual send time'",
                                   input.path, where, from == nullptr ? std::string("missing") : from->dump())};
  };
  const Json& result = input.result();
  if (!result.is_object()) return wrong_type(input.path, "result", result, "an object");
  const auto check_run = [&](const Json& run, const std::string& where) -> core::Status {
    if (!run.contains("summary")) return core::Error{fmt::format("'{}': {} has no summary", input.path, where)};
    PH_TRY(check_load_summary(input.path, run["summary"], where + ".summary"));
    if (run.contains("windows") && !run["windows"].is_null() && !run["windows"].is_array()) {
      return wrong_type(input.path, where + ".windows", run["windows"], "an array");
    }
    return {};
  };
  if (load) {
    PH_TRY(check_from(nullptr, "conditions.parameters."));
    return check_run(result, "result");
  }
  if (!result.contains("points")) return {};
  const Json& points = result["points"];
  if (!points.is_array()) return wrong_type(input.path, "result.points", points, "an array");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string where = fmt::format("result.points[{}]", i);
    if (!points[i].is_object()) return core::Error{fmt::format("'{}': {} is not an object", input.path, where)};
    PH_TRY(check_from(&points[i], where + "."));
    // A point that did not run (an error before it measured) has no summary: that is said in the report.
    if (points[i].contains("summary")) PH_TRY(check_run(points[i], where));
  }
  return {};
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
  ReportInput input{std::move(path), std::move(document)};
  PH_TRY(check_load_document(input));
  return input;
}

}  // namespace perfhound::report
