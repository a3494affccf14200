#include "moves/return_move.h"

#include "moves/host_scratch.h"
#include "moves/move_cache.h"
#include "moves/proposal.h"

namespace vmcap {

ReturnDelta ReturnMove::evaluate(const SearchState& s) const {
    ReturnDelta out;
    const Problem& p = s.problem();
    if (vm < 0 || !s.is_migrated(vm)) return out;
    const Vm& v = p.vms[vm];
    const Flavor& fl = p.flavors[v.flavor];
    const int cur = s.host_of(vm);
    HostScratch home;
    home.load(s, v.host);
    Score source = 0;
    if (cur == v.host) {
        home.release(fl, s.pnuma_of(vm));  // a remap back: its own share is free
    } else {
        HostScratch src;
        src.load(s, cur);
        src.release(fl, s.pnuma_of(vm));
        source = src.gain(s);
    }
    if (!home.fits(fl, v.pnuma.data()) || !rule_admits_return(s, vm, home)) return out;
    out.feasible = true;
    out.delta = source + home.gain(s, &fl, v.pnuma.data());
    out.migrations_after = BudgetUse(s, vm).migrations_after(false);
    return out;
}

ReturnDelta ReturnMove::evaluate(const SearchState& s, MoveCache& cache) const {
    if (vm < 0 || !s.is_migrated(vm)) return ReturnDelta{};
    if (s.host_of(vm) == s.problem().vms[vm].host) return evaluate(s);
    ReturnDelta out;
    const MoveCache::Return& ret = cache.return_home(s, vm);
    if (!ret.fits) return out;
    const Score ret_delta = ret.delta;
    out.feasible = true;
    out.delta = cache.removal(s, vm) + ret_delta;
    out.migrations_after = BudgetUse(s, vm).migrations_after(false);
    return out;
}

int ReturnMove::relocations(const SearchState& s, const ReturnDelta&, Relocation* out) const {
    out[0] = Relocation{vm, s.host_of(vm), s.origin_of(vm), snapshot_embedding(s.problem(), vm).mask};
    return 1;
}

bool ReturnMove::propose(ProposalContext& ctx, ReturnMove& out) {
    const int vm = ctx.random_migrated(true);
    if (vm < 0) return false;
    out = ReturnMove{vm};
    return true;
}

void ReturnMove::apply(SearchState& s, const ReturnDelta&) const {
    const Problem& p = s.problem();
    s.move(vm, p.vms[vm].host, snapshot_embedding(p, vm));
}

}  // namespace vmcap
