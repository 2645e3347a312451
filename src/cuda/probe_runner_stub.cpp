// The probe in a build without nvcc (DESIGN.md principle 6: degrade to a clear message).
#include "cuda/probe_runner.h"

namespace perfhound::cuda {

bool built_with_cuda() { return false; }

namespace {
core::Error no_cuda() { return core::Error{"built without CUDA (nvcc was not found at configure time)"}; }
}  // namespace

core::Result<int> cuda_device_count() { return no_cuda(); }

core::Result<ProbeResult> run_probe(const ProbeOptions&, std::ostream*) { return no_cuda(); }

}  // namespace perfhound::cuda
