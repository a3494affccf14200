#include "optimizer/search/greedy.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "moves/host_scratch.h"
#include "moves/migrate.h"
#include "moves/move.h"
#include "moves/return_move.h"
#include "moves/rng.h"

namespace vmcap {

namespace {

constexpr Score kNone = std::numeric_limits<Score>::min();  // nothing fits / not a candidate
constexpr std::uint64_t kRuinStream = 0x52554E;             // the ruins' Rng stream (seed, this)
/** The most a ruin gives back, as a share of the migrated VMs (uniform from 1 to this share):
 *  measured against 0.02, 0.1, 0.15, 0.2 and 0.3 (docs/performance.md, "Ruin and recreate";
 *  0.1 at equal time is within a seed's spread of it). */
constexpr double kRuinShare = 0.05;
/** A ruin's size is drawn from at least 1..this many room-step sizes (params.room_steps), whatever
 *  5% of the migrated VMs is: at small budgets 5% is a few VMs, too few to give back what one
 *  room step of the most evictions needs, so the ruins could only shuffle single migrations.
 *  Measured against floors of 1, 4, 8, 32 and 64 on random 50- and 100-host cuts of the Huawei
 *  1,000-host replay at ~1% budgets (docs/performance.md, "A ruin floor"): 2 (16 at K = 8) gains
 *  on 9 of 11 cuts there and loses on none, at up to 3.4x the time (seconds); above 20K migrations
 *  5% is the larger and nothing changes. */
constexpr int kRuinFloorSteps = 2;

/**
 * Tournament tree over n values: argmax() is the index of the largest value, ties to the lowest
 * index (exactly what a left-to-right scan with a strict `>` returns), in O(1); set() is O(log n);
 * argmax_except(i) (the largest over every index but i) is O(log n). Entries equal to kNone are
 * ordinary values (the smallest); -1 stands for "no index" (padding, n == 0).
 */
class ArgMaxTree {
public:
    void build(std::vector<Score> values) {
        val_ = std::move(values);
        n_ = static_cast<int>(val_.size());
        size_ = 1;
        while (size_ < n_) size_ *= 2;
        node_.assign(2 * static_cast<std::size_t>(size_), -1);
        for (int i = 0; i < n_; ++i) node_[size_ + i] = i;
        for (int k = size_ - 1; k >= 1; --k) node_[k] = better(node_[2 * k], node_[2 * k + 1]);
    }
    Score value(int i) const { return val_[i]; }
    void set(int i, Score v) {
        if (val_[i] == v) return;
        val_[i] = v;
        for (int k = (size_ + i) / 2; k >= 1; k /= 2) {
            const int b = better(node_[2 * k], node_[2 * k + 1]);
            if (node_[k] == b && b != i) break;  // the winner above is unchanged and is not i
            node_[k] = b;
        }
    }
    int argmax() const { return n_ == 0 ? -1 : node_[1]; }
    /** The largest value's index over all indices except i (ties: lowest index); -1 if none. */
    int argmax_except(int i) const {
        int best = -1;
        // Walk from leaf i to the root; every sibling subtree on the way covers the other indices.
        for (int k = size_ + i; k > 1; k /= 2) best = better(best, node_[k ^ 1]);
        return best;
    }

private:
    int better(int a, int b) const {
        if (a < 0) return b;
        if (b < 0) return a;
        if (val_[a] != val_[b]) return val_[a] > val_[b] ? a : b;
        return a < b ? a : b;
    }
    std::vector<Score> val_;
    std::vector<int> node_;
    int n_ = 0, size_ = 1;
};

/** A candidate migration of the round: gain g of moving vm to host `to`. Order: larger gain, then
 *  less RAM (the cheaper live migration), then the lower VM index. */
struct Pick {
    Score g = 0;
    Amount ram = 0;
    int vm = -1, to = -1;
    bool beats(const Pick& o) const {
        if (vm < 0) return false;
        if (o.vm < 0) return true;
        if (g != o.g) return g > o.g;
        if (ram != o.ram) return ram < o.ram;
        return vm < o.vm;
    }
};

/**
 * The greedy search's state: the search state, per used flavor a tournament tree of destination
 * gains over hosts and one of source gains over its movable VMs, VMs per host, and the VMs banned
 * until the next applied migration (their exact evaluation disagreed: budget, a rule).
 */
class Greedy {
public:
    Greedy(const CapacityModel& model, const SearchParams& params, SearchResult& res);
    void initial_pass();
    bool should_stop(std::chrono::steady_clock::time_point t0);
    Pick best_pick();
    void take(const Pick& pick);
    const SearchState& state() const { return s; }
    /** Room steps on: every host's best room step estimated. */
    void init_rooms();
    /** The best room step's host after lazy re-estimation (its key in room_key), or -1. */
    int best_room();
    /** Applies host h's room step exactly; false (state restored, h banned) unless the objective
     *  rose by more than `rival` (the best single migration's gain) per migration it added. */
    bool take_room(int h, Score rival);
    Score room_key(int h) const { return rooms.value(h); }
    /** Greedy rounds from the current state until no step gains, the budget is spent, the bound
     *  is met or the clock or an interrupt stops it (res.stopped_by says which). */
    void run(std::chrono::steady_clock::time_point t0, bool rooms_on);
    /** Ruin: up to about `share` of the migrated VMs, or `floor` where that is more (the size is
     *  uniform from 1), related through their hosts (from a random
     *  migrated VM, every migrated VM whose snapshot or current host is one already reached), sent
     *  back to their snapshot placements where these have room (in passes, since one return can
     *  make room for another), whatever the objective says. Returns how many went back. */
    int ruin(Rng& rng, double share, int floor);
    /** Puts the state at `placements` (SearchState::set_placements) and refreshes what the changed
     *  hosts feed: their gains, their VMs' gains and their room steps. */
    void restore(const std::vector<Placement>& placements);

private:
    /** One distinct set of VMs whose eviction makes room on a host, with what of its estimate
     *  depends on that host alone (its residents and free amounts, fixed until the host changes). */
    struct RoomCandidate {
        std::vector<int> evict;   ///< in cover()'s order, as the first (target, placement) giving the set found it
        std::vector<int> sorted;  ///< the same VMs sorted: two placements giving one set are one candidate
        Score host_gain = 0;      ///< the host's exact gain from the evictions (HostScratch::gain)
        std::int64_t added = 0;   ///< migrations the evictions add (VMs not yet migrated)
        Amount ram = 0;           ///< their RAM, MiB
        int copies = 0;           ///< (target, placement) pairs giving the set (evaluations counted per pair, as before)
    };
    void estimate_room(int h);
    /** Host h's room candidates from scratch, in the (target, placement) order of the estimate. */
    void room_candidates(int h, std::vector<RoomCandidate>& out);
    /** Hosts whose VMs changed (outside take/take_room): their gains, VMs' gains and room steps. */
    void touched(const std::vector<int>& hosts);
    /** VM v back to its snapshot placement if that has room (ReturnMove), any delta. */
    bool give_back(int v);
    /** A migratable VM on the host of a room estimate: its node mask, per-node demand and RAM. */
    struct Resident {
        int vm;
        NodeMask mask;
        const Amount* demand;
        Amount ram;
    };
    bool cover(int h, int t, const Embedding& e, const std::vector<Resident>& on, std::vector<int>& out) const;
    void move_vm_lists(int v, int from, int to);
    /** After a change of the state: every VM banned since the last one is a candidate again. */
    void lift_bans();
    /** The best host other than h for VM v's flavor by the trees (-1 if none has room). */
    int room_destination(int v, int h) const;
    void consider(int v, int u, Pick& best) const;
    void refresh_host(int h);
    void refresh_vms(int h);

    const Problem& p;
    const SearchParams& params;
    SearchResult& res;
    SearchState s;
    int H, U;
    std::vector<int> used;        ///< flavors with a migratable VM
    std::vector<int> used_index;  ///< flavor -> index in `used`, or -1
    // Destination gain of one more VM of flavor f on host h (budget ignored here; the chosen move
    // is re-evaluated exactly before it is applied): dst[u] over hosts, one tree per used flavor.
    // Source gain src[v] of taking VM v off its host: one tree per used flavor over its VMs in
    // index order (the key is src[v], or kNone while v is banned).
    std::vector<ArgMaxTree> dst, vms_tree;
    std::vector<std::vector<int>> vms_of;  ///< movable VMs per used flavor, index order
    std::vector<int> pos;                  ///< position of a movable VM in vms_of
    std::vector<int> movable;
    std::vector<Score> src;
    std::vector<std::vector<int>> on_host;
    std::vector<char> banned;  ///< moves whose exact evaluation disagreed (budget)
    std::vector<int> banned_list;
    std::vector<int> top1, top2;
    std::vector<char> restricted;
    std::vector<std::pair<int, Score>> masked;
    std::unique_ptr<HostValueMemo> memo;  ///< attached after the parallel initial pass (one thread from then on)
    // Room steps (params.room_steps > 0): per host the VMs its best step evicts, and a tree of the
    // steps' keys (estimated gain per added migration: the host's exact gain from the evictions
    // plus each evicted VM's best insertion elsewhere, at the trees' state of the estimate).
    std::vector<std::vector<int>> room_evict;
    ArgMaxTree rooms;
    std::vector<int> room_banned;  ///< hosts whose exact step did not pay: re-estimated after the next change
    std::vector<char> room_is_banned;
    std::vector<int> target_order;            ///< targets by weight, largest first
    std::vector<Resident> resident_scratch;   ///< room_candidates' list of the host's VMs (kept to reuse its memory)
    mutable std::vector<char> taken_scratch;  ///< cover(): the residents chosen so far, by position in its list
    // Per host its room candidates, valid until the host changes (refresh_host clears the flag):
    // the covers and the host's gains are the estimate's cost, and the lazy re-estimation, the
    // banned hosts' re-estimation and the ruins call it far more often than hosts change.
    std::vector<std::vector<RoomCandidate>> room_cands;
    std::vector<char> room_cands_valid;
    std::vector<RoomCandidate> room_check;  ///< params.check_every > 0: the from-scratch candidates compared
};

Greedy::Greedy(const CapacityModel& model, const SearchParams& params_, SearchResult& res_)
    : p(model.problem()),
      params(params_),
      res(res_),
      s(model),
      H(static_cast<int>(p.hosts.size())),
      used_index(p.flavors.size(), -1),
      pos(p.vms.size(), -1),
      src(p.vms.size(), 0),
      on_host(p.hosts.size()),
      banned(p.vms.size(), 0) {
    if (!params.start.empty()) s.set_placements(params.start);
    const int F = static_cast<int>(p.flavors.size());
    const int V = static_cast<int>(p.vms.size());
    std::vector<char> flavor_used(F, 0);
    for (const Vm& vm : p.vms)
        if (vm.migratable) flavor_used[vm.flavor] = 1;
    for (int f = 0; f < F; ++f)
        if (flavor_used[f]) used.push_back(f);
    U = static_cast<int>(used.size());
    for (int u = 0; u < U; ++u) used_index[used[u]] = u;
    dst.resize(U);
    vms_tree.resize(U);
    vms_of.resize(U);
    for (int v = 0; v < V; ++v)
        if (p.vms[v].migratable) {
            const int u = used_index[p.vms[v].flavor];
            pos[v] = static_cast<int>(vms_of[u].size());
            vms_of[u].push_back(v);
            movable.push_back(v);
        }
    for (int v : movable) on_host[s.host_of(v)].push_back(v);
    top1.assign(U, -1);
    top2.assign(U, -1);
    restricted.assign(U, 0);
}

/** Every (flavor, host) insertion and every removal, on params.threads threads (each writes its
 *  own slot of tables read only afterwards: deterministic), then the trees. */
void Greedy::initial_pass() {
    std::vector<Score> table(static_cast<std::size_t>(U) * H, kNone);
    tbb::task_arena arena(params.threads);
    arena.execute([&] {
        tbb::parallel_for(tbb::blocked_range<int>(0, H, 64), [&](const tbb::blocked_range<int>& r) {
            for (int h = r.begin(); h < r.end(); ++h)
                for (int u = 0; u < U; ++u) {
                    const Insertion ins = best_insertion(s, used[u], h, -1);
                    table[static_cast<std::size_t>(u) * H + h] = ins.embedding >= 0 ? ins.delta : kNone;
                }
        });
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, movable.size(), 256), [&](const tbb::blocked_range<std::size_t>& r) {
            for (std::size_t i = r.begin(); i < r.end(); ++i) src[movable[i]] = removal_delta(s, movable[i]);
        });
    });
    res.evaluations += static_cast<std::int64_t>(U) * H;
    for (int u = 0; u < U; ++u) {
        dst[u].build(
            std::vector<Score>(table.begin() + static_cast<std::ptrdiff_t>(u) * H, table.begin() + static_cast<std::ptrdiff_t>(u + 1) * H));
        std::vector<Score> keys(vms_of[u].size());
        for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = src[vms_of[u][i]];
        vms_tree[u].build(std::move(keys));
    }
    // From here one thread evaluates the state: the memo may be attached.
    if (params.value_memo) memo = HostValueMemo::make_if_useful(s.model());
    s.use_value_memo(memo.get());
}

/** Interrupt or time limit: sets res.stopped_by and returns true. */
bool Greedy::should_stop(std::chrono::steady_clock::time_point t0) {
    if (params.stop != nullptr && params.stop->load(std::memory_order_relaxed)) {
        res.stopped_by = StopReason::Interrupted;
        return true;
    }
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > params.time_limit_s) {
        res.stopped_by = StopReason::TimeLimit;
        return true;
    }
    return false;
}

/** VM v of used flavor u to its flavor's best host other than its own, if that beats `best`. */
void Greedy::consider(int v, int u, Pick& best) const {
    if (banned[v]) return;
    const int to = (s.host_of(v) == top1[u]) ? top2[u] : top1[u];
    if (to < 0 || dst[u].value(to) == kNone) return;
    const Pick c{src[v] + dst[u].value(to), p.flavors[used[u]].demand[kRamMib], v, to};
    if (c.g > 0 && c.beats(best)) best = c;
}

/**
 * The best (VM, host) pair, exactly as a scan over every movable VM would find it: a VM's best
 * destination is its flavor's best host (top1) unless that is its own host, then the second best
 * (top2); gain = src + dst; VMs not yet migrated are out when the budget has no count or RAM left
 * for them. Per flavor: the best VM off top1 from its tree (the VMs on top1 masked), the VMs on
 * top1 one by one; a flavor without budget left: the migrated VMs one by one. O(flavors x (log
 * hosts + log VMs + VMs on top1) + migrated VMs). A pick with vm < 0: no improving pair.
 */
Pick Greedy::best_pick() {
    const Amount ram_left = p.constraints.max_migrated_ram_mib - s.migrated_ram_mib();
    const bool count_left = s.migrations() < p.constraints.max_migrations;
    Pick best;
    best.g = 0;
    for (int u = 0; u < U; ++u) {
        const int h1 = dst[u].argmax();
        top1[u] = top2[u] = -1;
        if (h1 < 0 || dst[u].value(h1) == kNone) continue;
        top1[u] = h1;
        top2[u] = dst[u].argmax_except(h1);
        restricted[u] = !count_left || p.flavors[used[u]].demand[kRamMib] > ram_left;
        if (restricted[u]) continue;
        for (int v : on_host[h1]) {  // VMs of this flavor on top1: to top2, and masked below
            if (used_index[p.vms[v].flavor] != u) continue;
            consider(v, u, best);
            masked.emplace_back(pos[v], vms_tree[u].value(pos[v]));
            vms_tree[u].set(pos[v], kNone);
        }
        const int i = vms_tree[u].argmax();
        if (i >= 0 && vms_tree[u].value(i) != kNone) consider(vms_of[u][i], u, best);
        for (const auto& [i2, key] : masked) vms_tree[u].set(i2, key);
        masked.clear();
    }
    for (int v : s.migrated_vms()) {
        const int u = used_index[p.vms[v].flavor];
        if (top1[u] >= 0 && restricted[u]) consider(v, u, best);
    }
    return best;
}

/** Evaluates `pick` exactly (filters and every objective term): applies it and refreshes the two
 *  hosts' gains and lifts every ban if it improves, else bans its VM until the next migration. */
void Greedy::take(const Pick& pick) {
    const int bv = pick.vm, bh = pick.to;
    const MigrateMove mv{bv, bh};
    const MigrateDelta md = score_move(mv, s);
    ++res.evaluations;
    if (!md.feasible || md.delta <= 0) {
        banned[bv] = 1;
        banned_list.push_back(bv);
        vms_tree[used_index[p.vms[bv].flavor]].set(pos[bv], kNone);
        return;
    }
    const int from = s.host_of(bv);
    mv.apply(s, md);
    ++res.accepted;
    move_vm_lists(bv, from, bh);
    lift_bans();
    refresh_host(from);
    refresh_host(bh);
    refresh_vms(from);
    refresh_vms(bh);
}

void Greedy::lift_bans() {
    for (int v : banned_list) {
        banned[v] = 0;
        vms_tree[used_index[p.vms[v].flavor]].set(pos[v], src[v]);
    }
    banned_list.clear();
}

void Greedy::refresh_host(int h) {
    // Every change of host h's VMs or their nodes passes here (take, take_room and its undo,
    // give_back and restore through touched): its room candidates are stale from now.
    if (!room_cands_valid.empty()) room_cands_valid[static_cast<std::size_t>(h)] = 0;
    for (int u = 0; u < U; ++u) {
        const Insertion ins = best_insertion(s, used[u], h, -1);
        dst[u].set(h, ins.embedding >= 0 ? ins.delta : kNone);
        ++res.evaluations;
    }
}

void Greedy::refresh_vms(int h) {
    for (int v : on_host[h]) {
        src[v] = removal_delta(s, v);
        if (!banned[v]) vms_tree[used_index[p.vms[v].flavor]].set(pos[v], src[v]);
    }
}

void Greedy::init_rooms() {
    const CapacityModel& m = s.model();
    target_order.resize(static_cast<std::size_t>(m.num_targets()));
    std::iota(target_order.begin(), target_order.end(), 0);
    std::stable_sort(target_order.begin(), target_order.end(),
                     [&](int a, int b) { return m.target_weight_units(a) > m.target_weight_units(b); });
    room_evict.assign(static_cast<std::size_t>(H), {});
    room_is_banned.assign(static_cast<std::size_t>(H), 0);
    room_cands.assign(static_cast<std::size_t>(H), {});
    room_cands_valid.assign(static_cast<std::size_t>(H), 0);
    rooms.build(std::vector<Score>(static_cast<std::size_t>(H), kNone));
    for (int h = 0; h < H; ++h) estimate_room(h);
}

/** The fewest VMs of host h, chosen greedily by how much of the shortfall each covers (ties: less
 *  RAM, then the earlier VM), that leave placement e room for one more VM of flavor t; false if
 *  there is no shortfall or more than params.room_steps VMs would be needed. A VM's cover is the
 *  sum over the open (node, resource) entries, in node then resource order, of min(shortfall, its
 *  demand) / the flavor's demand: the entries already covered would add exactly +0.0, so only the
 *  open ones are visited (the same doubles, so the same choices, as a sum over all entries). */
bool Greedy::cover(int h, int t, const Embedding& e, const std::vector<Resident>& on, std::vector<int>& out) const {
    const int R = p.num_resources(), n = s.nodes_of(h);
    const Amount* d = p.flavors[t].node_demand.data();
    const Amount* free = s.free_of(h);
    struct Open {
        int node, r;
        Amount need;
    };
    std::array<Open, static_cast<std::size_t>(kMaxPNuma) * kMaxResources> open;
    int n_open = 0;
    NodeMask open_nodes = 0;  // nodes with an open entry whose resource the flavor demands
    for (int i = 0; i < n; ++i)
        if ((e.mask >> i) & 1U)
            for (int r = 0; r < R; ++r) {
                const Amount need = std::max<Amount>(0, d[r] - free[i * R + r]);
                if (need == 0) continue;
                open[static_cast<std::size_t>(n_open++)] = Open{i, r, need};
                if (d[r] > 0) open_nodes |= static_cast<NodeMask>(1U << i);
            }
    if (n_open == 0) return false;
    out.clear();
    taken_scratch.assign(on.size(), 0);
    while (n_open > 0) {
        if (static_cast<int>(out.size()) >= params.room_steps) return false;
        int best = -1;
        double best_cover = 0.0;
        Amount best_ram = 0;
        for (int k = 0; k < static_cast<int>(on.size()); ++k) {
            const Resident& o = on[static_cast<std::size_t>(k)];
            // A VM off e's nodes or off every open node covers 0: never chosen.
            const NodeMask both = o.mask & e.mask;
            if ((both & open_nodes) == 0 || taken_scratch[static_cast<std::size_t>(k)]) continue;
            double c = 0.0;
            for (int q = 0; q < n_open; ++q) {
                const Open& x = open[static_cast<std::size_t>(q)];
                if (((both >> x.node) & 1U) && d[x.r] > 0)
                    c += static_cast<double>(std::min(x.need, o.demand[x.r])) / static_cast<double>(d[x.r]);
            }
            if (c > best_cover || (c > 0.0 && c == best_cover && o.ram < best_ram)) {
                best = k;
                best_cover = c;
                best_ram = o.ram;
            }
        }
        if (best < 0) return false;
        const Resident& o = on[static_cast<std::size_t>(best)];
        out.push_back(o.vm);
        taken_scratch[static_cast<std::size_t>(best)] = 1;
        const NodeMask both = o.mask & e.mask;
        int kept = 0;
        open_nodes = 0;
        for (int q = 0; q < n_open; ++q) {
            Open x = open[static_cast<std::size_t>(q)];
            if ((both >> x.node) & 1U) x.need = std::max<Amount>(0, x.need - o.demand[x.r]);
            if (x.need == 0) continue;
            open[static_cast<std::size_t>(kept++)] = x;
            if (d[x.r] > 0) open_nodes |= static_cast<NodeMask>(1U << x.node);
        }
        n_open = kept;
    }
    return true;
}

/** Every distinct eviction set cover() gives on host h over the targets (largest weight first)
 *  and their placements, with the host's exact gain from it. A set a later (target, placement)
 *  gives again only counts a copy: its estimate and key would be the first's, and a key wins
 *  only when strictly larger, so the first of equal sets is the one a scan over all would keep. */
void Greedy::room_candidates(int h, std::vector<RoomCandidate>& out) {
    const CapacityModel& m = s.model();
    out.clear();
    std::vector<int> ev, key;
    HostScratch sc;
    std::vector<Resident>& on = resident_scratch;
    on.clear();
    for (int v : on_host[h]) {
        const Flavor& fl = p.flavors[p.vms[v].flavor];
        on.push_back(Resident{v, s.mask_of(v), fl.node_demand.data(), fl.demand[kRamMib]});
    }
    for (int j : target_order) {
        if (m.target_weight_units(j) <= 0) continue;
        const int t = m.target_flavor(j);
        const auto& embs = m.evaluator(s.type_of(h), t).placements();
        for (int x = 0; x < static_cast<int>(embs.size()); ++x) {
            if (!cover(h, t, embs[static_cast<std::size_t>(x)], on, ev)) continue;
            key = ev;
            std::sort(key.begin(), key.end());
            const auto same = std::find_if(out.begin(), out.end(), [&](const RoomCandidate& c) { return c.sorted == key; });
            if (same != out.end()) {
                ++same->copies;
                continue;
            }
            RoomCandidate c;
            c.evict = ev;
            c.sorted = key;
            c.copies = 1;
            sc.load(s, h);
            for (int v : ev) {
                if (!s.is_migrated(v)) {
                    ++c.added;
                    c.ram += p.flavors[p.vms[v].flavor].demand[kRamMib];
                }
                sc.release(p.flavors[p.vms[v].flavor], s.pnuma_of(v));
            }
            c.host_gain = sc.gain(s);
            out.push_back(std::move(c));
        }
    }
}

/** Host h's best room step by key (est per added migration): its candidates (cached while the
 *  host is unchanged) priced at the current trees and budget. */
void Greedy::estimate_room(int h) {
    const auto hh = static_cast<std::size_t>(h);
    if (!room_cands_valid[hh]) {
        room_candidates(h, room_cands[hh]);
        room_cands_valid[hh] = 1;
    } else if (params.check_every > 0) {
        room_candidates(h, room_check);
        const auto same = [](const RoomCandidate& a, const RoomCandidate& b) {
            return a.evict == b.evict && a.host_gain == b.host_gain && a.added == b.added && a.ram == b.ram && a.copies == b.copies;
        };
        if (!std::equal(room_check.begin(), room_check.end(), room_cands[hh].begin(), room_cands[hh].end(), same))
            throw std::logic_error("greedy room steps: host " + std::to_string(h) +
                                   "'s cached room candidates differ from a recomputation (a change of the host was missed)");
    }
    const std::int64_t count_left = p.constraints.max_migrations - s.migrations();
    const Amount ram_left = p.constraints.max_migrated_ram_mib - s.migrated_ram_mib();
    const std::vector<RoomCandidate>& cands = room_cands[hh];
    int best = -1;
    Score best_key = kNone;
    for (int i = 0; i < static_cast<int>(cands.size()); ++i) {
        const RoomCandidate& c = cands[static_cast<std::size_t>(i)];
        if (c.added > count_left || c.ram > ram_left) continue;
        Score est = 0;
        bool ok = true;
        for (int v : c.evict) {
            const int to = room_destination(v, h);
            if (to < 0) {
                ok = false;
                break;
            }
            est += dst[used_index[p.vms[v].flavor]].value(to);
        }
        if (!ok) continue;
        est += c.host_gain;
        res.evaluations += c.copies;
        if (est <= 0) continue;
        const Score key = est / std::max<std::int64_t>(1, c.added);
        if (key > best_key) {
            best_key = key;
            best = i;
        }
    }
    if (best >= 0)
        room_evict[hh] = cands[static_cast<std::size_t>(best)].evict;
    else
        room_evict[hh].clear();
    rooms.set(h, room_is_banned[hh] ? kNone : best_key);
}

void Greedy::run(std::chrono::steady_clock::time_point t0, bool rooms_on) {
    res.stopped_by = StopReason::NoImprovingMove;
    while (!should_stop(t0)) {
        // At the bound no migration has a positive gain: stop (and say why) without a last scan.
        if (params.bound_score && s.objective() >= *params.bound_score) {
            res.stopped_by = StopReason::ProvenOptimal;
            break;
        }
        const Pick best = best_pick();
        if (rooms_on) {
            const int h = best_room();
            if (h >= 0 && (best.vm < 0 || room_key(h) > best.g)) {
                take_room(h, best.vm < 0 ? 0 : best.g);
                continue;
            }
        }
        if (best.vm < 0) break;
        take(best);
    }
}

void Greedy::touched(const std::vector<int>& hosts) {
    for (int h : hosts) refresh_host(h);
    for (int h : hosts) refresh_vms(h);
    for (int b : room_banned) room_is_banned[static_cast<std::size_t>(b)] = 0;
    for (int b : room_banned) estimate_room(b);
    room_banned.clear();
    for (int h : hosts) estimate_room(h);
}

bool Greedy::give_back(int v) {
    const ReturnMove rm{v};
    const ReturnDelta d = score_move(rm, s);
    ++res.evaluations;
    if (!d.feasible) return false;
    const int from = s.host_of(v), to = s.origin_of(v);
    rm.apply(s, d);
    lift_bans();
    if (from == to) {
        touched({from});
    } else {
        move_vm_lists(v, from, to);
        touched({from, to});
    }
    return true;
}

int Greedy::ruin(Rng& rng, double share, int floor) {
    std::vector<int> mig = s.migrated_vms();
    if (mig.empty()) return 0;
    std::sort(mig.begin(), mig.end());
    const int m = static_cast<int>(mig.size());
    const auto most = std::max<std::uint64_t>({1, static_cast<std::uint64_t>(share * m), static_cast<std::uint64_t>(std::max(floor, 0))});
    const int q = 1 + static_cast<int>(rng.below(most));
    // The migrated VMs by host (snapshot and current), the hosts reached in order, breadth first.
    std::vector<std::vector<int>> by_host(static_cast<std::size_t>(H));
    for (int v : mig) {
        by_host[static_cast<std::size_t>(s.origin_of(v))].push_back(v);
        if (s.host_of(v) != s.origin_of(v)) by_host[static_cast<std::size_t>(s.host_of(v))].push_back(v);
    }
    std::vector<char> reached(static_cast<std::size_t>(H), 0), picked(p.vms.size(), 0);
    std::vector<int> hosts, pick;
    const auto reach = [&](int h) {
        if (!reached[static_cast<std::size_t>(h)]) {
            reached[static_cast<std::size_t>(h)] = 1;
            hosts.push_back(h);
        }
    };
    const int v0 = mig[static_cast<std::size_t>(rng.below(static_cast<std::uint64_t>(m)))];
    reach(s.origin_of(v0));
    reach(s.host_of(v0));
    for (std::size_t k = 0; k < hosts.size() && static_cast<int>(pick.size()) < q; ++k)
        for (int v : by_host[static_cast<std::size_t>(hosts[k])]) {
            if (picked[v] || static_cast<int>(pick.size()) >= q) continue;
            picked[v] = 1;
            pick.push_back(v);
            reach(s.origin_of(v));
            reach(s.host_of(v));
        }
    int back = 0;
    for (bool progress = true; progress;) {
        progress = false;
        for (int& v : pick)
            if (v >= 0 && give_back(v)) {
                v = -1;
                ++back;
                progress = true;
            }
    }
    return back;
}

void Greedy::restore(const std::vector<Placement>& placements) {
    std::vector<int> vms = s.displaced_vms();
    for (const Placement& x : placements) vms.push_back(x.vm);
    std::sort(vms.begin(), vms.end());
    vms.erase(std::unique(vms.begin(), vms.end()), vms.end());
    // Only the VMs whose (host, pNUMA nodes) change touch their hosts.
    std::vector<int> from(vms.size()), hosts;
    std::vector<std::array<std::uint8_t, kMaxVNuma>> nodes(vms.size());
    for (std::size_t i = 0; i < vms.size(); ++i) {
        from[i] = s.host_of(vms[i]);
        std::copy_n(s.pnuma_of(vms[i]), kMaxVNuma, nodes[i].begin());
    }
    s.set_placements(placements);
    for (std::size_t i = 0; i < vms.size(); ++i) {
        const int to = s.host_of(vms[i]);
        if (to == from[i] && std::equal(nodes[i].begin(), nodes[i].end(), s.pnuma_of(vms[i]))) continue;
        hosts.push_back(from[i]);
        hosts.push_back(to);
        if (to != from[i]) move_vm_lists(vms[i], from[i], to);
    }
    std::sort(hosts.begin(), hosts.end());
    hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
    lift_bans();
    touched(hosts);
}

int Greedy::best_room() {
    // Lazy: a host's key was estimated against the trees of its time; re-estimate the top one
    // until it stays on top (a key only goes stale through other hosts' changes).
    for (int guard = 0; guard < H; ++guard) {
        const int h = rooms.argmax();
        if (h < 0 || rooms.value(h) == kNone) return -1;
        const Score before = rooms.value(h);
        estimate_room(h);
        if (rooms.value(h) == before) return h;
        const int next = rooms.argmax_except(h);
        if (rooms.value(h) != kNone && (next < 0 || rooms.value(h) >= rooms.value(next))) return h;
    }
    return -1;
}

int Greedy::room_destination(int v, int h) const {
    const int u = used_index[p.vms[v].flavor];
    int to = dst[u].argmax();
    if (to == h) to = dst[u].argmax_except(h);
    return to < 0 || dst[u].value(to) == kNone ? -1 : to;
}

void Greedy::move_vm_lists(int v, int from, int to) {
    auto& src_list = on_host[from];
    src_list.erase(std::find(src_list.begin(), src_list.end(), v));
    on_host[to].push_back(v);
}

bool Greedy::take_room(int h, Score rival) {
    const std::vector<int> evict = room_evict[static_cast<std::size_t>(h)];
    const Score before = s.objective();
    const std::int64_t migrations_before = s.migrations();
    const std::vector<Placement> saved = s.displaced_placements();
    std::vector<std::pair<int, int>> moved;  // (vm, destination)
    bool ok = true;
    for (int v : evict) {
        const int to = room_destination(v, h);
        if (to < 0) {
            ok = false;
            break;
        }
        const MigrateMove mv{v, to};
        const MigrateDelta md = score_move(mv, s);
        ++res.evaluations;
        if (!md.feasible) {
            ok = false;
            break;
        }
        mv.apply(s, md);
        move_vm_lists(v, h, to);
        moved.emplace_back(v, to);
        refresh_host(to);
    }
    const Score gain = s.objective() - before;
    const bool pays = ok && gain > 0 && gain / std::max<std::int64_t>(1, s.migrations() - migrations_before) > rival;
    if (!pays) {
        s.set_placements(saved);
        for (auto it = moved.rbegin(); it != moved.rend(); ++it) move_vm_lists(it->first, it->second, h);
        for (const auto& [v, to] : moved) refresh_host(to);  // refreshed for the applied state above
    } else {
        res.accepted += static_cast<std::int64_t>(moved.size());
        lift_bans();
    }
    refresh_host(h);
    refresh_vms(h);
    for (const auto& [v, to] : moved) refresh_vms(to);
    if (!pays) {
        room_is_banned[static_cast<std::size_t>(h)] = 1;
        room_banned.push_back(h);
        rooms.set(h, kNone);
        return false;
    }
    for (int b : room_banned) room_is_banned[static_cast<std::size_t>(b)] = 0;
    estimate_room(h);
    for (const auto& [v, to] : moved) estimate_room(to);
    for (int b : room_banned) estimate_room(b);
    room_banned.clear();
    return true;
}

}  // namespace

SearchResult greedy(const CapacityModel& model, const SearchParams& params) {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const Problem& p = model.problem();
    SearchResult res;
    Greedy g(model, params, res);
    res.objective_before = g.state().objective_value();
    params.validate();
    res.stopped_by = StopReason::NoImprovingMove;
    g.initial_pass();
    const bool rooms = params.room_steps > 0 && model.num_targets() <= kMaxRoomTargets;
    if (rooms) g.init_rooms();
    g.run(t0, rooms);
    const SearchState& s = g.state();
    res.best = s.displaced_placements();
    res.score_best = s.objective();
    const auto searching = [&] { return res.stopped_by == StopReason::NoImprovingMove || res.stopped_by == StopReason::BudgetSpent; };
    if (rooms && params.ruin_iterations > 0 && searching()) {
        // Ruin and recreate (SearchParams::ruin_iterations): from the best state so far, related
        // migrations given back, then greedy again; kept when not worse (plateaus are crossed).
        Rng rng(params.seed, kRuinStream);
        std::vector<Placement> cur = res.best;
        Score cur_score = res.score_best;
        const auto r0 = Clock::now();
        for (std::int64_t it = 0; it < params.ruin_iterations && searching(); ++it) {
            if (std::chrono::duration<double>(Clock::now() - r0).count() > params.ruin_time_limit_s) {
                res.ruins_cut = true;
                break;
            }
            g.ruin(rng, kRuinShare, kRuinFloorSteps * params.room_steps);
            g.run(t0, true);
            ++res.ruins;
            if (s.objective() >= cur_score) {
                if (s.objective() > res.score_best) {
                    res.best = s.displaced_placements();
                    res.score_best = s.objective();
                    ++res.ruins_improving;
                }
                cur = s.displaced_placements();
                cur_score = s.objective();
            } else {
                g.restore(cur);
            }
        }
        if (res.stopped_by == StopReason::TimeLimit) res.ruins_cut = true;  // the clock ended them too
        if (searching()) res.stopped_by = StopReason::NoImprovingMove;
        if (s.objective() != res.score_best) g.restore(res.best);
    }
    res.objective_best = s.objective_value();
    res.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (res.stopped_by == StopReason::NoImprovingMove && s.migrations() >= p.constraints.max_migrations)
        res.stopped_by = StopReason::BudgetSpent;
    return res;
}

}  // namespace vmcap
