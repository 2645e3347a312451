#include "cli/output.h"

#include <ostream>

#include "core/output_file.h"
#include "report/json_document.h"

namespace perfhound::cli {

void add_output_flags(CLI::App& app, OutputOptions& options) {
  app.add_flag("--json", options.json, "Print the result as a versioned JSON document on stdout instead of a table");
  // Checked as the flags are read, before anything is measured: a long load or sweep must not end in "cannot
  // write" with its result lost, and a folder given as -o is said as such.
  app.add_option("-o,--output", options.output_path, "Also write the JSON document to this file")
      ->check(CLI::Validator(
          [](std::string& text) {
            const core::Status s = core::check_output_file("-o", text, "result.json");
            // CLI11 puts "--output: " in front itself
            return s.ok() ? std::string() : s.error().message.substr(std::string_view("-o: ").size());
          },
          "FILE"));
}

CLI::Validator a_file_name() {
  return CLI::Validator([](std::string& text) { return text.empty() ? std::string("give a file name, not ''") : std::string(); },
                        "FILE");
}

std::string conditions_block(const core::Conditions& conditions) {
  std::string s = "\nconditions:\n";
  for (const auto& line : conditions.to_lines()) s += "  " + line + "\n";
  return s;
}

void print_diagnostics(const Context& context, const std::vector<core::Diagnostic>& diagnostics) {
  for (const auto& d : diagnostics) *context.err << core::format_diagnostic(d);
}

core::Status emit_result(const Context& context, const OutputOptions& options, const nlohmann::ordered_json& document,
                         std::string_view text) {
  // Names from traces can hold invalid UTF-8 (nsys StringIds); replace those bytes rather than throw.
  const std::string json = document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  if (!options.output_path.empty()) {
    PH_TRY(report::write_text_file(options.output_path, json + "\n").with_context("-o"));
  }
  if (options.json) {
    *context.out << json << '\n';
  } else {
    *context.out << text;
  }
  return {};
}

}  // namespace perfhound::cli
