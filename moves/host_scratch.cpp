#include "moves/host_scratch.h"

#include <algorithm>
#include <bit>

namespace vmcap {

void HostScratch::load(const SearchState& s, int host) {
    const Problem& p = s.problem();
    host_ = host;
    type_ = p.hosts[host].type;
    n_ = p.host_types[type_].num_nodes();
    R_ = s.model().num_resources();
    dirty_ = 0;
    std::copy_n(s.free_of(host), n_ * R_, free_);
}

void HostScratch::release(const Flavor& fl, const std::uint8_t* nodes) {
    for (int i = 0; i < fl.num_vnuma(); ++i) {
        dirty_ |= 1U << nodes[i];
        for (int r = 0; r < R_; ++r) free_[nodes[i] * R_ + r] += fl.node_demand[r];
    }
}

void HostScratch::occupy(const Flavor& fl, const std::uint8_t* nodes) {
    for (int i = 0; i < fl.num_vnuma(); ++i) {
        dirty_ |= 1U << nodes[i];
        for (int r = 0; r < R_; ++r) free_[nodes[i] * R_ + r] -= fl.node_demand[r];
    }
}

bool HostScratch::fits(const Flavor& fl, const std::uint8_t* nodes) const {
    for (int i = 0; i < fl.num_vnuma(); ++i)
        for (int r = 0; r < R_; ++r)
            if (free_[nodes[i] * R_ + r] < fl.node_demand[r]) return false;
    return true;
}

int HostScratch::best_placement(const SearchState& s, const Flavor& fl, const std::vector<Embedding>& placements, double& best) const {
    int out = -1;
    best = 0.0;
    for (std::size_t e = 0; e < placements.size(); ++e) {
        const Embedding& emb = placements[e];
        if (!fits(fl, emb.map.data())) continue;
        const double v = gain(s, &fl, emb.map.data());
        if (out < 0 || v > best) {
            out = static_cast<int>(e);
            best = v;
        }
    }
    return out;
}

double HostScratch::gain(const SearchState& s, const Flavor* extra, const std::uint8_t* extra_nodes) const {
    unsigned touched = dirty_;
    Amount local[kMaxPNuma * kMaxResources];  // free amounts of the touched nodes only
    for (unsigned m = dirty_; m != 0; m &= m - 1) {
        const int i = std::countr_zero(m);
        std::copy_n(free_ + i * R_, R_, local + i * R_);
    }
    if (extra != nullptr) {
        for (int v = 0; v < extra->num_vnuma(); ++v) {
            const int i = extra_nodes[v];
            if (!((touched >> i) & 1U)) std::copy_n(free_ + i * R_, R_, local + i * R_);
            touched |= 1U << i;
            for (int r = 0; r < R_; ++r) local[i * R_ + r] -= extra->node_demand[r];
        }
    }
    if (touched == 0) return 0.0;
    const CapacityModel& m = s.model();
    const int T = m.num_targets();
    Count tmp[kMaxPNuma];
    double d = 0.0;
    for (int j = 0; j < T; ++j) {
        const int tf = m.target_flavor(j);
        const Count* b = s.slots_of(host_, j);
        const VmcapEvaluator& ev = m.evaluator(type_, tf);
        if (ev.additive()) {  // VMCAP = sum of b: the change is the sum of the touched entries' changes
            Count dd = 0;
            for (unsigned t = touched; t != 0; t &= t - 1) {
                const int i = std::countr_zero(t);
                dd += m.node_slots(tf, local + i * R_) - b[i];
            }
            if (dd != 0) d += m.target_weight(j) * static_cast<double>(dd);
            continue;
        }
        bool changed = false;
        for (int i = 0; i < n_; ++i) {
            tmp[i] = b[i];
            if ((touched >> i) & 1U) {
                tmp[i] = m.node_slots(tf, local + i * R_);
                changed |= tmp[i] != b[i];
            }
        }
        // Same capacity vector, same VMCAP: skip the evaluator (adds exactly 0).
        if (changed) d += m.target_weight(j) * static_cast<double>(ev(tmp) - s.capacity(host_, j));
    }
    return d;
}

}  // namespace vmcap
