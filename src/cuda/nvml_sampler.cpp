#include "cuda/nvml_sampler.h"

#include <dlfcn.h>
#include <fmt/format.h>

namespace perfhound::cuda {
namespace {

// The few NVML declarations used, from nvml.h (NVML API reference, "Device Queries"): nvmlReturn_t is an
// int enum with NVML_SUCCESS = 0; nvmlDevice_t an opaque pointer; NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2;
// NVML_TEMPERATURE_GPU = 0.
using NvmlReturn = int;
using NvmlDevice = struct NvmlDeviceOpaque*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlClockMem = 2;
constexpr int kNvmlTemperatureGpu = 0;

}  // namespace

struct NvmlSampler::Library {
  void* handle = nullptr;
  NvmlDevice device = nullptr;
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  const char* (*error_string)(NvmlReturn) = nullptr;
  NvmlReturn (*by_pci)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*clock)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*temperature)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*power)(NvmlDevice, unsigned*) = nullptr;                    // optional
  NvmlReturn (*reasons)(NvmlDevice, unsigned long long*) = nullptr;       // optional
  NvmlReturn (*driver)(char*, unsigned) = nullptr;                        // optional
  bool initialized = false;

  ~Library() {
    if (initialized && shutdown != nullptr) static_cast<void>(shutdown());
    if (handle != nullptr) dlclose(handle);
  }
  std::string why(NvmlReturn r) const {
    return error_string != nullptr ? std::string(error_string(r)) : fmt::format("NVML error {}", r);
  }
};

namespace {

template <class F>
bool bind(void* handle, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(handle, name));
  return fn != nullptr;
}

}  // namespace

core::Result<NvmlSampler> NvmlSampler::open(const std::string& pci_bus_id) {
  auto lib = std::make_shared<Library>();
  lib->handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib->handle == nullptr) {
    const char* e = dlerror();
    return core::Error{fmt::format("dlopen libnvidia-ml.so.1: {}", e != nullptr ? e : "not found")};
  }
  if (!bind(lib->handle, "nvmlInit_v2", lib->init) || !bind(lib->handle, "nvmlShutdown", lib->shutdown) ||
      !bind(lib->handle, "nvmlDeviceGetHandleByPciBusId_v2", lib->by_pci) ||
      !bind(lib->handle, "nvmlDeviceGetClockInfo", lib->clock) ||
      !bind(lib->handle, "nvmlDeviceGetTemperature", lib->temperature)) {
    return core::Error{"libnvidia-ml.so.1 lacks a function perfhound uses (nvmlInit_v2, nvmlShutdown, "
                       "nvmlDeviceGetHandleByPciBusId_v2, nvmlDeviceGetClockInfo, nvmlDeviceGetTemperature)"};
  }
  bind(lib->handle, "nvmlErrorString", lib->error_string);
  bind(lib->handle, "nvmlDeviceGetPowerUsage", lib->power);
  if (!bind(lib->handle, "nvmlDeviceGetCurrentClocksEventReasons", lib->reasons)) {
    bind(lib->handle, "nvmlDeviceGetCurrentClocksThrottleReasons", lib->reasons);
  }
  bind(lib->handle, "nvmlSystemGetDriverVersion", lib->driver);
  if (const NvmlReturn r = lib->init(); r != kNvmlSuccess) return core::Error{"nvmlInit_v2: " + lib->why(r)};
  lib->initialized = true;
  if (const NvmlReturn r = lib->by_pci(pci_bus_id.c_str(), &lib->device); r != kNvmlSuccess) {
    return core::Error{fmt::format("nvmlDeviceGetHandleByPciBusId_v2 '{}': {}", pci_bus_id, lib->why(r))};
  }
  NvmlSampler s;
  s.lib_ = std::move(lib);
  return s;
}

core::Result<ClockSample> NvmlSampler::sample() const {
  ClockSample c;
  unsigned v = 0;
  if (const NvmlReturn r = lib_->clock(lib_->device, kNvmlClockSm, &v); r != kNvmlSuccess) {
    return core::Error{"nvmlDeviceGetClockInfo(SM): " + lib_->why(r)};
  }
  c.sm_clock_hz = v * 1e6;
  if (lib_->clock(lib_->device, kNvmlClockMem, &v) == kNvmlSuccess) c.memory_clock_hz = v * 1e6;
  if (const NvmlReturn r = lib_->temperature(lib_->device, kNvmlTemperatureGpu, &v); r != kNvmlSuccess) {
    return core::Error{"nvmlDeviceGetTemperature: " + lib_->why(r)};
  }
  c.temperature_c = v;
  if (lib_->power != nullptr && lib_->power(lib_->device, &v) == kNvmlSuccess) c.power_w = v / 1e3;  // mW
  unsigned long long reasons = 0;
  if (lib_->reasons != nullptr && lib_->reasons(lib_->device, &reasons) == kNvmlSuccess) c.clock_event_reasons = reasons;
  return c;
}

std::string NvmlSampler::driver_version() const {
  char buf[96] = {};
  if (lib_->driver == nullptr || lib_->driver(buf, sizeof(buf)) != kNvmlSuccess) return {};
  return buf;
}

}  // namespace perfhound::cuda
