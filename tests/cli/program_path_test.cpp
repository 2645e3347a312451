// why_program_cannot_run searches as execvp does (record asks it before removing the last run's trace): an empty
// PATH entry is the current folder, no PATH is the system default, and a file found but not executable is named.
#include "cli/program_path.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace perfhound::cli {
namespace {

class ProgramPath : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* p = std::getenv("PATH")) saved_ = p;
    dir_ = std::filesystem::temp_directory_path() / ("perfhound_program_path_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "tool") << "#!/bin/sh\n";
    ::chmod((dir_ / "tool").c_str(), 0755);
    std::ofstream(dir_ / "data") << "x";
    ::chmod((dir_ / "data").c_str(), 0644);
    old_cwd_ = std::filesystem::current_path();
  }
  void TearDown() override {
    std::filesystem::current_path(old_cwd_);
    ::setenv("PATH", saved_.c_str(), 1);
    std::filesystem::remove_all(dir_);
  }
  std::string saved_;
  std::filesystem::path dir_, old_cwd_;
};

TEST_F(ProgramPath, SearchesAsExecvpDoes) {
  ::setenv("PATH", dir_.c_str(), 1);
  EXPECT_EQ(why_program_cannot_run("tool"), "");
  EXPECT_EQ(why_program_cannot_run("perfhound-no-such-tool"), "not found on PATH");
  EXPECT_EQ(why_program_cannot_run("data"), "'" + (dir_ / "data").string() + "' is on PATH but not executable");
  // An empty entry (here the trailing one) is the current folder.
  ::setenv("PATH", "/nonexistent-folder:", 1);
  std::filesystem::current_path(dir_);
  EXPECT_EQ(why_program_cannot_run("tool"), "");
  // No PATH: the system's default folders, where sh is.
  ::unsetenv("PATH");
  EXPECT_EQ(why_program_cannot_run("sh"), "");
  // A '/' in the name: that file, not a search.
  EXPECT_EQ(why_program_cannot_run((dir_ / "tool").string()), "");
  EXPECT_EQ(why_program_cannot_run(dir_.string()), "a folder, not a program");
  EXPECT_EQ(why_program_cannot_run((dir_ / "nothing").string()), "no such file");
}

}  // namespace
}  // namespace perfhound::cli
