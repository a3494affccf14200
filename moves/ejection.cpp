#include "moves/ejection.h"

#include "moves/host_scratch.h"
#include "moves/move_cache.h"
#include "moves/proposal.h"

namespace vmcap {

namespace {

/** Best placement per "migrates" flag (index 0: lands on its snapshot placement, 1: migrates). */
struct Best {
    int emb[2] = {-1, -1};
    Score value[2] = {0, 0};
    void offer(bool migrates, int e, Score v) {
        const int c = migrates ? 1 : 0;
        if (emb[c] < 0 || v > value[c]) {
            emb[c] = e;
            value[c] = v;
        }
    }
};

/** Step 1 evaluated on tentative host copies: b's best placements on `host` (per migrates flag)
 *  and a's source part. */
void step1(const EjectionMove& mv, const SearchState& s, int ha, const Flavor& fa, const Flavor& fb, Score& a_source, Best& bb) {
    const Problem& p = s.problem();
    const int a = mv.a, b = mv.b, host = mv.host;
    // Step 1: b's placements on `host` as it is now (a still there if host == ha). a's own host
    // loses a either way; when it is also b's destination, b's value includes a's departure.
    HostScratch S3, Sa;
    S3.load(s, host);
    if (host == ha) {
        Sa = S3;
        Sa.release(fa, s.pnuma_of(a));
    } else {
        Sa.load(s, ha);
        Sa.release(fa, s.pnuma_of(a));
        a_source = Sa.gain(s);
    }
    const auto& pb = s.model().evaluator(p.hosts[host].type, s.flavor_of(b)).placements();
    const int only = S3.rule_choice(s, s.flavor_of(b));  // the destination-node rule, b arriving first
    for (std::size_t e = 0; e < pb.size(); ++e) {
        if (only != kAnyPlacement && static_cast<int>(e) != only) continue;
        const Embedding& emb = pb[e];
        if (!S3.fits(fb, emb.map.data())) continue;
        const Score v = host == ha ? Sa.gain(s, &fb, emb.map.data()) : S3.gain(s, &fb, emb.map.data());
        bb.offer(s.differs_from_origin(b, host, emb.mask), static_cast<int>(e), v);
    }
}

EjectionDelta evaluate_ejection(const EjectionMove& mv, const SearchState& s, MoveCache* cache) {
    const int a = mv.a, b = mv.b, host = mv.host;
    EjectionDelta out;
    const Problem& p = s.problem();
    if (a < 0 || b < 0 || a == b || !s.migratable(a) || !s.migratable(b)) return out;
    const int ha = s.host_of(a), h2 = s.host_of(b);
    if (ha == h2 || host < 0 || host == h2 || !mv.budget_admits(s)) return out;
    const Flavor& fa = p.flavors[s.flavor_of(a)];
    const Flavor& fb = p.flavors[s.flavor_of(b)];

    // Step 2's host: b's host without b; a's placements there.
    HostScratch S2;
    S2.load(s, h2);
    S2.release(fb, s.pnuma_of(b));
    Best ba;
    const auto& pa = s.model().evaluator(p.hosts[h2].type, s.flavor_of(a)).placements();
    const int only = S2.rule_choice(s, s.flavor_of(a));  // the destination-node rule, a arriving once b has left
    for (std::size_t e = 0; e < pa.size(); ++e) {
        if (only != kAnyPlacement && static_cast<int>(e) != only) continue;
        const Embedding& emb = pa[e];
        if (!S2.fits(fa, emb.map.data())) continue;
        ba.offer(s.differs_from_origin(a, h2, emb.mask), static_cast<int>(e), S2.gain(s, &fa, emb.map.data()));
    }
    if (ba.emb[0] < 0 && ba.emb[1] < 0) return out;

    // Step 1 from the cache when `host` is neither a's host nor b's snapshot host: then a's
    // source part is its removal delta and every placement of b there migrates, its best being
    // the cached best insertion (same tie-break: first of the largest gain).
    Best bb;
    Score a_source = 0;
    if (cache != nullptr && host != ha && host != s.origin_of(b)) {
        a_source = cache->removal(s, a);
        const Insertion& ins = cache->insertion(s, s.flavor_of(b), host);
        if (ins.embedding >= 0) bb.offer(true, ins.embedding, ins.delta);
    } else {
        step1(mv, s, ha, fa, fb, a_source, bb);
    }

    const BudgetUse budget(s, a, b);
    for (int ma = 0; ma < 2; ++ma) {
        if (ba.emb[ma] < 0) continue;
        for (int mb = 0; mb < 2; ++mb) {
            if (bb.emb[mb] < 0) continue;
            if (!budget.admits(ma, mb)) continue;
            const std::int64_t mig = budget.migrations_after(ma, mb);
            const Score v = a_source + ba.value[ma] + bb.value[mb];
            if (!out.feasible || v > out.delta || (v == out.delta && mig < out.migrations_after)) {
                out.feasible = true;
                out.delta = v;
                out.embedding_a = ba.emb[ma];
                out.embedding_b = bb.emb[mb];
                out.migrations_after = mig;
            }
        }
    }
    return out;
}

}  // namespace

bool EjectionMove::budget_admits(const SearchState& s) const {
    return pair_budget_admits(s, a, s.host_of(b), b, host);
}

EjectionDelta EjectionMove::evaluate(const SearchState& s) const {
    return evaluate_ejection(*this, s, nullptr);
}

EjectionDelta EjectionMove::evaluate(const SearchState& s, MoveCache& cache) const {
    return evaluate_ejection(*this, s, &cache);
}

double EjectionMove::upper_bound(const SearchState& s, MoveCache& cache) const {
    const int ha = s.host_of(a), hb = s.host_of(b);
    if (ha == hb || host == hb) return kNoBound;
    if (!budget_admits(s)) return -kNoBound;
    Score ub = cache.removal(s, a) + cache.removal(s, b);
    if (host != ha) {
        const Insertion& ins = cache.insertion(s, s.flavor_of(b), host);
        if (ins.embedding < 0) return -kNoBound;
        ub += ins.delta;
    }
    return static_cast<double>(ub);
}

int EjectionMove::relocations(const SearchState& s, const EjectionDelta& d, Relocation* out) const {
    const int h2 = s.host_of(b);
    out[0] = Relocation{b, h2, host, s.model().evaluator(s.type_of(host), s.flavor_of(b)).placements()[d.embedding_b].mask};
    out[1] = Relocation{a, s.host_of(a), h2, s.model().evaluator(s.type_of(h2), s.flavor_of(a)).placements()[d.embedding_a].mask};
    return 2;
}

bool EjectionMove::propose(ProposalContext& ctx, EjectionMove& out) {
    const SearchState& s = ctx.state;
    const int a = ctx.random_vm();
    for (int t = 0; t < 4; ++t) {
        const int b = ctx.random_vm();
        const int hb = s.host_of(b);
        if (hb == s.host_of(a)) continue;
        out = EjectionMove{a, b, ctx.random_host_except(hb)};
        return true;
    }
    return false;
}

void EjectionMove::apply(SearchState& s, const EjectionDelta& d) const {
    const Problem& p = s.problem();
    const int h2 = s.host_of(b);
    s.move(b, host, s.model().evaluator(p.hosts[host].type, s.flavor_of(b)).placements()[d.embedding_b]);
    s.move(a, h2, s.model().evaluator(p.hosts[h2].type, s.flavor_of(a)).placements()[d.embedding_a]);
}

}  // namespace vmcap
