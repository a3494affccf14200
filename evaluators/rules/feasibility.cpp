#include "evaluators/rules/feasibility.h"

#include "evaluators/state/fit.h"

#include <vector>

namespace vmcap {

bool step_fits(const SearchState& s, int vm, int host, const std::array<std::uint8_t, kMaxVNuma>& pnuma) {
    const Problem& p = s.problem();
    const Flavor& fl = p.flavors[p.vms[vm].flavor];
    const int R = p.num_resources();
    const Amount* f = s.free_of(host);
    const bool same = s.host_of(vm) == host;
    const std::uint8_t* cur = s.pnuma_of(vm);
    for (int i = 0; i < fl.num_vnuma(); ++i) {
        bool own = false;
        for (int c = 0; c < fl.num_vnuma() && same; ++c) own = own || cur[c] == pnuma[i];
        for (int r = 0; r < R; ++r)
            if (f[pnuma[i] * R + r] + (own ? fl.node_demand[r] : 0) < fl.node_demand[r]) return false;
    }
    // The destination-node rule: a rule that fixes nodes places the VM on its own choice only.
    const NodeMask mask = node_mask(pnuma.data(), fl.num_vnuma());
    if (!rule_admits_step(s, vm, host, mask)) return false;
    // Every step keeps the feasibility filters (link capacities among them).
    if (s.model().has_filters()) {
        const Relocation r{vm, s.host_of(vm), host, mask};
        return filters_admit(s, std::span(&r, 1));
    }
    return true;
}

std::string first_rule_violation(const CapacityModel& model, const SearchState& state) {
    std::vector<int> host;
    std::vector<NodeMask> mask;
    state.placement_arrays(host, mask);
    for (const FeasibilityFilter* rule : model.rules())
        if (std::string why = rule->violation(model.problem(), PlacementView{host, mask}); !why.empty())
            return std::string(rule->name()) + " rule: " + why;
    return "";
}

InFlightWave::InFlightWave(const CapacityModel& model) {
    for (const auto& f : model.filters())
        if (f->holds_in_flight()) rules_.push_back(f.get());
}

void InFlightWave::clear() {
    arrivals_.clear();
    by_host_.clear();
}

const FeasibilityFilter* InFlightWave::refusal(const SearchState& boundary, int vm, int from_host, int to_host, NodeMask to_mask) const {
    if (from_host == to_host) return nullptr;
    for (const FeasibilityFilter* f : rules_) {
        seen_by(*f, to_host);
        scratch_.push_back(Relocation{vm, kUnplaced, to_host, to_mask});
        if (!f->admits(boundary, scratch_)) return f;
    }
    return nullptr;
}

void InFlightWave::seen_by(const FeasibilityFilter& rule, int to_host) const {
    scratch_.clear();
    if (!rule.separable_per_host()) {
        scratch_ = arrivals_;
    } else if (const auto it = by_host_.find(to_host); it != by_host_.end()) {
        scratch_ = it->second;
    }
}

std::string InFlightWave::reason(const SearchState& boundary, const FeasibilityFilter& rule, int vm, int to_host, NodeMask to_mask) const {
    std::vector<int> host;
    std::vector<NodeMask> mask;
    boundary.placement_arrays(host, mask);
    seen_by(rule, to_host);
    scratch_.push_back(Relocation{vm, kUnplaced, to_host, to_mask});
    for (const Relocation& r : scratch_) {
        host[r.vm] = r.to_host;
        mask[r.vm] = r.to_mask;
    }
    std::string why = rule.violation(boundary.problem(), PlacementView{host, mask});
    if (why.empty()) why = "refuses it on host \"" + boundary.problem().hosts[to_host].id + "\"";
    return std::string(rule.name()) + " rule: " + why;
}

void InFlightWave::join(int vm, int from_host, int to_host, NodeMask to_mask) {
    if (from_host == to_host || rules_.empty()) return;
    const Relocation r{vm, kUnplaced, to_host, to_mask};
    arrivals_.push_back(r);
    by_host_[to_host].push_back(r);
}

}  // namespace vmcap
