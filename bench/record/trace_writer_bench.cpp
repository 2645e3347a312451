// perfhound record's trace writer (record/chrome_trace_writer.h): how long writing a launch-bound run's trace takes,
// the time between a signal (or the exit) and the program's end. The trace is shaped like the launch loop's on an
// H200 (bench/RESULTS.md): one kernel and one runtime launch call per step, two kernel names, CUPTI's epoch-sized
// nanosecond timestamps. Arg: the kernels (and as many launch calls). Results in bench/RESULTS.md.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "record/chrome_trace_writer.h"

namespace {

perfhound::record::RecordedTrace launch_loop_trace(std::int64_t kernels) {
  using namespace perfhound::record;
  RecordedTrace t;
  t.command = "python3 launch_heavy.py --mode launch";
  t.devices.push_back({0, "NVIDIA H200", 132, 9, 0, 150'109'880'320});
  t.gpu.reserve(static_cast<std::size_t>(kernels));
  t.api.reserve(static_cast<std::size_t>(kernels));
  std::uint64_t now = 1'796'000'000'000'000'000;  // ns since the epoch, as CUPTI's clock gives them
  for (std::int64_t i = 0; i < kernels; ++i) {
    GpuRecord k;
    k.name = i % 2 == 0 ? "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, "
                          "float, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul> >(int, "
                          "at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, "
                          "std::array<char*, 2ul>)"
                        : "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add<float>, "
                          "std::array<char*, 2ul> >(int, at::native::CUDAFunctorOnSelf_add<float>, std::array<char*, 2ul>)";
    k.start_ns = now + 4'000;
    k.end_ns = k.start_ns + 1'312;
    k.stream = 7;
    k.correlation = static_cast<std::uint32_t>(i);
    k.grid[0] = 4, k.block[0] = 128, k.registers_per_thread = 16;
    t.gpu.push_back(k);
    t.api.push_back({ApiDomain::kRuntime, "cudaLaunchKernel", now, now + 3'100, 4242, 4242, static_cast<std::uint32_t>(i), 211});
    now += 11'000;
  }
  return t;
}

void BM_WriteToString(benchmark::State& state) {
  const auto t = launch_loop_trace(state.range(0));
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string out;
    perfhound::record::write_chrome_trace(t, out);
    bytes = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0) * 2);  // events: kernels and launch calls
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes));
}

void BM_WriteFile(benchmark::State& state) {
  const auto t = launch_loop_trace(state.range(0));
  const std::string path = (std::filesystem::temp_directory_path() / ("perfhound_writer_bench_" + std::to_string(::getpid()) + ".json")).string();
  for (auto _ : state) {
    const auto status = perfhound::record::write_chrome_trace_file(t, path);
    if (!status.ok()) state.SkipWithError(status.error().message.c_str());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0) * 2);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(std::filesystem::file_size(path)));
  std::filesystem::remove(path);
}

}  // namespace

BENCHMARK(BM_WriteToString)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WriteFile)->Arg(1'000'000)->Unit(benchmark::kMillisecond);
