#pragma once
/**
 * @file objective.h
 * The objective's and the feasibility rules' seam: what a move changes, as the objective terms
 * and feasibility filters see it.
 */
#include <cstdint>

#include "instances/topology.h"

namespace vmcap {

/**
 * One VM changing place, as objective terms and feasibility filters see a move: `vm` goes from
 * `from_host` to `to_host` on the pNUMA node set `to_mask` (to_mask 0: not decided yet, when a
 * filter is consulted before any capacity work). A move lists its relocations in execution
 * order; each is relative to the state the previous ones leave.
 */
struct Relocation {
    int vm = -1;
    int from_host = -1;
    int to_host = -1;
    NodeMask to_mask = 0;
};

}  // namespace vmcap
