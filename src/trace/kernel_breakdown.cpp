#include "trace/kernel_breakdown.h"

#include "core/units.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "core/percentile.h"

namespace perfhound::trace {

namespace {



struct FamilyRule {
  std::string_view pattern;  // lower case; matched as a substring of the lower-cased full name
  KernelFamily family;
};

// THE kernel family rule table. First match wins, so the order encodes the decisions:
//  1. communication first: collective kernels carry words of other families ("ncclKernel_AllReduce_...
//     _Sum", "allgather"), and their time is waiting on peers, whatever arithmetic they do.
//  2. Triton (torch.compile / Inductor) kernels next, by the prefix Inductor gives them: poi = pointwise,
//     red / per = (persistent) reduction, tem = a template, almost always mm/bmm. The prefix is the
//     compiler's statement of the kernel's shape; the rest of the name lists the ops fused into it
//     ("triton_poi_fused__scaled_dot_product_attention_..." is pointwise work, not attention).
//  3. attention before GEMM: fused attention kernels contain GEMM words ("cudnn_generated_fort_native_sdpa_
//     sm90_flash_fprop_wgmma_...", CUTLASS "fmha_cutlassF_..."), and their cost is the attention's.
//  4. GEMM before reduction: cuBLASLt's split-K reduction ("cublasLt::splitKreduce_kernel") is the second
//     half of a GEMM, although it says "reduce".
//  5. reduction before elementwise. Softmax is a reduction here, not attention: a separate softmax kernel
//     only exists when attention is NOT fused (a fused kernel never shows one), and it also appears outside
//     attention (sampling, MoE routers); like layer/RMS norm it is a row reduction followed by an
//     elementwise pass, memory-bound, one read of the row. Norms are named explicitly rather than by "norm",
//     which would also catch at::native::normal_kernel (random numbers).
//  6. elementwise: elementwise templates, copy kernels (direct_copy, CatArrayBatchedCopy, bfloat16_copy),
//     fills, and gather/scatter/index kernels, which like copies read and write each element once.
constexpr FamilyRule kFamilyRules[] = {
    {"nccl", KernelFamily::kCommunication},
    {"cross_device_reduce", KernelFamily::kCommunication},  // vLLM custom all-reduce
    {"allreduce", KernelFamily::kCommunication},
    {"all_reduce", KernelFamily::kCommunication},
    {"allgather", KernelFamily::kCommunication},
    {"all_gather", KernelFamily::kCommunication},
    {"reducescatter", KernelFamily::kCommunication},
    {"reduce_scatter", KernelFamily::kCommunication},
    {"alltoall", KernelFamily::kCommunication},
    {"all_to_all", KernelFamily::kCommunication},
    {"nvshmem", KernelFamily::kCommunication},

    {"triton_poi_", KernelFamily::kElementwise},
    {"triton_red_", KernelFamily::kReduction},
    {"triton_per_", KernelFamily::kReduction},
    {"triton_tem_", KernelFamily::kGemm},

    {"flash", KernelFamily::kAttention},  // flash_fwd_kernel, flashinfer, cuDNN "..._flash_fprop_..."
    {"fmha", KernelFamily::kAttention},
    {"attention", KernelFamily::kAttention},  // paged_attention_v1_kernel, ...
    {"attn", KernelFamily::kAttention},
    {"sdpa", KernelFamily::kAttention},

    {"gemm", KernelFamily::kGemm},  // sgemm, hgemm, s16816gemm, xmma_gemm, cutlass_..._sgemm_...
    {"gemv", KernelFamily::kGemm},
    {"cutlass", KernelFamily::kGemm},
    {"cublas", KernelFamily::kGemm},
    {"splitkreduce", KernelFamily::kGemm},
    {"nvjet", KernelFamily::kGemm},  // cuBLAS 12.8+ Hopper/Blackwell GEMMs: nvjet_sm90_tst_...
    {"wgmma", KernelFamily::kGemm},
    {"matmul", KernelFamily::kGemm},

    {"reduce", KernelFamily::kReduction},  // at::native::reduce_kernel, cub DeviceReduceKernel
    {"reduction", KernelFamily::kReduction},
    {"softmax", KernelFamily::kReduction},
    {"layer_norm", KernelFamily::kReduction},
    {"layernorm", KernelFamily::kReduction},
    {"rms_norm", KernelFamily::kReduction},
    {"rmsnorm", KernelFamily::kReduction},
    {"batch_norm", KernelFamily::kReduction},
    {"batchnorm", KernelFamily::kReduction},
    {"group_norm", KernelFamily::kReduction},
    {"groupnorm", KernelFamily::kReduction},
    {"rowwisemoments", KernelFamily::kReduction},  // the statistics pass of PyTorch's layer/group norm
    {"welford", KernelFamily::kReduction},
    {"scan", KernelFamily::kReduction},  // cub DeviceScanKernel: cumsum
    {"argmax", KernelFamily::kReduction},
    {"topk", KernelFamily::kReduction},

    {"elementwise", KernelFamily::kElementwise},  // vectorized_, unrolled_, elementwise_kernel_with_index
    {"copy", KernelFamily::kElementwise},
    {"fillfunctor", KernelFamily::kElementwise},
    {"fill_kernel", KernelFamily::kElementwise},
    {"gather", KernelFamily::kElementwise},
    {"scatter", KernelFamily::kElementwise},
    {"index", KernelFamily::kElementwise},
    {"embedding", KernelFamily::kElementwise},
};

// Wrapper kernels whose own name says nothing: the display name keeps their first template argument.
constexpr std::string_view kWrapperKernels[] = {
    "cutlass::Kernel",
    "cutlass::Kernel2",
    "cutlass::device_kernel",
};

constexpr std::string_view kAnonymousNamespace = "(anonymous namespace)";

// The first template argument of `templ` in `full` ("templ<arg, ...>"), or empty.
std::string_view first_template_argument(std::string_view full, std::string_view templ) {
  const auto at = full.find(std::string(templ) + "<");
  if (at == std::string_view::npos) return {};
  const auto open = at + templ.size();
  int depth = 0;
  for (std::size_t i = open + 1; i < full.size(); ++i) {
    const char c = full[i];
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') {
      if (depth == 0) return full.substr(open + 1, i - open - 1);
      --depth;
    }
    if (c == ',' && depth == 0) return full.substr(open + 1, i - open - 1);
  }
  return {};
}

std::string strip_name(std::string_view full) {
  std::string out;
  int angle = 0;
  for (std::size_t i = 0; i < full.size(); ++i) {
    const char c = full[i];
    if (full.substr(i).starts_with(kAnonymousNamespace)) {
      // A name component, not a parameter list; dropped with its "::" as noise in a display name.
      i += kAnonymousNamespace.size() - 1;
      if (full.substr(i + 1).starts_with("::")) i += 2;
      continue;
    }
    if (c == '<') {
      ++angle;
      continue;
    }
    if (c == '>') {
      if (angle > 0) --angle;
      continue;
    }
    if (angle > 0) continue;
    if (c == '(') break;  // the parameter list: everything after it (", const", lambdas) is dropped too
    out += c;
  }
  // What is left before the last space is the return type ("void", "std::enable_if<...>::type").
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (const auto space = out.rfind(' '); space != std::string::npos) out.erase(0, space + 1);
  return out;
}

}  // namespace

std::string_view kernel_family_name(KernelFamily family) {
  switch (family) {
    case KernelFamily::kCommunication: return "communication";
    case KernelFamily::kAttention: return "attention";
    case KernelFamily::kGemm: return "gemm";
    case KernelFamily::kReduction: return "reduction";
    case KernelFamily::kElementwise: return "elementwise";
    case KernelFamily::kMemcpy: return "memcpy";
    case KernelFamily::kMemset: return "memset";
    case KernelFamily::kOther: return "other";
  }
  return "unknown";
}

KernelFamily classify_kernel_name(std::string_view full_name) {
  std::string lower(full_name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& rule : kFamilyRules) {
    if (lower.find(rule.pattern) != std::string::npos) return rule.family;
  }
  return KernelFamily::kOther;
}

KernelFamily activity_family(const Timeline& timeline, const GpuActivity& activity) {
  switch (activity.kind) {
    case GpuKind::kMemcpy: return KernelFamily::kMemcpy;
    case GpuKind::kMemset: return KernelFamily::kMemset;
    case GpuKind::kKernel: break;
  }
  return classify_kernel_name(timeline.name(activity.name));
}

std::string short_kernel_name(std::string_view full_name) {
  std::string name = strip_name(full_name);
  if (name.empty()) return std::string(full_name);
  for (const auto wrapper : kWrapperKernels) {
    if (name != wrapper) continue;
    const std::string inner = strip_name(first_template_argument(full_name, wrapper));
    if (!inner.empty()) name += "<" + inner + ">";
    break;
  }
  return name;
}

std::string bare_kernel_name(std::string_view name) {
  std::string stripped = strip_name(name);
  if (stripped.empty()) stripped = std::string(name);
  const auto colons = stripped.rfind("::");
  return colons == std::string::npos ? stripped : stripped.substr(colons + 2);
}

KernelBreakdown kernel_breakdown(const Timeline& timeline, std::size_t top_n) {
  KernelBreakdown result;
  for (std::size_t f = 0; f < kKernelFamilyCount; ++f) result.families[f].family = static_cast<KernelFamily>(f);

  struct Group {
    KernelFamily family;
    std::int64_t total_ns = 0;
    std::vector<double> durations_ns;
  };
  // Keyed by the interned full name: one entry per distinct kernel, classified once.
  std::unordered_map<StringId, Group> groups;
  for (const auto& a : timeline.gpu) {
    result.gpu_time_ns += a.dur_ns;
    KernelFamily family;
    if (a.kind == GpuKind::kKernel) {
      auto [it, inserted] = groups.try_emplace(a.name);
      if (inserted) it->second.family = classify_kernel_name(timeline.name(a.name));
      it->second.total_ns += a.dur_ns;
      it->second.durations_ns.push_back(static_cast<double>(a.dur_ns));
      ++result.kernel_count;
      result.kernel_time_ns += a.dur_ns;
      family = it->second.family;
    } else {
      family = a.kind == GpuKind::kMemcpy ? KernelFamily::kMemcpy : KernelFamily::kMemset;
    }
    auto& f = result.families[static_cast<std::size_t>(family)];
    ++f.count;
    f.total_ns += a.dur_ns;
  }
  for (auto& f : result.families) f.share_of_gpu_time = core::ratio_or_zero(f.total_ns, result.gpu_time_ns);

  std::vector<std::pair<StringId, Group*>> order;
  order.reserve(groups.size());
  for (auto& [id, g] : groups) order.emplace_back(id, &g);
  std::sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    if (a.second->total_ns != b.second->total_ns) return a.second->total_ns > b.second->total_ns;
    return timeline.name(a.first) < timeline.name(b.first);
  });
  result.group_count = order.size();
  const std::size_t listed = top_n == 0 ? order.size() : std::min(top_n, order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    Group& g = *order[i].second;
    if (i >= listed) {
      ++result.rest_group_count;
      result.rest_count += g.durations_ns.size();
      result.rest_ns += g.total_ns;
      continue;
    }
    const auto summary = core::summarize(g.durations_ns);
    KernelGroup out;
    out.full_name = std::string(timeline.name(order[i].first));
    out.short_name = short_kernel_name(out.full_name);
    out.family = g.family;
    out.count = summary.count;
    out.total_ns = g.total_ns;
    out.mean_ns = summary.mean;
    out.p50_ns = summary.p50;
    out.p99_ns = summary.p99;
    out.max_ns = summary.max;
    out.share_of_kernel_time = core::ratio_or_zero(g.total_ns, result.kernel_time_ns);
    result.top.push_back(std::move(out));
  }
  return result;
}

nlohmann::ordered_json to_json(const KernelBreakdown& result) {
  nlohmann::ordered_json j;
  j["kernel_count"] = result.kernel_count;
  j["kernel_time_s"] = core::ns_to_seconds(result.kernel_time_ns);
  j["gpu_time_s"] = core::ns_to_seconds(result.gpu_time_ns);
  j["group_count"] = result.group_count;
  auto top = nlohmann::ordered_json::array();
  for (const auto& g : result.top) {
    nlohmann::ordered_json jg;
    jg["name"] = g.short_name;
    jg["full_name"] = g.full_name;
    jg["family"] = kernel_family_name(g.family);
    jg["count"] = g.count;
    jg["total_s"] = core::ns_to_seconds(g.total_ns);
    jg["mean_s"] = core::ns_to_seconds(g.mean_ns);
    jg["p50_s"] = core::ns_to_seconds(g.p50_ns);
    jg["p99_s"] = core::ns_to_seconds(g.p99_ns);
    jg["max_s"] = core::ns_to_seconds(g.max_ns);
    jg["share_of_kernel_time"] = g.share_of_kernel_time;
    top.push_back(std::move(jg));
  }
  j["top_kernels"] = std::move(top);
  j["rest"] = {{"group_count", result.rest_group_count},
               {"count", result.rest_count},
               {"total_s", core::ns_to_seconds(result.rest_ns)},
               {"share_of_kernel_time", core::ratio_or_zero(result.rest_ns, result.kernel_time_ns)}};
  auto families = nlohmann::ordered_json::array();
  for (const auto& f : result.families) {
    families.push_back({{"family", kernel_family_name(f.family)},
                        {"count", f.count},
                        {"total_s", core::ns_to_seconds(f.total_ns)},
                        {"share_of_gpu_time", f.share_of_gpu_time}});
  }
  j["families"] = std::move(families);
  return j;
}

}  // namespace perfhound::trace
