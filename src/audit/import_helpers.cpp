#include "audit/import_helpers.h"

#include <cctype>
#include <cstdlib>

namespace perfhound::audit {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::optional<double> leading_number(std::string_view s) {
  s = trim(s);
  std::size_t end = 0;
  while (end < s.size() && (std::isdigit(static_cast<unsigned char>(s[end])) || s[end] == '.')) ++end;
  if (end == 0) return std::nullopt;
  return std::strtod(std::string(s.substr(0, end)).c_str(), nullptr);
}

}  // namespace

core::Result<std::optional<std::string>> condition_text(const SourceDocument& doc, std::string_view pointer) {
  PH_ASSIGN_OR_RETURN(const auto text, doc.string(pointer));
  if (!text) return std::optional<std::string>{};
  const std::string_view t = trim(*text);
  if (t.empty()) return std::optional<std::string>{};
  return std::optional<std::string>{std::string(t)};
}

std::optional<bool> warmup_discards(std::string_view text) {
  const std::string_view t = trim(text);
  if (t == "none" || t == "no" || t == "false" || t == "off") return false;
  if (t == "yes" || t == "true") return true;
  if (const auto n = leading_number(t)) return *n > 0;
  return std::nullopt;
}

std::optional<double> seconds_per_unit(std::string_view unit) {
  const std::string_view u = trim(unit);
  if (u == "ms") return 1e-3;
  if (u == "s" || u == "sec" || u == "secs" || u == "seconds") return 1.0;
  if (u == "us") return 1e-6;
  if (u == "ns") return 1e-9;
  return std::nullopt;
}

std::optional<double> number_after(std::string_view text, std::string_view marker) {
  const auto at = text.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  return leading_number(text.substr(at + marker.size()));
}

}  // namespace perfhound::audit
