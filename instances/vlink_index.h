#pragma once
/**
 * @file vlink_index.h
 * Flat (CSR) indexes of a snapshot's vlinks and network, built once and shared read-only: the
 * vlinks of every VM and the hosts under every switch. What proposals need to draw destinations
 * near a VM's vlink peers (moves/migrate.h) without a pointer-chasing vector of vectors per VM.
 */
#include <cstdint>
#include <span>
#include <vector>

#include "instances/problem.h"

namespace vmcap {

class VlinkIndex {
public:
    /** For problem.vlinks and problem.network (both may be empty). O(VMs + vlinks + hosts). */
    explicit VlinkIndex(const Problem& problem);

    /** Indices into Problem::vlinks of the vlinks with VM `vm` at one end. O(1). */
    std::span<const int> vlinks_of(int vm) const { return {vlink_.data() + vm_offset_[vm], vlink_.data() + vm_offset_[vm + 1]}; }
    /** The other ends of `vm`'s vlinks, aligned with vlinks_of(vm): the peer VM if `vm` is the
     *  vlink's first end (Vlink::a), else ~peer (negative): the vlink's orientation (loads do not
     *  depend on it: both of its flows are routed). O(1). */
    std::span<const int> peers_of(int vm) const { return {peer_.data() + vm_offset_[vm], peer_.data() + vm_offset_[vm + 1]}; }
    /** Bandwidth of each of `vm`'s vlinks (Mbps), aligned with vlinks_of(vm). O(1). */
    std::span<const std::int64_t> mbps_each(int vm) const { return {mbps_.data() + vm_offset_[vm], mbps_.data() + vm_offset_[vm + 1]}; }
    /** Prefetch hint: starts loading `vm`'s total bandwidth and the first lines of its peers and
     *  bandwidths (reads its offset). O(1). */
    void prefetch(int vm) const {
        __builtin_prefetch(vm_mbps_.data() + vm);
        const std::uint32_t off = vm_offset_[vm];
        __builtin_prefetch(peer_.data() + off);
        __builtin_prefetch(mbps_.data() + off);
    }
    /** Prefetch hint for mbps_of(vm) only. O(1). */
    void prefetch_total(int vm) const { __builtin_prefetch(vm_mbps_.data() + vm); }
    /** Total bandwidth of `vm`'s vlinks, Mbps. O(1). */
    std::int64_t mbps_of(int vm) const { return vm_mbps_[vm]; }
    /** Hosts attached to switch `sw` (Network::host_switch), in host order; empty without a network. */
    std::span<const int> hosts_on(int sw) const {
        if (sw_offset_.empty()) return {};
        return {sw_host_.data() + sw_offset_[sw], sw_host_.data() + sw_offset_[sw + 1]};
    }

private:
    std::vector<std::uint32_t> vm_offset_;  ///< [vm] .. [vm + 1) in vlink_
    std::vector<int> vlink_;
    std::vector<int> peer_;           ///< aligned with vlink_ (see peers_of)
    std::vector<std::int64_t> mbps_;  ///< aligned with vlink_
    std::vector<std::int64_t> vm_mbps_;
    std::vector<std::uint32_t> sw_offset_;  ///< [switch] .. [switch + 1) in sw_host_
    std::vector<int> sw_host_;
};

}  // namespace vmcap
