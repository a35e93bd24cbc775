#include "core/storage.h"

#include <cstdlib>
#include <new>

#include "core/error.h"

namespace aakaar {

std::shared_ptr<Storage> Storage::allocate_cpu(size_t nbytes) {
  // 64 bytes: one cache line, and enough for any vector load.
  constexpr size_t kAlign = 64;
  size_t rounded = (nbytes + kAlign - 1) / kAlign * kAlign;
  if (rounded == 0) rounded = kAlign;
  void* p = std::aligned_alloc(kAlign, rounded);
  if (p == nullptr) throw RuntimeError(str("out of memory: could not allocate ", nbytes, " bytes on cpu"));
  return std::make_shared<Storage>(p, nbytes, Device{}, [p] { std::free(p); });
}

std::shared_ptr<Storage> Storage::wrap(void* data, size_t nbytes, Device device,
                                       std::function<void()> release) {
  return std::make_shared<Storage>(data, nbytes, device, std::move(release));
}

Storage::~Storage() {
  if (release_) release_();
}

std::string shape_str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + "]";
}

}  // namespace aakaar
