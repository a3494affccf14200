#include "instances/openstack.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

#include "instances/nova_numa.h"
#include "instances/snapshot_io.h"
#include "instances/topology.h"

namespace vmcap {

namespace {

using json = nlohmann::json;

/** Errors "<file>: [i] (<what> \"id\").<key>: <why>". */
struct Where {
    const std::string& file;
    InputError fail(const std::string& path, const std::string& why) const { return InputError(file + ": " + path + ": " + why); }
};

const json& rows(const OpenStackInput& in, const char* command) {
    if (!in.doc.is_array()) throw InputError(in.file + ": expected the JSON array that `" + command + " -f json` prints");
    return in.doc;
}

std::string text(const Where& w, const json& row, const std::string& path, const char* key, bool required = true) {
    if (!row.is_object()) throw w.fail(path, "expected an object");
    const auto it = row.find(key);
    if (it == row.end() || it->is_null()) {
        if (required) throw w.fail(path, std::string("missing \"") + key + "\"");
        return "";
    }
    // A required name or ID must not be empty: it becomes an id of the snapshot, whose loader
    // would refuse it naming the --out file instead of this row.
    if (it->is_string() && required && it->get_ref<const std::string&>().empty()) throw w.fail(path + "." + key, "must not be empty");
    if (it->is_string()) return it->get<std::string>();
    if (it->is_number_integer()) return std::to_string(it->get<std::int64_t>());
    throw w.fail(path + "." + key, "expected a string");
}

std::int64_t number(const Where& w, const json& row, const std::string& path, const char* key) {
    if (!row.is_object() || !row.contains(key)) throw w.fail(path, std::string("missing \"") + key + "\"");
    const json& v = row[key];
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0 && v.get<std::int64_t>() <= kMaxAmount) return v.get<std::int64_t>();
    if (v.is_string()) {  // some client versions print numbers as strings
        try {
            std::size_t used = 0;
            const long long x = std::stoll(v.get<std::string>(), &used);
            if (used == v.get<std::string>().size() && x >= 0 && x <= kMaxAmount) return x;
        } catch (const std::exception&) {
        }
    }
    throw w.fail(path + "." + key, "expected an integer >= 0");
}

/** A flavor's extra specs: the "Properties" object (newer clients) or "k='v', k2='v2'" string. */
std::map<std::string, std::string> properties(const Where& w, const json& row, const std::string& path) {
    std::map<std::string, std::string> out;
    const auto it = row.find("Properties");
    if (it == row.end() || it->is_null()) return out;
    if (it->is_object()) {
        for (const auto& [k, v] : it->items()) out[k] = v.is_string() ? v.get<std::string>() : v.dump();
        return out;
    }
    if (!it->is_string()) throw w.fail(path + ".Properties", "expected an object or a string of key='value' pairs");
    std::string s = it->get<std::string>();
    std::size_t pos = 0;
    while (pos < s.size()) {
        const std::size_t eq = s.find('=', pos);
        if (eq == std::string::npos) break;
        std::string key = s.substr(pos, eq - pos);
        key.erase(0, key.find_first_not_of(" ,"));
        std::size_t end = eq + 1;
        std::string value;
        if (end < s.size() && s[end] == '\'') {
            const std::size_t close = s.find('\'', end + 1);
            if (close == std::string::npos) throw w.fail(path + ".Properties", "unterminated quote");
            value = s.substr(end + 1, close - end - 1);
            end = close + 1;
        } else {
            const std::size_t comma = std::min(s.find(',', end), s.size());
            value = s.substr(end, comma - end);
            end = comma;
        }
        out[key] = value;
        pos = end;
    }
    return out;
}

/** The vNUMA graph of n nodes on the host graphs `hosts`: K1..K4 (C4 if K4 does not embed in a
 *  host graph of 4 or more nodes), else K<n>. */
Topology vnuma_graph(int n, const std::vector<Topology>& hosts) {
    const Graph k4 = parse_topology("K4").graph;
    for (const Topology& host : hosts)
        if (n == 4 && host.size() >= 4 && enumerate_embeddings(host.graph, k4).empty()) return parse_topology("C4");
    return parse_topology("K" + std::to_string(n));
}

/** Reads the flavors; `index` maps each name to its flavor, `by_id` each "ID" (when listed).
 *  `hosts`: the pNUMA graphs of the hosts (at least one). */
void read_flavors(const OpenStackInput& in, const std::vector<Topology>& hosts, Problem& p, std::unordered_map<std::string, int>& index,
                  std::unordered_map<std::string, int>& by_id) {
    const Where w{in.file};
    int most_nodes = 0;
    for (const Topology& t : hosts) most_nodes = std::max(most_nodes, t.size());
    const json& fs = rows(in, "openstack flavor list --long");
    for (std::size_t i = 0; i < fs.size(); ++i) {
        const std::string path = "[" + std::to_string(i) + "]";
        Flavor f;
        f.name = text(w, fs[i], path, "Name");
        const std::string where = path + " (Name \"" + f.name + "\")";
        f.demand = {number(w, fs[i], where, "VCPUs"), number(w, fs[i], where, "RAM")};
        const auto props = properties(w, fs[i], where);
        int n = 1;
        if (const auto it = props.find("hw:numa_nodes"); it != props.end()) {
            try {
                n = std::stoi(it->second);
            } catch (const std::exception&) {
                n = 0;
            }
            if (n < 1 || n > kMaxVNuma) throw w.fail(where + ".Properties.hw:numa_nodes", "expected 1.." + std::to_string(kMaxVNuma));
        }
        for (const auto& [k, v] : props)
            if (k.rfind("hw:numa_cpus.", 0) == 0 || k.rfind("hw:numa_mem.", 0) == 0)
                throw w.fail(where + ".Properties." + k, "asymmetric vNUMA nodes are not supported (vmcap splits a flavor evenly)");
        if (n > most_nodes) throw w.fail(where, "hw:numa_nodes=" + std::to_string(n) + " exceeds the hosts' pNUMA nodes");
        if (f.demand[kVcpu] == 0 || f.demand[kVcpu] % n != 0 || f.demand[kRamMib] % n != 0)
            throw w.fail(where, "VCPUs and RAM must be > 0 and divide evenly over hw:numa_nodes=" + std::to_string(n));
        f.vnuma = vnuma_graph(n, hosts);
        if (!index.emplace(f.name, static_cast<int>(p.flavors.size())).second) throw w.fail(where, "duplicate flavor name");
        if (const std::string id = text(w, fs[i], where, "ID", false); !id.empty()) by_id.emplace(id, static_cast<int>(p.flavors.size()));
        p.flavors.push_back(std::move(f));
    }
}

/** `x` as the shortest decimal that reads back (for messages). */
std::string decimal(double x) {
    return json(x).dump();
}

/** The capacity one resource class of a Placement inventory gives: its "total"; its
 *  "allocation_ratio" (and "reserved", when `reserved` is set) must equal the model's options. */
std::int64_t inventory_total(const OpenStackInput& inv, const json& row, const std::string& path, double ratio, const char* ratio_option,
                             const std::int64_t* reserved) {
    const Where w{inv.file};
    const std::int64_t total = number(w, row, path, "total");
    const auto it = row.find("allocation_ratio");
    if (it == row.end() || !it->is_number()) throw w.fail(path + ".allocation_ratio", "expected a number");
    const double have = it->get<double>();
    if (std::fabs(have - ratio) > 1e-9 * std::max(1.0, ratio))
        throw w.fail(path + ".allocation_ratio", decimal(have) + " in Placement, but the import models " + decimal(ratio) + ": pass " +
                                                     ratio_option + " " + decimal(have));
    if (reserved != nullptr && number(w, row, path, "reserved") != *reserved)
        throw w.fail(path + ".reserved", std::to_string(number(w, row, path, "reserved")) + " MB in Placement, but the import models " +
                                             std::to_string(*reserved) + ": pass --reserved-host-memory-mb " +
                                             std::to_string(number(w, row, path, "reserved")));
    return total;
}

/** A hypervisor's vCPUs and memory (MB): its "vCPUs" and "Memory MB" (microversion < 2.88), or
 *  with `inventories` its Placement inventory's VCPU (or PCPU) and MEMORY_MB totals. */
std::pair<std::int64_t, std::int64_t> hypervisor_capacity(const Where& w, const json& row, const std::string& where,
                                                          const OpenStackOptions& o, const OpenStackInventories* inventories) {
    if (inventories == nullptr) {
        // From microversion 2.88 the client still prints these columns, empty ("").
        const auto blank = [&](const char* key) {
            const auto it = row.find(key);
            return it == row.end() || it->is_null() || (it->is_string() && it->get_ref<const std::string&>().empty());
        };
        if (blank("vCPUs") && blank("Memory MB"))
            throw w.fail(where,
                         "no \"vCPUs\" or \"Memory MB\": Nova API microversion 2.88 and later no longer report a hypervisor's "
                         "vCPUs and memory; run `openstack --os-compute-api-version 2.87 hypervisor list --long -f json`, or give "
                         "--inventory DIR holding DIR/<ID>.json = `openstack resource provider inventory list <ID> -f json` for "
                         "each hypervisor ID (Placement's capacity)");
        return {number(w, row, where, "vCPUs"), number(w, row, where, "Memory MB")};
    }
    const std::string id = text(w, row, where, "ID");
    const auto found = inventories->by_id.find(id);
    if (found == inventories->by_id.end())
        throw w.fail(where + ".ID", "no inventory " + inventories->dir + "/" + id + ".json (`openstack resource provider inventory list " +
                                        id + " -f json`; the ID is the resource provider's UUID from microversion 2.53)");
    const OpenStackInput& inv = found->second;
    const json& rs = rows(inv, ("openstack resource provider inventory list " + id).c_str());
    const Where iw{inv.file};
    std::optional<std::int64_t> vcpus, mem;
    for (std::size_t i = 0; i < rs.size(); ++i) {
        const std::string rc = text(iw, rs[i], "[" + std::to_string(i) + "]", "resource_class");
        const std::string path = "[" + std::to_string(i) + "] (resource_class \"" + rc + "\")";
        if (rc == "VCPU" || rc == "PCPU") {
            // Shared (VCPU) and dedicated (PCPU) CPUs on one host are two pools; vmcap models one.
            if (vcpus) throw iw.fail(path, "a host with both VCPU and PCPU inventory: vmcap models one pool of CPUs");
            vcpus = inventory_total(inv, rs[i], path, o.cpu_allocation_ratio, "--cpu-allocation-ratio", nullptr);
        } else if (rc == "MEMORY_MB") {
            mem = inventory_total(inv, rs[i], path, o.ram_allocation_ratio, "--ram-allocation-ratio", &o.reserved_host_memory_mb);
        }
    }
    if (!vcpus || !mem) throw InputError(inv.file + ": no " + (vcpus ? "MEMORY_MB" : "VCPU or PCPU") + " inventory");
    return {*vcpus, *mem};
}

/** The hypervisors that are up: their row in the list and the host id the import gives them, their
 *  "Hypervisor Hostname" or, where unambiguous among them, its first label (Nova's service host
 *  name, what `openstack server migrate --host` takes). */
struct UpHypervisor {
    std::size_t row;
    std::string name;  ///< "Hypervisor Hostname"
    std::string id;    ///< the host id
};

std::vector<UpHypervisor> up_hypervisors(const Where& w, const json& hs) {
    std::vector<UpHypervisor> up;
    std::map<std::string, int> short_count;
    for (std::size_t i = 0; i < hs.size(); ++i) {
        const std::string path = "[" + std::to_string(i) + "]";
        const std::string name = text(w, hs[i], path, "Hypervisor Hostname");
        const std::string state = text(w, hs[i], path + " (Hypervisor Hostname \"" + name + "\")", "State", false);
        if (!state.empty() && state != "up") continue;
        up.push_back({i, name, name});
        ++short_count[name.substr(0, name.find('.'))];
    }
    for (UpHypervisor& u : up)
        if (const std::string s = u.name.substr(0, u.name.find('.')); short_count[s] == 1) u.id = s;
    return up;
}

/** The pNUMA graph of each hypervisor in `up`: options.host_topology_of's for the one it names
 *  (by "Hypervisor Hostname" or by host id), else options.host_topology. A name of a listed
 *  hypervisor that is not up (its hostname or the hostname's first label) is passed over.
 *  Throws InputError naming --host-topology for a name that matches no listed hypervisor, or two
 *  names of one hypervisor. */
std::vector<Topology> hypervisor_topologies(const Where& w, const json& hs, const std::vector<UpHypervisor>& up,
                                            const OpenStackOptions& o) {
    const Topology fallback = parse_topology(o.host_topology);
    std::vector<Topology> topo(up.size(), fallback);
    std::unordered_map<std::string, std::size_t> by_name;  // either name of an up hypervisor -> its index in `up`
    for (std::size_t k = 0; k < up.size(); ++k) {
        by_name.emplace(up[k].name, k);
        by_name.emplace(up[k].id, k);
    }
    std::set<std::string> listed;  // every "Hypervisor Hostname", up or not, and its first label
    for (std::size_t i = 0; i < hs.size(); ++i) {
        const std::string name = text(w, hs[i], "[" + std::to_string(i) + "]", "Hypervisor Hostname");
        listed.insert({name, name.substr(0, name.find('.'))});
    }
    std::vector<std::string> named_by(up.size());
    for (const auto& [name, graph] : o.host_topology_of) {
        const auto it = by_name.find(name);
        if (it == by_name.end()) {
            if (listed.count(name) > 0) continue;  // a hypervisor that is not up: not imported
            throw InputError("--host-topology " + name + "=" + graph + ": no hypervisor \"" + name + "\" in " + w.file +
                             " (name one by its \"Hypervisor Hostname\" or its host id, the first label where unambiguous)");
        }
        if (!named_by[it->second].empty())
            throw InputError("--host-topology " + named_by[it->second] + "=... and " + name + "=" + graph + " both name hypervisor \"" +
                             up[it->second].name + "\"");
        named_by[it->second] = name;
        try {
            topo[it->second] = parse_topology(graph);
        } catch (const std::invalid_argument& e) {
            throw InputError("--host-topology " + name + "=" + graph + ": " + e.what());
        }
    }
    return topo;
}

/** Hypervisors that are up, as hosts (one host type per distinct pNUMA graph and node capacity),
 *  each with its pNUMA graph from hypervisor_topologies. Returns name -> host, the full hostname
 *  and the host id. */
std::unordered_map<std::string, int> read_hypervisors(const OpenStackInput& in, const OpenStackOptions& o,
                                                      const OpenStackInventories* inventories, Problem& p) {
    const Where w{in.file};
    const json& hs = rows(in, "openstack hypervisor list --long");
    const std::vector<UpHypervisor> up = up_hypervisors(w, hs);
    const std::vector<Topology> topos = hypervisor_topologies(w, hs, up, o);
    std::unordered_map<std::string, int> index, type_of;
    for (std::size_t k = 0; k < up.size(); ++k) {
        const std::size_t i = up[k].row;
        const std::string& name = up[k].name;
        const Topology& topo = topos[k];
        const std::string where = "[" + std::to_string(i) + "] (Hypervisor Hostname \"" + name + "\")";
        if (is_nova_rule(o.node_rule) && !topo.graph.is_complete())  // the default's is checked by import_openstack
            throw InputError(
                "--host-topology of hypervisor \"" + name + "\": " + topo.name + ": the node rule " + o.node_rule +
                " needs a complete pNUMA graph (K<n>): Nova checks no links between its cells; import with the node rule free");
        const auto [vcpus, mem] = hypervisor_capacity(w, hs[i], where, o, inventories);
        const int n = topo.size();
        // In double, range-checked before the conversion (the ratios are finite and at most
        // kMaxAllocationRatio, so these stay far below 2^63). Under a Nova rule a node is a NUMA
        // cell of vCPUs / n pCPUs and Memory MB / n MiB with Nova's per-cell limits as capacity
        // (instances/nova_numa.h); the reserved memory is Placement's, host-level, in the rule.
        const bool nova = is_nova_rule(o.node_rule);
        const double vcpu_d = nova ? std::floor(static_cast<double>(vcpus / n) * o.cpu_allocation_ratio)
                                   : std::floor(static_cast<double>(vcpus) * o.cpu_allocation_ratio / n);
        const double ram_d = nova ? std::floor(static_cast<double>(mem / n) * o.ram_allocation_ratio)
                                  : std::floor(static_cast<double>(mem - o.reserved_host_memory_mb) * o.ram_allocation_ratio / n);
        if (vcpu_d > static_cast<double>(kMaxAmount) || ram_d > static_cast<double>(kMaxAmount))
            throw w.fail(where, "vCPUs or Memory MB times the allocation ratio exceeds " + std::to_string(kMaxAmount) + " per pNUMA node");
        if (vcpu_d < 1)
            throw w.fail(where, "no vCPU left per pNUMA node (vCPUs " + std::to_string(vcpus) + " x cpu_allocation_ratio over " +
                                    std::to_string(n) + " nodes)");
        if (ram_d < 1)
            throw w.fail(where, "no RAM left per pNUMA node (Memory MB " + std::to_string(mem) + " minus reserved_host_memory_mb " +
                                    std::to_string(o.reserved_host_memory_mb) + ", x ram_allocation_ratio, over " + std::to_string(n) +
                                    " nodes)");
        const auto node_vcpu = static_cast<Amount>(vcpu_d), node_ram = static_cast<Amount>(ram_d);
        const std::string tname = topo.name + "-" + std::to_string(node_vcpu) + "c-" + std::to_string(node_ram) + "m";
        auto [t, fresh] = type_of.emplace(tname, static_cast<int>(p.host_types.size()));
        if (fresh) {
            HostType ht;
            ht.name = tname;
            ht.topology = topo;
            for (int node = 0; node < n; ++node) ht.node_capacity.insert(ht.node_capacity.end(), {node_vcpu, node_ram});
            p.host_types.push_back(std::move(ht));
        }
        if (!index.emplace(name, static_cast<int>(p.hosts.size())).second) throw w.fail(where, "duplicate hypervisor");
        // Servers name the compute service host ("compute-01"), hypervisors often its FQDN.
        index.emplace(up[k].id, static_cast<int>(p.hosts.size()));
        p.hosts.push_back(Host{up[k].id, t->second, "", "", ""});
    }
    return index;
}

/** A server read from the list, for the cell placement: its VM in Problem::vms and the row's
 *  path for errors ("[3] (ID \"...\")"). */
struct ListedServer {
    std::size_t vm;
    std::string where;
};

InputError does_not_fit(const std::string& file, const Problem& p, const ListedServer& s) {
    const Vm& vm = p.vms[s.vm];
    return Where{file}.fail(s.where, "flavor \"" + p.flavors[vm.flavor].name + "\" does not fit the pNUMA nodes left on host \"" +
                                         p.hosts[vm.host].id +
                                         "\" as modelled (--host-topology, --node-rule, allocation ratios, reserved memory)");
}

/**
 * vmcap's own first fit (the "free" node rule's import): `replay` holds every imported server,
 * oldest first (the order in which Nova placed them); each takes the first pNUMA node set of its
 * host (in the host type's placement order) with room left by the servers before it. Writes
 * Vm::pnuma. Throws InputError naming `file` and the row of a server that does not fit.
 */
void place_first_fit(const std::vector<ListedServer>& replay, const std::string& file, Problem& p) {
    const int R = p.num_resources();
    std::vector<std::vector<Amount>> used(p.hosts.size());
    for (std::size_t h = 0; h < p.hosts.size(); ++h) used[h].assign(p.host_type_of(static_cast<int>(h)).node_capacity.size(), 0);
    std::map<std::pair<int, int>, std::vector<Embedding>> placements;  // (host type, flavor)
    for (const ListedServer& s : replay) {
        Vm& vm = p.vms[s.vm];
        const Flavor& fl = p.flavors[vm.flavor];
        const HostType& ht = p.host_type_of(vm.host);
        auto& embs = placements[{p.hosts[vm.host].type, vm.flavor}];
        if (embs.empty()) embs = enumerate_embeddings(ht.topology.graph, fl.vnuma.graph);
        bool placed = false;
        for (const Embedding& e : embs) {
            bool room = true;
            for (int i = 0; i < fl.num_vnuma() && room; ++i)
                for (int r = 0; r < R; ++r)
                    room = room && used[vm.host][e.map[i] * R + r] + fl.node_demand[r] <= ht.node_capacity[e.map[i] * R + r];
            if (!room) continue;
            for (int i = 0; i < fl.num_vnuma(); ++i)
                for (int r = 0; r < R; ++r) used[vm.host][e.map[i] * R + r] += fl.node_demand[r];
            vm.pnuma = e.map;
            placed = true;
            break;
        }
        if (!placed) throw does_not_fit(file, p, s);
    }
}

/** Most arrival states the per-host order search of place_by_nova visits before it gives up. */
constexpr std::int64_t kNovaOrderSearchStates = 200000;

/**
 * Nova's cells for one host's servers `vms` (oldest first): the replay in that order, each on
 * nova_fit_instance's cells; if some server finds no room, a depth-first search over arrival
 * orders (per level one server of each flavor still waiting, oldest first; states already found
 * dead skipped) for one whose every choice fits. Returns the index into `vms` of a server the
 * replay could not place when no order works within kNovaOrderSearchStates states, else -1.
 */
int nova_cells_for_host(Problem& p, int host, const std::vector<int>& vms, const NovaSettings& s) {
    const HostType& ht = p.host_type_of(host);
    const std::vector<NovaCell> empty = nova_cell_sizes(ht, s);
    const auto fit = [&](const std::vector<NovaCell>& cells, int v) {
        const Flavor& fl = p.flavors[p.vms[v].flavor];
        return nova_fit_instance(cells, fl.num_vnuma(), fl.node_demand[kVcpu], fl.node_demand[kRamMib], s);
    };
    const auto take = [&](std::vector<NovaCell>& cells, int v, const NovaFit& f, int sign) {
        const Flavor& fl = p.flavors[p.vms[v].flavor];
        for (int i = 0; i < fl.num_vnuma(); ++i) {
            cells[f.cells[i]].cpu_usage += sign * fl.node_demand[kVcpu];
            cells[f.cells[i]].memory_usage += sign * fl.node_demand[kRamMib];
        }
    };
    // The replay, oldest first.
    std::vector<NovaCell> cells = empty;
    int stuck = -1;
    for (std::size_t i = 0; i < vms.size() && stuck < 0; ++i) {
        const NovaFit f = fit(cells, vms[i]);
        if (!f.found) {
            stuck = static_cast<int>(i);
            break;
        }
        take(cells, vms[i], f, +1);
        p.vms[vms[i]].pnuma = f.cells;
    }
    if (stuck < 0) return -1;
    // The search: which servers are still waiting, and the cells so far.
    cells = empty;
    std::vector<bool> waiting(vms.size(), true);
    std::vector<NovaFit> chosen(vms.size());
    std::set<std::vector<Amount>> dead;  // usage and waiting set of states with no completion
    std::int64_t states = 0;
    const auto key = [&] {
        std::vector<Amount> k;
        for (const NovaCell& c : cells) k.insert(k.end(), {c.cpu_usage, c.memory_usage});
        for (bool w : waiting) k.push_back(w ? 1 : 0);
        return k;
    };
    std::function<bool(std::size_t)> go = [&](std::size_t left) {
        if (left == 0) return true;
        if (++states > kNovaOrderSearchStates) return false;
        auto k = key();
        if (dead.count(k) > 0) return false;
        std::set<int> tried;  // flavors tried at this level: servers of one flavor are interchangeable
        for (std::size_t i = 0; i < vms.size(); ++i) {
            if (!waiting[i] || !tried.insert(p.vms[vms[i]].flavor).second) continue;
            const NovaFit f = fit(cells, vms[i]);
            if (!f.found) continue;
            take(cells, vms[i], f, +1);
            waiting[i] = false;
            chosen[i] = f;
            if (go(left - 1)) return true;
            waiting[i] = true;
            take(cells, vms[i], f, -1);
        }
        dead.insert(std::move(k));
        return false;
    };
    if (!go(vms.size())) return stuck;
    for (std::size_t i = 0; i < vms.size(); ++i) p.vms[vms[i]].pnuma = chosen[i].cells;
    return -1;
}

/** Every server on the cells Nova's rule gives it, host by host (nova_cells_for_host), each
 *  host's servers in `replay`'s order (every imported server, oldest first). Throws InputError
 *  naming `file` and the row of a server no arrival order gives room. */
void place_by_nova(const std::vector<ListedServer>& replay, const std::string& file, Problem& p, const NovaSettings& s) {
    std::vector<std::vector<int>> on_host(p.hosts.size());
    std::vector<const ListedServer*> row_of(p.vms.size(), nullptr);
    for (const ListedServer& r : replay) {
        on_host[p.vms[r.vm].host].push_back(static_cast<int>(r.vm));
        row_of[r.vm] = &r;
    }
    for (std::size_t h = 0; h < p.hosts.size(); ++h) {
        const int stuck = nova_cells_for_host(p, static_cast<int>(h), on_host[h], s);
        if (stuck >= 0) throw does_not_fit(file, p, *row_of[on_host[h][stuck]]);
    }
}

/** An ISO 8601 UTC time as Nova prints "created" ("2026-11-20T10:07:30Z"; fractional seconds and a
 *  "+hh:mm" / "-hh:mm" offset accepted) -> (seconds since 1970, nanoseconds); nullopt if malformed. */
std::optional<std::pair<std::int64_t, std::int64_t>> utc_time(const std::string& t) {
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0, used = 0;
    if (std::sscanf(t.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &used) != 6 || used != 19) return std::nullopt;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return std::nullopt;
    std::size_t i = 19;
    std::int64_t nanos = 0;
    if (i < t.size() && t[i] == '.') {
        std::int64_t scale = 100000000;
        for (++i; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i, scale /= 10) nanos += (t[i] - '0') * scale;
    }
    std::int64_t offset = 0;
    if (i < t.size() && t[i] == 'Z') {
        ++i;
    } else if (i < t.size() && (t[i] == '+' || t[i] == '-')) {
        int oh = 0, om = 0, n = 0;
        if (std::sscanf(t.c_str() + i + 1, "%2d:%2d%n", &oh, &om, &n) != 2 || n != 5) return std::nullopt;
        offset = (t[i] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
        i += 6;
    }
    if (i != t.size()) return std::nullopt;
    // Days from 1970-01-01 of the proleptic Gregorian date (H. Hinnant's days_from_civil).
    const std::int64_t yy = y - (mo <= 2 ? 1 : 0), era = yy / 400, yoe = yy - era * 400;
    const std::int64_t doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1, doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    const std::int64_t days = era * 146097 + doe - 719468;
    return std::pair{days * 86400 + h * 3600 + mi * 60 + sec - offset, nanos};
}

/** Reads every server with a host into p.vms (listed order, pnuma not set yet) and returns them in
 *  the order to replay, oldest first: by "Created At" when the list has it (ties: later in the
 *  list first), else from the list's end (Nova lists newest first). */
std::vector<ListedServer> read_servers(const OpenStackInput& in, const std::unordered_map<std::string, int>& hosts,
                                       const std::unordered_map<std::string, int>& flavors,
                                       const std::unordered_map<std::string, int>& flavor_ids, Problem& p, int& skipped) {
    const Where w{in.file};
    const json& ss = rows(in, "openstack server list --all-projects --long");
    std::vector<ListedServer> listed;
    std::vector<std::pair<std::int64_t, std::int64_t>> created;  // of each listed server, when the list has "Created At"
    std::unordered_map<std::string, std::size_t> seen;           // server ID -> its row
    const bool dated = !ss.empty() && ss[0].is_object() && ss[0].contains("Created At");
    for (std::size_t i = 0; i < ss.size(); ++i) {
        const std::string path = "[" + std::to_string(i) + "]";
        Vm vm;
        vm.id = text(w, ss[i], path, "ID");
        const std::string where = path + " (ID \"" + vm.id + "\")";
        if (const auto [it, fresh] = seen.emplace(vm.id, i); !fresh)
            throw w.fail(where + ".ID", "duplicate server ID (also at [" + std::to_string(it->second) + "])");
        const std::string host = text(w, ss[i], where, "Host", false);
        // Nova shows a server's host (OS-EXT-SRV-ATTR:host) to the admin role only: without it the
        // list has no "Host" column, or an empty one even for ACTIVE servers, which always have a host.
        if (!ss[i].contains("Host") || (host.empty() && text(w, ss[i], where, "Status", false) == "ACTIVE"))
            throw w.fail(where, std::string(ss[i].contains("Host") ? "ACTIVE server without a \"Host\"" : "no \"Host\" column") +
                                    ": Nova shows the server's host to the admin role only; run `openstack server list --all-projects "
                                    "--long -f json` with admin credentials");
        std::optional<std::pair<std::int64_t, std::int64_t>> when;
        if (dated || ss[i].contains("Created At")) {
            const std::string t = text(w, ss[i], where, "Created At", false);
            if (!ss[i].contains("Created At") || !dated)
                throw w.fail(where, "\"Created At\" on some servers only: list every server with -c \"Created At\", or none");
            when = utc_time(t);
            if (!when)
                throw w.fail(where + ".Created At",
                             "expected an ISO 8601 time as Nova prints it (2026-11-20T10:07:30Z), got \"" + t + "\"");
        }
        if (host.empty()) {
            ++skipped;
            continue;
        }
        const auto hi = hosts.find(host);
        if (hi == hosts.end()) throw w.fail(where + ".Host", "unknown or down hypervisor \"" + host + "\"");
        vm.host = hi->second;
        // Microversion < 2.47: "Flavor Name" (empty when the client could not look the ID up) and
        // "Flavor ID"; from 2.47: "Flavor", the name the flavor had when the server was created
        // (there a "Flavor ID" asked for with -c is printed empty).
        const char* key = ss[i].contains("Flavor Name") ? "Flavor Name" : "Flavor";
        std::string flavor = text(w, ss[i], where, key, false);
        const std::unordered_map<std::string, int>* by = &flavors;
        if (flavor.empty() && !text(w, ss[i], where, "Flavor ID", false).empty()) {
            key = "Flavor ID";
            flavor = text(w, ss[i], where, key, false);
            by = &flavor_ids;
        }
        if (flavor.empty()) throw w.fail(where, "no flavor: expected \"Flavor Name\" or \"Flavor ID\" (microversion < 2.47) or \"Flavor\"");
        const auto fi = by->find(flavor);
        if (fi == by->end())
            throw w.fail(where + "." + key,
                         "unknown flavor \"" + flavor + "\" (list them with `openstack flavor list --all --long -f json`)");
        vm.flavor = fi->second;
        vm.migratable = text(w, ss[i], where, "Status", false) == "ACTIVE";
        vm.tenant = text(w, ss[i], where, "Project ID", false);
        listed.push_back({p.vms.size(), where});
        if (when) created.push_back(*when);
        p.vms.push_back(std::move(vm));
    }
    // The replay order, oldest first. Nova lists servers newest first (created_at, then its
    // internal id, descending) and the client's --sort-column sort is stable, so servers created
    // in the same second stand newest first in any listing: reversed, they come oldest first.
    std::vector<std::size_t> order(listed.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = order.size() - 1 - k;
    if (!created.empty())
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return created[a] < created[b]; });
    std::vector<ListedServer> replay;
    replay.reserve(order.size());
    for (const std::size_t k : order) replay.push_back(listed[k]);
    return replay;
}

void read_server_groups(const OpenStackInput& in, Problem& p) {
    const Where w{in.file};
    const json& gs = rows(in, "openstack server group list --long");
    std::unordered_map<std::string, int> vm_index;
    for (std::size_t v = 0; v < p.vms.size(); ++v) vm_index.emplace(p.vms[v].id, static_cast<int>(v));
    std::set<int> grouped;
    for (std::size_t i = 0; i < gs.size(); ++i) {
        const std::string path = "[" + std::to_string(i) + "]";
        ServerGroup g;
        g.id = text(w, gs[i], path, "ID");
        const std::string where = path + " (ID \"" + g.id + "\")";
        std::string policy;
        if (gs[i].contains("Policy")) {
            policy = text(w, gs[i], where, "Policy");
        } else if (gs[i].contains("Policies") && gs[i]["Policies"].is_array() && gs[i]["Policies"].size() == 1) {
            policy = gs[i]["Policies"][0].is_string() ? gs[i]["Policies"][0].get<std::string>() : "";
        } else {
            policy = text(w, gs[i], where, "Policies");
        }
        if (policy == "soft-affinity") continue;  // no term for it
        const std::optional<GroupPolicy> named = group_policy_named(policy);
        if (!named) throw w.fail(where + ".Policy", "unknown policy \"" + policy + "\"");
        g.policy = *named;
        std::vector<std::string> ids;
        const json& m = gs[i].contains("Members") ? gs[i]["Members"] : json();
        if (m.is_array()) {
            for (const json& x : m)
                if (x.is_string()) ids.push_back(x.get<std::string>());
        } else if (m.is_string()) {
            std::stringstream s(m.get<std::string>());
            for (std::string id; std::getline(s, id, ',');) {
                id.erase(0, id.find_first_not_of(' '));
                if (!id.empty()) ids.push_back(id);
            }
        } else {
            throw w.fail(where + ".Members", "expected an array of server IDs or a comma-separated string");
        }
        for (const std::string& id : ids) {
            const auto it = vm_index.find(id);
            if (it == vm_index.end()) continue;  // deleted, or not placed on an imported host
            if (!grouped.insert(it->second).second) throw w.fail(where + ".Members", "server \"" + id + "\" is in two groups");
            g.members.push_back(it->second);
        }
        if (!g.members.empty()) p.server_groups.push_back(std::move(g));
    }
}

}  // namespace

Problem import_openstack(const OpenStackInput& hypervisors, const OpenStackInput& servers, const OpenStackInput& flavors,
                         const OpenStackInput* server_groups, const OpenStackOptions& o, int* skipped,
                         const OpenStackInventories* inventories) {
    for (const auto& [name, ratio] :
         {std::pair<const char*, double>{"cpu_allocation_ratio", o.cpu_allocation_ratio}, {"ram_allocation_ratio", o.ram_allocation_ratio}})
        if (!(ratio > 0.0 && ratio <= kMaxAllocationRatio))
            throw InputError(std::string(name) + " must be a number in (0, " + std::to_string(static_cast<int>(kMaxAllocationRatio)) +
                             "], got " + std::to_string(ratio));
    if (o.reserved_host_memory_mb < 0 || o.reserved_host_memory_mb > kMaxAmount)
        throw InputError("reserved_host_memory_mb must be in 0.." + std::to_string(kMaxAmount));
    if (o.node_rule != kFreeNodeRule && !is_nova_rule(o.node_rule))
        throw InputError("node rule must be nova-spread, nova-pack or free, got \"" + o.node_rule + "\"");
    Problem p;
    p.resources = {"vcpu", "ram_mib"};
    const Topology topo = parse_topology(o.host_topology);
    if (is_nova_rule(o.node_rule) && !topo.graph.is_complete())
        throw InputError("host topology " + o.host_topology + ": the node rule " + o.node_rule +
                         " needs a complete pNUMA graph (K<n>): Nova checks no links between its cells; import with the node rule free");
    const auto hosts = read_hypervisors(hypervisors, o, inventories, p);
    // The flavors' vNUMA graphs follow the hosts' pNUMA graphs (the default's without hosts).
    std::vector<Topology> host_graphs{topo};
    if (!p.host_types.empty()) host_graphs.clear();
    for (const HostType& ht : p.host_types) host_graphs.push_back(ht.topology);
    std::unordered_map<std::string, int> flavor_index, flavor_ids;
    read_flavors(flavors, host_graphs, p, flavor_index, flavor_ids);
    // node_demand is needed to place the servers: finalize_problem fills it later as well.
    for (Flavor& f : p.flavors) {
        f.node_demand.resize(f.demand.size());
        for (std::size_t r = 0; r < f.demand.size(); ++r) f.node_demand[r] = f.demand[r] / f.num_vnuma();
    }
    int skip = 0;
    // One replay order, oldest first, for either rule's placement.
    const std::vector<ListedServer> replay = read_servers(servers, hosts, flavor_index, flavor_ids, p, skip);
    if (is_nova_rule(o.node_rule)) {
        p.node_rule = NodeRuleSpec{o.node_rule, o.cpu_allocation_ratio, o.ram_allocation_ratio, o.reserved_host_memory_mb};
        place_by_nova(replay, servers.file, p, nova_settings(p.node_rule));
    } else {
        place_first_fit(replay, servers.file, p);
    }
    if (skipped != nullptr) *skipped = skip;
    if (server_groups != nullptr) read_server_groups(*server_groups, p);
    weigh_multi_numa_targets(p.flavors);
    p.constraints.remaps_allowed = false;  // Nova cannot re-pin a running server's NUMA cells
    std::string graphs = "pNUMA graph " + o.host_topology;
    for (const auto& [name, graph] : o.host_topology_of) graphs += ", " + graph + " on " + name;
    p.source =
        "Imported by vmcap import openstack from " + hypervisors.file + ", " + servers.file + ", " + flavors.file +
        (server_groups != nullptr ? ", " + server_groups->file : "") + " (" + graphs +
        (is_nova_rule(o.node_rule) ? ", vNUMA placement by Nova's " + o.node_rule + " cell fitting, servers replayed oldest first)"
                                   : ", vNUMA placement by vmcap's first fit with the servers replayed oldest first, not necessarily "
                                     "Nova's cells)");
    finalize_problem(p, servers.file);
    return p;
}

}  // namespace vmcap
