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

core::Status cublaslt_available() {
  if (opened().handle != nullptr) return {};
  return core::Error{opened().error + " (the GEMM figures need cuBLASLt, part of the CUDA toolkit)"};
}

void* cublaslt_symbol(const char* name) {
  return opened().handle != nullptr ? dlsym(opened().handle, name) : nullptr;
}

}  // namespace perfhound::cuda
