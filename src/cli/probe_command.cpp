#include "cli/probe_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>

#include "cli/number_checks.h"
#include "cli/output.h"
#include "core/conditions.h"
#include "core/output_file.h"
#include "cuda/probe_report.h"
#include "cuda/probe_runner.h"
#include "hw/chip_catalogue_data.h"
#include "hw/chip_spec.h"
#include "report/json_document.h"

namespace perfhound::cli {
namespace {

// --base: a catalogue name ("h200-sxm") or a chip JSON file, read as the raw document so every spec-sheet
// field (TDP, notes, interconnect) carries over into the chip file.
core::Result<nlohmann::json> base_chip_json(const std::string& name_or_path) {
  for (const auto& [file, text] : hw::builtin_chip_files()) {
    if (file == name_or_path + ".json") return nlohmann::json::parse(text);
  }
  std::ifstream in(name_or_path);
  if (!in) {
    std::string names;
    for (const auto& [file, text] : hw::builtin_chip_files()) {
      names += (names.empty() ? "" : ", ") + std::string(file.substr(0, file.size() - 5));
    }
    return core::Error{fmt::format("--base: unknown chip '{}' (catalogue: {}; or give a chip JSON file)", name_or_path, names)};
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(buffer.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return core::Error{fmt::format("--base: '{}' is not a JSON object", name_or_path)};
  // A chip file as roofline, mfu and serve read it, so the chip file made from it reads too (and the measuring is
  // not spent on a base whose fields cannot be copied).
  const auto chip = hw::chip_spec_from_json(j, name_or_path);
  if (!chip.ok()) return core::Error{fmt::format("--base: {}", chip.error().message)};
  return j;
}

class ProbeCommand final : public Command {
 public:
  std::string_view name() const override { return "probe"; }
  std::string_view summary() const override {
    return "Measure this GPU's ceilings: memory bandwidth, GEMM FLOP/s per precision, host copies, launch latency";
  }

  void add_flags(CLI::App& app) override {
    app.add_option("--device", options_.device, "CUDA device ordinal to probe")->check(whole_number_in(0, 1023))->default_val(0);
    app.add_flag("--quick", options_.quick, "1 GiB bandwidth buffers, 256 MiB host buffers, 4096^3 GEMMs, 2 warm-ups and 10 repeats");
    app.add_option("--warmup", options_.warmup, "Warm-up runs discarded per figure (default 5, --quick 2)")
        ->check(whole_number_in(1, 1000));
    app.add_option("--repeats", options_.repeats, "Timed repeats per figure (default 20, --quick 10)")
        ->check(whole_number_in(3, 10000));
    app.add_option("--catalogue-out", catalogue_out_,
                   "Also write a chip file (data/hw schema) whose 'measured' holds these ceilings, for roofline, mfu and serve --hw")
        ->check(a_file_name());
    app.add_option("--base", base_, "With --catalogue-out: the catalogue chip (e.g. h200-sxm) or chip file whose "
                                    "spec-sheet fields the chip file keeps");
    add_output_flags(app, output_);
  }

  core::Result<int> run(const Context& context) override {
    if (!base_.empty() && catalogue_out_.empty()) {
      return core::Error{"--base: only used with --catalogue-out FILE (the chip file it fills)"};
    }
    std::optional<nlohmann::json> base;
    if (!base_.empty()) {
      PH_ASSIGN_OR_RETURN(base, base_chip_json(base_));
    }
    // The files are written after minutes of measuring: a folder that is not there is said now, not then.
    PH_TRY(check_output_folder(output_));
    if (!catalogue_out_.empty()) PH_TRY(core::check_output_file("--catalogue-out", catalogue_out_, "chip.json"));
    PH_TRY(check_distinct_outputs("-o", output_.output_path, "--catalogue-out", catalogue_out_));
    if (!cuda::built_with_cuda()) return core::Error{"built without CUDA (nvcc was not found at configure time)"};
    core::Conditions conditions = core::Conditions::capture(context.argc, context.argv);
    PH_ASSIGN_OR_RETURN(const cuda::ProbeResult result, cuda::run_probe(options_, context.err));
    cuda::add_probe_conditions(result, conditions);
    if (!base_.empty()) conditions.set("base_chip", base_);
    const auto diagnostics = cuda::probe_diagnostics(result);
    const auto doc = report::make_json_document("probe", conditions, cuda::probe_result_json(result),
                                                core::diagnostics_to_json(diagnostics));
    // A chip file that cannot be written still leaves the figures printed (and in -o's file): the error follows them.
    core::Status chip_written;
    if (!catalogue_out_.empty()) {
      auto chip = cuda::probe_chip_json(result, conditions, base);
      chip_written = chip.ok() ? report::write_text_file(catalogue_out_, chip->dump(2) + "\n") : core::Status(chip.error());
    }
    std::string text = cuda::probe_table(result);
    if (!catalogue_out_.empty() && chip_written.ok()) {
      text += fmt::format("chip file with the measured ceilings: {} (use it as roofline, mfu or serve --hw {})\n", catalogue_out_,
                          catalogue_out_);
    }
    text += conditions_block(conditions);
    PH_TRY(emit_result(context, output_, doc, text, diagnostic_lines(diagnostics)));
    PH_TRY(std::move(chip_written).with_context("--catalogue-out"));
    return kExitOk;
  }

 private:
  cuda::ProbeOptions options_;
  std::string catalogue_out_, base_;
  OutputOptions output_;
};

}  // namespace

std::unique_ptr<Command> make_probe_command() { return std::make_unique<ProbeCommand>(); }

}  // namespace perfhound::cli
