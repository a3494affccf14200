#include "instances/netsolver.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "instances/printable.h"
#include "instances/vnuma_rule.h"
#include "instances/snapshot_io.h"
#include "instances/topology.h"

namespace vmcap {

const char* const kNetsolverAttribution =
    "Data: NetSolver VDC allocation instances (Bayless, Kodirov, Iqbal, Beschastnikh, Hoos, Hu, \"Scalable constraint-based "
    "virtual data center allocation\", Artificial Intelligence (AIJ) 2020, doi:10.1016/j.artint.2019.103196), "
    "https://github.com/DCResourceManage/netsolver-aij-2019, MIT License, Copyright (c) 2019 UBC-NSS.";

namespace {

/** "<file>: <path>: <what>" as an InputError, control characters escaped (printable); built by
 *  appending: a string literal + std::string trips GCC 12 -Wrestrict. */
[[noreturn]] void fail(const std::string& file, const std::string& path, const std::string& what) {
    std::string m = file;
    m += ": ";
    if (!path.empty()) {
        m += path;
        m += ": ";
    }
    m += what;
    throw InputError(printable(m));
}

std::string dq(const std::string& s) {
    std::string q = "\"";
    q += s;
    q += '"';
    return q;
}

/** Path of key `key` inside object path `path` (JSON-pointer-like, as the snapshot loader prints). */
std::string key_path(const std::string& path, const std::string& key) {
    std::string p = path;
    if (!p.empty()) p += '.';
    p += key;
    return p;
}

std::string index_path(const std::string& path, std::size_t i) {
    std::string p = path;
    p += '[';
    p += std::to_string(i);
    p += ']';
    return p;
}

/** An integer in lo..hi at `path`. */
std::int64_t get_int(const std::string& file, const nlohmann::json& v, const std::string& path, std::int64_t lo, std::int64_t hi) {
    if (!v.is_number_integer()) fail(file, path, "expected an integer");
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi))
        fail(file, path, std::string("must be <= ") + std::to_string(hi));
    const auto x = v.get<std::int64_t>();
    if (x < lo) fail(file, path, std::string("must be >= ") + std::to_string(lo));
    if (x > hi) fail(file, path, std::string("must be <= ") + std::to_string(hi));
    return x;
}

/** Natural order of names: digit runs compare as numbers ("s2" < "s10"), then the plain text. */
bool natural_less(const std::string& a, const std::string& b) {
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0, db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
        if (da && db) {
            std::size_t ie = i, je = j;
            while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
            while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
            std::size_t i0 = i, j0 = j;  // skip leading zeros, then compare by length and digits
            while (i0 + 1 < ie && a[i0] == '0') ++i0;
            while (j0 + 1 < je && b[j0] == '0') ++j0;
            if (ie - i0 != je - j0) return ie - i0 < je - j0;
            const int c = a.compare(i0, ie - i0, b, j0, je - j0);
            if (c != 0) return c < 0;
            i = ie;
            j = je;
        } else {
            if (a[i] != b[j]) return a[i] < b[j];
            ++i;
            ++j;
        }
    }
    if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
    return a < b;
}

/** "s" followed by digits only: NetSolver's server naming. */
bool looks_like_server(const std::string& name) {
    return name.size() >= 2 && name[0] == 's' &&
           std::all_of(name.begin() + 1, name.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

/** RAM text: whole GiB as "<n>g", else "<n>m" (MiB). */
std::string ram_text(Amount mib) {
    std::string s = std::to_string(mib % 1024 == 0 ? mib / 1024 : mib);
    s += mib % 1024 == 0 ? 'g' : 'm';
    return s;
}

std::string size_name(Amount cores, Amount ram_mib) {
    std::string s = std::to_string(cores);
    s += 'c';
    s += ram_text(ram_mib);
    return s;
}

void check_options(const NetsolverOptions& o) {
    if (o.numa_nodes < 1 || o.numa_nodes > kMaxPNuma) throw InputError("netsolver: --numa-nodes must be in 1..16");
    if (o.mbps_per_unit < 1 || o.mbps_per_unit > 1'000'000) throw InputError("netsolver: --mbps-per-unit must be in 1..1000000");
    if (o.ram_mib_per_unit < 1 || o.ram_mib_per_unit > (1 << 20)) throw InputError("netsolver: --ram-mib-per-unit must be in 1..1048576");
    if (!(o.max_node_fraction > 0.0 && o.max_node_fraction <= 1.0)) throw InputError("netsolver: --max-node-fraction must be in (0, 1]");
    if (o.max_vdcs == 0 || o.max_vdcs < -1) throw InputError("netsolver: --max-vdcs must be >= 1");
    if (o.max_migrations < -1) throw InputError("netsolver: --max-migrations must be >= 0");
}

const nlohmann::json& need(const std::string& file, const nlohmann::json& doc, const char* key, bool object) {
    auto it = doc.find(key);
    if (it == doc.end()) fail(file, "", std::string("missing required key \"") + key + "\"");
    if (object ? !it->is_object() : !it->is_array()) fail(file, key, object ? "expected an object" : "expected an array");
    return *it;
}

void only_keys(const std::string& file, const nlohmann::json& doc, const char* a, const char* b, const char* why) {
    if (!doc.is_object()) fail(file, "", "expected a JSON object");
    for (auto it = doc.begin(); it != doc.end(); ++it)
        if (it.key() != a && it.key() != b) {
            std::string what = "unknown key ";
            what += dq(it.key());
            what += why;
            fail(file, "(root)", what);
        }
}

/** [cores, ram, ...]: cores and RAM as NetSolver integers; further fields (storage, bandwidth) checked and ignored. */
std::pair<Amount, Amount> parse_size(const std::string& file, const nlohmann::json& v, const std::string& path, Amount min_cores) {
    if (!v.is_array() || v.size() < 2) fail(file, path, "expected [cores, ram, ...] (integers)");
    const Amount cores = get_int(file, v[0], index_path(path, 0), min_cores, kMaxAmount);
    const Amount ram = get_int(file, v[1], index_path(path, 1), 0, kMaxAmount);
    for (std::size_t i = 2; i < v.size(); ++i)
        if (!v[i].is_number()) fail(file, index_path(path, i), "expected a number");
    return {cores, ram};
}

/** The names of "Servers", in natural name order: the order of the snapshot's hosts. Throws on an
 *  empty name (a host id must not be empty). */
std::vector<std::string> server_names(const std::string& file, const nlohmann::json& servers) {
    std::vector<std::string> names;
    for (auto it = servers.begin(); it != servers.end(); ++it) {
        if (it.key().empty()) fail(file, "Servers", "a server name must not be empty");  // a host id must not be
        names.push_back(it.key());
    }
    std::sort(names.begin(), names.end(), natural_less);
    return names;
}

/** [cores, RAM units] of each server in `names` order; its RAM in MiB (--ram-mib-per-unit) must stay
 *  within kMaxAmount. */
std::vector<std::pair<Amount, Amount>> server_sizes(const std::string& file, const nlohmann::json& servers,
                                                    const std::vector<std::string>& names, const NetsolverOptions& o) {
    const int H = static_cast<int>(names.size());
    std::vector<std::pair<Amount, Amount>> size(H);
    for (int h = 0; h < H; ++h) {
        size[h] = parse_size(file, servers[names[h]], key_path("Servers", names[h]), 1);
        if (size[h].second > kMaxAmount / o.ram_mib_per_unit) fail(file, index_path(key_path("Servers", names[h]), 1), "RAM too large");
    }
    return size;
}

/** A "PN" entry kept by pair_links: its two ends, its bandwidth in NetSolver units and its index in
 *  "PN" (messages name it). */
struct RawLink {
    std::string a, b;
    std::int64_t units;
    std::size_t at;  // index in "PN"
};

/** The "PN" entries, each checked (two distinct non-empty names, a bandwidth in 1..kMaxMbps once scaled,
 *  no unlisted name that looks like a server); a link listed in both directions counts once: [a, b, c]
 *  pairs with a later [b, a, c], and `merged` counts the pairs. The rest kept in "PN" order (parallel
 *  links allowed). */
std::vector<RawLink> pair_links(const std::string& file, const nlohmann::json& links,
                                const std::unordered_map<std::string, int>& server_index, const NetsolverOptions& o, int& merged) {
    std::vector<RawLink> kept;
    std::map<std::tuple<std::string, std::string, std::int64_t>, std::vector<std::size_t>> open;  // unmatched, by direction
    for (std::size_t i = 0; i < links.size(); ++i) {
        const std::string path = index_path("PN", i);
        const nlohmann::json& e = links[i];
        if (!e.is_array() || e.size() != 3 || !e[0].is_string() || !e[1].is_string())
            fail(file, path, "expected [node, node, bandwidth] (two names and an integer)");
        RawLink r{e[0].get<std::string>(), e[1].get<std::string>(), 0, i};
        for (std::size_t k = 0; k < 2; ++k)  // a switch id (or host id) must not be empty
            if (e[k].get_ref<const std::string&>().empty()) fail(file, index_path(path, k), "a node name must not be empty");
        r.units = get_int(file, e[2], index_path(path, 2), 1, kMaxMbps / o.mbps_per_unit);
        if (r.a == r.b) fail(file, path, std::string("joins ") + dq(r.a) + " to itself");
        for (const std::string* n : {&r.a, &r.b})
            if (!server_index.count(*n) && looks_like_server(*n))
                fail(file, path, std::string("node ") + dq(*n) + " is named like a server but \"Servers\" does not list it");
        auto rev = open.find({r.b, r.a, r.units});
        if (rev != open.end() && !rev->second.empty()) {
            rev->second.pop_back();
            ++merged;
            continue;
        }
        open[{r.a, r.b, r.units}].push_back(kept.size());
        kept.push_back(std::move(r));
    }
    return kept;
}

/** Per server (in `names` order): the index of its uplink switch in p.network.switches, its NIC
 *  capacity (the sum of its links, Mbps); and how many kept links are server links. */
struct Uplinks {
    std::vector<int> uplink;
    std::vector<std::int64_t> nic;
    int server_links = 0;
};

/** The kept links into p.network: switches numbered in order of first mention, switch-to-switch links
 *  become network links, a server's links its NIC uplink to one switch. Refuses what vmcap's hosts (one
 *  NIC uplink to one switch) cannot model: server-to-server links, a server linked to two switches
 *  (server-centric networks such as BCube); and a NIC above kMaxMbps. */
Uplinks wire_links(const std::string& file, const std::vector<RawLink>& kept, const std::vector<std::string>& names,
                   const std::unordered_map<std::string, int>& server_index, const NetsolverOptions& o, Problem& p) {
    const int H = static_cast<int>(names.size());
    std::unordered_map<std::string, int> switch_index;
    std::vector<int> uplink(H, -1);
    std::vector<std::int64_t> nic(H, 0);
    std::vector<std::size_t> uplink_at(H, 0);
    int server_links = 0;
    auto switch_of = [&](const std::string& n) {
        auto [it, fresh] = switch_index.emplace(n, static_cast<int>(p.network.switches.size()));
        if (fresh) p.network.switches.push_back(n);
        return it->second;
    };
    for (const RawLink& r : kept) {
        const std::string path = index_path("PN", r.at);
        auto sa = server_index.find(r.a), sb = server_index.find(r.b);
        const std::int64_t mbps = r.units * o.mbps_per_unit;
        if (sa != server_index.end() && sb != server_index.end())
            fail(file, path,
                 std::string("links servers ") + dq(r.a) + " and " + dq(r.b) +
                     " directly: a server-centric network (BCube) needs servers that forward traffic, which vmcap's hosts (one NIC "
                     "uplink to one switch) cannot; not imported");
        if (sa == server_index.end() && sb == server_index.end()) {
            const int x = switch_of(r.a), y = switch_of(r.b);
            p.network.links.push_back(NetLink{x, y, mbps});
            continue;
        }
        const int h = sa != server_index.end() ? sa->second : sb->second;
        const int s = switch_of(sa != server_index.end() ? r.b : r.a);
        if (uplink[h] >= 0 && uplink[h] != s)
            fail(file, path,
                 std::string("server ") + dq(names[h]) + " links to switch " + dq(p.network.switches[s]) + " and to switch " +
                     dq(p.network.switches[uplink[h]]) + " (PN[" + std::to_string(uplink_at[h]) +
                     "]): a server-centric network (BCube) needs servers that forward traffic between their links, which vmcap's "
                     "hosts (one NIC uplink to one switch) cannot; not imported");
        if (uplink[h] < 0) uplink_at[h] = r.at;
        uplink[h] = s;
        nic[h] += mbps;
        if (nic[h] > kMaxMbps)
            fail(file, path, std::string("NIC capacity of server ") + dq(names[h]) + " above " + std::to_string(kMaxMbps) + " Mbps");
        ++server_links;
    }
    return Uplinks{std::move(uplink), std::move(nic), server_links};
}

/** Throws unless every server has an uplink (a host needs its switch) and the servers' switches reach each other. */
void check_uplinks(const std::string& file, const std::vector<std::string>& names, const std::vector<int>& uplink, const Problem& p) {
    const int H = static_cast<int>(names.size());
    for (int h = 0; h < H; ++h)
        if (uplink[h] < 0) fail(file, key_path("Servers", names[h]), std::string("server ") + dq(names[h]) + " has no link in \"PN\"");
    // The servers' switches must reach each other, as the snapshot loader requires of a network:
    // a vlink between servers on two switches without a path would have no route (NetworkRoutes).
    if (const int h = first_unreachable(static_cast<int>(p.network.switches.size()), p.network.links, uplink); h >= 0)
        fail(file, "PN",
             std::string("switch ") + dq(p.network.switches[uplink[h]]) + " (server " + dq(names[h]) + ") cannot reach switch " +
                 dq(p.network.switches[uplink[0]]) + " (server " + dq(names[0]) +
                 "): the servers' switches must be connected (traffic between them would have no route); not imported");
}

/** One host per server (in `names` order), attached to its uplink switch (also its rack), and the host
 *  types they use: one per (cores, RAM, NIC) in order of first host, --numa-nodes pNUMA nodes (K<n>)
 *  sharing the cores and the RAM as evenly as integers allow. */
void add_hosts(const std::vector<std::string>& names, const std::vector<std::pair<Amount, Amount>>& size, const std::vector<int>& uplink,
               const std::vector<std::int64_t>& nic, const NetsolverOptions& o, Problem& p) {
    const int H = static_cast<int>(names.size());
    // Host types by (cores, RAM, NIC), in order of first host; "-nic<Mbps>" only where one size has several NICs.
    std::map<std::pair<Amount, Amount>, std::set<std::int64_t>> nics_of_size;
    for (int h = 0; h < H; ++h) nics_of_size[size[h]].insert(nic[h]);
    std::map<std::tuple<Amount, Amount, std::int64_t>, int> type_index;
    const int n = o.numa_nodes;
    std::string topo_name = "K";
    topo_name += std::to_string(n);
    const Topology topo = parse_topology(topo_name);
    for (int h = 0; h < H; ++h) {
        const auto [cores, ram_units] = size[h];
        const auto key = std::make_tuple(cores, ram_units, nic[h]);
        auto it = type_index.find(key);
        if (it == type_index.end()) {
            HostType ht;
            const Amount ram = ram_units * o.ram_mib_per_unit;
            ht.name = size_name(cores, ram);
            ht.name += "-";
            ht.name += topo.name;
            if (nics_of_size[size[h]].size() > 1) {
                ht.name += "-nic";
                ht.name += std::to_string(nic[h]);
            }
            ht.topology = topo;
            ht.nic_mbps = nic[h];
            for (int i = 0; i < n; ++i) {
                ht.node_capacity.push_back(cores / n + (i < cores % n ? 1 : 0));
                ht.node_capacity.push_back(ram / n + (i < ram % n ? 1 : 0));
            }
            it = type_index.emplace(key, static_cast<int>(p.host_types.size())).first;
            p.host_types.push_back(std::move(ht));
        }
        Host host;
        host.id = names[h];
        host.type = it->second;
        host.rack = p.network.switches[uplink[h]];
        host.uplink = host.rack;
        p.hosts.push_back(std::move(host));
    }
}

}  // namespace

Problem netsolver_cluster(const nlohmann::json& pn, const std::string& file, const NetsolverOptions& o, NetsolverNetworkInfo* info) {
    check_options(o);
    only_keys(file, pn, "Servers", "PN", " (a physical network has \"Servers\" and \"PN\")");
    const nlohmann::json& servers = need(file, pn, "Servers", true);
    const nlohmann::json& links = need(file, pn, "PN", false);
    if (servers.empty()) fail(file, "Servers", "is empty: a physical network needs at least one server");

    const std::vector<std::string> names = server_names(file, servers);
    std::unordered_map<std::string, int> server_index;
    for (std::size_t h = 0; h < names.size(); ++h) server_index.emplace(names[h], static_cast<int>(h));
    const std::vector<std::pair<Amount, Amount>> size = server_sizes(file, servers, names, o);
    int merged = 0;
    const std::vector<RawLink> kept = pair_links(file, links, server_index, o, merged);

    Problem p;
    p.resources = {"vcpu", "ram_mib"};
    const Uplinks w = wire_links(file, kept, names, server_index, o, p);
    check_uplinks(file, names, w.uplink, p);

    add_hosts(names, size, w.uplink, w.nic, o, p);
    p.network.host_switch = w.uplink;
    if (info) {
        info->merged_reverse_links = merged;
        info->server_links = w.server_links;
    }
    return p;
}

NetsolverVdc parse_netsolver_vn(const nlohmann::json& vn, const std::string& file) {
    only_keys(file, vn, "VMs", "VN", " (a VDC has \"VMs\" and \"VN\"; NetSolver's affinity extensions are not modelled)");
    const nlohmann::json& vms = need(file, vn, "VMs", true);
    const nlohmann::json& edges = need(file, vn, "VN", false);
    if (vms.empty()) fail(file, "VMs", "is empty: a VDC needs at least one VM");
    NetsolverVdc d;
    d.file = file;
    for (auto it = vms.begin(); it != vms.end(); ++it) d.vm_names.push_back(it.key());
    std::sort(d.vm_names.begin(), d.vm_names.end(), natural_less);
    std::unordered_map<std::string, int> index;
    for (std::size_t v = 0; v < d.vm_names.size(); ++v) {
        const std::string& name = d.vm_names[v];
        index.emplace(name, static_cast<int>(v));
        const std::string path = key_path("VMs", name);
        d.vm_size.push_back(parse_size(file, vms[name], path, 0));
        if (d.vm_size.back().first == 0 && d.vm_size.back().second == 0)
            fail(file, path, std::string("VM ") + dq(name) + " needs no cores and no RAM");
    }
    for (std::size_t i = 0; i < edges.size(); ++i) {
        const std::string path = index_path("VN", i);
        const nlohmann::json& e = edges[i];
        if (!e.is_array() || e.size() != 3 || !e[0].is_string() || !e[1].is_string())
            fail(file, path, "expected [vm, vm, bandwidth] (two VM names and an integer)");
        int ends[2];
        for (int k = 0; k < 2; ++k) {
            auto it = index.find(e[k].get<std::string>());
            if (it == index.end())
                fail(file, index_path(path, static_cast<std::size_t>(k)), std::string("unknown VM ") + dq(e[k].get<std::string>()));
            ends[k] = it->second;
        }
        if (ends[0] == ends[1]) fail(file, path, std::string("joins VM ") + dq(e[0].get<std::string>()) + " to itself");
        const std::int64_t units = get_int(file, e[2], index_path(path, 2), 0, kMaxMbps);
        if (units == 0) {
            ++d.dropped_zero;
            continue;
        }
        d.edges.push_back({ends[0], ends[1], units, i});
    }
    return d;
}

std::vector<std::string> read_netsolver_instance_list(const std::string& path) {
    namespace fs = std::filesystem;
    const std::string text = read_text_file(path);
    const fs::path dir = fs::path(path).parent_path();
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line;
    for (int no = 1; std::getline(in, line); ++no) {
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
        std::size_t b = 0;
        while (b < line.size() && std::isspace(static_cast<unsigned char>(line[b]))) ++b;
        line.erase(0, b);
        if (line.empty() || line[0] == '#') continue;
        if (line.find('\0') != std::string::npos)  // the file system would see the path cut at the NUL
            fail(path, std::string("line ") + std::to_string(no),
                 std::string("no VDC file ") + dq(line) + " (a path cannot contain a NUL byte)");
        const fs::path entry(line);
        std::error_code ec;
        std::string found;
        if (entry.is_absolute()) {
            if (fs::is_regular_file(entry, ec)) found = entry.string();
        } else {
            std::vector<fs::path> parts(entry.begin(), entry.end());
            for (std::size_t skip = 0; skip < parts.size() && found.empty(); ++skip) {
                fs::path candidate = dir;
                for (std::size_t k = skip; k < parts.size(); ++k) candidate /= parts[k];
                if (fs::is_regular_file(candidate, ec)) found = candidate.lexically_normal().string();
            }
        }
        if (found.empty())
            fail(path, std::string("line ") + std::to_string(no),
                 std::string("no VDC file ") + dq(line) +
                     " (looked for it relative to the list's directory, also without its leading components)");
        out.push_back(found);
    }
    if (out.empty()) fail(path, "", "the instance list names no VDC file");
    return out;
}

NetsolverOffer netsolver_offer(const Problem& cluster, const std::vector<NetsolverVdc>& vdcs, const NetsolverOptions& o) {
    check_options(o);
    constexpr int R = 2;
    if (cluster.num_resources() != R || !cluster.network.present() || !cluster.vms.empty())
        throw InputError("netsolver: the VDCs are offered to a cluster from netsolver_cluster");
    if (vdcs.empty()) throw InputError("netsolver: no VDC to offer (the snapshot's flavors come from the VDCs offered)");
    // Unit conversions of every VDC checked before any placement (an error names the file).
    for (const NetsolverVdc& vdc : vdcs) {
        for (std::size_t v = 0; v < vdc.vm_names.size(); ++v)
            if (vdc.vm_size[v].second > kMaxAmount / o.ram_mib_per_unit)
                fail(vdc.file, index_path(key_path("VMs", vdc.vm_names[v]), 1), "RAM too large");
        for (const auto& e : vdc.edges)
            if (e.units > kMaxMbps / o.mbps_per_unit)
                fail(vdc.file, index_path(index_path("VN", e.at), 2),
                     std::string("must be <= ") + std::to_string(kMaxMbps / o.mbps_per_unit) + " (" + std::to_string(kMaxMbps) + " Mbps)");
    }
    // Host types by smallest node (vCPU, then RAM): the vNUMA rule is asked of the smallest first.
    const int T = static_cast<int>(cluster.host_types.size());
    std::vector<int> types_small_first(T);
    std::iota(types_small_first.begin(), types_small_first.end(), 0);
    auto min_node = [&](int t) {
        const HostType& ht = cluster.host_types[t];
        Amount v = std::numeric_limits<Amount>::max(), r = std::numeric_limits<Amount>::max();
        for (int i = 0; i < ht.num_nodes(); ++i) {
            v = std::min(v, ht.node_capacity[static_cast<std::size_t>(i) * R]);
            r = std::min(r, ht.node_capacity[static_cast<std::size_t>(i) * R + 1]);
        }
        return std::make_pair(v, r);
    };
    std::stable_sort(types_small_first.begin(), types_small_first.end(), [&](int a, int b) { return min_node(a) < min_node(b); });

    NetsolverOffer offer;
    Problem& p = offer.problem;
    p = cluster;
    std::map<std::pair<Amount, Amount>, int> flavor_of;  // (vCPU, RAM MiB) -> index into p.flavors
    auto flavor_for = [&](Amount cores, Amount ram_mib) {
        auto [it, fresh] = flavor_of.emplace(std::make_pair(cores, ram_mib), static_cast<int>(p.flavors.size()));
        if (!fresh) return it->second;
        Flavor f;
        f.name = size_name(cores, ram_mib);
        f.demand = {cores, ram_mib};
        VnumaRule rule;
        rule.max_node_fraction = o.max_node_fraction;
        bool ok = false;
        for (int t : types_small_first) {
            try {
                f.vnuma = vnuma_topology_for(p.host_types[t], {cores, ram_mib}, f.name, rule);
                ok = true;
                break;
            } catch (const InputError&) {  // too big for this server under the rule: try a larger one
            }
        }
        if (!ok) f.vnuma = parse_topology("K1");  // fits no server: its VDC will fail
        f.weight = f.vnuma.size() >= 2 ? 1.0 : 0.0;
        p.flavors.push_back(std::move(f));
        return it->second;
    };
    for (std::size_t d = 0; d < vdcs.size(); ++d) {
        const NetsolverVdc& vdc = vdcs[d];
        std::string id = std::filesystem::path(vdc.file).stem().string();
        id += '#';
        id += std::to_string(d + 1);
        const int first = static_cast<int>(p.vms.size());
        for (std::size_t v = 0; v < vdc.vm_names.size(); ++v) {
            Vm vm;
            vm.id = id + "/" + vdc.vm_names[v];
            vm.flavor = flavor_for(vdc.vm_size[v].first, vdc.vm_size[v].second * o.ram_mib_per_unit);
            vm.host = kUnplaced;
            p.vms.push_back(std::move(vm));
            std::string text = printable(vdc.vm_names[v]);
            text += " (" + std::to_string(vdc.vm_size[v].first) + " cores, " + std::to_string(vdc.vm_size[v].second) + " GB, vNUMA " +
                    p.flavors[static_cast<std::size_t>(p.vms.back().flavor)].vnuma.name + ")";
            offer.vm_text.push_back(std::move(text));
        }
        const int first_link = static_cast<int>(p.vlinks.size());
        for (const auto& e : vdc.edges) p.vlinks.push_back(Vlink{first + e.a, first + e.b, e.units * o.mbps_per_unit, static_cast<int>(d)});
        p.vdcs.push_back(id);
        offer.vdc_vms.emplace_back(first, static_cast<int>(p.vms.size()));
        offer.vdc_vlinks.emplace_back(first_link, static_cast<int>(p.vlinks.size()));
    }
    finalize_problem(p, "<netsolver import>", true);
    return offer;
}

}  // namespace vmcap
