// cuBLASLt through dlopen (cuda/cublaslt_library.h), without a GPU: the library the toolkit installed opens,
// every function perfhound calls resolves, and calls through the macros reach it (the version and a status
// name need no device).
#include "cuda/cublaslt_library.h"

#include <gtest/gtest.h>

#include <string>

namespace perfhound::cuda {
namespace {

TEST(CublasLtLibrary, OpensAndEveryFunctionResolves) {
  const core::Status available = cublaslt_available();
  ASSERT_TRUE(available.ok()) << available.error().message;
  EXPECT_NE(cublaslt_symbol("cublasLtMatmul"), nullptr);
  EXPECT_EQ(cublaslt_symbol("cublasLtNoSuchFunction"), nullptr);
}

TEST(CublasLtLibrary, CallsThroughTheMacrosReachTheLibrary) {
  ASSERT_TRUE(cublaslt_available().ok());
  // cublasLtGetVersion is major * 10000 + minor * 100 + patch: the major the headers were built with
  const auto version = static_cast<int>(cublasLtGetVersion());
  EXPECT_EQ(version / 10000, CUBLAS_VER_MAJOR);
  EXPECT_EQ(std::string(cublasLtGetStatusName(CUBLAS_STATUS_SUCCESS)), "CUBLAS_STATUS_SUCCESS");
}

}  // namespace
}  // namespace perfhound::cuda
