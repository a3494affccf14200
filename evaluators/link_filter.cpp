#include "evaluators/link_filter.h"

#include <cstdio>

#include "evaluators/search_state.h"

namespace vmcap {

namespace {

/** Loads per link of a state (micro-units). */
struct LinkLoads final : TermAggregates {
    std::vector<std::int64_t> load;
    std::unique_ptr<TermAggregates> clone() const override { return std::make_unique<LinkLoads>(*this); }
};

/** Per-thread sparse accumulator of load changes: admits() is const and runs on every worker. */
struct Scratch {
    std::vector<std::int64_t> delta;
    std::vector<int> touched;
};

std::vector<int> hosts_of(const SearchState& s) {
    std::vector<int> h(s.problem().vms.size());
    for (std::size_t v = 0; v < h.size(); ++v) h[v] = s.host_of(static_cast<int>(v));
    return h;
}

}  // namespace

LinkCapacityFilter::LinkCapacityFilter(const Problem& p) : problem_(p), routes_(p), vlinks_of_(p.vms.size()) {
    for (std::size_t e = 0; e < p.vlinks.size(); ++e) {
        vlinks_of_[p.vlinks[e].a].push_back(static_cast<int>(e));
        vlinks_of_[p.vlinks[e].b].push_back(static_cast<int>(e));
    }
    std::vector<int> host(p.vms.size());
    for (std::size_t v = 0; v < host.size(); ++v) host[v] = p.vms[v].host;
    snapshot_loads_ = link_loads(p, routes_, host);
}

bool LinkCapacityFilter::admits(const SearchState& s, std::span<const Relocation> moves) const {
    thread_local Scratch sc;
    if (sc.delta.size() < static_cast<std::size_t>(routes_.num_links())) sc.delta.resize(routes_.num_links(), 0);
    // Host of VM v once the relocations before index i have run.
    auto host_now = [&](int v, std::size_t i) {
        int h = s.host_of(v);
        for (std::size_t j = 0; j < i; ++j)
            if (moves[j].vm == v) h = moves[j].to_host;
        return h;
    };
    auto add = [&](int hx, int hy, std::int64_t mbps, int sign) {
        routes_.for_each_share(hx, hy, [&](int link, std::int64_t units) {
            if (sc.delta[link] == 0) sc.touched.push_back(link);
            sc.delta[link] += sign * mbps * units;
        });
    };
    for (std::size_t i = 0; i < moves.size(); ++i) {
        const Relocation& r = moves[i];
        const int from = host_now(r.vm, i);
        if (from == r.to_host) continue;  // a remap: no vlink changes its route
        for (int e : vlinks_of_[r.vm]) {
            const Vlink& v = problem_.vlinks[e];
            const int ha = host_now(v.a, i), hb = host_now(v.b, i);
            add(ha, hb, v.mbps, -1);
            add(v.a == r.vm ? r.to_host : ha, v.b == r.vm ? r.to_host : hb, v.mbps, +1);
        }
    }
    const auto* agg = static_cast<const LinkLoads*>(s.filter_aggregates(*this));
    bool ok = true;
    for (int link : sc.touched) {
        const std::int64_t d = sc.delta[link];
        if (d > 0 && ok) ok = allowed(link, agg->load[link] + d);
        sc.delta[link] = 0;
    }
    sc.touched.clear();
    return ok;
}

std::unique_ptr<TermAggregates> LinkCapacityFilter::make_aggregates(const SearchState& s) const {
    auto agg = std::make_unique<LinkLoads>();
    agg->load = link_loads(problem_, routes_, hosts_of(s));
    return agg;
}

void LinkCapacityFilter::on_move(TermAggregates& agg, const SearchState& s, const Relocation& r) const {
    auto& load = static_cast<LinkLoads&>(agg).load;
    if (r.from_host == r.to_host) return;
    for (int e : vlinks_of_[r.vm]) {
        const Vlink& v = problem_.vlinks[e];
        const int ha = s.host_of(v.a), hb = s.host_of(v.b);
        routes_.add_vlink(load, ha, hb, v.mbps, -1);
        routes_.add_vlink(load, v.a == r.vm ? r.to_host : ha, v.b == r.vm ? r.to_host : hb, v.mbps, +1);
    }
}

std::string LinkCapacityFilter::check_aggregates(const TermAggregates& cached, const SearchState& s) const {
    const auto& load = static_cast<const LinkLoads&>(cached).load;
    const auto fresh = link_loads(problem_, routes_, hosts_of(s));
    for (int l = 0; l < routes_.num_links(); ++l)
        if (load[l] != fresh[l])
            return routes_.link_name(l) + " load: cached " + std::to_string(load[l]) + ", recomputed " + std::to_string(fresh[l]) + " (1/" +
                   std::to_string(routes_.scale()) + " Mbps)";
    return "";
}

std::string LinkCapacityFilter::violation(const Problem& p, const PlacementView& placement) const {
    const auto load = link_loads(p, routes_, placement.host);
    const double scale = static_cast<double>(routes_.scale());
    for (int l = 0; l < routes_.num_links(); ++l)
        if (!allowed(l, load[l])) {
            char buf[160];
            std::snprintf(buf, sizeof buf, " carries %.3f Mbps, above its capacity of %.0f Mbps", static_cast<double>(load[l]) / scale,
                          static_cast<double>(routes_.capacity(l)) / scale);
            std::string why = routes_.link_name(l) + buf;
            if (snapshot_loads_[l] > routes_.capacity(l)) why += " and above its snapshot load";
            return why;
        }
    return "";
}

}  // namespace vmcap
