#include "evaluators/state/capacity_change.h"

namespace vmcap {

Score capacity_gain_many(const SearchState& state, int host, int type, int n, unsigned touched, const Amount* local) {
    const CapacityModel& m = state.model();
    HostValueMemo* memo = state.value_memo();
    // Many targets: the value after the change from the free amounts alone, over all targets in
    // one target-parallel pass, beats the per-target delta over the touched nodes.
    // The same without per-target caches: under a destination-node rule that counts capacity.
    const bool many = !state.per_target_caches();
    // The host's free amounts after the change (touched nodes from `local`): the memo's key.
    const int R = m.num_resources();
    Amount key[kMaxPNuma * kMaxResources];
    const Amount* f = state.free_of(host);
    for (int i = 0; i < n; ++i) {
        const Amount* src = (touched >> i & 1U) != 0 ? local + i * R : f + i * R;
        for (int r = 0; r < R; ++r) key[i * R + r] = src[r];
    }
    const Score after = HostValueMemo::value_or(memo, type, key, n * R, [&] {
        return many ? m.host_value(type, key) : state.host_value(host) + capacity_gain_direct(state, host, type, n, touched, local);
    });
    return after - state.host_value(host);
}

}  // namespace vmcap
