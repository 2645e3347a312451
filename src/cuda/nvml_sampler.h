// GPU clocks, temperature and power from NVML, loaded at run time with dlopen("libnvidia-ml.so.1") (the
// driver's library; the CUDA toolkit ships no NVML stub or header here), so a machine without NVML still
// runs the probe and the result says NVML was unavailable. Plain C++ API.
#pragma once

#include <memory>
#include <string>

#include "core/result.h"
#include "cuda/probe_result.h"

namespace perfhound::cuda {

class NvmlSampler {
 public:
  // Loads NVML and finds the device by PCI bus id (cudaDeviceGetPCIBusId's "0000:3b:00.0"). Error saying
  // why when the library, a symbol, nvmlInit or the device lookup fails.
  static core::Result<NvmlSampler> open(const std::string& pci_bus_id);
  // SM and memory clock (Hz), GPU temperature (C), power (W, 0 if not reported), clock event reasons.
  core::Result<ClockSample> sample() const;
  // nvmlSystemGetDriverVersion, e.g. "580.65.06"; empty if unavailable.
  std::string driver_version() const;

  struct Library;  // the dlopen handle and the function pointers; shuts NVML down when the last user goes

 private:
  std::shared_ptr<Library> lib_;
};

}  // namespace perfhound::cuda
