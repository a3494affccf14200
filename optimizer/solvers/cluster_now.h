#pragma once
/**
 * @file cluster_now.h
 * A cluster as it stands in a SearchState with arrivals (placement/): its VMs on a host, where they
 * are now, as a snapshot the engine can plan on — for the live migrations that make room for a
 * request (make_room.h) and the nightly defragmentation of `vmcap simulate` (simulate.h).
 */
#include <vector>

#include "evaluators/state/search_state.h"

namespace vmcap {

/**
 * The problem of `state`'s placed VMs: the same resources, host types, hosts, network and flavors
 * (weights as they are), every VM on a host where it is now (its origin for a plan; a VM without
 * an id, as a replay's arrivals, gets "a<its index in the state>"), the vlinks
 * between two placed VMs (an arriving VM's vlinks carry no load yet), no budget (the caller sets
 * one), finalized. `original[i]` is the state's index of the problem's VM i. O(VMs + vlinks).
 */
Problem cluster_now(const SearchState& state, std::vector<int>& original);

}  // namespace vmcap
