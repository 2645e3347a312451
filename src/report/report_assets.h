// The charting libraries `perfhound report` inlines into its HTML: the browser bundles of vega, vega-lite and
// vega-embed exactly as the npm packages pinned in web/package-lock.json ship them (build/*.min.js). They are
// installed by `npm ci` into the build tree and enter the binary through the assembler's .incbin
// (src/report/CMakeLists.txt), so the report needs no network at build's end or at view time.
#pragma once

#include "report/html_report.h"

namespace perfhound::report {

const HtmlAssets& embedded_report_assets();

}  // namespace perfhound::report
