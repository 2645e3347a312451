#include "report/html_report.h"

#include <algorithm>
#include <fmt/format.h>
#include <vector>

#include "core/units.h"
#include "report/report_charts.h"

namespace perfhound::report {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kStyle = R"css(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #1f2328; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 15px; margin: 0 0 6px; overflow-wrap: anywhere; }
.sub, footer, .notes, .absent { color: #59636e; font-size: 12px; }
.inputs { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
.input { flex: 1 1 380px; max-width: 680px; border: 1px solid #d1d9e0; border-radius: 6px; padding: 12px 16px; }
.facts { margin: 0 0 8px; padding-left: 18px; }
.status-valid { color: #1a7f37; font-weight: 600; }
.status-invalid { color: #cf222e; font-weight: 600; }
.note { color: #9a6700; }
table.conditions { border-collapse: collapse; font-size: 12px; }
table.conditions th, table.conditions td { padding: 1px 10px 1px 0; text-align: left; vertical-align: top; }
table.conditions th { font-weight: 600; color: #59636e; white-space: nowrap; }
table.conditions td { overflow-wrap: anywhere; font-family: ui-monospace, monospace; }
.diagnostics { font-size: 12px; padding-left: 18px; }
.charts { display: flex; flex-wrap: wrap; gap: 28px; margin-top: 24px; }
figure { margin: 0; }
#report-errors { color: #cf222e; }
)css";

// Runs before the libraries, so an error while they load is counted too.
constexpr std::string_view kErrorHook = R"js(
(function () {
  var errors = [];
  function show() {
    var body = document.body;
    if (!body) return;
    body.setAttribute('data-errors', String(errors.length));
    var list = document.getElementById('report-errors');
    if (!list) return;
    list.hidden = errors.length === 0;
    list.textContent = '';
    errors.forEach(function (m) { var li = document.createElement('li'); li.textContent = m; list.appendChild(li); });
  }
  window.perfhoundRecordError = function (message) { errors.push(String(message)); show(); };
  window.addEventListener('error', function (e) { window.perfhoundRecordError(e.message || 'error'); });
  window.addEventListener('unhandledrejection', function (e) {
    var r = e.reason;
    window.perfhoundRecordError('unhandled rejection: ' + (r && r.message ? r.message : r));
  });
  var consoleError = console.error;
  console.error = function () {
    window.perfhoundRecordError(Array.prototype.map.call(arguments, String).join(' '));
    return consoleError.apply(console, arguments);
  };
  document.addEventListener('DOMContentLoaded', show);
})();
)js";

// Draws every div.chart from its <script type="application/json" id="spec-NAME">.
constexpr std::string_view kBoot = R"js(
(function () {
  var body = document.body;
  var rendered = 0;
  document.querySelectorAll('div.chart[data-chart]').forEach(function (div) {
    var name = div.getAttribute('data-chart');
    var spec;
    try {
      spec = JSON.parse(document.getElementById('spec-' + name).textContent);
    } catch (e) {
      window.perfhoundRecordError('chart ' + name + ': ' + e);
      return;
    }
    vegaEmbed(div, spec, {renderer: 'svg', actions: false}).then(function () {
      div.setAttribute('data-rendered', 'true');
      body.setAttribute('data-charts-rendered', String(++rendered));
    }).catch(function (e) {
      window.perfhoundRecordError('chart ' + name + ': ' + (e && e.message ? e.message : e));
    });
  });
})();
)js";

// A library bundle as the body of a <script> element: "</script" (any case) cannot occur unescaped, and the
// source map comment goes (the .map files are not shipped; a browser with developer tools open would
// try to fetch one).
std::string js_for_script(std::string_view js) {
  if (const auto at = js.rfind("\n//# sourceMappingURL="); at != std::string_view::npos) js = js.substr(0, at + 1);
  std::string lower(js);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string out;
  out.reserve(js.size());
  std::size_t copied = 0;
  for (std::size_t at = lower.find("</script"); at != std::string::npos; at = lower.find("</script", at + 1)) {
    out.append(js.substr(copied, at + 1 - copied));  // up to and including '<'
    out.push_back('\\');
    copied = at + 1;
  }
  out.append(js.substr(copied));
  return out;
}

std::string value_text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// Every leaf of the conditions as (dotted key, text); the open parameters under their own names, as the
// terminal conditions block prints them.
void flatten(const Json& v, const std::string& key, std::vector<std::pair<std::string, std::string>>& out) {
  if (v.is_object() && !v.empty()) {
    for (const auto& [k, child] : v.items()) {
      const std::string child_key = key.empty() || key == "parameters" ? k : key + "." + k;
      flatten(child, child_key, out);
    }
    return;
  }
  if (key == "command_line" && v.is_array()) {
    std::string line;
    for (const Json& arg : v) {
      std::string a = value_text(arg);
      if (a.find_first_of(" \t'\"") != std::string::npos || a.empty()) a = "'" + a + "'";
      line += (line.empty() ? "" : " ") + a;
    }
    out.emplace_back(key, line);
    return;
  }
  out.emplace_back(key, value_text(v));
}

const Json* child(const Json& j, std::string_view key) {
  if (!j.is_object()) return nullptr;
  const auto it = j.find(std::string(key));
  return it == j.end() ? nullptr : &*it;
}

// obj[key] as text, or `fallback` when it has no such member.
std::string field_text(const Json& obj, std::string_view key, std::string_view fallback) {
  const Json* v = child(obj, key);
  return v != nullptr ? value_text(*v) : std::string(fallback);
}

std::string number_text(const Json* v, std::string_view unit) {
  if (v == nullptr || !v->is_number()) return "n/a";
  return core::format_number(v->get<double>()) + std::string(unit);  // 16160, not 1.616e+04
}

std::string status_html(const Json* status) {
  const std::string s = status != nullptr && status->is_string() ? status->get<std::string>() : "unknown";
  const char* cls = s == "VALID" ? "status-valid" : s == "INVALID" ? "status-invalid" : "";
  return fmt::format("<span class=\"{}\">{}</span>", cls, html_escape(s));
}

// The few lines under an input's name that say what it is and whether to trust it.
std::string facts_html(const ReportInput& input) {
  const Json& r = input.result();
  std::vector<std::string> facts;
  if (input.kind() == "perfhound.load") {
    std::string line = "status " + status_html(child(r, "status"));
    if (const Json* p = child(r, "partial"); p != nullptr && p->is_boolean() && p->get<bool>()) {
      line += " (partial: " + html_escape(field_text(r, "stop_reason", "interrupted")) + ")";
    }
    facts.push_back(line);
    if (const Json* reasons = child(r, "invalid_reasons"); reasons != nullptr && reasons->is_array()) {
      for (const Json& reason : *reasons) facts.push_back("invalid: " + html_escape(value_text(reason)));
    }
    const Json* summary = child(r, "summary");
    const Json* throughput = summary ? child(*summary, "throughput") : nullptr;
    if (throughput != nullptr) {
      facts.push_back(fmt::format("throughput {}, {} output tokens/s",
                                  number_text(child(*throughput, "requests_per_s"), " requests/s"),
                                  number_text(child(*throughput, "output_tokens_per_s"), "")));
    }
    if (const Json* requests = summary ? child(*summary, "requests") : nullptr) {
      facts.push_back(fmt::format("requests: {} completed, {} failed", number_text(child(*requests, "completed"), ""),
                                  number_text(child(*requests, "failed"), "")));
    }
  } else if (input.kind() == "perfhound.sweep") {
    const Json* points = child(r, "points");
    const std::size_t n = points != nullptr && points->is_array() ? points->size() : 0;
    std::size_t valid = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const Json* s = child((*points)[i], "status");
      valid += s != nullptr && s->is_string() && s->get<std::string>() == "VALID";
    }
    facts.push_back(fmt::format("sweep over {}: {} points ({} VALID), latency metric {}",
                                html_escape(field_text(r, "mode", "?")), n, valid,
                                html_escape(field_text(r, "latency_metric", "?"))));
    const Json* slo = child(r, "slo");
    const Json* slo_text = slo ? child(*slo, "text") : nullptr;
    if (slo_text == nullptr && slo != nullptr) slo_text = child(*slo, "spec");  // core's Slo::to_json
    facts.push_back("SLO: " + (slo_text ? html_escape(value_text(*slo_text)) : std::string("none")));
    const auto point_load = [&](const Json* mark) -> std::string {
      const Json* index = mark ? child(*mark, "index") : nullptr;
      if (index == nullptr || !index->is_number_integer() || index->get<std::int64_t>() < 0 ||
          static_cast<std::size_t>(index->get<std::int64_t>()) >= n) {
        return "?";
      }
      const Json& point = (*points)[static_cast<std::size_t>(index->get<std::int64_t>())];
      const Json* label = child(point, "label");
      if (label != nullptr && label->is_string()) return html_escape(label->get<std::string>());
      const Json* load = child(point, "load");
      return load ? "load " + html_escape(value_text(*load)) : "?";
    };
    if (const Json* knee = child(r, "knee"); knee != nullptr && knee->is_object()) {
      const Json* rule = child(*knee, "rule") ? child(*knee, "rule") : child(r, "knee_rule");
      facts.push_back(fmt::format("knee at {}: {}, {} ({})", point_load(knee),
                                  number_text(child(*knee, "throughput_rps"), " requests/s"),
                                  number_text(child(*knee, "latency_s"), " s"),
                                  html_escape(rule ? value_text(*rule) : std::string("rule not stated"))));
    } else {
      facts.push_back("knee: none found");
    }
    if (const Json* op = child(r, "operating_point"); op != nullptr && op->is_object()) {
      facts.push_back(fmt::format("operating point at {}: {}, {} output tokens/s", point_load(op),
                                  number_text(child(*op, "requests_per_s"), " requests/s"),
                                  number_text(child(*op, "output_tokens_per_s"), "")));
    } else {
      facts.push_back("operating point: none within the SLO");
    }
    if (const Json* h = child(r, "headroom"); h != nullptr && h->is_object()) {
      facts.push_back(fmt::format("headroom: {} over an expected {}", number_text(child(*h, "ratio"), "x"),
                                  number_text(child(*h, "expected_rate_per_s"), " requests/s")));
    }
    if (const Json* c = child(r, "capacity"); c != nullptr && c->is_object()) {
      facts.push_back(fmt::format("capacity: {} replicas for {}", number_text(child(*c, "replicas"), ""),
                                  number_text(child(*c, "target_rate_per_s"), " requests/s")));
    }
  } else {
    facts.push_back(fmt::format("<span class=\"note\">no charts for kind {} yet</span>", html_escape(input.kind())));
  }
  std::string out = "<ul class=\"facts\">";
  for (const auto& f : facts) out += "<li>" + f + "</li>";
  return out + "</ul>\n";
}

std::string input_html(std::span<const ReportInput> inputs, std::size_t i) {
  const ReportInput& input = inputs[i];
  std::string out = fmt::format("<article class=\"input\" data-kind=\"{}\">\n<h2>{}</h2>\n<p class=\"sub\">{}</p>\n",
                                html_escape(input.kind()), html_escape(input_label(inputs, i)),
                                html_escape(input.path + " \u00b7 " + input.kind()));
  out += facts_html(input);
  std::vector<std::pair<std::string, std::string>> rows;
  flatten(input.conditions(), "", rows);
  out += fmt::format("<details open><summary>conditions ({})</summary>\n<table class=\"conditions\">\n", rows.size());
  for (const auto& [k, v] : rows) {
    out += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", html_escape(k), html_escape(v));
  }
  out += "</table></details>\n";
  const Json& diagnostics = input.diagnostics();
  if (diagnostics.empty()) {
    out += "<p class=\"sub\">diagnostics: none</p>\n";
  } else {
    out += fmt::format("<p>diagnostics ({}):</p><ul class=\"diagnostics\">\n", diagnostics.size());
    for (const Json& d : diagnostics) {
      const auto field = [&](std::string_view key) {
        const Json* f = child(d, key);
        return f ? value_text(*f) : std::string();
      };
      std::string line = fmt::format("{} [{}]: {}", field("severity"), field("id"), field("message"));
      if (!field("remedy").empty()) line += ". Remedy: " + field("remedy");
      if (!d.is_object()) line = value_text(d);
      out += "<li>" + html_escape(line) + "</li>\n";
    }
    out += "</ul>\n";
  }
  return out + "</article>\n";
}

std::string head_html(std::string_view title, const HtmlAssets& assets) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += fmt::format("<title>{}</title>\n<style>{}</style>\n", html_escape(title), kStyle);
  out += fmt::format("<script>{}</script>\n", kErrorHook);
  for (const std::string_view js : {assets.vega_js, assets.vega_lite_js, assets.vega_embed_js}) {
    out += "<script>" + js_for_script(js) + "</script>\n";
  }
  return out + "</head>\n";
}

std::string chart_html(std::string_view name, const Json& spec) {
  return fmt::format("<div class=\"chart\" id=\"chart-{0}\" data-chart=\"{0}\"></div>\n"
                     "<script type=\"application/json\" id=\"spec-{0}\">{1}</script>\n",
                     name, json_for_script(spec));
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string json_for_script(const Json& value) {
  const std::string json = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  // '<' occurs only inside JSON strings, where "\/", "\u0021" and "\u003c" are valid escapes of '/', '!' and
  // '<'. "</" would end the element; "<!--" and "<script" would switch the HTML tokenizer into the
  // "double escaped" state, in which a later "</script>" no longer ends it
  // (https://html.spec.whatwg.org/multipage/scripting.html#restrictions-for-contents-of-script-elements).
  std::string out;
  out.reserve(json.size());
  for (std::size_t i = 0; i < json.size(); ++i) {
    const std::string_view rest = std::string_view(json).substr(i);
    if (json[i] != '<') {
      out += json[i];
    } else if (rest.starts_with("</")) {
      out += "<\\/";
      ++i;
    } else if (rest.starts_with("<!--")) {
      out += "<\\u0021";
      ++i;
    } else if (rest.size() >= 7 && std::equal(rest.begin() + 1, rest.begin() + 7, "script", [](char a, char b) {
                 return std::tolower(static_cast<unsigned char>(a)) == b;
               })) {
      out += "\\u003c";
    } else {
      out += '<';
    }
  }
  return out;
}

std::string render_html_report(std::span<const ReportInput> inputs, const HtmlAssets& assets,
                               const HtmlReportOptions& options) {
  std::string title = options.title;
  if (title.empty()) {
    title = "perfhound report: ";
    for (std::size_t i = 0; i < inputs.size(); ++i) title += (i ? ", " : "") + input_label(inputs, i);
  }
  std::vector<std::pair<const ChartInfo*, ChartSpec>> drawn;
  std::vector<const ChartInfo*> absent;
  for (const ChartInfo& info : chart_catalogue()) {
    ChartSpec spec = chart_spec(info.id, inputs);
    if (spec.has_data) {
      drawn.emplace_back(&info, std::move(spec));
    } else {
      absent.push_back(&info);
    }
  }

  std::string out = head_html(title, assets);
  out += fmt::format("<body data-errors=\"0\" data-charts=\"{}\" data-charts-rendered=\"0\">\n", drawn.size());
  out += fmt::format("<header><h1>{}</h1><p class=\"sub\">{} input{}, {} chart{}</p></header>\n", html_escape(title),
                     inputs.size(), inputs.size() == 1 ? "" : "s", drawn.size(), drawn.size() == 1 ? "" : "s");
  out += "<ul id=\"report-errors\" hidden></ul>\n<section id=\"conditions\" class=\"inputs\">\n";
  for (std::size_t i = 0; i < inputs.size(); ++i) out += input_html(inputs, i);
  out += "</section>\n<section id=\"charts\" class=\"charts\">\n";
  for (const auto& [info, spec] : drawn) {
    out += fmt::format("<figure id=\"figure-{}\">\n", info->name);
    out += chart_html(info->name, spec.spec);
    if (!spec.notes.empty()) {
      out += "<ul class=\"notes\">";
      for (const auto& note : spec.notes) out += "<li>" + html_escape(note) + "</li>";
      out += "</ul>\n";
    }
    out += "</figure>\n";
  }
  out += "</section>\n";
  if (!absent.empty()) {
    out += "<p class=\"absent\">not drawn, no input has the data: ";
    for (std::size_t i = 0; i < absent.size(); ++i) {
      out += fmt::format("{}{} (needs {})", i ? "; " : "", absent[i]->name, html_escape(absent[i]->needs));
    }
    out += "</p>\n";
  }
  out += fmt::format("<footer>Charts drawn by {}, inlined: this file needs no network. Vega, Vega-Lite and "
                     "Vega-Embed: Copyright (c) 2015-2023, University of Washington Interactive Data Lab, "
                     "BSD-3-Clause.</footer>\n",
                     html_escape(assets.versions));
  out += fmt::format("<script>{}</script>\n</body>\n</html>\n", kBoot);
  return out;
}

std::string render_chart_html(const Json& spec, const HtmlAssets& assets, std::string_view title) {
  std::string out = head_html(title, assets);
  out += "<body data-errors=\"0\" data-charts=\"1\" data-charts-rendered=\"0\" style=\"margin: 8px\">\n";
  out += "<ul id=\"report-errors\" hidden></ul>\n";
  out += chart_html("chart", spec);
  out += fmt::format("<script>{}</script>\n</body>\n</html>\n", kBoot);
  return out;
}

}  // namespace perfhound::report
