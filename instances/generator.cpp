#include "instances/generator.h"

#include <algorithm>
#include <cmath>

#include "instances/vnuma_rule.h"

namespace vmcap {

namespace {

// splitmix64: a tiny seeded generator independent of the standard library's distributions.
struct Mix {
    std::uint64_t x;
    std::uint64_t next() {
        std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    std::uint64_t below(std::uint64_t n) { return next() % n; }
};

}  // namespace

Problem generate_cluster(const GenerateOptions& o) {
    if (o.hosts < 1) throw InputError("generate: --hosts must be >= 1");
    if (o.vms < 0) throw InputError("generate: --vms must be >= 0");
    if (!(o.churn >= 0 && o.churn <= 10)) throw InputError("generate: --churn must be in [0, 10]");
    Problem p;
    p.resources = {"vcpu", "ram_mib"};
    HostType ht = uniform_host_type(o.host_topology, o.node_vcpu, o.node_ram_mib);
    p.host_types.push_back(ht);
    for (int h = 0; h < o.hosts; ++h) {
        char id[32], rack[32];
        std::snprintf(id, sizeof id, "h%05d", h + 1);
        std::snprintf(rack, sizeof rack, "r%04d", h / std::max(1, o.hosts_per_rack) + 1);
        p.hosts.push_back(Host{id, 0, rack, "p001", ""});
    }
    const std::pair<Amount, Amount> catalog[] = {{1, 2}, {2, 4}, {4, 8}, {4, 16}, {8, 32}, {8, 64}, {16, 64}, {16, 128}};
    const VnumaRule rule;
    for (auto [vcpu, gib] : catalog) {
        Flavor f;
        f.name = std::to_string(vcpu) + "c" + std::to_string(gib) + "g";
        f.demand = {vcpu, gib * 1024};
        try {
            f.vnuma = vnuma_topology_for(ht, f.demand, f.name, rule);
        } catch (const InputError&) {
            continue;  // does not fit this host type at all
        }
        p.flavors.push_back(f);
    }
    if (p.flavors.empty()) throw InputError("generate: no flavor of the catalog fits a host of type " + ht.name);
    weigh_multi_numa_targets(p.flavors);
    for (auto& f : p.flavors) {
        f.node_demand.resize(2);
        for (int r = 0; r < 2; ++r) f.node_demand[r] = f.demand[r] / f.num_vnuma();
    }

    // Small flavors are more common, as in public traces.
    std::vector<std::uint64_t> cum;
    std::uint64_t total = 0;
    for (std::size_t f = 0; f < p.flavors.size(); ++f) cum.push_back(total += 64 >> std::min<std::size_t>(f, 5));
    std::vector<std::vector<Embedding>> embs;
    for (const auto& f : p.flavors) embs.push_back(enumerate_embeddings(ht.topology.graph, f.vnuma.graph));

    const int R = 2;
    std::vector<Amount> used(static_cast<std::size_t>(o.hosts) * ht.node_capacity.size(), 0);
    Mix rng{o.seed * 0x2545F4914F6CDD1DULL + 1};
    const int goal = o.vms + static_cast<int>(std::lround(o.churn * o.vms));
    std::vector<Vm> placed;
    int failures = 0;
    while (static_cast<int>(placed.size()) < goal && failures < 200 + 20 * goal) {
        const std::uint64_t pick = rng.below(total);
        const int f = static_cast<int>(std::upper_bound(cum.begin(), cum.end(), pick) - cum.begin());
        const Flavor& fl = p.flavors[f];
        const int h = static_cast<int>(rng.below(static_cast<std::uint64_t>(o.hosts)));
        const Embedding& e = embs[f][rng.below(embs[f].size())];
        Amount* u = used.data() + static_cast<std::size_t>(h) * ht.node_capacity.size();
        bool ok = true;
        for (int v = 0; v < fl.num_vnuma() && ok; ++v)
            for (int r = 0; r < R; ++r) ok = ok && u[e.map[v] * R + r] + fl.node_demand[r] <= ht.node_capacity[e.map[v] * R + r];
        if (!ok) {
            ++failures;
            continue;
        }
        Vm vm;
        vm.flavor = f;
        vm.host = h;
        for (int v = 0; v < fl.num_vnuma(); ++v) {
            vm.pnuma[v] = e.map[v];
            for (int r = 0; r < R; ++r) u[e.map[v] * R + r] += fl.node_demand[r];
        }
        placed.push_back(vm);
    }
    // Churn: delete random VMs until `vms` remain.
    while (static_cast<int>(placed.size()) > o.vms) {
        const std::size_t i = rng.below(placed.size());
        std::swap(placed[i], placed.back());
        placed.pop_back();
    }
    std::sort(placed.begin(), placed.end(),
              [](const Vm& a, const Vm& b) { return a.host != b.host ? a.host < b.host : a.pnuma < b.pnuma; });
    for (std::size_t i = 0; i < placed.size(); ++i) {
        placed[i].id = "vm" + std::to_string(i + 1);
        p.vms.push_back(placed[i]);
    }
    p.constraints.max_migrations = static_cast<std::int64_t>(std::ceil(o.migration_budget * static_cast<double>(p.vms.size())));
    p.source = "vmcap generate: hosts=" + std::to_string(o.hosts) + " x " + ht.name + ", vms=" + std::to_string(p.vms.size()) +
               ", churn=" + std::to_string(o.churn) + ", seed=" + std::to_string(o.seed);
    finalize_problem(p, "<generate>");
    return p;
}

void add_network(Problem& p, const NetworkOptions& o) {
    if (o.vdc_size < 0 || o.vdc_size > 30 || o.vdc_size == 1) throw InputError("generate: --vdc-size must be 0 or in 2..30");
    if (o.bpc_mbps < 1 || o.bpc_mbps > 1'000'000) throw InputError("generate: --bpc must be in 1..1000000 Mbps per vCPU");
    build_datacenter_network(p, o, "generate");
    if (o.vdc_size == 0) return;
    std::vector<int> order(p.vms.size());
    for (std::size_t v = 0; v < order.size(); ++v) order[v] = static_cast<int>(v);
    Mix rng{o.seed * 0x9E3779B97F4A7C15ULL + 7};
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
    for (std::size_t first = 0; first + 1 < order.size(); first += static_cast<std::size_t>(o.vdc_size)) {
        const std::size_t last = std::min(order.size(), first + static_cast<std::size_t>(o.vdc_size));
        if (last - first < 2) break;
        const std::vector<int> members(order.begin() + static_cast<std::ptrdiff_t>(first),
                                       order.begin() + static_cast<std::ptrdiff_t>(last));
        add_all_to_all_vdc(p, "vdc" + std::to_string(p.vdcs.size() + 1), members, static_cast<double>(o.bpc_mbps));
    }
}

}  // namespace vmcap
