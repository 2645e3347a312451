// Build identity of this perfhound binary, for --version and every result's Conditions block.
#pragma once

#include <string_view>

namespace perfhound::core {

std::string_view tool_version();  // semantic version from CMakeLists.txt, e.g. "0.1.0"
std::string_view git_sha();       // short sha of the source tree at build time, "-dirty" if modified, or "unknown"
std::string_view build_type();    // CMake build type, e.g. "Release"
std::string_view compiler();      // e.g. "GNU-12.2.0"

}  // namespace perfhound::core
