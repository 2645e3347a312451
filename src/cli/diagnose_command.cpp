#include "cli/diagnose_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/input_diagnostics.h"
#include "cli/output.h"
#include "core/conditions.h"
#include "core/text_file.h"
#include "diagnose/evidence_reader.h"
#include "diagnose/playbook.h"
#include "report/json_document.h"
#include "report/report_input.h"
#include "roofline/ncu_csv_reader.h"
#include "trace/importer.h"
#include "trace/trace_analysis.h"

namespace perfhound::cli {
namespace {

namespace fs = std::filesystem;

// What a file holds, from its first bytes: a perfhound result document (written with --json or -o), an
// Nsight Compute CSV export, or else a trace for the trace importers (which recognize their own formats and
// name the file when it is none of them).
enum class InputKind { kDocument, kNcuCsv, kTrace };

constexpr std::size_t kSniffBytes = 4096;

core::Result<std::string> read_head(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    return core::Error{fmt::format("'{}' is a folder; give the files in it (one rank's trace, the results)", path)};
  }
  if (!fs::exists(path, ec)) return core::Error{fmt::format("'{}' does not exist", path)};
  std::ifstream in(path, std::ios::binary);
  if (!in) return core::Error{fmt::format("cannot open '{}' (permissions?)", path)};
  std::string head(kSniffBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (head.empty()) return core::Error{fmt::format("'{}' is empty", path)};
  return head;
}

InputKind sniff(const std::string& path, std::string_view head) {
  const auto first = head.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && head[first] == '{' &&
      head.find("\"schema_version\"") != std::string_view::npos &&
      head.find("\"perfhound.") != std::string_view::npos) {
    return InputKind::kDocument;
  }
  const std::string_view start = first == std::string_view::npos ? head : head.substr(first);
  if (path.ends_with(".csv") || start.starts_with("\"ID\"") || start.starts_with("==PROF==") ||
      start.starts_with("==WARNING==")) {
    return InputKind::kNcuCsv;
  }
  return InputKind::kTrace;
}

// One input as the diagnosis names it: the file, what it was read as, and the conditions its figures hold under
// (the chip, precision and roofs an MFU or a roofline fraction divides by, a load's target and load).
struct InputRead {
  std::string path;
  std::string kind;               // "trace (kineto-json)", "perfhound.mfu", "ncu CSV"
  nlohmann::ordered_json stated;  // {"hardware": ..., "roofs": ...}: the keys present, in kStatedKeys order
};

constexpr const char* kStatedKeys[] = {"gpu", "hardware", "precision", "roofs", "target", "load"};

nlohmann::ordered_json stated_conditions(const nlohmann::ordered_json& document) {
  nlohmann::ordered_json stated = nlohmann::ordered_json::object();
  const auto conditions = document.find("conditions");
  if (conditions == document.end() || !conditions->is_object()) return stated;
  const auto parameters = conditions->find("parameters");
  if (parameters == conditions->end() || !parameters->is_object()) return stated;
  for (const char* key : kStatedKeys) {
    const auto it = parameters->find(key);
    if (it != parameters->end() && it->is_string()) stated[key] = *it;
  }
  return stated;
}

// Reads one input into the evidence, and its warnings into `carried`; returns what it was ("trace",
// "perfhound.mfu", "ncu CSV") and the conditions it states.
core::Result<InputRead> add_input(diagnose::Evidence& evidence, const std::string& path,
                                  nlohmann::ordered_json& carried) {
  const auto carry = [&carried](nlohmann::ordered_json entries) {
    for (auto& e : entries) carried.push_back(std::move(e));
  };
  const auto add_document = [&](const std::string& text) -> core::Result<InputRead> {
    PH_ASSIGN_OR_RETURN(const report::ReportInput doc, report::parse_report_input(path, text));
    PH_TRY(diagnose::add_document(evidence, doc.document, path));
    carry(carried_diagnostics(doc.document, path));
    return InputRead{path, doc.kind(), stated_conditions(doc.document)};
  };
  PH_ASSIGN_OR_RETURN(const std::string head, read_head(path));
  switch (sniff(path, head)) {
    case InputKind::kDocument: {
      PH_ASSIGN_OR_RETURN(const std::string text, core::read_text_file(path));
      return add_document(text);
    }
    case InputKind::kNcuCsv: {
      PH_ASSIGN_OR_RETURN(const roofline::NcuCsv csv, roofline::read_ncu_csv(path));
      PH_TRY(diagnose::add_ncu_kernels(evidence, csv, path));
      carry(carried_diagnostics(ncu_diagnostics(csv), path));
      return InputRead{path, "ncu CSV", {{"roofs", "measured by ncu on the device, at each kernel's clocks"}}};
    }
    case InputKind::kTrace:
      break;
  }
  auto imported = trace::import_trace(path);
  if (!imported.ok()) {
    // A result document whose keys were reordered (jq -S puts "conditions" first) has its kind past the first
    // bytes sniffed: read as a trace it would be "no 'traceEvents' array". Whole, it says what it is.
    const auto first = head.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && head[first] == '{') {
      auto text = core::read_text_file(path);
      const auto j = text.ok() ? nlohmann::ordered_json::parse(*text, nullptr, false) : nlohmann::ordered_json();
      const auto kind = j.is_object() ? j.find("kind") : j.end();
      if (j.is_object() && j.contains("schema_version") && kind != j.end() && kind->is_string() &&
          kind->get_ref<const std::string&>().starts_with("perfhound.")) {
        return add_document(*text);
      }
    }
    return imported.error();
  }
  const trace::Timeline& timeline = *imported;
  const trace::TraceAnalysis analysis = trace::analyze_trace(timeline);
  PH_TRY(diagnose::add_trace_result(evidence, trace::to_json(analysis), path));
  carry(carried_diagnostics(trace_diagnostics(timeline), path));
  nlohmann::ordered_json stated = nlohmann::ordered_json::object();
  if (!timeline.info.devices.empty()) stated["gpu"] = timeline.info.devices.front().name;
  return InputRead{path, std::string("trace (") + timeline.info.format + ")", std::move(stated)};
}

std::string render(const diagnose::Diagnosis& d, const std::vector<InputRead>& inputs,
                   const core::Conditions& conditions) {
  std::string out = fmt::format("perfhound diagnose: {} input{}\n", inputs.size(), inputs.size() == 1 ? "" : "s");
  for (const InputRead& in : inputs) {
    std::string stated;
    for (const auto& [key, value] : in.stated.items()) {
      stated += fmt::format("{}{} {}", stated.empty() ? " (" : ", ", key, value.get<std::string>());
    }
    out += fmt::format("  {}: {}{}\n", in.kind, in.path, stated.empty() ? "" : stated + ")");
  }
  out += fmt::format("\ngoal: {} ({})\n", diagnose::goal_name(d.goal.goal), d.goal.reason);
  out += "\npath through the playbook (seed section 9):\n";
  int n = 0;
  for (const auto& s : d.path) {
    std::string taken;
    switch (s.decision.status) {
      case diagnose::StepStatus::kDecided:
        taken = s.branch->id;
        break;
      case diagnose::StepStatus::kMissing:
        taken = "? (the inputs do not say)";
        break;
      case diagnose::StepStatus::kNotApplicable:
        taken = "not applicable";
        break;
    }
    out += fmt::format("  {}. {}: {} -> {}\n", ++n, s.node->name, s.node->question, taken);
    if (s.branch != nullptr && s.node->id != diagnose::NodeId::kGoal) {
      out += fmt::format("       {}\n", s.decision.finding.empty() ? s.branch->finding : s.decision.finding);
    }
    for (const auto& e : s.decision.evidence) out += fmt::format("       - {}\n", e);
    if (!s.decision.hint.empty()) out += fmt::format("       missing: {}\n", s.decision.hint);
  }
  out += fmt::format("\nDIAGNOSIS: {}{}\n", d.conclusion, d.stop ? " [STOP]" : "");
  out += "next:\n";
  n = 0;
  for (const auto& step : d.next) out += fmt::format("  {}. {}\n", ++n, step);
  out += fmt::format("stop when: {}\n", d.stop_when);
  if (!d.missing.empty()) {
    out += "inputs that would decide more of the tree:\n";
    for (const auto& m : d.missing) out += fmt::format("  - {}\n", m);
  }
  out += conditions_block(conditions);
  return out;
}

class DiagnoseCommand final : public Command {
 public:
  std::string_view name() const override { return "diagnose"; }
  std::string_view summary() const override {
    return "Walk the bottleneck-hunting playbook over a trace, roofline/ncu, mfu and load results: the branch, the "
           "evidence, the next measurement and when to stop";
  }

  void add_flags(CLI::App& app) override {
    app.add_option("files", files_,
                   "Inputs, any mix: a trace (Kineto .json / .json.gz, nsys .sqlite), an ncu CSV export, and perfhound "
                   "--json results of trace, roofline, mfu, load or sweep")
        ->required();
    app.add_option("--goal", goal_,
                   "The metric being optimized: ttft, tpot, throughput or step; goodput is the throughput goal "
                   "(it judges goodput too) (default: inferred from the inputs)")
        ->check(CLI::IsMember({"ttft", "tpot", "throughput", "goodput", "step"}));
    add_output_flags(app, output_);
  }

  core::Result<int> run(const Context& context) override {
    std::optional<diagnose::Goal> goal;
    if (!goal_.empty()) {
      PH_ASSIGN_OR_RETURN(goal, diagnose::parse_goal(goal_));
    }
    PH_TRY(check_not_an_input("-o", output_.output_path, files_));
    for (std::size_t i = 0; i < files_.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        std::error_code ec;
        // One run given twice would count as two load points (or be refused as a second trace with a puzzling
        // message): said as what it is.
        if (files_[i] == files_[j] || fs::equivalent(files_[i], files_[j], ec)) {
          return core::Error{fmt::format("'{}' is given twice; give each input once", files_[i])};
        }
      }
    }
    diagnose::Evidence evidence;
    std::vector<InputRead> inputs;
    auto carried = nlohmann::ordered_json::array();  // the inputs' warnings hold for what is read from them
    for (const auto& f : files_) {
      PH_ASSIGN_OR_RETURN(InputRead read, add_input(evidence, f, carried));
      inputs.push_back(std::move(read));
    }
    const diagnose::Diagnosis diagnosis = diagnose::diagnose(evidence, goal);

    core::Conditions conditions = core::Conditions::capture(context.argc, context.argv);
    auto input_list = nlohmann::ordered_json::array();
    for (const InputRead& in : inputs) input_list.push_back({{"file", in.path}, {"kind", in.kind}, {"stated", in.stated}});
    conditions.set("inputs", std::move(input_list));
    conditions.set("goal", goal_.empty() ? std::string("inferred") : goal_);

    nlohmann::ordered_json result = diagnose::to_json(diagnosis);
    result["evidence"] = diagnose::to_json(evidence);
    std::string carried_lines;
    for (const auto& entry : carried) carried_lines += format_carried_diagnostic(entry);
    const auto document = report::make_json_document("diagnose", conditions, std::move(result), carried);
    PH_TRY(emit_result(context, output_, document, render(diagnosis, inputs, conditions), carried_lines));
    return kExitOk;
  }

 private:
  std::vector<std::string> files_;
  std::string goal_;
  OutputOptions output_;
};

}  // namespace

std::unique_ptr<Command> make_diagnose_command() { return std::make_unique<DiagnoseCommand>(); }

}  // namespace perfhound::cli
