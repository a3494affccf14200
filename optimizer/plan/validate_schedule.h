#pragma once
/**
 * @file validate_schedule.h
 * The schedule half of `vmcap validate` (validate_plan calls it after the step-by-step replay
 * has accepted the steps): the waves' in-flight states, limits, network copies and times, on the
 * validator's own usage tables; the rules that hold in flight through their own admits().
 */
#include <string>

#include <nlohmann/json.hpp>

#include "evaluators/state/capacity_model.h"

namespace vmcap {

/**
 * Re-checks the plan's `schedule` (docs/format.md "Schedule"; none: ""). Waves number 1, 2, ...
 * in step order, a wave's steps consecutive. For each wave, from the state the earlier waves
 * leave: no VM twice; migrations out of / into each host, of each tenant and in the cluster
 * within `limits` (a remap counts once each way); with the wave's VMs present on both ends, every
 * rule of `model` that holds in flight (FeasibilityFilter::holds_in_flight, e.g. anti-affinity:
 * no host holding more members of a group than max(1, the snapshot's count there)) admitting
 * each host change as an arrival on its destination (InFlightWave, on the wave's start state
 * replayed in a SearchState); every pNUMA node within capacity with the wave's VMs on both
 * ends (a remap holds a node of both mappings once); under a destination-node rule that fixes
 * nodes (CapacityModel::fixes_nodes), each step's to_pnuma the rule's choice on its destination
 * when it starts (the wave's start state less the wave's earlier arrivals there, asked on the
 * validator's own tables); with a network section and
 * limits.copies_on_network, every link
 * direction's vlink load at the wave's start (link_loads) plus the wave's memory copies (mbps
 * each on their route) within capacity; each step's mbps in [1, duration_model.mbps], below it
 * only alone in its wave; start_s the wave's start (0, then the previous wave's latest end_s);
 * end_s == start_s + DurationModel::seconds(RAM, mbps) to the last bit; `waves` and `makespan_s`
 * (the latest end_s) as recomputed; makespan_s <= window_s when a window is stated. Returns "" or
 * the first violation ("steps[i] (step i+1, wave w, vm \"x\"): ..."); throws InputError naming
 * `file` and the JSON path on a malformed schedule (missing or mistyped fields, values out of
 * range). Assumes the steps themselves passed the replay (ids, hosts, mappings).
 * O(steps x k x R + waves x (vlinks + steps) x route length), plus, with a rule that holds in
 * flight, a SearchState replay of the steps and each step's admits() of that rule.
 */
std::string check_schedule(const CapacityModel& model, const nlohmann::json& plan, const std::string& file);

}  // namespace vmcap
