#pragma once
/**
 * @file ram_cost_term.h
 * Migration cost term: -W per GiB of RAM live-migrated (`vmcap plan --ram-cost W`). A plan then
 * moves a VM only where its capacity gain pays for the RAM copied; among equal capacities it
 * prefers the plan that copies less. W is in objective units per GiB (the objective's unit is one
 * VM of a weight-1 flavor). The second objective term, and the proof that a term needs no edit in
 * the drivers or the moves.
 */
#include "evaluators/interfaces/seams.h"

namespace vmcap {

class RamCostTerm final : public ObjectiveTerm {
public:
    static constexpr std::string_view kName = "ram-cost";
    static constexpr std::string_view kHelp = "objective penalty per GiB of RAM live-migrated (objective units per GiB; 0: off)";

    /** Throws std::invalid_argument if `weight_per_gib` is negative, above kMaxWeight or has more
     *  than three decimals. */
    RamCostTerm(const Problem& problem, double weight_per_gib);

    std::string_view name() const override { return kName; }
    double weight() const override { return w_; }
    bool separable_per_host() const override { return true; }
    /** Depends on the moved VMs' own migration status only, never on other VMs of a host. */
    bool monotone_under_insertion() const override { return true; }
    TermShape shape() const override { return TermShape::MigratedRamCost; }
    /** -W x (GiB of the relocated VMs that count as migrated after - before). O(moves). */
    Score delta(const SearchState& state, std::span<const Relocation> moves) const override;
    /** W x GiB of the listed VMs that are migrated now (at best they all go home). O(vms). */
    double bound(const SearchState& state, std::span<const int> vms) const override;
    /** -W x GiB of every VM whose placement differs from the snapshot (as the budget counts). O(VMs). */
    Score value(const Problem& problem, const PlacementView& placement) const override;

private:
    double w_;
    Score w_milli_;  ///< W in thousandths: the score of one MiB migrated is -w_milli_ (score.h)
};

}  // namespace vmcap
