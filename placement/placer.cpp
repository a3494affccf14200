#include "placement/placer.h"

#include "evaluators/state/capacity_change.h"

#include <algorithm>
#include <array>
#include <bit>
#include <stdexcept>

namespace vmcap {

bool choice_admitted(const SearchState& s, int vm, const PlaceChoice& c) {
    const int f = s.flavor_of(vm);
    const Embedding& emb = s.model().evaluator(s.type_of(c.host), f).placements()[static_cast<std::size_t>(c.embedding)];
    return fits(s, f, c.host, emb) && rules_admit(s, vm, c.host, emb.mask);
}

Score placement_delta(const SearchState& s, int flavor, int host, const Embedding& emb) {
    const int R = s.model().num_resources();
    const Flavor& fl = s.problem().flavors[static_cast<std::size_t>(flavor)];
    const Amount* free = s.free_of(host);
    Amount local[kMaxPNuma * kMaxResources];
    unsigned touched = 0;
    for (int i = 0; i < fl.num_vnuma(); ++i) {
        const int node = emb.map[static_cast<std::size_t>(i)];
        touched |= 1U << node;
        for (int r = 0; r < R; ++r) local[node * R + r] = free[node * R + r] - fl.node_demand[r];
    }
    return capacity_gain(s, host, touched, local);
}

bool rules_admit(const SearchState& s, int vm, int host, NodeMask mask) {
    const Relocation r{vm, kUnplaced, host, mask};
    for (const auto& f : s.model().filters())
        if (!f->admits(s, std::span(&r, 1))) return false;
    return true;
}

PlaceChoice first_admitted(const SearchState& s, int vm, const std::function<CandidateKey(int host, int placement)>& key) {
    const int flavor = s.flavor_of(vm);
    std::vector<std::pair<CandidateKey, PlaceChoice>> candidates;
    for (int h = 0; h < static_cast<int>(s.problem().hosts.size()); ++h) {
        const auto& placements = s.model().evaluator(s.type_of(h), flavor).placements();
        for (int e = 0; e < static_cast<int>(placements.size()); ++e)
            if (fits(s, flavor, h, placements[static_cast<std::size_t>(e)])) candidates.push_back({key(h, e), PlaceChoice{h, e}});
    }
    std::sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
        return a.first < b.first ||
               (a.first == b.first && std::pair(a.second.host, a.second.embedding) < std::pair(b.second.host, b.second.embedding));
    });
    for (const auto& [k, c] : candidates)
        if (rules_admit(s, vm, c.host,
                        s.model().evaluator(s.type_of(c.host), flavor).placements()[static_cast<std::size_t>(c.embedding)].mask))
            return c;
    return {};
}

PlaceChoice place_vm(SearchState& s, Placer& placer, int vm) {
    const int flavor = s.flavor_of(vm);
    const PlaceChoice c = placer.choose(s, vm);
    if (!c.found()) return c;
    const auto& placements = s.model().evaluator(s.type_of(c.host), flavor).placements();
    if (c.embedding < 0 || c.embedding >= static_cast<int>(placements.size()) ||
        !fits(s, flavor, c.host, placements[static_cast<std::size_t>(c.embedding)]) ||
        !rules_admit(s, vm, c.host, placements[static_cast<std::size_t>(c.embedding)].mask))
        throw std::logic_error("placer chose a placement that does not fit or a rule refuses (host " + s.problem().hosts[c.host].id + ")");
    s.place(vm, c.host, placements[static_cast<std::size_t>(c.embedding)]);
    placer.host_changed(s, c.host);
    return c;
}

void remove_vm(SearchState& s, Placer& placer, int vm) {
    const int host = s.host_of(vm);
    s.unplace(vm);
    placer.host_changed(s, host);
}

GroupPlacement place_group(SearchState& s, Placer& placer, std::span<const int> group) {
    GroupPlacement out;
    for (bool first = true;; first = false) {
        out.order = placer.order(s, group);
        if (out.order.size() != group.size()) throw std::logic_error("placer's order is not a permutation of the group");
        std::size_t i = 0;
        while (i < out.order.size() && place_vm(s, placer, out.order[i]).found()) ++i;
        if (i == out.order.size()) {
            out.failed_vm = -1;
            return out;
        }
        if (first) out.failed_vm = out.order[i];
        for (std::size_t j = i; j-- > 0;) remove_vm(s, placer, out.order[j]);  // all or nothing
        if (!placer.retry_group(s)) return out;
    }
}

// The built-in strategies' factories, one file each (a new strategy adds its line here and below).
std::unique_ptr<Placer> make_first_fit_placer();
std::unique_ptr<Placer> make_best_fit_placer();
std::unique_ptr<Placer> make_vmcap_fit_placer();
std::unique_ptr<Placer> make_vmcap_first_fit_placer();
std::unique_ptr<Placer> make_vmcap_rack_fit_placer();
std::unique_ptr<Placer> make_link_fit_placer();
std::unique_ptr<Placer> make_ctaap_placer();
std::unique_ptr<Placer> make_deferred_acceptance_placer();
std::unique_ptr<Placer> make_exact_placer();
std::unique_ptr<Placer> make_starnet_placer();
std::unique_ptr<Placer> make_starnetla_placer();
std::unique_ptr<Placer> make_worst_fit_placer();
std::unique_ptr<Placer> make_vmagent_fit_placer();

std::span<const PlacerInfo> registered_placers() {
    static constexpr std::array<PlacerInfo, 13> kPlacers{{
        {"best-fit", "the host with the least free vCPU, the placement leaving least free vCPU on its nodes", make_best_fit_placer},
        {"ctaap", "seed 002: a VDC by graduated assignment, bipartite matching and clean-up of link violations", make_ctaap_placer},
        {"deferred-acceptance",
         "seed 004: a batch matched to hosts (typed quotas per pNUMA node; master list: serial dictatorship; stable)",
         make_deferred_acceptance_placer},
        {"exact", "each request as a MILP solved by CBC (NetSolver-ILP's model on vmcap's routes): complete, for small networks",
         make_exact_placer},
        {"first-fit", "the first host by index that fits, its first placement that fits", make_first_fit_placer},
        {"link-fit", "a group heaviest-bandwidth first, each VM where it adds the least link load; ties: best fit; retried on a dead end",
         make_link_fit_placer},
        {"starnet", "seed 003 Alg. 2: a random host passing CPU, RAM and uplink filters; its vlinks end to end, or the VM fails",
         make_starnet_placer},
        {"starnetla", "seed 003 Alg. 3: the host with the most bandwidth to the VM's placed peers (ties random), one try",
         make_starnetla_placer},
        {"vmagent-best-fit",
         "VMAgent's BestFit, a worst fit: the largest free share (min of vCPU, RAM) of the placement's lowest pNUMA node after it; "
         "ties: first host",
         make_vmagent_fit_placer},
        {"vmcap-first-fit", "the placement losing the least weighted VMCAP capacity; ties: first fit (the lowest host index)",
         make_vmcap_first_fit_placer},
        {"vmcap-fit", "the placement losing the least weighted VMCAP capacity; ties: best fit", make_vmcap_fit_placer},
        {"vmcap-rack-fit", "the placement losing the least weighted VMCAP capacity; ties: the lowest rack, in it best fit",
         make_vmcap_rack_fit_placer},
        {"worst-fit", "the host with the most free vCPU, the placement leaving the most free vCPU on its nodes (spread)",
         make_worst_fit_placer},
    }};
    return kPlacers;
}

std::string placer_names() {
    std::string s;
    for (const PlacerInfo& p : registered_placers()) s += (s.empty() ? "" : ", ") + std::string(p.name);
    return s;
}

std::unique_ptr<Placer> make_placer(std::string_view name) {
    for (const PlacerInfo& p : registered_placers())
        if (p.name == name) return p.make();
    throw InputError("unknown placer '" + std::string(name) + "' (known: " + placer_names() + ")");
}

}  // namespace vmcap
