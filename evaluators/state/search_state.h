#pragma once
/**
 * @file search_state.h
 * Mutable search state: the placement of every VM plus per-host cached aggregates (free amount of
 * every pNUMA node, capacity vector b of every target flavor, VMCAP of every target flavor) and
 * per-flavor cluster totals, updated incrementally on apply. Owned by one worker; copyable (a copy
 * is how workers exchange elite states). Not thread-safe for concurrent mutation.
 *
 * Migration accounting: a VM counts as migrated when its (host, pNUMA nodes) differs from the
 * snapshot; moving it back gives its migration and RAM back. This is what the migration budget
 * (Constraints) limits.
 */
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "evaluators/state/capacity_model.h"
#include "evaluators/state/host_value_memo.h"

namespace vmcap {

/** Where one VM runs: host index and pNUMA node (0-based) of each vNUMA node. */
struct Placement {
    int vm = -1;
    int host = -1;
    std::array<std::uint8_t, kMaxVNuma> pnuma{};
};

class SearchState {
public:
    /** State of the snapshot as loaded. O(VMs + hosts x targets x VMCAP). */
    explicit SearchState(const CapacityModel& model);

    const CapacityModel& model() const { return *model_; }
    const Problem& problem() const { return model_->problem(); }

    /** Host of `vm` now; kUnplaced only for an arriving VM that is on no host (place()). */
    int host_of(int vm) const { return vm_[vm].host; }
    const std::uint8_t* pnuma_of(int vm) const { return vm_[vm].pnuma.data(); }
    /** Snapshot host of `vm` (= problem().vms[vm].host, kept next to the current placement). */
    int origin_of(int vm) const { return vm_[vm].origin; }
    /** Flavor index of `vm` (= problem().vms[vm].flavor). */
    int flavor_of(int vm) const { return vm_[vm].flavor; }
    /** May `vm` be live-migrated (= problem().vms[vm].migratable)? */
    bool migratable(int vm) const { return vm_[vm].migratable != 0; }
    /** Hint: the per-VM record of `vm` (host, pNUMA nodes, migrated flag, snapshot host, flavor)
     *  will be read soon; prefetches its one cache line, changes nothing. O(1). */
    void prefetch_vm(int vm) const { __builtin_prefetch(&vm_[vm]); }
    /** Node mask of a VM's current placement. */
    NodeMask mask_of(int vm) const;

    /** Host type index of host h (= problem().hosts[h].type). */
    int type_of(int host) const { return type_[host]; }
    /** pNUMA node count of host h. */
    int nodes_of(int host) const { return nodes_[host]; }
    /** Free amounts of host h: [node * R + r]. */
    const Amount* free_of(int host) const { return free_.data() + free_off_[host]; }
    /**
     * Whether the state keeps every target's capacity vector and VMCAP per host and every target's
     * cluster total (b_of, capacity, total, totals): with fewer than kBatchRefreshTargets targets.
     * From there on it keeps only each host's weighted VMCAP (host_value) and their sum: the
     * search's deltas need nothing else there (capacity_gain takes the host value after a change
     * from the memo or one WeightedVmcap pass), a refresh is then one host value (a memo hit when
     * the move was just evaluated) instead of every target's b and VMCAP, and the state shrinks
     * by hosts x targets x (nodes + 1) x 8 bytes (640 MB on 10,000 CQ3 hosts at 1,000 targets).
     */
    bool per_target_caches() const { return per_target_; }
    /** Capacity vector b of target j on host h (host's node count entries). Precondition:
     *  per_target_caches(). */
    const Count* b_of(int host, int j) const { return b_.data() + b_off_[host] + j * nodes_[host]; }
    /** VMCAP of target j on host h. Precondition: per_target_caches(). */
    Count capacity(int host, int j) const { return cap_[static_cast<std::size_t>(host) * T_ + j]; }
    /** Every target's VMCAP on host h, [j], and its capacity vectors, [j * nodes + i].
     *  Precondition: per_target_caches(). */
    const Count* capacities_of(int host) const { return cap_.data() + static_cast<std::size_t>(host) * T_; }
    const Count* b_of_host(int host) const { return b_.data() + b_off_[host]; }
    /** Weighted VMCAP of host h, sum_j w_j VMCAP_j(h), in score units (exact). */
    Score host_value(int host) const { return host_value_[host]; }
    /** Fewest targets for the target-parallel host value (WeightedVmcap) in refresh_host, on a
     *  memo miss and in the upper bound; the same as HostValueMemo::kMinTargets. Measured with
     *  the byte-table kernels (docs/performance.md, "Hundreds of weighted flavors"): at 16, 32 and
     *  50 targets the annealing ran 7-33% faster on 4,000 dual-node hosts and 50-150% faster on
     *  10,000 CQ3 hosts than with the per-target kernel; below 16 (8 targets on the Azure
     *  10,000-host snapshot) the per-target kernel takes fewer instructions (846 against 1,241
     *  per evaluation). */
    static constexpr int kBatchRefreshTargets = 16;
    /**
     * Attaches a worker's memo of host values (host_value_memo.h), or detaches with nullptr: the
     * capacity-change kernel (capacity_gain) then looks a changed host's value up by its free
     * amounts before computing it. Results are identical with or without it. The memo must be for
     * this state's model, and while it is attached the state's const evaluations mutate it: one
     * thread at a time. A copy of the state starts without a memo (assignment keeps the target's).
     */
    void use_value_memo(HostValueMemo* memo) {
        if (memo != nullptr && &memo->model() != model_) throw std::invalid_argument("use_value_memo: the memo is for another model");
        memo_.ptr = memo;
    }
    /** The attached memo, or nullptr. */
    HostValueMemo* value_memo() const { return memo_.ptr; }
    /** Cluster capacity of target j (sum over hosts). Precondition: per_target_caches(). */
    Count total(int j) const { return total_[j]; }
    /** Every target's total (empty unless per_target_caches()). */
    const std::vector<Count>& totals() const { return total_; }
    /** The VMCAP part of the objective, sum_j w_j * total_j = sum_h host_value(h), in score units
     *  (exact, the same integer either way). O(targets) with per-target caches, else O(1). */
    Score capacity_value() const { return per_target_ ? model_->weighted(total_.data()) : capacity_value_; }
    /** The objective in score units (exact; evaluators/closed_forms/score.h): capacity_value() plus
     *  the cached value of every further objective term (CapacityModel::terms()). O(targets + terms). */
    Score objective() const {
        const Score c = capacity_value();
        return term_value_.empty() ? c : c + terms_value();
    }
    /** objective() in objective units (reports). */
    double objective_value() const { return to_objective(objective()); }
    /** Cached value of the objective's further terms (0 without any). */
    Score terms_value() const {
        Score s = 0;
        for (Score v : term_value_) s += v;
        return s;
    }
    /** Aggregates that `keeper` (a term or filter of the model: CapacityModel::aggregate_keepers())
     *  keeps in this state, or nullptr. O(terms + filters). */
    const StateAggregates* aggregates(const AggregateHooks& keeper) const;
    /** Every VM's host and pNUMA node set, for from-scratch checks (ObjectiveTerm::value,
     *  FeasibilityFilter::violation). O(VMs). */
    void placement_arrays(std::vector<int>& host, std::vector<NodeMask>& mask) const;

    std::int64_t migrations() const { return static_cast<std::int64_t>(migrated_.size()); }
    /** The migration budget this state's moves must respect (count of migrated VMs, RAM moved in
     *  MiB): the snapshot's Constraints unless set_budget() narrowed it. Read by every move's
     *  budget check (evaluators/rules/feasibility.h). */
    std::int64_t max_migrations() const { return max_migrations_; }
    Amount max_migrated_ram_mib() const { return max_ram_mib_; }
    /**
     * Narrows the budget that moves on this state must respect, e.g. to a worker's share of the
     * plan's budget when parallel workers own disjoint host regions (optimizer/search/annealing.cpp):
     * with the other regions frozen in its copy, a worker whose state allows migrations() + k
     * migrations can spend at most k more. Never above the snapshot's Constraints (clamped).
     * The current state may exceed it; then only moves that do not raise the count or RAM are
     * feasible. O(1).
     */
    void set_budget(std::int64_t max_migrations, Amount max_migrated_ram_mib);
    Amount migrated_ram_mib() const { return migrated_ram_; }
    bool is_migrated(int vm) const { return vm_[vm].migrated_pos >= 0; }
    /** VMs whose placement differs from the snapshot, in an order that depends on history. */
    const std::vector<int>& migrated_vms() const { return migrated_; }
    /** Would placing `vm` on (host, mask) count as a migration? Off its snapshot host always; on
     *  it, on other nodes only if Constraints::remap_counts_as_migration. Never for an arriving
     *  VM (snapshot host kUnplaced): it has no snapshot placement, so moving it later (e.g. a
     *  make_room plan in `vmcap simulate`) leaves migrations() and the budget as they are. */
    bool differs_from_origin(int vm, int host, NodeMask mask) const;

    /**
     * Moves `vm` to (host, embedding of its flavor there), updating every cached aggregate of the
     * (at most two) touched hosts. Precondition: the destination nodes have room (checked only
     * by check_consistency()). O(targets x (k x R + VMCAP)) per touched host.
     */
    void move(int vm, int host, const Embedding& emb);

    /**
     * Arriving VMs (placement/): puts `vm`, whose snapshot host is kUnplaced and which is on no
     * host now, on (host, embedding of its flavor there), updating the host's aggregates as
     * move() does. An arrival is never a migration (origin_of stays kUnplaced, the budget is
     * untouched), so a state that took arrivals is a build-up state: materialise its placement
     * into a new Problem before planning migrations on it. Precondition: the nodes have room.
     * The rules' aggregates see it as a relocation from kUnplaced (AggregateHooks::on_move).
     * Throws std::logic_error if the VM is on a host, or if the model has objective terms or a
     * rule whose aggregates do not support arrivals (AggregateHooks::supports_arrivals; the
     * link-capacity rule does). O(targets x (k x R + VMCAP) + the rules' on_move).
     */
    void place(int vm, int host, const Embedding& emb);
    /** Takes an arriving VM placed by place() off its host (a departure): the inverse of place().
     *  Throws std::logic_error if the VM is on no host or came from the snapshot. Same cost. */
    void unplace(int vm);
    /**
     * Holds (sign +1) or gives back (sign -1) one VM of `flavor`'s per-node demand on `host`'s
     * pNUMA nodes emb.map without a VM: the destination a live migration in flight has claimed
     * while the VM still runs on its source (`vmcap simulate` applying a plan over its waves'
     * duration). No rule's aggregates see it (a hold carries no vlinks or groups), and
     * check_consistency() fails while one is outstanding. Throws std::logic_error if the model has
     * objective terms, or if a node would go below zero free (a hold without room) or above its
     * capacity (a release of nothing held); the state is then unchanged. O(targets x (k x R +
     * VMCAP)).
     */
    void hold(int host, const Embedding& emb, int flavor, int sign);
    /**
     * Holds (sign +1) or gives back (sign -1) `amounts` on `host`'s pNUMA nodes without a VM,
     * [node * R + r] over every node of the host (nodes_of(host) x R entries, each >= 0): room a
     * plan keeps for its own later steps (`vmcap simulate --reserve-plan`), any share of a node.
     * As hold(): no rule's aggregates see it, check_consistency() fails while one is outstanding.
     * Throws std::logic_error if the model has objective terms, the size is wrong, an amount is
     * negative, or a node would go below zero free or above its capacity; the state is then
     * unchanged. O(nodes x R + targets x VMCAP).
     */
    void hold_amounts(int host, const std::vector<Amount>& amounts, int sign);
    /** Is `vm` on a host (false only for an arriving VM not placed yet, or departed)? */
    bool is_placed(int vm) const { return vm_[vm].host != kUnplaced; }

    /**
     * Version of host h's aggregates: changes (to a value never used before in this state's
     * lifetime) whenever move(), place() or unplace() touches the host or set_placements() changes one of its VMs
     * (other hosts keep their version), so per-worker caches of
     * per-host quantities (moves/move_cache.h) can tell in O(1) whether an entry is still exact.
     */
    std::uint64_t host_version(int host) const { return host_version_[host]; }

    /** VMs whose (host, pNUMA nodes) differ from the snapshot: the migrated VMs, plus, when remaps
     *  are free (Constraints::remap_counts_as_migration false), the VMs remapped on their own host,
     *  which use no budget but are part of the state. In an order that depends on history. */
    const std::vector<int>& displaced_vms() const { return track_displaced_ ? displaced_ : migrated_; }

    /** Current placement of every displaced VM (O(displaced)): the whole state relative to the
     *  snapshot; restore with set_placements(). */
    std::vector<Placement> displaced_placements() const;

    /**
     * Puts each listed VM at its listed placement and every other VM at its snapshot placement,
     * updating only what changes: O(displaced + listed VMs + touched hosts x targets x VMCAP).
     * Hosts whose VMs are all unchanged keep their version. Throws std::logic_error if the
     * result overloads a pNUMA node (the state is then unusable).
     */
    void set_placements(const std::vector<Placement>& placements);

    /**
     * Recomputes every aggregate from the VM placement alone and compares it with the cached
     * one; throws std::logic_error describing the first difference (host, node, flavor, values).
     * O(VMs + hosts x targets x VMCAP). The runtime --check mode and the tests call it.
     */
    void check_consistency() const;

private:
    /** Throws std::logic_error naming `what` unless place()/unplace() are defined for the model. */
    void require_arrivals_supported(const char* what) const;
    /** Every aggregate keeper's on_move for an arrival or departure `r`, before the change. */
    void arrival_hooks(const Relocation& r);
    /** Recomputes every aggregate from the VM placements (vm_); every host gets a new version. */
    void rebuild();
    /** Brings b_, cap_, total_ and host_value_ of `host` up to date after the free amounts of the
     *  nodes in `first_node_mask` changed, per target with the delta kernel (capacity_change.h);
     *  without per-target caches, host_value_ and capacity_value_ from the memo or one
     *  WeightedVmcap pass over the host's free amounts. */
    void refresh_host(int host, int first_node_mask);
    void set_migrated(int vm, bool migrated);
    /** Keeps displaced_ in step for `vm` (only when track_displaced_). */
    void update_displaced(int vm);
    /** Term values from scratch (ObjectiveTerm::value). O(terms x VMs). */
    void recompute_terms();

    const CapacityModel* model_;
    int R_ = 0, T_ = 0;
    /** Everything the search reads about one VM, in one 32-byte record (two per cache line): on a
     *  300,000-VM snapshot a VM drawn at random costs one memory miss instead of one per array. */
    struct alignas(32) VmSlot {
        std::int32_t host = -1;          ///< current host
        std::int32_t migrated_pos = -1;  ///< index in migrated_ or -1
        std::int32_t origin = -1;        ///< snapshot host
        std::int32_t flavor = 0;
        std::array<std::uint8_t, kMaxVNuma> pnuma{};  ///< current pNUMA node of each vNUMA node
        std::uint8_t migratable = 1;
        std::int32_t displaced_pos = -1;  ///< index in displaced_ or -1 (free remaps only)
    };
    static_assert(sizeof(VmSlot) == 32);
    /** Puts `vm` in (`in`) or out of `list`, its index there kept in the VM's `pos` field;
     *  returns whether membership changed. O(1). */
    bool set_listed(std::vector<int>& list, std::int32_t VmSlot::*pos, int vm, bool in);
    std::vector<VmSlot> vm_;
    std::vector<int> nodes_;  ///< pNUMA node count per host
    std::vector<int> type_;   ///< host type per host
    std::vector<std::size_t> free_off_, b_off_;
    std::vector<Amount> free_;       ///< [free_off_[h] + node * R + r]
    std::vector<Count> b_;           ///< [b_off_[h] + j * nodes + node] (per-target caches only)
    std::vector<Count> cap_;         ///< [h * T + j] (per-target caches only)
    std::vector<Score> host_value_;  ///< [h]: sum_j w_j VMCAP_j(h)
    /** The attached memo; copying a state does not copy it (a worker's memo is its own). */
    struct MemoRef {
        HostValueMemo* ptr = nullptr;
        MemoRef() = default;
        MemoRef(const MemoRef&) {}
        MemoRef& operator=(const MemoRef&) { return *this; }
    };
    MemoRef memo_;
    std::vector<Count> total_;      ///< [j] (per-target caches only)
    bool per_target_ = true;        ///< see per_target_caches(): b_, cap_ and total_ are kept
    Score capacity_value_ = 0;      ///< sum_h host_value_[h] (without per-target caches)
    std::vector<int> migrated_;     ///< migrated VMs
    bool track_displaced_ = false;  ///< remaps are free: displaced_ differs from migrated_
    std::vector<int> displaced_;    ///< VMs off their snapshot placement (only when track_displaced_)
    Amount migrated_ram_ = 0;
    std::int64_t max_migrations_ = 0;          ///< see max_migrations()
    Amount max_ram_mib_ = 0;                   ///< see max_migrated_ram_mib()
    std::vector<std::uint64_t> host_version_;  ///< [h]; see host_version()
    std::vector<int> listed_;                  ///< set_placements scratch: [vm] -> index in its list, -1 (kept all -1 between calls)
    std::uint64_t clock_ = 0;                  ///< last version handed out
    std::vector<Score> term_value_;            ///< [t]: cached value of CapacityModel::terms()[t]
    std::vector<StateAggregatesBox> agg_;      ///< [k]: aggregates of CapacityModel::aggregate_keepers()[k] (may hold nullptr)
    bool keeps_aggregates_ = false;            ///< some entry of agg_ is not nullptr (move() updates them)
};

}  // namespace vmcap
