#pragma once
/**
 * @file locality_term.h
 * Locality term of the network (`vmcap plan --locality-weight W`,
 * off by default): -W per Mbps of vlink bandwidth whose two VMs sit under different ToR switches,
 * and -W again per Mbps between different pods (hosts[].pod, when both hosts name one):
 *
 *     value = -W x sum over vlinks e of mbps(e) x (cross_rack(e) + cross_pod(e))
 *
 * A plan then brings chatty VMs together where capacity allows (digest §8.1.5: total cross-rack and
 * cross-pod bandwidth, the locality that made NetSolver-ILP and StarNetLA win). W is in objective
 * units per Mbps (0.001: one weight-1 VM of capacity per Gbps kept inside a rack).
 */
#include <vector>

#include "evaluators/interfaces/seams.h"

namespace vmcap {

class LocalityTerm final : public ObjectiveTerm {
public:
    static constexpr std::string_view kName = "locality-weight";
    static constexpr std::string_view kHelp =
        "objective penalty per Mbps of vlink bandwidth crossing a rack (ToR) boundary, and again per pod boundary (0: off)";

    /** Throws std::invalid_argument if the weight is negative, above kMaxWeight or has more than
     *  three decimals, or if the term's largest magnitude would leave the exact integer range. */
    LocalityTerm(const Problem& problem, double weight_per_mbps);

    std::string_view name() const override { return kName; }
    double weight() const override { return w_; }
    /** A move changes the crossings of its VMs' vlinks, which depend on where the peers are. */
    bool separable_per_host() const override { return false; }
    bool monotone_under_insertion() const override { return false; }
    TermShape shape() const override { return TermShape::NonPositive; }
    /** Exact change over the moved VMs' vlinks, each relocation seeing the previous ones (a vlink
     *  between two moved VMs counted once). O(sum of the moved VMs' vlinks). */
    Score delta(const SearchState& state, std::span<const Relocation> moves) const override;
    /** W x the crossing bandwidth of the listed VMs' vlinks now (at best all of it disappears). */
    double bound(const SearchState& state, std::span<const int> vms) const override;
    /** From scratch over every vlink. O(vlinks). */
    Score value(const Problem& problem, const PlacementView& placement) const override;

private:
    /** Boundaries between hosts x and y: 0, 1 (racks) or 2 (racks and pods). */
    int crossings(int x, int y) const {
        if (x == y || rack_[x] == rack_[y]) return pod_[x] >= 0 && pod_[y] >= 0 && pod_[x] != pod_[y] ? 1 : 0;
        return 1 + (pod_[x] >= 0 && pod_[y] >= 0 && pod_[x] != pod_[y] ? 1 : 0);
    }

    const Problem& problem_;
    double w_;
    Score unit_;                            ///< score units per Mbps crossing one boundary
    std::vector<int> rack_, pod_;           ///< [host] ToR switch (or rack) id; pod id or -1
    std::vector<std::vector<int>> vlinks_;  ///< [vm] indices into problem.vlinks
};

}  // namespace vmcap
