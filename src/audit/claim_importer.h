// The formats `perfhound audit` reads, each an importer that recognizes its documents by their fields and
// normalises one into a Claim (STYLE.md rule 3: adding a format is adding a file and one line in
// claim_importer.cpp). docs/audit.md maps every field.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "audit/claim.h"
#include "audit/source_document.h"
#include "core/result.h"

namespace perfhound::audit {

class ClaimImporter {
 public:
  virtual ~ClaimImporter() = default;
  virtual std::string_view format() const = 0;  // "vllm bench serve"
  // Whether the document is of this format, from the fields it has (never fails).
  virtual bool recognizes(const nlohmann::json& json) const = 0;
  // The claim; an error names the file and the field that could not be read.
  virtual core::Result<Claim> import(const SourceDocument& document) const = 0;
};

std::unique_ptr<ClaimImporter> make_perfhound_result_importer();  // perfhound.* documents (perfhound_result_importer.cpp)
std::unique_ptr<ClaimImporter> make_vllm_bench_importer();        // vllm bench serve --save-result (vllm_bench_importer.cpp)
std::unique_ptr<ClaimImporter> make_genai_perf_importer();        // profile_export_genai_perf.json (genai_perf_importer.cpp)
std::unique_ptr<ClaimImporter> make_claim_file_importer();        // claim files, docs/audit.md (claim_file_importer.cpp)

// Every importer, in the order they are asked (the claim file, the loosest, last).
std::span<const std::unique_ptr<ClaimImporter>> claim_importers();

// Parses `text` (the content of `path`; YAML when the name ends .yaml or .yml) and imports it with the first
// importer that recognizes it. Errors: the parse error with its line, the field error, or, when no importer
// recognizes the document, what each format is recognized by.
core::Result<Claim> import_claim(std::string path, std::string_view text);

}  // namespace perfhound::audit
