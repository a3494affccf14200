#include "moves/budget_exchange.h"

#include "moves/host_scratch.h"
#include "moves/move_cache.h"
#include "moves/proposal.h"

namespace vmcap {

namespace {

/** At most four tentative hosts, looked up by host index (linear: tiny). */
struct Scratches {
    HostScratch h[4];
    int n = 0;
    HostScratch& get(const SearchState& s, int host) {
        for (int i = 0; i < n; ++i)
            if (h[i].host() == host) return h[i];
        h[n].load(s, host);
        return h[n++];
    }
};

}  // namespace

BudgetExchangeDelta BudgetExchangeMove::evaluate(const SearchState& s) const {
    BudgetExchangeDelta out;
    const Problem& p = s.problem();
    if (a < 0 || b < 0 || a == b || !s.is_migrated(a) || s.is_migrated(b) || !p.vms[b].migratable) return out;
    const int hb = s.host_of(b);
    if (host < 0 || host == hb) return out;
    const Flavor& fa = p.flavors[p.vms[a].flavor];
    const Flavor& fb = p.flavors[p.vms[b].flavor];
    const BudgetUse budget(s, a, b);  // a returns to its snapshot nodes, b migrates
    if (!budget.admits(false, true)) return out;

    Scratches sc;
    // Step 1: a back to its snapshot nodes.
    const Vm& va = p.vms[a];
    sc.get(s, s.host_of(a)).release(fa, s.pnuma_of(a));
    HostScratch& home = sc.get(s, va.host);
    if (!home.fits(fa, va.pnuma.data()) || !rule_admits_return(s, a, home)) return out;
    home.occupy(fa, va.pnuma.data());
    // Step 2: b leaves its host and takes its best placement on `host`.
    sc.get(s, hb).release(fb, s.pnuma_of(b));
    HostScratch& dest = sc.get(s, host);
    Score best = 0;
    out.embedding = dest.best_placement(s, p.vms[b].flavor, best);
    if (out.embedding < 0) return out;
    // The other touched hosts' gain does not depend on b's placement: computed once, and only
    // for a feasible move.
    Score others = 0;
    for (int i = 0; i < sc.n; ++i)
        if (sc.h[i].host() != host) others += sc.h[i].gain(s);
    out.feasible = true;
    out.delta = others + best;
    out.migrations_after = budget.migrations_after(false, true);
    return out;
}

BudgetExchangeDelta BudgetExchangeMove::evaluate(const SearchState& s, MoveCache& cache) const {
    if (a < 0 || b < 0 || a == b || !s.is_migrated(a) || s.is_migrated(b) || !s.migratable(b)) return BudgetExchangeDelta{};
    const int ha = s.host_of(a), home = s.origin_of(a), hb = s.host_of(b), h = host;
    if (h < 0 || h == hb) return BudgetExchangeDelta{};
    if (ha == hb || home == hb || (home == h && ha != home)) return evaluate(s);
    BudgetExchangeDelta out;
    const BudgetUse budget(s, a, b);  // a returns to its snapshot nodes, b migrates
    if (!budget.admits(false, true)) return out;
    const MoveCache::Return& ret = cache.return_home(s, a);
    if (!ret.fits) return out;
    const Score ret_delta = ret.delta;
    if (ha == home) {
        // a is remapped on its snapshot host and moves back to its snapshot nodes there: the
        // cached return is that host's whole change (a quarter of the exchanges evaluated on
        // the 10k-host snapshot). Same sums in the same order as the uncached evaluate(s) above.
        if (h == ha) {  // b takes the room there after a's return
            const MoveCache::Vacated& vac = cache.vacated_insertion(s, a, s.flavor_of(b), true);
            if (vac.embedding < 0) return out;
            out.embedding = vac.embedding;
            out.delta = cache.removal(s, b) + vac.delta;
        } else {
            const Insertion& ins = cache.insertion(s, s.flavor_of(b), h);
            if (ins.embedding < 0) return out;
            out.embedding = ins.embedding;
            out.delta = ret_delta + cache.removal(s, b) + ins.delta;
        }
        out.feasible = true;
        out.migrations_after = budget.migrations_after(false, true);
        return out;
    }
    if (h == ha) {
        // b takes the room a leaves: only a's host is evaluated, on a tentative copy without a
        // (the same choice as HostScratch::best_placement in the uncached evaluate(s): first
        // placement of the largest gain).
        const MoveCache::Vacated& vac = cache.vacated_insertion(s, a, s.flavor_of(b));
        if (vac.embedding < 0) return out;
        const Score best = vac.delta;
        out.embedding = vac.embedding;
        out.feasible = true;
        out.delta = ret_delta + cache.removal(s, b) + best;
        out.migrations_after = budget.migrations_after(false, true);
        return out;
    }
    const Insertion& ins = cache.insertion(s, s.flavor_of(b), h);
    if (ins.embedding < 0) return out;
    out.feasible = true;
    out.embedding = ins.embedding;
    out.delta = cache.removal(s, a) + ret_delta + cache.removal(s, b) + ins.delta;
    out.migrations_after = budget.migrations_after(false, true);
    return out;
}

double BudgetExchangeMove::upper_bound(const SearchState& s, MoveCache& cache) const {
    if (!s.is_migrated(a) || s.is_migrated(b)) return kNoBound;
    const int ha = s.host_of(a), hb = s.host_of(b), home = s.origin_of(a);
    if (ha == hb || host == hb) return kNoBound;
    const bool distinct = ha != home && home != hb;
    if (distinct && host != home && host != ha) return kNoBound;  // exact from the cache anyway
    Score ub = cache.removal(s, a) + cache.removal(s, b);
    if (distinct && host != home) {
        // a's snapshot host changes only by a's return: exactly its cached delta.
        const MoveCache::Return& ret = cache.return_home(s, a);
        if (!ret.fits) return -kNoBound;
        ub += ret.delta;
    }
    if (host != ha && host != home) {
        const Insertion& ins = cache.insertion(s, s.flavor_of(b), host);
        if (ins.embedding < 0) return -kNoBound;
        ub += ins.delta;
    }
    return static_cast<double>(ub);
}

int BudgetExchangeMove::relocations(const SearchState& s, const BudgetExchangeDelta& d, Relocation* out) const {
    out[0] = Relocation{a, s.host_of(a), s.origin_of(a), snapshot_embedding(s.problem(), a).mask};
    out[1] = Relocation{b, s.host_of(b), host, s.model().evaluator(s.type_of(host), s.flavor_of(b)).placements()[d.embedding].mask};
    return 2;
}

bool BudgetExchangeMove::propose(ProposalContext& ctx, BudgetExchangeMove& out) {
    const SearchState& s = ctx.state;
    const int a = ctx.random_migrated(true);
    if (a < 0) return false;
    for (int t = 0; t < 4; ++t) {
        const int b = ctx.random_vm();
        if (b == a || s.is_migrated(b)) continue;
        const int hb = s.host_of(b);
        int h = s.host_of(a);
        const std::uint64_t r = ctx.rng.below(4);
        if (r >= 2 || h == hb) {
            h = r == 2 ? ctx.listed_destination(s.flavor_of(b)) : -1;
            if (h < 0 || h == hb) h = ctx.random_host_except(hb);
        }
        out = BudgetExchangeMove{a, b, h};
        return true;
    }
    return false;
}

void BudgetExchangeMove::apply(SearchState& s, const BudgetExchangeDelta& d) const {
    const Problem& p = s.problem();
    s.move(a, p.vms[a].host, snapshot_embedding(p, a));
    s.move(b, host, s.model().evaluator(p.hosts[host].type, p.vms[b].flavor).placements()[d.embedding]);
}

}  // namespace vmcap
