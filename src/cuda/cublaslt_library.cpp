#include "cuda/cublaslt_library.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <string>

namespace perfhound::cuda {
namespace {

struct Opened {
  void* handle = nullptr;
  std::string error;
};

// Opened once, by the first caller (a function-local static: thread-safe). By its soname, found as a linked
// library would be (LD_LIBRARY_PATH, perfhound's RUNPATH, ld.so.cache), then where the CUDA toolkit puts it.
const Opened& opened() {
  static const Opened library = [] {
    Opened o;
    const std::string soname = fmt::format("libcublasLt.so.{}", CUBLAS_VER_MAJOR);
    for (const std::string& path : {soname, "/usr/local/cuda/lib64/" + soname}) {
      o.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (o.handle != nullptr) return o;
      if (o.error.empty()) {
        const char* e = dlerror();
        o.error = fmt::format("dlopen {}: {}", soname, e != nullptr ? e : "not found");
      }
    }
    return o;
  }();
  return library;
}

}  // namespace

// Every function the macros of cublaslt_library.h name: all must resolve, or a call would jump to null.
constexpr const char* kFunctions[] = {
    "cublasLtCreate", "cublasLtDestroy", "cublasLtGetVersion", "cublasLtGetStatusName", "cublasLtGetStatusString",
    "cublasLtMatmul", "cublasLtMatmulDescCreate", "cublasLtMatmulDescDestroy", "cublasLtMatmulDescSetAttribute",
    "cublasLtMatrixLayoutCreate", "cublasLtMatrixLayoutDestroy", "cublasLtMatmulPreferenceCreate",
    "cublasLtMatmulPreferenceDestroy", "cublasLtMatmulPreferenceSetAttribute", "cublasLtMatmulAlgoGetHeuristic"};

core::Status cublaslt_available() {
  if (opened().handle == nullptr) {
    return core::Error{opened().error + " (the GEMM figures need cuBLASLt, part of the CUDA toolkit)"};
  }
  for (const char* name : kFunctions) {
    if (dlsym(opened().handle, name) == nullptr) {
      return core::Error{fmt::format("libcublasLt.so.{} has no {}: another version than the {} perfhound was built "
                                     "against", CUBLAS_VER_MAJOR, name, CUBLAS_VER_MAJOR)};
    }
  }
  return {};
}

void* cublaslt_symbol(const char* name) {
  return opened().handle != nullptr ? dlsym(opened().handle, name) : nullptr;
}

}  // namespace perfhound::cuda
