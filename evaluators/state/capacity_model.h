#pragma once
/**
 * @file capacity_model.h
 * Immutable per-(host type, flavor) tables derived from a Problem once: the VMCAP evaluator of
 * every pair (closed form or exact fallback, chosen here and never per call), every placement of
 * every flavor on every host type, the capacity targets (flavors with weight > 0), and the rest of
 * the objective (terms beyond VMCAP, from Problem::objective_terms) and the feasibility filters
 * beyond the built-in rules (evaluators/interfaces/seams.h).
 * Shared by `const&` across search threads; thread-safe for concurrent reads (add_term and
 * add_filter are for set-up, before any search).
 */
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "evaluators/closed_forms/capacity_vectors.h"
#include "evaluators/state/migration_budget.h"
#include "evaluators/interfaces/seams.h"
#include "evaluators/closed_forms/score.h"
#include "evaluators/closed_forms/vmcap.h"
#include "evaluators/closed_forms/weighted_vmcap.h"
#include "instances/problem.h"
#include "instances/vlink_index.h"

namespace vmcap {

class NetworkRoutes;  // evaluators/network/network_load.h

/** Set-up options of a CapacityModel. */
struct ModelOptions {
    /** Most work one exact-fallback VMCAP evaluation may do (ExactOptions::work_limit;
     *  `--exact-work-limit`); >= 1. */
    std::int64_t exact_work_limit = kDefaultExactWorkLimit;
    /** No exact-fallback evaluation starts after this instant (ExactOptions::deadline). */
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
    /** The snapshot's file name, prefixed to refusals ("<source>: host type 'x' with flavor 'y'
     *  needs the exact VMCAP solver beyond its limit of N work units ..."); may be empty. */
    std::string source;
};

class CapacityModel {
public:
    /** Builds the tables and the objective terms of problem.objective_terms; O(host types x
     *  flavors x placements). Keeps a reference to `problem`. Throws std::invalid_argument on an
     *  unknown objective term, a bad term weight or a work limit < 1. Every evaluation of an
     *  exact-fallback pair may throw InputError beyond options.exact_work_limit work units (vmcap.h).
     *  Defined with the registries (evaluators/registry/registry.cpp), whose tables it reads. */
    explicit CapacityModel(const Problem& problem, const ModelOptions& options = {});
    /** Not copyable or movable: rules() points at its own budget() and SearchStates at the model. */
    CapacityModel(const CapacityModel&) = delete;
    CapacityModel& operator=(const CapacityModel&) = delete;

    /** Objective terms beyond VMCAP capacity (may be empty), in a fixed order. */
    const std::vector<std::unique_ptr<ObjectiveTerm>>& terms() const { return terms_; }
    bool has_terms() const { return !terms_.empty(); }
    /** Every term is separable per host (the move cache may be used). */
    bool terms_separable() const { return terms_separable_; }
    /** Every term is monotone under insertion (bounds built on VMCAP's monotonicity hold). */
    bool terms_monotone() const { return terms_monotone_; }
    /** The migration budget, the built-in rule every move enforces inline through BudgetUse
     *  (evaluators/state/migration_budget.h); not one of filters(). */
    const MigrationBudget& budget() const { return budget_; }
    /** Every term and filter, in the order added, as the aggregate hooks SearchState keeps per
     *  state (one list for both: AggregateHooks). */
    const std::vector<const AggregateHooks*>& aggregate_keepers() const { return keepers_; }
    /** Every feasibility rule, for from-scratch re-checks: budget() first, then filters(). */
    const std::vector<const FeasibilityFilter*>& rules() const { return rules_; }
    /** Feasibility filters beyond the built-in rules (may be empty). */
    const std::vector<std::unique_ptr<FeasibilityFilter>>& filters() const { return filters_; }
    bool has_filters() const { return !filters_.empty(); }
    /** Set-up only (not thread-safe): adds a term / a filter, e.g. one that has no registry entry.
     *  add_filter throws std::logic_error for a filter that holds in flight but does not support
     *  arrivals (FeasibilityFilter::holds_in_flight). */
    void add_term(std::unique_ptr<ObjectiveTerm> term);
    void add_filter(std::unique_ptr<FeasibilityFilter> filter);
    /** The destination-node rule (evaluators/interfaces/seams.h): the first of
     *  registered_node_rules() that applies to the problem ("free" unless another does), or the
     *  one set_node_rule gave. Never null. */
    const DestinationNodeRule& node_rule() const { return *node_rule_; }
    /** node_rule().fixes_nodes(), read once: false keeps every move's evaluation as without the seam. */
    bool fixes_nodes() const { return fixes_nodes_; }
    /** node_rule().assign(*this, flavor, host, free), or kAnyPlacement without a call when the rule
     *  leaves the choice free (inline: one test of a flag on the search's paths). Thread-safe. */
    int node_choice(int flavor, int host, const Amount* free) const {
        return fixes_nodes_ ? node_rule_->assign(*this, flavor, host, free) : kAnyPlacement;
    }
    /** node_rule().counts_capacity(), read once: every host's capacity (host_value, host_capacity,
     *  cluster_capacity, the search state's values) is then the rule's count, the search state
     *  keeps host values only (SearchState::per_target_caches() false) and the moves' threshold
     *  bounds are off (capacity_monotone()). */
    bool counts_by_rule() const { return counts_by_rule_; }
    /** May the moves bound a VMCAP gain by the removals alone (an arrival never raises a host's
     *  capacity)? VMCAP is monotone in the free amounts; a rule's sequential count need not be
     *  (a greedy order may pack better from a fuller host). */
    bool capacity_monotone() const { return !counts_by_rule_; }
    /** Set-up only (not thread-safe, before any SearchState of this model): replaces the
     *  destination-node rule, e.g. with one that has no registry entry. Throws
     *  std::invalid_argument on nullptr. */
    void set_node_rule(std::unique_ptr<DestinationNodeRule> rule);
    /** The options this model was built with. */
    const ModelOptions& options() const { return options_; }
    /** True if every term and filter, and the destination-node rule, is one the constructor made
     *  from the problem (none added by add_term / add_filter / set_node_rule): CapacityModel(other
     *  problem, options()) then models that problem the same way (the planning pipeline re-bases
     *  the snapshot on a plan's state). */
    bool derived_from_problem() const { return terms_.size() == own_terms_ && filters_.size() == own_filters_ && own_node_rule_; }

    const Problem& problem() const { return problem_; }
    /** The snapshot's vlinks per VM and hosts per switch (instances/vlink_index.h), or nullptr
     *  when it has no vlinks: proposals draw destinations near vlink peers from it. */
    const VlinkIndex* vlink_index() const { return vlink_index_.get(); }
    /** The same, shared (null without vlinks): for filters and terms that keep it. */
    const std::shared_ptr<const VlinkIndex>& shared_vlink_index() const { return vlink_index_; }
    /** The network's routes, shared by the network's filters and terms; null unless the snapshot
     *  has vlinks to route or a target flavor declares a bandwidth. */
    const std::shared_ptr<const NetworkRoutes>& network_routes() const { return routes_; }
    /**
     * The first of filters() (T derived from FeasibilityFilter) or of terms() (T derived from
     * ObjectiveTerm), or the node_rule() (T derived from DestinationNodeRule), whose dynamic type
     * is T or derives from it, or nullptr when the model has none:
     * the typed lookup for code that reads a rule's or a term's own tables, e.g.
     * find<LinkCapacityFilter>() (routes, allowances: the exact solvers, the placers, the plan's
     * network figures) or find<BandwidthCapacityTerm>() (`vmcap capacity`). T must be complete at
     * the call. O(filters or terms); thread-safe.
     */
    template <class T>
    const T* find() const {
        static_assert(
            std::is_base_of_v<FeasibilityFilter, T> || std::is_base_of_v<ObjectiveTerm, T> || std::is_base_of_v<DestinationNodeRule, T>,
            "CapacityModel::find<T>: T must be a FeasibilityFilter, an ObjectiveTerm or a DestinationNodeRule");
        if constexpr (std::is_base_of_v<DestinationNodeRule, T>) {
            return dynamic_cast<const T*>(node_rule_.get());
        } else if constexpr (std::is_base_of_v<FeasibilityFilter, T>) {
            for (const auto& f : filters_)
                if (const T* hit = dynamic_cast<const T*>(f.get())) return hit;
        } else {
            for (const auto& t : terms_)
                if (const T* hit = dynamic_cast<const T*>(t.get())) return hit;
        }
        return nullptr;
    }
    int num_resources() const { return R_; }

    /** Capacity targets, in flavor order: flavor index and weight of target j. */
    int num_targets() const { return static_cast<int>(targets_.size()); }
    int target_flavor(int j) const { return targets_[j]; }
    double target_weight(int j) const { return weights_[j]; }
    /** Score units of one unit of capacity of target j (weight in thousandths x 1024; score.h). */
    Score target_weight_units(int j) const { return weight_units_[j]; }
    /** Every target's flavor index and weight units, [j] (for loops over targets on a hot path). */
    const int* target_flavors() const { return targets_.data(); }
    const Score* target_weights_units() const { return weight_units_.data(); }

    /** VMCAP evaluator of (host type, flavor); its placements() list the usable node sets. */
    const VmcapEvaluator& evaluator(int host_type, int flavor) const {
        return evaluators_[static_cast<std::size_t>(host_type) * problem_.flavors.size() + flavor];
    }

    /**
     * b_i of one pNUMA node for `flavor`: min over resources r with demand of
     * floor(free[r] / node_demand[r]) (vmcap-formulas.md, Definition). `free_node` has R entries.
     * O(R); free amounts must be >= 0.
     */
    Count node_b(int flavor, const Amount* free_node) const {
        // Exact magic-number division (MagicDivisor): the search calls this for every touched
        // node x target x candidate placement, and a hardware 64-bit divide costs ~10x more.
        const SlotDivisors& d = divisors_[flavor];
        Count best = d.div[0].divide(free_node[d.resource[0]]);
        for (int t = 1; t < d.count; ++t) {
            const Count s = d.div[t].divide(free_node[d.resource[t]]);
            if (s < best) best = s;
        }
        return best;
    }

    /** The capacity vector of `flavor` on a host of n pNUMA nodes with free amounts `free` ([i * R +
     *  r]): b[i] = node_b(flavor, free + i * R) for i < n. O(n x R). */
    void capacity_vector(int flavor, int n, const Amount* free, Count* b) const {
        for (int i = 0; i < n; ++i) b[i] = node_b(flavor, free + static_cast<std::size_t>(i) * R_);
    }

    /**
     * sum_j w_j VMCAP_j, in score units, of one host of `host_type` with free amounts `free`
     * ([node * R + r], every amount >= 0): the host's share of the VMCAP term, computed over all
     * targets in one target-parallel pass (WeightedVmcap, weighted_vmcap.h), exactly; when the
     * destination-node rule counts capacity (counts_by_rule()), sum_j w_j of its counts instead.
     * Thread-safe; throws what an exact-fallback evaluator throws (evaluator()).
     */
    Score host_value(int host_type, const Amount* free) const {
        return counts_by_rule_ ? rule_host_value(host_type, free) : host_values_[host_type].value(free);
    }
    /** sum_j w_j VMCAP_j by the closed forms even when the rule counts (the upper bound's value:
     *  VMCAP is the optimal packing, never below the rule's count). */
    Score vmcap_host_value(int host_type, const Amount* free) const { return host_values_[host_type].value(free); }
    /** The kernel behind vmcap_host_value() for `host_type`. */
    const WeightedVmcap& weighted_vmcap(int host_type) const { return host_values_[host_type]; }

    /** VMCAP of `flavor` on one host of `host_type` with free amounts `free` ([node * R + r]), or
     *  the destination-node rule's count when it counts capacity (counts_by_rule()). */
    Count host_capacity(int host_type, int flavor, const Amount* free) const;

    /** VMCAP term sum_j w_j * totals[j] in score units, exactly (totals has num_targets() entries). */
    Score weighted(const Count* totals) const {
        Score s = 0;
        for (int j = 0; j < num_targets(); ++j) s += weight_units_[j] * totals[j];
        return s;
    }
    /** The same in objective units as a double (the exact solvers' own arithmetic). */
    double weighted_objective(const Count* totals) const { return to_objective(weighted(totals)); }

private:
    /** The constructor's first half, everything but the terms, the filters and the network's shared
     *  tables: the VMCAP evaluators, divisors, targets and per-host-type weighted VMCAP of problem_
     *  with options_ (capacity_model.cpp). Throws what the constructor documents. */
    void build_tables();
    /** host_value under a rule that counts: sum_j w_j node_rule_->host_capacity. */
    Score rule_host_value(int host_type, const Amount* free) const;

    /** The resources a flavor's vNUMA node demands (> 0) and their reciprocals. */
    struct SlotDivisors {
        int count = 0;
        int resource[kMaxResources] = {};
        MagicDivisor div[kMaxResources];
    };

    const Problem& problem_;
    int R_ = 0;
    std::vector<int> targets_;
    std::vector<double> weights_;
    std::vector<Score> weight_units_;
    std::vector<VmcapEvaluator> evaluators_;  ///< [host_type * F + flavor]
    std::vector<SlotDivisors> divisors_;      ///< [flavor]
    std::vector<WeightedVmcap> host_values_;  ///< [host_type]
    std::vector<std::unique_ptr<ObjectiveTerm>> terms_;
    std::vector<std::unique_ptr<FeasibilityFilter>> filters_;
    MigrationBudget budget_;
    std::vector<const FeasibilityFilter*> rules_{&budget_};  ///< budget_, then filters_
    std::vector<const AggregateHooks*> keepers_;             ///< terms_ and filters_, in the order added
    ModelOptions options_;
    std::size_t own_terms_ = 0, own_filters_ = 0;  ///< terms / filters the constructor made
    std::unique_ptr<DestinationNodeRule> node_rule_;
    bool fixes_nodes_ = false;     ///< node_rule_->fixes_nodes()
    bool counts_by_rule_ = false;  ///< node_rule_->counts_capacity()
    bool own_node_rule_ = true;    ///< node_rule_ is the constructor's (no set_node_rule)
    std::shared_ptr<const VlinkIndex> vlink_index_;
    std::shared_ptr<const NetworkRoutes> routes_;
    bool terms_separable_ = true, terms_monotone_ = true;
};

}  // namespace vmcap
