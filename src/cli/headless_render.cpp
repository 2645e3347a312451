#include "cli/headless_render.h"

#include <cerrno>
#include <cmath>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <optional>
#include <spawn.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "cli/program_path.h"

extern char** environ;

namespace perfhound::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// Generous: a cold Chromium start in a container takes 1-3 s, Node.js well under one; a hang (a profile
// lock, a dialog that headless cannot show) must not stall a CI job.
constexpr auto kProcessTimeout = std::chrono::seconds(90);
// How long Chromium lets the page run (virtual time: timers fire without real waiting) before it dumps
// the DOM or takes the screenshot; vega-embed draws in well under a second of it.
constexpr std::string_view kVirtualTimeBudgetMs = "10000";
// Margin around the chart in the one-chart page (its body margin, report::render_chart_html).
constexpr int kPageMarginPx = 8;

// Loads the UMD bundles into a fresh global scope (they define vega and vegaLite there; require() would
// look for an installed "vega" package instead) and writes chart.svg next to this script.
constexpr std::string_view kNodeScript = R"js('use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');
const context = vm.createContext({console, setTimeout, clearTimeout, setInterval, clearInterval, queueMicrotask,
                                  structuredClone, URL, TextEncoder, TextDecoder, performance});
for (const file of ['vega.js', 'vega-lite.js']) {
  vm.runInContext(fs.readFileSync(path.join(__dirname, file), 'utf8'), context, {filename: file});
}
context.spec = JSON.parse(fs.readFileSync(path.join(__dirname, 'spec.json'), 'utf8'));
vm.runInContext("new vega.View(vega.parse(vegaLite.compile(spec).spec), {renderer: 'none'}).toSVG()", context)
  .then((svg) => fs.writeFileSync(path.join(__dirname, 'chart.svg'), svg))
  .catch((e) => { process.stderr.write('vega: ' + (e && e.message ? e.message : e) + '\n'); process.exit(1); });
)js";

core::Result<std::string> require_program(std::initializer_list<std::string_view> names, std::string_view what,
                                          std::string_view format) {
  if (auto found = find_on_path(names)) return *found;
  return core::Error{fmt::format("--format {} needs {} ('{}' is not on PATH); run scripts/install-deps", format, what,
                                 *names.begin())};
}

// A directory under the system temporary directory, removed with everything in it when this goes.
class TempDir {
 public:
  static core::Result<TempDir> create() {
    std::string pattern = (fs::temp_directory_path() / "perfhound-report-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      return core::Error{fmt::format("cannot create a temporary directory in '{}': {}",
                                     fs::temp_directory_path().string(), std::strerror(errno))};
    }
    return TempDir(pattern);
  }
  TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  TempDir& operator=(TempDir&&) = delete;
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  explicit TempDir(fs::path path) : path_(std::move(path)) {}
  fs::path path_;
};

core::Status write_file(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) return core::Error{fmt::format("cannot write '{}'", path.string())};
  return {};
}

core::Result<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return core::Error{fmt::format("cannot read '{}'", path.string())};
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string last_line(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  const auto at = text.rfind('\n');
  return std::string(at == std::string_view::npos ? text : text.substr(at + 1));
}

struct ProcessResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs program with args in its own process group, stdin from /dev/null, stdout and stderr into files of
// `dir`; kills the whole group (Chromium forks helpers) when it outlives kProcessTimeout.
core::Result<ProcessResult> run_process(const std::string& program, const std::vector<std::string>& args,
                                        const fs::path& dir) {
  const std::string out_path = (dir / "stdout.txt").string();
  const std::string err_path = (dir / "stderr.txt").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, program.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (spawned != 0) return core::Error{fmt::format("cannot start '{}': {}", program, std::strerror(spawned))};

  const auto deadline = std::chrono::steady_clock::now() + kProcessTimeout;
  int status = 0;
  bool timed_out = false;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) return core::Error{fmt::format("waiting for '{}': {}", program, std::strerror(errno))};
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(-pid, SIGKILL);  // helpers left behind in the group, if any (ESRCH when none: fine)
  if (timed_out) {
    return core::Error{fmt::format("'{}' did not finish within {} s and was stopped", program, kProcessTimeout.count())};
  }
  ProcessResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  PH_ASSIGN_OR_RETURN(result.out, read_file(out_path));
  PH_ASSIGN_OR_RETURN(result.err, read_file(err_path));
  return result;
}

// The value of attribute `name` in the first `tag` element at or after `from` that has it, e.g. width="640".
// (The inlined libraries hold tag names in strings, such as "<body>", so the first match may be text.)
std::optional<std::string> attribute_after(std::string_view html, std::size_t from, std::string_view tag,
                                           std::string_view name) {
  const std::string key = fmt::format(" {}=\"", name);
  for (auto open = html.find(tag, from); open != std::string_view::npos; open = html.find(tag, open + 1)) {
    const auto close = html.find('>', open);
    if (close == std::string_view::npos) break;
    const std::string_view element = html.substr(open, close - open);
    const auto at = element.find(key);
    if (at == std::string_view::npos) continue;
    const auto end = element.find('"', at + key.size());
    return std::string(element.substr(at + key.size(), end - at - key.size()));
  }
  return std::nullopt;
}

// The texts of the <li> items of the page's error list, joined.
std::string page_errors(std::string_view dom) {
  const auto list = dom.find("id=\"report-errors\"");
  const auto list_end = dom.find("</ul>", list);
  if (list == std::string_view::npos || list_end == std::string_view::npos) return "";
  std::string out;
  for (auto at = dom.find("<li>", list); at != std::string_view::npos && at < list_end; at = dom.find("<li>", at + 4)) {
    const auto end = dom.find("</li>", at);
    out += (out.empty() ? "" : "; ") + std::string(dom.substr(at + 4, end - at - 4));
  }
  return out;
}

}  // namespace

std::vector<std::string> chromium_base_flags(const std::string& user_data_dir) {
  return {"--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--no-first-run",
          "--disable-default-apps",
          "--user-data-dir=" + user_data_dir};
}

core::Result<std::string> render_svg_with_node(const Json& spec, const report::HtmlAssets& assets) {
  PH_ASSIGN_OR_RETURN(const std::string node, require_program({"node", "nodejs"}, "Node.js", "svg"));
  PH_ASSIGN_OR_RETURN(TempDir dir, TempDir::create());
  PH_TRY(write_file(dir.path() / "vega.js", assets.vega_js));
  PH_TRY(write_file(dir.path() / "vega-lite.js", assets.vega_lite_js));
  PH_TRY(write_file(dir.path() / "render.cjs", kNodeScript));
  PH_TRY(write_file(dir.path() / "spec.json", spec.dump(-1, ' ', false, Json::error_handler_t::replace)));
  PH_ASSIGN_OR_RETURN(const ProcessResult run, run_process(node, {(dir.path() / "render.cjs").string()}, dir.path()));
  if (run.exit_code != 0) {
    return core::Error{fmt::format("node could not draw the chart (exit {}): {}", run.exit_code, last_line(run.err))};
  }
  return read_file(dir.path() / "chart.svg");
}

core::Result<std::string> render_png_with_chromium(const Json& spec, const report::HtmlAssets& assets,
                                                   std::string_view title) {
  PH_ASSIGN_OR_RETURN(const std::string chromium,
                      require_program({"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"},
                                      "Chromium", "png"));
  PH_ASSIGN_OR_RETURN(TempDir dir, TempDir::create());
  const fs::path page = dir.path() / "chart.html";
  PH_TRY(write_file(page, report::render_chart_html(spec, assets, title)));
  const std::string url = "file://" + page.string();
  std::vector<std::string> flags = chromium_base_flags((dir.path() / "profile").string());
  flags.push_back(fmt::format("--virtual-time-budget={}", kVirtualTimeBudgetMs));

  // First the DOM, to know the chart drew, without errors, and how large it is; then the screenshot at
  // exactly that size.
  std::vector<std::string> dump = flags;
  dump.push_back("--dump-dom");
  dump.push_back(url);
  PH_ASSIGN_OR_RETURN(const ProcessResult dom, run_process(chromium, dump, dir.path()));
  if (dom.exit_code != 0) {
    return core::Error{fmt::format("chromium could not load the chart (exit {}): {}", dom.exit_code, last_line(dom.err))};
  }
  const auto errors = attribute_after(dom.out, 0, "<body", "data-errors");
  if (!errors || *errors != "0") {
    return core::Error{fmt::format("the chart drew with errors in chromium: {}", page_errors(dom.out))};
  }
  const auto chart = dom.out.find("id=\"chart-chart\"");
  const auto width = attribute_after(dom.out, chart, "<svg", "width");
  const auto height = attribute_after(dom.out, chart, "<svg", "height");
  if (chart == std::string::npos || !width || !height) {
    return core::Error{"chromium loaded the chart page but no chart was drawn in it"};
  }
  const int w = static_cast<int>(std::ceil(std::atof(width->c_str()))) + 2 * kPageMarginPx;
  const int h = static_cast<int>(std::ceil(std::atof(height->c_str()))) + 2 * kPageMarginPx;

  const fs::path png = dir.path() / "chart.png";
  std::vector<std::string> shot = flags;
  shot.push_back("--hide-scrollbars");
  shot.push_back(fmt::format("--window-size={},{}", w, h));
  shot.push_back("--screenshot=" + png.string());
  shot.push_back(url);
  PH_ASSIGN_OR_RETURN(const ProcessResult taken, run_process(chromium, shot, dir.path()));
  if (taken.exit_code != 0 || !fs::exists(png)) {
    return core::Error{fmt::format("chromium took no screenshot (exit {}): {}", taken.exit_code, last_line(taken.err))};
  }
  return read_file(png);
}

}  // namespace perfhound::cli
