#include "evaluators/capacity_model.h"

namespace vmcap {

CapacityModel::CapacityModel(const Problem& problem) : problem_(problem), R_(problem.num_resources()) {
    for (std::size_t f = 0; f < problem.flavors.size(); ++f)
        if (problem.flavors[f].is_target()) {
            targets_.push_back(static_cast<int>(f));
            weights_.push_back(problem.flavors[f].weight);
        }
    evaluators_.reserve(problem.host_types.size() * problem.flavors.size());
    for (const HostType& ht : problem.host_types)
        for (const Flavor& fl : problem.flavors) evaluators_.emplace_back(ht.topology, fl.vnuma);
}

Count CapacityModel::host_capacity(int host_type, int flavor, const Amount* free) const {
    const int n = problem_.host_types[host_type].num_nodes();
    Count b[kMaxPNuma];
    for (int i = 0; i < n; ++i) b[i] = node_slots(flavor, free + i * R_);
    return evaluator(host_type, flavor)(b);
}

}  // namespace vmcap
