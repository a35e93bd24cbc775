#include "core/backend.h"

#include "core/error.h"
#include "core/profiler.h"

namespace aakaar {
namespace {
const Backend* g_backends[kNumDeviceTypes] = {nullptr, nullptr};
}

void register_backend(DeviceType type, const Backend* table) { g_backends[static_cast<int>(type)] = table; }

bool has_backend(DeviceType type) { return g_backends[static_cast<int>(type)] != nullptr; }

const Backend& backend(Device device) {
  const Backend* b = g_backends[static_cast<int>(device.type)];
  if (b == nullptr)
    throw RuntimeError(str("device '", device.str(),
                           "' is not available: this build of aakaar has no backend for it"
                           " (or no such device is present)"));
  if (profiler::recording()) return *profiler::profiled(device.type, b);
  return *b;
}

}  // namespace aakaar
