#include "trace/kernel_breakdown.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace perfhound::trace {
namespace {

// Full names as Kineto wrote them in the H200 traces (/tmp/research/trace_formats.md A.11 and
// independent_util_output.txt) and in the 2-GPU V100 trace (df_index_resolver), plus well-known names of
// kernels those traces do not contain (flash-attention, Inductor, cuBLAS GEMV, PyTorch softmax/norm).
constexpr std::string_view kMulFunctor =
    "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, "
    "at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul> >(int, "
    "at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, "
    "std::array<char*, 2ul>)";
constexpr std::string_view kCatArray =
    "void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous namespace)::OpaqueType<2u>, "
    "unsigned int, 4, 64, 64>(at::native::(anonymous namespace)::OpaqueType<2u>*, at::native::(anonymous "
    "namespace)::CatArrInputTensorMetadata<at::native::(anonymous namespace)::OpaqueType<2u>, unsigned int, 64, "
    "64>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)";
constexpr std::string_view kDirectCopy =
    "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::"
    "{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul>, "
    "4, TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, "
    "at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1> >(int, "
    "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::"
    "operator()() const::{lambda(float)#1}, std::array<char*, 2ul>, TrivialOffsetCalculator<1, unsigned int>, "
    "TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, "
    "at::native::memory::StoreWithCast<1>)";
constexpr std::string_view kCutlassSgemm =
    "void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>(cutlass_80_simt_sgemm_64x64_8x5_nn_align1::"
    "Params)";
constexpr std::string_view kSplitK =
    "void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float, float, false, float, float, float, true, "
    "false, false, false>(cublasLt::cublasSplitKParams<float>, float const*, float const*, float*, float*, float "
    "const*, float const*, float const*, float const*, float*, void*, long, float*, int*, float*, float*, float "
    "const*, float const*, float const*, float const*, float const*)";
constexpr std::string_view kMean =
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
    "float>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
    "float>, unsigned int, float, 4, 4>)";
constexpr std::string_view kScan =
    "void at_cuda_detail::cub::detail::scan::DeviceScanKernel<at_cuda_detail::cub::detail::scan::policy_hub<long, "
    "long, long, unsigned int, std::plus<long> >::Policy1000, long const*, long*, "
    "at_cuda_detail::cub::ScanTileState<long, true>, std::plus<long>, at_cuda_detail::cub::NullType, unsigned int, "
    "long, false, at_cuda_detail::cub::NullType>(long const*, long*, at_cuda_detail::cub::ScanTileState<long, "
    "true>, int, std::plus<long>, at_cuda_detail::cub::NullType, unsigned int)";
constexpr std::string_view kArange =
    "void (anonymous namespace)::elementwise_kernel_with_index<int, at::native::arange_cuda_out(c10::Scalar const&, "
    "c10::Scalar const&, c10::Scalar const&, at::Tensor&)::{lambda()#1}::operator()() const::{lambda()#4}::"
    "operator()() const::{lambda(long)#1}>(int, at::native::arange_cuda_out(c10::Scalar const&, c10::Scalar "
    "const&, c10::Scalar const&, at::Tensor&)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() "
    "const::{lambda(long)#1}, function_traits<at::native::arange_cuda_out(c10::Scalar const&, c10::Scalar const&, "
    "c10::Scalar const&, at::Tensor&)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() "
    "const::{lambda(long)#1}>::result_type*)";
constexpr std::string_view kNccl = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)";
constexpr std::string_view kSdpa =
    "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128_4x1x1_cga1x1x1_kernel0_0";
constexpr std::string_view kGemv =
    "std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, float, false, true, "
    "true, false, 7, false, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<float const>, "
    "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParamsEx"
    "<int, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, "
    "cublasGemvTensorStridedBatched<float>, float>)";
constexpr std::string_view kFlash3 =
    "void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<flash::CollectiveMainloopFwdSm90"
    "<2, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >, cute::tuple<cute::C<128>, cute::C<128>, cute::C<128> >, "
    "128, cutlass::bfloat16_t, float, cutlass::arch::Sm90, true, false> > > >(flash::FlashAttnFwdSm90<>::Params)";

TEST(ClassifyKernelNameTest, RealKernelNames) {
  EXPECT_EQ(classify_kernel_name("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT"), KernelFamily::kGemm);
  EXPECT_EQ(classify_kernel_name("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_splitK_TNT"), KernelFamily::kGemm);
  EXPECT_EQ(classify_kernel_name("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT"), KernelFamily::kGemm);
  EXPECT_EQ(classify_kernel_name(kCutlassSgemm), KernelFamily::kGemm);
  EXPECT_EQ(classify_kernel_name("cutlass_80_simt_sgemm_64x64_8x5_nn_align1"), KernelFamily::kGemm);
  EXPECT_EQ(classify_kernel_name(kSplitK), KernelFamily::kGemm);  // "reduce" in the name, GEMM wins
  EXPECT_EQ(classify_kernel_name("volta_sgemm_128x32_nt"), KernelFamily::kGemm);
  EXPECT_EQ(classify_kernel_name(kGemv), KernelFamily::kGemm);
  EXPECT_EQ(classify_kernel_name(kNccl), KernelFamily::kCommunication);  // "Reduce", "Sum": still communication
  EXPECT_EQ(classify_kernel_name("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
            KernelFamily::kCommunication);
  EXPECT_EQ(classify_kernel_name(kSdpa), KernelFamily::kAttention);  // "wgmma" too: attention wins
  EXPECT_EQ(classify_kernel_name(
                "cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_3_64x64x128_4x1x1_cga1x1x1_kernel0_0"),
            KernelFamily::kAttention);
  EXPECT_EQ(classify_kernel_name(kFlash3), KernelFamily::kAttention);  // "cutlass" too: attention wins
  EXPECT_EQ(classify_kernel_name("fmha_cutlassF_f16_aligned_64x128_rf_sm80(PyTorchMemEffAttention::AttentionKernel"
                                 "<cutlass::half_t, cutlass::arch::Sm80, true, 64, 128, 128, true, true>::Params)"),
            KernelFamily::kAttention);
  EXPECT_EQ(classify_kernel_name(kMean), KernelFamily::kReduction);
  EXPECT_EQ(classify_kernel_name(kScan), KernelFamily::kReduction);
  EXPECT_EQ(classify_kernel_name("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, "
                                 "float>(int, float, float const*, float const*, float const*, float*, float*, "
                                 "float*)"),
            KernelFamily::kReduction);
  EXPECT_EQ(classify_kernel_name("void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, "
                                 "false>(float*, float const*, int, int, int, bool const*, int, bool)"),
            KernelFamily::kReduction);
  EXPECT_EQ(classify_kernel_name(kMulFunctor), KernelFamily::kElementwise);
  EXPECT_EQ(classify_kernel_name(kDirectCopy), KernelFamily::kElementwise);
  EXPECT_EQ(classify_kernel_name(kCatArray), KernelFamily::kElementwise);
  EXPECT_EQ(classify_kernel_name(kArange), KernelFamily::kElementwise);
  EXPECT_EQ(classify_kernel_name("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
                                 "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, "
                                 "1ul>)"),
            KernelFamily::kElementwise);
  EXPECT_EQ(classify_kernel_name("void at::native::vectorized_gather_kernel<16, long>(char*, char*, long*, int, long, "
                                 "long, long, long, bool)"),
            KernelFamily::kElementwise);
  EXPECT_EQ(classify_kernel_name("void at::native::(anonymous namespace)::indexSelectSmallIndex<c10::BFloat16, long, "
                                 "unsigned int, 2, 2, -2>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>)"),
            KernelFamily::kElementwise);
  // Random normal numbers are not a norm.
  EXPECT_EQ(classify_kernel_name("void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel"
                                 "<float, 4, at::native::templates::cuda::normal_and_transform<float, float>>(long)"),
            KernelFamily::kElementwise);
  // Inductor prefixes decide over the fused op names.
  EXPECT_EQ(classify_kernel_name("triton_poi_fused_add_mul_0"), KernelFamily::kElementwise);
  EXPECT_EQ(classify_kernel_name("triton_red_fused__to_copy_mean_pow_1"), KernelFamily::kReduction);
  EXPECT_EQ(classify_kernel_name("triton_per_fused__softmax_2"), KernelFamily::kReduction);
  EXPECT_EQ(classify_kernel_name("triton_tem_fused_mm_3"), KernelFamily::kGemm);
  EXPECT_EQ(classify_kernel_name("triton_poi_fused__scaled_dot_product_attention_4"), KernelFamily::kElementwise);
  // cuBLASLt's epilogue kernel says "cublas" only in its parameter list: matching the full name catches it.
  EXPECT_EQ(classify_kernel_name("void epilogue::impl::globalKernel<float, float, float, true, true>(int, int, long, "
                                 "float*, cublasLtEpilogue_t, int, float*, long, void*, long, long, long, float*, "
                                 "long, int*)"),
            KernelFamily::kGemm);
  EXPECT_EQ(classify_kernel_name("void splitKreduce_kernel<float, float, float, float, true, false, false>("
                                 "cublasSplitKParams<float>, float const*, float const*, float*)"),
            KernelFamily::kGemm);
  EXPECT_EQ(classify_kernel_name("void my_custom_kernel<float>(float*, int)"), KernelFamily::kOther);
  EXPECT_EQ(classify_kernel_name(""), KernelFamily::kOther);
}

TEST(ShortKernelNameTest, StripsReturnTypeTemplatesAndParameters) {
  EXPECT_EQ(short_kernel_name(kMulFunctor), "at::native::vectorized_elementwise_kernel");
  EXPECT_EQ(short_kernel_name(kDirectCopy), "at::native::unrolled_elementwise_kernel");
  EXPECT_EQ(short_kernel_name(kCatArray), "at::native::CatArrayBatchedCopy");
  EXPECT_EQ(short_kernel_name(kArange), "elementwise_kernel_with_index");
  EXPECT_EQ(short_kernel_name(kMean), "at::native::reduce_kernel");
  EXPECT_EQ(short_kernel_name(kScan), "at_cuda_detail::cub::detail::scan::DeviceScanKernel");
  EXPECT_EQ(short_kernel_name(kSplitK), "cublasLt::splitKreduce_kernel");
  EXPECT_EQ(short_kernel_name(kNccl), "ncclKernel_AllReduce_RING_LL_Sum_float");
  EXPECT_EQ(short_kernel_name(kGemv), "internal::gemvx::kernel");
  EXPECT_EQ(short_kernel_name("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT"), "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT");
  EXPECT_EQ(short_kernel_name(kSdpa), kSdpa);
  EXPECT_EQ(short_kernel_name("triton_poi_fused_add_mul_0"), "triton_poi_fused_add_mul_0");
}

TEST(ShortKernelNameTest, WrappersKeepTheirFirstTemplateArgument) {
  EXPECT_EQ(short_kernel_name(kCutlassSgemm), "cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>");
  EXPECT_EQ(short_kernel_name(kFlash3), "cutlass::device_kernel<flash::enable_sm90_or_later>");
}

// One kernel as a Kineto trace's display name and as ncu writes it (tests/data/ncu/h200_roofline_raw.csv row 2
// and rows 0-1): the same function name, whatever the namespaces, templates and parameters.
TEST(BareKernelNameTest, TheTracesAndNcusNamesOfOneKernelAgree) {
  EXPECT_EQ(bare_kernel_name(short_kernel_name(kMulFunctor)), "vectorized_elementwise_kernel");
  EXPECT_EQ(bare_kernel_name("void at::vectorized_elementwise_kernel<4, at::CUDAFunctor_add<float>, std::array<char *, "
                             "3>>(int, T2, T3)"),
            "vectorized_elementwise_kernel");
  EXPECT_EQ(bare_kernel_name("at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel"),
            "distribution_elementwise_grid_stride_kernel");
  EXPECT_EQ(bare_kernel_name("void at::<unnamed>::distribution_elementwise_grid_stride_kernel<float, 4>(int, T2)"),
            "distribution_elementwise_grid_stride_kernel");
  EXPECT_EQ(bare_kernel_name("nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT"),
            "nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT");
  EXPECT_NE(bare_kernel_name("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT"),
            bare_kernel_name("nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT"));
}

TEST(ShortKernelNameTest, DegenerateNamesComeBackWhole) {
  EXPECT_EQ(short_kernel_name(""), "");
  EXPECT_EQ(short_kernel_name("(int)"), "(int)");
  EXPECT_EQ(short_kernel_name("<lambda>"), "<lambda>");
}

void add(Timeline& t, GpuKind kind, std::string_view name, std::int64_t start_ns, std::int64_t dur_ns) {
  GpuActivity a;
  a.kind = kind;
  a.name = t.strings.intern(name);
  a.start_ns = start_ns;
  a.dur_ns = dur_ns;
  t.gpu.push_back(a);
}

TEST(KernelBreakdownTest, GroupsStatisticsSharesAndFamilies) {
  Timeline t;
  // Elementwise A: 10, 20, 30 (total 60). GEMM B: 100. Communication C: 5, 15 (total 20).
  // Memcpy 50, memset 10. Kernel time 180; GPU time 240.
  add(t, GpuKind::kKernel, kMulFunctor, 0, 10);
  add(t, GpuKind::kKernel, kMulFunctor, 100, 30);
  add(t, GpuKind::kKernel, kMulFunctor, 200, 20);
  add(t, GpuKind::kKernel, "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT", 300, 100);
  add(t, GpuKind::kKernel, kNccl, 500, 5);
  add(t, GpuKind::kKernel, kNccl, 600, 15);
  add(t, GpuKind::kMemcpy, "Memcpy HtoD (Pageable -> Device)", 700, 50);
  add(t, GpuKind::kMemset, "Memset (Device)", 800, 10);
  finalize_timeline(t);

  const auto r = kernel_breakdown(t, 2);
  EXPECT_EQ(r.kernel_count, 6u);
  EXPECT_EQ(r.kernel_time_ns, 180);
  EXPECT_EQ(r.gpu_time_ns, 240);
  EXPECT_EQ(r.group_count, 3u);
  ASSERT_EQ(r.top.size(), 2u);

  EXPECT_EQ(r.top[0].short_name, "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT");
  EXPECT_EQ(r.top[0].family, KernelFamily::kGemm);
  EXPECT_EQ(r.top[0].count, 1u);
  EXPECT_EQ(r.top[0].total_ns, 100);
  EXPECT_DOUBLE_EQ(r.top[0].mean_ns, 100);
  EXPECT_DOUBLE_EQ(r.top[0].p50_ns, 100);
  EXPECT_DOUBLE_EQ(r.top[0].p99_ns, 100);
  EXPECT_DOUBLE_EQ(r.top[0].share_of_kernel_time, 100.0 / 180.0);

  const auto& a = r.top[1];
  EXPECT_EQ(a.full_name, kMulFunctor);
  EXPECT_EQ(a.short_name, "at::native::vectorized_elementwise_kernel");
  EXPECT_EQ(a.family, KernelFamily::kElementwise);
  EXPECT_EQ(a.count, 3u);
  EXPECT_EQ(a.total_ns, 60);
  EXPECT_DOUBLE_EQ(a.mean_ns, 20);
  EXPECT_DOUBLE_EQ(a.p50_ns, 20);
  // numpy-linear: h = (3 - 1) * 0.99 = 1.98 -> 20 + 0.98 * (30 - 20) = 29.8
  EXPECT_NEAR(a.p99_ns, 29.8, 1e-9);
  EXPECT_DOUBLE_EQ(a.max_ns, 30);
  EXPECT_DOUBLE_EQ(a.share_of_kernel_time, 60.0 / 180.0);

  EXPECT_EQ(r.rest_group_count, 1u);
  EXPECT_EQ(r.rest_count, 2u);
  EXPECT_EQ(r.rest_ns, 20);

  auto family = [&](KernelFamily f) { return r.families[static_cast<std::size_t>(f)]; };
  EXPECT_EQ(family(KernelFamily::kGemm).total_ns, 100);
  EXPECT_EQ(family(KernelFamily::kElementwise).count, 3u);
  EXPECT_EQ(family(KernelFamily::kElementwise).total_ns, 60);
  EXPECT_EQ(family(KernelFamily::kCommunication).total_ns, 20);
  EXPECT_EQ(family(KernelFamily::kMemcpy).total_ns, 50);
  EXPECT_EQ(family(KernelFamily::kMemset).total_ns, 10);
  EXPECT_EQ(family(KernelFamily::kAttention).total_ns, 0);
  EXPECT_DOUBLE_EQ(family(KernelFamily::kMemcpy).share_of_gpu_time, 50.0 / 240.0);
  EXPECT_EQ(family(KernelFamily::kMemcpy).family, KernelFamily::kMemcpy);

  const auto all = kernel_breakdown(t, 0);
  EXPECT_EQ(all.top.size(), 3u);
  EXPECT_EQ(all.rest_group_count, 0u);
}

TEST(KernelBreakdownTest, TiesOrderedByFullName) {
  Timeline t;
  add(t, GpuKind::kKernel, "b_kernel", 0, 10);
  add(t, GpuKind::kKernel, "a_kernel", 20, 10);
  add(t, GpuKind::kKernel, "c_kernel", 40, 10);
  finalize_timeline(t);
  const auto r = kernel_breakdown(t);
  ASSERT_EQ(r.top.size(), 3u);
  EXPECT_EQ(r.top[0].full_name, "a_kernel");
  EXPECT_EQ(r.top[1].full_name, "b_kernel");
  EXPECT_EQ(r.top[2].full_name, "c_kernel");
}

TEST(KernelBreakdownTest, NoKernelsAndZeroDuration) {
  Timeline empty;
  finalize_timeline(empty);
  const auto r = kernel_breakdown(empty);
  EXPECT_EQ(r.kernel_count, 0u);
  EXPECT_TRUE(r.top.empty());
  for (const auto& f : r.families) {
    EXPECT_EQ(f.total_ns, 0);
    EXPECT_EQ(f.share_of_gpu_time, 0.0);
  }

  Timeline zero;
  add(zero, GpuKind::kKernel, "k", 0, 0);
  finalize_timeline(zero);
  const auto rz = kernel_breakdown(zero);
  ASSERT_EQ(rz.top.size(), 1u);
  EXPECT_EQ(rz.top[0].count, 1u);
  EXPECT_EQ(rz.top[0].total_ns, 0);
  EXPECT_EQ(rz.top[0].share_of_kernel_time, 0.0);  // 0 of 0 total kernel time
}

TEST(KernelBreakdownTest, Json) {
  Timeline t;
  add(t, GpuKind::kKernel, kCutlassSgemm, 0, 2'000);
  add(t, GpuKind::kKernel, kCutlassSgemm, 10'000, 4'000);
  finalize_timeline(t);
  const auto j = to_json(kernel_breakdown(t));
  EXPECT_EQ(j["kernel_count"].get<int>(), 2);
  EXPECT_DOUBLE_EQ(j["kernel_time_s"].get<double>(), 6e-6);
  const auto& k = j["top_kernels"][0];
  EXPECT_EQ(k["name"], "cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>");
  EXPECT_EQ(k["full_name"], std::string(kCutlassSgemm));
  EXPECT_EQ(k["family"], "gemm");
  EXPECT_DOUBLE_EQ(k["p50_s"].get<double>(), 3e-6);
  EXPECT_DOUBLE_EQ(k["share_of_kernel_time"].get<double>(), 1.0);
  EXPECT_EQ(j["families"].size(), kKernelFamilyCount);
  EXPECT_EQ(j["families"][2]["family"], "gemm");
  EXPECT_DOUBLE_EQ(j["families"][2]["share_of_gpu_time"].get<double>(), 1.0);
}

}  // namespace
}  // namespace perfhound::trace
