// The audit tests' fixtures (tests/data/audit): a file's text, and the claim imported from it.
#pragma once

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>

#include "audit/claim_importer.h"

namespace perfhound::audit {

inline std::string read_fixture(const std::string& name) {
  std::ifstream in(std::string(PERFHOUND_TEST_DATA) + "/audit/" + name, std::ios::binary);
  EXPECT_TRUE(in) << name;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline Claim import_fixture(const std::string& name) {
  auto claim = import_claim(name, read_fixture(name));
  EXPECT_TRUE(claim.ok()) << (claim.ok() ? "" : claim.error().message);
  return claim.ok() ? std::move(claim).value() : Claim{};
}

}  // namespace perfhound::audit
