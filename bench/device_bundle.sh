#!/usr/bin/env bash
# Packs what the GPU-machine runs need into .devbin/ (ignored by git, carried by the device tool): perfhound,
# the record injection library, the CUDA benchmark examples, the GPU tests and the program record_gpu_test
# records, and the Debian libraries they link that a machine with only the CUDA toolkit lacks. RUNPATHs are
# rewritten to $ORIGIN/lib first, then the CUDA toolkit, so nothing needs LD_LIBRARY_PATH (which would leak into
# the Python programs perfhound record starts). Needs patchelf (apt-get install patchelf).
#   bench/device_bundle.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
grep -qx '/.devbin/' .git/info/exclude 2>/dev/null || { mkdir -p .git/info; echo '/.devbin/' >> .git/info/exclude; }
rm -rf .devbin && mkdir -p .devbin/lib
bins=("$build/perfhound" "$build/libperfhound_record_inject.so" "$build"/bench/bench_example_* \
      "$build/tests/probe_gpu_test" "$build/tests/gpu_bench_gpu_test" "$build/tests/record_gpu_test"
      "$build/tests/record_windows_program" "$build/tests/record_kinds_program")
for b in "${bins[@]}"; do if [ -e "$b" ]; then cp "$b" .devbin/; else echo "device_bundle: $b not built, left out"; fi; done
# Every Debian library the binaries link (Open MPI's among them, and theirs), but not glibc, the C++ runtime
# or CUDA's, which the GPU machine has in its own versions.
for b in .devbin/*; do [ -f "$b" ] && ldd "$b"; done | awk '$2 == "=>" && $3 ~ /^\/(usr\/)?lib\/x86_64-linux-gnu\// {print $3}' |
  sort -u | grep -Ev '/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s|libcuda|libcudart|libcublas|libcublasLt|libnvidia-ml)\.so' |
  while read -r lib; do cp -L "$lib" .devbin/lib/; done
cp -L /usr/local/cuda/lib64/libcupti.so.13 .devbin/lib/
# RUNPATH is not inherited: a copied library finds the ones it needs itself (libmpi -> libopen-pal) beside it.
for f in .devbin/lib/*; do patchelf --set-rpath '$ORIGIN' "$f"; done
for f in .devbin/*; do
  [ -f "$f" ] && patchelf --set-rpath '$ORIGIN/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64' "$f"
done
du -sh .devbin
