#include "evaluators/objective/ram_cost_term.h"

#include <cmath>
#include <stdexcept>

#include "evaluators/state/search_state.h"

namespace vmcap {

RamCostTerm::RamCostTerm(const Problem& problem, double weight_per_gib) : w_(weight_per_gib), w_milli_(weight_milli(weight_per_gib)) {
    if (w_milli_ < 0) throw std::invalid_argument("ram-cost must be a number in [0, 100000] with at most 3 decimals");
    Wide most = 0;  // every VM migrated: the term's largest magnitude must stay an exact int64
    for (const Vm& vm : problem.vms) most += static_cast<Wide>(problem.flavors[vm.flavor].demand[kRamMib]) * w_milli_;
    if (most >= (static_cast<Wide>(1) << 61))
        throw std::invalid_argument("ram-cost x migrated RAM exceeds the objective's exact integer range");
}

namespace {
Score mib(const Problem& p, int vm) {
    return p.flavors[p.vms[vm].flavor].demand[kRamMib];
}
}  // namespace

Score RamCostTerm::delta(const SearchState& s, std::span<const Relocation> moves) const {
    Score d = 0;
    for (const Relocation& r : moves) {
        const int after = s.differs_from_origin(r.vm, r.to_host, r.to_mask) ? 1 : 0;
        const int before = s.is_migrated(r.vm) ? 1 : 0;
        d -= w_milli_ * mib(s.problem(), r.vm) * (after - before);
    }
    return d;
}

double RamCostTerm::bound(const SearchState& s, std::span<const int> vms) const {
    Score b = 0;
    for (int v : vms)
        if (s.is_migrated(v)) b += w_milli_ * mib(s.problem(), v);
    return static_cast<double>(b);
}

Score RamCostTerm::value(const Problem& p, const PlacementView& pl) const {
    Score ram = 0;
    for (std::size_t v = 0; v < p.vms.size(); ++v) {
        const Vm& vm = p.vms[v];
        const bool moved = pl.host[v] != vm.host || (p.constraints.remap_counts_as_migration &&
                                                     pl.mask[v] != node_mask(vm.pnuma.data(), p.flavors[vm.flavor].num_vnuma()));
        if (moved) ram += mib(p, static_cast<int>(v));
    }
    return -w_milli_ * ram;
}

}  // namespace vmcap
