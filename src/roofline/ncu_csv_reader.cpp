#include "roofline/ncu_csv_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace perfhound::roofline {
namespace {

using core::Error;
using core::Result;
using core::Status;

constexpr std::string_view kExportHint = "export with ncu --set roofline --csv --page raw";

// Byte multipliers of the derived L2 and L1 metrics (SpeedOfLight_Hierarchical*RooflineChart.section:
// derived__lts__lts2xbar_bytes = lts__lts2xbar_cycles_active * 32, derived__l1tex__lsu_writeback_bytes* =
// l1tex__lsu_writeback_active* * 128), for exports that carry only the underlying cycle metrics.
constexpr double kL2BytesPerActiveCycle = 32;
constexpr double kL1BytesPerActiveCycle = 128;
// FLOPs per thread instruction as the roofline sections weight them (SpeedOfLight_RooflineChart.section's
// derived *_x2 metrics for FFMA/DFMA; SpeedOfLight_HierarchicalHalfRooflineChart.section's _x2 for HADD/HMUL
// and _x4 for HFMA, every half instruction being a packed pair).
constexpr double kFlopsPerFma = 2;
constexpr double kFlopsPerHalfAddOrMul = 2;
constexpr double kFlopsPerHalfFma = 4;
// CUDA's cudaDevAttrClockRate, which ncu exports as device__attribute_clock_rate, is in kHz.
constexpr double kHzPerKhz = 1e3;

constexpr std::string_view kDuration = "gpu__time_duration.sum";
constexpr std::string_view kSmspClock = "smsp__cycles_elapsed.avg.per_second";
constexpr std::string_view kSmClock = "sm__cycles_elapsed.avg.per_second";
constexpr std::string_view kDramBytes = "dram__bytes.sum";
constexpr std::string_view kDramRate = "dram__bytes.sum.per_second";
constexpr std::string_view kTensorSrcPrefix = "sm__ops_path_tensor_src_";
constexpr std::string_view kTensorOpPrefix = "sm__ops_path_tensor_op_";

std::string inst_metric(std::string_view op) {
  return fmt::format("smsp__sass_thread_inst_executed_op_{}_pred_on.sum.per_cycle_elapsed", op);
}
std::string peak_inst_metric(std::string_view op) {
  return fmt::format("sm__sass_thread_inst_executed_op_{}_pred_on.sum.peak_sustained", op);
}

// ---- CSV records ---------------------------------------------------------------------------------------

struct Record {
  std::vector<std::string> fields;
  int line = 0;
};

class CsvScanner {
 public:
  explicit CsvScanner(std::string_view text) : text_(text) {}

  bool at_end() const { return pos_ >= text_.size(); }
  int line() const { return line_; }

  // The rest of the current physical line, without its terminator, without consuming it.
  std::string_view peek_line() const {
    const std::size_t end = text_.find('\n', pos_);
    std::string_view line = text_.substr(pos_, end == std::string_view::npos ? std::string_view::npos : end - pos_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
  }
  void skip_line() {
    const std::size_t end = text_.find('\n', pos_);
    pos_ = end == std::string_view::npos ? text_.size() : end + 1;
    ++line_;
  }

  // One RFC 4180 record: fields separated by ',', optionally quoted ("" inside quotes is a quote; quoted
  // fields may hold ',' and newlines). Consumes the record's line terminator.
  Result<Record> next_record() {
    Record record;
    record.line = line_;
    std::string field;
    while (true) {
      field.clear();
      if (pos_ < text_.size() && text_[pos_] == '"') {
        const int open_line = line_;
        ++pos_;
        while (true) {
          if (pos_ >= text_.size()) return Error{fmt::format("line {}: unterminated quoted field", open_line)};
          const char c = text_[pos_++];
          if (c == '"') {
            if (pos_ < text_.size() && text_[pos_] == '"') {
              field.push_back('"');
              ++pos_;
              continue;
            }
            break;
          }
          if (c == '\n') ++line_;
          field.push_back(c);
        }
        if (pos_ < text_.size() && text_[pos_] == '\r') ++pos_;
        if (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n') {
          return Error{fmt::format("line {}: unexpected '{}' after a closing quote", line_, text_[pos_])};
        }
      } else {
        while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n') field.push_back(text_[pos_++]);
        if (!field.empty() && field.back() == '\r') field.pop_back();
      }
      record.fields.push_back(field);
      if (pos_ >= text_.size()) return record;
      if (text_[pos_++] == '\n') {
        ++line_;
        return record;
      }
    }
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

bool is_note(std::string_view line) { return line.starts_with("=="); }
bool is_header(std::string_view line) { return line.starts_with("\"ID\",") || line.starts_with("ID,"); }

// ---- numbers and units ---------------------------------------------------------------------------------

// ncu prints "1,406,144" and "5,853,479,853.48"; "n/a" or an empty field when a metric has no value.
enum class Parsed { kValue, kEmpty, kBad };
Parsed parse_number(std::string_view text, double& out) {
  if (text.empty() || text == "n/a" || text == "N/A") return Parsed::kEmpty;
  std::string digits;
  digits.reserve(text.size());
  for (const char c : text) {
    if (c != ',') digits.push_back(c);
  }
  char* end = nullptr;
  out = std::strtod(digits.c_str(), &end);
  if (digits.empty() || end != digits.c_str() + digits.size() || !std::isfinite(out)) return Parsed::kBad;
  return Parsed::kValue;
}

// Factor from a units-row entry to SI base units. Durations: ns/us/ms/s (ncu's short forms) or
// nsecond/usecond/msecond/second (its long forms). Everything else: a known base unit, optionally with a
// decimal K/M/G/T/P prefix as `--print-units auto` writes ("Gbyte/s"); the base unit itself is not checked
// against the metric because ncu labels some derived metrics loosely (derived__lts__lts2xbar_bytes.sum.
// per_second carries "byte" on the real file although it is bytes per second).
std::optional<double> unit_factor(std::string_view unit, bool is_duration) {
  if (is_duration) {
    static constexpr std::array<std::pair<std::string_view, double>, 8> kTime{{{"ns", 1e-9},
                                                                               {"nsecond", 1e-9},
                                                                               {"us", 1e-6},
                                                                               {"usecond", 1e-6},
                                                                               {"ms", 1e-3},
                                                                               {"msecond", 1e-3},
                                                                               {"s", 1},
                                                                               {"second", 1}}};
    for (const auto& [name, factor] : kTime) {
      if (unit == name) return factor;
    }
    return std::nullopt;
  }
  static constexpr std::array<std::string_view, 11> kBase{
      "", "byte", "byte/s", "byte/second", "byte/cycle", "hz", "Hz", "cycle", "cycle/second", "inst", "inst/cycle",
  };
  const auto is_base = [&](std::string_view u) { return std::find(kBase.begin(), kBase.end(), u) != kBase.end(); };
  if (is_base(unit)) return 1.0;
  static constexpr std::string_view kPrefixes = "KMGTP";
  if (unit.size() > 1 && is_base(unit.substr(1))) {
    const std::size_t p = kPrefixes.find(unit[0]);
    if (p != std::string_view::npos) return std::pow(1e3, static_cast<double>(p + 1));
  }
  return std::nullopt;
}

// ---- the table -----------------------------------------------------------------------------------------

class Table {
 public:
  Table(Record header, Record units) : header_(std::move(header)), units_(std::move(units)) {
    for (std::size_t i = 0; i < header_.fields.size(); ++i) index_.emplace(header_.fields[i], i);
  }

  const std::vector<std::string>& columns() const { return header_.fields; }
  bool has(std::string_view column) const { return index_.contains(std::string(column)); }
  std::optional<std::size_t> find(std::string_view column) const {
    const auto it = index_.find(std::string(column));
    if (it == index_.end()) return std::nullopt;
    return it->second;
  }

  Result<double> factor(std::size_t column, bool is_duration) const {
    const std::string& unit = units_.fields[column];
    const std::optional<double> f = unit_factor(unit, is_duration);
    if (!f) {
      return Error{fmt::format("column '{}' has unit '{}', which perfhound does not know{}", header_.fields[column],
                               unit, is_duration ? " (expected ns, us, ms or s)" : "; export with --print-units base")};
    }
    return *f;
  }

 private:
  Record header_;
  Record units_;
  std::unordered_map<std::string, std::size_t> index_;
};

// One kernel row with its table, for reading values with row context in the errors.
class Row {
 public:
  Row(const Table& table, const Record& record) : table_(table), record_(record) {}

  int line() const { return record_.line; }
  const std::string& text(std::size_t column) const { return record_.fields[column]; }
  void set_id(std::int64_t id) { context_ = fmt::format("line {} (kernel ID {})", record_.line, id); }
  const std::string& context() const { return context_; }

  // The value in SI base units; an error when the column is missing, empty, "n/a" or not a number.
  Result<double> required(std::string_view column, bool is_duration = false) const {
    const std::optional<std::size_t> i = table_.find(column);
    if (!i) return Error{fmt::format("missing column '{}'; {}", column, kExportHint)};
    double value = 0;
    switch (parse_number(record_.fields[*i], value)) {
      case Parsed::kValue:
        break;
      case Parsed::kEmpty:
        return Error{fmt::format("{}: column '{}' has no value ('{}')", context_, column, record_.fields[*i])};
      case Parsed::kBad:
        return Error{
            fmt::format("{}: column '{}': cannot parse '{}' as a number", context_, column, record_.fields[*i])};
    }
    PH_TRY(not_negative(column, value, record_.fields[*i]));
    PH_ASSIGN_OR_RETURN(const double f, table_.factor(*i, is_duration));
    return value * f;
  }

  // nullopt when the column is missing or the field empty / "n/a"; an error when it holds something else.
  Result<std::optional<double>> optional(std::string_view column) const {
    if (!table_.has(column)) return std::optional<double>{};
    const std::size_t i = *table_.find(column);
    double value = 0;
    if (const Parsed parsed = parse_number(record_.fields[i], value); parsed != Parsed::kValue) {
      if (parsed == Parsed::kEmpty) return std::optional<double>{};
      return Error{fmt::format("{}: column '{}': cannot parse '{}' as a number", context_, column, record_.fields[i])};
    }
    PH_TRY(not_negative(column, value, record_.fields[i]));
    PH_ASSIGN_OR_RETURN(const double f, table_.factor(i, false));
    return std::optional<double>{value * f};
  }

  // Every column a roofline reads is a time, a count, a byte total or a rate: a negative one is a damaged
  // export, and placed on the roofline it would print a figure as if it were one.
  Status not_negative(std::string_view column, double value, const std::string& field) const {
    if (value >= 0) return {};
    return Error{fmt::format("{}: column '{}' must not be negative, got '{}'", context_, column, field)};
  }

 private:
  const Table& table_;
  const Record& record_;
  std::string context_;
};

// The columns a roofline needs; the error names the first one missing (and how many more).
Status check_required_columns(const Table& table) {
  std::vector<std::string> missing;  // each already quoted, e.g. "'x'" or "'a' (or 'b')"
  const auto require = [&](std::string_view name) {
    if (!table.has(name)) missing.push_back(fmt::format("'{}'", name));
  };
  for (const std::string_view name : {std::string_view("ID"), std::string_view("Kernel Name"), kDuration, kSmspClock}) {
    require(name);
  }
  for (const std::string_view op : {"fadd", "fmul", "ffma", "dadd", "dmul", "dfma", "hadd", "hmul", "hfma"}) {
    require(inst_metric(op));
  }
  if (!table.has(kDramBytes) && !table.has(kDramRate)) {
    missing.push_back(fmt::format("'{}' (or '{}')", kDramRate, kDramBytes));
  }
  const bool any_tensor = std::any_of(table.columns().begin(), table.columns().end(), [](const std::string& c) {
    return c.starts_with(kTensorSrcPrefix) && (c.ends_with(".sum") || c.ends_with(".sum.per_second"));
  });
  if (!any_tensor) missing.push_back(fmt::format("'{}*.sum'", kTensorSrcPrefix));
  if (missing.empty()) return Status::success();
  const std::string more =
      missing.size() > 1 ? fmt::format(" (and {} more roofline metrics)", missing.size() - 1) : std::string();
  return Error{fmt::format("missing column {}{}; {}", missing.front(), more, kExportHint)};
}

// Tensor metric families found in the header, decided once per file.
struct TensorColumns {
  std::vector<std::string> sources;  // base names (no ".sum") of the per-source aggregates to add up
  std::vector<std::string> ops;      // base names of the per-instruction counters (for the peak only)
};

TensorColumns find_tensor_columns(const Table& table) {
  std::vector<std::string> sources;
  TensorColumns result;
  for (const std::string& column : table.columns()) {
    const bool is_source = column.starts_with(kTensorSrcPrefix);
    if (!is_source && !column.starts_with(kTensorOpPrefix)) continue;
    for (const std::string_view suffix : {std::string_view(".sum"), std::string_view(".sum.per_second")}) {
      if (!column.ends_with(suffix)) continue;
      const std::string base = column.substr(0, column.size() - suffix.size());
      std::vector<std::string>& family = is_source ? sources : result.ops;
      if (std::find(family.begin(), family.end(), base) == family.end()) family.push_back(base);
    }
  }
  // A finer aggregate (X_sparsity_on, src_fp16_dst_fp32) is already inside a coarser one (X, src_fp16).
  for (const std::string& s : sources) {
    const bool covered = std::any_of(sources.begin(), sources.end(), [&](const std::string& coarser) {
      return coarser != s && s.starts_with(coarser + "_");
    });
    if (!covered) result.sources.push_back(s);
  }
  return result;
}

// A counter's kernel total: its .sum when exported, else .sum.per_second * duration.
Result<double> counter_total(const Row& row, const std::string& base, double duration_s) {
  PH_ASSIGN_OR_RETURN(const std::optional<double> sum, row.optional(base + ".sum"));
  if (sum) return *sum;
  PH_ASSIGN_OR_RETURN(const std::optional<double> rate, row.optional(base + ".sum.per_second"));
  return rate ? *rate * duration_s : 0.0;
}

Result<FpInstructionCounts> instructions(const Row& row, std::string_view add, std::string_view mul,
                                         std::string_view fma, double per_cycle_to_count) {
  FpInstructionCounts counts;
  PH_ASSIGN_OR_RETURN(const double a, row.required(inst_metric(add)));
  PH_ASSIGN_OR_RETURN(const double m, row.required(inst_metric(mul)));
  PH_ASSIGN_OR_RETURN(const double f, row.required(inst_metric(fma)));
  counts.add = a * per_cycle_to_count;
  counts.mul = m * per_cycle_to_count;
  counts.fma = f * per_cycle_to_count;
  return counts;
}

// peak_sustained (per cycle) * the clock, when both are there.
Result<std::optional<double>> peak(const Row& row, std::string_view per_cycle, double weight, std::string_view clock) {
  PH_ASSIGN_OR_RETURN(const std::optional<double> p, row.optional(per_cycle));
  PH_ASSIGN_OR_RETURN(const std::optional<double> hz, row.optional(clock));
  if (!p || !hz) return std::optional<double>{};
  return std::optional<double>{*p * weight * *hz};
}

// The first exported of (derived bytes metric, underlying cycles metric * bytes per cycle).
Result<std::optional<double>> first_scaled(const Row& row,
                                           std::initializer_list<std::pair<std::string_view, double>> options) {
  for (const auto& [name, scale] : options) {
    PH_ASSIGN_OR_RETURN(const std::optional<double> v, row.optional(name));
    if (v) return std::optional<double>{*v * scale};
  }
  return std::optional<double>{};
}

Status read_tensor(const Row& row, const TensorColumns& tensor, NcuKernel& kernel) {
  for (const std::string& source : tensor.sources) {
    PH_ASSIGN_OR_RETURN(const double ops, counter_total(row, source, kernel.duration_s));
    if (ops > 0) {
      kernel.tensor_flops_by_metric.emplace_back(source + ".sum", ops);
      kernel.flops_by_precision.tensor += ops;
    }
  }
  // Peak: the instruction-type counter carrying most of the work (its own peak is dense or sparse as the
  // work was). Without op_* counters, the aggregate carrying most of the work, if it cannot be the sparse
  // rate; otherwise no tensor peak rather than a 2x one.
  std::string best;
  double best_ops = 0;
  for (const std::string& op : tensor.ops) {
    PH_ASSIGN_OR_RETURN(const double ops, counter_total(row, op, kernel.duration_s));
    if (ops > best_ops) {
      best = op;
      best_ops = ops;
    }
  }
  if (best.empty() && !kernel.tensor_flops_by_metric.empty()) {
    const auto& dominant = *std::max_element(kernel.tensor_flops_by_metric.begin(), kernel.tensor_flops_by_metric.end(),
                                             [](const auto& a, const auto& b) { return a.second < b.second; });
    const std::string base = dominant.first.substr(0, dominant.first.size() - std::string_view(".sum").size());
    if (base.ends_with("_sparsity_off") || base.ends_with("_src_fp64")) best = base;
  }
  if (!best.empty()) {
    PH_ASSIGN_OR_RETURN(kernel.peaks.tensor_flops_per_s, peak(row, best + ".sum.peak_sustained", 1, kSmClock));
    if (kernel.peaks.tensor_flops_per_s) kernel.peaks.tensor_metric = best;
  }
  return Status::success();
}

Result<NcuKernel> read_kernel(Row& row, const Table& table, const TensorColumns& tensor) {
  NcuKernel kernel;
  kernel.line = row.line();
  {
    double id = 0;
    const std::string& id_text = row.text(*table.find("ID"));
    if (parse_number(id_text, id) != Parsed::kValue || id != std::floor(id) || id < 0) {
      return Error{fmt::format("line {}: column 'ID': '{}' is not a kernel ID", row.line(), id_text)};
    }
    kernel.id = static_cast<std::int64_t>(id);
    row.set_id(kernel.id);
  }
  kernel.name = row.text(*table.find("Kernel Name"));
  if (const auto device = table.find("device__attribute_display_name")) kernel.device = row.text(*device);

  PH_ASSIGN_OR_RETURN(kernel.duration_s, row.required(kDuration, /*is_duration=*/true));
  if (kernel.duration_s <= 0) {
    return Error{fmt::format("{}: {} must be positive, got {}", row.context(), kDuration, kernel.duration_s)};
  }
  // Counts from per-elapsed-cycle rates: rate * clock = per second (what the sections plot), * duration.
  PH_ASSIGN_OR_RETURN(const double smsp_hz, row.required(kSmspClock));
  const double per_cycle_to_count = smsp_hz * kernel.duration_s;
  PH_ASSIGN_OR_RETURN(kernel.fp32_instructions, instructions(row, "fadd", "fmul", "ffma", per_cycle_to_count));
  PH_ASSIGN_OR_RETURN(kernel.fp64_instructions, instructions(row, "dadd", "dmul", "dfma", per_cycle_to_count));
  PH_ASSIGN_OR_RETURN(kernel.fp16_instructions, instructions(row, "hadd", "hmul", "hfma", per_cycle_to_count));
  const auto& f32 = kernel.fp32_instructions;
  const auto& f64 = kernel.fp64_instructions;
  const auto& f16 = kernel.fp16_instructions;
  kernel.flops_by_precision.fp32 = f32.add + f32.mul + kFlopsPerFma * f32.fma;
  kernel.flops_by_precision.fp64 = f64.add + f64.mul + kFlopsPerFma * f64.fma;
  kernel.flops_by_precision.fp16 = kFlopsPerHalfAddOrMul * (f16.add + f16.mul) + kFlopsPerHalfFma * f16.fma;

  PH_ASSIGN_OR_RETURN(const std::optional<double> sm_hz, row.optional(kSmClock));
  kernel.peaks.sm_clock_hz = sm_hz.value_or(smsp_hz);
  PH_TRY(read_tensor(row, tensor, kernel));
  const FlopsByPrecision& f = kernel.flops_by_precision;
  kernel.total_flops = f.fp64 + f.fp32 + f.fp16 + f.tensor;

  PH_ASSIGN_OR_RETURN(const std::optional<double> dram_sum, row.optional(kDramBytes));
  if (dram_sum) {
    kernel.dram_bytes = *dram_sum;
  } else {
    PH_ASSIGN_OR_RETURN(const double dram_rate, row.required(kDramRate));
    kernel.dram_bytes = dram_rate * kernel.duration_s;
  }
  PH_ASSIGN_OR_RETURN(const std::optional<double> l2_rate,
                      first_scaled(row, {{"derived__lts__lts2xbar_bytes.sum.per_second", 1},
                                         {"lts__lts2xbar_cycles_active.sum.per_second", kL2BytesPerActiveCycle}}));
  if (l2_rate) kernel.l2_bytes = *l2_rate * kernel.duration_s;
  PH_ASSIGN_OR_RETURN(
      const std::optional<double> l1_rate,
      first_scaled(row, {{"derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.per_second", 1},
                         {"derived__l1tex__lsu_writeback_bytes_mem_lg.sum.per_second", 1},
                         {"derived__l1tex__lsu_writeback_bytes.sum.per_second", 1},
                         {"l1tex__lsu_writeback_active_mem_lgds.sum.per_second", kL1BytesPerActiveCycle},
                         {"l1tex__lsu_writeback_active_mem_lg.sum.per_second", kL1BytesPerActiveCycle},
                         {"l1tex__lsu_writeback_active.sum.per_second", kL1BytesPerActiveCycle}}));
  if (l1_rate) kernel.l1_bytes = *l1_rate * kernel.duration_s;

  NcuPeaks& p = kernel.peaks;
  PH_ASSIGN_OR_RETURN(const std::optional<double> max_khz, row.optional("device__attribute_clock_rate"));
  if (max_khz) p.max_sm_clock_hz = *max_khz * kHzPerKhz;
  PH_ASSIGN_OR_RETURN(p.fp32_flops_per_s, peak(row, peak_inst_metric("ffma"), kFlopsPerFma, kSmClock));
  PH_ASSIGN_OR_RETURN(p.fp64_flops_per_s, peak(row, peak_inst_metric("dfma"), kFlopsPerFma, kSmClock));
  PH_ASSIGN_OR_RETURN(p.fp16_flops_per_s, peak(row, peak_inst_metric("hfma"), kFlopsPerHalfFma, kSmClock));
  PH_ASSIGN_OR_RETURN(p.dram_bytes_per_s,
                      peak(row, "dram__bytes.sum.peak_sustained", 1, "dram__cycles_elapsed.avg.per_second"));
  PH_ASSIGN_OR_RETURN(const std::optional<double> l2_per_cycle,
                      first_scaled(row, {{"derived__lts__lts2xbar_bytes.sum.peak_sustained", 1},
                                         {"lts__lts2xbar_cycles_active.sum.peak_sustained", kL2BytesPerActiveCycle}}));
  PH_ASSIGN_OR_RETURN(const std::optional<double> l2_hz, row.optional("lts__cycles_elapsed.avg.per_second"));
  if (l2_per_cycle && l2_hz) p.l2_bytes_per_s = *l2_per_cycle * *l2_hz;
  PH_ASSIGN_OR_RETURN(
      const std::optional<double> l1_per_cycle,
      first_scaled(row, {{"derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.peak_sustained", 1},
                         {"derived__l1tex__lsu_writeback_bytes_mem_lg.sum.peak_sustained", 1},
                         {"derived__l1tex__lsu_writeback_bytes.sum.peak_sustained", 1},
                         {"l1tex__lsu_writeback_active_mem_lgds.sum.peak_sustained", kL1BytesPerActiveCycle},
                         {"l1tex__lsu_writeback_active_mem_lg.sum.peak_sustained", kL1BytesPerActiveCycle},
                         {"l1tex__lsu_writeback_active.sum.peak_sustained", kL1BytesPerActiveCycle}}));
  PH_ASSIGN_OR_RETURN(const std::optional<double> l1_hz, row.optional("l1tex__cycles_elapsed.avg.per_second"));
  if (l1_per_cycle && l1_hz) p.l1_bytes_per_s = *l1_per_cycle * *l1_hz;
  return kernel;
}

// The next table record after the header, skipping notes and blank lines; nullopt at the end of the text.
Result<std::optional<Record>> next_table_record(CsvScanner& scanner, std::size_t width, int header_line,
                                                NcuCsv& result) {
  while (!scanner.at_end()) {
    const std::string_view line = scanner.peek_line();
    if (is_note(line) || line.empty()) {
      if (!line.empty()) result.notes.emplace_back(line);
      scanner.skip_line();
      continue;
    }
    PH_ASSIGN_OR_RETURN(Record record, scanner.next_record());
    if (record.fields.size() != width) {
      return Error{fmt::format("line {}: expected {} fields as in the header (line {}), got {}", record.line, width,
                               header_line, record.fields.size())};
    }
    return std::optional<Record>(std::move(record));
  }
  return std::optional<Record>{};
}

// One pass, one kernel row in memory at a time (exports of thousands of kernels x 1,300 columns are common).
Result<NcuCsv> parse(std::string_view text) {
  NcuCsv result;
  CsvScanner scanner(text);
  while (!scanner.at_end() && !is_header(scanner.peek_line())) {
    if (!scanner.peek_line().empty()) result.notes.emplace_back(scanner.peek_line());
    scanner.skip_line();
  }
  if (scanner.at_end()) {
    return Error{"no header line (one starting with \"ID\",) found: not an Nsight Compute CSV; " +
                 std::string(kExportHint)};
  }
  PH_ASSIGN_OR_RETURN(Record header, scanner.next_record());
  const int header_line = header.line;
  const std::size_t width = header.fields.size();
  // ncu writes the units row right after the header; its "ID" field is empty.
  PH_ASSIGN_OR_RETURN(std::optional<Record> units, next_table_record(scanner, width, header_line, result));
  if (!units || !units->fields.front().empty()) {
    return Error{fmt::format("line {}: expected the units row (empty \"ID\" field) after the header on line {}; {}",
                             units ? units->line : header_line + 1, header_line, kExportHint)};
  }
  const Table table(std::move(header), std::move(*units));
  PH_TRY(check_required_columns(table));
  const TensorColumns tensor = find_tensor_columns(table);
  while (true) {
    PH_ASSIGN_OR_RETURN(std::optional<Record> record, next_table_record(scanner, width, header_line, result));
    if (!record) break;
    Row row(table, *record);
    PH_ASSIGN_OR_RETURN(NcuKernel kernel, read_kernel(row, table, tensor));
    result.kernels.push_back(std::move(kernel));
  }
  if (result.kernels.empty()) {
    return Error{
        "no kernel rows after the units row: ncu profiled no kernel (check its --kernel-name and "
        "--launch-count filters)"};
  }
  return result;
}

}  // namespace

Result<NcuCsv> parse_ncu_csv(std::string_view text, std::string_view source_name) {
  const std::string source(source_name);
  return parse(text).with_context(fmt::format("ncu CSV '{}'", source));
}

Result<NcuCsv> read_ncu_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{fmt::format("ncu CSV '{}': cannot open the file", path)};
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return Error{fmt::format("ncu CSV '{}': read error", path)};
  return parse_ncu_csv(buffer.str(), path);
}

KernelMeasurement dram_measurement(const NcuKernel& kernel) {
  return {kernel.total_flops, kernel.dram_bytes, kernel.duration_s};
}

std::optional<Roof> roof_from_row(const NcuKernel& kernel) {
  const FlopsByPrecision& f = kernel.flops_by_precision;
  const NcuPeaks& p = kernel.peaks;
  if (!p.dram_bytes_per_s || kernel.total_flops <= 0) return std::nullopt;
  struct Candidate {
    double flops;
    const std::optional<double>* peak;
    std::string name;
  };
  const std::array<Candidate, 4> candidates{{{f.tensor, &p.tensor_flops_per_s, "tensor (" + p.tensor_metric + ")"},
                                             {f.fp32, &p.fp32_flops_per_s, "fp32"},
                                             {f.fp16, &p.fp16_flops_per_s, "fp16"},
                                             {f.fp64, &p.fp64_flops_per_s, "fp64"}}};
  const Candidate* best = &candidates[0];
  for (const Candidate& c : candidates) {
    if (c.flops > best->flops) best = &c;
  }
  if (!*best->peak) return std::nullopt;
  const std::string device = kernel.device.empty() ? std::string() : kernel.device + " ";
  return Roof{**best->peak, *p.dram_bytes_per_s,
              fmt::format("{}{} + DRAM at {:.2f} GHz", device, best->name, p.sm_clock_hz / 1e9)};
}

std::vector<MemoryLevel> memory_levels(const NcuKernel& kernel) {
  std::vector<MemoryLevel> levels;
  const NcuPeaks& p = kernel.peaks;
  if (kernel.l1_bytes && p.l1_bytes_per_s) levels.push_back({"L1", *kernel.l1_bytes, *p.l1_bytes_per_s});
  if (kernel.l2_bytes && p.l2_bytes_per_s) levels.push_back({"L2", *kernel.l2_bytes, *p.l2_bytes_per_s});
  if (p.dram_bytes_per_s) levels.push_back({"DRAM", kernel.dram_bytes, *p.dram_bytes_per_s});
  return levels;
}

}  // namespace perfhound::roofline
