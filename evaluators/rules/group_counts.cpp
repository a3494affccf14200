#include "evaluators/rules/group_counts.h"

#include "evaluators/state/search_state.h"

namespace vmcap {

template <class Seam>
std::unique_ptr<StateAggregates> GroupCountHooks<Seam>::make_aggregates(const SearchState& s) const {
    std::vector<int> host(counted_.size());
    for (std::size_t v = 0; v < host.size(); ++v) host[v] = s.host_of(static_cast<int>(v));
    return std::make_unique<GroupHostCounts>(GroupHostCounts::of(counted_, host));
}

template <class Seam>
void GroupCountHooks<Seam>::on_move(StateAggregates& agg, const SearchState&, const Relocation& r) const {
    static_cast<GroupHostCounts&>(agg).move(counted_[r.vm], r.from_host, r.to_host);
}

template <class Seam>
std::string GroupCountHooks<Seam>::check_aggregates(const StateAggregates& cached, const SearchState& s) const {
    const auto fresh = make_aggregates(s);
    const bool same = static_cast<const GroupHostCounts&>(cached).n == static_cast<const GroupHostCounts&>(*fresh).n;
    return same ? "" : std::string(this->name()) + " member counts differ";
}

template <class Seam>
const GroupHostCounts& GroupCountHooks<Seam>::counts(const SearchState& s) const {
    return *static_cast<const GroupHostCounts*>(s.aggregates(*this));
}

template class GroupCountHooks<ObjectiveTerm>;
template class GroupCountHooks<FeasibilityFilter>;

}  // namespace vmcap
