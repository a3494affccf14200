#include "moves/remap.h"

#include "moves/host_scratch.h"
#include "moves/proposal.h"

namespace vmcap {

RemapDelta RemapMove::evaluate(const SearchState& s) const {
    RemapDelta out;
    const Problem& p = s.problem();
    // A remap arrives on no host: under a destination-node rule that fixes nodes it is not possible.
    if (vm < 0 || !p.vms[vm].migratable || s.model().fixes_nodes()) return out;
    const Flavor& fl = p.flavors[p.vms[vm].flavor];
    const int host = s.host_of(vm);
    const NodeMask cur = s.mask_of(vm);
    HostScratch h;
    h.load(s, host);
    h.release(fl, s.pnuma_of(vm));
    const BudgetUse budget(s, vm);
    const auto& placements = s.model().evaluator(p.hosts[host].type, p.vms[vm].flavor).placements();
    bool best_migrates = true;
    for (std::size_t e = 0; e < placements.size(); ++e) {
        const Embedding& emb = placements[e];
        if (emb.mask == cur || !h.fits(fl, emb.map.data())) continue;
        const bool migrates = s.differs_from_origin(vm, host, emb.mask);
        if (!budget.admits(migrates)) continue;
        const Score v = h.gain(s, &fl, emb.map.data());
        if (!out.feasible || v > out.delta || (v == out.delta && best_migrates && !migrates)) {
            out.feasible = true;
            out.delta = v;
            out.embedding = static_cast<int>(e);
            best_migrates = migrates;
        }
    }
    if (out.feasible) out.migrations_after = budget.migrations_after(best_migrates);
    return out;
}

int RemapMove::relocations(const SearchState& s, const RemapDelta& d, Relocation* out) const {
    const int h = s.host_of(vm);
    out[0] = Relocation{vm, h, h, s.model().evaluator(s.type_of(h), s.flavor_of(vm)).placements()[d.embedding].mask};
    return 1;
}

bool RemapMove::propose(ProposalContext& ctx, RemapMove& out) {
    out = RemapMove{ctx.random_vm()};
    return true;
}

void RemapMove::apply(SearchState& s, const RemapDelta& d) const {
    const int host = s.host_of(vm);
    const auto& placements = s.model().evaluator(s.problem().hosts[host].type, s.problem().vms[vm].flavor).placements();
    s.move(vm, host, placements[d.embedding]);
}

}  // namespace vmcap
