#pragma once
// Test fixtures: small random fragmented snapshots built in code (no files), seeded, and the
// builders they share (host types, flavors, random placements), plans as documents, the data directory.
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <system_error>
#include <utility>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "evaluators/network/network_load.h"
#include "evaluators/interfaces/seams.h"
#include "evaluators/state/search_state.h"
#include "instances/problem.h"
#include "optimizer/plan/plan.h"
#include "optimizer/solvers/exact_bb.h"
#include "instances/topology.h"

namespace vmcap::test {

/** prefix + n, built by appending ("x" + std::to_string(n) trips a GCC 12 -O3 -Wrestrict false
 *  positive). */
inline std::string name(const char* prefix, int n) {
    std::string s(prefix);
    s += std::to_string(n);
    return s;
}

/** A fresh temporary directory (unique per process and instance, under the system's temporary
 *  directory, named after `prefix`), removed with everything in it at scope exit. */
class TempDir {
public:
    explicit TempDir(const std::string& prefix = "vmcap_test") {
        static std::atomic<int> counter{0};
        path_ = std::filesystem::temp_directory_path() / (prefix + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    /** Writes `text` to `name` under the directory (creating subdirectories); returns its path. */
    std::string write(const std::string& name, const std::string& text) const {
        const std::filesystem::path p = path_ / name;
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << text;
        return p.string();
    }
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

/** Test filter: no VM may end on host `banned` (a host drain). */
class DrainFilter final : public FeasibilityFilter {
public:
    explicit DrainFilter(int banned) : banned_(banned) {}
    std::string_view name() const override { return "drain"; }
    bool separable_per_host() const override { return true; }  // looks only at the destination host
    bool admits(const SearchState&, std::span<const Relocation> moves) const override {
        for (const Relocation& r : moves)
            if (r.to_host == banned_ && r.from_host != banned_) return false;
        return true;
    }
    std::string violation(const Problem& p, const PlacementView& pl) const override {
        for (std::size_t v = 0; v < p.vms.size(); ++v)
            if (pl.host[v] == banned_ && p.vms[v].host != banned_) return "vm " + p.vms[v].id + " moved onto the drained host";
        return "";
    }

private:
    int banned_;
};

/** The shared data directory (real traces, NetSolver instances; tests that need it skip without
 *  it): VMCAP_SHARED_DATA_DIR as the build defines it, else ../shared/data from the working
 *  directory. */
inline std::filesystem::path shared_data_dir() {
#ifdef VMCAP_SHARED_DATA_DIR
    return VMCAP_SHARED_DATA_DIR;
#else
    return "../shared/data";
#endif
}

/** A plan as `vmcap validate` reads it: plan_to_json with no run information, parsed back. */
inline nlohmann::json plan_doc(const Problem& p, const Plan& plan) {
    return nlohmann::json::parse(plan_to_json(p, plan, PlanInfo{}).dump());
}

/** A host type `name` of topology `topo`, every pNUMA node with `node_vcpu` vCPU and
 *  `node_ram_mib` MiB (resources vcpu, ram_mib). */
inline HostType small_host_type(const std::string& name, const std::string& topo, Amount node_vcpu, Amount node_ram_mib) {
    HostType ht;
    ht.name = name;
    ht.topology = parse_topology(topo);
    for (int i = 0; i < ht.num_nodes(); ++i) {
        ht.node_capacity.push_back(node_vcpu);
        ht.node_capacity.push_back(node_ram_mib);
    }
    return ht;
}

/** Adds flavor `name`: `vcpu` vCPU and `ram_gib` GiB over vNUMA topology `vnuma`, weight `weight`. */
inline void add_flavor(Problem& p, std::string name, Amount vcpu, Amount ram_gib, const char* vnuma, double weight) {
    Flavor f;
    f.name = std::move(name);
    f.demand = {vcpu, ram_gib * 1024};
    f.vnuma = parse_topology(vnuma);
    f.weight = weight;
    p.flavors.push_back(f);
}

/** Appends VM "vm<i>" (i: its index) of one-node flavor `flavor` on `host`'s pNUMA node `node`. */
inline void add_one_node_vm(Problem& p, int flavor, int host, int node) {
    Vm vm;
    vm.id = name("vm", static_cast<int>(p.vms.size()));
    vm.flavor = flavor;
    vm.host = host;
    vm.pnuma[0] = static_cast<std::uint8_t>(node);
    p.vms.push_back(vm);
}

/** How place_at_random draws VMs. */
struct RandomPlacing {
    int attempts = 400;                                      ///< draws at most
    int max_vms = std::numeric_limits<int>::max();           ///< stop once the problem has this many VMs
    double fill = std::numeric_limits<double>::infinity();   ///< stop once this fraction of the vCPU is used
    int pinned_one_in = 7;                                   ///< a placed VM is not migratable when rng() % this == 0
    std::function<int(std::mt19937_64&)> flavor;             ///< the next draw's flavor; default rng() % flavors
    std::function<int(std::mt19937_64&, int attempt)> host;  ///< its host; default rng() % hosts
};

/**
 * Adds VMs "vm<i>" (i: index in p.vms, which starts empty) at random feasible placements on hosts
 * of p's first host type (resources vcpu, ram_mib): each draw takes a flavor, a host and one of
 * the flavor's placements there at random, and places the VM if every node it uses has room
 * next to the VMs placed so far (a draw of a flavor with no placement there is skipped). Draws
 * until how.attempts, how.max_vms or how.fill. Deterministic in `rng`.
 */
inline void place_at_random(Problem& p, std::mt19937_64& rng, const RandomPlacing& how) {
    const HostType& ht = p.host_types[0];
    const int hosts = static_cast<int>(p.hosts.size());
    std::vector<std::vector<Amount>> used(hosts, std::vector<Amount>(ht.node_capacity.size(), 0));
    const Amount total_vcpu = ht.node_capacity[0] * ht.num_nodes() * hosts;
    Amount used_vcpu = 0;
    for (int attempt = 0;
         attempt < how.attempts && static_cast<int>(p.vms.size()) < how.max_vms && used_vcpu < how.fill * static_cast<double>(total_vcpu);
         ++attempt) {
        const int f = how.flavor ? how.flavor(rng) : static_cast<int>(rng() % p.flavors.size());
        const Flavor& fl = p.flavors[f];
        const int k = fl.num_vnuma();
        const int h = how.host ? how.host(rng, attempt) : static_cast<int>(rng() % static_cast<std::uint64_t>(hosts));
        const auto embs = enumerate_embeddings(ht.topology.graph, fl.vnuma.graph);
        if (embs.empty()) continue;  // e.g. a K2 flavor on one-node hosts
        const Embedding& e = embs[rng() % embs.size()];
        bool ok = true;
        for (int v = 0; v < k; ++v)
            for (int r = 0; r < 2; ++r) ok = ok && used[h][e.map[v] * 2 + r] + fl.demand[r] / k <= ht.node_capacity[e.map[v] * 2 + r];
        if (!ok) continue;
        Vm vm;
        vm.id = name("vm", static_cast<int>(p.vms.size()));
        vm.flavor = f;
        vm.host = h;
        for (int v = 0; v < k; ++v) {
            vm.pnuma[v] = e.map[v];
            for (int r = 0; r < 2; ++r) used[h][e.map[v] * 2 + r] += fl.demand[r] / k;
        }
        vm.migratable = rng() % static_cast<std::uint64_t>(how.pinned_one_in) != 0;
        used_vcpu += fl.demand[0];
        p.vms.push_back(vm);
    }
}

struct RandomCluster {
    std::string host_topology = "CQ3";
    int hosts = 12;
    Amount node_vcpu = 16;
    Amount node_ram_mib = 64 * 1024;
    double fill = 0.7;  ///< stop placing once this fraction of vCPU is used (or nothing fits)
    std::int64_t max_migrations = 6;
    Amount max_migrated_ram_mib = std::numeric_limits<Amount>::max();
    std::uint64_t seed = 1;
};

/**
 * Hosts of one type, flavors K1 small/medium (weight 0 and 1), K2 and C4-or-K4 large (weight 1
 * and 2); VMs placed at random feasible (host, placement) pairs so free space is fragmented.
 */
inline Problem make_random_problem(const RandomCluster& rc) {
    Problem p;
    p.resources = {"vcpu", "ram_mib"};
    p.host_types.push_back(small_host_type(rc.host_topology + "-test", rc.host_topology, rc.node_vcpu, rc.node_ram_mib));
    const HostType& ht = p.host_types[0];
    for (int h = 0; h < rc.hosts; ++h) p.hosts.push_back(Host{name("h", h), 0, name("r", h / 4), "p0", ""});
    const bool has_k4 = !enumerate_embeddings(ht.topology.graph, parse_topology("K4").graph).empty();
    add_flavor(p, "2c4g", 2, 4, "K1", 0.0);
    add_flavor(p, "4c16g", 4, 16, "K1", 1.0);
    add_flavor(p, "8c32g", 8, 32, "K2", 1.0);
    if (ht.num_nodes() >= 4) add_flavor(p, "16c64g", 16, 64, has_k4 ? "K4" : "C4", 2.0);
    if (ht.num_nodes() < 2) p.flavors.resize(2);
    std::mt19937_64 rng(rc.seed);
    RandomPlacing how;
    how.attempts = 20000;
    how.fill = rc.fill;
    how.pinned_one_in = 10;
    place_at_random(p, rng, how);
    p.constraints.max_migrations = rc.max_migrations;
    p.constraints.max_migrated_ram_mib = rc.max_migrated_ram_mib;
    finalize_problem(p, "<random>");
    return p;
}

/**
 * Every final state within the snapshot's migration budget, by exhaustive search, with nothing of
 * SearchState, the rules or the solvers (the oracle of the exact solvers' tests): the snapshot
 * itself, then for each set M of at most max_migrations migratable VMs (RAM within
 * max_migrated_ram_mib) every assignment of M's VMs to a (host, placement of its flavor) other
 * than their own, node capacities checked by hand. Calls visit(free, host) for each: free[h] the
 * free amounts of host h's pNUMA nodes (node-major, R per node), host[v] each VM's host.
 * Exponential: for snapshots of a few VMs.
 */
template <class Visit>
void for_each_final_state(const CapacityModel& m, Visit&& visit) {
    const Problem& p = m.problem();
    const int R = p.num_resources();
    const int H = static_cast<int>(p.hosts.size());
    const auto usage = compute_node_usage(p);
    std::vector<std::vector<Amount>> free(H);
    for (int h = 0; h < H; ++h)
        for (std::size_t i = 0; i < usage[h].size(); ++i) free[h].push_back(p.host_type_of(h).node_capacity[i] - usage[h][i]);
    std::vector<int> host(p.vms.size()), movable;
    for (std::size_t v = 0; v < p.vms.size(); ++v) {
        host[v] = p.vms[v].host;
        if (p.vms[v].migratable) movable.push_back(static_cast<int>(v));
    }
    auto mask_of = [&](int v) {
        unsigned mask = 0;
        for (int i = 0; i < p.flavors[p.vms[v].flavor].num_vnuma(); ++i) mask |= 1U << p.vms[v].pnuma[i];
        return mask;
    };
    auto shift = [&](int h, int flavor, unsigned mask, Amount sign) {
        for (int i = 0; i < p.host_type_of(h).num_nodes(); ++i)
            if ((mask >> i) & 1U)
                for (int r = 0; r < R; ++r) free[h][i * R + r] += sign * p.flavors[flavor].node_demand[r];
    };
    visit(std::as_const(free), std::as_const(host));
    std::vector<int> chosen;
    std::function<void(std::size_t)> assign = [&](std::size_t k) {
        if (k == chosen.size()) {
            visit(std::as_const(free), std::as_const(host));
            return;
        }
        const int v = chosen[k];
        const int f = p.vms[v].flavor;
        for (int h = 0; h < H; ++h)
            for (const Embedding& e : m.evaluator(p.hosts[h].type, f).placements()) {
                if (h == p.vms[v].host && e.mask == mask_of(v)) continue;
                bool fits = true;
                for (int i = 0; i < p.host_type_of(h).num_nodes() && fits; ++i)
                    if ((e.mask >> i) & 1U)
                        for (int r = 0; r < R; ++r) fits = fits && free[h][i * R + r] >= p.flavors[f].node_demand[r];
                if (!fits) continue;
                shift(h, f, e.mask, -1);
                host[v] = h;
                assign(k + 1);
                host[v] = p.vms[v].host;
                shift(h, f, e.mask, +1);
            }
    };
    std::function<void(std::size_t, Amount)> subsets = [&](std::size_t first, Amount ram) {
        if (!chosen.empty()) assign(0);
        if (static_cast<std::int64_t>(chosen.size()) >= p.constraints.max_migrations) return;
        for (std::size_t i = first; i < movable.size(); ++i) {
            const int v = movable[i];
            const Amount r = p.flavors[p.vms[v].flavor].demand[kRamMib];
            if (ram + r > p.constraints.max_migrated_ram_mib) continue;
            shift(p.vms[v].host, p.vms[v].flavor, mask_of(v), +1);
            chosen.push_back(v);
            subsets(i + 1, ram + r);
            chosen.pop_back();
            shift(p.vms[v].host, p.vms[v].flavor, mask_of(v), -1);
        }
    };
    subsets(0, 0);
}

/** Per-flavor cluster capacity the scalar way (CapacityModel::host_capacity per host): the
 *  reference the batched cluster_capacity and the CLI are checked against. */
inline std::vector<Count> capacity_by_flavor(const CapacityModel& model, const std::vector<std::vector<Amount>>& usage) {
    const Problem& p = model.problem();
    std::vector<Count> out(p.flavors.size(), 0);
    std::vector<Amount> free;
    for (std::size_t h = 0; h < p.hosts.size(); ++h) {
        const HostType& ht = p.host_type_of(static_cast<int>(h));
        free.resize(ht.node_capacity.size());
        for (std::size_t i = 0; i < free.size(); ++i) free[i] = ht.node_capacity[i] - usage[h][i];
        for (std::size_t f = 0; f < p.flavors.size(); ++f) out[f] += model.host_capacity(p.hosts[h].type, static_cast<int>(f), free.data());
    }
    return out;
}

/** Objective of a state computed the slow way: usage from the VM list, VMCAP per host (an
 *  independent check of SearchState's incremental aggregates). */
inline Score full_objective(const CapacityModel& m, const SearchState& s) {
    Problem copy = m.problem();
    for (std::size_t v = 0; v < copy.vms.size(); ++v) {
        copy.vms[v].host = s.host_of(static_cast<int>(v));
        std::copy_n(s.pnuma_of(static_cast<int>(v)), kMaxVNuma, copy.vms[v].pnuma.begin());
    }
    const auto cap = capacity_by_flavor(m, compute_node_usage(copy));
    Score obj = 0;  // score units (evaluators/closed_forms/score.h)
    for (std::size_t f = 0; f < copy.flavors.size(); ++f) obj += weight_units(copy.flavors[f].weight) * cap[f];
    return obj;
}

/**
 * Objective of a state with bandwidth-aware capacity, the slow way (evaluators/objective/bandwidth_capacity.h
 * rule, re-derived here on its own): per host min(VMCAP, free NIC / b), per rack (hosts sharing a
 * switch) min(sum, k x least free uplink / b) over its links to switches no host attaches to, per
 * pod (hosts[].pod) min(sum, k x least free / b) over the links leaving the racks' upper switches
 * for switches neither upper nor host-attached; sum_f w_f x capacity_f in score units. Loads from
 * link_loads (checked against a path-enumeration oracle in network_test.cpp).
 */
inline Score bandwidth_capped_objective(const CapacityModel& m, const SearchState& s) {
    Problem copy = m.problem();
    std::vector<int> host(copy.vms.size());
    for (std::size_t v = 0; v < copy.vms.size(); ++v) {
        copy.vms[v].host = host[v] = s.host_of(static_cast<int>(v));
        std::copy_n(s.pnuma_of(static_cast<int>(v)), kMaxVNuma, copy.vms[v].pnuma.begin());
    }
    const NetworkRoutes routes(copy);
    const auto load = link_loads(copy, routes, host);
    const auto usage = compute_node_usage(copy);
    const int H = static_cast<int>(copy.hosts.size());
    std::set<int> attached(copy.network.host_switch.begin(), copy.network.host_switch.end());
    // Free capacity of link `link` in its fuller direction, as an exact fraction of Mbps
    // (numerator, scale): links are full duplex and a new VM both sends and receives b.
    auto cap_over = [&](const std::vector<int>& links, std::int64_t b) -> Count {  // links: link numbers (hosts first)
        if (links.empty()) return std::numeric_limits<Count>::max();
        Count least = std::numeric_limits<Count>::max();
        for (int l : links)
            for (int d = 0; d < 2; ++d) {
                const int k = 2 * l + d;
                const std::int64_t free = std::max<std::int64_t>(0, routes.capacity(k) - load[k]);
                least = std::min(least, static_cast<Count>(static_cast<Wide>(free) * static_cast<Wide>(links.size()) /
                                                           (static_cast<Wide>(b) * routes.scale(k))));
            }
        return least;
    };
    Score obj = 0;
    for (std::size_t f = 0; f < copy.flavors.size(); ++f) {
        const Flavor& fl = copy.flavors[f];
        if (!fl.is_target()) continue;
        std::map<int, Count> rack_sum;        // switch -> sum of host values
        std::map<int, std::string> rack_pod;  // switch -> pod ("" if none or mixed)
        std::map<int, bool> rack_mixed;
        Count total = 0;
        for (int h = 0; h < H; ++h) {
            const HostType& ht = copy.host_type_of(h);
            std::vector<Amount> fr(ht.node_capacity.size());
            for (std::size_t i = 0; i < fr.size(); ++i) fr[i] = ht.node_capacity[i] - usage[h][i];
            Count c = m.host_capacity(copy.hosts[h].type, static_cast<int>(f), fr.data());
            if (fl.bandwidth_mbps > 0) c = std::min<Count>(c, cap_over({h}, fl.bandwidth_mbps));
            const int sw = copy.network.host_switch[h];
            rack_sum[sw] += c;
            const std::string& pod = copy.hosts[h].pod;
            if (rack_pod.count(sw) && rack_pod[sw] != pod) rack_mixed[sw] = true;
            rack_pod[sw] = pod;
        }
        if (fl.bandwidth_mbps == 0) {
            for (auto& [sw, c] : rack_sum) total += c;
            obj += weight_units(fl.weight) * total;
            continue;
        }
        std::map<std::string, Count> pod_sum;
        std::map<std::string, std::set<int>> pod_upper;
        for (auto& [sw, c] : rack_sum) {
            std::vector<int> up;
            for (std::size_t i = 0; i < copy.network.links.size(); ++i) {
                const NetLink& l = copy.network.links[i];
                const int other = l.a == sw ? l.b : l.b == sw ? l.a : -1;
                if (other >= 0 && !attached.count(other)) {
                    up.push_back(H + static_cast<int>(i));
                    if (!rack_mixed[sw] && !rack_pod[sw].empty()) pod_upper[rack_pod[sw]].insert(other);
                }
            }
            const Count r = std::min(c, cap_over(up, fl.bandwidth_mbps));
            if (rack_mixed[sw] || rack_pod[sw].empty())
                total += r;
            else
                pod_sum[rack_pod[sw]] += r;
        }
        for (auto& [pod, c] : pod_sum) {
            const std::set<int>& upper = pod_upper[pod];
            std::vector<int> up;
            for (std::size_t i = 0; i < copy.network.links.size(); ++i) {
                const NetLink& l = copy.network.links[i];
                const bool a_in = upper.count(l.a) > 0, b_in = upper.count(l.b) > 0;
                if (a_in == b_in) continue;
                const int other = a_in ? l.b : l.a;
                if (!attached.count(other)) up.push_back(H + static_cast<int>(i));
            }
            total += std::min(c, cap_over(up, fl.bandwidth_mbps));
        }
        obj += weight_units(fl.weight) * total;
    }
    return obj;
}

/**
 * A leaf-spine network over p's hosts (ToR = host index mod 3, two spines; NIC capacity `nic`,
 * each ToR-spine link `uplink`, Mbps) and 2 x VMs random vlinks of lo .. lo + span - 1 Mbps:
 * small clusters on which the link-capacity rule binds.
 */
inline void add_leaf_spine(Problem& p, std::uint64_t seed, std::int64_t nic, std::int64_t uplink, std::int64_t lo, std::int64_t span) {
    for (auto& ht : p.host_types) ht.nic_mbps = nic;
    p.network.switches = {"tor0", "tor1", "tor2", "spine0", "spine1"};
    for (int t = 0; t < 3; ++t)
        for (int sp = 3; sp < 5; ++sp) p.network.links.push_back(NetLink{t, sp, uplink});
    for (std::size_t h = 0; h < p.hosts.size(); ++h) p.network.host_switch.push_back(static_cast<int>(h % 3));
    std::mt19937_64 rng(seed);
    const int V = static_cast<int>(p.vms.size());
    for (int e = 0; e < 2 * V; ++e) {
        const int a = static_cast<int>(rng() % V), b = static_cast<int>(rng() % V);
        if (a != b) p.vlinks.push_back(Vlink{a, b, lo + static_cast<std::int64_t>(rng() % span), -1});
    }
}

/** Branch-and-bound parameters for a cold exact solve (no warm start: the search must find the
 *  optimum itself), 60 s, with or without symmetry breaking. */
inline BranchBoundParams cold_bb(bool symmetry) {
    BranchBoundParams bp;
    bp.time_limit_s = 60;
    bp.warm_start_evaluations = -1;
    bp.symmetry = symmetry;
    return bp;
}

}  // namespace vmcap::test
