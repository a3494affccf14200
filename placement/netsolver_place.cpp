#include "placement/netsolver_place.h"

#include <algorithm>
#include <numeric>
#include <tuple>

#include "evaluators/state/capacity_model.h"
#include "evaluators/state/search_state.h"
#include "placement/placer.h"

namespace vmcap {

namespace {

/** The snapshot: the VMs of the first `allocated` VDCs in placement order (`orders`), their vlinks,
 *  the flavors of the first `offered` VDCs sorted by size. */
void write_allocated(Problem& p, const NetsolverOffer& offer, const SearchState& state, const std::vector<std::vector<int>>& orders,
                     int offered, const NetsolverOptions& o) {
    const Problem& q = offer.problem;
    std::vector<char> used(q.flavors.size(), 0);
    for (int d = 0; d < offered; ++d)
        for (int v = offer.vdc_vms[static_cast<std::size_t>(d)].first; v < offer.vdc_vms[static_cast<std::size_t>(d)].second; ++v)
            used[static_cast<std::size_t>(q.vms[static_cast<std::size_t>(v)].flavor)] = 1;
    std::vector<int> by_size;
    for (std::size_t f = 0; f < used.size(); ++f)
        if (used[f]) by_size.push_back(static_cast<int>(f));
    std::sort(by_size.begin(), by_size.end(), [&](int a, int b) {
        return std::tie(q.flavors[a].demand[kVcpu], q.flavors[a].demand[kRamMib]) <
               std::tie(q.flavors[b].demand[kVcpu], q.flavors[b].demand[kRamMib]);
    });
    std::vector<int> flavor_index(q.flavors.size(), -1);
    p.flavors.clear();
    for (int f : by_size) {
        flavor_index[static_cast<std::size_t>(f)] = static_cast<int>(p.flavors.size());
        p.flavors.push_back(q.flavors[static_cast<std::size_t>(f)]);
    }
    weigh_multi_numa_targets(p.flavors);
    p.vms.clear();
    p.vlinks.clear();
    p.vdcs.clear();
    std::vector<int> slot(q.vms.size(), -1);
    for (std::size_t d = 0; d < orders.size(); ++d) {
        for (int v : orders[d]) {
            Vm vm = q.vms[static_cast<std::size_t>(v)];
            vm.flavor = flavor_index[static_cast<std::size_t>(vm.flavor)];
            vm.host = state.host_of(v);
            const int k = q.flavors[static_cast<std::size_t>(q.vms[static_cast<std::size_t>(v)].flavor)].num_vnuma();
            std::copy(state.pnuma_of(v), state.pnuma_of(v) + k, vm.pnuma.begin());
            slot[static_cast<std::size_t>(v)] = static_cast<int>(p.vms.size());
            p.vms.push_back(std::move(vm));
        }
        for (int l = offer.vdc_vlinks[d].first; l < offer.vdc_vlinks[d].second; ++l) {
            const Vlink& x = q.vlinks[static_cast<std::size_t>(l)];
            p.vlinks.push_back(
                Vlink{slot[static_cast<std::size_t>(x.a)], slot[static_cast<std::size_t>(x.b)], x.mbps, static_cast<int>(d)});
        }
        p.vdcs.push_back(q.vdcs[d]);
    }
    const auto vms = static_cast<std::int64_t>(p.vms.size());
    p.constraints.max_migrations = o.max_migrations >= 0 ? o.max_migrations : (vms + 99) / 100;
    finalize_problem(p, "<netsolver import>");
}

}  // namespace

NetsolverPlacementStats place_netsolver_vdcs(Problem& p, const std::vector<NetsolverVdc>& vdcs, const NetsolverOptions& o) {
    const NetsolverOffer offer = netsolver_offer(p, vdcs, o);
    const CapacityModel model(offer.problem);
    SearchState state(model);
    auto placer = make_placer("link-fit");
    placer->reset(state);
    NetsolverPlacementStats st;
    std::vector<std::vector<int>> orders;  // placement order of each allocated VDC
    for (std::size_t d = 0; d < vdcs.size(); ++d) {
        if (o.max_vdcs >= 0 && st.allocated >= o.max_vdcs) {
            st.stopped_by_max = true;
            break;
        }
        ++st.offered;
        std::vector<int> group(static_cast<std::size_t>(offer.vdc_vms[d].second - offer.vdc_vms[d].first));
        std::iota(group.begin(), group.end(), offer.vdc_vms[d].first);
        GroupPlacement g = place_group(state, *placer, group);
        if (!g.placed()) {
            st.failed_vdc = offer.problem.vdcs[d];
            st.failure = offer.vm_text[static_cast<std::size_t>(g.failed_vm)] +
                         ": no host has room on its pNUMA nodes with every link within capacity";
            break;
        }
        orders.push_back(std::move(g.order));
        st.dropped_zero_vlinks += vdcs[d].dropped_zero;
        ++st.allocated;
    }
    write_allocated(p, offer, state, orders, st.offered, o);
    return st;
}

}  // namespace vmcap
