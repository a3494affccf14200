#include "moves/exchange.h"

#include "moves/host_scratch.h"

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

ExchangeDelta ExchangeMove::evaluate(const SearchState& s) const {
    ExchangeDelta out;
    const Problem& p = s.problem();
    if (a < 0 || b < 0 || a == b || !s.is_migrated(a) || s.is_migrated(b) || !p.vms[b].migratable) return out;
    const int hb = s.host_of(b);
    if (host < 0 || host == hb) return out;
    const Flavor& fa = p.flavors[p.vms[a].flavor];
    const Flavor& fb = p.flavors[p.vms[b].flavor];
    if (!within_budget(p, s.migrations(), s.migrated_ram_mib() - fa.demand[kRamMib] + fb.demand[kRamMib])) return out;

    Scratches sc;
    // Step 1: a back to its snapshot nodes.
    const Vm& va = p.vms[a];
    sc.get(s, s.host_of(a)).release(fa, s.pnuma_of(a));
    HostScratch& home = sc.get(s, va.host);
    if (!home.fits(fa, va.pnuma.data())) return out;
    home.occupy(fa, va.pnuma.data());
    // Step 2: b leaves its host and takes its best placement on `host`.
    sc.get(s, hb).release(fb, s.pnuma_of(b));
    HostScratch& dest = sc.get(s, host);
    double best = 0.0;
    out.embedding = dest.best_placement(s, fb, s.model().evaluator(p.hosts[host].type, p.vms[b].flavor).placements(), best);
    if (out.embedding < 0) return out;
    // The other touched hosts' gain does not depend on b's placement: computed once, and only
    // for a feasible move.
    double others = 0.0;
    for (int i = 0; i < sc.n; ++i)
        if (sc.h[i].host() != host) others += sc.h[i].gain(s);
    out.feasible = true;
    out.delta = others + best;
    out.migrations_after = s.migrations();
    return out;
}

void ExchangeMove::apply(SearchState& s, const ExchangeDelta& d) const {
    const Problem& p = s.problem();
    s.move(a, p.vms[a].host, snapshot_embedding(p, a));
    s.move(b, host, s.model().evaluator(p.hosts[host].type, p.vms[b].flavor).placements()[d.embedding]);
}

}  // namespace vmcap
