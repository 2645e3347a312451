// For the tests of several clients sharing one load (merge_cli_test, mpi_cli_test): a records file by request
// index, and the percentile the merged results must reproduce, computed independently of perfhound.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace perfhound::testing {

using Records = std::map<std::uint64_t, nlohmann::json>;

// A JSONL records file (its header line skipped), each record under its index.
inline Records read_records(const std::filesystem::path& path) {
  std::ifstream in(path);
  Records out;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    auto r = nlohmann::json::parse(line);
    out[r["index"].get<std::uint64_t>()] = r;
  }
  return out;
}

// numpy.percentile's default ("linear"): rank h = (n - 1) q / 100 between the two order statistics around it.
inline double linear_percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double h = (static_cast<double>(v.size()) - 1) * q / 100;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

}  // namespace perfhound::testing
