#pragma once

#include <memory>

#include "cli/command.h"

namespace perfhound::cli {

// perfhound compare A.json B.json [C.json D.json ...]: did the one change move the metric? Per metric the
// change of B against A with its confidence interval, the p-value and a verdict, after refusing runs whose
// conditions differ in more than the declared --variable (docs/compare.md).
std::unique_ptr<Command> make_compare_command();

}  // namespace perfhound::cli
