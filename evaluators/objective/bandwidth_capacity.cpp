#include "evaluators/objective/bandwidth_capacity.h"

#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <map>
#include <stdexcept>

#include "evaluators/state/capacity_model.h"
#include "evaluators/state/search_state.h"

namespace vmcap {

/** Per-state values of the rule, [entity * Tb + jb] for the Tb targets with a bandwidth. */
struct BandwidthCapacityTerm::Aggregates final : StateAggregates {
    std::vector<std::int64_t> load;  ///< [link] micro-units
    std::vector<Count> vmcap;        ///< [host] VMCAP
    std::vector<Count> host;         ///< [host] c_h
    std::vector<Count> rack_sum;     ///< [rack] sum of c_h
    std::vector<Count> rack;         ///< [rack] R_r
    std::vector<Count> pod_sum;      ///< [pod] sum of R_r
    std::vector<Count> pod;          ///< [pod] P_p
    std::unique_ptr<StateAggregates> clone() const override { return std::make_unique<Aggregates>(*this); }
};

namespace {

constexpr Count kNoCap = std::numeric_limits<Count>::max();

/** One host's free amounts while a move's relocations are simulated. */
struct LocalHost {
    int host = -1;
    std::array<Amount, kMaxPNuma * kMaxResources> free{};
};

Count floor_div(Wide num, Wide den) {
    return num <= 0 ? 0 : static_cast<Count>(num / den);
}

}  // namespace

/** Per-thread dense accumulators of evaluate(), cleaned after every use (delta() is const and runs
 *  on every worker). Its members are small and inline: they run on every evaluation. */
struct BandwidthCapacityTerm::Scratch {
    std::vector<std::int64_t> dload;  ///< [link]
    std::vector<int> links;           ///< touched links
    std::vector<int> host_slot, rack_slot, pod_slot;
    std::vector<int> hosts, racks, pods;
    std::vector<Count> host_new_vmcap;  ///< [slot * Tb + jb], moved hosts only
    std::vector<char> host_moved;       ///< [slot]
    std::vector<Count> rack_dsum, pod_dsum;
    std::vector<Count> d_capped, d_vmcap;  ///< [jb]
    std::vector<LocalHost> local;

    void fit(std::size_t L, std::size_t H, std::size_t R, std::size_t P) {
        if (dload.size() < L) dload.resize(L, 0);
        if (host_slot.size() < H) host_slot.resize(H, -1);
        if (rack_slot.size() < R) rack_slot.resize(R, -1);
        if (pod_slot.size() < P) pod_slot.resize(P, -1);
    }
    /** Host h's slot in hosts / host_moved, given on its first touch (not moved). */
    int touch_host(int h) {
        if (host_slot[h] >= 0) return host_slot[h];
        host_slot[h] = static_cast<int>(hosts.size());
        hosts.push_back(h);
        host_moved.push_back(0);
        return host_slot[h];
    }
    /** Rack r's slot in racks, and its Tb sums in rack_dsum (0 on its first touch). */
    int touch_rack(int r, std::size_t Tb) {
        if (rack_slot[r] < 0) {
            rack_slot[r] = static_cast<int>(racks.size());
            racks.push_back(r);
            rack_dsum.insert(rack_dsum.end(), Tb, 0);
        }
        return rack_slot[r];
    }
    /** Pod q's slot in pods, and its Tb sums in pod_dsum (0 on its first touch). */
    int touch_pod(int q, std::size_t Tb) {
        if (pod_slot[q] < 0) {
            pod_slot[q] = static_cast<int>(pods.size());
            pods.push_back(q);
            pod_dsum.insert(pod_dsum.end(), Tb, 0);
        }
        return pod_slot[q];
    }
    /** Host h's free amounts while the move is simulated: copied from state `s` (R resources per
     *  node) on its first touch. */
    LocalHost& local_of(int h, const SearchState& s, int R) {
        for (LocalHost& l : local)
            if (l.host == h) return l;
        LocalHost& l = local.emplace_back();
        l.host = h;
        const Amount* f = s.free_of(h);
        std::copy(f, f + s.nodes_of(h) * R, l.free.begin());
        return l;
    }
    /** Zeroes what one evaluation touched, ready for the next; with `commit`, adds the load
     *  changes to its loads first. */
    void clean(Aggregates* commit) {
        for (int l : links) {
            if (commit) commit->load[l] += dload[l];
            dload[l] = 0;
        }
        links.clear();
        for (int h : hosts) host_slot[h] = -1;
        for (int r : racks) rack_slot[r] = -1;
        for (int q : pods) pod_slot[q] = -1;
        hosts.clear();
        host_moved.clear();
        racks.clear();
        pods.clear();
        rack_dsum.clear();
        pod_dsum.clear();
    }
};

bool BandwidthCapacityTerm::applies(const Problem& p) {
    if (!p.network.present()) return false;
    return std::any_of(p.flavors.begin(), p.flavors.end(), [](const Flavor& f) { return f.is_target() && f.bandwidth_mbps > 0; });
}

BandwidthCapacityTerm::BandwidthCapacityTerm(const CapacityModel& model, std::shared_ptr<const NetworkRoutes> routes)
    : model_(model), problem_(model.problem()), routes_(std::move(routes)), vlinks_of_(problem_.vms.size()) {
    const Problem& p = problem_;
    if (!p.network.present() || !routes_) throw std::invalid_argument("bandwidth-capacity: the snapshot has no network section");
    for (int j = 0; j < model.num_targets(); ++j) {
        const std::int64_t b = p.flavors[model.target_flavor(j)].bandwidth_mbps;
        if (b <= 0) continue;
        targets_.push_back(j);
        b_units_.push_back(b);
        w_units_.push_back(model.target_weight_units(j));
    }
    for (std::size_t e = 0; e < p.vlinks.size(); ++e) {
        vlinks_of_[p.vlinks[e].a].push_back(static_cast<int>(e));
        vlinks_of_[p.vlinks[e].b].push_back(static_cast<int>(e));
    }
    const int H = static_cast<int>(p.hosts.size());
    const int S = static_cast<int>(p.network.switches.size());
    // Racks: the switches hosts attach to, numbered in order of first host.
    std::vector<int> rack_of_switch(S, -1);
    for (int h = 0; h < H; ++h) {
        int& r = rack_of_switch[p.network.host_switch[h]];
        if (r < 0) r = static_cast<int>(rack_uplinks_.size()), rack_uplinks_.emplace_back();
        rack_of_host_.push_back(r);
    }
    const int R = static_cast<int>(rack_uplinks_.size());
    std::vector<std::vector<std::pair<int, int>>> adj(S);  // (neighbour, link id)
    for (std::size_t i = 0; i < p.network.links.size(); ++i) {
        const NetLink& l = p.network.links[i];
        adj[l.a].emplace_back(l.b, H + static_cast<int>(i));  // the link's number; its arcs are 2 x that (+ 1)
        adj[l.b].emplace_back(l.a, H + static_cast<int>(i));
    }
    const std::vector<int> level = switch_levels(p);
    link_rack_.assign(static_cast<std::size_t>(routes_->num_links()), -1);
    link_pod_.assign(static_cast<std::size_t>(routes_->num_links()), -1);
    for (int s = 0; s < S; ++s)
        if (rack_of_switch[s] >= 0)
            for (auto [t, l] : adj[s])
                if (level[t] > 0)
                    for (int d = 0; d < 2; ++d)  // both directions: a new VM sends and receives b_f
                        rack_uplinks_[rack_of_switch[s]].push_back(NetworkRoutes::arc(l, d)),
                            link_rack_[NetworkRoutes::arc(l, d)] = rack_of_switch[s];
    // Pods: racks whose hosts all name one pod; a pod's upper switches are its racks' uplink ends.
    std::vector<std::string> rack_pod(R);
    std::vector<char> rack_mixed(R, 0);
    for (int h = 0; h < H; ++h) {
        const int r = rack_of_host_[h];
        const std::string& pod = p.hosts[h].pod;
        if (pod.empty() || (!rack_pod[r].empty() && rack_pod[r] != pod)) rack_mixed[r] = 1;
        rack_pod[r] = pod;
    }
    std::map<std::string, int> pod_ids;
    pod_of_rack_.assign(R, -1);
    for (int r = 0; r < R; ++r)
        if (!rack_mixed[r]) pod_of_rack_[r] = pod_ids.emplace(rack_pod[r], static_cast<int>(pod_ids.size())).first->second;
    const int P = static_cast<int>(pod_ids.size());
    std::vector<int> owner(S, -1);  // upper switch -> pod; shared by two pods: -2
    for (int r = 0; r < R; ++r) {
        if (pod_of_rack_[r] < 0) continue;
        for (int l : rack_uplinks_[r]) {
            const NetLink& nl = p.network.links[l / 2 - H];
            const int t = level[nl.a] > 0 ? nl.a : nl.b;
            owner[t] = owner[t] == -1 || owner[t] == pod_of_rack_[r] ? pod_of_rack_[r] : -2;
        }
    }
    pod_uplinks_.assign(P, {});
    std::vector<char> pod_shared(P, 0);
    for (int s = 0; s < S; ++s)
        if (owner[s] == -2)
            for (int r = 0; r < R; ++r)  // an upper switch shared by pods: no pod cap for them
                for (int l : rack_uplinks_[r]) {
                    const NetLink& nl = p.network.links[l / 2 - H];
                    if ((nl.a == s || nl.b == s) && pod_of_rack_[r] >= 0) pod_shared[pod_of_rack_[r]] = 1;
                }
    for (int s = 0; s < S; ++s) {
        if (owner[s] < 0 || pod_shared[owner[s]]) continue;
        for (auto [t, l] : adj[s])
            if (level[t] > level[s] && owner[t] != owner[s])
                for (int d = 0; d < 2; ++d)
                    pod_uplinks_[owner[s]].push_back(NetworkRoutes::arc(l, d)), link_pod_[NetworkRoutes::arc(l, d)] = owner[s];
    }
}

int BandwidthCapacityTerm::capped_racks() const {
    return static_cast<int>(std::count_if(rack_uplinks_.begin(), rack_uplinks_.end(), [](const auto& u) { return !u.empty(); }));
}
int BandwidthCapacityTerm::capped_pods() const {
    return static_cast<int>(std::count_if(pod_uplinks_.begin(), pod_uplinks_.end(), [](const auto& u) { return !u.empty(); }));
}

std::int64_t BandwidthCapacityTerm::uplink_free(int h, const std::int64_t* load, const std::int64_t* dload) const {
    std::int64_t least = std::numeric_limits<std::int64_t>::max();
    for (int d = 0; d < 2; ++d) {  // uplink arcs carry whole Mbps (scale 1)
        const int k = NetworkRoutes::arc(h, d);
        least = std::min(least, routes_->capacity(k) - load[k] - (dload ? dload[k] : 0));
    }
    return least;
}

Count BandwidthCapacityTerm::group_cap(std::span<const int> links, const std::int64_t* load, const std::int64_t* dload,
                                       std::int64_t b) const {
    if (links.empty()) return kNoCap;
    // Both arcs of each uplink are listed: k = links.size() / 2 uplinks share the traffic.
    const Wide k = static_cast<Wide>(links.size() / 2);
    Count least = std::numeric_limits<Count>::max();
    for (int l : links) {
        const std::int64_t free = routes_->capacity(l) - load[l] - (dload ? dload[l] : 0);
        least = std::min(least, floor_div(static_cast<Wide>(free) * k, static_cast<Wide>(b) * routes_->scale(l)));
    }
    return least;
}

BandwidthCapacityTerm::Aggregates BandwidthCapacityTerm::build(const PlacementView& pl) const {
    const Problem& p = problem_;
    const int R = model_.num_resources();
    const std::size_t Tb = targets_.size(), H = p.hosts.size();
    Aggregates a;
    a.load = link_loads(p, *routes_, pl.host);
    // Free amounts of every host's nodes from the placement, then VMCAP of each bandwidth target.
    std::vector<Amount> free;
    std::vector<std::size_t> off(H + 1, 0);
    for (std::size_t h = 0; h < H; ++h) off[h + 1] = off[h] + p.host_type_of(static_cast<int>(h)).node_capacity.size();
    free.resize(off[H]);
    for (std::size_t h = 0; h < H; ++h) {
        const auto& cap = p.host_type_of(static_cast<int>(h)).node_capacity;
        std::copy(cap.begin(), cap.end(), free.begin() + static_cast<std::ptrdiff_t>(off[h]));
    }
    for (std::size_t v = 0; v < p.vms.size(); ++v) {
        const Flavor& fl = p.flavors[p.vms[v].flavor];
        for (unsigned m = pl.mask[v]; m != 0; m &= m - 1)
            for (int r = 0; r < R; ++r) free[off[pl.host[v]] + std::countr_zero(m) * R + r] -= fl.node_demand[r];
    }
    a.vmcap.resize(H * Tb);
    a.host.resize(H * Tb);
    a.rack_sum.assign(rack_uplinks_.size() * Tb, 0);
    a.rack.resize(rack_uplinks_.size() * Tb);
    a.pod_sum.assign(pod_uplinks_.size() * Tb, 0);
    a.pod.resize(pod_uplinks_.size() * Tb);
    for (std::size_t h = 0; h < H; ++h)
        for (std::size_t jb = 0; jb < Tb; ++jb) {
            const Count c = model_.host_capacity(p.hosts[h].type, model_.target_flavor(targets_[jb]), free.data() + off[h]);
            a.vmcap[h * Tb + jb] = c;
            a.host[h * Tb + jb] = std::min(c, floor_div(uplink_free(static_cast<int>(h), a.load.data(), nullptr), b_units_[jb]));
            a.rack_sum[rack_of_host_[h] * Tb + jb] += a.host[h * Tb + jb];
        }
    for (std::size_t r = 0; r < rack_uplinks_.size(); ++r)
        for (std::size_t jb = 0; jb < Tb; ++jb) {
            a.rack[r * Tb + jb] = std::min(a.rack_sum[r * Tb + jb], group_cap(rack_uplinks_[r], a.load.data(), nullptr, b_units_[jb]));
            if (pod_of_rack_[r] >= 0) a.pod_sum[pod_of_rack_[r] * Tb + jb] += a.rack[r * Tb + jb];
        }
    for (std::size_t q = 0; q < pod_uplinks_.size(); ++q)
        for (std::size_t jb = 0; jb < Tb; ++jb)
            a.pod[q * Tb + jb] = std::min(a.pod_sum[q * Tb + jb], group_cap(pod_uplinks_[q], a.load.data(), nullptr, b_units_[jb]));
    return a;
}

std::vector<Count> BandwidthCapacityTerm::capped_totals(const PlacementView& pl) const {
    const Aggregates a = build(pl);
    const std::size_t Tb = targets_.size();
    std::vector<Count> out(static_cast<std::size_t>(model_.num_targets()), -1);
    std::vector<Count> capped(Tb, 0);
    for (std::size_t r = 0; r < rack_uplinks_.size(); ++r)
        if (pod_of_rack_[r] < 0)
            for (std::size_t jb = 0; jb < Tb; ++jb) capped[jb] += a.rack[r * Tb + jb];
    for (std::size_t q = 0; q < pod_uplinks_.size(); ++q)
        for (std::size_t jb = 0; jb < Tb; ++jb) capped[jb] += a.pod[q * Tb + jb];
    for (std::size_t jb = 0; jb < Tb; ++jb) out[targets_[jb]] = capped[jb];
    return out;
}

Score BandwidthCapacityTerm::value(const Problem& /*problem*/, const PlacementView& pl) const {
    const Aggregates a = build(pl);
    const std::size_t Tb = targets_.size();
    Score s = 0;
    for (std::size_t jb = 0; jb < Tb; ++jb) {
        Count capped = 0, vmcap = 0;
        for (std::size_t r = 0; r < rack_uplinks_.size(); ++r)
            if (pod_of_rack_[r] < 0) capped += a.rack[r * Tb + jb];
        for (std::size_t q = 0; q < pod_uplinks_.size(); ++q) capped += a.pod[q * Tb + jb];
        for (std::size_t h = 0; h < problem_.hosts.size(); ++h) vmcap += a.vmcap[h * Tb + jb];
        s += w_units_[jb] * (capped - vmcap);
    }
    return s;
}

std::unique_ptr<StateAggregates> BandwidthCapacityTerm::make_aggregates(const SearchState& state) const {
    std::vector<int> host;
    std::vector<NodeMask> mask;
    state.placement_arrays(host, mask);
    return std::make_unique<Aggregates>(build(PlacementView{host, mask}));
}

double BandwidthCapacityTerm::bound(const SearchState& /*state*/, std::span<const int> /*vms*/) const {
    return std::numeric_limits<double>::infinity();
}

Score BandwidthCapacityTerm::delta(const SearchState& s, std::span<const Relocation> moves) const {
    return evaluate(s, *static_cast<const Aggregates*>(s.aggregates(*this)), moves, nullptr);
}

void BandwidthCapacityTerm::on_move(StateAggregates& agg, const SearchState& s, const Relocation& r) const {
    auto& a = static_cast<Aggregates&>(agg);
    evaluate(s, a, std::span(&r, 1), &a);
}

void BandwidthCapacityTerm::shift_moves(const SearchState& s, std::span<const Relocation> moves, Scratch& sc) const {
    const Problem& p = problem_;
    const int R = model_.num_resources();
    auto host_now = [&](int v, std::size_t i) { return host_after(s.host_of(v), moves, v, i); };
    sc.local.clear();
    for (std::size_t i = 0; i < moves.size(); ++i) {
        const Relocation& r = moves[i];
        const int from = host_now(r.vm, i);
        NodeMask from_mask = s.mask_of(r.vm);
        for (std::size_t j = 0; j < i; ++j)
            if (moves[j].vm == r.vm) from_mask = moves[j].to_mask;
        const Flavor& fl = p.flavors[s.flavor_of(r.vm)];
        LocalHost& lf = sc.local_of(from, s, R);
        for (unsigned m = from_mask; m != 0; m &= m - 1)
            for (int q = 0; q < R; ++q) lf.free[std::countr_zero(m) * R + q] += fl.node_demand[q];
        LocalHost& lt = sc.local_of(r.to_host, s, R);
        for (unsigned m = r.to_mask; m != 0; m &= m - 1)
            for (int q = 0; q < R; ++q) lt.free[std::countr_zero(m) * R + q] -= fl.node_demand[q];
        if (from == r.to_host) continue;
        for (int e : vlinks_of_[r.vm]) {
            const Vlink& v = p.vlinks[e];
            const int peer = host_now(v.a == r.vm ? v.b : v.a, i);
            auto add = [&](int hx, int sign) {
                routes_->for_each_share(hx, peer, [&](int link, std::int64_t units) {
                    if (sc.dload[link] == 0) sc.links.push_back(link);  // may repeat: deduplicated below
                    sc.dload[link] += sign * units * v.mbps;
                });
            };
            add(from, -1);
            add(r.to_host, +1);
        }
    }
}

void BandwidthCapacityTerm::touch_affected(const SearchState& s, Scratch& sc) const {
    const Problem& p = problem_;
    const std::size_t Tb = targets_.size();
    for (const LocalHost& l : sc.local) {
        const int slot = sc.touch_host(l.host);
        sc.host_moved[slot] = 1;
    }
    sc.host_new_vmcap.resize(sc.hosts.size() * Tb);
    for (std::size_t k = 0; k < sc.hosts.size(); ++k)
        for (std::size_t jb = 0; jb < Tb; ++jb)
            sc.host_new_vmcap[k * Tb + jb] =
                model_.host_capacity(s.type_of(sc.hosts[k]), model_.target_flavor(targets_[jb]), sc.local[k].free.data());
    std::sort(sc.links.begin(), sc.links.end());
    sc.links.erase(std::unique(sc.links.begin(), sc.links.end()), sc.links.end());
    const int H = static_cast<int>(p.hosts.size());
    for (int l : sc.links) {
        if (l / 2 < H) sc.touch_host(l / 2);
        if (link_rack_[l] >= 0) sc.touch_rack(link_rack_[l], Tb);
        if (link_pod_[l] >= 0) sc.touch_pod(link_pod_[l], Tb);
    }
}

void BandwidthCapacityTerm::host_deltas(const Aggregates& a, Scratch& sc, Aggregates* commit) const {
    const std::size_t Tb = targets_.size();
    const std::int64_t* load = a.load.data();
    const std::int64_t* dload = sc.dload.data();
    for (std::size_t k = 0; k < sc.hosts.size(); ++k) {
        const int h = sc.hosts[k];
        const int rs = sc.touch_rack(rack_of_host_[h], Tb);
        const std::int64_t free_up = uplink_free(h, load, dload);
        for (std::size_t jb = 0; jb < Tb; ++jb) {
            const Count old_vmcap = a.vmcap[h * Tb + jb];
            const Count vm = sc.host_moved[k] ? sc.host_new_vmcap[k * Tb + jb] : old_vmcap;
            const Count c = std::min(vm, floor_div(free_up, b_units_[jb]));
            sc.d_vmcap[jb] += vm - old_vmcap;
            sc.rack_dsum[rs * Tb + jb] += c - a.host[h * Tb + jb];
            if (commit) commit->vmcap[h * Tb + jb] = vm, commit->host[h * Tb + jb] = c;
        }
    }
}

void BandwidthCapacityTerm::rack_deltas(const Aggregates& a, Scratch& sc, Aggregates* commit) const {
    const std::size_t Tb = targets_.size();
    const std::int64_t* load = a.load.data();
    const std::int64_t* dload = sc.dload.data();
    for (std::size_t k = 0; k < sc.racks.size(); ++k) {
        const int r = sc.racks[k];
        const int q = pod_of_rack_[r];
        const int ps = q >= 0 ? sc.touch_pod(q, Tb) : -1;
        for (std::size_t jb = 0; jb < Tb; ++jb) {
            const Count sum = a.rack_sum[r * Tb + jb] + sc.rack_dsum[k * Tb + jb];
            const Count v = std::min(sum, group_cap(rack_uplinks_[r], load, dload, b_units_[jb]));
            const Count d = v - a.rack[r * Tb + jb];
            if (ps >= 0)
                sc.pod_dsum[ps * Tb + jb] += d;
            else
                sc.d_capped[jb] += d;
            if (commit) commit->rack_sum[r * Tb + jb] = sum, commit->rack[r * Tb + jb] = v;
        }
    }
}

void BandwidthCapacityTerm::pod_deltas(const Aggregates& a, Scratch& sc, Aggregates* commit) const {
    const std::size_t Tb = targets_.size();
    const std::int64_t* load = a.load.data();
    const std::int64_t* dload = sc.dload.data();
    for (std::size_t k = 0; k < sc.pods.size(); ++k) {
        const int q = sc.pods[k];
        for (std::size_t jb = 0; jb < Tb; ++jb) {
            const Count sum = a.pod_sum[q * Tb + jb] + sc.pod_dsum[k * Tb + jb];
            const Count v = std::min(sum, group_cap(pod_uplinks_[q], load, dload, b_units_[jb]));
            sc.d_capped[jb] += v - a.pod[q * Tb + jb];
            if (commit) commit->pod_sum[q * Tb + jb] = sum, commit->pod[q * Tb + jb] = v;
        }
    }
}

Score BandwidthCapacityTerm::evaluate(const SearchState& s, const Aggregates& a, std::span<const Relocation> moves,
                                      Aggregates* commit) const {
    const Problem& p = problem_;
    const std::size_t Tb = targets_.size();
    thread_local Scratch sc;
    sc.fit(static_cast<std::size_t>(routes_->num_links()), p.hosts.size(), rack_uplinks_.size(), pod_uplinks_.size());
    sc.d_capped.assign(Tb, 0);
    sc.d_vmcap.assign(Tb, 0);
    // 1. Load changes of the moved VMs' vlinks (a vlink between two moved VMs counted once: each
    //    relocation sees the previous ones), and the moved hosts' free amounts.
    shift_moves(s, moves, sc);
    // 2. Affected hosts: the moved ones (new VMCAP) and those whose uplink load changed.
    touch_affected(s, sc);
    // 3. Hosts -> racks -> pods -> the capped totals.
    host_deltas(a, sc, commit);
    rack_deltas(a, sc, commit);
    pod_deltas(a, sc, commit);
    Score d = 0;
    for (std::size_t jb = 0; jb < Tb; ++jb) d += w_units_[jb] * (sc.d_capped[jb] - sc.d_vmcap[jb]);
    // 4. Clean the scratch (and commit the loads).
    sc.clean(commit);
    return d;
}

}  // namespace vmcap
