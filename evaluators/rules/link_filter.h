#pragma once
/**
 * @file link_filter.h
 * The link-capacity rule of the network: no move may load a link
 * above its capacity, and a link the snapshot already overloads may not get worse (digest §8.1.5:
 * "Hard: no link above capacity"), in either direction: links are full duplex and every arc (a link
 * in one direction) has its own load and capacity. Loads follow evaluators/network/network_load.h (ECMP,
 * a vlink's two flows each routed from its own source, micro-units).
 * Enforced by every move (FeasibilityFilter::admits, through score_move), by each step of plan
 * building, and re-checked from scratch after every plan step by `vmcap validate`.
 */
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "evaluators/network/network_load.h"
#include "evaluators/interfaces/seams.h"
#include "instances/vlink_index.h"

namespace vmcap {

class LinkCapacityFilter final : public FeasibilityFilter {
public:
    /** For problem.network (present) and problem.vlinks: routes, the vlinks of every VM and the
     *  snapshot's loads. Throws InputError as NetworkRoutes. O(routes + vlinks x route length).
     *  `routes` and `vlinks` may be shared with other network evaluators (the bandwidth-aware
     *  capacity term, proposals); null: built here. */
    explicit LinkCapacityFilter(const Problem& problem, std::shared_ptr<const NetworkRoutes> routes = nullptr,
                                std::shared_ptr<const VlinkIndex> vlinks = nullptr);

    static constexpr std::string_view kName = "link-capacity";
    /** On once the snapshot has a network and vlinks to route. */
    static bool applies(const Problem& problem) { return problem.network.present() && !problem.vlinks.empty(); }
    std::string_view name() const override { return kName; }
    /** False: a link's load sums vlinks of VMs on many hosts. */
    bool separable_per_host() const override { return false; }
    /** O(1) when the moved VMs' total vlink bandwidth fits the state's smallest arc allowance
     *  (no link can then go over); else O(sum over the moved VMs of their vlinks x route length),
     *  no allocation (a per-thread scratch buffer). Both ends of a vlink may move in one move:
     *  each relocation sees the previous ones, so the vlink is counted once. */
    bool admits(const SearchState& state, std::span<const Relocation> moves) const override;
    /** First link above capacity and above its snapshot load, from scratch. */
    std::string violation(const Problem& problem, const PlacementView& placement) const override;
    std::unique_ptr<StateAggregates> make_aggregates(const SearchState& state) const override;
    void on_move(StateAggregates& agg, const SearchState& state, const Relocation& r) const override;
    /** Arrivals and departures (placement/): a vlink loads links only while both its VMs are on
     *  hosts. */
    bool supports_arrivals() const override { return true; }
    std::string check_aggregates(const StateAggregates& cached, const SearchState& state) const override;

    const NetworkRoutes& routes() const { return *routes_; }
    /** Loads of the snapshot's placement (micro-units). */
    const std::vector<std::int64_t>& snapshot_loads() const { return snapshot_loads_; }
    /** How much more `link` may carry at `load`: max(capacity, snapshot load) - load (micro-units). */
    std::int64_t allowance(int link, std::int64_t load) const;
    /** allowance() of `arc` at its load in `state` now (micro-units; on a host uplink, scale 1,
     *  Mbps): what a server-bandwidth filter (Neutron's, seed 003 Alg. 1 line 3) reads. O(1). */
    std::int64_t allowance_now(const SearchState& state, int arc) const;
    /** May a link carry `load` (micro-units)? At most its capacity, or at most its snapshot load. */
    bool allowed(int link, std::int64_t load) const { return load <= routes_->capacity(link) || load <= snapshot_loads_[link]; }

private:
    const Problem& problem_;
    std::shared_ptr<const NetworkRoutes> routes_;
    std::shared_ptr<const VlinkIndex> vlinks_;  ///< per-VM peers and bandwidths, flat
    std::vector<std::int64_t> snapshot_loads_;
};

}  // namespace vmcap
