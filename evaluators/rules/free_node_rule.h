#pragma once
/**
 * @file free_node_rule.h
 * The built-in destination-node rule, "free": a migrated VM may get any placement on its
 * destination that fits, and the search takes the best (vmcap's own snapshots). The default of
 * every model (registered_node_rules, evaluators/registry/registry.cpp).
 */
#include <string_view>

#include "evaluators/interfaces/seams.h"

namespace vmcap {

/** Any fitting placement: assign() answers kAnyPlacement, and fixes_nodes() false lets every
 *  caller skip it. Stateless; thread-safe. */
class FreeNodeRule final : public DestinationNodeRule {
public:
    static constexpr std::string_view kName = "free";
    static constexpr std::string_view kHelp = "any placement that fits; the search takes the best (default)";
    std::string_view name() const override { return kName; }
    bool fixes_nodes() const override { return false; }
    int assign(const CapacityModel&, int, int, const Amount*) const override { return kAnyPlacement; }
};

}  // namespace vmcap
