#include "evaluators/state/capacity_model.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace vmcap {

void CapacityModel::build_tables() {
    const Problem& problem = problem_;
    const ModelOptions& options = options_;
    divisors_.resize(problem.flavors.size());
    for (std::size_t f = 0; f < problem.flavors.size(); ++f) {
        SlotDivisors& d = divisors_[f];
        for (int r = 0; r < R_; ++r) {
            const Amount nd = problem.flavors[f].node_demand[r];
            if (nd <= 0) continue;
            d.resource[d.count] = r;
            d.div[d.count] = MagicDivisor::make(nd);
            ++d.count;
        }
        // finalize_problem rejects flavors without demand; guard anyway so node_b never
        // reads an unset divisor.
        if (d.count == 0) throw std::invalid_argument("flavor " + problem.flavors[f].name + " demands no resource");
    }
    for (std::size_t f = 0; f < problem.flavors.size(); ++f)
        if (problem.flavors[f].is_target()) {
            if (weight_milli(problem.flavors[f].weight) < 0)
                throw std::invalid_argument("flavor " + problem.flavors[f].name +
                                            ": weight must be at most 100000 with at most 3 decimals");
            targets_.push_back(static_cast<int>(f));
            weights_.push_back(problem.flavors[f].weight);
            weight_units_.push_back(weight_units(problem.flavors[f].weight));
        }
    evaluators_.reserve(problem.host_types.size() * problem.flavors.size());
    std::size_t memo_left = std::size_t{1} << 24;  // entries of all memo tables together (64 MiB)
    for (const HostType& ht : problem.host_types)
        for (const Flavor& fl : problem.flavors) {
            // Built by appending: "literal" + string trips a GCC 12 -Wrestrict false positive.
            std::string label;
            if (!options.source.empty()) label.append(options.source).append(": ");
            label.append("host type '").append(ht.name).append("' with flavor '").append(fl.name).append("'");
            evaluators_.emplace_back(ht.topology, fl.vnuma, ExactOptions{options.exact_work_limit, std::move(label), options.deadline});
            // Exact-fallback pairs remember their values per capacity vector (VmcapEvaluator::
            // enable_memo): b_i of an empty node is its most; at most 2^20 entries (4 MiB) a pair
            // and 2^24 (64 MiB) in all, first come first served in (host type, flavor) order.
            if (!evaluators_.back().is_closed_form()) {
                const int f = static_cast<int>(&fl - problem.flavors.data());
                std::vector<Count> bmax(static_cast<std::size_t>(ht.num_nodes()));
                capacity_vector(f, ht.num_nodes(), ht.node_capacity.data(), bmax.data());
                evaluators_.back().enable_memo(bmax, std::min(std::size_t{1} << 20, memo_left));
                memo_left -= evaluators_.back().memo_entries();
            }
        }
    // The objective must stay an exact int64 (evaluators/closed_forms/score.h): bound every target's cluster
    // capacity by the sum over hosts of floor(node capacity / node demand) over its nodes (>= any
    // VMCAP), and the weighted sum of those bounds by 2^61.
    // Per host type, times its host count: O(targets x host types x nodes x R), not x hosts.
    std::vector<Wide> hosts_of_type(problem.host_types.size(), 0);
    for (const Host& h : problem.hosts) ++hosts_of_type[h.type];
    Wide most = 0;
    for (int j = 0; j < num_targets(); ++j) {
        const Flavor& fl = problem.flavors[targets_[j]];
        Wide cap = 0;
        for (std::size_t t = 0; t < problem.host_types.size(); ++t) {
            const HostType& ht = problem.host_types[t];
            for (int i = 0; i < ht.num_nodes(); ++i) {
                Amount b = std::numeric_limits<Amount>::max();
                for (int r = 0; r < R_; ++r)
                    if (fl.node_demand[r] > 0) b = std::min(b, ht.node_capacity[i * R_ + r] / fl.node_demand[r]);
                cap += b * hosts_of_type[t];
            }
        }
        most += cap * weight_units_[j];
        if (most >= (static_cast<Wide>(1) << 61))
            throw std::invalid_argument(
                "weights x capacities exceed the objective's exact integer range (2^61 score units; lower the weights or the capacities)");
    }
    // Every host type's weighted capacity over all targets in one target-parallel pass (memo
    // misses of the search and the upper bound; weighted_vmcap.h).
    host_values_.reserve(problem.host_types.size());
    for (std::size_t t = 0; t < problem.host_types.size(); ++t) {
        std::vector<const VmcapEvaluator*> evs;
        for (int f : targets_) evs.push_back(&evaluator(static_cast<int>(t), f));
        host_values_.emplace_back(problem, static_cast<int>(t), targets_, weight_units_, evs);
    }
}

void CapacityModel::add_term(std::unique_ptr<ObjectiveTerm> term) {
    terms_separable_ = terms_separable_ && term->separable_per_host();
    terms_monotone_ = terms_monotone_ && term->monotone_under_insertion();
    keepers_.push_back(term.get());
    terms_.push_back(std::move(term));
}

void CapacityModel::add_filter(std::unique_ptr<FeasibilityFilter> filter) {
    if (filter->holds_in_flight() && !filter->supports_arrivals())
        throw std::logic_error("feasibility filter '" + std::string(filter->name()) +
                               "' holds in flight but does not support arrivals (the in-flight check asks it for arrivals)");
    rules_.push_back(filter.get());
    keepers_.push_back(filter.get());
    filters_.push_back(std::move(filter));
}

void CapacityModel::set_node_rule(std::unique_ptr<DestinationNodeRule> rule) {
    if (rule == nullptr) throw std::invalid_argument("CapacityModel::set_node_rule: no rule");
    fixes_nodes_ = rule->fixes_nodes();
    counts_by_rule_ = rule->counts_capacity();
    node_rule_ = std::move(rule);
    own_node_rule_ = false;
}

Count CapacityModel::host_capacity(int host_type, int flavor, const Amount* free) const {
    if (counts_by_rule_) return node_rule_->host_capacity(*this, host_type, flavor, free);
    const int n = problem_.host_types[host_type].num_nodes();
    Count b[kMaxPNuma];
    capacity_vector(flavor, n, free, b);
    return evaluator(host_type, flavor)(b);
}

Score CapacityModel::rule_host_value(int host_type, const Amount* free) const {
    Score s = 0;
    for (int j = 0; j < num_targets(); ++j) s += weight_units_[j] * node_rule_->host_capacity(*this, host_type, targets_[j], free);
    return s;
}

}  // namespace vmcap
