#pragma once
/**
 * @file rng.h
 * Small deterministic PRNG (xoshiro256**, seeded by splitmix64) whose streams do not depend on
 * the standard library's distributions, so a plan is reproducible across compilers for a given
 * seed and worker id. Not thread-safe: one instance per worker.
 */
#include <cmath>
#include <cstdint>

namespace vmcap {

class Rng {
public:
    /** Stream for (seed, stream id): distinct ids give independent-looking streams. */
    Rng(std::uint64_t seed, std::uint64_t stream) {
        std::uint64_t x = seed ^ (0x9E3779B97F4A7C15ULL * (stream + 1));
        for (auto& w : s_) w = splitmix(x);
    }
    std::uint64_t next() {
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }
    /** Uniform integer in [0, n), n >= 1 (Lemire's multiply-shift; bias < n / 2^64). */
    std::uint64_t below(std::uint64_t n) { return static_cast<std::uint64_t>((static_cast<u128>(next()) * n) >> 64); }
    /** Uniform double in [0, 1). */
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

private:
    __extension__ using u128 = unsigned __int128;
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    static std::uint64_t splitmix(std::uint64_t& x) {
        std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    std::uint64_t s_[4];
};

}  // namespace vmcap
