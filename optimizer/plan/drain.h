#pragma once
/**
 * @file drain.h
 * The drain phase of a plan (constraints.drain_hosts, `vmcap plan --drain`): live migrations that
 * empty the drained hosts, before the search optimises with what is left.
 */
#include <vector>

#include "optimizer/plan/plan.h"

namespace vmcap {

/**
 * Steps that move every VM off the model's drained hosts, largest first (vCPU, then RAM, then VM
 * order): each to the host and pNUMA nodes, among those with room that every rule admits
 * (step_fits: the closed-hosts rule keeps them off drained and no-target hosts), whose weighted
 * capacity gains most (HostScratch::best_placement, plus the objective terms' delta), the lowest
 * host on ties — each step on the state the earlier ones leave. Throws InputError naming the VM
 * and host when a VM there is not migratable, when no host can take it, or when the steps exceed
 * the migration budget (count or RAM): a drain that cannot be satisfied. Empty without drained
 * hosts. O(drained VMs x hosts x placements x targets x VMCAP). Deterministic.
 */
std::vector<PlanStep> drain_steps(const CapacityModel& model);

/** "" if no VM of `host` (each VM's host after a plan) is on a drained host, else a one-line
 *  reason naming the first such VM and host. O(VMs). */
std::string drain_violation(const Problem& problem, const std::vector<int>& host);

}  // namespace vmcap
