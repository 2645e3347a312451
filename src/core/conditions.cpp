#include "core/conditions.h"

#include <fmt/format.h>

#include "core/units.h"
#include "core/version.h"

namespace perfhound::core {

using Json = nlohmann::ordered_json;

Conditions::Conditions(ToolInfo tool, HostInfo host, std::string timestamp_utc, std::vector<std::string> command_line)
    : tool_(std::move(tool)),
      host_(std::move(host)),
      timestamp_utc_(std::move(timestamp_utc)),
      command_line_(std::move(command_line)) {}

Conditions Conditions::capture(int argc, const char* const* argv) {
  ToolInfo tool;
  tool.version = tool_version();
  tool.git_sha = git_sha();
  tool.build_type = build_type();
  tool.compiler = compiler();
  std::vector<std::string> args(argv, argv + argc);
  return Conditions(std::move(tool), read_host_info(), utc_timestamp_now(), std::move(args));
}

void Conditions::set(std::string_view key, Json value) { parameters_[std::string(key)] = std::move(value); }

bool Conditions::has(std::string_view key) const { return parameters_.contains(std::string(key)); }

const Json& Conditions::get(std::string_view key) const {
  static const Json kNull;
  const auto it = parameters_.find(std::string(key));
  return it == parameters_.end() ? kNull : *it;
}

Json Conditions::to_json() const {
  Json j;
  j["tool"] = {{"name", tool_.name},
               {"version", tool_.version},
               {"git_sha", tool_.git_sha},
               {"build_type", tool_.build_type},
               {"compiler", tool_.compiler}};
  j["host"] = {{"hostname", host_.hostname},
               {"cpu_model", host_.cpu_model},
               {"logical_cores", host_.logical_cores},
               {"memory_bytes", host_.memory_bytes},
               {"os", host_.os}};
  j["timestamp_utc"] = timestamp_utc_;
  j["command_line"] = command_line_;
  j["parameters"] = parameters_;
  return j;
}

namespace {

// Reads json[key] as T into out, or explains which field is missing or has the wrong type.
template <class T>
Status read_field(const Json& json, std::string_view path, std::string_view key, T& out) {
  const auto it = json.find(std::string(key));
  if (it == json.end()) return Error{fmt::format("conditions: missing field '{}{}'", path, key)};
  try {
    out = it->template get<T>();
  } catch (const nlohmann::json::exception&) {
    return Error{fmt::format("conditions: field '{}{}' has type {}, not the expected one", path, key, it->type_name())};
  }
  return {};
}

}  // namespace

Result<Conditions> Conditions::from_json(const Json& json) {
  if (!json.is_object()) return Error{"conditions: expected a JSON object"};
  for (const char* section : {"tool", "host"}) {
    if (!json.contains(section) || !json[section].is_object()) {
      return Error{fmt::format("conditions: missing object '{}'", section)};
    }
  }
  Conditions c;
  const Json& t = json["tool"];
  PH_TRY(read_field(t, "tool.", "name", c.tool_.name));
  PH_TRY(read_field(t, "tool.", "version", c.tool_.version));
  PH_TRY(read_field(t, "tool.", "git_sha", c.tool_.git_sha));
  PH_TRY(read_field(t, "tool.", "build_type", c.tool_.build_type));
  PH_TRY(read_field(t, "tool.", "compiler", c.tool_.compiler));
  const Json& h = json["host"];
  PH_TRY(read_field(h, "host.", "hostname", c.host_.hostname));
  PH_TRY(read_field(h, "host.", "cpu_model", c.host_.cpu_model));
  PH_TRY(read_field(h, "host.", "logical_cores", c.host_.logical_cores));
  PH_TRY(read_field(h, "host.", "memory_bytes", c.host_.memory_bytes));
  PH_TRY(read_field(h, "host.", "os", c.host_.os));
  PH_TRY(read_field(json, "", "timestamp_utc", c.timestamp_utc_));
  PH_TRY(read_field(json, "", "command_line", c.command_line_));
  if (json.contains("parameters")) {
    if (!json["parameters"].is_object()) return Error{"conditions: field 'parameters' is not an object"};
    c.parameters_ = json["parameters"];
  }
  return c;
}

std::vector<std::string> Conditions::to_lines() const {
  std::vector<std::string> lines;
  lines.push_back(fmt::format("{} {} ({}, {}, {})", tool_.name, tool_.version, tool_.git_sha, tool_.build_type,
                              tool_.compiler));
  lines.push_back(fmt::format("host {}: {}, {} logical cores, {} memory, {}", host_.hostname, host_.cpu_model,
                              host_.logical_cores, format_bytes(static_cast<double>(host_.memory_bytes)), host_.os));
  lines.push_back(fmt::format("started {}", timestamp_utc_));
  for (const auto& [key, value] : parameters_.items()) {
    lines.push_back(fmt::format("{}: {}", key, value.is_string() ? value.get<std::string>() : value.dump()));
  }
  return lines;
}

}  // namespace perfhound::core
