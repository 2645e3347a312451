#include "cli/command.h"
#include "cli/audit_command.h"
#include "cli/compare_command.h"
#include "cli/diagnose_command.h"
#include "cli/hw_command.h"
#include "cli/load_command.h"
#include "cli/mfu_command.h"
#include "cli/probe_command.h"
#include "cli/record_command.h"
#include "cli/report_command.h"
#include "cli/roofline_command.h"
#include "cli/serve_command.h"
#include "cli/stats_command.h"
#include "cli/sweep_command.h"
#include "cli/merge_command.h"
#include "cli/trace_command.h"

namespace perfhound::cli {

std::vector<std::unique_ptr<Command>> make_commands() {
  std::vector<std::unique_ptr<Command>> commands;
  commands.push_back(make_trace_command());
  commands.push_back(make_diagnose_command());
  commands.push_back(make_load_command());
  commands.push_back(make_sweep_command());
  commands.push_back(make_merge_command());
  commands.push_back(make_compare_command());
  commands.push_back(make_report_command());
  commands.push_back(make_serve_command());
  commands.push_back(make_roofline_command());
  commands.push_back(make_mfu_command());
  commands.push_back(make_hw_command());
  commands.push_back(make_probe_command());
  commands.push_back(make_record_command());
  commands.push_back(make_stats_command());
  commands.push_back(make_audit_command());
  return commands;
}

}  // namespace perfhound::cli
