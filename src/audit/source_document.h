// The file `perfhound audit` reads, parsed: JSON, or YAML for a claim file named *.yaml / *.yml, as one JSON
// value, with typed field readers whose errors name the file, the field and (YAML) its line. Pure: text in.
//
// YAML is read as YAML 1.2's JSON schema reads plain scalars: `12` and `1.5e3` are numbers, `true` / `false`
// booleans, `null` / `~` / empty null, anything else a string; quoted scalars are always strings. Anchors
// and aliases are followed. Mapping keys must be strings.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace perfhound::audit {

class SourceDocument {
 public:
  // Parses `text`, the content of `path`. Errors: "'c.json': not JSON: line 3, column 7: ...",
  // "'c.yaml' line 4, column 2: not YAML: ...".
  static core::Result<SourceDocument> parse(std::string path, std::string_view text);

  const std::string& path() const { return path_; }
  const nlohmann::json& json() const { return json_; }
  bool is_yaml() const { return yaml_; }

  // Fields are named by JSON pointer ("/conditions/batch"). A field that is absent or null is not there.
  const nlohmann::json* find(std::string_view pointer) const;
  bool has(std::string_view pointer) const { return find(pointer) != nullptr; }

  // Typed readers: absent or null -> nullopt; the wrong type -> an error naming the field.
  // number(): a JSON number, or a string that is one ("12", "inf": vLLM's --metadata values are strings).
  core::Result<std::optional<double>> number(std::string_view pointer) const;
  // string(): a JSON string, or a number written as text ("0.6" from YAML's plain 0.6).
  core::Result<std::optional<std::string>> string(std::string_view pointer) const;
  core::Result<std::optional<bool>> boolean(std::string_view pointer) const;
  // count(): a number that is a whole count >= 0 (requests, samples, runs); 12.0 is 12, 1.5 an error.
  core::Result<std::optional<std::int64_t>> count(std::string_view pointer) const;

  // "'claim.yaml' line 7: conditions.batch: <message>" (the line where the YAML source has one).
  core::Error field_error(std::string_view pointer, std::string_view message) const;
  // "conditions.batch" for "/conditions/batch"; "percentiles[2]" for array indices.
  static std::string field_name(std::string_view pointer);

 private:
  std::string path_;
  nlohmann::json json_;
  bool yaml_ = false;
  std::map<std::string, int, std::less<>> lines_;  // YAML: JSON pointer -> 1-based line
};

}  // namespace perfhound::audit
