#include "moves/gather.h"

#include "moves/host_scratch.h"
#include "moves/move_cache.h"
#include "moves/proposal.h"

namespace vmcap {

namespace {

/** Tentative copies of the (at most four) distinct hosts a gather touches. */
struct Touched {
    HostScratch t[4];
    int n = 0;
    HostScratch& at(const SearchState& s, int host) {
        for (int i = 0; i < n; ++i)
            if (t[i].host() == host) return t[i];
        t[n].load(s, host);
        return t[n++];
    }
    /** Sum of gain() over the touched hosts other than `skip1` and `skip2`. */
    Score gain_except(const SearchState& s, int skip1, int skip2) const {
        Score g = 0;
        for (int i = 0; i < n; ++i)
            if (t[i].host() != skip1 && t[i].host() != skip2) g += t[i].gain(s);
        return g;
    }
};

/** Best placement pair of one execution order per (first migrates, second migrates) category. */
struct Categories {
    int e1[2][2] = {{-1, -1}, {-1, -1}};
    int e2[2][2] = {{-1, -1}, {-1, -1}};
    Score v[2][2] = {{0, 0}, {0, 0}};
    void offer(bool m1, bool m2, int a, int b, Score value) {
        if (e1[m1][m2] < 0 || value > v[m1][m2]) {
            e1[m1][m2] = a;
            e2[m1][m2] = b;
            v[m1][m2] = value;
        }
    }
};

/**
 * VM x to host dx, then VM y to host dy (dx != x's host, dy != y's host): the best placement
 * pair per migrates category, each placement with room on the state the previous step leaves.
 * (Written for any dx, dy, also dx == y's host, where y still occupies dx at step 1.)
 */
Categories one_order(const SearchState& s, int x, int dx, int y, int dy) {
    Categories out;
    const Problem& p = s.problem();
    const int hx = s.host_of(x), hy = s.host_of(y);
    const Flavor& fx = p.flavors[s.flavor_of(x)];
    const Flavor& fy = p.flavors[s.flavor_of(y)];
    const auto& px = s.model().evaluator(s.type_of(dx), s.flavor_of(x)).placements();
    const auto& py = s.model().evaluator(s.type_of(dy), s.flavor_of(y)).placements();
    Touched T;
    T.at(s, hx).release(fx, s.pnuma_of(x));
    // Step 1: x's room on dx while y is still on its host (which may be dx): a copy of that state.
    const HostScratch step1 = T.at(s, dx);
    T.at(s, dy);
    T.at(s, hy).release(fy, s.pnuma_of(y));
    if (dx != dy) {
        // Independent destinations: dx's final state depends only on x's placement (y has left
        // it if it was there), dy's only on y's (x has left it if it was there).
        const HostScratch& DX = T.at(s, dx);
        const HostScratch& DY = T.at(s, dy);
        const Score rest = T.gain_except(s, dx, dy);
        int bx[2] = {-1, -1}, by[2] = {-1, -1};
        Score vx[2] = {0, 0}, vy[2] = {0, 0};
        // The destination-node rule: x's nodes on dx as step 1 finds it, y's on dy as step 2 does.
        const int only_x = step1.rule_choice(s, s.flavor_of(x)), only_y = DY.rule_choice(s, s.flavor_of(y));
        for (std::size_t e = 0; e < px.size(); ++e) {
            if ((only_x != kAnyPlacement && static_cast<int>(e) != only_x) || !step1.fits(fx, px[e].map.data())) continue;
            const Score g = DX.gain(s, &fx, px[e].map.data());
            const int m = s.differs_from_origin(x, dx, px[e].mask) ? 1 : 0;
            if (bx[m] < 0 || g > vx[m]) bx[m] = static_cast<int>(e), vx[m] = g;
        }
        for (std::size_t e = 0; e < py.size(); ++e) {
            if ((only_y != kAnyPlacement && static_cast<int>(e) != only_y) || !DY.fits(fy, py[e].map.data())) continue;
            const Score g = DY.gain(s, &fy, py[e].map.data());
            const int m = s.differs_from_origin(y, dy, py[e].mask) ? 1 : 0;
            if (by[m] < 0 || g > vy[m]) by[m] = static_cast<int>(e), vy[m] = g;
        }
        for (int m1 = 0; m1 < 2; ++m1)
            for (int m2 = 0; m2 < 2; ++m2)
                if (bx[m1] >= 0 && by[m2] >= 0) out.offer(m1, m2, bx[m1], by[m2], rest + vx[m1] + vy[m2]);
        return out;
    }
    // One destination d (neither VM's source): y's room on d depends on x's placement there.
    const Score rest = T.gain_except(s, dx, dx);
    const HostScratch& D = T.at(s, dx);
    const int only_x = step1.rule_choice(s, s.flavor_of(x));  // the destination-node rule, as above
    for (std::size_t e = 0; e < px.size(); ++e) {
        if ((only_x != kAnyPlacement && static_cast<int>(e) != only_x) || !step1.fits(fx, px[e].map.data())) continue;
        HostScratch U = D;
        U.occupy(fx, px[e].map.data());
        const int m1 = s.differs_from_origin(x, dx, px[e].mask) ? 1 : 0;
        const int only_y = U.rule_choice(s, s.flavor_of(y));
        for (std::size_t f = 0; f < py.size(); ++f) {
            if ((only_y != kAnyPlacement && static_cast<int>(f) != only_y) || !U.fits(fy, py[f].map.data())) continue;
            const int m2 = s.differs_from_origin(y, dy, py[f].mask) ? 1 : 0;
            out.offer(m1, m2, static_cast<int>(e), static_cast<int>(f), rest + U.gain(s, &fy, py[f].map.data()));
        }
    }
    return out;
}

}  // namespace

bool GatherMove::budget_admits(const SearchState& s) const {
    return pair_budget_admits(s, a, host_a, b, host_b);
}

GatherDelta GatherMove::evaluate(const SearchState& s) const {
    GatherDelta out;
    if (a < 0 || b < 0 || a == b || !s.migratable(a) || !s.migratable(b)) return out;
    const int ha = s.host_of(a), hb = s.host_of(b);
    if (host_a < 0 || host_b < 0 || host_a == ha || host_a == hb || host_b == hb || !budget_admits(s)) return out;
    const BudgetUse budget(s, a, b);
    const Categories c = one_order(s, a, host_a, b, host_b);
    for (int ma = 0; ma < 2; ++ma)
        for (int mb = 0; mb < 2; ++mb) {
            if (c.e1[ma][mb] < 0) continue;
            if (!budget.admits(ma, mb)) continue;
            const std::int64_t mig = budget.migrations_after(ma, mb);
            const Score v = c.v[ma][mb];
            if (!out.feasible || v > out.delta || (v == out.delta && mig < out.migrations_after)) {
                out.feasible = true;
                out.delta = v;
                out.migrations_after = mig;
                out.embedding_a = c.e1[ma][mb];
                out.embedding_b = c.e2[ma][mb];
            }
        }
    return out;
}

double GatherMove::upper_bound(const SearchState& s, MoveCache& cache) const {
    if (s.host_of(a) == s.host_of(b)) return kNoBound;
    if (!budget_admits(s)) return -kNoBound;
    return static_cast<double>(cache.removal(s, a) + cache.removal(s, b));
}

int GatherMove::relocations(const SearchState& s, const GatherDelta& d, Relocation* out) const {
    out[0] = Relocation{a, s.host_of(a), host_a, s.model().evaluator(s.type_of(host_a), s.flavor_of(a)).placements()[d.embedding_a].mask};
    out[1] = Relocation{b, s.host_of(b), host_b, s.model().evaluator(s.type_of(host_b), s.flavor_of(b)).placements()[d.embedding_b].mask};
    return 2;
}

void GatherMove::apply(SearchState& s, const GatherDelta& d) const {
    s.move(a, host_a, s.model().evaluator(s.type_of(host_a), s.flavor_of(a)).placements()[d.embedding_a]);
    s.move(b, host_b, s.model().evaluator(s.type_of(host_b), s.flavor_of(b)).placements()[d.embedding_b]);
}

bool GatherMove::propose(ProposalContext& ctx, GatherMove& out) {
    const SearchState& s = ctx.state;
    const VlinkIndex* vi = s.model().vlink_index();
    if (vi == nullptr) return false;  // no vlinks (hence no draw: trajectories as without this kind)
    const Problem& p = s.problem();
    Rng& rng = ctx.rng;
    int a = -1;
    for (int t = 0; t < 4 && a < 0; ++t) {
        const int v = ctx.random_vm();
        if (vi->mbps_of(v) > 0) a = v;
    }
    if (a < 0) return false;
    const int b = draw_peer(*vi, a, rng);
    if (!s.migratable(b)) return false;
    int anchor;
    if (rng.below(2) == 0) {
        const int c = rng.below(2) == 0 ? a : b;
        anchor = s.host_of(draw_peer(*vi, c, rng));  // vi->mbps_of(c) > 0: c has the vlink a-b
    } else if (const int f = s.flavor_of(a); ctx.has_destinations(f) && rng.below(2) == 0) {
        anchor = ctx.listed_destination(f);
    } else {
        anchor = static_cast<int>(rng.below(p.hosts.size()));
    }
    auto in_rack = [&](int h) {
        const auto rack = vi->hosts_on(p.network.host_switch[h]);
        return rack[rng.below(rack.size())];
    };
    const int ha = rng.below(2) == 0 ? anchor : in_rack(anchor);
    const int hb = rng.below(2) == 0 ? ha : in_rack(ha);
    if (ha == s.host_of(a) || ha == s.host_of(b) || hb == s.host_of(b)) return false;
    out = GatherMove{a, b, ha, hb};
    return true;
}

}  // namespace vmcap
