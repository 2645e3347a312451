#include "core/output_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace perfhound::core {

Status check_output_name(std::string_view flag, const std::string& path, std::string_view example_name) {
  if (path.empty()) return Error{fmt::format("{}: give a file name, not ''", flag)};
  // "runs/" names a folder even where none is there yet: the file would be "runs/.partial" or fail to open.
  if (std::error_code ec; path.back() == '/' || std::filesystem::is_directory(path, ec)) {
    const std::string folder = path.back() == '/' ? path.substr(0, path.size() - 1) : path;
    return Error{fmt::format("{}: '{}' is a folder: give a file in it, e.g. '{}/{}'", flag, path, folder, example_name)};
  }
  return {};
}

Status check_output_file(std::string_view flag, const std::string& path, std::string_view example_name) {
  PH_TRY(check_output_name(flag, path, example_name));
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  if (ec) return Error{fmt::format("{}: '{}': {}", flag, path, ec.message())};
  const std::filesystem::path folder = absolute.parent_path();
  if (!std::filesystem::is_directory(folder, ec)) return Error{fmt::format("{}: no folder '{}'", flag, folder.string())};
  if (::access(folder.c_str(), W_OK) != 0) {
    return Error{fmt::format("{}: cannot write in '{}': {}", flag, folder.string(), std::strerror(errno))};
  }
  // A file already there need not be writable itself: the writers replace it by renaming a new one over it.
  return {};
}

}  // namespace perfhound::core
