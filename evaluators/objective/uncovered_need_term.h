#pragma once
/**
 * @file uncovered_need_term.h
 * The saturating half of a forecast objective: -W per VM of forecast need that the cluster's
 * capacity does not cover,
 *
 *     value = -W x sum over flavors f with a need (Flavor::need >= 0) of max(0, need_f - capacity_f),
 *
 * capacity_f the cluster's capacity for f (sum over hosts of VMCAP, or the destination-node rule's
 * count: CapacityModel::host_capacity), whether f is a target or not. With flavor weights w_f
 * (the VMCAP term) the objective is sum_f w_f c_f - W x sum_f max(0, n_f - c_f): each VM of capacity
 * is worth w_f + W up to the need and w_f beyond it (`--weights forecast`: w_f = 0.01, W = 1).
 *
 * The term reads cluster totals, so it is not separable per host (no move cache); a move's delta
 * recomputes the capacity of its hosts only for the flavors whose total could fall below their need
 * (a flavor whose total minus its moved hosts' capacity still covers the need cannot change the
 * term), so flavors with capacity to spare cost nothing. Exact integers (score.h): W in
 * thousandths x 1024 per VM; before + delta == after.
 */
#include <vector>

#include "evaluators/interfaces/seams.h"

namespace vmcap {

class CapacityModel;

class UncoveredNeedTerm final : public ObjectiveTerm {
public:
    static constexpr std::string_view kName = "uncovered-need";
    static constexpr std::string_view kHelp =
        "objective penalty per VM of a flavor's forecast need (Flavor::need, from --requests) beyond its cluster capacity (0: off)";

    /** For `model`'s problem (keeps a reference to `model`). Throws std::invalid_argument if
     *  `weight` is negative, above kMaxWeight or has more than three decimals. O(flavors). */
    UncoveredNeedTerm(const CapacityModel& model, double weight);

    std::string_view name() const override { return kName; }
    double weight() const override { return w_; }
    /** Reads every host's capacity through the cluster totals. */
    bool separable_per_host() const override { return false; }
    /** Adding a VM never raises a host's capacity, so never lowers the uncovered need. */
    bool monotone_under_insertion() const override { return true; }
    /** Never above 0. */
    TermShape shape() const override { return TermShape::NonPositive; }
    /** Exact change for `moves` applied in order. O(moved hosts x (R x nodes + flavors near their
     *  need x VMCAP)); per-thread scratch, no allocation once warm. */
    Score delta(const SearchState& state, std::span<const Relocation> moves) const override;
    /** W x the uncovered need now: the term cannot rise above 0. O(flavors with a need). */
    double bound(const SearchState& state, std::span<const int> vms) const override;
    /** From scratch: every host's capacity for every flavor with a need. O(hosts x those flavors x VMCAP). */
    Score value(const Problem& problem, const PlacementView& placement) const override;
    std::unique_ptr<StateAggregates> make_aggregates(const SearchState& state) const override;
    void on_move(StateAggregates& agg, const SearchState& state, const Relocation& r) const override;
    bool supports_arrivals() const override { return true; }
    std::string check_aggregates(const StateAggregates& cached, const SearchState& state) const override;

    /** The flavors with a need (Flavor::need >= 0), in flavor order. */
    const std::vector<int>& flavors() const { return flavors_; }

private:
    struct Aggregates;
    /** The hosts `moves` touch with their free amounts after the moves (per-thread scratch). */
    struct Scratch;
    Score evaluate(const SearchState& s, const Aggregates& a, std::span<const Relocation> moves, Aggregates* commit) const;
    /** Capacity per flavor of flavors_ of every host, from free amounts. */
    Aggregates build(const SearchState& s) const;

    const CapacityModel& model_;
    double w_;
    Score unit_;                ///< score units per VM of uncovered need
    std::vector<int> flavors_;  ///< [k] flavor index
    std::vector<Count> need_;   ///< [k]
};

}  // namespace vmcap
