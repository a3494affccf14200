#include "evaluators/objective/soft_anti_affinity_term.h"

#include <memory>
#include <stdexcept>

#include "evaluators/state/search_state.h"

namespace vmcap {

SoftAntiAffinityTerm::SoftAntiAffinityTerm(const Problem& problem, double weight)
    : GroupCountHooks(problem.vms.size()), w_(weight), unit_(weight_milli(weight) * 1024) {
    if (weight_milli(weight) < 0) throw std::invalid_argument("soft-anti-affinity must be a number in [0, 100000] with at most 3 decimals");
    for (std::size_t g = 0; g < problem.server_groups.size(); ++g)
        if (problem.server_groups[g].policy == GroupPolicy::SoftAntiAffinity)
            for (int v : problem.server_groups[g].members) counted_[v] = static_cast<int>(g);
}

Score SoftAntiAffinityTerm::delta(const SearchState& s, std::span<const Relocation> moves) const {
    Score d = 0;
    for (std::size_t i = 0; i < moves.size(); ++i) {
        const Relocation& r = moves[i];
        const int g = counted_[r.vm];
        if (g < 0 || r.from_host == r.to_host) continue;
        // Members on a host as the move's earlier relocations leave it.
        const auto members = [&](int h) {
            int c = counts(s).count(g, h);
            for (std::size_t j = 0; j < i; ++j)
                if (counted_[moves[j].vm] == g && moves[j].from_host != moves[j].to_host)
                    c += (moves[j].to_host == h) - (moves[j].from_host == h);
            return c;
        };
        if (r.from_host != kUnplaced && members(r.from_host) >= 2) d += unit_;  // one fewer shared member there
        if (r.to_host != kUnplaced && members(r.to_host) >= 1) d -= unit_;      // one more
    }
    return d;
}

double SoftAntiAffinityTerm::bound(const SearchState& s, std::span<const int> vms) const {
    Score b = 0;
    for (int v : vms)
        if (counted_[v] >= 0 && s.host_of(v) != kUnplaced && counts(s).count(counted_[v], s.host_of(v)) >= 2) b += unit_;
    return static_cast<double>(b);
}

Score SoftAntiAffinityTerm::value(const Problem&, const PlacementView& pl) const {
    Score shared = 0;
    for (const auto& [k, c] : GroupHostCounts::of(counted_, pl.host).n) shared += c > 1 ? c - 1 : 0;
    return -unit_ * shared;
}

}  // namespace vmcap
