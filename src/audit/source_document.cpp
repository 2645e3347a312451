#include "audit/source_document.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <limits>
#include <yaml-cpp/yaml.h>

#include "core/json_error.h"
#include "core/json_type_name.h"

namespace perfhound::audit {
namespace {

using Json = nlohmann::json;

bool ends_with_any(std::string_view s, std::initializer_list<std::string_view> suffixes) {
  for (auto suffix : suffixes) {
    if (s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix) return true;
  }
  return false;
}

// A whole-string number, or nullopt. Accepts what strtod does (so "1e3", "inf", "nan"), nothing trailing.
std::optional<double> parse_double(std::string_view text) {
  if (text.empty()) return std::nullopt;
  const std::string s(text);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno == ERANGE) return std::nullopt;
  return v;
}

// YAML 1.2 core schema for plain scalars (https://yaml.org/spec/1.2.2/#1032-tag-resolution): null, booleans,
// decimal integers and floats with .inf / .nan; everything else stays a string.
Json plain_scalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  for (const char* inf : {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"}) {
    if (s == inf) return std::numeric_limits<double>::infinity();
  }
  for (const char* inf : {"-.inf", "-.Inf", "-.INF"}) {
    if (s == inf) return -std::numeric_limits<double>::infinity();
  }
  // Core schema numbers: [-+]? digits, with an optional fraction and exponent; no hex, no leading dot words.
  std::size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  bool digits = false, fraction = false, exponent = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      digits = true;
    } else if (c == '.' && !fraction && !exponent) {
      fraction = true;
    } else if ((c == 'e' || c == 'E') && digits && !exponent) {
      exponent = true;
      if (i + 1 < s.size() && (s[i + 1] == '-' || s[i + 1] == '+')) ++i;
    } else {
      return s;
    }
  }
  if (!digits) return s;
  if (!fraction && !exponent) {
    std::int64_t v = 0;
    const char* first = s.data() + (s[0] == '+' ? 1 : 0);
    const auto [ptr, ec] = std::from_chars(first, s.data() + s.size(), v);
    if (ec == std::errc() && ptr == s.data() + s.size()) return v;
  }
  if (const auto v = parse_double(s)) return *v;
  return s;
}

// A claim file is a few dozen values. An alias repeats its anchor's whole subtree, so eight nested levels of two
// aliases each make a 300-byte file of billions of values (10 GB before it failed): the converted values are
// counted, and past this the file is refused.
constexpr std::size_t kMaxYamlValues = 100'000;

struct YamlConverter {
  std::map<std::string, int, std::less<>>& lines;
  std::string path;
  std::size_t values = 0;

  static std::string escape_token(const std::string& key) {
    std::string out;
    for (char c : key) {
      if (c == '~') {
        out += "~0";
      } else if (c == '/') {
        out += "~1";
      } else {
        out += c;
      }
    }
    return out;
  }

  core::Result<Json> convert(const YAML::Node& node, const std::string& pointer) {
    if (++values > kMaxYamlValues) {
      return core::Error{fmt::format("'{}': more than {} values (aliases that repeat aliases?): not a claim file", path,
                                     kMaxYamlValues)};
    }
    lines[pointer] = node.Mark().line + 1;
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null: return Json(nullptr);
      case YAML::NodeType::Scalar:
        // Quoted scalars carry the non-specific tag "!": they are strings whatever they look like.
        if (node.Tag() == "!") return Json(node.Scalar());
        return plain_scalar(node.Scalar());
      case YAML::NodeType::Sequence: {
        Json array = Json::array();
        std::size_t index = 0;
        for (const auto& item : node) {
          PH_ASSIGN_OR_RETURN(Json value, convert(item, fmt::format("{}/{}", pointer, index++)));
          array.push_back(std::move(value));
        }
        return array;
      }
      case YAML::NodeType::Map: {
        Json object = Json::object();
        for (const auto& entry : node) {
          if (!entry.first.IsScalar()) {
            return core::Error{fmt::format("'{}' line {}: a mapping key must be a string", path, entry.first.Mark().line + 1)};
          }
          const std::string key = entry.first.Scalar();
          if (object.contains(key)) {
            return core::Error{fmt::format("'{}' line {}: key '{}' appears twice", path, entry.first.Mark().line + 1, key)};
          }
          PH_ASSIGN_OR_RETURN(Json value, convert(entry.second, pointer + "/" + escape_token(key)));
          object[key] = std::move(value);
        }
        return object;
      }
    }
    return Json(nullptr);
  }
};

}  // namespace

core::Result<SourceDocument> SourceDocument::parse(std::string path, std::string_view text) {
  SourceDocument doc;
  doc.path_ = std::move(path);
  doc.yaml_ = ends_with_any(doc.path_, {".yaml", ".yml", ".YAML", ".YML"});
  if (!doc.yaml_) {
    try {
      doc.json_ = Json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range (core/json_error.h)
      return core::Error{fmt::format("'{}': not JSON: {}", doc.path_, core::json_error_text(e))};
    }
    return doc;
  }
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return core::Error{fmt::format("'{}' line {}, column {}: not YAML: {}", doc.path_, e.mark.line + 1, e.mark.column + 1,
                                   e.msg)};
  }
  YamlConverter converter{doc.lines_, doc.path_};
  try {
    PH_ASSIGN_OR_RETURN(doc.json_, converter.convert(root, ""));
  } catch (const YAML::Exception& e) {
    return core::Error{fmt::format("'{}' line {}: not YAML: {}", doc.path_, e.mark.line + 1, e.msg)};
  }
  return doc;
}

const nlohmann::json* SourceDocument::find(std::string_view pointer) const {
  // Walked by hand: json_pointer throws on a malformed pointer and on indexing a non-container.
  const Json* node = &json_;
  std::size_t at = 0;
  while (at < pointer.size()) {
    if (pointer[at] != '/') return nullptr;
    const std::size_t next = pointer.find('/', at + 1);
    std::string token(pointer.substr(at + 1, next == std::string_view::npos ? std::string_view::npos : next - at - 1));
    for (std::size_t i = 0; (i = token.find('~', i)) != std::string::npos; ++i) {
      if (i + 1 < token.size()) token.replace(i, 2, token[i + 1] == '1' ? "/" : "~");
    }
    if (node->is_object()) {
      const auto it = node->find(token);
      if (it == node->end()) return nullptr;
      node = &*it;
    } else if (node->is_array()) {
      std::size_t index = 0;
      const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), index);
      if (ec != std::errc() || ptr != token.data() + token.size() || index >= node->size()) return nullptr;
      node = &(*node)[index];
    } else {
      return nullptr;
    }
    at = next == std::string_view::npos ? pointer.size() : next;
  }
  return node->is_null() ? nullptr : node;
}

core::Result<std::optional<double>> SourceDocument::number(std::string_view pointer) const {
  const Json* v = find(pointer);
  if (v == nullptr) return std::optional<double>{};
  if (v->is_number()) return std::optional<double>{v->get<double>()};
  if (v->is_string()) {
    if (const auto parsed = parse_double(v->get_ref<const std::string&>())) return std::optional<double>{*parsed};
    return field_error(pointer, fmt::format("expected a number, got the string \"{}\"", v->get_ref<const std::string&>()));
  }
  return field_error(pointer, fmt::format("expected a number, got {}", core::json_type_name(*v)));
}

core::Result<std::optional<std::string>> SourceDocument::string(std::string_view pointer) const {
  const Json* v = find(pointer);
  if (v == nullptr) return std::optional<std::string>{};
  if (v->is_string()) return std::optional<std::string>{v->get<std::string>()};
  if (v->is_number_integer() || v->is_number_unsigned()) return std::optional<std::string>{v->dump()};
  if (v->is_number_float()) return std::optional<std::string>{fmt::format("{}", v->get<double>())};
  return field_error(pointer, fmt::format("expected a string, got {}", core::json_type_name(*v)));
}

core::Result<std::optional<bool>> SourceDocument::boolean(std::string_view pointer) const {
  const Json* v = find(pointer);
  if (v == nullptr) return std::optional<bool>{};
  if (v->is_boolean()) return std::optional<bool>{v->get<bool>()};
  return field_error(pointer, fmt::format("expected true or false, got {}", core::json_type_name(*v)));
}

core::Result<std::optional<std::int64_t>> SourceDocument::count(std::string_view pointer) const {
  PH_ASSIGN_OR_RETURN(const auto v, number(pointer));
  if (!v) return std::optional<std::int64_t>{};
  // 2^53: past it a double no longer holds every whole number, and no benchmark counts that many.
  if (!(*v >= 0 && *v <= 9007199254740992.0) || std::floor(*v) != *v) {
    return field_error(pointer, fmt::format("expected a whole count >= 0, got {}", *v));
  }
  return std::optional<std::int64_t>{static_cast<std::int64_t>(*v)};
}

std::string SourceDocument::field_name(std::string_view pointer) {
  std::string out;
  std::size_t at = 0;
  while (at < pointer.size()) {
    const std::size_t next = pointer.find('/', at + 1);
    std::string token(pointer.substr(at + 1, next == std::string_view::npos ? std::string_view::npos : next - at - 1));
    const bool index = !token.empty() && token.find_first_not_of("0123456789") == std::string::npos;
    if (index) {
      out += "[" + token + "]";
    } else {
      out += (out.empty() ? "" : ".") + token;
    }
    at = next == std::string_view::npos ? pointer.size() : next;
  }
  return out.empty() ? "(the document)" : out;
}

core::Error SourceDocument::field_error(std::string_view pointer, std::string_view message) const {
  if (const auto it = lines_.find(pointer); it != lines_.end()) {
    return core::Error{fmt::format("'{}' line {}: {}: {}", path_, it->second, field_name(pointer), message)};
  }
  return core::Error{fmt::format("'{}': {}: {}", path_, field_name(pointer), message)};
}

}  // namespace perfhound::audit
