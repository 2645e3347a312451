#include "audit/claim_importer.h"

#include <fmt/format.h>
#include <vector>

namespace perfhound::audit {

std::span<const std::unique_ptr<ClaimImporter>> claim_importers() {
  static const std::vector<std::unique_ptr<ClaimImporter>> kImporters = [] {
    std::vector<std::unique_ptr<ClaimImporter>> v;
    v.push_back(make_perfhound_result_importer());
    v.push_back(make_vllm_bench_importer());
    v.push_back(make_genai_perf_importer());
    v.push_back(make_claim_file_importer());
    return v;
  }();
  return kImporters;
}

core::Result<Claim> import_claim(std::string path, std::string_view text) {
  PH_ASSIGN_OR_RETURN(const SourceDocument document, SourceDocument::parse(std::move(path), text));
  if (!document.json().is_object()) {
    return core::Error{fmt::format("'{}': expected a JSON object at the top, got {}", document.path(),
                                   document.json().type_name())};
  }
  for (const auto& importer : claim_importers()) {
    if (importer->recognizes(document.json())) return importer->import(document);
  }
  return core::Error{fmt::format(
      "'{}': not a format perfhound audit reads: expected a perfhound result (schema_version and kind "
      "\"perfhound.<command>\"), a vllm bench serve result (request_throughput, completed, duration), a genai-perf "
      "export (input_config and metrics such as request_throughput.avg) or a claim file (claim, metric or value; "
      "docs/audit.md)",
      document.path())};
}

}  // namespace perfhound::audit
