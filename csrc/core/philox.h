// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3").
// A counter-based generator: block number `counter` under key `seed` always
// gives the same four 32-bit words, on any device and in any order. That is
// what lets CPU and GPU produce identical streams and makes seeded runs
// reproducible whatever the thread count.
#pragma once
#include <array>
#include <cstdint>

namespace aakaar {

#if defined(__CUDACC__)
#define AK_HOST_DEVICE __host__ __device__
#else
#define AK_HOST_DEVICE
#endif

AK_HOST_DEVICE inline std::array<uint32_t, 4> philox4x32(uint64_t counter, uint64_t seed) {
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32), c2 = 0, c3 = 0;
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c0;
    const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * c2;
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c1 = static_cast<uint32_t>(p1);
    c3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return {c0, c1, c2, c3};
}

// Uniform in [0, 1) from 24 (float) or 53 (double) random bits.
AK_HOST_DEVICE inline float uniform_float(uint32_t x) { return (x >> 8) * (1.0f / 16777216.0f); }
AK_HOST_DEVICE inline double uniform_double(uint32_t hi, uint32_t lo) {
  return ((static_cast<uint64_t>(hi) << 21) ^ (lo >> 11)) * (1.0 / 9007199254740992.0);
}

}  // namespace aakaar
