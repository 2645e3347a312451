#include "cli/output.h"

#include <fmt/format.h>

#include <filesystem>
#include <ostream>

#include "core/output_file.h"
#include "report/json_document.h"

namespace perfhound::cli {

void add_output_flags(CLI::App& app, OutputOptions& options) {
  app.add_flag("--json", options.json, "Print the result as a versioned JSON document on stdout instead of a table");
  // What the name itself says is checked as the flags are read: empty, or a folder. Whether its folder exists
  // and is writable is checked by the command before it measures (check_output_folder): sweep makes its --out
  // folder first, and under mpirun only rank 0 writes.
  app.add_option("-o,--output", options.output_path, "Also write the JSON document to this file")
      ->check(CLI::Validator(
          [](std::string& text) {
            const core::Status s = core::check_output_name("-o", text, "result.json");
            // CLI11 puts "--output: " in front itself
            return s.ok() ? std::string() : s.error().message.substr(std::string_view("-o: ").size());
          },
          "FILE"));
}

core::Status check_output_folder(const OutputOptions& options) {
  if (options.output_path.empty()) return {};
  return core::check_output_file("-o", options.output_path, "result.json");
}

CLI::Validator a_file_name() {
  return CLI::Validator([](std::string& text) { return text.empty() ? std::string("give a file name, not ''") : std::string(); },
                        "FILE");
}

bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ea, eb;
  const fs::path pa = fs::weakly_canonical(fs::absolute(a, ea), ea);
  const fs::path pb = fs::weakly_canonical(fs::absolute(b, eb), eb);
  if (ea || eb) return false;
  std::error_code ec;
  if (pa == pb) return !fs::exists(pa, ec) || fs::is_regular_file(pa, ec);
  return fs::is_regular_file(pa, ec) && fs::is_regular_file(pb, ec) && fs::equivalent(pa, pb, ec);
}

core::Status check_not_an_input(std::string_view flag, const std::string& output, const std::vector<std::string>& inputs) {
  if (output.empty()) return {};
  for (const std::string& input : inputs) {
    if (!input.empty() && same_file(output, input)) {
      return core::Error{fmt::format("{} '{}' is the input '{}': give another file (writing it would replace what it holds)",
                                     flag, output, input)};
    }
  }
  return {};
}

core::Status check_distinct_outputs(std::string_view flag_a, const std::string& a, std::string_view flag_b,
                                    const std::string& b) {
  if (a.empty() || b.empty() || !same_file(a, b)) return {};
  return core::Error{fmt::format("{} and {} name one file ('{}'): give each its own", flag_a, flag_b, b)};
}

std::string conditions_block(const core::Conditions& conditions) {
  std::string s = "\nconditions:\n";
  for (const auto& line : conditions.to_lines()) s += "  " + line + "\n";
  return s;
}

void print_diagnostics(const Context& context, const std::vector<core::Diagnostic>& diagnostics) {
  *context.err << diagnostic_lines(diagnostics);
}

std::string diagnostic_lines(const std::vector<core::Diagnostic>& diagnostics) {
  std::string lines;
  for (const auto& d : diagnostics) lines += core::format_diagnostic(d);
  return lines;
}

core::Status emit_result(const Context& context, const OutputOptions& options, const nlohmann::ordered_json& document,
                         std::string_view text, std::string_view diagnostics) {
  // Names from traces can hold invalid UTF-8 (nsys StringIds); replace those bytes rather than throw.
  const std::string json = document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  if (!options.output_path.empty()) {
    PH_TRY(report::write_text_file(options.output_path, json + "\n").with_context("-o"));
  }
  if (options.json) {
    *context.out << json << '\n';
    *context.err << diagnostics;
    return {};
  }
  const auto conditions = text.rfind("\nconditions:\n");
  if (conditions == std::string_view::npos) {
    *context.out << text << diagnostics;
  } else {
    *context.out << text.substr(0, conditions) << (diagnostics.empty() ? "" : "\n") << diagnostics
                 << text.substr(conditions);
  }
  return {};
}

}  // namespace perfhound::cli
