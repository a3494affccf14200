#pragma once
/**
 * @file tight_cases.h
 * Generator of tight ordering cases: snapshots whose best final state is a rotation of
 * n VMs around a ring of n full hosts (n = 2: a swap pair; 3- and 4-chains), so that no VM can
 * move to its final place before the next one has left: a plan needs a detour, and a budget one
 * short of it reaches less than the final-state optimum. Used by the tests and the quality table.
 *
 * Construction (per pNUMA node 16 units of every resource; resources vcpu, ram_mib (units of
 * 1 GiB) and, for n >= 3, extra resources r2, r3 so that each VM is heavy in its own resource):
 * - target flavor "t": 2 units of every resource, one vNUMA node, weight 1;
 * - VM v_i (flavor m<i>, migratable) on node 0 of host i demands 1 unit of every resource plus 2
 *   of resource i; node 0 of host i is left with 2 units free of every resource except 0 of
 *   resource i and 4 of resource i-1 (a non-migratable filler takes the rest). So v_{i-1} does
 *   not fit on host i until v_i has left (it needs 1 of resource i), nothing fits on any node 0,
 *   and after the rotation (v_{i-1} onto host i) every node 0 has 2 free of everything: +1 "t"
 *   per host, +n in all. No other final state of n moves gains as much.
 * - variant Spare: one more, empty host; a VM can detour there (n + 1 steps for the rotation;
 *   with n steps the best plan leaves one VM on the spare host, which costs it 2: n - 2).
 * - variant NumaDetour: K2 hosts whose node 1 on host i has exactly v_{i-1} + 1 unit of every
 *   resource free (one "t", which v_{i-1} landing there costs): v_{i-1} may detour onto node 1
 *   of its destination and remap to node 0 once v_i has left — the order through the other pNUMA
 *   nodes of the destination. n + 1 steps, or n with free remaps; with n counted steps the best
 *   plan leaves one VM on node 1 and gains n - 1.
 * - variant Closed: K1 hosts and no spare: the rotation has no order at all (gain 0).
 */
#include <string>
#include <vector>

#include "evaluators/state/search_state.h"
#include "instances/problem.h"
#include "instances/topology.h"

namespace vmcap::test {

enum class TightVariant { Closed, Spare, NumaDetour };

inline const char* to_string(TightVariant v) {
    return v == TightVariant::Closed ? "closed" : v == TightVariant::Spare ? "spare-host" : "numa-detour";
}

/** Hand-derived gain of the best orderable plan (see the file comment), checked by brute force. */
inline int tight_expected_gain(int n, TightVariant v, int budget, bool free_remaps) {
    if (v == TightVariant::Closed || budget < n - 1) return 0;
    if (v == TightVariant::Spare) return budget >= n + 1 ? n : budget == n ? n - 2 : 0;
    if (free_remaps) return budget >= n ? n : 0;
    return budget >= n + 1 ? n : budget == n ? n - 1 : 0;
}

/** The ring snapshot of ring size n (2..4), variant, budget (migrations) and remap rule. */
inline Problem tight_ring(int n, TightVariant variant, int budget, bool free_remaps) {
    Problem p;
    p.resources = {"vcpu", "ram_mib"};
    if (n >= 3) p.resources.push_back("r2");
    if (n >= 4) p.resources.push_back("r3");
    const int R = static_cast<int>(p.resources.size());
    auto unit = [](int r) -> Amount { return r == 1 ? 1024 : 1; };
    HostType ht;
    const bool k2 = variant == TightVariant::NumaDetour;
    ht.name = k2 ? "k2" : "k1";
    ht.topology = parse_topology(k2 ? "K2" : "K1");
    for (int i = 0; i < ht.num_nodes(); ++i)
        for (int r = 0; r < R; ++r) ht.node_capacity.push_back(16 * unit(r));
    p.host_types.push_back(ht);
    // Names built by appending: "h" + std::to_string(h) trips a GCC 12 -O3 -Wrestrict false positive.
    const auto named = [](char prefix, int i) {
        std::string s(1, prefix);
        s += std::to_string(i);
        return s;
    };
    const int hosts = n + (variant == TightVariant::Spare ? 1 : 0);
    for (int h = 0; h < hosts; ++h) p.hosts.push_back(Host{named('h', h), 0, "r0", "p0", ""});
    auto flavor = [&](const std::string& name, const std::vector<Amount>& units, double weight) {
        Flavor f;
        f.name = name;
        for (int r = 0; r < R; ++r) f.demand.push_back(units[r] * unit(r));
        f.vnuma = parse_topology("K1");
        f.weight = weight;
        p.flavors.push_back(f);
        return static_cast<int>(p.flavors.size()) - 1;
    };
    flavor("t", std::vector<Amount>(R, 2), 1.0);
    auto vm = [&](const std::string& id, int fl, int host, int node, bool migratable) {
        Vm v;
        v.id = id;
        v.flavor = fl;
        v.host = host;
        v.pnuma[0] = static_cast<std::uint8_t>(node);
        v.migratable = migratable;
        p.vms.push_back(v);
    };
    for (int i = 0; i < n; ++i) {
        const int prev = (i + n - 1) % n;  // resource i-1 (mod n)
        std::vector<Amount> m(R, 1), f0(R, 13), f1(R, 14);
        m[i] += 2;
        f0[prev] -= 2;  // node 0 free: 2 - 2e_i + 2e_{i-1}
        f1[prev] -= 2;  // node 1 free: 2 + 2e_{i-1}
        vm(named('v', i), flavor(named('m', i), m, 0.0), i, 0, true);
        vm(named('f', i), flavor(named('f', i), f0, 0.0), i, 0, false);
        if (k2) vm(named('g', i), flavor(named('g', i), f1, 0.0), i, 1, false);
    }
    p.constraints.max_migrations = budget;
    p.constraints.remap_counts_as_migration = !free_remaps;
    finalize_problem(p, "<tight>");
    return p;
}

/** The final-state optimum of a ring snapshot: every v_i on node 0 of host i + 1 (mod n), the
 *  same node set as now (placements of the migrated VMs). */
inline std::vector<Placement> tight_rotation(const Problem& p, int n) {
    std::vector<Placement> out;
    for (std::size_t v = 0; v < p.vms.size(); ++v)
        if (p.vms[v].migratable) out.push_back(Placement{static_cast<int>(v), (p.vms[v].id[1] - '0' + 1) % n, p.vms[v].pnuma});
    return out;
}

/** One case of the tight suite. */
struct TightCase {
    int n;
    TightVariant variant;
    int budget;
    bool free_remaps;
    std::string name() const {
        return "ring" + std::to_string(n) + "-" + to_string(variant) + "-b" + std::to_string(budget) + (free_remaps ? "-free" : "");
    }
};

/** Ring sizes 2-4 x the three variants x budgets n (one short of the detour) and n + 1 (exactly
 *  at it) x remaps counted / free (36 cases). */
inline std::vector<TightCase> tight_suite() {
    std::vector<TightCase> out;
    for (int n = 2; n <= 4; ++n)
        for (TightVariant v : {TightVariant::Closed, TightVariant::Spare, TightVariant::NumaDetour})
            for (int b : {n, n + 1})
                for (bool fr : {false, true}) out.push_back(TightCase{n, v, b, fr});
    return out;
}

}  // namespace vmcap::test
