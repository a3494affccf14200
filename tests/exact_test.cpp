// vmcap exact (MILP, CBC) against brute force over every plan of at most one or two migrations;
// vmcap generate determinism and validity.
#include <gtest/gtest.h>

#include <functional>

#include "evaluators/search_state.h"
#include "instances/generator.h"
#include "instances/snapshot_io.h"
#include "optimizer/exact.h"

namespace vmcap {
namespace {

/** Best objective over every final state reachable by moving at most `budget` VMs (brute force). */
double brute_force(const CapacityModel& m, int budget) {
    const Problem& p = m.problem();
    SearchState s(m);
    double best = s.objective();
    std::vector<Placement> moved;
    // Depth-first over (VM index increasing, destination host, placement) with incremental state.
    std::function<void(int, int)> rec = [&](int first_vm, int left) {
        if (left == 0) return;
        for (int v = first_vm; v < static_cast<int>(p.vms.size()); ++v) {
            if (!p.vms[v].migratable) continue;
            const int home = s.host_of(v);
            const std::array<std::uint8_t, kMaxVNuma> home_map = p.vms[v].pnuma;
            for (int h = 0; h < static_cast<int>(p.hosts.size()); ++h)
                for (const Embedding& e : m.evaluator(p.hosts[h].type, p.vms[v].flavor).placements()) {
                    if (!s.differs_from_origin(v, h, e.mask)) continue;
                    // Room check on the state without v.
                    SearchState t = s;
                    bool fits = true;
                    const Flavor& fl = p.flavors[p.vms[v].flavor];
                    for (int i = 0; i < fl.num_vnuma() && fits; ++i)
                        for (int r = 0; r < p.num_resources(); ++r) {
                            Amount free = s.free_of(h)[e.map[i] * p.num_resources() + r];
                            if (h == home)
                                for (int c = 0; c < fl.num_vnuma(); ++c)
                                    if (home_map[c] == e.map[i]) free += fl.node_demand[r];
                            if (free < fl.node_demand[r]) fits = false;
                        }
                    if (!fits) continue;
                    t.move(v, h, e);
                    if (t.migrated_ram_mib() > p.constraints.max_migrated_ram_mib) continue;
                    best = std::max(best, t.objective());
                    std::swap(s, t);
                    rec(v + 1, left - 1);
                    std::swap(s, t);
                }
        }
    };
    rec(0, budget);
    return best;
}

TEST(Exact, EqualsBruteForceOnTinyInstances) {
    int compared = 0;
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        GenerateOptions o;
        o.hosts = 2 + static_cast<int>(seed % 2);
        o.vms = 6 + static_cast<int>(seed % 3);
        o.host_topology = seed % 2 ? "K4" : "CQ3";
        o.node_vcpu = 8;
        o.node_ram_mib = 32 * 1024;
        o.churn = 0.5;
        o.seed = seed;
        Problem p = generate_cluster(o);
        const int budget = 1 + static_cast<int>(seed % 2);
        p.constraints.max_migrations = budget;
        const CapacityModel m(p);
        if (m.num_targets() == 0) continue;
        const ExactResult ex = solve_exact(m, 60);
        if (!ex.proven) continue;
        SCOPED_TRACE("seed " + std::to_string(seed));
        EXPECT_DOUBLE_EQ(ex.objective, brute_force(m, budget));
        EXPECT_LE(static_cast<int>(ex.best.size()), budget);
        ++compared;
    }
    EXPECT_GE(compared, 6);
}

TEST(Generate, DeterministicValidAndFragmented) {
    GenerateOptions o;
    o.hosts = 30;
    o.vms = 600;
    o.seed = 5;
    const Problem a = generate_cluster(o), b = generate_cluster(o);
    EXPECT_EQ(snapshot_to_json(a).dump(), snapshot_to_json(b).dump());
    EXPECT_EQ(a.vms.size(), 600u);
    EXPECT_EQ(a.constraints.max_migrations, 6);
    // Loading the written form re-checks every VM (distinct nodes, edges, capacity).
    EXPECT_NO_THROW(parse_snapshot(nlohmann::json::parse(format_json_lines(snapshot_to_json(a))), "gen.json"));
    o.seed = 6;
    EXPECT_NE(snapshot_to_json(generate_cluster(o)).dump(), snapshot_to_json(a).dump());
    o.host_topology = "K1";
    o.node_vcpu = 1;
    o.node_ram_mib = 1024;
    EXPECT_THROW(generate_cluster(o), InputError);  // no catalog flavor fits
}

}  // namespace
}  // namespace vmcap
