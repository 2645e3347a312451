// The two output sinks every result-printing command shares (STYLE.md rule 15): the human table on stdout,
// or with --json the versioned JSON document on stdout; -o FILE also writes the JSON document to FILE.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command.h"
#include "core/conditions.h"
#include "core/diagnostics.h"
#include "core/result.h"

namespace perfhound::cli {

struct OutputOptions {
  bool json = false;
  std::string output_path;
};

void add_output_flags(CLI::App& app, OutputOptions& options);
// -o's folder exists and is writable: called before a long measurement, so that it does not end in "cannot
// write" with its result lost ("-o: no folder 'x'").
core::Status check_output_folder(const OutputOptions& options);
// A file-name flag given as '' is an error ("-o: give a file name, not ''"), not the flag left out.
CLI::Validator a_file_name();

// Whether two paths name one regular file (through links or other spellings; a file not yet there by its spelling).
// A terminal or pipe is never one: `stats /dev/stdin -o /dev/stdout` reads and writes one tty.
bool same_file(const std::string& a, const std::string& b);
// "FLAG 'out' is the input 'in': give another file" when `output` names one of `inputs` (writing it would destroy
// what was measured); fine when `output` is empty.
core::Status check_not_an_input(std::string_view flag, const std::string& output, const std::vector<std::string>& inputs);
// "FLAG_A and FLAG_B name one file: give each its own" when two outputs of one run would write one file (the second
// write would replace the first); fine when either is empty.
core::Status check_distinct_outputs(std::string_view flag_a, const std::string& a, std::string_view flag_b,
                                    const std::string& b);

// The conditions as the terminal reports end with them: a blank line, "conditions:", one indented line each.
std::string conditions_block(const core::Conditions& conditions);
// Each diagnostic as one line (core::format_diagnostic) on the context's error stream.
void print_diagnostics(const Context& context, const std::vector<core::Diagnostic>& diagnostics);

// Each diagnostic as one line, core::format_diagnostic's, for emit_result.
std::string diagnostic_lines(const std::vector<core::Diagnostic>& diagnostics);

// Writes `text` (or the document with --json) to the context's out stream, and the document to -o's file.
// `diagnostics` (whole lines, e.g. diagnostic_lines'): in text they stand in the report after the numbers, before
// its conditions block (conditions_block, which ends every text report), so a report saved with `>` keeps its
// warnings; with --json they go to the error stream, the out stream being the document.
core::Status emit_result(const Context& context, const OutputOptions& options, const nlohmann::ordered_json& document,
                         std::string_view text, std::string_view diagnostics = {});

}  // namespace perfhound::cli
