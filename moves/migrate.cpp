#include "moves/migrate.h"

namespace vmcap {

MigrateDelta MigrateMove::evaluate(const SearchState& s) const {
    MigrateDelta out;
    const Problem& p = s.problem();
    const CapacityModel& m = s.model();
    const Vm& orig = p.vms[vm];
    const int src = s.host_of(vm);
    if (!orig.migratable || host == src) return out;
    const Flavor& fl = p.flavors[orig.flavor];
    const int k = fl.num_vnuma();
    const int R = m.num_resources();
    const int T = m.num_targets();
    const Amount* nd = fl.node_demand.data();

    // Source host: capacity gained by removing the VM (only its nodes' b entries change).
    const int src_type = p.hosts[src].type;
    const int ns = p.host_types[src_type].num_nodes();
    const Amount* fs = s.free_of(src);
    const std::uint8_t* cur = s.pnuma_of(vm);
    Amount fr[kMaxVNuma * kMaxResources];  // free amounts of the VM's nodes after removal
    const int stride = R;
    for (int i = 0; i < k; ++i)
        for (int r = 0; r < R; ++r) fr[i * stride + r] = fs[cur[i] * R + r] + nd[r];
    double d_src = 0.0;
    Count tmp[kMaxPNuma];
    for (int j = 0; j < T; ++j) {
        const int tf = m.target_flavor(j);
        const Count* b = s.slots_of(src, j);
        for (int i = 0; i < ns; ++i) tmp[i] = b[i];
        for (int i = 0; i < k; ++i) tmp[cur[i]] = m.node_slots(tf, fr + i * stride);
        const Count c = m.evaluator(src_type, tf)(tmp);
        d_src += m.target_weight(j) * static_cast<double>(c - s.capacity(src, j));
    }

    // Destination host: best placement.
    const int dst_type = p.hosts[host].type;
    const int nd_nodes = p.host_types[dst_type].num_nodes();
    const Amount* fd = s.free_of(host);
    const auto& placements = m.evaluator(dst_type, orig.flavor).placements();
    const bool was_migrated = s.is_migrated(vm);
    const std::int64_t base_migrations = s.migrations() - (was_migrated ? 1 : 0);
    const Amount base_ram = s.migrated_ram_mib() - (was_migrated ? fl.demand[kRamMib] : 0);
    const Constraints& c = p.constraints;
    double best = 0.0;
    bool best_migrates = true;
    Amount left[kMaxVNuma * kMaxResources];
    for (std::size_t e = 0; e < placements.size(); ++e) {
        const Embedding& emb = placements[e];
        bool fits = true;
        for (int i = 0; i < k && fits; ++i)
            for (int r = 0; r < R; ++r) {
                const Amount l = fd[emb.map[i] * R + r] - nd[r];
                if (l < 0) { fits = false; break; }
                left[i * R + r] = l;
            }
        if (!fits) continue;
        const bool migrates = s.differs_from_origin(vm, host, emb.mask);
        if (migrates && (base_migrations + 1 > c.max_migrations || base_ram + fl.demand[kRamMib] > c.max_migrated_ram_mib)) continue;
        double gain = 0.0;
        for (int j = 0; j < T; ++j) {
            const int tf = m.target_flavor(j);
            const Count* b = s.slots_of(host, j);
            for (int i = 0; i < nd_nodes; ++i) tmp[i] = b[i];
            for (int i = 0; i < k; ++i) tmp[emb.map[i]] = m.node_slots(tf, left + i * R);
            gain += m.target_weight(j) * static_cast<double>(m.evaluator(dst_type, tf)(tmp) - s.capacity(host, j));
        }
        if (out.embedding < 0 || gain > best || (gain == best && best_migrates && !migrates)) {
            out.embedding = static_cast<int>(e);
            best = gain;
            best_migrates = migrates;
        }
    }
    if (out.embedding < 0) return out;
    out.feasible = true;
    out.delta = d_src + best;
    out.migrations_after = base_migrations + (best_migrates ? 1 : 0);
    return out;
}

void MigrateMove::apply(SearchState& s, const MigrateDelta& d) const {
    const int flavor = s.problem().vms[vm].flavor;
    const auto& placements = s.model().evaluator(s.problem().hosts[host].type, flavor).placements();
    s.move(vm, host, placements[d.embedding]);
}

}  // namespace vmcap
