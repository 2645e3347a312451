// The data/hw/*.json files, embedded at build time by cmake/embed_files.cmake (file name, content).
#pragma once

#include <span>
#include <string_view>
#include <utility>

namespace perfhound::hw {

std::span<const std::pair<std::string_view, std::string_view>> builtin_chip_files();

}  // namespace perfhound::hw
