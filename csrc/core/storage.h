// A Storage is a flat block of bytes on one device. Tensors never own memory
// directly: they hold a shared_ptr to a Storage and view it through an offset,
// a shape and strides, so many views can share one buffer.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "core/device.h"

namespace aakaar {

class Storage {
 public:
  // Allocates nbytes of 64-byte aligned memory on the CPU.
  static std::shared_ptr<Storage> allocate_cpu(size_t nbytes);
  // Wraps memory owned by someone else (numpy, DLPack); `release` runs when
  // the last view of it goes away, which is how zero-copy keeps the owner alive.
  static std::shared_ptr<Storage> wrap(void* data, size_t nbytes, Device device,
                                       std::function<void()> release);

  Storage(void* data, size_t nbytes, Device device, std::function<void()> release)
      : data_(data), nbytes_(nbytes), device_(device), release_(std::move(release)) {}
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }

  // Bumped by every in-place write; autograd compares it with the value it
  // saved to detect a saved tensor that was modified.
  uint64_t version() const { return version_; }
  void bump_version() { ++version_; }

  // How many of the tensors holding this storage are autograd's saved copies
  // (each SavedTensor holds one alias of its own). An in-place op in the graph
  // may proceed when every other holder is one of these: the version counter
  // catches a saved value that is then used by backward. Any other holder is
  // a live view or base, whose history the op could not update.
  int64_t saved_refs() const { return saved_refs_.load(std::memory_order_relaxed); }
  void add_saved_ref() { saved_refs_.fetch_add(1, std::memory_order_relaxed); }
  void remove_saved_ref() { saved_refs_.fetch_sub(1, std::memory_order_relaxed); }

 private:
  void* data_;
  size_t nbytes_;
  Device device_;
  std::function<void()> release_;
  uint64_t version_ = 0;
  std::atomic<int64_t> saved_refs_{0};
};

using StoragePtr = std::shared_ptr<Storage>;

}  // namespace aakaar
