#include "evaluators/rules/feasibility.h"

#include <vector>

namespace vmcap {

std::string first_rule_violation(const CapacityModel& model, const SearchState& state) {
    std::vector<int> host;
    std::vector<NodeMask> mask;
    state.placement_arrays(host, mask);
    for (const FeasibilityFilter* rule : model.rules())
        if (std::string why = rule->violation(model.problem(), PlacementView{host, mask}); !why.empty())
            return std::string(rule->name()) + " rule: " + why;
    return "";
}

}  // namespace vmcap
