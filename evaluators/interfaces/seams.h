#pragma once
/**
 * @file seams.h
 * The objective's and the feasibility rules' seam: the interfaces that the model's state
 * (evaluators/state/) keeps and calls, and that the concrete terms (evaluators/objective/) and
 * rules (evaluators/rules/) implement. Nothing here includes the state: it is the model's bottom
 * sub-layer (scripts/check_layers.sh).
 *
 * The objective is a sum of terms. The first, VMCAP capacity (sum_f w_f x capacity_f), is built
 * into the engine and keeps every fast path: its per-host aggregates are SearchState's capacity
 * vectors and VMCAP values, its delta comes from the capacity-change kernel
 * (capacity_change.h), the move cache memoises it per host version, and the annealing's
 * threshold-first bound, greedy's ranking and the exact solver's bounds use that VMCAP never
 * grows when a VM is added to a host. Further terms (ObjectiveTerm) are listed in the
 * CapacityModel; a move's complete delta is its VMCAP delta plus each term's exact delta for the
 * move's relocations (score_move, moves/move.h). A term declares what the engine may assume of it
 * (separable_per_host, monotone_under_insertion); when it does not, those paths fall back safely.
 *
 * Feasibility beyond the built-in rules (pNUMA node capacity, the migration budget, migratable
 * VMs: evaluators/rules/feasibility.h, evaluators/state/migration_budget.h) is a list of FeasibilityFilter, consulted by
 * every move before any capacity work, and re-checked from scratch by `vmcap validate`. Terms and
 * filters keep per-state aggregates through the same hooks (AggregateHooks).
 *
 * Adding a term: its two files and one line in the registry (evaluators/registry/registry.cpp); the drivers, the
 * moves and the CLI need no edit (the CLI offers `--<name> W` for every registered term).
 * Adding a filter: its two files and one line in registered_filters (evaluators/registry/registry.cpp); a filter
 * that declares separable_per_host keeps the annealing's host regions on.
 * Which pNUMA nodes a migrated VM gets on its destination is one more seam, DestinationNodeRule
 * (the search's free choice by default): its two files and one line in registered_node_rules.
 */
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "evaluators/closed_forms/score.h"
#include "evaluators/closed_forms/vmcap.h"
#include "instances/problem.h"
#include "instances/topology.h"

namespace vmcap {

class CapacityModel;  // evaluators/state/capacity_model.h
class SearchState;    // evaluators/state/search_state.h

/**
 * One VM changing place, as objective terms and feasibility filters see a move: `vm` goes from
 * `from_host` to `to_host` on the pNUMA node set `to_mask` (0 when a filter is consulted before
 * the move chose its nodes). A move lists its relocations in execution order; each is relative to
 * the state the previous ones leave.
 */
struct Relocation {
    int vm = -1;
    int from_host = -1;
    int to_host = -1;
    NodeMask to_mask = 0;
};

/** Host of VM `vm` once moves[0..i) have run: the last of them that moves it, else `current`
 *  (its host in the state the moves start from). For terms and filters whose values depend on
 *  several VMs (a vlink's two ends), so that a VM moved earlier in the same move is seen there. O(i). */
inline int host_after(int current, std::span<const Relocation> moves, int vm, std::size_t i) {
    for (std::size_t j = 0; j < i; ++j)
        if (moves[j].vm == vm) current = moves[j].to_host;
    return current;
}

/** A placement of every VM, as from-scratch checks see it: host[v] and pNUMA node set mask[v]. */
struct PlacementView {
    std::span<const int> host;
    std::span<const NodeMask> mask;
};

/**
 * Per-state aggregates of one objective term or feasibility filter (e.g. VMs per host, loads per
 * link): made by it from a state's placement, owned by that SearchState (copied with it: clone()),
 * and updated on every SearchState::move through AggregateHooks::on_move — its retract/insert.
 */
class StateAggregates {
public:
    virtual ~StateAggregates() = default;
    virtual std::unique_ptr<StateAggregates> clone() const = 0;
};

/** A copyable owner of StateAggregates (copies clone), so SearchState stays a value type. */
class StateAggregatesBox {
public:
    StateAggregatesBox() = default;
    explicit StateAggregatesBox(std::unique_ptr<StateAggregates> p) : p_(std::move(p)) {}
    StateAggregatesBox(const StateAggregatesBox& o) : p_(o.p_ ? o.p_->clone() : nullptr) {}
    StateAggregatesBox& operator=(const StateAggregatesBox& o) {
        if (this != &o) p_ = o.p_ ? o.p_->clone() : nullptr;
        return *this;
    }
    StateAggregatesBox(StateAggregatesBox&&) noexcept = default;
    StateAggregatesBox& operator=(StateAggregatesBox&&) noexcept = default;
    StateAggregates* get() const { return p_.get(); }

private:
    std::unique_ptr<StateAggregates> p_;
};

/**
 * The per-state aggregate hooks that objective terms and feasibility filters share: one set, so
 * SearchState keeps, copies, updates and --check-verifies both alike (one list,
 * CapacityModel::aggregate_keepers()). A term or filter that reads more than the moved VMs and
 * their hosts' cached VMCAP data (e.g. loads per link) keeps it here; the default keeps nothing.
 * Immutable and shared by all workers, like the term or filter it is.
 */
class AggregateHooks {
public:
    virtual ~AggregateHooks() = default;
    /** Registry name (a term's CLI option `--<name>`, a filter's name in refusals and reports). */
    virtual std::string_view name() const = 0;
    /** The aggregates kept in each SearchState, built from `state`'s VM placement (its cached
     *  capacity aggregates may not be ready yet); called when a state is built or its placement
     *  reset (SearchState::set_placements). Read back through SearchState::aggregates(*this).
     *  Default: none (nullptr). */
    virtual std::unique_ptr<StateAggregates> make_aggregates(const SearchState& state) const {
        (void)state;
        return nullptr;
    }
    /** Retract/insert for one relocation: updates `agg` (made by make_aggregates) when `r` is
     *  applied to `state`, which still shows the VM at r.from_host. Default: nothing. */
    virtual void on_move(StateAggregates& agg, const SearchState& state, const Relocation& r) const {
        (void)agg;
        (void)state;
        (void)r;
    }
    /** May on_move see arrivals and departures (SearchState::place / unplace): a relocation whose
     *  from_host or to_host is kUnplaced, and VMs on no host? A keeper that answers false keeps a
     *  state from taking arriving VMs. Default: false. */
    virtual bool supports_arrivals() const { return false; }
    /** "" if `cached` equals the aggregates recomputed from `state`'s placement, else what differs
     *  (SearchState::check_consistency, --check). Default: nothing to compare. */
    virtual std::string check_aggregates(const StateAggregates& cached, const SearchState& state) const {
        (void)cached;
        (void)state;
        return "";
    }
};

/** What the upper bound (optimizer/bound/upper_bound.h) may assume of a term's value in every state. */
enum class TermShape {
    Unknown,          ///< of unknown sign: the bound then covers the VMCAP part only (UpperBound::covers_objective false)
    NonPositive,      ///< <= 0 in every state (locality, bandwidth-capped capacity): the VMCAP bound covers it
    MigratedRamCost,  ///< exactly -weight() per GiB of migrated RAM (ram-cost): the bound subtracts it per removal set
};

/**
 * An objective term beyond VMCAP capacity, added to the maximised objective. Immutable and shared
 * by all workers (thread-safe for concurrent const calls). Each SearchState keeps the term's
 * cached value (updated by delta() on every SearchState::move, recomputed by value() under
 * --check) and, if the term makes them, its aggregates (AggregateHooks; read in delta() through
 * SearchState::aggregates). Its name() is also the key in the plan's objective_terms.
 */
class ObjectiveTerm : public AggregateHooks {
public:
    /** The weight it was made with (objective units per term unit, at most 3 decimals), for reports. */
    virtual double weight() const = 0;
    /** A relocation's delta depends only on the moved VM and the hosts it leaves and enters (not
     *  on other hosts' VMs): the engine may combine it with the host-versioned move cache. False
     *  makes every move evaluate uncached. */
    virtual bool separable_per_host() const = 0;
    /** Adding a VM to a host never raises the term for the other VMs there: the annealing's
     *  threshold-first rejection may add bound() to the cached VMCAP bound. False: compound moves
     *  are always evaluated exactly; greedy and the exact solvers refuse or rank by VMCAP only. */
    virtual bool monotone_under_insertion() const = 0;
    /** What the upper bound may assume of its value (TermShape). Default: nothing. */
    virtual TermShape shape() const { return TermShape::Unknown; }
    /** Exact change (score units, evaluators/closed_forms/score.h) of the term when `moves` are applied in order to `state` (which is not
     *  changed). Called on every evaluated move that the capacity rules allow; keep it O(moved). */
    virtual Score delta(const SearchState& state, std::span<const Relocation> moves) const = 0;
    /** Upper bound on delta() (score units) over every move that relocates exactly `vms`,
     *  anywhere; +infinity when no cheap bound exists. */
    virtual double bound(const SearchState& state, std::span<const int> vms) const = 0;
    /** The term's value for `placement` of `problem`'s VMs, from scratch (no cached aggregate):
     *  the reference that --check and `vmcap validate` compare with. */
    virtual Score value(const Problem& problem, const PlacementView& placement) const = 0;
};

/**
 * A feasibility rule. The migration budget is the built-in one (evaluators/state/migration_budget.h,
 * enforced inline by every move); the others are registered (registered_filters, evaluators/registry/registry.h) and consulted by
 * every move through score_move. Immutable, shared by all workers. The exact solvers
 * (optimizer/solvers/exact.h, exact_bb.h) model one filter, the network's link-capacity rule
 * (CapacityModel::find<LinkCapacityFilter>()), and refuse a model with any other, naming it. The upper bound
 * (optimizer/bound/upper_bound.h) omits every filter: a filter only removes states, so a bound without
 * it stays an upper bound.
 */
class FeasibilityFilter : public AggregateHooks {
public:
    /** admits() depends only on the moved VMs and the hosts they leave and enter (e.g. a drain, "at
     *  most k VMs of a tenant per host"), never on VMs elsewhere: a state merged from feasible
     *  states of disjoint host regions is feasible, so the annealing keeps host regions on
     *  (optimizer/search/annealing.cpp, region_count). False (e.g. link loads, which VMs on other hosts
     *  share) switches regions off for the run. */
    virtual bool separable_per_host() const = 0;
    /** May `moves` be applied in order to `state`? Consulted before any capacity work (to_mask is
     *  then 0); must be exact for host-level rules (a false 'true' lets an illegal move through). */
    virtual bool admits(const SearchState& state, std::span<const Relocation> moves) const = 0;
    /** From scratch: "" if `placement` satisfies the rule, else a one-line reason naming the VM
     *  or host (`vmcap validate` checks it after every step of a plan). */
    virtual std::string violation(const Problem& problem, const PlacementView& placement) const = 0;
    /**
     * Must the rule also hold while live migrations are in flight, each VM on both its source and
     * its destination (BtrPlace's continuous constraints; anti-affinity: two members may not share
     * a host even for the length of a copy)? The schedule's waves (optimizer/plan/waves.h) and
     * `vmcap validate`'s schedule check then ask admits() for each host change of a wave as an
     * arrival, Relocation{vm, kUnplaced, destination, nodes}, after the wave's earlier ones, on the
     * wave's boundary state, where every VM of the wave still runs on its source (InFlightWave,
     * evaluators/rules/feasibility.h). So such a rule must support arrivals (supports_arrivals();
     * CapacityModel::add_filter refuses it otherwise), and admit every subset of arrivals it
     * admitted (a window keeps a wave's shorter steps only). A remap (a step within one host) is not on
     * two hosts and is not asked. Default false: the rule is checked at every step and at every
     * wave boundary, which is enough for a rule that reads only a step's destination (closed
     * hosts, no remaps).
     */
    virtual bool holds_in_flight() const { return false; }
};

/** DestinationNodeRule::assign's answer when the rule leaves the choice free: any placement that
 *  fits (the search then takes the best). */
inline constexpr int kAnyPlacement = -2;
/** DestinationNodeRule::assign's answer when the rule places no VM of the flavor on the host. */
inline constexpr int kNoPlacement = -1;

/**
 * The destination-node rule: which pNUMA nodes a VM gets when it arrives on a host by live
 * migration. vmcap's own choice is free (the built-in "free" rule: every move evaluates each
 * fitting placement and takes the best); a cloud whose scheduler picks the destination's nodes
 * itself (OpenStack Nova: its NUMA cells, which the live-migration API cannot name) fixes them,
 * and a plan is then only as good as the nodes that scheduler will pick. One per CapacityModel
 * (CapacityModel::node_rule), registered like the filters (registered_node_rules,
 * evaluators/registry/registry.h). The moves, greedy and the drain phase evaluate only the
 * placement it assigns; plan building gives each step the nodes it assigns on the state the
 * earlier steps leave; the schedule's waves on the in-flight state when the step starts (the
 * wave's earlier arrivals on that host counted, its departures still there); `vmcap validate`
 * refuses a step whose nodes are not its choice at that point. A remap (a VM re-pinned within its
 * host) arrives nowhere: under a rule that fixes nodes it is never possible. The exact solvers
 * refuse such a rule; the upper bound stays valid (the rule only removes plans).
 * Immutable, shared by all workers (thread-safe for concurrent const calls).
 */
class DestinationNodeRule {
public:
    virtual ~DestinationNodeRule() = default;
    /** Registry name ("free"), for refusals and reports. */
    virtual std::string_view name() const = 0;
    /** Does the rule fix the nodes? false: assign() always answers kAnyPlacement, and every
     *  caller skips it (CapacityModel::node_choice; the search's hot path costs nothing); true:
     *  it never answers kAnyPlacement. Constant for the rule's lifetime. */
    virtual bool fixes_nodes() const = 0;
    /**
     * The placement a VM of `flavor` arriving on `host` gets when the host's free amounts are
     * `free` ([node x R + r], the VM not on the host): an index into
     * model.evaluator(host type, flavor).placements() of a placement with room in `free`, or
     * kNoPlacement (the rule places it nowhere there), or kAnyPlacement (free choice). It must
     * depend on nothing else — not on the VM, nor on other hosts — so that it may be memoised
     * per host version (the move cache) and asked on tentative host copies (compound moves, the
     * waves' in-flight state, `vmcap validate`'s own tables). Deterministic. Cost: at most
     * O(placements x k x R) on a move cache miss.
     */
    virtual int assign(const CapacityModel& model, int flavor, int host, const Amount* free) const = 0;
    /**
     * Does the rule count a host's capacity itself (host_capacity below) instead of VMCAP? A rule
     * that fixes nodes admits VMs one at a time on its own choice, which may fit fewer than the
     * optimal packing VMCAP counts (and may refuse a host on more than its nodes' free amounts, as
     * Nova's host-level Placement check does). false (the default): VMCAP's closed forms count,
     * and the search's hot path is unchanged. Constant for the rule's lifetime.
     */
    virtual bool counts_capacity() const { return false; }
    /**
     * Only when counts_capacity(): how many more VMs of `flavor` a host of `host_type` with free
     * amounts `free` ([node x R + r]) admits when they arrive one at a time, each on the rule's
     * choice, until it places none. Every arrival takes a placement with room, so the count never
     * exceeds VMCAP (the optimal packing): bounds built on VMCAP stay upper bounds. It need not be
     * monotone under insertion (the model then drops the moves' threshold bounds,
     * CapacityModel::capacity_monotone). Must depend on nothing else (memoised by free amounts).
     * Deterministic, thread-safe.
     */
    virtual Count host_capacity(const CapacityModel& model, int host_type, int flavor, const Amount* free) const;
};

inline Count DestinationNodeRule::host_capacity(const CapacityModel&, int, int, const Amount*) const {
    return 0;
}

}  // namespace vmcap
