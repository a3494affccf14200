#include "evaluators/closed_forms/weighted_vmcap.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "evaluators/closed_forms/target_clones.h"

namespace vmcap {

namespace {

/** Targets per pass of the lane kernels: their stack buffers stay in L1. */
constexpr int kChunk = 256;

/**
 * One node's quotients of lanes k0 .. k0 + m - 1: q[k] = min over resources r of (x[r] x
 * magic[r][k0 + k]) >> shift[r][k0 + k], MagicDivisor::divide31 per lane (x < 2^31, magic < 2^32:
 * the product fits in 64 bits). Targets innermost, so each loop is one vectorisable pass.
 */
[[gnu::always_inline]] inline void node_row(const std::uint32_t* const* magic, const std::uint64_t* const* shift, int k0, int m,
                                            const std::uint32_t* x, int R, std::uint64_t* q) {
    // The first resource initialises q (an all-ones fill first became a memset call per node).
    {
        const std::uint32_t xr = x[0];
        const std::uint32_t* M = magic[0] + k0;
        const std::uint64_t* S = shift[0] + k0;
        for (int k = 0; k < m; ++k) q[k] = (static_cast<std::uint64_t>(xr) * static_cast<std::uint64_t>(M[k])) >> S[k];
    }
    for (int r = 1; r < R; ++r) {
        const std::uint32_t xr = x[r];
        const std::uint32_t* M = magic[r] + k0;
        const std::uint64_t* S = shift[r] + k0;
        for (int k = 0; k < m; ++k) {
            const std::uint64_t v = (static_cast<std::uint64_t>(xr) * static_cast<std::uint64_t>(M[k])) >> S[k];
            q[k] = v < q[k] ? v : q[k];
        }
    }
}

/** sum_k w[k] x VMCAP_k of the lanes k < count, their b combined over the n nodes by sum or min (kMin). */
template <bool kMin>
[[gnu::always_inline]] inline Score lanes(const std::uint32_t* const* magic, const std::uint64_t* const* shift, const Score* w, int count,
                                          const std::uint32_t* x, int n, int R) {
    Score s = 0;
    for (int k0 = 0; k0 < count; k0 += kChunk) {
        const int m = std::min(kChunk, count - k0);
        std::uint64_t acc[kChunk];
        std::uint64_t q[kChunk];
        for (int k = 0; k < m; ++k) acc[k] = kMin ? ~std::uint64_t{0} : 0;
        for (int i = 0; i < n; ++i) {
            node_row(magic, shift, k0, m, x + i * R, R, q);
            if constexpr (kMin) {
                for (int k = 0; k < m; ++k) acc[k] = q[k] < acc[k] ? q[k] : acc[k];
            } else {
                for (int k = 0; k < m; ++k) acc[k] += q[k];
            }
        }
        for (int k = 0; k < m; ++k) s += w[k0 + k] * static_cast<Score>(acc[k]);
    }
    return s;
}

/** Per-node quotients of lanes k < count into soa[i * kChunk + k] (the min over resources, as
 *  lanes_value), for a batched closed form. */
VMCAP_BATCH_CLONES
void node_quotients(const std::uint32_t* const* magic, const std::uint64_t* const* shift, int count, const std::uint32_t* x, int n, int R,
                    Count* soa) {
    static_assert(sizeof(Count) == sizeof(std::uint64_t));
    for (int i = 0; i < n; ++i)
        node_row(magic, shift, 0, count, x + i * R, R, reinterpret_cast<std::uint64_t*>(soa + static_cast<std::size_t>(i) * kChunk));
}

/** Rows of quotients from a group's table: soa[i * kChunk + k] = row[i][k], k < m. */
VMCAP_BATCH_CLONES
void table_quotients(const std::uint8_t* const* row, int m, int n, Count* soa) {
    for (int i = 0; i < n; ++i) {
        const std::uint8_t* src = row[i];
        Count* dst = soa + static_cast<std::size_t>(i) * kChunk;
        for (int k = 0; k < m; ++k) dst[k] = src[k];
    }
}

VMCAP_BATCH_CLONES
Score sum_lanes(const std::uint32_t* const* magic, const std::uint64_t* const* shift, const Score* w, int count, const std::uint32_t* x,
                int n, int R) {
    return lanes<false>(magic, shift, w, count, x, n, R);
}

VMCAP_BATCH_CLONES
Score min_lanes(const std::uint32_t* const* magic, const std::uint64_t* const* shift, const Score* w, int count, const std::uint32_t* x,
                int n, int R) {
    return lanes<true>(magic, shift, w, count, x, n, R);
}

}  // namespace

WeightedVmcap::WeightedVmcap(const Problem& problem, int host_type, const std::vector<int>& target_flavors,
                             const std::vector<Score>& weight_units, const std::vector<const VmcapEvaluator*>& evaluators)
    : n_(problem.host_types.at(host_type).num_nodes()), R_(problem.num_resources()) {
    if (target_flavors.size() != weight_units.size() || target_flavors.size() != evaluators.size())
        throw std::invalid_argument("WeightedVmcap: targets, weights and evaluators differ in length");
    Amount sum_gcd[kMaxResources] = {};  // per resource, of the sum lanes' node demands
    for (std::size_t j = 0; j < target_flavors.size(); ++j) {
        const Flavor& fl = problem.flavors.at(target_flavors[j]);
        const VmcapEvaluator* ev = evaluators[j];
        ScalarTarget t;
        t.target = static_cast<int>(j);
        t.weight = weight_units[j];
        t.ev = ev;
        bool every_resource = true;
        for (int r = 0; r < R_; ++r) {
            const Amount d = fl.node_demand[r];
            if (d <= 0) {
                every_resource = false;
                continue;
            }
            t.resource[t.count] = r;
            t.div[t.count] = MagicDivisor::make(d);
            ++t.count;
        }
        all_.push_back(t);
        closed_forms_only_ = closed_forms_only_ && ev->is_closed_form();
        // Divisors above 2^32 have magic31 = 0 (quotient 0 for every x < 2^31: right, but the
        // per-lane shift would be 0); such targets stay scalar, as do partial-demand ones.
        bool narrow = every_resource;
        for (int c = 0; c < t.count; ++c) narrow = narrow && t.div[c].magic31 != 0;
        Lanes* lanes = nullptr;
        if (narrow && ev->additive()) lanes = &sum_;
        if (narrow && ev->method() == VmcapMethod::Kn_Kk && ev->guest_nodes() == ev->host_nodes()) lanes = &min_;
        if (narrow && lanes == nullptr && ev->is_closed_form()) {
            // One group per (method, parameters): they share one batched closed form.
            for (BatchGroup& g : batch_) {
                const VmcapEvaluator& e = g.eval.scalar();
                if (e.method() == ev->method() && e.guest_nodes() == ev->guest_nodes() && e.host_p() == ev->host_p() &&
                    e.host_q() == ev->host_q())
                    lanes = &g.lanes;
            }
            if (lanes == nullptr) {
                batch_.push_back(BatchGroup{{}, BatchEvaluator(*ev), {}, {}});
                lanes = &batch_.back().lanes;
            }
        }
        if (lanes == nullptr) {
            scalar_.push_back(t);
            continue;
        }
        for (int r = 0; r < R_; ++r) {
            lanes->magic[r].push_back(static_cast<std::uint32_t>(t.div[r].magic31));
            lanes->shift[r].push_back(static_cast<std::uint64_t>(t.div[r].shift31));
        }
        lanes->weight.push_back(t.weight);
        lanes->target.push_back(t.target);
        if (lanes == &sum_)
            for (int r = 0; r < R_; ++r) sum_gcd[r] = std::gcd(sum_gcd[r], fl.node_demand[r]);
    }
    const HostType& ht = problem.host_types[host_type];
    build_node_table(ht, sum_gcd);
    for (BatchGroup& g : batch_) {
        Amount gcd[kMaxResources] = {};
        for (const int j : g.lanes.target)
            for (int r = 0; r < R_; ++r) gcd[r] = std::gcd(gcd[r], problem.flavors[target_flavors[j]].node_demand[r]);
        build_quotient_table(ht, gcd, g);
    }
}

bool WeightedVmcap::NodeGrid::make(const HostType& ht, int n, int R, const Amount* gcd, std::size_t most) {
    entries = 0;
    if (R > 4) return false;
    std::size_t count = 1;
    for (int r = 0; r < R; ++r) {
        Amount largest = 0;
        for (int i = 0; i < n; ++i) largest = std::max(largest, ht.node_capacity[static_cast<std::size_t>(i) * R + r]);
        if (largest >= (Amount{1} << 31) || gcd[r] <= 0) return false;  // the lanes' 32-bit amounts
        units[r] = gcd[r];
        per_unit[r] = MagicDivisor::make(gcd[r]);
        extent[r] = largest / gcd[r] + 1;
        count *= static_cast<std::size_t>(extent[r]);
        if (count > most) return false;
    }
    entries = count;
    return true;
}

bool WeightedVmcap::NodeGrid::index(const std::uint32_t* x, int R, std::size_t& e) const {
    e = 0;
    for (int r = 0; r < R; ++r) {
        const Amount u = per_unit[r].divide31(x[r]);
        if (u >= extent[r]) return false;  // beyond the largest node capacity (an upper bound's relaxation)
        e = e * static_cast<std::size_t>(extent[r]) + static_cast<std::size_t>(u);
    }
    return true;
}

void WeightedVmcap::NodeGrid::amounts(std::size_t e, int R, std::uint32_t* x) const {
    for (int r = R - 1; r >= 0; --r) {
        const auto ext = static_cast<std::size_t>(extent[r]);
        x[r] = static_cast<std::uint32_t>(static_cast<Amount>(e % ext) * units[r]);
        e /= ext;
    }
}

void WeightedVmcap::build_node_table(const HostType& ht, const Amount* gcd) {
    if (sum_.weight.empty()) return;
    const std::size_t most = std::min(kMaxNodeTable, kMaxNodeTableWork / sum_.weight.size());
    if (!table_grid_.make(ht, n_, R_, gcd, most)) return;
    table_.resize(table_grid_.entries);
    const std::uint32_t* magic[kMaxResources];
    const std::uint64_t* shift[kMaxResources];
    for (int r = 0; r < R_; ++r) {
        magic[r] = sum_.magic[r].data();
        shift[r] = sum_.shift[r].data();
    }
    std::uint32_t x[kMaxResources];
    for (std::size_t e = 0; e < table_grid_.entries; ++e) {
        table_grid_.amounts(e, R_, x);
        table_[e] = sum_lanes(magic, shift, sum_.weight.data(), static_cast<int>(sum_.weight.size()), x, 1, R_);
    }
}

void WeightedVmcap::build_quotient_table(const HostType& ht, const Amount* gcd, BatchGroup& g) const {
    const std::size_t lanes = g.lanes.weight.size();
    if (lanes == 0 || !g.grid.make(ht, n_, R_, gcd, kMaxQuotientTable / lanes)) return;
    std::vector<std::uint8_t> table(g.grid.entries * lanes);
    const std::uint32_t* magic[kMaxResources];
    const std::uint64_t* shift[kMaxResources];
    std::uint32_t x[kMaxResources];
    std::uint64_t q[kChunk];
    for (std::size_t e = 0; e < g.grid.entries; ++e) {
        g.grid.amounts(e, R_, x);
        for (std::size_t k0 = 0; k0 < lanes; k0 += kChunk) {
            const int m = static_cast<int>(std::min<std::size_t>(kChunk, lanes - k0));
            for (int r = 0; r < R_; ++r) {
                magic[r] = g.lanes.magic[r].data();
                shift[r] = g.lanes.shift[r].data();
            }
            node_row(magic, shift, static_cast<int>(k0), m, x, R_, q);
            for (int k = 0; k < m; ++k) {
                if (q[k] > 255) {
                    g.grid.entries = 0;  // a quotient beyond 8 bits: no table
                    return;
                }
                table[e * lanes + k0 + static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(q[k]);
            }
        }
    }
    g.quotients = std::move(table);
}

Score WeightedVmcap::table_sum(const std::uint32_t* x, bool& ok) const {
    Score s = 0;
    for (int i = 0; i < n_; ++i) {
        std::size_t e = 0;
        if (!table_grid_.index(x + i * R_, R_, e)) {
            ok = false;
            return 0;
        }
        s += table_[e];
    }
    ok = true;
    return s;
}

void WeightedVmcap::scalar_b(const ScalarTarget& t, const Amount* free, Count* b) const {
    for (int i = 0; i < n_; ++i) {
        const Amount* f = free + i * R_;
        Count best = t.div[0].divide(f[t.resource[0]]);
        for (int c = 1; c < t.count; ++c) best = std::min<Count>(best, t.div[c].divide(f[t.resource[c]]));
        b[i] = best;
    }
}

Score WeightedVmcap::scalar_term(const ScalarTarget& t, const Amount* free) const {
    Count b[kMaxPNuma];
    scalar_b(t, free, b);
    return t.weight * (*t.ev)(b);
}

bool WeightedVmcap::narrow(const Amount* free, std::uint32_t* x) const {
    std::uint64_t high = 0;
    for (int a = 0; a < n_ * R_; ++a) {
        high |= static_cast<std::uint64_t>(free[a]);
        x[a] = static_cast<std::uint32_t>(free[a]);
    }
    return (high >> 31) == 0;  // else divide31 would not be exact
}

Score WeightedVmcap::value(const Amount* free) const {
    std::uint32_t x[kMaxPNuma * kMaxResources];
    Score s = 0;
    if (!narrow(free, x)) {
        for (const ScalarTarget& t : all_) s += scalar_term(t, free);
        return s;
    }
    const std::uint32_t* magic[kMaxResources];
    const std::uint64_t* shift[kMaxResources];
    bool tabled = false;
    if (!table_.empty()) s += table_sum(x, tabled);
    for (const Lanes* l : {&sum_, &min_}) {
        if (l->weight.empty() || (l == &sum_ && tabled)) continue;
        for (int r = 0; r < R_; ++r) {
            magic[r] = l->magic[r].data();
            shift[r] = l->shift[r].data();
        }
        const int count = static_cast<int>(l->weight.size());
        s += l == &sum_ ? sum_lanes(magic, shift, l->weight.data(), count, x, n_, R_)
                        : min_lanes(magic, shift, l->weight.data(), count, x, n_, R_);
    }
    for (const BatchGroup& g : batch_) s += batch_value(g, x);
    for (const ScalarTarget& t : scalar_) s += scalar_term(t, free);
    return s;
}

Score WeightedVmcap::batch_value(const BatchGroup& g, const std::uint32_t* x) const {
    const std::uint32_t* magic[kMaxResources];
    const std::uint64_t* shift[kMaxResources];
    const int count = static_cast<int>(g.lanes.weight.size());
    // Each node's row in the group's quotient table, when every node is on its grid.
    const std::uint8_t* row[kMaxPNuma];
    bool tabled = !g.quotients.empty();
    for (int i = 0; tabled && i < n_; ++i) {
        std::size_t e = 0;
        tabled = g.grid.index(x + i * R_, R_, e);
        row[i] = g.quotients.data() + e * static_cast<std::size_t>(count);
    }
    // Tabled: the pair's closed form straight from the byte rows, in 16-bit lanes.
    Score fused = 0;
    if (tabled && g.eval.weighted_bytes(row, g.lanes.weight.data(), static_cast<std::size_t>(count), fused)) return fused;
    Count soa[kMaxPNuma * kChunk];
    Count out[kChunk];
    Score s = 0;
    for (int k0 = 0; k0 < count; k0 += kChunk) {
        const int m = std::min(kChunk, count - k0);
        if (tabled) {
            table_quotients(row, m, n_, soa);
            for (int i = 0; i < n_; ++i) row[i] += m;
        } else {
            for (int r = 0; r < R_; ++r) {
                magic[r] = g.lanes.magic[r].data() + k0;
                shift[r] = g.lanes.shift[r].data() + k0;
            }
            node_quotients(magic, shift, m, x, n_, R_, soa);
        }
        g.eval(soa, kChunk, static_cast<std::size_t>(m), out);
        const Score* w = g.lanes.weight.data() + k0;
        for (int k = 0; k < m; ++k) s += w[k] * out[k];
    }
    return s;
}

}  // namespace vmcap
