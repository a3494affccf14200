#pragma once
/**
 * @file feasibility.h
 * The feasibility rules, in one place. Built in (inline, on every hot path): a VM must be
 * migratable, its pNUMA nodes must have room in every resource (node capacity), and the plan must
 * stay within the migration budget (count and RAM, Constraints; evaluators/state/migration_budget.h,
 * checked by each move per candidate placement through BudgetUse). Further rules are
 * FeasibilityFilter objects listed in the CapacityModel (evaluators/interfaces/seams.h), consulted by
 * every move before any capacity work through filters_admit().
 */
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "evaluators/state/migration_budget.h"
#include "evaluators/state/search_state.h"

namespace vmcap {

/** Does (migration count, migrated RAM in MiB) respect the budget of `s` (the snapshot's
 *  Constraints, or the share SearchState::set_budget gave it)? O(1). For moves that sum their own
 *  outcome (of more VMs than BudgetUse takes). */
inline bool within_budget(const SearchState& s, std::int64_t migrations, Amount ram_mib) {
    return migrations <= s.max_migrations() && ram_mib <= s.max_migrated_ram_mib();
}

/**
 * The migration budget as one move sees it: the state's migrated count and RAM with the moved
 * VMs' present share taken back. Small value type; O(1) to build and query; reads `s` only in the
 * constructor.
 */
class BudgetUse {
public:
    /** For a move that relocates `a` and, if `b` >= 0, `b` (a != b) on `s`. */
    BudgetUse(const SearchState& s, int a, int b = -1) {
        const Problem& p = s.problem();
        ram_a_ = p.flavors[s.flavor_of(a)].demand[kRamMib];
        const bool was_a = s.is_migrated(a);
        base_ = s.migrations() - (was_a ? 1 : 0);
        base_ram_ = s.migrated_ram_mib() - (was_a ? ram_a_ : 0);
        if (b >= 0) {
            ram_b_ = p.flavors[s.flavor_of(b)].demand[kRamMib];
            const bool was_b = s.is_migrated(b);
            base_ -= was_b ? 1 : 0;
            base_ram_ -= was_b ? ram_b_ : 0;
        }
        max_count_ = s.max_migrations();
        max_ram_ = s.max_migrated_ram_mib();
    }
    /** SearchState::migrations() after the move when `a` ends migrated iff `ma` and `b` iff `mb`. */
    std::int64_t migrations_after(bool ma, bool mb = false) const { return base_ + (ma ? 1 : 0) + (mb ? 1 : 0); }
    /** SearchState::migrated_ram_mib() after that move (MiB). */
    Amount ram_after(bool ma, bool mb = false) const { return base_ram_ + (ma ? ram_a_ : 0) + (mb ? ram_b_ : 0); }
    /** Does the state's budget (SearchState::max_migrations, max_migrated_ram_mib: the
     *  snapshot's Constraints or a region's share) admit that outcome? */
    bool admits(bool ma, bool mb = false) const { return migrations_after(ma, mb) <= max_count_ && ram_after(ma, mb) <= max_ram_; }

private:
    std::int64_t base_ = 0, max_count_ = 0;
    Amount base_ram_ = 0, ram_a_ = 0, ram_b_ = 0, max_ram_ = 0;
};

/**
 * O(1) necessary condition for a move of two VMs to fit the budget: `a` ends on host `host_a`,
 * `b` on `host_b`; each counts as migrated afterwards at least when it ends off its snapshot host
 * (on it, a remap may still count: the move's evaluation decides). False when even that cheapest
 * outcome exceeds the budget.
 */
inline bool pair_budget_admits(const SearchState& s, int a, int host_a, int b, int host_b) {
    return BudgetUse(s, a, b).admits(host_a != s.origin_of(a), host_b != s.origin_of(b));
}

/** Node capacity: room for a VM of `fl` on `nodes` (its k pNUMA nodes) in free amounts `free`
 *  ([node * R + r]). O(k x R). */
inline bool fits_nodes(const Amount* free, int R, const Flavor& fl, const std::uint8_t* nodes) {
    for (int i = 0; i < fl.num_vnuma(); ++i)
        for (int r = 0; r < R; ++r)
            if (free[nodes[i] * R + r] < fl.node_demand[r]) return false;
    return true;
}

/** From scratch, every rule of the model (CapacityModel::rules(): the migration budget against
 *  the snapshot's Constraints, then each filter) on `state`'s placement: "" if all hold, else
 *  "<rule name> rule: <reason>" for the first that fails. O(VMs + rules' violation()). For the
 *  solvers' re-checks of their optimum. */
std::string first_rule_violation(const CapacityModel& model, const SearchState& state);

/**
 * The rules that must hold in flight (FeasibilityFilter::holds_in_flight) over one wave of live
 * migrations, each VM on both its source and its destination until the wave ends: what the
 * schedule's waves (optimizer/plan/waves.h) and `vmcap validate`'s schedule check both ask, so a
 * new rule that holds in flight needs no edit there. The wave's boundary state (every VM of the
 * wave still on its source) is the caller's; the wave's host changes are put to each rule's
 * admits() as arrivals (Relocation{vm, kUnplaced, destination, nodes}) in the order they joined.
 * A rule that is separable per host sees only the earlier arrivals on the same destination (its
 * verdict cannot depend on the others); any other rule sees them all. One per wave being filled;
 * not thread-safe.
 */
class InFlightWave {
public:
    /** The model's rules that hold in flight, in filters() order. O(filters). */
    explicit InFlightWave(const CapacityModel& model);
    /** Does the model have a rule that holds in flight? When not, refusal() is always nullptr. */
    bool active() const { return !rules_.empty(); }
    /** A new wave: forgets the arrivals joined so far. */
    void clear();
    /**
     * nullptr if every rule that holds in flight admits `vm`'s live migration from `from_host` to
     * `to_host` (onto the pNUMA nodes `to_mask`) beside the wave's arrivals joined so far, on
     * `boundary`; else the first rule that refuses. Always nullptr for a remap (from_host ==
     * to_host). O(rules x admits() of the arrivals it sees + 1).
     */
    const FeasibilityFilter* refusal(const SearchState& boundary, int vm, int from_host, int to_host, NodeMask to_mask) const;
    /** The step joins the wave (after refusal() gave nullptr): its arrival is seen by the later
     *  ones. A remap adds nothing. O(1) amortised. */
    void join(int vm, int from_host, int to_host, NodeMask to_mask);
    /**
     * Why `rule` refused that step (refusal()), for messages: "<rule name> rule: " and the rule's
     * violation() on `boundary`'s placement with the arrivals it saw, this one included, moved to
     * their destinations (the VMs leaving those hosts in the wave still count there), or, when
     * that view shows none, "refuses it on host \"<id>\"". O(VMs + violation()).
     */
    std::string reason(const SearchState& boundary, const FeasibilityFilter& rule, int vm, int to_host, NodeMask to_mask) const;

private:
    /** The wave's earlier arrivals that `rule` sees beside one onto `to_host`, into scratch_. */
    void seen_by(const FeasibilityFilter& rule, int to_host) const;

    std::vector<const FeasibilityFilter*> rules_;
    std::vector<Relocation> arrivals_;                          ///< every arrival of the wave, in joining order
    std::unordered_map<int, std::vector<Relocation>> by_host_;  ///< destination -> its arrivals, in joining order
    mutable std::vector<Relocation> scratch_;
};

/** Do all the model's extra feasibility filters admit `moves` on `state`? O(filters x cost). */
inline bool filters_admit(const SearchState& s, std::span<const Relocation> moves) {
    for (const auto& f : s.model().filters())
        if (!f->admits(s, moves)) return false;
    return true;
}

/**
 * Room for `vm` (on a host) on (host, pnuma) in state s — pNUMA capacities, counting the VM's own
 * share as free where it is now, the destination-node rule (under a rule that fixes nodes, `pnuma`
 * must be the node set it assigns there now: rule_admits_step, evaluators/state/fit.h) and every
 * feasibility filter (link capacities among them):
 * whether one live migration (a plan step, a step of an online cluster) may move it there now.
 * O(k x R) plus the filters' cost. Pure; thread-safe on a state no one changes.
 */
bool step_fits(const SearchState& s, int vm, int host, const std::array<std::uint8_t, kMaxVNuma>& pnuma);

}  // namespace vmcap
