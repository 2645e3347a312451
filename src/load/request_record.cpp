#include "load/request_record.h"

#include <array>

namespace perfhound::load {
namespace {

constexpr std::array<std::string_view, kErrorKindCount> kNames = {
    "none", "connect", "dns", "tls", "timeout", "http-status", "reset", "malformed", "overlong", "stream-error",
    "cancelled", "client"};

}  // namespace

std::string_view error_kind_name(ErrorKind kind) { return kNames[static_cast<std::size_t>(kind)]; }

bool parse_error_kind(std::string_view name, ErrorKind& kind) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) {
      kind = static_cast<ErrorKind>(i);
      return true;
    }
  }
  return false;
}

}  // namespace perfhound::load
