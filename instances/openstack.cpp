#include "instances/openstack.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
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

/** The vNUMA graph of n nodes on host graph `host`: K1..K4 (C4 if K4 does not embed), else K<n>. */
Topology vnuma_graph(int n, const Topology& host) {
    if (n == 4 && enumerate_embeddings(host.graph, parse_topology("K4").graph).empty()) return parse_topology("C4");
    return parse_topology("K" + std::to_string(n));
}

void read_flavors(const OpenStackInput& in, const Topology& host, Problem& p, std::unordered_map<std::string, int>& index) {
    const Where w{in.file};
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
        if (n > host.size()) throw w.fail(where, "hw:numa_nodes=" + std::to_string(n) + " exceeds the hosts' pNUMA nodes");
        if (f.demand[kVcpu] == 0 || f.demand[kVcpu] % n != 0 || f.demand[kRamMib] % n != 0)
            throw w.fail(where, "VCPUs and RAM must be > 0 and divide evenly over hw:numa_nodes=" + std::to_string(n));
        f.vnuma = vnuma_graph(n, host);
        if (!index.emplace(f.name, static_cast<int>(p.flavors.size())).second) throw w.fail(where, "duplicate flavor name");
        p.flavors.push_back(std::move(f));
    }
}

/** Hypervisors that are up, as hosts (one host type per distinct capacity). Returns name -> host,
 *  the full hostname and, where unambiguous, its first label (Nova's service host name). */
std::unordered_map<std::string, int> read_hypervisors(const OpenStackInput& in, const Topology& topo, const OpenStackOptions& o,
                                                      Problem& p) {
    const Where w{in.file};
    const json& hs = rows(in, "openstack hypervisor list --long");
    std::unordered_map<std::string, int> index, type_of;
    std::map<std::string, int> short_count;
    for (std::size_t i = 0; i < hs.size(); ++i) {
        const std::string path = "[" + std::to_string(i) + "]";
        const std::string name = text(w, hs[i], path, "Hypervisor Hostname");
        const std::string where = path + " (Hypervisor Hostname \"" + name + "\")";
        const std::string state = text(w, hs[i], where, "State", false);
        if (!state.empty() && state != "up") continue;
        if (hs[i].is_object() && !hs[i].contains("vCPUs") && !hs[i].contains("Memory MB"))
            throw w.fail(where,
                         "no \"vCPUs\" or \"Memory MB\": Nova API microversion 2.88 and later no longer report a hypervisor's "
                         "vCPUs and memory; run `openstack --os-compute-api-version 2.87 hypervisor list --long -f json` "
                         "(vmcap reads that list, not placement's resource provider inventories)");
        const std::int64_t vcpus = number(w, hs[i], where, "vCPUs"), mem = number(w, hs[i], where, "Memory MB");
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
            for (int k = 0; k < n; ++k) ht.node_capacity.insert(ht.node_capacity.end(), {node_vcpu, node_ram});
            p.host_types.push_back(std::move(ht));
        }
        if (!index.emplace(name, static_cast<int>(p.hosts.size())).second) throw w.fail(where, "duplicate hypervisor");
        p.hosts.push_back(Host{name, t->second, "", "", ""});
        ++short_count[name.substr(0, name.find('.'))];
    }
    // Servers name the compute service host ("compute-01"), hypervisors often its FQDN: a host's
    // id is its first label where that is unambiguous (what `openstack server migrate --host` takes).
    for (std::size_t h = 0; h < p.hosts.size(); ++h) {
        const std::string s = p.hosts[h].id.substr(0, p.hosts[h].id.find('.'));
        if (short_count[s] == 1) {
            index.emplace(s, static_cast<int>(h));
            p.hosts[h].id = s;
        }
    }
    return index;
}

/** A server read, before its placement: the row's path for errors, its flavor's name as listed
 *  and when it was created ("" when the row does not say). */
struct ServerRow {
    std::string where, flavor, created;
};

/** Reads every server with a host into p.vms (pnuma not set yet) and `rows` (the same order). */
void read_servers(const OpenStackInput& in, const std::unordered_map<std::string, int>& hosts,
                  const std::unordered_map<std::string, int>& flavors, Problem& p, std::vector<ServerRow>& rows_out, int& skipped) {
    const Where w{in.file};
    const json& ss = rows(in, "openstack server list --all-projects --long");
    std::unordered_map<std::string, std::size_t> seen;  // server ID -> its row
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
        if (host.empty()) {
            ++skipped;
            continue;
        }
        const auto hi = hosts.find(host);
        if (hi == hosts.end()) throw w.fail(where + ".Host", "unknown or down hypervisor \"" + host + "\"");
        vm.host = hi->second;
        std::string flavor = text(w, ss[i], where, "Flavor Name", false);
        if (flavor.empty()) flavor = text(w, ss[i], where, "Flavor");
        const auto fi = flavors.find(flavor);
        if (fi == flavors.end()) throw w.fail(where + ".Flavor Name", "unknown flavor \"" + flavor + "\"");
        vm.flavor = fi->second;
        vm.migratable = text(w, ss[i], where, "Status", false) == "ACTIVE";
        vm.tenant = text(w, ss[i], where, "Project ID", false);
        std::string created = text(w, ss[i], where, "Created", false);
        if (created.empty()) created = text(w, ss[i], where, "created_at", false);
        rows_out.push_back(ServerRow{where, flavor, created});
        p.vms.push_back(std::move(vm));
    }
}

InputError does_not_fit(const std::string& file, const Problem& p, const ServerRow& row, int host) {
    return Where{file}.fail(row.where, "flavor \"" + row.flavor + "\" does not fit the pNUMA nodes left on host \"" + p.hosts[host].id +
                                           "\" as modelled (--host-topology, --node-rule, allocation ratios, reserved memory)");
}

/** vmcap's own first fit: each server, in the order listed, on the first pNUMA node set of its
 *  host with room (the "free" node rule's import). */
void place_first_fit(const std::string& file, Problem& p, const std::vector<ServerRow>& rows) {
    const int R = p.num_resources();
    std::vector<std::vector<Amount>> used(p.hosts.size());
    for (std::size_t h = 0; h < p.hosts.size(); ++h) used[h].assign(p.host_type_of(static_cast<int>(h)).node_capacity.size(), 0);
    std::map<std::pair<int, int>, std::vector<Embedding>> placements;  // (host type, flavor)
    for (std::size_t v = 0; v < p.vms.size(); ++v) {
        Vm& vm = p.vms[v];
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
        if (!placed) throw does_not_fit(file, p, rows[v], vm.host);
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

/** Every server on the cells Nova's rule gives it, host by host (nova_cells_for_host), servers
 *  oldest first: by "Created" when every row has one (ISO 8601 sorts as text), else as listed. */
void place_by_nova(const std::string& file, Problem& p, const std::vector<ServerRow>& rows, const NovaSettings& s) {
    std::vector<int> order(p.vms.size());
    for (std::size_t v = 0; v < order.size(); ++v) order[v] = static_cast<int>(v);
    const bool dated = std::all_of(rows.begin(), rows.end(), [](const ServerRow& r) { return !r.created.empty(); });
    if (dated) std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return rows[a].created < rows[b].created; });
    std::vector<std::vector<int>> on_host(p.hosts.size());
    for (int v : order) on_host[p.vms[v].host].push_back(v);
    for (std::size_t h = 0; h < p.hosts.size(); ++h) {
        const int stuck = nova_cells_for_host(p, static_cast<int>(h), on_host[h], s);
        if (stuck >= 0) throw does_not_fit(file, p, rows[on_host[h][stuck]], static_cast<int>(h));
    }
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
                         const OpenStackInput* server_groups, const OpenStackOptions& o, int* skipped) {
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
    const auto hosts = read_hypervisors(hypervisors, topo, o, p);
    std::unordered_map<std::string, int> flavor_index;
    read_flavors(flavors, topo, p, flavor_index);
    // node_demand is needed to place the servers: finalize_problem fills it later as well.
    for (Flavor& f : p.flavors) {
        f.node_demand.resize(f.demand.size());
        for (std::size_t r = 0; r < f.demand.size(); ++r) f.node_demand[r] = f.demand[r] / f.num_vnuma();
    }
    int skip = 0;
    std::vector<ServerRow> rows;
    read_servers(servers, hosts, flavor_index, p, rows, skip);
    if (is_nova_rule(o.node_rule)) {
        p.node_rule = NodeRuleSpec{o.node_rule, o.cpu_allocation_ratio, o.ram_allocation_ratio, o.reserved_host_memory_mb};
        place_by_nova(servers.file, p, rows, nova_settings(p.node_rule));
    } else {
        place_first_fit(servers.file, p, rows);
    }
    if (skipped != nullptr) *skipped = skip;
    if (server_groups != nullptr) read_server_groups(*server_groups, p);
    weigh_multi_numa_targets(p.flavors);
    p.constraints.remaps_allowed = false;  // Nova cannot re-pin a running server's NUMA cells
    p.source = "Imported by vmcap import openstack from " + hypervisors.file + ", " + servers.file + ", " + flavors.file +
               (server_groups != nullptr ? ", " + server_groups->file : "") + " (pNUMA graph " + o.host_topology +
               (is_nova_rule(o.node_rule) ? ", vNUMA placement by Nova's " + o.node_rule + " cell fitting, servers oldest first)"
                                          : ", vNUMA placement by vmcap's first fit, not necessarily Nova's cells)");
    finalize_problem(p, servers.file);
    return p;
}

}  // namespace vmcap
