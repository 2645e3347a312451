// core::check_output_file: what a command says before it measures, about the file it will write.
#include "core/output_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace perfhound::core {
namespace {

std::string error_of(const std::string& path) {
  const Status s = check_output_file("-o", path, "trace.json");
  return s.ok() ? std::string() : s.error().message;
}

TEST(CheckOutputFile, NamesTheFlagAndWhatIsWrong) {
  const auto dir = std::filesystem::temp_directory_path() / ("perfhound_output_file_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string folder = dir.string();
  EXPECT_EQ(error_of(""), "-o: give a file name, not ''");
  EXPECT_EQ(error_of(folder), "-o: '" + folder + "' is a folder: give a file in it, e.g. '" + folder + "/trace.json'");
  EXPECT_EQ(error_of(folder + "/"), "-o: '" + folder + "/' is a folder: give a file in it, e.g. '" + folder + "/trace.json'");
  // A folder not there yet, named with a trailing '/', is a folder too.
  EXPECT_EQ(error_of(folder + "/new/"), "-o: '" + folder + "/new/' is a folder: give a file in it, e.g. '" + folder + "/new/trace.json'");
  EXPECT_EQ(error_of(folder + "/new/t.json"), "-o: no folder '" + folder + "/new'");
  EXPECT_EQ(error_of(folder + "/t.json"), "");  // not there yet: made
  std::ofstream(dir / "t.json") << "{}";
  EXPECT_EQ(error_of(folder + "/t.json"), "");  // there: written over
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace perfhound::core
