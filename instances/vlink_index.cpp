#include "instances/vlink_index.h"

namespace vmcap {

VlinkIndex::VlinkIndex(const Problem& p) : vm_offset_(p.vms.size() + 1, 0), vm_mbps_(p.vms.size(), 0) {
    for (const Vlink& v : p.vlinks) {
        ++vm_offset_[v.a + 1];
        ++vm_offset_[v.b + 1];
        vm_mbps_[v.a] += v.mbps;
        vm_mbps_[v.b] += v.mbps;
    }
    for (std::size_t i = 1; i < vm_offset_.size(); ++i) vm_offset_[i] += vm_offset_[i - 1];
    vlink_.resize(vm_offset_.back());
    peer_.resize(vm_offset_.back());
    mbps_.resize(vm_offset_.back());
    std::vector<std::uint32_t> fill(vm_offset_.begin(), vm_offset_.end() - 1);
    for (std::size_t e = 0; e < p.vlinks.size(); ++e) {
        const Vlink& v = p.vlinks[e];
        const std::uint32_t ia = fill[v.a]++, ib = fill[v.b]++;
        vlink_[ia] = vlink_[ib] = static_cast<int>(e);
        peer_[ia] = v.b;
        peer_[ib] = ~v.a;
        mbps_[ia] = mbps_[ib] = v.mbps;
    }
    if (!p.network.present()) return;
    sw_offset_.assign(p.network.switches.size() + 1, 0);
    for (int sw : p.network.host_switch) ++sw_offset_[sw + 1];
    for (std::size_t i = 1; i < sw_offset_.size(); ++i) sw_offset_[i] += sw_offset_[i - 1];
    sw_host_.resize(sw_offset_.back());
    std::vector<std::uint32_t> at(sw_offset_.begin(), sw_offset_.end() - 1);
    for (std::size_t h = 0; h < p.network.host_switch.size(); ++h) sw_host_[at[p.network.host_switch[h]]++] = static_cast<int>(h);
}

}  // namespace vmcap
