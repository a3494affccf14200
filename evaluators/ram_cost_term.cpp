#include "evaluators/ram_cost_term.h"

#include <cmath>
#include <stdexcept>

#include "evaluators/search_state.h"

namespace vmcap {

RamCostTerm::RamCostTerm(const Problem&, double weight_per_gib) : w_(weight_per_gib) {
    if (!(w_ >= 0.0) || !std::isfinite(w_)) throw std::invalid_argument("ram-cost must be a finite number >= 0");
}

namespace {
double gib(const Problem& p, int vm) { return static_cast<double>(p.flavors[p.vms[vm].flavor].demand[kRamMib]) / 1024.0; }
}  // namespace

double RamCostTerm::delta(const SearchState& s, std::span<const Relocation> moves) const {
    double d = 0.0;
    for (const Relocation& r : moves) {
        const int after = s.differs_from_origin(r.vm, r.to_host, r.to_mask) ? 1 : 0;
        const int before = s.is_migrated(r.vm) ? 1 : 0;
        if (after != before) d -= w_ * gib(s.problem(), r.vm) * (after - before);
    }
    return d;
}

double RamCostTerm::bound(const SearchState& s, std::span<const int> vms) const {
    double b = 0.0;
    for (int v : vms)
        if (s.is_migrated(v)) b += w_ * gib(s.problem(), v);
    return b;
}

double RamCostTerm::value(const Problem& p, const PlacementView& pl) const {
    double ram = 0.0;
    for (std::size_t v = 0; v < p.vms.size(); ++v) {
        const Vm& vm = p.vms[v];
        const bool moved = pl.host[v] != vm.host ||
                           (p.constraints.remap_counts_as_migration && pl.mask[v] != node_mask(vm.pnuma.data(), p.flavors[vm.flavor].num_vnuma()));
        if (moved) ram += gib(p, static_cast<int>(v));
    }
    return -w_ * ram;
}

}  // namespace vmcap
