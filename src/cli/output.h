// The two output sinks every result-printing command shares (STYLE.md rule 15): the human table on stdout,
// or with --json the versioned JSON document on stdout; -o FILE also writes the JSON document to FILE.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "cli/command.h"
#include "core/result.h"

namespace perfhound::cli {

struct OutputOptions {
  bool json = false;
  std::string output_path;
};

void add_output_flags(CLI::App& app, OutputOptions& options);

// Writes `text` (or the document with --json) to the context's out stream, and the document to -o's file.
core::Status emit_result(const Context& context, const OutputOptions& options, const nlohmann::ordered_json& document,
                         std::string_view text);

}  // namespace perfhound::cli
