#!/usr/bin/env bash
# The perfhound binary needs no CUDA library to start: trace, load, mfu and the rest run on a machine with no
# toolkit and no driver. The CUDA runtime is linked statically (it opens libcuda.so.1 on its first call) and
# cuBLASLt and NVML are opened with dlopen by probe (src/cuda/CMakeLists.txt, cublaslt_library.h). A CUDA
# library among the loader's dependencies, direct or transitive, fails this test.
#   no_cuda_libraries_test.sh <perfhound binary>
set -euo pipefail
perfhound=$1
command -v ldd > /dev/null || { echo "SKIP: ldd is not installed"; exit 77; }
deps=$(ldd "$perfhound")
cuda=$(grep -E 'lib(cuda|cudart|cublas|cublasLt|nvidia-ml|cupti|nvrtc)\.so' <<< "$deps" || true)
if [ -n "$cuda" ]; then
  echo "FAIL: $perfhound loads CUDA libraries at start:"; echo "$cuda"; exit 1
fi
echo "ok   no CUDA library among $(wc -l <<< "$deps") dependencies"
"$perfhound" --version > /dev/null
echo "ok   perfhound --version runs"
