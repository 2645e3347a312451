#include "cli/program_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace perfhound::cli {
namespace {

// The folders execvp searches: $PATH's entries, an empty one meaning the current folder; without PATH, the
// system's default (confstr _CS_PATH: "/bin:/usr/bin" on glibc).
std::vector<std::string> path_folders() {
  std::string path;
  if (const char* env = std::getenv("PATH")) {
    path = env;
  } else {
    const std::size_t n = ::confstr(_CS_PATH, nullptr, 0);
    path.resize(n > 0 ? n : 0);
    if (n > 0) ::confstr(_CS_PATH, path.data(), n);
    if (!path.empty() && path.back() == '\0') path.pop_back();
  }
  std::vector<std::string> folders;
  std::size_t start = 0;
  while (true) {
    const std::size_t colon = path.find(':', start);
    const std::string folder = path.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    folders.push_back(folder.empty() ? "." : folder);
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return folders;
}

bool is_regular(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

std::optional<std::string> find_on_path(std::initializer_list<std::string_view> names) {
  const std::vector<std::string> folders = path_folders();
  for (const std::string_view name : names) {
    for (const std::string& folder : folders) {
      const std::string candidate = (std::filesystem::path(folder) / name).string();
      if (is_regular(candidate) && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  return std::nullopt;
}

std::string why_program_cannot_run(const std::string& program) {
  if (program.empty()) return "an empty program name";
  if (program.find('/') == std::string::npos) {
    // One pass, as execvp searches: any executable file on PATH runs; else the first file found but not
    // executable is named (execvp reports it as "Permission denied", not as missing).
    std::string not_executable;
    for (const std::string& folder : path_folders()) {
      const std::string candidate = (std::filesystem::path(folder) / program).string();
      if (!is_regular(candidate)) continue;
      if (::access(candidate.c_str(), X_OK) == 0) return "";
      if (not_executable.empty()) not_executable = candidate;
    }
    return not_executable.empty() ? "not found on PATH" : "'" + not_executable + "' is on PATH but not executable";
  }
  struct stat st {};
  if (::stat(program.c_str(), &st) != 0) return "no such file";
  if (S_ISDIR(st.st_mode)) return "a folder, not a program";
  if (::access(program.c_str(), X_OK) != 0) return "not executable (chmod +x, or run it through its interpreter)";
  return "";
}

}  // namespace perfhound::cli
