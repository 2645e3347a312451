#include "cli/roofline_command.h"

#include <algorithm>
#include <fmt/format.h>

#include "cli/input_diagnostics.h"
#include "cli/output.h"
#include "core/conditions.h"
#include "core/diagnostics.h"
#include "model/efficiency.h"
#include "core/units.h"
#include "hw/chip_spec.h"
#include "model/precision.h"
#include "report/json_document.h"
#include "report/roofline_chart.h"
#include "report/svg_chart.h"
#include "report/table_writer.h"
#include "roofline/ncu_csv_reader.h"
#include "roofline/roofline.h"

namespace perfhound::cli {
namespace {

using core::format_si;

// The precision word of a roof label from ncu_csv_reader's roof_from_row ("NVIDIA H200 tensor (...) + DRAM").
std::string roof_kind(const std::string& label) {
  for (const char* kind : {"tensor", "fp64", "fp32", "fp16"}) {
    if (label.find(std::string(" ") + kind) != std::string::npos) return kind;
  }
  return "roof";
}

nlohmann::ordered_json point_json(const roofline::RooflinePoint& p) {
  return {{"arithmetic_intensity_flop_per_byte", p.arithmetic_intensity},
          {"ridge_point_flop_per_byte", p.ridge_point},
          {"attainable_flops_per_s", p.attainable_flops_per_s},
          {"achieved_flops_per_s", p.achieved_flops_per_s},
          {"achieved_bytes_per_s", p.achieved_bytes_per_s},
          {"fraction_of_attainable", p.fraction_of_attainable},
          {"bound_time_s", p.bound_time_s},
          {"case", roofline::case_name(p.roofline_case)},
          {"advice", roofline::advice(p.roofline_case)}};
}

core::Result<double> parse_amount(const std::string& text, std::string_view flag) {
  auto v = core::parse_si_number(text);
  if (!v.ok()) return core::Error{fmt::format("{}: {}", flag, v.error().message)};
  if (*v < 0) return core::Error{fmt::format("{}: must not be negative, got '{}'", flag, text)};
  return *v;
}

class RooflineCommand final : public Command {
 public:
  std::string_view name() const override { return "roofline"; }
  std::string_view summary() const override {
    return "Place a kernel on the roofline: memory slope, compute roof, or below both (by hand or from ncu CSV)";
  }

  void add_flags(CLI::App& app) override {
    app.add_option("--hw", hw_, "Chip whose roofs to use (perfhound hw list, or a chip JSON file); with --ncu, "
                                "default: the ceilings ncu measured on the device");
    app.add_option("--precision", precision_, "Which compute roof: bf16, fp16, fp8, int8, fp32, tf32, fp4")->default_val("bf16");
    app.add_option("--flops", flops_, "FLOPs the kernel did, integer operations for int8 (e.g. 1.1T, 64M)");
    app.add_option("--bytes", bytes_, "Bytes it moved to and from DRAM (e.g. 805M)");
    app.add_option("--time", time_, "Its measured time (e.g. 1.45ms, 200us)");
    app.add_option("--ncu", ncu_, "Nsight Compute CSV (ncu --set roofline --csv --page raw ...): every kernel in it");
    app.add_option("--chart", chart_path_, "Also draw the roofline chart (log-log, roofs per precision, kernels as "
                                           "points) as an SVG file");
    add_output_flags(app, output_);
  }

  core::Result<int> run(const Context& context) override {
    PH_TRY(check_not_an_input("--chart", chart_path_, {ncu_}));
    PH_TRY(check_not_an_input("-o", output_.output_path, {ncu_}));
    core::Conditions conditions = core::Conditions::capture(context.argc, context.argv);
    if (!ncu_.empty()) {
      if (!flops_.empty() || !bytes_.empty() || !time_.empty()) {
        return core::Error{"--ncu reads FLOPs, bytes and times from the export; drop --flops, --bytes and --time"};
      }
      return run_ncu(context, conditions);
    }
    if (hw_.empty() || flops_.empty() || bytes_.empty() || time_.empty()) {
      return core::Error{"give --hw, --flops, --bytes and --time, or --ncu FILE.csv"};
    }
    PH_ASSIGN_OR_RETURN(const roofline::Roof roof, chip_roof(conditions));
    roofline::KernelMeasurement m;
    PH_ASSIGN_OR_RETURN(m.flops, parse_amount(flops_, "--flops"));
    PH_ASSIGN_OR_RETURN(m.bytes, parse_amount(bytes_, "--bytes"));
    PH_ASSIGN_OR_RETURN(const std::int64_t time_ns, core::parse_duration_with_unit_ns(time_).with_context("--time"));
    if (time_ns <= 0) return core::Error{fmt::format("--time must be at least 1 ns, got '{}'", time_)};
    m.time_s = core::ns_to_seconds(time_ns);
    PH_ASSIGN_OR_RETURN(const roofline::RooflinePoint p, roofline::place_on_roofline(roof, m));
    conditions.set("flops", m.flops);
    conditions.set("bytes", m.bytes);
    conditions.set("time_s", m.time_s);

    // Integer math counts operations, not floating-point ones (hw::peak_rate_unit): int8 reads in OP, OP/byte, OP/s.
    PH_ASSIGN_OR_RETURN(const model::Precision precision, model::parse_precision(precision_).with_context("--precision"));
    const std::string_view rate_unit = hw::peak_rate_unit(model::precision_info(precision).peak_key);
    const std::string op(rate_unit.substr(0, rate_unit.size() - std::string_view("/s").size()));
    // Bytes in decimal units, as --bytes 400M and the B/s beside them are.
    std::string text = fmt::format("perfhound roofline: {}, {} moved, in {} on {}\n\n", format_si(m.flops, op),
                                   format_si(m.bytes, "B"), core::format_duration_ns(m.time_s * 1e9), roof.label);
    text += fmt::format("VERDICT: {}: {}\n\n", roofline::case_name(p.roofline_case), roofline::advice(p.roofline_case));
    report::TableWriter t({{"figure", report::Align::kLeft}, {"value"}});
    t.add_row({"arithmetic intensity", fmt::format("{:.3g} {}/byte", p.arithmetic_intensity, op)});
    t.add_row({"ridge point", fmt::format("{:.3g} {}/byte", p.ridge_point, op)});
    t.add_row({"attainable", format_si(p.attainable_flops_per_s, rate_unit)});
    t.add_row({"achieved", format_si(p.achieved_flops_per_s, rate_unit) + ", " + format_si(p.achieved_bytes_per_s, "B/s")});
    t.add_row({"fraction of attainable", core::format_percent(p.fraction_of_attainable)});
    t.add_row({"roofline bound time", core::format_duration_ns(p.bound_time_s * 1e9)});
    text += t.render() + conditions_block(conditions);
    if (!chart_path_.empty()) {
      PH_ASSIGN_OR_RETURN(auto roofs, chip_roof_lines());
      PH_TRY(write_chart(roofs, {{p.arithmetic_intensity, p.achieved_flops_per_s, "kernel"}}, roof.label));
    }
    std::vector<core::Diagnostic> found;
    if (p.fraction_of_attainable > model::kBeatsRoof) {
      found.push_back({&core::kBeatsTheRoof, fmt::format("{} of attainable: the roof is not a bound for this kernel",
                                                         core::format_percent(p.fraction_of_attainable))});
    }
    const auto doc = report::make_json_document("roofline", conditions, {{"roof", roof.label}, {"point", point_json(p)}},
                                                core::diagnostics_to_json(found));
    PH_TRY(emit_result(context, output_, doc, text, diagnostic_lines(found)));
    return kExitOk;
  }

 private:
  // Every precision roof of the --hw chip for the chart, the judged one highlighted.
  core::Result<std::vector<report::RoofLine>> chip_roof_lines() const {
    PH_ASSIGN_OR_RETURN(const hw::ChipSpec chip, hw::find_chip(hw_).with_context("--hw"));
    const hw::Roof memory = hw::memory_roof(chip);
    std::vector<report::RoofLine> lines;
    // Every precision --precision takes, so the judged roof is drawn whichever it is (int8's in OP/s).
    for (const char* key : {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "fp4"}) {
      auto compute = hw::compute_roof(chip, key);
      if (!compute.ok()) continue;
      lines.push_back({fmt::format("{} {} ({})", key, format_si(compute->value, hw::peak_rate_unit(key)),
                                   compute->measured ? "measured" : "spec sheet"),
                       compute->value, memory.value, precision_ == key});
    }
    return lines;
  }

  core::Status write_chart(const std::vector<report::RoofLine>& roofs, const std::vector<report::KernelDot>& dots,
                           const std::string& subtitle) const {
    const auto chart = report::roofline_chart("Roofline: " + subtitle, roofs, dots);
    return report::write_text_file(chart_path_, report::render_svg(chart)).with_context("--chart");
  }

  // With --hw, each kernel is judged against the catalogue roof of the precision that did most of its FLOPs:
  // tensor-core work against --precision's tensor peak, CUDA-core fp32 (and fp16, which the catalogue has
  // no vector figure for) against fp32, fp64 against fp64. One tensor roof for an fp32 SIMT kernel would
  // understate it by the tensor/vector ratio (15x on an H200).
  std::optional<roofline::Roof> kernel_roof(const hw::ChipSpec& chip, const roofline::NcuKernel& k) const {
    const auto& f = k.flops_by_precision;
    std::string key = "fp32";
    if (f.tensor >= std::max({f.fp64, f.fp32, f.fp16})) {
      auto p = model::parse_precision(precision_);
      key = p.ok() ? std::string(model::precision_info(*p).peak_key) : "bf16";
    } else if (f.fp64 > std::max(f.fp32, f.fp16)) {
      key = "fp64";
    }
    auto compute = hw::compute_roof(chip, key);
    if (!compute.ok()) return std::nullopt;
    const hw::Roof memory = hw::memory_roof(chip);
    return roofline::Roof{compute->value, memory.value,
                          fmt::format("{} {} ({})", chip.display_name, key, compute->measured ? "measured" : "spec sheet")};
  }

  core::Result<roofline::Roof> chip_roof(core::Conditions& conditions) const {
    PH_ASSIGN_OR_RETURN(const hw::ChipSpec chip, hw::find_chip(hw_).with_context("--hw"));
    PH_ASSIGN_OR_RETURN(const model::Precision precision, model::parse_precision(precision_).with_context("--precision"));
    PH_ASSIGN_OR_RETURN(const hw::Roof compute,
                        hw::compute_roof(chip, model::precision_info(precision).peak_key).with_context("--hw"));
    const hw::Roof memory = hw::memory_roof(chip);
    conditions.set("hardware", chip.display_name);
    conditions.set("precision", precision_);
    conditions.set("compute_roof", compute.source);
    conditions.set("memory_roof", memory.source);
    return roofline::Roof{compute.value, memory.value,
                          fmt::format("{} ({} {}, {})", chip.display_name, precision_,
                                      compute.measured ? "measured" : "spec sheet",
                                      memory.measured ? "measured bandwidth" : "spec-sheet bandwidth")};
  }

  core::Result<int> run_ncu(const Context& context, core::Conditions& conditions) {
    PH_ASSIGN_OR_RETURN(const roofline::NcuCsv csv, roofline::read_ncu_csv(ncu_));
    std::optional<hw::ChipSpec> chip;
    if (!hw_.empty()) {
      PH_ASSIGN_OR_RETURN(chip, hw::find_chip(hw_).with_context("--hw"));
      conditions.set("hardware", chip->display_name);
    } else if (precision_ != "bf16") {
      return core::Error{"--precision picks a catalogue roof: give --hw too (without it each kernel is judged "
                         "against the ceilings ncu measured)"};
    }
    const bool fixed = chip.has_value();
    conditions.set("ncu_csv", ncu_);
    conditions.set("roofs", fixed ? "chip catalogue" : "measured by ncu on the device, at each kernel's clocks");
    std::string text = fmt::format("perfhound roofline: {} kernels from '{}'\n", csv.kernels.size(), ncu_);
    std::vector<core::Diagnostic> found = ncu_diagnostics(csv);
    for (const auto& note : csv.notes) {
      if (note.find("==WARNING==") != std::string::npos) text += "ncu said: " + note + "\n";
    }
    text += "\n";
    report::TableWriter t({{"id"}, {"kernel", report::Align::kLeft}, {"time"}, {"FLOPs"}, {"DRAM bytes"}, {"FLOP/B"},
                           {"achieved"}, {"of attainable"}, {"case", report::Align::kLeft},
                           {"binding roof", report::Align::kLeft}});
    auto kernels = nlohmann::ordered_json::array();
    std::vector<report::KernelDot> dots;
    std::vector<report::RoofLine> roof_lines;
    // Each roof a kernel was judged against, with the kernels judged against it: the table's "of attainable"
    // means nothing without the chip, precision and ceilings it divides by.
    std::vector<std::pair<std::string, std::string>> roofs_used;  // roof, "0, 1, 3"
    for (const auto& k : csv.kernels) {
      const roofline::KernelMeasurement m = roofline::dram_measurement(k);
      const std::optional<roofline::Roof> roof = chip ? kernel_roof(*chip, k) : roofline::roof_from_row(k);
      nlohmann::ordered_json j{{"id", k.id}, {"name", k.name}, {"duration_s", k.duration_s}, {"flops", k.total_flops},
                               {"dram_bytes", k.dram_bytes}};
      std::string case_text = "(no FLOPs or no roof in the row)";
      std::string achieved = "-", fraction = "-", intensity = "-", binding = "-";
      if (roof && (m.flops > 0 || m.bytes > 0)) {
        auto p = roofline::place_on_roofline(*roof, m);
        if (p.ok()) {
          j["roof"] = roof->label;
          const std::string roof_text = fmt::format("{}: {}, {}", roof->label, format_si(roof->peak_flops_per_s, "FLOP/s"),
                                                    format_si(roof->peak_bytes_per_s, "B/s"));
          const auto used = std::find_if(roofs_used.begin(), roofs_used.end(), [&](const auto& r) { return r.first == roof_text; });
          if (used == roofs_used.end()) {
            roofs_used.emplace_back(roof_text, std::to_string(k.id));
          } else {
            used->second += fmt::format(", {}", k.id);
          }
          j["point"] = point_json(*p);
          case_text = std::string(roofline::case_name(p->roofline_case));
          dots.push_back({p->arithmetic_intensity, p->achieved_flops_per_s, std::to_string(k.id)});
          // Without --hw each row brings its own ceilings at its own clocks; the chart draws the first roof of
          // each precision (the rows differ by clock only, a few percent).
          if (!fixed) {
            const std::string kind = roof_kind(roof->label);
            const std::string label = fmt::format("{} {}, {} (ncu, row {})", kind, format_si(roof->peak_flops_per_s, "FLOP/s"),
                                                  format_si(roof->peak_bytes_per_s, "B/s"), k.id);
            if (std::none_of(roof_lines.begin(), roof_lines.end(),
                             [&](const auto& r) { return r.label.rfind(kind + " ", 0) == 0; })) {
              roof_lines.push_back({label, roof->peak_flops_per_s, roof->peak_bytes_per_s, true});
            }
          }
          achieved = format_si(p->achieved_flops_per_s, "FLOP/s");
          fraction = core::format_percent(p->fraction_of_attainable);
          intensity = fmt::format("{:.3g}", p->arithmetic_intensity);
        } else {
          case_text = p.error().message;
        }
        // Hierarchical roofline (L1, L2, DRAM) where the export has each level's bytes and peak: the level
        // with the lowest attainable FLOP/s is the one that binds.
        const auto levels = roofline::memory_levels(k);
        if (!levels.empty() && m.time_s > 0) {
          auto h = roofline::place_hierarchical(roof->peak_flops_per_s, m.flops, m.time_s, levels);
          if (h.ok()) {
            auto lj = nlohmann::ordered_json::array();
            for (const auto& level : h->levels) {
              auto pj = point_json(level.point);
              pj["level"] = level.name;
              lj.push_back(std::move(pj));
            }
            // When even the tightest level attains the compute peak, no memory level binds: the compute roof does.
            const auto& tightest = h->levels[h->binding_level];
            binding = tightest.point.attainable_flops_per_s < roof->peak_flops_per_s ? tightest.name : "compute";
            j["hierarchical"] = {{"levels", lj}, {"binding", binding}};
          }
        }
      }
      kernels.push_back(std::move(j));
      std::string name = k.name.size() > 48 ? k.name.substr(0, 45) + "..." : k.name;
      t.add_row({std::to_string(k.id), name, core::format_duration_ns(k.duration_s * 1e9), format_si(k.total_flops, ""),
                 core::format_bytes(k.dram_bytes), intensity, achieved, fraction, case_text, binding});
    }
    text += t.render();
    if (!roofs_used.empty()) text += "\nroofs (attainable = min(compute, bandwidth x FLOP/B)):\n";
    for (const auto& [roof_text, ids] : roofs_used) {
      text += fmt::format("  {} {}: {}\n", ids.find(',') == std::string::npos ? "kernel" : "kernels", ids, roof_text);
    }
    text += "\ncases: memory_slope = memory-bound (fuse, quantize, raise arithmetic intensity); compute_roof = "
            "compute-bound (lower precision, better tiling); below_both = overhead or occupancy (launch "
            "configuration, registers, tiling)\n";
    text += conditions_block(conditions);
    if (!chart_path_.empty()) {
      if (fixed) {
        PH_ASSIGN_OR_RETURN(roof_lines, chip_roof_lines());
      }
      PH_TRY(write_chart(roof_lines, dots, fmt::format("{} kernels from {} (points labelled by id)", csv.kernels.size(), ncu_)));
    }
    const auto doc = report::make_json_document("roofline", conditions, {{"kernels", kernels}}, core::diagnostics_to_json(found));
    PH_TRY(emit_result(context, output_, doc, text, diagnostic_lines(found)));
    return kExitOk;
  }

  std::string hw_, precision_ = "bf16", flops_, bytes_, time_, ncu_, chart_path_;
  OutputOptions output_;
};

}  // namespace

std::unique_ptr<Command> make_roofline_command() { return std::make_unique<RooflineCommand>(); }

}  // namespace perfhound::cli
