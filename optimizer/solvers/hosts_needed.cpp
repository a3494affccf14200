#include "optimizer/solvers/hosts_needed.h"

#include <algorithm>
#include <string>

namespace vmcap {

HostsNeeded hosts_needed(const std::vector<TraceVm>& trace, const SimulateOptions& options, double max_rejected_share, int guess,
                         const std::function<void(const HostsProbe&)>& on_probe, int max_hosts) {
    if (!(max_rejected_share >= 0.0 && max_rejected_share <= 1.0)) throw InputError("hosts needed: the rejected share must be in [0, 1]");
    if (guess < 1 || guess > max_hosts) throw InputError("hosts needed: the first guess must be in 1.." + std::to_string(max_hosts));
    HostsNeeded out;
    const auto passes = [&](int n) {
        SimulateOptions o = options;
        o.replay.num_hosts = n;
        const SimulateResult r = simulate(trace, o);
        if (r.stopped_by != StopReason::Complete)
            throw InputError("hosts needed: the simulation at " + std::to_string(n) + " hosts stopped early");
        HostsProbe p{n, r.arrivals, r.rejected, false};
        p.ok = max_rejected_share == 0.0 ? r.rejected == 0
                                         : static_cast<double>(r.rejected) < max_rejected_share * static_cast<double>(r.arrivals);
        out.probes.push_back(p);
        if (on_probe) on_probe(p);
        return p.ok;
    };
    // The bracket: fails at lo (0 fails by definition), passes at hi.
    int lo = 0, hi = guess;
    const int first_step = std::max(1, guess / 64);
    if (passes(guess)) {
        for (int step = first_step;; step *= 2) {
            const int n = hi - step;
            if (n < 1) break;
            if (!passes(n)) {
                lo = n;
                break;
            }
            hi = n;
        }
    } else {
        lo = guess;
        for (int step = first_step;; step *= 2) {
            if (lo >= max_hosts) throw InputError("hosts needed: more than " + std::to_string(max_hosts));
            const int n = static_cast<int>(std::min<long long>(static_cast<long long>(lo) + step, max_hosts));
            if (passes(n)) {
                hi = n;
                break;
            }
            lo = n;
        }
    }
    while (hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        (passes(mid) ? hi : lo) = mid;
    }
    out.hosts = hi;
    return out;
}

}  // namespace vmcap
