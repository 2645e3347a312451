#include "cli/merge_command.h"

#include <algorithm>
#include <fmt/format.h>
#include <iterator>
#include <optional>
#include <regex>

#include "cli/load_summary_text.h"
#include "cli/output.h"
#include "core/conditions.h"
#include "core/diagnostics.h"
#include "load/delivery_check.h"
#include "load/load_metrics.h"
#include "load/record_io.h"
#include "load/shard.h"
#include "load/slo.h"
#include "load/tail_samples.h"
#include "report/json_document.h"

namespace perfhound::cli {
namespace {

// The conditions every shard of one load shares; `load` is compared without its shard or rank suffix.
constexpr const char* kSameAcrossShards[] = {"target", "endpoint", "model", "workload", "seed", "latency_from",
                                             "warmup_discarded", "slo"};

std::string load_without_share(const nlohmann::ordered_json& load) {
  static const std::regex share(R"((, shard \d+/\d+ of it| over \d+ ranks)$)");
  return load.is_string() ? std::regex_replace(load.get<std::string>(), share, "") : load.dump();
}

struct ShardFile {
  std::string path;
  nlohmann::ordered_json header;
  std::vector<load::RequestRecord> records;
  std::optional<load::Shard> shard;
};

// The header fields merge reads, each of the type perfhound load writes: an edited header is one line naming the
// field, not a JSON type error.
core::Status check_header_fields(const std::string& path, const nlohmann::ordered_json& header) {
  const auto wrong = [&](const std::string& field, const nlohmann::ordered_json& value, const char* expected) {
    return core::Error{fmt::format("'{}' line 1: header.{} is a {}, not {}", path, field, value.type_name(), expected)};
  };
  if (!header.contains("parameters") || !header["parameters"].is_object()) {
    return core::Error{fmt::format("'{}' line 1: the header has no object 'parameters' (perfhound load --records writes one)", path)};
  }
  if (header.contains("host") && !header["host"].is_object()) return wrong("host", header["host"], "an object");
  if (header.contains("host") && header["host"].contains("hostname") && !header["host"]["hostname"].is_string()) {
    return wrong("host.hostname", header["host"]["hostname"], "a string");
  }
  if (header.contains("timestamp_utc") && !header["timestamp_utc"].is_string()) {
    return wrong("timestamp_utc", header["timestamp_utc"], "a string");
  }
  for (const char* key : {"shard", "latency_from", "load", "slo"}) {
    const auto& params = header["parameters"];
    if (params.contains(key) && !params[key].is_string()) return wrong(std::string("parameters.") + key, params[key], "a string");
  }
  return {};
}

class MergeCommand final : public Command {
 public:
  std::string_view name() const override { return "merge"; }
  std::string_view summary() const override {
    return "Merge the records of clients that shared one load (load --shard K/N, or mpirun's per-rank files) into "
           "one result over all of them";
  }

  void add_flags(CLI::App& app) override {
    app.add_option("records", paths_, "The shards' records files (.jsonl, as perfhound load --records writes them)")
        ->required();
    app.add_option("--records", merged_path_, "Also write the merged records, in index order, to this .jsonl file");
    add_output_flags(app, output_);
  }

  core::Result<int> run(const Context& context) override {
    PH_TRY(check_not_an_input("-o", output_.output_path, paths_));
    PH_TRY(check_not_an_input("--records", merged_path_, paths_));
    PH_TRY(check_distinct_outputs("--records", merged_path_, "-o", output_.output_path));
    std::vector<ShardFile> files;
    for (const std::string& path : paths_) {
      ShardFile f;
      f.path = path;
      PH_ASSIGN_OR_RETURN(f.records, load::read_records_jsonl(path, &f.header));
      PH_TRY(check_header_fields(path, f.header));
      const auto& params = f.header["parameters"];
      if (params.contains("shard")) {
        PH_ASSIGN_OR_RETURN(f.shard, load::parse_shard(params["shard"].get<std::string>()).with_context(fmt::format("'{}'", path)));
      }
      files.push_back(std::move(f));
    }
    PH_TRY(check_comparable(files));
    // Each request index once: the files must be shares of one schedule, not repeats of it. Records are in
    // completion order, which varies run to run, so the error names the lowest repeated index, not the first met.
    std::vector<std::pair<load::RequestRecord, std::size_t>> owned;
    for (std::size_t i = 0; i < files.size(); ++i) {
      for (load::RequestRecord& r : files[i].records) owned.emplace_back(std::move(r), i);
    }
    std::stable_sort(owned.begin(), owned.end(), [](const auto& a, const auto& b) { return a.first.index < b.first.index; });
    const auto repeat = std::adjacent_find(owned.begin(), owned.end(),
                                           [](const auto& a, const auto& b) { return a.first.index == b.first.index; });
    if (repeat != owned.end()) {
      return core::Error{fmt::format("'{}': request index {} is also in '{}': the files repeat one schedule instead of "
                                     "sharing it (run each client with perfhound load --shard K/N)",
                                     files[std::next(repeat)->second].path, repeat->first.index, files[repeat->second].path)};
    }
    std::vector<load::RequestRecord> all;
    all.reserve(owned.size());
    for (auto& [r, file] : owned) all.push_back(std::move(r));

    const auto& first = files[0].header["parameters"];
    const bool open_loop = first.value("latency_from", std::string()) == "intended send time";
    load::Slo slo;
    if (first.contains("slo") && first["slo"].is_string()) {
      PH_ASSIGN_OR_RETURN(slo, load::parse_slo(first["slo"].get<std::string>()).with_context(fmt::format("'{}' slo", files[0].path)));
    }
    load::LoadMetricsTracker tracker(slo.empty() ? load::GoodputPredicate{}
                                                 : [slo](const load::RequestLatencies& l) { return slo.met_by(l); });
    for (const load::RequestRecord& r : all) tracker.add(r);
    const load::LoadSummary summary = tracker.summary();

    // --- shards: which of the N are here
    std::vector<core::Diagnostic> diagnostics;
    std::uint64_t of = 0;
    std::vector<std::uint64_t> present;
    for (const ShardFile& f : files) {
      if (f.shard) of = f.shard->count, present.push_back(f.shard->index);
    }
    std::sort(present.begin(), present.end());
    const bool complete = of == 0 || present.size() == of;
    if (!complete) {
      std::string missing;
      for (std::uint64_t k = 0; k < of; ++k) {
        if (!std::binary_search(present.begin(), present.end(), k)) missing += fmt::format("{}{}", missing.empty() ? "" : ",", k);
      }
      diagnostics.push_back({&core::kMissingShards, fmt::format("{} of the {} shards are here; missing: {}", present.size(), of, missing)});
    }
    const load::LatencyStart start = open_loop ? load::LatencyStart::kIntended : load::LatencyStart::kSent;
    if (auto few = load::check_tail_samples(summary, start)) diagnostics.push_back(*std::move(few));
    if (auto together = load::check_chunk_delivery(summary)) diagnostics.push_back(*std::move(together));

    core::Conditions conditions = core::Conditions::capture(context.argc, context.argv);
    for (const auto& [key, value] : first.items()) {
      if (key != "shard" && !conditions.has(key)) conditions.set(key, value);
    }
    conditions.set("load", load_without_share(first.value("load", nlohmann::ordered_json())));
    conditions.set("merged_files", static_cast<std::int64_t>(files.size()));
    conditions.set("merge_note", "latencies are each client's own; windows and rates take every client's times from "
                                 "its own start, so they assume the clients started together (mpirun does; give "
                                 "independent clients one --start-at)");
    auto file_json = nlohmann::ordered_json::array();
    for (const ShardFile& f : files) {
      file_json.push_back({{"path", f.path},
                           {"shard", f.shard ? nlohmann::ordered_json(fmt::format("{}/{}", f.shard->index, f.shard->count))
                                             : nlohmann::ordered_json()},
                           {"records", f.records.size()},
                           {"host", f.header.contains("host") ? f.header["host"].value("hostname", "") : ""},
                           {"started_utc", f.header.value("timestamp_utc", "")},
                           {"start_at_unix_s", f.header["parameters"].value("start_at_unix_s", nlohmann::ordered_json())}});
    }
    nlohmann::ordered_json result = nlohmann::ordered_json::object();
    result["complete"] = complete;
    result["shards"] = {{"of", of}, {"present", present}};
    result["files"] = file_json;
    result["summary"] = load::to_json(summary);
    if (!merged_path_.empty()) {
      PH_ASSIGN_OR_RETURN(const load::RecordFormat format, load::record_format_for_path(merged_path_).with_context("--records"));
      if (format != load::RecordFormat::kJsonl) return core::Error{"--records: merged records are written as .jsonl"};
      PH_ASSIGN_OR_RETURN(auto writer, load::RecordWriter::open(merged_path_, format, conditions.to_json()).with_context("--records"));
      for (const load::RequestRecord& r : all) PH_TRY(writer.write(r).with_context("--records"));
      PH_TRY(writer.close().with_context("--records"));
      result["records_file"] = merged_path_;
    }
    const auto document = report::make_json_document("merge", conditions, result, core::diagnostics_to_json(diagnostics));

    std::string text = fmt::format(
        "perfhound merge: {} files, {} measured requests ({} completed, {} failed; {} warm-up discarded) in {:.3f} s\n",
        files.size(), summary.completed + summary.failed, summary.completed, summary.failed, summary.warmup_discarded,
        summary.window_s);
    text += fmt::format("  {}{}\n\n", conditions.get("load").get<std::string>(),
                        of > 0 ? fmt::format(", shards {} of {}", present.size(), of) : "");
    text += render_summary_table(summary, open_loop);
    text += conditions_block(conditions);
    PH_TRY(emit_result(context, output_, document, text, diagnostic_lines(diagnostics)));
    return complete ? kExitOk : kExitCheckFailed;
  }

 private:
  static core::Status check_comparable(const std::vector<ShardFile>& files) {
    const auto& first = files[0].header["parameters"];
    for (std::size_t i = 1; i < files.size(); ++i) {
      const auto& here = files[i].header["parameters"];
      for (const char* key : kSameAcrossShards) {
        const auto a = first.contains(key) ? first[key] : nlohmann::ordered_json();
        const auto b = here.contains(key) ? here[key] : nlohmann::ordered_json();
        if (a != b) {
          return core::Error{fmt::format("'{}': {} {} differs from '{}''s {}: not shards of one load", files[i].path, key,
                                         b.dump(), files[0].path, a.dump())};
        }
      }
      const std::string la = load_without_share(first.value("load", nlohmann::ordered_json()));
      const std::string lb = load_without_share(here.value("load", nlohmann::ordered_json()));
      if (la != lb) {
        return core::Error{fmt::format("'{}': load '{}' differs from '{}''s '{}': not shards of one load", files[i].path,
                                       lb, files[0].path, la)};
      }
      if (files[i].shard && files[0].shard && files[i].shard->count != files[0].shard->count) {
        return core::Error{fmt::format("'{}': shard {}/{} is of another split than '{}''s {}/{}", files[i].path,
                                       files[i].shard->index, files[i].shard->count, files[0].path,
                                       files[0].shard->index, files[0].shard->count)};
      }
      for (std::size_t j = 0; j < i; ++j) {
        if (files[i].shard && files[j].shard && files[i].shard->index == files[j].shard->index) {
          return core::Error{fmt::format("'{}' and '{}' are both shard {}/{}", files[i].path, files[j].path,
                                         files[i].shard->index, files[i].shard->count)};
        }
      }
    }
    return {};
  }

  std::vector<std::string> paths_;
  std::string merged_path_;
  OutputOptions output_;
};

}  // namespace

std::unique_ptr<Command> make_merge_command() { return std::make_unique<MergeCommand>(); }

}  // namespace perfhound::cli
