// Conditions: what a number was measured under (DESIGN.md principle 1). Every result perfhound writes
// carries one, and every report prints it next to the numbers.
//
// Fixed part: the tool (version, git sha, build type, compiler), the host (name, CPU model, cores, memory,
// OS), the UTC time the run started, and the command line. Open part: ordered key/values that each command
// fills with what its numbers depend on (model, precision, hardware, batch, input/output lengths, framework
// version, warm-up discarded, seed...). Values are JSON scalars so numbers stay numbers.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/host_info.h"
#include "core/result.h"

namespace perfhound::core {

struct ToolInfo {
  std::string name = "perfhound";
  std::string version;
  std::string git_sha;
  std::string build_type;
  std::string compiler;
};

class Conditions {
 public:
  Conditions() = default;
  Conditions(ToolInfo tool, HostInfo host, std::string timestamp_utc, std::vector<std::string> command_line);

  // The tool and host of this process, the current time, and argv.
  static Conditions capture(int argc, const char* const* argv);

  // Sets or replaces one open key; insertion order is kept for printing. Keys are snake_case.
  void set(std::string_view key, nlohmann::ordered_json value);
  bool has(std::string_view key) const;
  // The value of an open key, or null if unset.
  const nlohmann::ordered_json& get(std::string_view key) const;
  const nlohmann::ordered_json& parameters() const { return parameters_; }

  const ToolInfo& tool() const { return tool_; }
  const HostInfo& host() const { return host_; }
  const std::string& timestamp_utc() const { return timestamp_utc_; }
  const std::vector<std::string>& command_line() const { return command_line_; }

  nlohmann::ordered_json to_json() const;
  // Reads what to_json() wrote; errors name the missing or mistyped field.
  static Result<Conditions> from_json(const nlohmann::ordered_json& json);

  // Lines for a person: "perfhound 0.1.0 (sha) Release, host (CPU, N cores, M GiB), OS, time", then the
  // open key/values as "key: value".
  std::vector<std::string> to_lines() const;

 private:
  ToolInfo tool_;
  HostInfo host_;
  std::string timestamp_utc_;
  std::vector<std::string> command_line_;
  nlohmann::ordered_json parameters_ = nlohmann::ordered_json::object();
};

}  // namespace perfhound::core
