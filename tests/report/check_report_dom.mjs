// Checks what a browser (or vega's SVG renderer) drew for `perfhound report`, from serialized markup:
//
//   node check_report_dom.mjs dom  <dumped DOM of the report of tests/data/report/*.json>
//   node check_report_dom.mjs svg  <an SVG from --format svg --chart pareto of sweep_concurrency.json>
//
// Vega's SVG renderer gives each mark a <g class="mark-<type> role-mark <layer name>_marks"> holding one
// <path> (symbols, rects, lines) or <text> per datum, so the counts below are the data points drawn. The
// expected counts are the fixtures' (5 sweep points, 1 knee, 1 operating point, 2 load runs ...).
// Prints one line per check; exits 1 when any fails.
import fs from 'node:fs';

const [mode, file] = process.argv.slice(2);
const text = fs.readFileSync(file, 'utf8');
let failures = 0;

function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures++;
}

// The children of every mark group of layer `name` in `markup`: how many `child` elements they hold.
function drawn(markup, name, child = '<path') {
  const open = new RegExp(`<g class="mark-[a-z]+ role-mark ${name}_marks"[^>]*>`, 'g');
  let groups = 0, items = 0, m;
  while ((m = open.exec(markup)) !== null) {
    groups++;
    const end = markup.indexOf('</g>', m.index);
    const body = markup.slice(m.index + m[0].length, end);
    items += body.split(child).length - 1;
  }
  return {groups, items};
}

// The markup of one chart container: from its div to its spec script (which follows it).
function chart(name) {
  // vega-embed adds its own class and attributes to the container.
  const start = text.search(new RegExp(`<div class="chart[^"]*" id="chart-${name}"`));
  const end = text.indexOf(`<script type="application/json" id="spec-${name}"`, start);
  return start < 0 || end < 0 ? '' : text.slice(start, end);
}

function attribute(tag, name) {
  const m = text.match(new RegExp(`<${tag}[^>]* ${name}="([^"]*)"`));
  return m ? m[1] : null;
}

if (mode === 'dom') {
  check(attribute('body', 'data-errors') === '0', `body data-errors is 0 (got ${attribute('body', 'data-errors')})`);
  check(attribute('body', 'data-charts') === '5', `the report has 5 charts (got ${attribute('body', 'data-charts')})`);
  check(attribute('body', 'data-charts-rendered') === '5',
        `vega-embed finished all 5 (got ${attribute('body', 'data-charts-rendered')})`);
  for (const name of ['pareto', 'ttft_cdf', 'tpot_cdf', 'latency_over_time', 'concurrency_over_time']) {
    const markup = chart(name);
    check(/data-rendered="true"/.test(markup) && /<svg[^>]* class="marks"/.test(markup), `${name}: an <svg> was drawn`);
  }
  const pareto = chart('pareto');
  check(drawn(pareto, 'pareto_points').items === 5, `pareto: 5 sweep points (got ${drawn(pareto, 'pareto_points').items})`);
  check(drawn(pareto, 'load_labels', '<text').items === 5, `pareto: 5 load labels (got ${drawn(pareto, 'load_labels', '<text').items})`);
  check(drawn(pareto, 'pareto_curve').items === 1, `pareto: the curve (got ${drawn(pareto, 'pareto_curve').items})`);
  check(drawn(pareto, 'slo_box').items === 1, `pareto: the SLO box (got ${drawn(pareto, 'slo_box').items})`);
  check(drawn(pareto, 'knee').items === 1, `pareto: the knee (got ${drawn(pareto, 'knee').items})`);
  check(drawn(pareto, 'operating_point').items === 1, `pareto: the operating point (got ${drawn(pareto, 'operating_point').items})`);
  check(/knee \(c=16\)/.test(pareto) && /operating point \(c=8\)/.test(pareto), 'pareto: knee and operating point labelled');
  // 2 load runs with 12 percentiles each (one null TPOT p99.9), 5 sweep points with p50/p95/p99.
  const ttft = chart('ttft_cdf'), tpot = chart('tpot_cdf');
  check(drawn(ttft, 'ttft_cdf_lines').groups === 7, `ttft_cdf: 7 series lines (got ${drawn(ttft, 'ttft_cdf_lines').groups})`);
  check(drawn(ttft, 'ttft_cdf_points').items === 12 + 12 + 15, `ttft_cdf: 39 points (got ${drawn(ttft, 'ttft_cdf_points').items})`);
  check(drawn(tpot, 'tpot_cdf_points').items === 12 + 11 + 15, `tpot_cdf: 38 points (got ${drawn(tpot, 'tpot_cdf_points').items})`);
  const latency = drawn(chart('latency_over_time'), 'latency_over_time_lines');
  check(latency.groups >= 3 && latency.items >= 9, `latency_over_time: lines in 3 facets (got ${latency.groups} groups, ${latency.items} paths)`);
  const concurrency = drawn(chart('concurrency_over_time'), 'concurrency_over_time_lines');
  check(concurrency.groups >= 3 && concurrency.items >= 9,
        `concurrency_over_time: lines in 3 facets (got ${concurrency.groups} groups, ${concurrency.items} paths)`);
  check(!/<script>alert\(/.test(text) && /&lt;\/script&gt;&lt;script&gt;alert\(1\)/.test(text),
        'the condition value with </script><script> stayed text');
} else if (mode === 'svg') {
  check(text.startsWith('<svg') && text.trimEnd().endsWith('</svg>'), 'a whole SVG document');
  check(drawn(text, 'pareto_points').items === 5, `5 sweep points (got ${drawn(text, 'pareto_points').items})`);
  check(drawn(text, 'knee').items === 1 && drawn(text, 'operating_point').items === 1, 'knee and operating point');
  check(drawn(text, 'slo_box').items === 1, 'the SLO box');
} else {
  console.error(`usage: node check_report_dom.mjs dom|svg FILE`);
  process.exit(2);
}
process.exit(failures === 0 ? 0 : 1);
