#pragma once
/**
 * @file netsolver_place.h
 * Placement of NetSolver VDCs (`vmcap import netsolver`) through the placement seam: the VDCs
 * become arriving VMs with vlinks (instances/netsolver.h, netsolver_offer), and the `link-fit`
 * placer (placer.h) places them VDC by VDC, all or nothing, under the link-capacity rule of the
 * engine (evaluators/rules/link_filter.h) — the same rule `vmcap plan` and `vmcap validate` apply.
 */
#include <vector>

#include "instances/netsolver.h"
#include "instances/problem.h"

namespace vmcap {

/**
 * Offers `vdcs` (in order) to the hosts of `problem` (from netsolver_cluster, no VMs) and adds the
 * allocated ones: their VMs (per VDC in the order the placer placed them), the flavors of the VDCs
 * offered (allocated + the one that failed), sorted by (vCPU, RAM), weight 1 for those of >= 2
 * vNUMA nodes (if none, for the largest), their vlinks grouped in problem.vdcs, and constraints
 * (max_migrations: options.max_migrations, -1: ceil(1% of the VMs)). Each VDC is placed with
 * place_group and `link-fit` (placer.h: heaviest-bandwidth first; the first VM best fit among the
 * hosts that could take the whole VDC's vCPU; every later VM where it adds the least link load;
 * a host qualifies if some placement has room and every link stays within capacity; a dead end is
 * undone and the VDC tried again: the next first host, then best-fit's, first-fit's, starnetla's
 * and ctaap's placements). A VDC that fails every attempt ends the placement (undone); so does
 * reaching options.max_vdcs.
 *
 * Throws what netsolver_offer throws, and InputError if the result fails finalize_problem (a
 * bug). Deterministic. Complexity O(VMs x hosts x (placements + peers x route length)) per attempt
 * (ctaap's attempt: ctaap.cpp) plus the capacity model of the offer.
 */
NetsolverPlacementStats place_netsolver_vdcs(Problem& problem, const std::vector<NetsolverVdc>& vdcs, const NetsolverOptions& options);

}  // namespace vmcap
