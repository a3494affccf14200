#pragma once
/**
 * @file capacity_vectors.h
 * Capacity vectors b of many flavors on one host in one pass:
 *
 *     b[f][i] = min over resources r with node_demand[f][r] > 0 of floor(free[i][r] / node_demand[f][r])
 *
 * (vmcap-formulas.md, "Definition"; the same value as CapacityModel::node_b). The demands are
 * fixed per flavor, so every (flavor, resource) divisor is turned once into a "magic" reciprocal
 * (Granlund and Montgomery, "Division by invariant integers using multiplication", PLDI 1994; the
 * round-up variant used by libdivide, implemented here) and each division becomes one 64x64->128
 * multiply and a shift, exact for every non-negative int64 numerator and positive int64 divisor.
 */
#include <cstddef>
#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "evaluators/closed_forms/vmcap.h"
#include "instances/problem.h"

namespace vmcap {

/**
 * Exact floor(x / d) for an invariant divisor d by multiplication (Granlund and Montgomery; the
 * round-up variant of libdivide), in two widths:
 *
 *  - divide(x), any 0 <= x <= 2^63 - 1: q = floor(x * magic / 2^(63+shift)) with shift =
 *    ceil(log2 d) and magic = ceil(2^(63+shift) / d) < 2^64 (one 64x64->128 multiply).
 *    Proof: magic * d = 2^(63+shift) + e with 0 <= e < d <= 2^shift, so x*magic/2^(63+shift) =
 *    x/d + x*e/(d*2^(63+shift)), and the error term is < 2^63 * 2^shift / (d * 2^(63+shift)) = 1/d,
 *    which cannot carry x/d = q + (at most (d-1)/d) past q + 1. magic < 2^64 because
 *    d > 2^(shift-1).
 *  - divide31(x), 0 <= x < 2^31 only: the same with 31 in place of 63, magic31 < 2^32, so the
 *    product fits in 64 bits (one 64-bit IMUL, no 128-bit product); for d > 2^32 the quotient is 0.
 *
 * Divisors 1 <= d <= 2^63 - 1. Arguments outside the stated ranges are outside the contract (the
 * result is meaningless). Value type; thread-safe. make() costs a few 128-bit divisions.
 */
struct MagicDivisor {
    std::uint64_t magic = std::uint64_t{1} << 63;  ///< d = 1 by default
    std::uint64_t magic31 = std::uint64_t{1} << 31;
    int shift = 0;     ///< ceil(log2 d)
    int shift31 = 31;  ///< 31 + ceil(log2 d), or 0 with magic31 = 0 when d > 2^32

    /** Reciprocal of d. Throws std::invalid_argument unless 1 <= d. */
    static MagicDivisor make(Amount d);

    /** floor(x / d) for 0 <= x <= 2^63 - 1. */
    Amount divide(Amount x) const {
        __extension__ typedef unsigned __int128 U128;  // GCC/Clang extension; -Wpedantic-clean spelling
        // 2x < 2^64, so the high word of 2x * magic is floor(x * magic / 2^63): no double-word shift.
        const U128 p = static_cast<U128>(static_cast<std::uint64_t>(x) << 1) * magic;
        return static_cast<Amount>(static_cast<std::uint64_t>(p >> 64) >> shift);
    }

    /** floor(x / d) for 0 <= x < 2^31. */
    Amount divide31(Amount x) const { return static_cast<Amount>((static_cast<std::uint64_t>(x) * magic31) >> shift31); }
};

/**
 * Per-flavor demand matrix of a set of flavors, built once, and the one-pass computation of their
 * capacity vectors on a host. Shapes: demand is F x R (one vNUMA node's demand of flavor f in
 * resource r, integer units of the resource); free amounts of a host are nodes x R, row-major
 * ([i * R + r], the layout of SearchState::free_of and compute_node_usage); the output b is
 * nodes x F, column-major ([f * nodes + i]: each flavor's capacity vector is contiguous, ready for
 * VmcapEvaluator::operator()). Any R >= 1 (vcpu, ram_mib, extras such as l3_ways); resources in
 * which a flavor has zero demand do not limit it.
 *
 * Immutable after construction; compute() is const, allocation-free and thread-safe.
 */
class CapacityVectors {
public:
    /**
     * From a row-major F x R demand matrix (node_demand[f * R + r] >= 0). Throws
     * std::invalid_argument if F < 0, R < 1 or R > kMaxResources, a demand is negative, or a
     * flavor has zero demand in every resource (its b would be unbounded).
     */
    CapacityVectors(const Amount* node_demand, int flavors, int resources);

    /**
     * The flavors `flavor_indices` of `problem` (Flavor::node_demand), in that order; output
     * column f is flavor flavor_indices[f]. Throws std::out_of_range on an index outside the
     * problem, and as the constructor above.
     */
    static CapacityVectors for_flavors(const Problem& problem, const std::vector<int>& flavor_indices);
    /** Every flavor of `problem`, in flavor order. */
    static CapacityVectors for_all_flavors(const Problem& problem);

    int num_flavors() const { return F_; }
    int num_resources() const { return R_; }
    /** Demand matrix (F x R, one vNUMA node) as given. */
    const Eigen::Array<Amount, Eigen::Dynamic, Eigen::Dynamic>& demand() const { return demand_; }

    /**
     * b[f * nodes + i] for every flavor f < num_flavors() and node i < nodes, from free[i * R + r].
     * Preconditions (not checked): 0 <= nodes <= kMaxPNuma, every free amount >= 0, b_out has
     * nodes * F entries.
     * Method: flavors often share a divisor in a resource (e.g. 4 vCPU per vNUMA node), so each
     * distinct (resource, demand) pair is one quotient column floor(free.col(r) / demand), computed
     * once per call with the magic reciprocal (Eigen column expressions, unrolled for 4 and 8
     * nodes; no hardware division) into a stack buffer; each flavor's b is then the
     * coefficient-wise min of its columns. If every free amount of the host is below 2^31
     * (checked per call, one OR over nodes x R values) the 64-bit divide31 is used, else the exact
     * 128-bit divide. Cost O(nodes x (distinct (r, demand) pairs + sum_f |resources with demand|)).
     * When nodes x distinct pairs exceeds kScratch, or no pair is shared, each flavor is computed
     * as by compute_flavor (same result).
     */
    void compute(const Amount* free, int nodes, Count* b_out) const;

    /**
     * The capacity vector of flavor f alone (b_out[i], i < nodes); same preconditions. One
     * division per (node, resource with demand) of f, as compute() without sharing.
     */
    void compute_flavor(int f, const Amount* free, int nodes, Count* b_out) const;

    /**
     * Capacity vectors of `count` hosts with the same node count at once, structure of arrays
     * (the layout of vmcap_batch.h):
     *   free[(i * R + r) * free_stride + t]  free amount of resource r on node i of host t;
     *   b_out[(f * nodes + i) * b_stride + t]  b_i of flavor f on host t, so flavor f's block
     *   b_out + f * nodes * b_stride is ready for BatchEvaluator with stride b_stride.
     * Same values as compute(). Preconditions (not checked): 0 <= nodes <= kMaxPNuma, free
     * amounts >= 0, count <= both strides, b_out does not overlap free.
     * Method: per block of 256 hosts, one OR over the block's free amounts decides between the
     * 64-bit MagicDivisor::divide31 (all below 2^31; the loop over hosts vectorizes to 32x32->64
     * multiplies, with an AVX2 clone via GCC function multiversioning) and the exact 128-bit
     * divide; each (flavor, node) row is the min over the flavor's resources. No quotient is
     * shared between flavors (the division is cheap enough vectorized). Cost
     * O(count x nodes x sum_f |resources with demand|). Allocation-free; thread-safe.
     */
    void compute_batch(const Amount* free, std::size_t free_stride, std::size_t count, int nodes, Count* b_out, std::size_t b_stride) const;

    /** Distinct (resource, demand > 0) pairs over all flavors: the quotient columns compute() divides by. */
    int num_quotient_columns() const { return static_cast<int>(columns_.size()); }

    /** Stack buffer of compute() in Counts (8 KiB): nodes x quotient columns above it are not shared. */
    static constexpr int kScratch = 1024;

private:
    int F_ = 0, R_ = 0;
    Eigen::Array<Amount, Eigen::Dynamic, Eigen::Dynamic> demand_;  ///< F x R
    /** Limiting resources of flavor f: terms_[first_[f] .. first_[f+1]), with their divisors. */
    std::vector<int> first_;
    struct Term {
        int resource;
        MagicDivisor div;
    };
    std::vector<Term> terms_;
    /** Distinct (resource, demand) pairs, and for each term its column. */
    std::vector<Term> columns_;
    std::vector<int> column_of_term_;
};

}  // namespace vmcap
