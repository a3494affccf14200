#pragma once
/**
 * @file registry.h
 * The registries of the model: the objective terms a snapshot or the CLI switches on by name, the
 * feasibility filters the engine switches on by itself, and the destination-node rules (which
 * pNUMA nodes a migrated VM gets), each with its factory. The model's
 * top sub-layer: it knows every concrete term (evaluators/objective/) and rule
 * (evaluators/rules/), which stand on the state (evaluators/state/), which stands on the interfaces
 * (evaluators/interfaces/seams.h). CapacityModel's constructor, which builds a model's terms,
 * filters and destination-node rule from these tables, is defined here too (registry.cpp).
 */
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "evaluators/interfaces/seams.h"

namespace vmcap {

/**
 * A registered feasibility filter: a rule the engine switches on by itself for every problem that
 * `applies` accepts (e.g. the link-capacity rule once the snapshot has vlinks to route), made once
 * per CapacityModel by `make` (the model's problem(), vlink_index() and network_routes() are ready
 * then; the filter may keep references to them).
 */
struct FilterInfo {
    std::string_view name;
    std::function<bool(const Problem&)> applies;
    std::function<std::unique_ptr<FeasibilityFilter>(const CapacityModel&)> make;
};

/** Every feasibility filter beyond the built-in migration budget, in a fixed order (the order
 *  CapacityModel::filters() lists and consults them in). */
const std::vector<FilterInfo>& registered_filters();

/**
 * A registered destination-node rule (evaluators/interfaces/seams.h, DestinationNodeRule): which
 * pNUMA nodes a migrated VM gets on its destination. A CapacityModel takes the first whose
 * `applies` accepts its problem, made once by `make` (the model's tables are ready then).
 */
struct NodeRuleInfo {
    std::string_view name;
    std::string_view help;
    std::function<bool(const Problem&)> applies;
    std::function<std::unique_ptr<DestinationNodeRule>(const CapacityModel&)> make;
};

/** Every destination-node rule, in a fixed order: the order a model's constructor tries them in.
 *  "free" (the search's own choice) applies to every problem and comes last. */
const std::vector<NodeRuleInfo>& registered_node_rules();

/** A registered objective term: its name (CLI `--<name> W`), help text and factory. */
struct TermInfo {
    std::string_view name;
    std::string_view help;
    /** Made by a model's constructor once its tables are ready (a term may read the model's
     *  VMCAP evaluators, as uncovered-need does). */
    std::function<std::unique_ptr<ObjectiveTerm>(const CapacityModel&, double weight)> make;
};

/** Every objective term that a snapshot or the CLI can switch on by name, in a fixed order. */
const std::vector<TermInfo>& registered_terms();

/**
 * Builds the terms listed in model.problem().objective_terms (name, weight; weight 0 = off) from
 * the registry, for `model` (its tables built). Throws std::invalid_argument naming an unknown
 * term or a non-finite weight.
 */
std::vector<std::unique_ptr<ObjectiveTerm>> make_terms(const CapacityModel& model);

}  // namespace vmcap
