#include "cli/hw_command.h"

#include <fmt/format.h>
#include <ostream>

#include "cli/output.h"
#include "core/conditions.h"
#include "core/units.h"
#include "hw/chip_spec.h"
#include "report/json_document.h"
#include "report/table_writer.h"

namespace perfhound::cli {
namespace {

// A measured ceiling in its unit, read from the key's suffix (probe's keys: "copy_bytes_per_s",
// "bf16_flops_per_s", "kernel_launch_s"), with its p10-p90 spread where the file has it.
std::string measured_value(const hw::ChipSpec& c, const std::string& key, const hw::SourcedValue& v) {
  const auto with_unit = [&](double x) {
    if (key.ends_with("_bytes_per_s")) return core::format_si(x, "B/s");
    if (key.ends_with("_flops_per_s")) return core::format_si(x, "FLOP/s");
    if (key.ends_with("_s")) return core::format_duration_ns(x * 1e9);
    return core::format_number(x);
  };
  std::string text = with_unit(v.value);
  if (const auto spread = c.measured_spread.find(key); spread != c.measured_spread.end()) {
    text += fmt::format(" (p10 {}, p90 {})", with_unit(spread->second.p10), with_unit(spread->second.p90));
  }
  return text;
}

std::string flops(const hw::ChipSpec& c, const std::string& key) {
  const auto it = c.peak_flops.find(key);
  return it == c.peak_flops.end() ? "-" : core::format_si(it->second.value, hw::peak_rate_unit(key));
}

nlohmann::ordered_json chip_json(const hw::ChipSpec& c) {
  nlohmann::ordered_json j;
  j["name"] = c.name;
  j["display_name"] = c.display_name;
  j["vendor"] = c.vendor;
  j["architecture"] = c.architecture;
  j["sm_count"] = c.sm_count;
  for (const auto& [key, v] : c.peak_flops) j["peak_flops_per_s"][key] = {{"value", v.value}, {"source", v.source}};
  j["memory_capacity_bytes"] = c.memory_capacity_bytes;
  j["memory_bandwidth_bytes_per_s"] = {{"value", c.memory_bandwidth.value}, {"source", c.memory_bandwidth.source}};
  if (c.l2_cache_bytes) j["l2_cache_bytes"] = {{"value", c.l2_cache_bytes->value}, {"source", c.l2_cache_bytes->source}};
  if (c.interconnect_bandwidth) {
    j["interconnect"] = {{"name", c.interconnect_name},
                         {"bandwidth_bytes_per_s", c.interconnect_bandwidth->value},
                         {"source", c.interconnect_bandwidth->source}};
  }
  for (const auto& [key, v] : c.measured) {
    j["measured"][key] = {{"value", v.value}, {"source", v.source}};
    if (const auto spread = c.measured_spread.find(key); spread != c.measured_spread.end()) {
      j["measured"][key]["p10"] = spread->second.p10;
      j["measured"][key]["p90"] = spread->second.p90;
    }
  }
  j["notes"] = c.notes;
  return j;
}

class HwCommand final : public Command {
 public:
  std::string_view name() const override { return "hw"; }
  std::string_view summary() const override { return "The chip catalogue: peak FLOP/s, bandwidth, capacity, with sources"; }

  void add_flags(CLI::App& app) override {
    app.add_option("action", action_, "list, or show")->check(CLI::IsMember({"list", "show"}))->default_val("list");
    app.add_option("chip", chip_, "With show: a catalogue name (see hw list) or a chip JSON file");
    add_output_flags(app, output_);
  }

  core::Result<int> run(const Context& context) override {
    core::Conditions conditions = core::Conditions::capture(context.argc, context.argv);
    if (action_ == "list" && !chip_.empty()) {
      return core::Error{fmt::format("hw list takes no chip name; use 'perfhound hw show {}'", chip_)};
    }
    if (action_ == "list") {
      report::TableWriter t({{"name", report::Align::kLeft}, {"chip", report::Align::kLeft}, {"bf16 dense"},
                             {"fp8 dense"}, {"memory"}, {"bandwidth"}});
      auto chips = nlohmann::ordered_json::array();
      for (const auto& c : hw::chip_catalogue()) {
        t.add_row({c.name, c.display_name, flops(c, "bf16"), flops(c, "fp8"), core::format_si(c.memory_capacity_bytes, "B"),
                   core::format_si(c.memory_bandwidth.value, "B/s")});
        chips.push_back(chip_json(c));
      }
      const auto doc = report::make_json_document("hw", conditions, {{"chips", chips}});
      PH_TRY(emit_result(context, output_, doc,
                         t.render() + "\nspec-sheet figures, dense (no sparsity); 'perfhound hw show NAME' gives each "
                                      "figure's source\n"));
      return kExitOk;
    }
    if (chip_.empty()) return core::Error{"show: name a chip (see 'perfhound hw list') or a chip JSON file"};
    PH_ASSIGN_OR_RETURN(const hw::ChipSpec c, hw::find_chip(chip_));
    std::string text = fmt::format("{} ({}, {} {}, {} SMs)\n\n", c.display_name, c.name, c.vendor, c.architecture, c.sm_count);
    report::TableWriter t({{"figure", report::Align::kLeft}, {"value"}, {"source", report::Align::kLeft}});
    for (const auto& [key, v] : c.peak_flops) {
      t.add_row({"peak " + key + " (dense)", core::format_si(v.value, hw::peak_rate_unit(key)), v.source});
    }
    t.add_row({"memory bandwidth", core::format_si(c.memory_bandwidth.value, "B/s"), c.memory_bandwidth.source});
    t.add_row({"memory capacity", core::format_si(c.memory_capacity_bytes, "B") + " " + c.memory_type, ""});
    if (c.l2_cache_bytes) t.add_row({"L2 cache", core::format_bytes(c.l2_cache_bytes->value), c.l2_cache_bytes->source});
    if (c.interconnect_bandwidth) {
      t.add_row({c.interconnect_name, core::format_si(c.interconnect_bandwidth->value, "B/s"), c.interconnect_bandwidth->source});
    }
    for (const auto& [key, v] : c.measured) t.add_row({"measured " + key, measured_value(c, key, v), v.source});
    text += t.render();
    for (const auto& n : c.notes) text += "note: " + n + "\n";
    const auto doc = report::make_json_document("hw", conditions, chip_json(c));
    PH_TRY(emit_result(context, output_, doc, text));
    return kExitOk;
  }

 private:
  std::string action_ = "list";
  std::string chip_;
  OutputOptions output_;
};

}  // namespace

std::unique_ptr<Command> make_hw_command() { return std::make_unique<HwCommand>(); }

}  // namespace perfhound::cli
