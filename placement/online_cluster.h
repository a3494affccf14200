#pragma once
/**
 * @file online_cluster.h
 * A cluster that lives through time: VMs arrive and are placed by a strategy of the placement
 * seam (placer.h), depart at their time, migrate live (a step taken back on request), and live
 * migrations in flight hold their destination's pNUMA nodes (SearchState::hold) until they end.
 * The one event loop under `vmcap snapshot` (replay.h), `vmcap place` (admission.h) and `vmcap
 * simulate` (optimizer/solvers/simulate.h): each keeps only its own counting and policy.
 *
 * Units: seconds of the caller's clock (a trace's time base), pNUMA node indices 0-based.
 * Deterministic: the same calls give the same state and outcomes.
 */
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "evaluators/state/search_state.h"
#include "placement/placer.h"

namespace vmcap {

class OnlineCluster;

/**
 * Live migrations that make room on `cluster`'s state for the arriving VM `vm` (on no host), at
 * most `k`, in execution order: each a VM of the state's problem on a host, with the pNUMA nodes
 * it goes to (each step fits when the ones before it are done); empty when no such sequence was
 * found. The cluster, not only its state, so that the search may visit the VMs host by host
 * (OnlineCluster::vms_on). The search that finds them lives above this layer
 * (optimizer/solvers/make_room.h).
 */
using MakeRoom = std::function<std::vector<Placement>(const OnlineCluster& cluster, int vm, int k)>;

/**
 * The cluster as an online scheduler sees it: a SearchState over a CapacityModel whose VMs are
 * the cluster's (on a host) and the ones still to arrive (on no host), the placer that places
 * the arrivals, and the events to come (departures, starts and ends of live migrations in
 * flight) in time order.
 *
 * Blocked flavors: a flavor the placer found no host for (arrive()) is rejected in O(1) until a
 * host gains room where a VM of it fits on its pNUMA nodes (first_fitting_placement: node
 * capacities, the rules not consulted): a departure from that host, a migration off it, or a
 * hold given back on it. Exact for a placer that is complete (placer.h) on a model without
 * feasibility rules: a flavor is blocked iff it was refused and after no single change since (a
 * departure, one migration, a hold given back) could a host take it.
 *
 * Every change goes through the placer's driver functions (place_vm, remove_vm, place_group) or
 * tells the placer itself (host_changed after a migration or a hold), so the placer's index stays
 * current. Not thread-safe: one per thread; `model` and `placer` must outlive it, and nothing
 * else may change the state while it lives (placer.reset is called on construction).
 */
class OnlineCluster {
public:
    /** The step `vm` took (or would take) from (from_host, from_pnuma) to (to_host, to_pnuma). */
    struct Migration {
        int vm = -1, from_host = -1, to_host = -1;
        std::array<std::uint8_t, kMaxVNuma> from_pnuma{}, to_pnuma{};
    };

    /** What arrive() did with one arriving VM. */
    struct Arrival {
        bool placed = false;
        /** Live migrations applied to make room for it (set_make_room), kept whether or not it was
         *  then placed (they ran). placed with migrations > 0: admitted thanks to them. */
        int migrations = 0;
    };

    /** A live migration in flight ended (launch()): `tag` as given; `moved`: the VM is on its
     *  destination now; false: the step was dropped (no room at its start or end, or its VM left). */
    using StepEnded = std::function<void(std::size_t tag, bool moved)>;

    /** A cluster on a fresh SearchState(model): placer.reset on it. Throws what placer.reset
     *  throws (a strategy that refuses the model, e.g. one that ignores links on a model with
     *  them: std::logic_error). O(SearchState construction + reset). */
    OnlineCluster(const CapacityModel& model, Placer& placer);

    OnlineCluster(const OnlineCluster&) = delete;
    OnlineCluster& operator=(const OnlineCluster&) = delete;

    /** A number no other OnlineCluster constructed in this process has: a cache of per-host
     *  facts (keyed by SearchState::host_version, which is unique only within one state) can
     *  tell clusters apart by it. O(1). */
    std::uint64_t serial() const { return serial_; }

    /** The state now (read only: change it through this class). */
    const SearchState& state() const { return state_; }
    /** The placer (read only: e.g. its refusal_note()). */
    const Placer& placer() const { return placer_; }

    /**
     * With k > 0 and `make_room` set, arrive() gives an arrival no host takes up to k live
     * migrations that make room for it (applied in order), then one more try; a flavor make_room
     * made no room for is not given migrations again until a VM departs or migrates (room only
     * grows then). k = 0 (the default): none. O(1).
     */
    void set_make_room(int k, MakeRoom make_room);

    /**
     * The arriving VM `vm` (on no host): rejected in O(1) if its flavor is blocked, else placed
     * by the placer; refused, its flavor is blocked, and with set_make_room the migrations come
     * next (a step make_room returns that has no room throws std::logic_error: a bug). Placed,
     * it departs at `departure_s` (advance_to; +infinity: never). Cost: the placer's choose plus
     * place_vm's O(targets x (k x R + VMCAP)); make_room's when used. Throws std::logic_error if
     * the placer breaks its contract.
     */
    Arrival arrive(int vm, double departure_s = std::numeric_limits<double>::infinity());

    /** Is `flavor` blocked (arrive() rejects it without asking the placer)? O(1). */
    bool blocked(int flavor) const { return blocked_[static_cast<std::size_t>(flavor)] != 0; }

    /** The arriving VM `vm` placed by the placer, whatever its flavor's block (no departure, no
     *  block set on refusal): a request stream that offers each VM once. Cost as place_vm. */
    PlaceChoice place(int vm);

    /** The arriving VMs `group` placed all or nothing (placer.h: place_group). Cost as
     *  place_group. */
    GroupPlacement place_group(std::span<const int> group);

    /** The placer's order of a batch of arriving VMs each placed on its own (Placer::batch_order). */
    std::vector<int> batch_order(std::span<const int> vms);

    /**
     * Every event due by time t (inclusive), in time order: departures first on equal times, then
     * the ends of steps in flight, then their starts (launch()). A departure takes its VM off its
     * host (remove_vm) and may unblock flavors there; t may be +infinity (every event). `on_step`
     * (may be empty) hears of each step that ends. O(events x (remove_vm + F)) for F flavors, F
     * only while a flavor is blocked.
     */
    void advance_to(double t, const StepEnded& on_step = {});

    /** Trace time of the next departure; +infinity when none is due. O(1). */
    double next_departure() const { return departures_.empty() ? kNever : departures_.top().first; }

    /**
     * Every step still in flight ends now, in its event order, whatever its time (before a plan
     * is made on the cluster as it stands); departures are not advanced. Cost as advance_to.
     */
    void finish_steps(const StepEnded& on_step = {});

    /**
     * Live migration of `vm` (on a host) to (host, pnuma) if it has room there now (step_fits:
     * pNUMA capacities, its own share counted free on its own host, and every feasibility rule).
     * Tells the placer of both hosts and unblocks flavors on the source. Returns whether it moved.
     * O(k x R + rules + 2 x SearchState::move + F).
     */
    bool migrate(int vm, int host, const std::array<std::uint8_t, kMaxVNuma>& pnuma);

    /**
     * `steps` (Placement: vm, host, pnuma) applied in order with migrate(); all or none: when one
     * has no room, the ones applied are taken back (undo) and none is returned. Returns the steps
     * taken, with where each VM came from (for undo). O(steps x migrate).
     */
    std::vector<Migration> migrate_all(std::span<const Placement> steps);

    /** Takes back `done` (migrations this cluster made, the latest last), last first, and clears
     *  it. Each step back has room: it restores the state before it (else std::logic_error: the
     *  state changed in between, a bug). O(steps x migrate). */
    void undo(std::vector<Migration>& done);

    /**
     * A live migration of `vm` to (host, pnuma) in flight from time `start` to `end` (>= start;
     * the caller's clock, as advance_to): at its start, if `vm` is still on a host and the step
     * fits, the destination's nodes are held (SearchState::hold; a remap on its own host holds
     * nothing) while the VM still runs on its source; at its end the hold is given back and the
     * VM migrates (migrate()). A step that no longer fits at its start or end, or whose VM has
     * departed, is dropped. `tag` is handed to on_step when it ends. With set_reserve_steps(true)
     * the step's room on its destination is reserved from this call (below). O(log steps) without
     * a reservation, + top-up's cost with one.
     */
    void launch(int vm, int host, const std::array<std::uint8_t, kMaxVNuma>& pnuma, double start, double end, std::size_t tag,
                double reserve_until = kNever);

    /**
     * On: every step launched from now keeps the room it needs on its destination from its
     * launch until it starts, or until `reserve_until` (launch(); the plan's window) if earlier —
     * so that arrivals do not take it. The room it needs: its VM's per-node demand on the
     * destination's pNUMA nodes (for a remap on its own host, only what its present nodes do
     * not hold already). What is free of it is held at once (SearchState::hold_amounts, seen by
     * every placer as used, and by anything reading the state's free amounts), the rest as it
     * frees up on that host (a departure, a migration off it, a step's end, a reservation given
     * back), the steps waiting on one host served in launch order. A reservation is given back
     * when its step starts (then the step is re-checked and held in flight as without it; a
     * remap keeps it until its end), when its VM departs, and at reserve_until. Off (the
     * default): none. O(1).
     */
    void set_reserve_steps(bool on) { reserve_ = on; }

    /** Per node of `host`, [node * R + r]: what the waiting steps reserve on it now (0 without
     *  reservations). O(waiting steps on the host x nodes x R). */
    std::vector<Amount> reserved_on(int host) const;

    /** Steps launched and not ended yet. O(1). */
    bool steps_in_flight() const { return !step_events_.empty(); }

    /** VMs on a host now. O(1). */
    std::int64_t live() const { return live_; }
    /** A VM on a host as vms_on lists it: its index, flavor, pNUMA node set there and whether it
     *  may be live-migrated (SearchState::migratable), copied so that a pass over a host's VMs
     *  reads one contiguous array. */
    struct Resident {
        int vm = -1, flavor = -1;
        NodeMask mask = 0;
        bool migratable = true;
    };
    /** The VMs on `host` now (state().host_of(v) == host, mask == state().mask_of(v)), in an
     *  order that depends on history (deterministic); valid until the next change. Kept by every
     *  change this class makes, so a caller may visit the cluster's VMs host by host without a
     *  pass over the arrivals still to come. O(1). */
    std::span<const Resident> vms_on(int host) const { return on_host_[static_cast<std::size_t>(host)]; }
    /** Departures so far (advance_to). O(1). */
    std::int64_t departed() const { return departed_; }

private:
    static constexpr double kNever = std::numeric_limits<double>::infinity();

    /** A step in flight (launch()); `held`: its destination's nodes are held now. With a
     *  reservation (set_reserve_steps): `want`, the room it needs on its destination, and `got`,
     *  what is reserved of it now ([node * R + r]); `waiting`: in waiting_ (not started). */
    struct Step {
        int vm, host;
        std::array<std::uint8_t, kMaxVNuma> pnuma;
        double end;
        std::size_t tag;
        bool held;
        std::vector<Amount> want = {}, got = {};
        bool waiting = false;
        bool kept = false;  ///< a remap in flight still holding `got`
    };

    void depart_next();
    void next_step_event(const StepEnded& on_step);
    /** After `host` gained room: every blocked flavor that fits there now is unblocked. */
    void unblock(int host);
    /** arrive()'s migrations for `vm`, refused by the placer; whether it is placed after them. */
    bool admit_with_migrations(int vm, Arrival& out);
    Embedding embedding(int vm, const std::array<std::uint8_t, kMaxVNuma>& pnuma) const;
    /** vms_on's index: `vm` is listed on state_.host_of(vm) with its node set now (list_vm), or
     *  taken off the list of `host`, which it is leaving (unlist_vm). O(1). */
    void list_vm(int vm);
    void unlist_vm(int vm, int host);
    /** Step i's reservation: the room it needs computed, what is free of it reserved. */
    void reserve(int i);
    /** Gives back step i's reservation (it leaves waiting_); whether it held any room. */
    bool release(int i);
    /** The waiting steps on `host`, in launch order, take what is free of what they still need. */
    void top_up(int host);
    /** `host` gained room: its waiting steps top up before the next arrival (flush). */
    void gained(int host);
    /** top_up on every host that gained room since the last flush. */
    void flush();

    std::uint64_t serial_;
    SearchState state_;
    Placer& placer_;
    std::vector<char> blocked_;  ///< [flavor]
    std::int64_t blocked_count_ = 0;
    using Departure = std::pair<double, int>;  // (time, vm): a total order, deterministic
    std::priority_queue<Departure, std::vector<Departure>, std::greater<>> departures_;
    std::vector<Step> steps_;
    using StepEvent = std::tuple<double, int, int>;  // (time, 0 end / 1 start / 2 reservation end, step): ends first on ties
    std::priority_queue<StepEvent, std::vector<StepEvent>, std::greater<>> step_events_;
    int k_ = 0;
    MakeRoom make_room_;
    std::vector<std::int64_t> room_failed_at_;  ///< [flavor]: changes_ when make_room last made no room
    std::int64_t changes_ = 0;                  ///< departures and migrations so far
    std::int64_t live_ = 0, departed_ = 0;
    bool reserve_ = false;                        ///< set_reserve_steps
    std::map<int, std::vector<int>> waiting_;     ///< host -> steps reserving room on it, launch order
    std::map<int, std::vector<int>> waiting_vm_;  ///< VM -> its steps in waiting_
    std::vector<int> dirty_;                      ///< hosts with waiting steps that gained room since the last flush
    std::vector<std::vector<Resident>> on_host_;  ///< [host]: the VMs on it (vms_on)
    std::vector<int> slot_;                       ///< [vm]: its index in on_host_[its host], -1 when on none
};

}  // namespace vmcap
