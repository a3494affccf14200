#include "moves/swap.h"

#include "moves/host_scratch.h"
#include "moves/move_cache.h"
#include "moves/proposal.h"

namespace vmcap {

namespace {

/** Best placement of one side per (fits before the other VM leaves, migrates) category. */
struct Side {
    int emb[4] = {-1, -1, -1, -1};  ///< index: 2 * fits_before + migrates
    Score value[4] = {0, 0, 0, 0};
};

/** Placements of `vm` on `host` (scratch = host without its swap partner). */
Side best_per_category(const SearchState& s, int vm, const HostScratch& dest) {
    Side out;
    const Problem& p = s.problem();
    const Flavor& fl = p.flavors[s.flavor_of(vm)];
    const int host = dest.host();
    const int R = s.model().num_resources();
    const Amount* cached = s.free_of(host);
    const auto& placements = s.model().evaluator(p.hosts[host].type, s.flavor_of(vm)).placements();
    for (std::size_t e = 0; e < placements.size(); ++e) {
        const Embedding& emb = placements[e];
        if (!dest.fits(fl, emb.map.data())) continue;
        bool before = true;  // room while the partner still occupies its nodes
        for (int i = 0; i < fl.num_vnuma() && before; ++i)
            for (int r = 0; r < R; ++r)
                if (cached[emb.map[i] * R + r] < fl.node_demand[r]) {
                    before = false;
                    break;
                }
        const bool migrates = s.differs_from_origin(vm, host, emb.mask);
        const int c = (before ? 2 : 0) + (migrates ? 1 : 0);
        const Score v = dest.gain(s, &fl, emb.map.data());
        if (out.emb[c] < 0 || v > out.value[c]) {
            out.emb[c] = static_cast<int>(e);
            out.value[c] = v;
        }
    }
    return out;
}

/**
 * The swap under a destination-node rule that fixes nodes: in each execution order each VM gets
 * the one placement the rule assigns — the first to move on its destination as it is now (its
 * partner still there), the second on its destination once the first has left (`A`, `B`: a's and
 * b's hosts without a, b) — and the better order is taken (a first on ties, then fewer migrations).
 */
SwapDelta swap_fixed_nodes(const SwapMove& mv, const SearchState& s, const HostScratch& A, const HostScratch& B) {
    SwapDelta out;
    const Problem& p = s.problem();
    const CapacityModel& m = s.model();
    const int ha = A.host(), hb = B.host(), fa = s.flavor_of(mv.a), fb = s.flavor_of(mv.b);
    const auto& pa = m.evaluator(s.type_of(hb), fa).placements();  // a's placements on b's host
    const auto& pb = m.evaluator(s.type_of(ha), fb).placements();
    const BudgetUse budget(s, mv.a, mv.b);
    for (const bool a_first : {true, false}) {
        const int ea = a_first ? m.node_choice(fa, hb, s.free_of(hb)) : B.rule_choice(s, fa);
        const int eb = a_first ? A.rule_choice(s, fb) : m.node_choice(fb, ha, s.free_of(ha));
        if (ea < 0 || eb < 0) continue;
        const Embedding& xa = pa[static_cast<std::size_t>(ea)];
        const Embedding& xb = pb[static_cast<std::size_t>(eb)];
        if (!B.fits(p.flavors[fa], xa.map.data()) || !A.fits(p.flavors[fb], xb.map.data())) continue;
        const bool ma = s.differs_from_origin(mv.a, hb, xa.mask), mb = s.differs_from_origin(mv.b, ha, xb.mask);
        if (!budget.admits(ma, mb)) continue;
        const std::int64_t mig = budget.migrations_after(ma, mb);
        const Score v = B.gain(s, &p.flavors[fa], xa.map.data()) + A.gain(s, &p.flavors[fb], xb.map.data());
        if (!out.feasible || v > out.delta || (v == out.delta && mig < out.migrations_after)) {
            out.feasible = true;
            out.delta = v;
            out.embedding_a = ea;
            out.embedding_b = eb;
            out.a_first = a_first;
            out.migrations_after = mig;
        }
    }
    return out;
}

}  // namespace

bool SwapMove::budget_admits(const SearchState& s) const {
    return pair_budget_admits(s, a, s.host_of(b), b, s.host_of(a));
}

SwapDelta SwapMove::evaluate(const SearchState& s) const {
    SwapDelta out;
    const Problem& p = s.problem();
    if (a == b || a < 0 || b < 0 || !s.migratable(a) || !s.migratable(b)) return out;
    const int ha = s.host_of(a), hb = s.host_of(b);
    if (ha == hb || !budget_admits(s)) return out;
    const Flavor& fa = p.flavors[s.flavor_of(a)];
    const Flavor& fb = p.flavors[s.flavor_of(b)];
    HostScratch A, B;
    A.load(s, ha);
    A.release(fa, s.pnuma_of(a));
    B.load(s, hb);
    B.release(fb, s.pnuma_of(b));
    if (s.model().fixes_nodes()) [[unlikely]]
        return swap_fixed_nodes(*this, s, A, B);
    const Side sa = best_per_category(s, a, B);
    if (sa.emb[0] < 0 && sa.emb[1] < 0 && sa.emb[2] < 0 && sa.emb[3] < 0) return out;  // a fits nowhere on b's host
    const Side sb = best_per_category(s, b, A);
    const BudgetUse budget(s, a, b);
    // Categories in a fixed order: a-first pairs (a fits before) come first, so ties keep them.
    for (int ca = 3; ca >= 0; --ca) {
        if (sa.emb[ca] < 0) continue;
        for (int cb = 3; cb >= 0; --cb) {
            if (sb.emb[cb] < 0) continue;
            const bool a_before = ca >= 2, b_before = cb >= 2;
            if (!a_before && !b_before) continue;
            const bool ma = ca & 1, mb = cb & 1;
            if (!budget.admits(ma, mb)) continue;
            const std::int64_t mig = budget.migrations_after(ma, mb);
            const Score v = sa.value[ca] + sb.value[cb];
            if (!out.feasible || v > out.delta || (v == out.delta && mig < out.migrations_after)) {
                out.feasible = true;
                out.delta = v;
                out.embedding_a = sa.emb[ca];
                out.embedding_b = sb.emb[cb];
                out.a_first = a_before;
                out.migrations_after = mig;
            }
        }
    }
    return out;
}

double SwapMove::upper_bound(const SearchState& s, MoveCache& cache) const {
    if (s.host_of(a) == s.host_of(b)) return kNoBound;
    if (!budget_admits(s)) return -kNoBound;
    return static_cast<double>(cache.removal(s, a) + cache.removal(s, b));
}

int SwapMove::relocations(const SearchState& s, const SwapDelta& d, Relocation* out) const {
    const int ha = s.host_of(a), hb = s.host_of(b);
    const Relocation ra{a, ha, hb, s.model().evaluator(s.type_of(hb), s.flavor_of(a)).placements()[d.embedding_a].mask};
    const Relocation rb{b, hb, ha, s.model().evaluator(s.type_of(ha), s.flavor_of(b)).placements()[d.embedding_b].mask};
    out[0] = d.a_first ? ra : rb;
    out[1] = d.a_first ? rb : ra;
    return 2;
}

bool SwapMove::propose(ProposalContext& ctx, SwapMove& out) {
    const SearchState& s = ctx.state;
    const int a = ctx.random_vm();
    for (int t = 0; t < 4; ++t) {
        const int b = ctx.random_vm();
        if (s.host_of(b) != s.host_of(a) && s.flavor_of(b) != s.flavor_of(a)) {
            out = SwapMove{a, b};
            return true;
        }
    }
    return false;
}

void SwapMove::apply(SearchState& s, const SwapDelta& d) const {
    const Problem& p = s.problem();
    const int ha = s.host_of(a), hb = s.host_of(b);
    const Embedding& ea = s.model().evaluator(p.hosts[hb].type, s.flavor_of(a)).placements()[d.embedding_a];
    const Embedding& eb = s.model().evaluator(p.hosts[ha].type, s.flavor_of(b)).placements()[d.embedding_b];
    if (d.a_first) {
        s.move(a, hb, ea);
        s.move(b, ha, eb);
    } else {
        s.move(b, ha, eb);
        s.move(a, hb, ea);
    }
}

}  // namespace vmcap
