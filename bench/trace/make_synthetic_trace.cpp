// Writes a synthetic PyTorch-profiler (Kineto) trace of a requested size, shaped like the real H200 traces
// in tests/data/traces/h200: per iteration a cpu_op with shape args, a cudaLaunchKernel with its ac2g flow
// start, the kernel with its launch args and flow end; every 64th launch is a pageable copy. Pretty-printed
// the way Kineto prints (one key group per line), so bytes per event match real files (~450 B).
//
//   make_synthetic_trace OUT.json SIZE_MB [SEED]
//
// The benchmark (bench/trace/run_trace_bench.sh) feeds it to `perfhound trace`; RESULTS.md records MB/s.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace {

const char* const kKernels[] = {
    "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT",
    "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<c10::"
    "BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > >(at::"
    "TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::"
    "binary_internal::MulFunctor<float> > const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::"
    "native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<"
    "float> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, "
    "at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1})",
    "void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>(cutlass_80_simt_sgemm_64x64_8x5_nn_align1::"
    "Params)",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::"
    "native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "
    "unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::"
    "sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, "
    "float, 4, 4>)",
};
const char* const kOps[] = {"aten::mm", "aten::mul", "aten::add", "aten::sum"};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: make_synthetic_trace OUT.json SIZE_MB [SEED]\n");
    return 2;
  }
  const double target_bytes = std::atof(argv[2]) * 1e6;
  if (target_bytes <= 0) {
    std::fprintf(stderr, "make_synthetic_trace: SIZE_MB must be positive, got '%s'\n", argv[2]);
    return 2;
  }
  std::FILE* out = std::fopen(argv[1], "wb");
  if (out == nullptr) {
    std::perror(argv[1]);
    return 2;
  }
  std::mt19937_64 rng(argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1);
  std::uniform_int_distribution<int> pick(0, 3);
  std::uniform_int_distribution<int> kernel_ns(1500, 40000);
  std::uniform_int_distribution<int> gap_ns(500, 9000);

  std::int64_t written = std::fprintf(out, R"(
{
  "schemaVersion": 1,
  "deviceProperties": [
    {
      "id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150109880320,
      "computeMajor": 9, "computeMinor": 0, "numSms": 132
    }
  ],
  "cuda_runtime_version": 13000,
  "cuda_driver_version": 13000,
  "traceEvents": [
)");
  std::int64_t t_ns = 5359686591589690;  // the real traces' clock, so timestamps have their width
  std::int64_t correlation = 100000;
  std::int64_t external = 1;
  bool first = true;
  auto us = [](std::int64_t ns) { return std::to_string(ns / 1000) + "." + std::to_string(1000 + ns % 1000).substr(1); };
  while (static_cast<double>(written) < target_bytes) {
    const int which = pick(rng);
    const bool copy = correlation % 64 == 0;
    const std::int64_t op_start = t_ns;
    const std::int64_t launch_start = op_start + 2100;
    const std::int64_t gpu_start = launch_start + 4000 + gap_ns(rng);
    const std::int64_t gpu_dur = copy ? 250000 : kernel_ns(rng);
    std::string s = first ? "" : ",\n";
    first = false;
    s += "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" + std::string(kOps[which]) +
         "\", \"pid\": 452, \"tid\": 452,\n    \"ts\": " + us(op_start) + ", \"dur\": " + us(9000) +
         ",\n    \"args\": {\n      \"External id\": " + std::to_string(external) +
         ",\"Sequence number\": 0, \"Fwd thread id\": 0, \"Record function id\": 0, \"Concrete Inputs\": [\"\", \"\"], "
         "\"Input type\": [\"float\", \"float\"], \"Input Strides\": [[1024, 1], [1024, 1]], \"Input Dims\": [[64, 1024], "
         "[1024, 1024]], \"Ev Idx\": " + std::to_string(external) + "\n    }\n  },\n";
    s += "  {\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"" +
         std::string(copy ? "cudaMemcpyAsync" : "cudaLaunchKernel") + "\", \"pid\": 452, \"tid\": 452,\n    \"ts\": " +
         us(launch_start) + ", \"dur\": " + us(copy ? gpu_dur + 6000 : 3500) + ",\n    \"args\": {\n      \"External id\": " +
         std::to_string(external) + ",      \"cbid\": 211, \"correlation\": " + std::to_string(correlation) + "\n    }\n  },\n";
    s += "  {\n    \"ph\": \"s\", \"id\": " + std::to_string(correlation) + ", \"pid\": 452, \"tid\": 452, \"ts\": " +
         us(launch_start) + ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  },\n";
    if (copy) {
      s += "  {\n    \"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", \"pid\": 0, "
           "\"tid\": 7,\n    \"ts\": " + us(gpu_start) + ", \"dur\": " + us(gpu_dur) + ",\n    \"args\": {\n      "
           "\"External id\": " + std::to_string(external) + ",      \"device\": 0, \"context\": 1,      \"stream\": 7, "
           "\"correlation\": " + std::to_string(correlation) + ",      \"bytes\": 1048576, \"memory bandwidth (GB/s)\": "
           "4.19\n    }\n  },\n";
    } else {
      s += "  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" + std::string(kKernels[which]) +
           "\", \"pid\": 0, \"tid\": 7,\n    \"ts\": " + us(gpu_start) + ", \"dur\": " + us(gpu_dur) +
           ",\n    \"args\": {\n      \"External id\": " + std::to_string(external) +
           ",\n      \"queued\": 0, \"device\": 0, \"context\": 1,\n      \"stream\": 7, \"correlation\": " +
           std::to_string(correlation) + ",\n      \"registers per thread\": 128,\n      \"shared memory\": 0,\n      "
           "\"blocks per SM\": 0.484848,\n      \"warps per SM\": 1.939394,\n      \"grid\": [64, 1, 1],\n      "
           "\"block\": [128, 1, 1],\n      \"est. achieved occupancy %\": 3\n    }\n  },\n";
    }
    s += "  {\n    \"ph\": \"f\", \"id\": " + std::to_string(correlation) + ", \"pid\": 0, \"tid\": 7, \"ts\": " +
         us(gpu_start) + ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  }";
    written += static_cast<std::int64_t>(std::fwrite(s.data(), 1, s.size(), out));
    t_ns = gpu_start + gpu_dur + gap_ns(rng);
    ++correlation;
    ++external;
  }
  written += std::fprintf(out, "\n  ],\n  \"traceName\": \"synthetic\"\n}\n");
  std::fclose(out);
  std::fprintf(stderr, "make_synthetic_trace: wrote %lld bytes, %lld launches to %s\n", static_cast<long long>(written),
               static_cast<long long>(correlation - 100000), argv[1]);
  return 0;
}
