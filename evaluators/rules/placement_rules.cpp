#include "evaluators/rules/placement_rules.h"

#include <algorithm>
#include <memory>

#include "evaluators/state/search_state.h"

namespace vmcap {

namespace {

std::vector<int> snapshot_hosts(const Problem& p) {
    std::vector<int> h(p.vms.size());
    for (std::size_t v = 0; v < h.size(); ++v) h[v] = p.vms[v].host;
    return h;
}

}  // namespace

bool ServerGroupFilter::applies(const Problem& p) {
    for (const ServerGroup& g : p.server_groups)
        if (g.policy != GroupPolicy::SoftAntiAffinity && g.members.size() >= 2) return true;
    return false;
}

ServerGroupFilter::ServerGroupFilter(const Problem& p) : GroupCountHooks(p.vms.size()), problem_(p), group_(p.vms.size(), -1) {
    for (std::size_t g = 0; g < p.server_groups.size(); ++g) {
        const ServerGroup& sg = p.server_groups[g];
        if (sg.policy == GroupPolicy::SoftAntiAffinity || sg.members.size() < 2) continue;
        for (int v : sg.members) {
            group_[v] = static_cast<int>(groups_.size());
            if (sg.policy == GroupPolicy::AntiAffinity) counted_[v] = group_[v];
        }
        groups_.push_back(static_cast<int>(g));
    }
    for (const auto& [k, c] : GroupHostCounts::of(counted_, snapshot_hosts(p)).n)
        if (c > 1) snapshot_.n[k] = c;
}

int ServerGroupFilter::allowed(int g, int h) const {
    return std::max(1, snapshot_.count(g, h));
}

bool ServerGroupFilter::admits(const SearchState& s, std::span<const Relocation> moves) const {
    const GroupHostCounts& n = counts(s);
    for (std::size_t i = 0; i < moves.size(); ++i) {
        const Relocation& r = moves[i];
        const int g = group_[r.vm];
        if (g < 0 || r.from_host == r.to_host || r.to_host == kUnplaced) continue;
        const ServerGroup& sg = problem_.server_groups[groups_[g]];
        if (sg.policy == GroupPolicy::Affinity) {
            if (r.from_host != kUnplaced) return false;  // a member leaves the others
            for (int m : sg.members) {                   // an arrival joins the members already placed
                const int h = host_after(s.host_of(m), moves, m, i);
                if (m != r.vm && h != kUnplaced && h != r.to_host) return false;
            }
            continue;
        }
        int c = n.count(g, r.to_host) + 1;  // with the earlier relocations of this move
        for (std::size_t j = 0; j < i; ++j)
            if (group_[moves[j].vm] == g) c += (moves[j].to_host == r.to_host) - (moves[j].from_host == r.to_host);
        if (c > allowed(g, r.to_host)) return false;
    }
    return true;
}

std::string ServerGroupFilter::violation(const Problem& p, const PlacementView& pl) const {
    for (const auto& [k, c] : GroupHostCounts::of(counted_, pl.host).n) {
        const int g = GroupHostCounts::group_of_key(k), h = GroupHostCounts::host_of_key(k);
        if (c > allowed(g, h))
            return "anti-affinity group \"" + p.server_groups[groups_[g]].id + "\" has " + std::to_string(c) + " members on host \"" +
                   p.hosts[h].id + "\"";
    }
    for (std::size_t v = 0; v < pl.host.size(); ++v) {
        const int g = group_[v];
        if (g >= 0 && p.server_groups[groups_[g]].policy == GroupPolicy::Affinity && pl.host[v] != p.vms[v].host &&
            p.vms[v].host != kUnplaced)
            return "vm \"" + p.vms[v].id + "\" of affinity group \"" + p.server_groups[groups_[g]].id + "\" left host \"" +
                   p.hosts[p.vms[v].host].id + "\"";
    }
    return "";
}

ClosedHostsFilter::ClosedHostsFilter(const Problem& p) : closed_(p.hosts.size(), 0) {
    for (int h : p.constraints.drain_hosts) closed_[h] = 1;
    for (int h : p.constraints.no_target_hosts) closed_[h] = 1;
}

bool ClosedHostsFilter::admits(const SearchState&, std::span<const Relocation> moves) const {
    for (const Relocation& r : moves)
        if (r.to_host != r.from_host && r.to_host != kUnplaced && closed_[r.to_host]) return false;
    return true;
}

std::string ClosedHostsFilter::violation(const Problem& p, const PlacementView& pl) const {
    for (std::size_t v = 0; v < pl.host.size(); ++v)
        if (pl.host[v] != kUnplaced && closed_[pl.host[v]] && pl.host[v] != p.vms[v].host)
            return "vm \"" + p.vms[v].id + "\" moved onto host \"" + p.hosts[pl.host[v]].id + "\", which is closed to incoming VMs";
    return "";
}

bool NoRemapFilter::admits(const SearchState&, std::span<const Relocation> moves) const {
    for (const Relocation& r : moves)
        if (r.from_host == r.to_host && r.to_host != kUnplaced) return false;
    return true;
}

std::string NoRemapFilter::violation(const Problem&, const PlacementView&) const {
    return "";  // a remap is a step (same host, other nodes), which a placement does not show: see the header
}

}  // namespace vmcap
