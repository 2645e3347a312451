#include "compare/compare_conditions.h"

#include <algorithm>
#include <fmt/format.h>

namespace perfhound::compare {
namespace {

using Json = nlohmann::ordered_json;
using Flat = std::vector<std::pair<std::string, Json>>;

void flatten_into(const Json& value, const std::string& prefix, Flat& out) {
  // An empty object is a leaf too, so that {} against {"x": 1} shows as a difference of "key" and of "key.x".
  if (value.is_object() && !value.empty()) {
    for (const auto& [key, child] : value.items()) {
      flatten_into(child, prefix.empty() ? key : prefix + "." + key, out);
    }
    return;
  }
  out.emplace_back(prefix, value);
}

const Json* find(const Flat& flat, const std::string& key) {
  for (const auto& [k, v] : flat) {
    if (k == key) return &v;
  }
  return nullptr;
}

bool any_matches(const std::vector<std::string>& patterns, std::string_view key) {
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) { return pattern_matches(p, key); });
}

constexpr std::size_t kMaxShown = 40;

std::string quoted(const Json& v) {
  if (v.is_null()) return "absent";
  // fmt rather than "'" + s + "'": g++ 12 warns -Wrestrict on that concatenation (GCC bug 105329).
  return v.is_string() ? fmt::format("'{}'", v.get_ref<const std::string&>()) : v.dump();
}

std::string cut(const std::string& text, std::size_t from) {
  std::string out = from > 0 ? "..." + text.substr(from) : text;
  if (out.size() > kMaxShown) out = out.substr(0, kMaxShown - 3) + "...";
  return out;
}

// Both values, each at most kMaxShown characters; when both are long, cut around where they first differ
// so the difference itself shows ("...fixed 200 us..." vs "...fixed 220 us...").
std::pair<std::string, std::string> shown_pair(const Json& a, const Json& b) {
  const std::string x = quoted(a), y = quoted(b);
  if (x.size() <= kMaxShown && y.size() <= kMaxShown) return {x, y};
  std::size_t common = 0;
  while (common < x.size() && common < y.size() && x[common] == y[common]) ++common;
  constexpr std::size_t kContext = 12;
  const std::size_t from = common > kContext ? common - kContext : 0;
  return {cut(x, std::min(from, x.size())), cut(y, std::min(from, y.size()))};
}

}  // namespace

core::Result<Flat> flatten_conditions(const Json& conditions) {
  if (!conditions.is_object()) {
    return core::Error{fmt::format("conditions: expected a JSON object, got {}", conditions.type_name())};
  }
  Flat out;
  // The open parameters are named by their own keys: they are what a person declares with --variable.
  for (const auto& [key, value] : conditions.items()) {
    if (key == "parameters" && value.is_object()) {
      for (const auto& [pkey, pvalue] : value.items()) flatten_into(pvalue, pkey, out);
    } else {
      flatten_into(value, key, out);
    }
  }
  return out;
}

bool pattern_matches(std::string_view pattern, std::string_view key) {
  if (pattern.empty()) return false;
  if (key == pattern) return true;
  return key.size() > pattern.size() && key.starts_with(pattern) && key[pattern.size()] == '.';
}

core::Result<ConditionsDiff> diff_conditions(const Json& a, const Json& b, const ConditionsRule& rule) {
  PH_ASSIGN_OR_RETURN(const Flat flat_a, flatten_conditions(a).with_context("A"));
  PH_ASSIGN_OR_RETURN(const Flat flat_b, flatten_conditions(b).with_context("B"));
  ConditionsDiff diff;
  std::vector<std::string> keys;
  for (const auto& [k, v] : flat_a) keys.push_back(k);
  for (const auto& [k, v] : flat_b) {
    if (find(flat_a, k) == nullptr) keys.push_back(k);
  }
  for (const std::string& key : keys) {
    const Json* va = find(flat_a, key);
    const Json* vb = find(flat_b, key);
    static const Json kNull;
    const Json& x = va ? *va : kNull;
    const Json& y = vb ? *vb : kNull;
    if (va != nullptr && vb != nullptr && x == y) continue;
    if (any_matches(rule.variables, key)) {
      diff.variable.push_back({key, x, y});
    } else if (any_matches(rule.ignored, key)) {
      diff.ignored.push_back(key);
    } else {
      diff.differing.push_back({key, x, y});
    }
  }
  for (const std::string& pattern : rule.variables) {
    const auto matches = [&](const auto& kv) { return pattern_matches(pattern, kv.first); };
    const bool known = std::any_of(flat_a.begin(), flat_a.end(), matches) ||
                       std::any_of(flat_b.begin(), flat_b.end(), matches);
    const bool changed = std::any_of(diff.variable.begin(), diff.variable.end(),
                                     [&](const KeyDifference& d) { return pattern_matches(pattern, d.key); });
    if (!known) {
      diff.unknown_variables.push_back(pattern);
    } else if (!changed) {
      diff.unchanged_variables.push_back(pattern);
    }
  }
  return diff;
}

std::string describe_differences(std::span<const KeyDifference> differences) {
  std::string out;
  for (const KeyDifference& d : differences) {
    if (!out.empty()) out += ", ";
    const auto [a, b] = shown_pair(d.a, d.b);
    out += fmt::format("{} ({} vs {})", d.key, a, b);
  }
  return out;
}

Json to_json(const ConditionsDiff& diff) {
  const auto list = [](const std::vector<KeyDifference>& ds) {
    Json out = Json::array();
    for (const KeyDifference& d : ds) out.push_back({{"key", d.key}, {"a", d.a}, {"b", d.b}});
    return out;
  };
  Json j;
  j["comparable"] = diff.comparable();
  j["differing"] = list(diff.differing);
  j["variable"] = list(diff.variable);
  j["ignored"] = diff.ignored;
  j["unchanged_variables"] = diff.unchanged_variables;
  j["unknown_variables"] = diff.unknown_variables;
  return j;
}

}  // namespace perfhound::compare
