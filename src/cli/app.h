// The perfhound command line: builds the CLI11 app from make_commands(), parses, dispatches, and turns every
// failure into one line on stderr and exit 2. main() is only a call to run_app, so tests drive the whole CLI
// in-process with string streams.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <memory>
#include <vector>

#include "cli/command.h"

namespace perfhound::cli {

int run_app(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

// The app with every subcommand registered, for tests that inspect the flag tables.
struct BuiltApp {
  std::unique_ptr<CLI::App> app;
  std::vector<std::unique_ptr<Command>> commands;
};
BuiltApp build_app();

}  // namespace perfhound::cli
