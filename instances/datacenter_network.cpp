#include "instances/datacenter_network.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <utility>

namespace vmcap {

namespace {

[[noreturn]] void fail(const std::string& context, const std::string& what) {
    std::string msg = context;
    msg += ": ";
    msg += what;
    throw InputError(msg);
}

bool known_kind(const std::string& kind) {
    return kind == "leaf-spine" || kind == "tree" || kind == "jupiter";
}

std::string numbered(const char* prefix, long long n) {
    std::string s = prefix;
    s += std::to_string(n);
    return s;
}

}  // namespace

int tor_uplinks(const DatacenterNetworkOptions& o) {
    if (o.kind == "leaf-spine") return o.spines;
    if (o.kind == "tree") return 1;
    if (o.kind == "jupiter") return o.mbs_per_pod;
    return 0;
}

void build_datacenter_network(Problem& p, const DatacenterNetworkOptions& o, const std::string& context) {
    if (!known_kind(o.kind)) fail(context, "--network must be leaf-spine, tree or jupiter, got '" + o.kind + "'");
    if (o.spines < 1 || o.racks_per_pod < 1 || o.mbs_per_pod < 1) fail(context, "--spines, --racks-per-pod and --mbs-per-pod must be >= 1");
    if (o.spine_links < 0 || o.spine_links > 64) fail(context, "--spine-links must be in 0..64");
    for (std::int64_t c : {o.nic_mbps, o.tor_uplink_mbps, o.agg_uplink_mbps})
        if (c < 1 || c > kMaxMbps) fail(context, "link capacities must be in 1.." + std::to_string(kMaxMbps) + " Mbps");
    for (const Host& h : p.hosts)
        if (h.rack.empty()) fail(context, "host \"" + h.id + "\" has no rack, so no ToR switch");

    Network net;
    std::unordered_map<std::string, int> tor;  // rack -> ToR switch (lookup only; order from the hosts)
    for (const Host& h : p.hosts) {
        auto [it, fresh] = tor.emplace(h.rack, static_cast<int>(net.switches.size()));
        if (fresh) net.switches.push_back(h.rack);
    }
    const int racks = static_cast<int>(net.switches.size());
    const int pods = (racks + o.racks_per_pod - 1) / o.racks_per_pod;
    if (o.kind == "leaf-spine") {
        for (int s = 0; s < o.spines; ++s) {
            net.switches.push_back(numbered("spine", s + 1));
            for (int r = 0; r < racks; ++r) net.links.push_back(NetLink{r, racks + s, o.tor_uplink_mbps});
        }
        for (int s = 0; s < o.spines; ++s)
            for (int t = s + 1; t < o.spines; ++t)
                for (int k = 0; k < o.spine_links; ++k) net.links.push_back(NetLink{racks + s, racks + t, o.agg_uplink_mbps});
    } else if (o.kind == "tree") {
        for (int q = 0; q < pods; ++q) net.switches.push_back(numbered("agg", q + 1));
        net.switches.push_back("core");
        for (int r = 0; r < racks; ++r) net.links.push_back(NetLink{r, racks + r / o.racks_per_pod, o.tor_uplink_mbps});
        for (int q = 0; q < pods; ++q) net.links.push_back(NetLink{racks + q, racks + pods, o.agg_uplink_mbps});
    } else {                    // jupiter
        const int mb0 = racks;  // middle block m of pod q: mb0 + q * mbs_per_pod + m
        for (int q = 0; q < pods; ++q)
            for (int m = 0; m < o.mbs_per_pod; ++m) {
                std::string name = numbered("p", q + 1);
                name += "-mb";
                name += std::to_string(m + 1);
                net.switches.push_back(std::move(name));
            }
        for (int r = 0; r < racks; ++r)
            for (int m = 0; m < o.mbs_per_pod; ++m)
                net.links.push_back(NetLink{r, mb0 + (r / o.racks_per_pod) * o.mbs_per_pod + m, o.tor_uplink_mbps});
        if (pods > 1) {
            const int sb0 = mb0 + pods * o.mbs_per_pod;
            for (int s = 0; s < o.spines; ++s) net.switches.push_back(numbered("sb", s + 1));
            for (int b = 0; b < pods * o.mbs_per_pod; ++b)
                for (int s = 0; s < o.spines; ++s) net.links.push_back(NetLink{mb0 + b, sb0 + s, o.agg_uplink_mbps});
        }
    }
    net.host_switch.resize(p.hosts.size());
    for (std::size_t h = 0; h < p.hosts.size(); ++h) net.host_switch[h] = tor.at(p.hosts[h].rack);

    // Commit (nothing above touched the problem).
    for (auto& ht : p.host_types) ht.nic_mbps = o.nic_mbps;
    for (Host& h : p.hosts) {
        h.uplink.clear();
        if (o.kind != "leaf-spine") h.pod = numbered("p", tor.at(h.rack) / o.racks_per_pod + 1);
    }
    p.network = std::move(net);
    p.vlinks.clear();
    p.vdcs.clear();
}

std::int64_t oversubscribed_tor_uplink_mbps(const DatacenterNetworkOptions& o, int hosts_per_rack, double ratio) {
    if (!std::isfinite(ratio) || !(ratio > 0.0)) throw InputError("--oversubscription must be a finite number > 0");
    if (hosts_per_rack < 1) throw InputError("--oversubscription needs --hosts-per-rack >= 1");
    const int up = tor_uplinks(o);
    if (up < 1) throw InputError("--oversubscription: unknown network '" + o.kind + "'");
    const double mbps = std::floor(static_cast<double>(hosts_per_rack) * static_cast<double>(o.nic_mbps) / (ratio * up));
    if (!(mbps >= 1.0) || mbps > static_cast<double>(kMaxMbps))
        throw InputError("--oversubscription " + std::to_string(ratio) + " gives a ToR uplink outside 1.." + std::to_string(kMaxMbps) +
                         " Mbps");
    return static_cast<std::int64_t>(mbps);
}

const std::vector<TopologyPreset>& topology_presets() {
    static const std::vector<TopologyPreset> presets = [] {
        std::vector<TopologyPreset> v;
        TopologyPreset t1;
        t1.name = "T1";
        t1.description =
            "Jupiter 4-rack (seed 003 digest §8.2 T1): 192 hosts = 4 racks x 48, one middle block, 40G NIC, "
            "640G per ToR-MB link (3:1); hosts K2 30 vCPU + 128 GiB per pNUMA node";
        t1.hosts = 192;
        t1.hosts_per_rack = 48;
        t1.network.kind = "jupiter";
        t1.network.racks_per_pod = 4;
        t1.network.mbs_per_pod = 1;
        t1.network.spines = 1;  // spine blocks: none with one pod
        t1.network.nic_mbps = 40'000;
        t1.network.tor_uplink_mbps = 640'000;
        t1.network.agg_uplink_mbps = 160'000;  // Jupiter's MB-SB 4 x 40G; unused with one pod
        t1.host_topology = "K2";
        t1.node_vcpu = 30;
        t1.node_ram_mib = 128 * 1024;
        v.push_back(t1);

        TopologyPreset t3;
        t3.name = "T3";
        t3.description =
            "commercial leaf-spine US-Mid2 (digest §2.1, §8.2 T3): 800 hosts = 40 racks x 20, 20G NIC, "
            "40G from every ToR to each of 2 spines, 4 x 40G spine-spine";
        t3.hosts = 800;
        t3.hosts_per_rack = 20;
        t3.network.kind = "leaf-spine";
        t3.network.racks_per_pod = 40;  // one cluster
        t3.network.spines = 2;
        t3.network.spine_links = 4;
        t3.network.nic_mbps = 20'000;
        t3.network.tor_uplink_mbps = 40'000;
        t3.network.agg_uplink_mbps = 40'000;
        v.push_back(t3);

        for (int big = 0; big < 2; ++big) {
            TopologyPreset t5;
            t5.name = big ? "T5-2000" : "T5";
            t5.hosts = big ? 2000 : 200;
            t5.hosts_per_rack = 20;
            t5.network.kind = "tree";
            t5.network.racks_per_pod = big ? 10 : 5;
            t5.network.nic_mbps = 10'000;
            t5.network.tor_uplink_mbps = 100'000;
            t5.network.agg_uplink_mbps = big ? 500'000 : 250'000;
            t5.description = big ? "tree (digest §8.2 T5, 2,000-server variant): 2,000 hosts = 100 racks x 20, 10 racks per "
                                   "aggregation switch, one core; chosen capacities 10G NIC, 100G ToR uplink, 500G aggregation uplink"
                                 : "tree (digest §8.2 T5): 200 hosts = 10 racks x 20, 5 racks per aggregation switch, one core; "
                                   "chosen capacities 10G NIC, 100G ToR uplink, 250G aggregation uplink";
            v.push_back(t5);
        }
        return v;
    }();
    return presets;
}

const TopologyPreset& topology_preset(const std::string& name) {
    std::string names;
    for (const TopologyPreset& t : topology_presets()) {
        if (t.name == name) return t;
        if (!names.empty()) names += ", ";
        names += t.name;
    }
    throw InputError("--topology-preset must be one of " + names + ", got '" + name + "'");
}

std::string chopped_vdc_id(const std::string& parent, std::int64_t position, int cap) {
    if (cap < 1) throw InputError("VDC cap must be >= 1, got " + std::to_string(cap));
    if (position < 0) throw InputError("VDC chop: negative position");
    const std::int64_t chunk = position / cap;
    if (chunk == 0) return parent;
    std::string id = parent;
    id += "__";
    id += std::to_string(chunk - 1);
    return id;
}

std::vector<ChoppedVdc> chop_vdc(const std::string& parent, std::int64_t creates, int cap) {
    if (cap < 1) throw InputError("VDC cap must be >= 1, got " + std::to_string(cap));
    if (creates < 0) throw InputError("VDC chop: negative number of creates");
    std::vector<ChoppedVdc> out;
    for (std::int64_t first = 0; first < creates; first += cap)
        out.push_back(ChoppedVdc{chopped_vdc_id(parent, first, cap), std::min<std::int64_t>(cap, creates - first)});
    return out;
}

std::int64_t gridiron_vlink_mbps(double bpc_mbps, Amount cores_a, Amount cores_b) {
    if (!std::isfinite(bpc_mbps) || bpc_mbps < 0.0) throw InputError("--bpc must be a finite number >= 0");
    const double mbps = std::floor(bpc_mbps * static_cast<double>(std::min(cores_a, cores_b)));
    if (mbps > static_cast<double>(kMaxMbps))
        throw InputError("vlink of " + std::to_string(bpc_mbps) + " Mbps per vCPU x " + std::to_string(std::min(cores_a, cores_b)) +
                         " vCPU is above " + std::to_string(kMaxMbps) + " Mbps");
    return mbps > 0.0 ? static_cast<std::int64_t>(mbps) : 0;
}

std::size_t add_all_to_all_vdc(Problem& p, const std::string& id, const std::vector<int>& members, double bpc_mbps) {
    std::vector<Vlink> links;
    const int d = static_cast<int>(p.vdcs.size());
    for (int m : members)
        if (m < 0 || m >= static_cast<int>(p.vms.size())) throw InputError("VDC \"" + id + "\": VM index out of range");
    for (std::size_t i = 0; i < members.size(); ++i)
        for (std::size_t j = i + 1; j < members.size(); ++j) {
            const int a = members[i], b = members[j];
            const Amount ca = p.flavors[static_cast<std::size_t>(p.vms[static_cast<std::size_t>(a)].flavor)].demand[kVcpu];
            const Amount cb = p.flavors[static_cast<std::size_t>(p.vms[static_cast<std::size_t>(b)].flavor)].demand[kVcpu];
            const std::int64_t mbps = gridiron_vlink_mbps(bpc_mbps, ca, cb);
            if (mbps > 0) links.push_back(Vlink{a, b, mbps, d});
        }
    if (links.empty()) return 0;
    p.vdcs.push_back(id);
    p.vlinks.insert(p.vlinks.end(), links.begin(), links.end());
    return links.size();
}

TraceVdcStats add_trace_vdcs(Problem& p, const std::vector<TraceVm>& trace, const std::vector<std::size_t>& vm_trace_index, double bpc_mbps,
                             int cap) {
    if (cap < 1) throw InputError("--vdc-cap must be >= 1, got " + std::to_string(cap));
    if (!std::isfinite(bpc_mbps) || bpc_mbps < 0.0) throw InputError("--bpc must be a finite number >= 0");
    if (vm_trace_index.size() != p.vms.size())
        throw InputError("trace VDCs: " + std::to_string(vm_trace_index.size()) + " trace indices for " + std::to_string(p.vms.size()) +
                         " VMs");
    std::vector<int> snapshot_vm(trace.size(), -1);  // trace index -> problem VM
    for (std::size_t v = 0; v < vm_trace_index.size(); ++v) {
        const std::size_t t = vm_trace_index[v];
        if (t >= trace.size() || snapshot_vm[t] >= 0) throw InputError("trace VDCs: bad trace index of VM \"" + p.vms[v].id + "\"");
        if (trace[t].batch < 0)
            throw InputError("trace VDCs: VM \"" + p.vms[v].id + "\" has no tenant batch (the trace has no batches, e.g. Huawei-East-1)");
        snapshot_vm[t] = static_cast<int>(v);
    }

    // One pass in trace order: each VM's position in its batch gives its chopped VDC; VDCs are
    // collected in order of their first snapshot VM (the maps are only looked up, never iterated).
    using BatchKey = std::pair<std::int32_t, std::int64_t>;           // (copy, batch)
    std::map<BatchKey, std::int64_t> seen;                            // batch -> VMs so far (whole trace)
    std::map<std::pair<BatchKey, std::int64_t>, std::size_t> vdc_of;  // (batch, chunk) -> index in `vdcs`
    struct Group {
        std::size_t first_vm = 0;  // trace index of the batch's first VM, for its name
        std::int64_t chunk = 0;
        std::vector<int> members;
    };
    std::vector<Group> vdcs;
    std::map<BatchKey, std::size_t> batch_first;  // batch -> trace index of its first VM
    for (std::size_t t = 0; t < trace.size(); ++t) {
        if (trace[t].batch < 0) continue;
        const BatchKey key{trace[t].copy, trace[t].batch};
        const std::int64_t pos = seen[key]++;
        if (pos == 0) batch_first.emplace(key, t);
        if (snapshot_vm[t] < 0) continue;
        const std::int64_t chunk = pos / cap;
        auto [it, fresh] = vdc_of.emplace(std::make_pair(key, chunk), vdcs.size());
        if (fresh) vdcs.push_back(Group{batch_first.at(key), chunk, {}});
        vdcs[it->second].members.push_back(snapshot_vm[t]);
    }

    TraceVdcStats st;
    std::map<BatchKey, char> counted;
    const std::size_t vlinks_before = p.vlinks.size();
    for (const Group& g : vdcs) {
        const TraceVm& first = trace[g.first_vm];
        const BatchKey key{first.copy, first.batch};
        if (counted.emplace(key, 1).second) {
            ++st.batches;
            if (seen.at(key) > cap) ++st.chopped_batches;
        }
        st.largest_vdc = std::max<std::int64_t>(st.largest_vdc, static_cast<std::int64_t>(g.members.size()));
        if (add_all_to_all_vdc(p, chopped_vdc_id(trace_batch_name(first), g.chunk * cap, cap), g.members, bpc_mbps) > 0) ++st.vdcs;
    }
    st.vlinks = static_cast<std::int64_t>(p.vlinks.size() - vlinks_before);
    for (std::size_t i = vlinks_before; i < p.vlinks.size(); ++i) st.total_mbps += p.vlinks[i].mbps;
    return st;
}

}  // namespace vmcap
