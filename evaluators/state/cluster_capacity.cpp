#include "evaluators/state/cluster_capacity.h"

#include <algorithm>

#include "evaluators/closed_forms/capacity_vectors.h"
#include "evaluators/closed_forms/vmcap_batch.h"

namespace vmcap {

std::vector<Count> ClusterCapacity::totals() const {
    std::vector<Count> out(static_cast<std::size_t>(F), 0);
    for (std::size_t i = 0; i < cap.size(); ++i) out[i % static_cast<std::size_t>(F)] += cap[i];
    return out;
}

ClusterCapacity cluster_capacity(const CapacityModel& model, const std::vector<std::vector<Amount>>& usage) {
    const Problem& p = model.problem();
    const int F = static_cast<int>(p.flavors.size()), R = p.num_resources();
    const CapacityVectors cv = CapacityVectors::for_all_flavors(p);
    ClusterCapacity out;
    out.F = F;
    out.cap.assign(p.hosts.size() * static_cast<std::size_t>(F), 0);
    out.bound.assign(out.cap.size(), 0);
    constexpr std::size_t kBlock = 256;
    std::vector<Amount> free;
    std::vector<Count> b, caps(kBlock);
    for (int type = 0; type < static_cast<int>(p.host_types.size()); ++type) {
        const HostType& ht = p.host_types[type];
        const int n = ht.num_nodes();
        std::vector<BatchEvaluator> evaluators;
        evaluators.reserve(F);
        for (int f = 0; f < F; ++f) evaluators.emplace_back(model.evaluator(type, f));
        std::vector<std::size_t> hosts;
        for (std::size_t h = 0; h < p.hosts.size(); ++h)
            if (p.hosts[h].type == type) hosts.push_back(h);
        free.assign(static_cast<std::size_t>(n) * R * kBlock, 0);
        b.assign(static_cast<std::size_t>(n) * F * kBlock, 0);
        for (std::size_t first = 0; first < hosts.size(); first += kBlock) {
            const std::size_t count = std::min(kBlock, hosts.size() - first);
            for (std::size_t t = 0; t < count; ++t) {
                const auto& u = usage[hosts[first + t]];
                for (int x = 0; x < n * R; ++x) free[static_cast<std::size_t>(x) * kBlock + t] = ht.node_capacity[x] - u[x];
            }
            cv.compute_batch(free.data(), kBlock, count, n, b.data(), kBlock);
            for (int f = 0; f < F; ++f) {
                const Count* bf = b.data() + static_cast<std::size_t>(f) * n * kBlock;
                if (model.counts_by_rule()) {
                    // The destination-node rule's count, host by host from its free amounts.
                    Amount one[kMaxPNuma * kMaxResources];
                    for (std::size_t t = 0; t < count; ++t) {
                        for (int x = 0; x < n * R; ++x) one[x] = free[static_cast<std::size_t>(x) * kBlock + t];
                        caps[t] = model.host_capacity(type, f, one);
                    }
                } else {
                    evaluators[f](bf, kBlock, count, caps.data());
                }
                const int k = p.flavors[f].num_vnuma();
                for (std::size_t t = 0; t < count; ++t) {
                    Count sum = 0;
                    for (int i = 0; i < n; ++i) sum += bf[static_cast<std::size_t>(i) * kBlock + t];
                    const std::size_t h = hosts[first + t];
                    out.cap[h * F + f] = caps[t];
                    out.bound[h * F + f] = sum / k;
                }
            }
        }
    }
    return out;
}

}  // namespace vmcap
