// `perfhound probe` from the command line where no GPU run happens: bad flags, and a build or machine
// without CUDA, each one line on stderr and exit 2. (The GPU run is probe_gpu_test.cpp.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli/cli_runner.h"
#include "cuda/probe_runner.h"

namespace perfhound::cli {
namespace {

using ::testing::HasSubstr;

TEST(ProbeCli, BadFlagsNameTheFlag) {
  EXPECT_TRUE(is_one_line_error(run({"probe", "--device", "x"}), {"--device"}));
  EXPECT_TRUE(is_one_line_error(run({"probe", "--repeats", "1"}), {"--repeats"}));
  EXPECT_TRUE(is_one_line_error(run({"probe", "--warmup", "0"}), {"--warmup"}));
  EXPECT_TRUE(is_one_line_error(run({"probe", "--frobnicate"}), {"--frobnicate"}));
  EXPECT_TRUE(is_one_line_error(run({"probe", "--base", "h200-sxm"}), {"--base: only used with --catalogue-out"}));
  EXPECT_TRUE(is_one_line_error(run({"probe", "--base", "no-such-chip", "--catalogue-out", "/tmp/x.json"}),
                                {"--base: unknown chip 'no-such-chip' (catalogue: a100-sxm-80gb"}));
}

// A number flag's error says what a number it wants, not CLI11's "not in range 0.000000 to" a 309-digit double.
TEST(ProbeCli, NumberFlagsSayWhatTheyWant) {
  EXPECT_TRUE(is_one_line_error(run({"probe", "--device", "abc"}), {"--device: must be a whole number, got 'abc'"}));
  EXPECT_TRUE(is_one_line_error(run({"probe", "--device", "-1"}), {"--device: must be 0 to 1023, got -1"}));
  EXPECT_TRUE(is_one_line_error(run({"probe", "--repeats", "x"}), {"--repeats: must be a whole number, got 'x'"}));
  EXPECT_TRUE(is_one_line_error(run({"probe", "--warmup", "2.5"}), {"--warmup: must be a whole number, got '2.5'"}));
}

// Where the files go is checked before the minutes of measuring, not after them: with or without a GPU, a folder
// that is not there is the error.
TEST(ProbeCli, OutputFoldersAreCheckedBeforeMeasuring) {
  EXPECT_TRUE(is_one_line_error(run({"probe", "--quick", "-o", "/nonexistent-folder/probe.json"}),
                                {"-o: no folder '/nonexistent-folder'"}));
  EXPECT_TRUE(is_one_line_error(run({"probe", "--quick", "--catalogue-out", "/nonexistent-folder/chip.json"}),
                                {"--catalogue-out: no folder '/nonexistent-folder'"}));
  const std::string folder = std::filesystem::temp_directory_path().string();
  EXPECT_TRUE(is_one_line_error(run({"probe", "--quick", "-o", folder}),
                                {"--output: '" + folder + "' is a folder: give a file in it"}));
  EXPECT_TRUE(is_one_line_error(run({"probe", "--quick", "--catalogue-out", folder + "/"}),
                                {"--catalogue-out: '" + folder + "/' is a folder"}));
  EXPECT_TRUE(is_one_line_error(run({"probe", "--quick", "--catalogue-out", ""}),
                                {"--catalogue-out: give a file name, not ''"}));
  EXPECT_TRUE(is_one_line_error(run({"probe", "--quick", "-o", ""}), {"--output: give a file name, not ''"}));
  // Written one after the other, the probe's document would replace the chip file the output tells to use.
  EXPECT_TRUE(
      is_one_line_error(run({"probe", "--quick", "-o", folder + "/p.json", "--catalogue-out", folder + "/./p.json"}),
                        {"-o and --catalogue-out name one file ('" + folder + "/./p.json')"}));
}

// A --base file is read as the chip file it will be copied into (roofline, mfu and serve read it), before measuring.
TEST(ProbeCli, ABaseFileMustBeAChipFile) {
  const auto base = std::filesystem::temp_directory_path() / "perfhound_probe_cli_base.json";
  std::ofstream(base) << "{}";
  EXPECT_TRUE(is_one_line_error(run({"probe", "--quick", "--base", base.string(), "--catalogue-out", "/tmp/x.json"}),
                                {"--base: chip '" + base.string() + "': schema_version must be 1"}));
  std::filesystem::remove(base);
}

TEST(ProbeCli, HelpListsEveryFlag) {
  const CliRun r = run({"probe", "--help"});
  EXPECT_EQ(r.code, 0);
  for (const char* flag : {"--device", "--quick", "--warmup", "--repeats", "--catalogue-out", "--base", "--json", "-o"}) {
    EXPECT_THAT(r.out, HasSubstr(flag));
  }
}

TEST(ProbeCli, WithoutCudaOrWithoutADeviceItSaysSoInOneLine) {
  const auto count = cuda::cuda_device_count();
  if (count.ok() && *count > 0) GTEST_SKIP() << "a CUDA device is present: probe_gpu_test runs the probe";
  const CliRun r = run({"probe", "--quick"});
  if (!cuda::built_with_cuda()) {
    EXPECT_TRUE(is_one_line_error(r, {"perfhound probe: built without CUDA (nvcc was not found at configure time)"}));
  } else {
    EXPECT_TRUE(is_one_line_error(r, {"perfhound probe: cudaGetDeviceCount"}));
  }
}

}  // namespace
}  // namespace perfhound::cli
