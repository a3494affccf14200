#include "evaluators/rules/link_filter.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "evaluators/state/search_state.h"

namespace vmcap {

namespace {

/** Loads per arc of a state (micro-units), and a lower bound on the smallest allowance (how
 *  much more any arc may carry: max(capacity, snapshot load) - load) in whole Mbps, for the fast
 *  path. */
struct LinkLoads final : StateAggregates {
    std::vector<std::int64_t> load;
    std::int64_t min_allowance = 0;  ///< Mbps, <= the true minimum; exact after refresh(), lowered by on_move
    int moves_since_refresh = 0;
    std::unique_ptr<StateAggregates> clone() const override { return std::make_unique<LinkLoads>(*this); }
};

/** Per-thread sparse accumulator of load changes: admits() is const and runs on every worker. */
struct Scratch {
    std::vector<std::int64_t> delta;
    std::vector<int> touched;
};

/** floor(x / d) for d > 0. */
std::int64_t floor_div(std::int64_t x, std::int64_t d) {
    return x >= 0 ? x / d : -((-x + d - 1) / d);
}

std::vector<int> hosts_of(const SearchState& s) {
    std::vector<int> h(s.problem().vms.size());
    for (std::size_t v = 0; v < h.size(); ++v) h[v] = s.host_of(static_cast<int>(v));
    return h;
}

}  // namespace

LinkCapacityFilter::LinkCapacityFilter(const Problem& p, std::shared_ptr<const NetworkRoutes> routes,
                                       std::shared_ptr<const VlinkIndex> vlinks)
    : problem_(p),
      routes_(routes ? std::move(routes) : std::make_shared<const NetworkRoutes>(p)),
      vlinks_(vlinks ? std::move(vlinks) : std::make_shared<const VlinkIndex>(p)) {
    std::vector<int> host(p.vms.size());
    for (std::size_t v = 0; v < host.size(); ++v) host[v] = p.vms[v].host;
    snapshot_loads_ = link_loads(p, *routes_, host);
}

std::int64_t LinkCapacityFilter::allowance_now(const SearchState& s, int arc) const {
    return allowance(arc, static_cast<const LinkLoads*>(s.aggregates(*this))->load[static_cast<std::size_t>(arc)]);
}

bool LinkCapacityFilter::admits(const SearchState& s, std::span<const Relocation> moves) const {
    const auto* agg = static_cast<const LinkLoads*>(s.aggregates(*this));
    // Fast path: a relocation raises any one arc by at most its VM's whole vlink bandwidth (one
    // flow of each vlink crosses an arc), so a move whose VMs' bandwidth fits the smallest
    // allowance anywhere is admitted without routing.
    std::int64_t most = 0;
    for (const Relocation& r : moves) most += vlinks_->mbps_of(r.vm);
    if (most <= agg->min_allowance) return true;
    thread_local Scratch sc;
    if (sc.delta.size() < static_cast<std::size_t>(routes_->num_links())) sc.delta.resize(routes_->num_links(), 0);
    // Host of VM v once the relocations before index i have run.
    auto host_now = [&](int v, std::size_t i) { return host_after(s.host_of(v), moves, v, i); };
    auto add = [&](int hx, int hy, std::int64_t mbps, int sign) {
        if (hx == kUnplaced || hy == kUnplaced) return;  // an arriving or departing end: no flow
        routes_->for_each_share(hx, hy, [&](int link, std::int64_t units) {
            if (sc.delta[link] == 0) sc.touched.push_back(link);
            sc.delta[link] += sign * mbps * units;
        });
    };
    for (std::size_t i = 0; i < moves.size(); ++i) {
        const Relocation& r = moves[i];
        const int from = host_now(r.vm, i);
        if (from == r.to_host) continue;  // a remap: no vlink changes its route
        const auto peers = vlinks_->peers_of(r.vm);
        const auto mbps = vlinks_->mbps_each(r.vm);
        for (std::size_t k = 0; k < peers.size(); ++k) {
            const int q = peers[k];
            const int hp = host_now(q >= 0 ? q : ~q, i);
            add(from, hp, mbps[k], -1);  // both flows: which end is first does not matter
            add(r.to_host, hp, mbps[k], +1);
        }
    }
    bool ok = true;
    for (int link : sc.touched) {
        const std::int64_t d = sc.delta[link];
        if (d > 0 && ok) ok = allowed(link, agg->load[link] + d);
        sc.delta[link] = 0;
    }
    sc.touched.clear();
    return ok;
}

std::int64_t LinkCapacityFilter::allowance(int link, std::int64_t load) const {
    return std::max(routes_->capacity(link), snapshot_loads_[link]) - load;
}

namespace {
void refresh(LinkLoads& agg, const LinkCapacityFilter& f) {
    agg.min_allowance = std::numeric_limits<std::int64_t>::max();
    for (int l = 0; l < f.routes().num_links(); ++l)
        agg.min_allowance = std::min(agg.min_allowance, floor_div(f.allowance(l, agg.load[l]), f.routes().scale(l)));
    agg.moves_since_refresh = 0;
}
}  // namespace

std::unique_ptr<StateAggregates> LinkCapacityFilter::make_aggregates(const SearchState& s) const {
    auto agg = std::make_unique<LinkLoads>();
    agg->load = link_loads(problem_, *routes_, hosts_of(s));
    refresh(*agg, *this);
    return agg;
}

void LinkCapacityFilter::on_move(StateAggregates& agg, const SearchState& s, const Relocation& r) const {
    auto& a = static_cast<LinkLoads&>(agg);
    if (r.from_host == r.to_host) return;
    const auto peers = vlinks_->peers_of(r.vm);
    const auto mbps = vlinks_->mbps_each(r.vm);
    // The peers' hosts first, their records prefetched together: their memory misses overlap
    // instead of following one another (a VM's vlinks reach VMs anywhere in the cluster).
    thread_local std::vector<int> hosts;
    hosts.resize(peers.size());
    for (int q : peers) s.prefetch_vm(q >= 0 ? q : ~q);
    for (std::size_t k = 0; k < peers.size(); ++k) hosts[k] = s.host_of(peers[k] >= 0 ? peers[k] : ~peers[k]);
    auto raise = [&](int link, std::int64_t units, std::int64_t mb) {
        a.load[link] += mb * units;
        // The links this vlink loads now may have less allowance: keep the bound below it.
        a.min_allowance = std::min(a.min_allowance, floor_div(allowance(link, a.load[link]), routes_->scale(link)));
    };
    const bool arrival_or_departure = r.from_host == kUnplaced || r.to_host == kUnplaced;
    for (std::size_t k = 0; k < peers.size(); ++k) {
        const std::int64_t mb = mbps[k];
        if (hosts[k] == kUnplaced) continue;  // the peer is on no host: the vlink carries nothing
        if (arrival_or_departure) {           // the vlink's flows start or end
            if (r.from_host != kUnplaced)
                routes_->for_each_share(r.from_host, hosts[k], [&](int link, std::int64_t units) { a.load[link] -= mb * units; });
            if (r.to_host != kUnplaced)
                routes_->for_each_share(r.to_host, hosts[k], [&](int link, std::int64_t units) { raise(link, units, mb); });
            continue;
        }
        // The net change of the vlink's two flows (the peer's uplink and shared up-path cancel).
        routes_->for_each_move(r.from_host, r.to_host, hosts[k], [&](int link, std::int64_t units) {
            if (units < 0)
                a.load[link] += mb * units;
            else
                raise(link, units, mb);
        });
    }
    // Loads that fell leave the bound low (safe, but the fast path fires less): tighten it now and then.
    if (++a.moves_since_refresh >= 4096) refresh(a, *this);
}

std::string LinkCapacityFilter::check_aggregates(const StateAggregates& cached, const SearchState& s) const {
    const auto& load = static_cast<const LinkLoads&>(cached).load;
    const auto fresh = link_loads(problem_, *routes_, hosts_of(s));
    for (int l = 0; l < routes_->num_links(); ++l)
        if (load[l] != fresh[l])
            return routes_->link_name(l) + " load: cached " + std::to_string(load[l]) + ", recomputed " + std::to_string(fresh[l]) +
                   " (1/" + std::to_string(routes_->scale(l)) + " Mbps)";
    return "";
}

std::string LinkCapacityFilter::violation(const Problem& p, const PlacementView& placement) const {
    const auto load = link_loads(p, *routes_, placement.host);
    for (int l = 0; l < routes_->num_links(); ++l)
        if (!allowed(l, load[l])) {
            const double scale = static_cast<double>(routes_->scale(l));
            char buf[160];
            std::snprintf(buf, sizeof buf, " carries %.3f Mbps, above its capacity of %.0f Mbps", static_cast<double>(load[l]) / scale,
                          static_cast<double>(routes_->capacity(l)) / scale);
            std::string why = routes_->link_name(l) + buf;
            if (snapshot_loads_[l] > routes_->capacity(l)) why += " and above its snapshot load";
            return why;
        }
    return "";
}

}  // namespace vmcap
