// The one interface every subcommand implements (STYLE.md rule 4). A subcommand is one file in src/cli/
// plus one line in commands.cpp. Its flags are registered on its CLI11 sub-app with help text; the help
// output comes from that flag table and a test fails if any flag has none.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <memory>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace perfhound::cli {

// Exit codes, the same for every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;  // the check the command makes failed (SLO missed, regression)
inline constexpr int kExitUsage = 2;        // usage or input error; one line on stderr names what is wrong
inline constexpr int kExitInterrupted = 130;  // 128 + SIGINT, what shells report for a run stopped by Ctrl-C

struct Context {
  int argc = 0;
  const char* const* argv = nullptr;
  std::ostream* out = nullptr;  // results for people, or JSON with --json
  std::ostream* err = nullptr;  // progress, warnings, errors
};

class Command {
 public:
  virtual ~Command() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view summary() const = 0;
  virtual void add_flags(CLI::App& app) = 0;
  // Returns the exit code, or an error that the caller prints as one line with exit 2.
  virtual core::Result<int> run(const Context& context) = 0;
};

// Every subcommand, in the order `perfhound --help` lists them.
std::vector<std::unique_ptr<Command>> make_commands();

}  // namespace perfhound::cli
