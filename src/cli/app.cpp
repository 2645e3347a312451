#include "cli/app.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <ostream>

#include "core/version.h"

namespace perfhound::cli {
namespace {

std::string version_line() {
  return fmt::format("perfhound {} (git {}, {}, {})", core::tool_version(), core::git_sha(), core::build_type(),
                     core::compiler());
}

// CLI11 messages can span lines (e.g. "... Run with --help for more information."); one line is the rule.
std::string one_line(std::string message) {
  for (char& c : message) {
    if (c == '\n') c = ' ';
  }
  while (!message.empty() && message.back() == ' ') message.pop_back();
  return message;
}

// The first flag given an empty value (--url ""): a flag left empty by a script's unset variable would otherwise read
// as left out (load --url "" tested the embedded simulator). Flags without a value (--json) are not asked, nor
// positionals: an empty argument of the program `record` runs is the program's to judge.
std::string first_empty_value(const CLI::App& command) {
  for (const CLI::Option* opt : command.get_options()) {
    if (opt->count() == 0 || opt->get_type_size() == 0 || opt->nonpositional() == false) continue;
    for (const std::string& value : opt->results()) {
      if (value.empty()) return opt->get_name();
    }
  }
  return {};
}

// The innermost command named on the line (the top level when none was).
const CLI::App& innermost_command(const CLI::App& app) {
  const CLI::App* target = &app;
  for (const CLI::App* sub : target->get_subcommands()) target = sub;
  return *target;
}

// "perfhound" or "perfhound stats": the innermost command named, as error lines start.
std::string command_name(const CLI::App& app) {
  const CLI::App& command = innermost_command(app);
  return &command == &app ? "perfhound" : "perfhound " + command.get_name();
}

// A usage error, led by the command and pointing at that command's help ('perfhound stats --help' lists stats'
// flags; 'perfhound --help' only the commands).
std::string usage_line(const CLI::App& app, const std::string& message) {
  const std::string name = command_name(app);
  return fmt::format("{}: {} (see '{} --help')", name, message, name);
}

// The words of `extras` that look like flags: not a bare value, and not `--` (CLI11 keeps the separator among
// the extras; `merge -- $FILES` with an empty glob is a missing file, not a stray `--`).
std::vector<std::string> flag_words(const std::vector<std::string>& extras) {
  std::vector<std::string> flags;
  for (const std::string& word : extras) {
    if (word.size() > 1 && word.front() == '-' && word != "--") flags.push_back(word);
  }
  return flags;
}

// One line for what the parser refused.
std::string parse_error_line(const CLI::App& app, const CLI::ParseError& e) {
  const CLI::App& command = innermost_command(app);
  // Flags before the command name are the top level's, which has none of the command's: `perfhound --json stats`
  // is the order, not the flag, that is wrong (when the command has the flag; `--nosuch` is unknown either way).
  if (const std::vector<std::string> before = flag_words(app.remaining()); &command != &app && !before.empty()) {
    const std::string name = before.front().substr(0, before.front().find('='));
    if (command.get_option_no_throw(name) != nullptr) {
      return fmt::format("perfhound: {}: flags go after the command name ('perfhound {} {} ...')", name,
                         command.get_name(), name);
    }
    return fmt::format("perfhound: {}: not a flag of perfhound {} (see 'perfhound {} --help')", name,
                       command.get_name(), command.get_name());
  }
  std::string message = one_line(e.what());
  // CLI11 checks required arguments before unexpected ones, so `stats --nosuch` said "file is required": the
  // mistyped flag is what the user needs to hear. A stray bare value is said beside the missing argument it
  // probably meant to be (`mfu llama-3-8b ...` is missing --model).
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
    const std::vector<std::string> extras = command.remaining();
    if (const std::vector<std::string> flags = flag_words(extras); !flags.empty()) {
      message = fmt::format("The following argument{} not expected: {}", flags.size() == 1 ? " was" : "s were",
                            fmt::join(flags, " "));
    } else if (const auto value = std::find_if(extras.begin(), extras.end(), [](const auto& w) { return w != "--"; });
               value != extras.end()) {
      message += fmt::format(" ('{}' was given with no flag)", *value);
    }
  }
  return usage_line(app, message);
}

}  // namespace

BuiltApp build_app() {
  BuiltApp built;
  built.app = std::make_unique<CLI::App>(
      "perfhound: find where GPU and LLM-inference time goes, name the bottleneck, prove the change.", "perfhound");
  CLI::App& app = *built.app;
  app.set_version_flag("--version", version_line(), "Print the version and git sha, then exit");
  app.require_subcommand(0, 1);
  app.footer("Run 'perfhound help <command>' for a command's flags. Exit codes: 0 ok, 1 check failed, 2 usage or "
             "input error.");
  built.commands = make_commands();
  for (auto& command : built.commands) {
    CLI::App* sub = app.add_subcommand(std::string(command->name()), std::string(command->summary()));
    command->add_flags(*sub);
  }
  return built;
}

int run_app(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  BuiltApp built = build_app();
  CLI::App& app = *built.app;

  std::string help_topic;
  CLI::App* help = app.add_subcommand("help", "Show the flags of one command");
  help->add_option("command", help_topic, "The command to describe");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << innermost_command(app).help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::CallForVersion&) {
    out << version_line() << '\n';
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    err << parse_error_line(app, e) << '\n';
    return kExitUsage;
  } catch (const std::exception& e) {
    // A flag check that threw instead of reporting: still one line and exit 2, never an abort.
    err << usage_line(app, one_line(e.what())) << '\n';
    return kExitUsage;
  }

  if (help->parsed()) {
    if (help_topic.empty()) {
      out << app.help();
      return kExitOk;
    }
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == help_topic && sub != help) {
        out << sub->help();
        return kExitOk;
      }
    }
    err << fmt::format("perfhound help: no command named '{}' (see 'perfhound --help')\n", help_topic);
    return kExitUsage;
  }

  for (auto& command : built.commands) {
    if (!app.got_subcommand(std::string(command->name()))) continue;
    if (const std::string empty = first_empty_value(*app.get_subcommand(std::string(command->name()))); !empty.empty()) {
      err << fmt::format("perfhound {}: {}: empty; give a value or leave the flag out\n", command->name(), empty);
      return kExitUsage;
    }
    Context context{argc, argv, &out, &err};
    try {
      auto result = command->run(context);
      if (!result.ok()) {
        err << fmt::format("perfhound {}: {}\n", command->name(), one_line(result.error().message));
        return kExitUsage;
      }
      return result.value();
    } catch (const std::exception& e) {
      // Library code reports bad input through Result; an exception escaping here is input we did not
      // anticipate (a third-party throw), and it still gets one line and exit 2, never an abort.
      err << fmt::format("perfhound {}: unexpected error: {}\n", command->name(), one_line(e.what()));
      return kExitUsage;
    }
  }
  out << app.help();
  return kExitOk;
}

}  // namespace perfhound::cli
