#include "evaluators/registry/registry.h"

#include <cmath>
#include <stdexcept>

#include "evaluators/network/network_load.h"
#include "evaluators/objective/bandwidth_capacity.h"
#include "evaluators/state/capacity_model.h"
#include "evaluators/rules/free_node_rule.h"
#include "evaluators/rules/link_filter.h"
#include "evaluators/rules/nova_node_rule.h"
#include "evaluators/rules/placement_rules.h"
#include "evaluators/objective/locality_term.h"
#include "evaluators/objective/ram_cost_term.h"
#include "evaluators/objective/soft_anti_affinity_term.h"
#include "evaluators/objective/uncovered_need_term.h"

namespace vmcap {

const std::vector<TermInfo>& registered_terms() {
    // The registry: one line per term. Immutable after first use.
    static const std::vector<TermInfo> terms = {
        {RamCostTerm::kName, RamCostTerm::kHelp,
         [](const CapacityModel& m, double w) -> std::unique_ptr<ObjectiveTerm> { return std::make_unique<RamCostTerm>(m.problem(), w); }},
        {LocalityTerm::kName, LocalityTerm::kHelp,
         [](const CapacityModel& m, double w) -> std::unique_ptr<ObjectiveTerm> { return std::make_unique<LocalityTerm>(m.problem(), w); }},
        {SoftAntiAffinityTerm::kName, SoftAntiAffinityTerm::kHelp,
         [](const CapacityModel& m, double w) -> std::unique_ptr<ObjectiveTerm> {
             return std::make_unique<SoftAntiAffinityTerm>(m.problem(), w);
         }},
        {UncoveredNeedTerm::kName, UncoveredNeedTerm::kHelp,
         [](const CapacityModel& m, double w) -> std::unique_ptr<ObjectiveTerm> { return std::make_unique<UncoveredNeedTerm>(m, w); }},
    };
    return terms;
}

const std::vector<FilterInfo>& registered_filters() {
    // The registry: one line per filter. Immutable after first use.
    static const std::vector<FilterInfo> filters = {
        // Cheap host-level rules first: a refusal there spares the link rule's route walk.
        {ClosedHostsFilter::kName, [](const Problem& p) { return ClosedHostsFilter::applies(p); },
         [](const CapacityModel& m) -> std::unique_ptr<FeasibilityFilter> { return std::make_unique<ClosedHostsFilter>(m.problem()); }},
        {NoRemapFilter::kName, [](const Problem& p) { return NoRemapFilter::applies(p); },
         [](const CapacityModel&) -> std::unique_ptr<FeasibilityFilter> { return std::make_unique<NoRemapFilter>(); }},
        {ServerGroupFilter::kName, [](const Problem& p) { return ServerGroupFilter::applies(p); },
         [](const CapacityModel& m) -> std::unique_ptr<FeasibilityFilter> { return std::make_unique<ServerGroupFilter>(m.problem()); }},
        {LinkCapacityFilter::kName, [](const Problem& p) { return LinkCapacityFilter::applies(p); },
         [](const CapacityModel& m) -> std::unique_ptr<FeasibilityFilter> {
             return std::make_unique<LinkCapacityFilter>(m.problem(), m.network_routes(), m.shared_vlink_index());
         }},
    };
    return filters;
}

const std::vector<NodeRuleInfo>& registered_node_rules() {
    // The registry: one line per rule, the first that applies is taken. Immutable after first use.
    static const std::vector<NodeRuleInfo> rules = {
        {kNovaSpreadRule, NovaNodeRule::kSpreadHelp, [](const Problem& p) { return p.node_rule.name == kNovaSpreadRule; },
         [](const CapacityModel& m) -> std::unique_ptr<DestinationNodeRule> { return std::make_unique<NovaNodeRule>(m); }},
        {kNovaPackRule, NovaNodeRule::kPackHelp, [](const Problem& p) { return p.node_rule.name == kNovaPackRule; },
         [](const CapacityModel& m) -> std::unique_ptr<DestinationNodeRule> { return std::make_unique<NovaNodeRule>(m); }},
        {FreeNodeRule::kName, FreeNodeRule::kHelp, [](const Problem&) { return true; },
         [](const CapacityModel&) -> std::unique_ptr<DestinationNodeRule> { return std::make_unique<FreeNodeRule>(); }},
    };
    return rules;
}

// Defined here, not in capacity_model.cpp: the model takes its terms and filters from the
// registries above, which the state below them must not know.
CapacityModel::CapacityModel(const Problem& problem, const ModelOptions& options)
    : problem_(problem), R_(problem.num_resources()), options_(options) {
    build_tables();
    for (auto& t : make_terms(*this)) add_term(std::move(t));
    // The network's evaluators (the link-capacity rule once there are vlinks to route, the
    // bandwidth-aware capacity term once a target flavor declares a bandwidth) share one table
    // of routes and one vlink index.
    const bool links = problem.network.present() && !problem.vlinks.empty();
    if (links) vlink_index_ = std::make_shared<const VlinkIndex>(problem);
    if (links || BandwidthCapacityTerm::applies(problem)) routes_ = std::make_shared<const NetworkRoutes>(problem);
    for (const FilterInfo& info : registered_filters())
        if (info.applies(problem)) add_filter(info.make(*this));
    if (BandwidthCapacityTerm::applies(problem)) add_term(std::make_unique<BandwidthCapacityTerm>(*this, routes_));
    for (const NodeRuleInfo& info : registered_node_rules())
        if (info.applies(problem)) {
            node_rule_ = info.make(*this);
            break;
        }
    fixes_nodes_ = node_rule_->fixes_nodes();
    counts_by_rule_ = node_rule_->counts_capacity();
    own_terms_ = terms_.size();
    own_filters_ = filters_.size();
}

std::vector<std::unique_ptr<ObjectiveTerm>> make_terms(const CapacityModel& model) {
    const Problem& problem = model.problem();
    std::vector<std::unique_ptr<ObjectiveTerm>> out;
    for (const auto& [name, weight] : problem.objective_terms) {
        if (!std::isfinite(weight)) throw std::invalid_argument("objective term " + name + ": weight must be a finite number");
        const TermInfo* info = nullptr;
        for (const TermInfo& t : registered_terms())
            if (t.name == name) info = &t;
        if (info == nullptr) {
            std::string known;
            for (const TermInfo& t : registered_terms()) known += (known.empty() ? "" : ", ") + std::string(t.name);
            throw std::invalid_argument("unknown objective term '" + name + "' (known: " + known + ")");
        }
        if (weight != 0.0) out.push_back(info->make(model, weight));
    }
    return out;
}

}  // namespace vmcap
