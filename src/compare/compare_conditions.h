// The diff of two Conditions blocks (core/conditions.h, in the JSON form Conditions::to_json() writes):
// what differs between a baseline run A and a candidate run B besides the one change under test
// (docs/compare.md, "The conditions rule"; seed methodology section 7 rule 4: fix everything that is not
// the variable).
//
// Keys are dotted paths to the leaves of the block: "tool.version", "tool.git_sha", "host.hostname",
// "timestamp_utc", "command_line", and each open parameter under its own name ("precision", "load"), with
// nested objects flattened ("workload.input_len"). Arrays compare whole. A key present on one side only
// differs (its other value is null).
//
// A pattern names a key or a whole subtree: "tool" matches "tool" and every "tool.*" key, "workload"
// every "workload.*". Each differing key is exactly one of:
//   variable  - matched by a declared variable (--variable): the change under test, allowed;
//   ignored   - matched by an ignore pattern: keys that differ between any two runs (timestamp, argv);
//   differing - anything else: A and B are not one change apart, and the comparison is refused.
// Variables win over ignore patterns.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace perfhound::compare {

// Keys that differ between any two runs, whatever they measured.
inline constexpr std::string_view kAlwaysIgnoredKeys[] = {"timestamp_utc", "command_line"};

struct KeyDifference {
  std::string key;
  nlohmann::ordered_json a;  // null when A lacks the key
  nlohmann::ordered_json b;  // null when B lacks the key
};

struct ConditionsRule {
  std::vector<std::string> variables;  // the declared change: patterns allowed to differ
  std::vector<std::string> ignored{std::begin(kAlwaysIgnoredKeys), std::end(kAlwaysIgnoredKeys)};
};

struct ConditionsDiff {
  std::vector<KeyDifference> differing;  // in key order of A, then keys only B has
  std::vector<KeyDifference> variable;
  std::vector<std::string> ignored;      // keys that differed and were ignored
  // Declared variables that matched a key of A or B but under which nothing differs (the change may not be
  // in the conditions at all: a server rebuilt with a patch, say). Variables that match no key at all are in
  // unknown_variables instead, usually a typo.
  std::vector<std::string> unchanged_variables;
  std::vector<std::string> unknown_variables;

  bool comparable() const { return differing.empty(); }
};

// Flattened key/values of a conditions block, in document order. Errors when it is not a JSON object.
core::Result<std::vector<std::pair<std::string, nlohmann::ordered_json>>> flatten_conditions(
    const nlohmann::ordered_json& conditions);

// True when `pattern` is `key` or one of its dotted prefixes ("tool" matches "tool.git_sha", not "toolbox").
bool pattern_matches(std::string_view pattern, std::string_view key);

// The diff of A's and B's conditions under `rule`. Errors when either is not a JSON object.
core::Result<ConditionsDiff> diff_conditions(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b,
                                             const ConditionsRule& rule);

// One line for messages: "precision ('fp16' vs 'fp8'), host.hostname ('gpu-1' vs 'gpu-2')". Values longer
// than 40 characters are cut with "...", around the place where the two first differ.
std::string describe_differences(std::span<const KeyDifference> differences);

// The JSON form: {"comparable", "differing": [{"key", "a", "b"}], "variable": [...], "ignored": [...],
// "unchanged_variables": [...], "unknown_variables": [...]}.
nlohmann::ordered_json to_json(const ConditionsDiff& diff);

}  // namespace perfhound::compare
