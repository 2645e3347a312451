#include "cli/program_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace perfhound::cli {

std::optional<std::string> find_on_path(std::initializer_list<std::string_view> names) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  for (const std::string_view name : names) {
    std::stringstream dirs{std::string(path)};
    for (std::string dir; std::getline(dirs, dir, ':');) {
      if (dir.empty()) continue;
      const std::filesystem::path candidate = std::filesystem::path(dir) / name;
      struct stat st {};
      if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0) {
        return candidate.string();
      }
    }
  }
  return std::nullopt;
}

std::string why_program_cannot_run(const std::string& program) {
  if (program.empty()) return "an empty program name";
  if (program.find('/') == std::string::npos) return find_on_path({program}) ? "" : "not found on PATH";
  struct stat st {};
  if (::stat(program.c_str(), &st) != 0) return "no such file";
  if (S_ISDIR(st.st_mode)) return "a folder, not a program";
  if (::access(program.c_str(), X_OK) != 0) return "not executable (chmod +x, or run it through its interpreter)";
  return "";
}

}  // namespace perfhound::cli
