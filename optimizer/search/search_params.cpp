#include "optimizer/search/search_params.h"

#include <algorithm>
#include <stdexcept>

namespace vmcap {

void SearchParams::validate() const {
    auto bad = [](const char* what) { throw std::invalid_argument(what); };
    if (threads < 1) bad("threads must be >= 1");
    if (!(time_limit_s > 0)) bad("time limit must be > 0 seconds");
    if (max_evaluations < 0) bad("max evaluations must be >= 0");
    if (check_every < 0) bad("check interval must be >= 0");
    if (round_evaluations < 0) bad("round evaluations must be >= 0");
    if (!(reheat_factor >= 1.0)) bad("reheat factor must be >= 1");
    if (!(neutral_acceptance >= 0.0 && neutral_acceptance <= 1.0)) bad("neutral acceptance must be in [0, 1]");
    if (!(initial_temperature >= 0.0)) bad("initial temperature must be >= 0");
    mix.validate();
}

// 1500 per migratable VM: about the wall time of the earlier, slower default on 1,000 hosts, and
// better plans; at most 2.5 x 10^8, so a 10,000-host default run ends on its evaluation budget
// (reproducibly) before the default 60 s time limit. Measurements: docs/performance.md, "Search".
std::int64_t default_evaluations(const Problem& problem) {
    std::int64_t movable = 0;
    for (const Vm& vm : problem.vms) movable += vm.migratable ? 1 : 0;
    return std::clamp<std::int64_t>(movable * 1500, 1000000, 250000000);
}

}  // namespace vmcap
