#include "moves/migrate.h"

#include "moves/host_scratch.h"
#include "moves/move_cache.h"
#include "moves/proposal.h"

namespace vmcap {

MigrateDelta MigrateMove::evaluate(const SearchState& s) const {
    MigrateDelta out;
    const Vm& orig = s.problem().vms[vm];
    if (!orig.migratable || host == s.host_of(vm)) return out;
    const Insertion ins = best_insertion(s, orig.flavor, host, vm);
    if (ins.embedding < 0) return out;
    out.feasible = true;
    out.embedding = ins.embedding;
    out.delta = removal_delta(s, vm) + ins.delta;
    out.migrations_after = ins.migrations_after;
    return out;
}

namespace {

/** A migrated VM back to its snapshot host (remaps counted as migrations, the VM elsewhere now):
 *  the best of its snapshot nodes (the cached return, which gives the budget slot back and wins
 *  ties, as in best_insertion) and any other placement there (the cached best insertion, which
 *  keeps the VM migrated: count and RAM unchanged, so always within the budget). */
MigrateDelta evaluate_home_cached(const MigrateMove& mv, const SearchState& s, MoveCache& cache) {
    const Problem& p = s.problem();
    const Vm& orig = p.vms[mv.vm];
    MigrateDelta out;
    const MoveCache::Return& ret = cache.return_home(s, mv.vm);
    const bool ret_fits = ret.fits;
    const Score ret_delta = ret.delta;
    const Insertion& ins = cache.insertion(s, orig.flavor, mv.host);
    if (ret_fits && (ins.embedding < 0 || ret_delta >= ins.delta)) {
        // Every placement on the snapshot node set frees the same amounts (one node demand per
        // vNUMA node), so the first one in the list is what best_insertion picks.
        const NodeMask home_mask = snapshot_embedding(p, mv.vm).mask;
        const auto& placements = s.model().evaluator(s.type_of(mv.host), orig.flavor).placements();
        for (std::size_t e = 0; e < placements.size(); ++e)
            if (placements[e].mask == home_mask) {
                out.embedding = static_cast<int>(e);
                break;
            }
        out.delta = cache.removal(s, mv.vm) + ret_delta;
        out.migrations_after = BudgetUse(s, mv.vm).migrations_after(false);  // back on its snapshot nodes
    } else {
        if (ins.embedding < 0) return out;
        out.embedding = ins.embedding;
        out.delta = cache.removal(s, mv.vm) + ins.delta;
        out.migrations_after = BudgetUse(s, mv.vm).migrations_after(true);  // other nodes of its snapshot host: a remap that counts
    }
    out.feasible = out.embedding >= 0;
    return out;
}

}  // namespace

MigrateDelta MigrateMove::evaluate_at_origin(const SearchState& s, MoveCache& cache) const {
    if (s.migratable(vm) && s.problem().constraints.remap_counts_as_migration && s.host_of(vm) != host)
        return evaluate_home_cached(*this, s, cache);
    return evaluate(s);
}

int MigrateMove::relocations(const SearchState& s, const MigrateDelta& d, Relocation* out) const {
    out[0] = Relocation{vm, s.host_of(vm), host, s.model().evaluator(s.type_of(host), s.flavor_of(vm)).placements()[d.embedding].mask};
    return 1;
}

void MigrateMove::apply(SearchState& s, const MigrateDelta& d) const {
    const auto& placements = s.model().evaluator(s.type_of(host), s.flavor_of(vm)).placements();
    s.move(vm, host, placements[d.embedding]);
}

namespace {

/** The peer-draw outcome of a proposal for VM w: with probability 1 / kPeerDraw when w has vlinks,
 *  a peer drawn in proportion to bandwidth (its record prefetched), else -1. */
int peer_outcome(const SearchState& s, const VlinkIndex& vi, int w, Rng& rng) {
    if (vi.mbps_of(w) == 0 || rng.below(MigrateMove::kPeerDraw) != 0) return -1;
    const int q = draw_peer(vi, w, rng);
    s.prefetch_vm(q);
    return q;
}

}  // namespace

bool MigrateMove::propose(ProposalContext& ctx, MigrateMove& mv) {
    const SearchState& s = ctx.state;
    Rng& rng = ctx.rng;
    const VlinkIndex* vi = s.model().vlink_index();
    int peer = -1;  // a vlink peer to look near, or -1
    int vm = -1;    // an already migrated VM, 1 in 8
    if (!s.migrated_vms().empty() && rng.below(8) == 0) vm = ctx.random_migrated(false);
    if (vm >= 0) {
        mv.vm = vm;
        if (rng.below(2) == 0 && s.origin_of(mv.vm) != s.host_of(mv.vm) && ctx.in_region(s.origin_of(mv.vm))) {
            mv.host = s.origin_of(mv.vm);  // home, on the best nodes there
            return true;
        }
        if (vi != nullptr) peer = peer_outcome(s, *vi, mv.vm, rng);
    } else {
        Proposal& pr = ctx.proposal;
        const auto& movable = ctx.movable;
        const std::size_t n = movable.size();
        mv.vm = movable[pr.cursor];
        if (vi != nullptr) {
            // The sweep's peer draws are made kPeerAhead steps early: the drawn peer's record
            // (a random VM) arrives from memory while the proposals in between run.
            if (!pr.peers_primed) {
                for (int i = 0; i < Proposal::kPeerAhead; ++i)
                    pr.peer_ahead[(pr.sweep_steps + static_cast<std::uint64_t>(i)) % Proposal::kPeerAhead] =
                        peer_outcome(s, *vi, movable[(pr.cursor + static_cast<std::size_t>(i)) % n], rng);
                pr.peers_primed = true;
            }
            int& slot = pr.peer_ahead[pr.sweep_steps % Proposal::kPeerAhead];
            peer = slot;
            slot = peer_outcome(s, *vi, movable[(pr.cursor + Proposal::kPeerAhead) % n], rng);
            vi->prefetch(movable[(pr.cursor + 2 * Proposal::kPeerAhead) % n]);
            ++pr.sweep_steps;
        }
        if (++pr.cursor == n) pr.cursor = 0;
    }
    const int cur = s.host_of(mv.vm);
    const int f = s.flavor_of(mv.vm);
    // Near a vlink peer (StarNetLA's "savings" ranking, seed 003 digest §4.5, §8.1.6, as a
    // distribution): a peer drawn with probability proportional to its vlink's bandwidth, so a
    // host is drawn in proportion to the bandwidth the VM exchanges with VMs on it; then that host
    // or, half of the time, a random host under the same ToR. No draw without vlinks.
    if (peer >= 0) {
        const Problem& p = s.problem();
        int h = s.host_of(peer);
        if (rng.below(2) == 0) {
            const auto rack = vi->hosts_on(p.network.host_switch[h]);
            h = rack[rng.below(rack.size())];
        }
        if (h != cur) {
            mv.host = h;
            return true;
        }
    }
    if (ctx.has_destinations(f) && rng.below(2) == 0) {
        const int h = ctx.listed_destination(f);
        if (h != cur) {
            mv.host = h;
            return true;
        }
    }
    mv.host = ctx.random_host_except(cur);
    return true;
}

}  // namespace vmcap
