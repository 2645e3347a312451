// Where a program a command runs would be found, as execvp finds it: asked before anything is changed on its
// behalf (record removes the old trace, report renders with node), so a mistyped name changes nothing.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace perfhound::cli {

// The first of `names` that is an executable file in a folder of $PATH (an empty entry: the current folder; no
// PATH: the system's default), as execvp searches, as its path.
std::optional<std::string> find_on_path(std::initializer_list<std::string_view> names);

// Why `program` (a name looked up on $PATH, or a path when it has a '/') cannot be run: "not found on PATH",
// "'DIR/NAME' is on PATH but not executable", "no such file", "a folder, not a program", "not executable"; empty
// when it can.
std::string why_program_cannot_run(const std::string& program);

}  // namespace perfhound::cli
