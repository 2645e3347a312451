// Where perfhound record's injection library writes the trace of a CUDA process the recorded program started (a
// launcher's worker, a shell's child): beside the program's, its file name tagged with the pid, before ".json"
// where the name ends so: run.json -> run.pid1234.json; run -> run.pid1234. Only the file name is tagged, never a
// folder ("a.json.d/out" -> "a.json.d/out.pid1234"). One rule for the library that writes and for
// `perfhound record`, which finds the files afterwards. Pure.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace perfhound::record {

// The file name before and after the pid: {"run.pid", ".json"} for "run.json".
inline std::pair<std::string, std::string> child_trace_name_parts(std::string_view file_name) {
  constexpr std::string_view kJson = ".json";
  if (file_name.size() > kJson.size() && file_name.ends_with(kJson)) {
    return {std::string(file_name.substr(0, file_name.size() - kJson.size())) + ".pid", std::string(kJson)};
  }
  return {std::string(file_name) + ".pid", ""};
}

// The path of process `pid`'s trace, for the program's trace at `output`.
inline std::string child_trace_path(const std::string& output, long pid) {
  const std::size_t slash = output.rfind('/');
  const std::size_t name_at = slash == std::string::npos ? 0 : slash + 1;
  const auto [before, after] = child_trace_name_parts(std::string_view(output).substr(name_at));
  return output.substr(0, name_at) + before + std::to_string(pid) + after;
}

// The pid in `file_name` when it is a child trace's name for the program's trace named `output_name`, else none.
inline std::optional<long> child_trace_pid(std::string_view file_name, std::string_view output_name) {
  const auto [before, after] = child_trace_name_parts(output_name);
  if (file_name.size() <= before.size() + after.size() || !file_name.starts_with(before) || !file_name.ends_with(after)) {
    return std::nullopt;
  }
  const std::string_view digits = file_name.substr(before.size(), file_name.size() - before.size() - after.size());
  if (digits.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  return std::strtol(std::string(digits).c_str(), nullptr, 10);
}

}  // namespace perfhound::record
