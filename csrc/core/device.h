// Where a tensor's memory lives. Every device type has one Backend (its table
// of kernels, see core/backend.h); ops look the backend up by device and never
// name a device themselves.
#pragma once
#include <cstdint>
#include <string>

namespace aakaar {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr int kNumDeviceTypes = 2;

struct Device {
  DeviceType type = DeviceType::CPU;
  int index = 0;
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const {
    if (type == DeviceType::CPU) return "cpu";
    return "cuda:" + std::to_string(index);
  }
};

}  // namespace aakaar
