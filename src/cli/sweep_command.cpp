#include "cli/sweep_command.h"

#include <unistd.h>

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "cli/interrupt_guard.h"
#include "cli/load_session.h"
#include "cli/output.h"
#include "core/signal_name.h"
#include "core/units.h"
#include "core/text_file.h"
#include "load/load_runner.h"
#include "load/slo.h"
#include "load/sweep_analysis.h"
#include "report/json_document.h"
#include "mpi/mpi_world.h"
#include "report/table_writer.h"

namespace perfhound::cli {
namespace {

// The conditions a resumed point must share with this sweep, or its figures are not comparable.
constexpr const char* kSameAcrossPoints[] = {"target", "endpoint", "model", "workload", "seed", "warmup_discarded",
                                             "slo", "ignore_eos", "stream_options_include_usage"};

std::string seconds(double s) { return std::isfinite(s) ? core::format_duration_ns(s * 1e9) : "-"; }

double number_or_nan(const nlohmann::ordered_json& j) {
  return j.is_number() ? j.get<double>() : std::numeric_limits<double>::quiet_NaN();
}

// One point of the sweep as planned: what load, and the file stem its result and records go to.
struct PlannedPoint {
  LoadLevel level;
  std::string label;  // "concurrency 8", "rate 4.5 req/s", "synchronous", "throughput"
  std::string stem;   // "03-concurrency-8"
  double offered = 0;  // the offered load (concurrency or req/s); NaN for closed-loop points of a rate sweep
};

// The figures the sweep reads from one point's perfhound.load document (fresh or resumed alike).
struct PointFigures {
  std::string status;
  bool partial = false, client_limited = false, in_slo = false;
  double requests_per_s = NAN, output_tokens_per_s = NAN, goodput_per_s = NAN;
  std::uint64_t completed = 0, failed = 0, warmup = 0;
  struct Quantiles {
    double p50 = NAN, p95 = NAN, p99 = NAN;
  };
  Quantiles ttft, tpot, itl, e2e;
  double latency_p95(const std::string& metric) const {
    if (metric == "tpot") return tpot.p95;
    if (metric == "itl") return itl.p95;
    if (metric == "e2e") return e2e.p95;
    return ttft.p95;
  }
};

PointFigures read_figures(const nlohmann::ordered_json& document) {
  const auto& r = document.at("result");
  const auto& s = r.at("summary");
  PointFigures f;
  f.status = r.value("status", "");
  f.partial = r.value("partial", false);
  f.client_limited = r.value("client_limited", false);
  f.in_slo = r.contains("slo_gate") && r["slo_gate"].value("passed", false);
  f.requests_per_s = number_or_nan(s["throughput"]["requests_per_s"]);
  f.output_tokens_per_s = number_or_nan(s["throughput"]["output_tokens_per_s"]);
  if (s.contains("goodput") && s["goodput"].is_object()) f.goodput_per_s = number_or_nan(s["goodput"]["requests_per_s"]);
  f.completed = s["requests"].value("completed", 0ULL);
  f.failed = s["requests"].value("failed", 0ULL);
  f.warmup = s["requests"].value("warmup_discarded", 0ULL);
  // Open-loop points are judged from the intended send time (no coordinated omission), closed-loop ones from
  // the actual send time, as the load run itself reports them.
  const auto& parameters = document.at("conditions").at("parameters");
  const bool intended = parameters.value("latency_from", "") == "intended send time";
  const auto& lat = s["latency"][intended ? "from_intended" : "from_sent"];
  const auto q = [](const nlohmann::ordered_json& t) {
    return PointFigures::Quantiles{number_or_nan(t["p50_s"]), number_or_nan(t["p95_s"]), number_or_nan(t["p99_s"])};
  };
  f.ttft = q(lat["ttft"]);
  f.tpot = q(lat["tpot"]);
  f.e2e = q(lat["e2e"]);
  f.itl = q(s["itl"]);
  return f;
}

core::Result<nlohmann::ordered_json> read_document(const std::filesystem::path& path) {
  PH_ASSIGN_OR_RETURN(const std::string text, core::read_text_file(path.string()));
  auto j = nlohmann::ordered_json::parse(text, nullptr, false);
  if (j.is_discarded()) return core::Error{fmt::format("{}: not valid JSON", path.string())};
  if (!j.is_object() || !j.contains("kind") || j["kind"] != "perfhound.load" || !j.contains("result") ||
      !j.contains("conditions") || !j["conditions"].contains("parameters")) {
    return core::Error{fmt::format("{}: not a perfhound load result", path.string())};
  }
  return j;
}

std::string describe_point_text(const PlannedPoint& p, const PointFigures& f, std::size_t n, std::size_t of) {
  // The warm-up a point discarded: a closed loop's default rises to one per slot, so the sweep's stated policy
  // ("10 requests, or one per slot ...") does not say the number.
  std::string out = fmt::format("point {}/{}: {}: {}{}, {} completed, {} failed ({} warm-up discarded), {:.2f} req/s, "
                                "{:.0f} output tok/s",
                                n, of, p.label, f.status, f.client_limited ? " (client-limited)" : "", f.completed,
                                f.failed, f.warmup, f.requests_per_s, f.output_tokens_per_s);
  if (std::isfinite(f.goodput_per_s)) out += fmt::format(", goodput {:.2f} req/s", f.goodput_per_s);
  out += "\n";
  report::TableWriter table({{"metric", report::Align::kLeft}, {"p50"}, {"p95"}, {"p99"}});
  const auto row = [&](const char* name, const PointFigures::Quantiles& q) {
    table.add_row({name, seconds(q.p50), seconds(q.p95), seconds(q.p99)});
  };
  row("TTFT", f.ttft);
  row("TPOT", f.tpot);
  row("ITL (per chunk)", f.itl);
  row("E2E", f.e2e);
  std::string rendered = table.render();
  std::string indented;
  std::istringstream lines(rendered);
  for (std::string line; std::getline(lines, line);) indented += "  " + line + "\n";
  return out + indented;
}

class SweepCommand final : public Command {
 public:
  std::string_view name() const override { return "sweep"; }
  std::string_view summary() const override {
    return "Run perfhound load over a list of loads: the goodput curve, the knee, the operating point, the headroom";
  }

  void add_flags(CLI::App& app) override {
    app.add_option("--concurrency", concurrency_, "Closed-loop sweep: a list of concurrencies, e.g. 1,8,32,128,256");
    app.add_option("--rate", rate_, "Open-loop sweep: a list of rates in req/s (1,2,4,8) or 'auto' (a synchronous run, "
                                    "a throughput run, then --points rates between them, as guidellm's sweep)");
    app.add_option("--points", points_, "--rate auto: how many rates between the synchronous and the max rate")
        ->default_val(6);
    app.add_option("--auto-concurrency", auto_concurrency_, "--rate auto: the concurrency of the throughput run")
        ->default_val(256);
    app.add_option("--cooldown", cooldown_, "Pause between points so the server drains (each point also discards "
                                            "its own --warmup)")
        ->default_val("2s");
    app.add_option("--latency-metric", latency_metric_, "The p95 latency the curve and the knee use: ttft, tpot, itl or e2e")
        ->check(CLI::IsMember({"ttft", "tpot", "itl", "e2e"}))
        ->default_val("ttft");
    app.add_option("--expected-rate", expected_rate_, "The load you expect (req/s): headroom = operating point / this");
    app.add_option("--target-rate", target_rate_, "The rate to size for (req/s; default --expected-rate): replicas "
                                                  "needed at the operating point's throughput");
    app.add_option("--out", out_dir_, "Folder for each point's result and records, written as the sweep goes")
        ->default_val("perfhound-sweep");
    app.add_flag("--resume", resume_, "Reuse the complete points already in --out (same target, workload and seed), "
                                      "run the rest");
    app.add_flag("--quiet", quiet_, "No live progress line");
    flags_.add_to(app);
    add_output_flags(app, output_);
  }

  core::Result<int> run(const Context& context) override {
    // --- the plan (checked before anything is started)
    if (concurrency_.empty() == rate_.empty()) {
      return core::Error{"--concurrency or --rate: give one list (closed or open loop), e.g. --concurrency 1,8,32"};
    }
    if (points_ < 1) return core::Error{fmt::format("--points: must be at least 1, got {}", points_)};
    if (auto_concurrency_ < 1 || auto_concurrency_ > load::kMaxConcurrency) {
      return core::Error{fmt::format("--auto-concurrency: must be 1 to {}, got {}", load::kMaxConcurrency, auto_concurrency_)};
    }
    PH_ASSIGN_OR_RETURN(const std::int64_t cooldown_ns, core::parse_duration_ns(cooldown_).with_context("--cooldown"));
    if (cooldown_ns < 0) return core::Error{"--cooldown: must not be negative"};
    if (expected_rate_ && !(*expected_rate_ > 0)) return core::Error{"--expected-rate: must be positive (req/s)"};
    if (target_rate_ && !(*target_rate_ > 0)) return core::Error{"--target-rate: must be positive (req/s)"};
    PH_TRY(check_not_an_input("-o", output_.output_path, {flags_.dataset}));
    const bool closed = !concurrency_.empty();
    const bool rate_auto = !closed && rate_ == "auto";
    // Every point is a closed or an open loop at a level the sweep gives: none replays a trace's own times.
    PH_TRY(flags_.check_flags_apply(!closed, false));
    for (const char* flag : {"--points", "--auto-concurrency"}) {
      if (!rate_auto && flags_.given(flag)) {
        return core::Error{fmt::format("{}: plans a --rate auto sweep; this sweep's points are its list", flag)};
      }
    }
    std::vector<PlannedPoint> plan;
    if (closed) {
      PH_ASSIGN_OR_RETURN(const auto list, load::parse_load_list(concurrency_, "--concurrency", true));
      for (const double c : list) {
        // Checked before the first point: a point refused minutes in would end a sweep half done.
        if (c > static_cast<double>(load::kMaxConcurrency)) {
          return core::Error{fmt::format("--concurrency: {} is over the {} one client keeps in flight (more is more "
                                         "clients: --shard)", c, load::kMaxConcurrency)};
        }
        plan.push_back(closed_point(static_cast<std::int64_t>(c), fmt::format("concurrency {}", c)));
      }
    } else if (!rate_auto) {
      PH_ASSIGN_OR_RETURN(const auto list, load::parse_load_list(rate_, "--rate", false));
      for (const double r : list) plan.push_back(rate_point(r));
    } else {
      // Closed-loop ends: their place on the load axis is the rate they achieved.
      plan.push_back(closed_point(1, "synchronous"));
      plan.push_back(closed_point(auto_concurrency_, "throughput"));
      for (PlannedPoint& p : plan) p.offered = std::numeric_limits<double>::quiet_NaN();
    }
    // Under mpirun every rank runs this sweep and takes the same decisions from the same merged points; rank 0
    // alone writes --out, so only it could tell what --resume would keep.
    if (resume_ && mpi::active()) return core::Error{"--resume: not under mpirun (rank 0 alone holds --out); run the rest as a new sweep"};
    std::error_code ec;
    std::filesystem::create_directories(out_dir_, ec);
    if (ec) return core::Error{fmt::format("--out {}: cannot create the folder: {}", out_dir_, ec.message())};
    if (!mpi::active()) PH_TRY(check_output_folder(output_));  // after --out exists: -o may be inside it
    if (!resume_ && std::filesystem::exists(sweep_path(), ec)) {
      return core::Error{fmt::format("--out {}: already holds a sweep (sweep.json); give --resume to continue it or "
                                     "another --out",
                                     out_dir_)};
    }

    PH_ASSIGN_OR_RETURN(session_, LoadSession::open("sweep", flags_, context));
    // --rate auto's middle rates are open loops planned after the two closed-loop ends: their flags are checked
    // now, not minutes in (any rate above 0 stands for them).
    if (rate_auto) PH_TRY(session_->check_open_loop(1.0));
    const bool show_progress = !quiet_ && !output_.json && isatty(STDERR_FILENO) == 1;
    std::ostream& err = *context.err;
    std::ostream& live = output_.json ? err : *context.out;  // per-point tables: stdout unless it carries JSON

    // --- the points, in order; --rate auto plans its middle once the two ends are measured
    const std::size_t planned = rate_auto ? 2 + static_cast<std::size_t>(points_) : plan.size();
    bool interrupted = false;
    // A signal while a point runs ends that point (partial); one between points or in the cooldown ends the
    // sweep before the next. Either way sweep.json keeps every point measured.
    InterruptGuard guard;
    const auto stopped_before = [&](const PlannedPoint& p) {
      const bool cooled = done_.empty() || cooldown_ns == 0 || !guard.sleep_unless_interrupted(cooldown_ns);
      if (cooled && guard.signal() == 0) return false;
      err << fmt::format("perfhound sweep: interrupted ({}) before {}\n", core::signal_name(guard.signal()), p.label);
      return true;
    };
    // The order of measurement, for "point k/n": done_ holds the points in load order, so --rate auto's middle
    // points, measured third onwards, go in before the throughput point.
    std::size_t measured_count = 0;
    // before_last: --rate auto's middle, which goes in before the throughput point measured second. That point
    // stays in done_ meanwhile: sweep.json, rewritten after each point, keeps every point measured.
    const auto measure_each = [&](const std::vector<PlannedPoint>& todo, bool before_last) -> core::Status {
      for (const PlannedPoint& p : todo) {
        if (interrupted) break;
        if (stopped_before(p)) {
          interrupted = true;
          break;
        }
        auto measured = measure(p, err, show_progress);
        guard.rearm();  // the load runner's signal set put back the default action as it ended
        PH_ASSIGN_OR_RETURN(nlohmann::ordered_json doc, std::move(measured));
        const PointFigures figures = read_figures(doc);
        interrupted = figures.partial;
        done_.insert(before_last ? done_.end() - 1 : done_.end(), DonePoint{p, std::move(doc), figures});
        live << describe_point_text(p, figures, ++measured_count, planned) << std::flush;
        PH_ASSIGN_OR_RETURN(const auto written, write_sweep(planned, interrupted, /*complete=*/false));
        (void)written;
      }
      return core::Status::success();
    };
    PH_TRY(measure_each(plan, /*before_last=*/false));
    if (rate_auto && !interrupted) {
      const double sync = done_[0].figures.requests_per_s, max = done_[1].figures.requests_per_s;
      PH_ASSIGN_OR_RETURN(const auto rates, load::plan_auto_rates(sync, max, points_));
      std::vector<PlannedPoint> middle;
      for (const double r : rates) middle.push_back(rate_point(r));
      // The throughput point stays last, so the table and the curve run in load order.
      PH_TRY(measure_each(middle, /*before_last=*/true));
    }

    // --- the curve
    PH_ASSIGN_OR_RETURN(const nlohmann::ordered_json sweep, write_sweep(planned, interrupted, !interrupted));
    std::string text = render_summary(sweep);
    text += conditions_block(session_->conditions());
    const auto document = report::make_json_document("sweep", session_->conditions(), sweep["result"], sweep["diagnostics"]);
    PH_TRY(emit_result(context, output_, document, text));
    err << fmt::format("perfhound sweep: {} points in {}; the sweep: {}\n", done_.size(), out_dir_, sweep_path().string());
    if (interrupted) return kExitInterrupted;
    if (!session_->slo().empty() && sweep["result"]["operating_point"].is_null()) return kExitCheckFailed;
    return kExitOk;
  }

 private:
  struct DonePoint {
    PlannedPoint planned;
    nlohmann::ordered_json document;
    PointFigures figures;
  };

  PlannedPoint closed_point(std::int64_t c, std::string label) const {
    PlannedPoint p;
    p.level.concurrency = c;
    p.label = std::move(label);
    p.offered = static_cast<double>(c);
    p.stem = p.label == "synchronous" || p.label == "throughput" ? p.label : fmt::format("concurrency-{}", c);
    return p;
  }
  static PlannedPoint rate_point(double r) {
    PlannedPoint p;
    p.level.rate = r;
    // Four significant digits, and whole numbers from 1000 up: "rate 4.5 req/s", "rate 811.4", "rate 1191".
    const std::string number = r >= 1000 ? fmt::format("{:.0f}", r) : fmt::format("{:.4g}", r);
    p.label = fmt::format("rate {} req/s", number);
    p.stem = fmt::format("rate-{}", number);
    p.offered = r;
    return p;
  }

  std::filesystem::path sweep_path() const { return std::filesystem::path(out_dir_) / "sweep.json"; }
  std::filesystem::path point_path(const PlannedPoint& p, const char* suffix) const {
    return std::filesystem::path(out_dir_) / (p.stem + suffix);
  }

  // The point's document: the one already in --out when resuming and it is complete and comparable, else a
  // fresh run whose result is written before the next point starts.
  core::Result<nlohmann::ordered_json> measure(const PlannedPoint& p, std::ostream& err, bool show_progress) {
    const std::filesystem::path result_path = point_path(p, ".json");
    if (resume_ && std::filesystem::exists(result_path)) {
      PH_ASSIGN_OR_RETURN(nlohmann::ordered_json doc, read_document(result_path).with_context("--resume"));
      if (!doc["result"].value("partial", false)) {
        for (const char* key : kSameAcrossPoints) {
          const auto& here = session_->conditions().get(key);
          const auto& stored = doc["conditions"]["parameters"];
          const auto& there = stored.contains(key) ? stored[key] : nlohmann::ordered_json();
          if (here != there) {
            return core::Error{fmt::format("--resume: {} was measured with {} {}, this sweep has {}", result_path.string(),
                                           key, there.dump(), here.dump())};
          }
        }
        err << fmt::format("perfhound sweep: {}: kept from {}\n", p.label, result_path.string());
        return doc;
      }
    }
    PH_ASSIGN_OR_RETURN(LoadRun run, session_->run(p.level, point_path(p, ".records.jsonl").string(), err, show_progress));
    if (mpi::rank() == 0) PH_TRY(report::write_text_file(result_path.string(), run.document.dump(2) + "\n"));
    print_diagnostics(Context{0, nullptr, &err, &err}, run.diagnostics);
    return std::move(run.document);
  }

  // sweep.json: the points measured so far with the analysis over them; rewritten after every point.
  core::Result<nlohmann::ordered_json> write_sweep(std::size_t planned, bool interrupted, bool complete) {
    std::vector<load::SweepPoint> curve, valid_curve;
    for (const DonePoint& d : done_) {
      load::SweepPoint sp;
      sp.load = std::isfinite(d.planned.offered) ? d.planned.offered : d.figures.requests_per_s;
      sp.throughput = d.figures.requests_per_s;
      sp.latency_s = d.figures.latency_p95(latency_metric_);
      sp.in_slo = d.figures.in_slo;
      // The knee reads every point that measured something: an INVALID point's latency is an upper bound,
      // inflated by at most the client's own delay (which its result reports), and dropping the low-load
      // points a busy client machine flags would leave no curve to bend. The operating point is a claim
      // about the server, so only VALID points may be it.
      sp.valid = !d.figures.partial && d.figures.completed > 0;
      curve.push_back(sp);
      sp.valid = sp.valid && d.figures.status == "VALID";
      valid_curve.push_back(sp);
    }
    nlohmann::ordered_json r = nlohmann::ordered_json::object();
    r["mode"] = concurrency_.empty() ? "rate" : "concurrency";
    r["latency_metric"] = latency_metric_;
    r["latency_percentile"] = 95;
    r["throughput_unit"] = "requests_per_s";
    r["complete"] = complete;
    r["partial"] = interrupted;
    r["planned_points"] = planned;
    r["slo"] = session_->slo().empty() ? nlohmann::ordered_json(nullptr) : session_->slo().to_json();
    auto points = nlohmann::ordered_json::array();
    // Each point's diagnostics stay with it, and the sweep's own list holds them all, each message led by its
    // point: the sweep document is what report and diagnose read, and a p99 from 60 requests is a fact of it.
    auto diagnostics = nlohmann::ordered_json::array();
    for (const DonePoint& d : done_) {
      const auto& res = d.document["result"];
      // A resumed point's file may have been edited: entries that are not diagnostics are left out.
      auto point_diagnostics = nlohmann::ordered_json::array();
      if (const auto it = d.document.find("diagnostics"); it != d.document.end() && it->is_array()) {
        for (const auto& entry : *it) {
          if (entry.is_object() && entry.contains("message") && entry["message"].is_string()) point_diagnostics.push_back(entry);
        }
      }
      for (auto entry : point_diagnostics) {
        entry["message"] = fmt::format("{}: {}", d.planned.label, entry["message"].get<std::string>());
        diagnostics.push_back(std::move(entry));
      }
      points.push_back({{"label", d.planned.label},
                        {"load", std::isfinite(d.planned.offered) ? nlohmann::ordered_json(d.planned.offered) : nullptr},
                        {"load_kind", d.planned.level.rate ? "rate_per_s" : "concurrency"},
                        {"status", d.figures.status},
                        {"client_limited", d.figures.client_limited},
                        {"partial", d.figures.partial},
                        {"in_slo", d.figures.in_slo},
                        // Each point's own start: --rate auto mixes closed-loop points (synchronous, throughput)
                        // with open-loop ones, so one value for the sweep would be wrong for some.
                        {"latency_from", d.document["conditions"]["parameters"].value("latency_from", "")},
                        {"result_file", point_path(d.planned, ".json").string()},
                        {"records_file", point_path(d.planned, ".records.jsonl").string()},
                        {"summary", res["summary"]},
                        {"windows", res.contains("windows") ? res["windows"] : nlohmann::ordered_json::array()},
                        {"slo_gate", res.contains("slo_gate") ? res["slo_gate"] : nlohmann::ordered_json(nullptr)},
                        {"diagnostics", point_diagnostics}});
    }
    r["points"] = std::move(points);
    const auto knee = load::find_knee(curve);
    r["knee_rule"] = "Kneedle: max of normalised throughput - normalised p95 latency, up to the peak throughput, "
                     "over every complete point (docs/load.md, Sweeps)";
    r["knee"] = knee ? nlohmann::ordered_json{{"index", knee->index},
                                              {"label", done_[knee->index].planned.label},
                                              {"throughput_rps", knee->throughput},
                                              {"latency_s", knee->latency_s},
                                              {"score", knee->score}}
                     : nlohmann::ordered_json(nullptr);
    const auto op = load::choose_operating_point(valid_curve);
    nlohmann::ordered_json op_json = nullptr, headroom = nullptr, capacity = nullptr;
    if (op) {
      const PointFigures& f = done_[*op].figures;
      op_json = {{"index", *op},
                 {"label", done_[*op].planned.label},
                 {"requests_per_s", f.requests_per_s},
                 {"output_tokens_per_s", f.output_tokens_per_s},
                 {"latency_p95_s", f.latency_p95(latency_metric_)}};
      if (expected_rate_) {
        headroom = {{"expected_rate_per_s", *expected_rate_}, {"ratio", f.requests_per_s / *expected_rate_}};
      }
      if (const auto target = target_rate_ ? target_rate_ : expected_rate_) {
        if (auto replicas = load::replicas_needed(*target, f.requests_per_s); replicas.ok()) {
          capacity = {{"target_rate_per_s", *target}, {"per_replica_rate_per_s", f.requests_per_s}, {"replicas", *replicas}};
        }
      }
    }
    r["operating_point"] = std::move(op_json);
    r["headroom"] = std::move(headroom);
    r["capacity"] = std::move(capacity);
    nlohmann::ordered_json doc = report::make_json_document("sweep", session_->conditions(), r, std::move(diagnostics));
    if (mpi::rank() == 0) PH_TRY(report::write_text_file(sweep_path().string(), doc.dump(2) + "\n"));
    return doc;
  }

  std::string render_summary(const nlohmann::ordered_json& sweep) const {
    const auto& r = sweep["result"];
    std::string slo;
    if (!r["slo"].is_null()) {
      slo = fmt::format(", SLO {}", flags_.slo);
      // At --sim-time-scale K the terms were judged divided by K (load_session.cpp): say so beside them.
      const auto as_written = load::parse_slo(flags_.slo);
      if (as_written.ok() && as_written->to_string() != session_->slo().to_string()) {
        slo += fmt::format(" (judged at wall clock: {})", session_->slo().to_string());
      }
    }
    std::string out = fmt::format("\nperfhound sweep: {} of {} points{}; latency = p95 {}{}\n", done_.size(),
                                  r.value("planned_points", 0), r.value("partial", false) ? " (partial: interrupted)" : "",
                                  latency_metric_, slo);
    report::TableWriter table({{"load", report::Align::kLeft}, {"status", report::Align::kLeft}, {"req/s"}, {"out tok/s"},
                               {"goodput/s"}, {"TTFT p50"}, {"TTFT p95"}, {"TTFT p99"}, {"TPOT p50"}, {"TPOT p95"},
                               {"TPOT p99"}, {"ITL p95"}, {"E2E p95"}, {"E2E p99"}, {"errors"}, {"SLO", report::Align::kLeft}});
    std::vector<double> latencies, loads;
    for (const DonePoint& d : done_) {
      const PointFigures& f = d.figures;
      table.add_row({d.planned.label, f.client_limited ? "client-limited" : f.status,
                     fmt::format("{:.2f}", f.requests_per_s), fmt::format("{:.0f}", f.output_tokens_per_s),
                     std::isfinite(f.goodput_per_s) ? fmt::format("{:.2f}", f.goodput_per_s) : "-", seconds(f.ttft.p50),
                     seconds(f.ttft.p95), seconds(f.ttft.p99), seconds(f.tpot.p50), seconds(f.tpot.p95),
                     seconds(f.tpot.p99), seconds(f.itl.p95), seconds(f.e2e.p95), seconds(f.e2e.p99),
                     fmt::format("{}", f.failed), r["slo"].is_null() ? "-" : (f.in_slo ? "in" : "OUT")});
      latencies.push_back(f.latency_p95(latency_metric_));
    }
    out += table.render();
    // The points' warnings were printed as each ran; here they stand under the figures they qualify.
    for (const auto& d : sweep["diagnostics"]) {
      const auto text = [&d](const char* key) { return d.contains(key) && d[key].is_string() ? d[key].get<std::string>() : ""; };
      out += fmt::format("{} [{}]: {}. Remedy: {}.\n", text("severity"), text("id"), text("message"), text("remedy"));
    }
    out += fmt::format("\np95 {} vs load (log scale, low to high load): {}\n", latency_metric_,
                       load::sparkline(latencies, /*log_scale=*/true));
    if (!r["knee"].is_null()) {
      out += fmt::format("knee: {} ({:.2f} req/s, p95 {} {}): past it, latency climbs faster than throughput\n",
                         r["knee"]["label"].get<std::string>(), r["knee"]["throughput_rps"].get<double>(),
                         latency_metric_, seconds(r["knee"]["latency_s"].get<double>()));
    } else {
      out += "knee: none found (the curve does not bend enough over these loads; extend the sweep upward)\n";
    }
    if (r["slo"].is_null()) {
      out += "operating point: give --slo to choose one (the highest throughput inside the SLO)\n";
    } else if (r["operating_point"].is_null()) {
      out += "operating point: none; no valid point met the SLO (lower the load or relax the SLO)\n";
    } else {
      const auto& op = r["operating_point"];
      out += fmt::format("operating point: {} ({:.2f} req/s, {:.0f} output tok/s): the highest throughput inside the SLO\n",
                         op["label"].get<std::string>(), op["requests_per_s"].get<double>(),
                         op["output_tokens_per_s"].get<double>());
      if (!r["headroom"].is_null()) {
        out += fmt::format("headroom: {:.2f}x the expected {} req/s\n", r["headroom"]["ratio"].get<double>(),
                           core::format_number(r["headroom"]["expected_rate_per_s"].get<double>()));
      }
      if (!r["capacity"].is_null()) {
        const auto replicas = r["capacity"]["replicas"].get<std::int64_t>();
        out += fmt::format("capacity: {} {} for {} req/s at SLO ({:.2f} req/s each)\n", replicas,
                           replicas == 1 ? "replica" : "replicas",
                           core::format_number(r["capacity"]["target_rate_per_s"].get<double>()),
                           r["capacity"]["per_replica_rate_per_s"].get<double>());
      }
    }
    return out;
  }

  LoadFlags flags_;
  OutputOptions output_;
  std::unique_ptr<LoadSession> session_;
  std::vector<DonePoint> done_;
  std::string concurrency_, rate_, cooldown_ = "2s", latency_metric_ = "ttft", out_dir_ = "perfhound-sweep";
  int points_ = 6;
  std::int64_t auto_concurrency_ = 256;
  std::optional<double> expected_rate_, target_rate_;
  bool resume_ = false, quiet_ = false;
};

}  // namespace

std::unique_ptr<Command> make_sweep_command() { return std::make_unique<SweepCommand>(); }

}  // namespace perfhound::cli
