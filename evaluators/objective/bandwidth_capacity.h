#pragma once
/**
 * @file bandwidth_capacity.h
 * Bandwidth-aware flavor capacity: a flavor may declare a hose
 * bandwidth `bandwidth_mbps` (b_f, Mbps per VM, Flavor::bandwidth_mbps); with a network section,
 * how many more VMs of it fit is then limited by free uplink bandwidth as well as by VMCAP.
 *
 * Traffic rule (worst-case hose, documented in docs/format.md "Bandwidth-aware capacity"): a new
 * VM of flavor f may exchange b_f with any host, so in the worst case all of it crosses its host's
 * NIC uplink, its ToR's uplinks and its pod's uplinks, in both directions (it sends b_f and
 * receives b_f; links are full duplex, evaluators/network/network_load.h). ECMP splits it equally over the
 * k uplinks of a ToR (or a pod), so n more VMs fit under them iff n x b_f / k <= free(l) for each
 * of them and each direction:
 *
 *     host h:  c_h(f) = min(VMCAP_h(f), floor(free(uplink h) / b_f))
 *     rack r:  R_r(f) = min(sum_{h in r} c_h(f), floor(k_r x min_{l in U_r} free(l) / b_f))
 *     pod p:   P_p(f) = min(sum_{r in p} R_r(f), floor(k_p x min_{l in U_p} free(l) / b_f))
 *     capacity(f) = sum over pods P_p(f) + sum over racks in no pod R_r(f)
 *
 * free(l) = max(0, capacity(l) - load(l)) of the fuller direction of l, loads of the vlinks by
 * evaluators/network/network_load.h (exact micro-units). A rack is the switch its hosts attach to; U_r its links to switches no host
 * attaches to (a tree's aggregation, a leaf-spine's spines); a pod is the hosts sharing a
 * hosts[].pod label, U_p the links from its racks' upper switches to switches one level further
 * up (a tree's core). A rack or pod without such links has no cap of its own. Flavors with b_f = 0
 * keep VMCAP. Without a network section nothing changes: the term is not created.
 *
 * The term adds sum_f w_f x (capacity(f) - VMCAP capacity(f)) <= 0 to the objective, so the
 * objective becomes sum_f w_f x capacity(f). A move changes it through its hosts' VMCAP, and
 * through the uplinks its VMs' vlinks load (peers' hosts, racks and pods included).
 */
#include <memory>
#include <span>
#include <vector>

#include "evaluators/network/network_load.h"
#include "evaluators/interfaces/seams.h"
#include "evaluators/closed_forms/vmcap.h"

namespace vmcap {

class CapacityModel;

class BandwidthCapacityTerm final : public ObjectiveTerm {
public:
    static constexpr std::string_view kName = "bandwidth-capacity";

    /** Does `problem` call for the term: a network section and a target flavor with bandwidth_mbps > 0? */
    static bool applies(const Problem& problem);

    /**
     * For `model`'s targets and problem network, with `routes` (shared with the link rule). Keeps
     * references to both. O(hosts + switches + links). Throws std::invalid_argument when the
     * problem has no network.
     */
    BandwidthCapacityTerm(const CapacityModel& model, std::shared_ptr<const NetworkRoutes> routes);

    std::string_view name() const override { return kName; }
    /** Always 1: the flavor weights are its weights. */
    double weight() const override { return 1.0; }
    /** A move changes the uplink loads at its VMs' peers. */
    bool separable_per_host() const override { return false; }
    /** Adding a VM may raise capacity - VMCAP capacity (VMCAP drops, the cap may not). */
    bool monotone_under_insertion() const override { return false; }
    /** Capped capacity minus uncapped capacity: never above 0. */
    TermShape shape() const override { return TermShape::NonPositive; }
    /** Exact change, each relocation seeing the previous ones. O(sum over the moved VMs of vlinks
     *  x route length + affected hosts x bandwidth targets x VMCAP); no allocation (per-thread
     *  scratch). */
    Score delta(const SearchState& state, std::span<const Relocation> moves) const override;
    /** +infinity: no cheap bound (the capped part can rise at the peers' hosts). */
    double bound(const SearchState& state, std::span<const int> vms) const override;
    /** From scratch: loads of every vlink, VMCAP of every host, the caps above. O(vlinks x route
     *  length + hosts x targets x VMCAP). */
    Score value(const Problem& problem, const PlacementView& placement) const override;
    std::unique_ptr<StateAggregates> make_aggregates(const SearchState& state) const override;
    void on_move(StateAggregates& agg, const SearchState& state, const Relocation& r) const override;

    /** Cluster capacity of every target (CapacityModel target order) under the rule above, from
     *  scratch: the bandwidth-limited figures of `vmcap capacity`; -1 for targets without a
     *  bandwidth (their capacity is VMCAP's). Same cost as value(). */
    std::vector<Count> capped_totals(const PlacementView& placement) const;

    /** Number of racks (host-attached switches) and pods with an uplink cap; for reports and tests. */
    int capped_racks() const;
    int capped_pods() const;

private:
    struct Aggregates;
    Aggregates build(const PlacementView& placement) const;
    struct Scratch;
    /** The delta of `moves` on `a`; with `commit`, also writes the new values into it. Runs the
     *  steps below on a per-thread Scratch, which it leaves clean. */
    Score evaluate(const SearchState& s, const Aggregates& a, std::span<const Relocation> moves, Aggregates* commit) const;
    /** evaluate() step 1: the moved hosts' free amounts (sc.local) and the load changes of the
     *  moved VMs' vlinks (sc.dload, sc.links, not yet deduplicated); each relocation sees the
     *  previous ones, so a vlink between two moved VMs is counted once. */
    void shift_moves(const SearchState& s, std::span<const Relocation> moves, Scratch& sc) const;
    /** evaluate() step 2: the affected hosts, the moved ones first (their new VMCAP from sc.local)
     *  then those whose uplink load changed, and the racks and pods whose uplinks did. */
    void touch_affected(const SearchState& s, Scratch& sc) const;
    /** evaluate() step 3, hosts: c_h of every affected host, into the VMCAP change and its rack's
     *  sum (touching the rack). */
    void host_deltas(const Aggregates& a, Scratch& sc, Aggregates* commit) const;
    /** evaluate() step 3, racks: R_r of every touched rack, into its pod's sum (touching the pod)
     *  or, in no pod, the capped total. */
    void rack_deltas(const Aggregates& a, Scratch& sc, Aggregates* commit) const;
    /** evaluate() step 3, pods: P_p of every touched pod, into the capped total. */
    void pod_deltas(const Aggregates& a, Scratch& sc, Aggregates* commit) const;
    /** min over the arcs of `links` (both arcs of k uplinks) of floor(k x free / (b x scale)),
     *  free = capacity - load (- dload where given); b in Mbps. */
    Count group_cap(std::span<const int> links, const std::int64_t* load, const std::int64_t* dload, std::int64_t b) const;
    /** Free Mbps of host h's uplink in its fuller direction (loads + `dload` where given). */
    std::int64_t uplink_free(int h, const std::int64_t* load, const std::int64_t* dload) const;

    const CapacityModel& model_;
    const Problem& problem_;
    std::shared_ptr<const NetworkRoutes> routes_;
    std::vector<int> targets_;                    ///< [jb] target index j with bandwidth
    std::vector<std::int64_t> b_units_;           ///< [jb] b_f in Mbps
    std::vector<Score> w_units_;                  ///< [jb] score units per unit of capacity
    std::vector<int> rack_of_host_;               ///< [host] rack index
    std::vector<int> pod_of_rack_;                ///< [rack] pod index or -1
    std::vector<std::vector<int>> rack_uplinks_;  ///< [rack] arcs of its uplinks, both directions (empty: no cap)
    std::vector<std::vector<int>> pod_uplinks_;   ///< [pod] arcs of its uplinks, both directions (empty: no cap)
    std::vector<int> link_rack_, link_pod_;       ///< [arc] the rack / pod it is an uplink of, or -1
    std::vector<std::vector<int>> vlinks_of_;     ///< [vm] indices into problem.vlinks
};

}  // namespace vmcap
