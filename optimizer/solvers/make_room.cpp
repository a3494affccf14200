#include "optimizer/solvers/make_room.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "evaluators/state/capacity_change.h"
#include "evaluators/state/capacity_model.h"
#include "optimizer/plan/plan.h"
#include "optimizer/search/greedy.h"
#include "optimizer/solvers/cluster_now.h"

namespace vmcap {

namespace {

/** Ranking by capacity, under the free rule: an upper bound on what a plan leaves (Search::
 *  plan_value's order) from a host's free amounts with the shares of the VMs that leave it freed
 *  (a plan only gives that host less; every other host it changes only loses room, or for a
 *  chain's host see Search::run_capacity). `own`: the change of the flavor's VMCAP there; `w`: the
 *  weighted capacity change there with the flavor's VM placed best, `w_without` without it;
 *  `fits`: the flavor fits in those amounts. */
struct Bound {
    Count own = 0;
    Score w = 0, w_without = 0;
    bool fits = false;
};

/** A VM that might move: its index, flavor, pNUMA nodes now and RAM (MiB). */
struct Mover {
    int vm = -1, flavor = -1;
    NodeMask mask = 0;
    Amount ram = 0;
    bool remap = false;  ///< another placement on its host has room, its own share counted free (free rule)
    /** For a single: the first placement (index order) on its host it can be remapped to so that
     *  the flavor then fits there, -1 if none (always under a rule that fixes nodes). */
    int remap_at = -1;
    /** Ranking by capacity: for a single, the Bound of its host with it lifted; for the first VM of
     *  a shuffle, with both lifted and the single remapped (componentwise the largest over the
     *  single's placements that leave room for the flavor: Search::find_shuffles) (for the flavor
     *  of the HostMovers it is listed in). */
    Bound ub;
};

/** Two migratable VMs on a host whose removal together lets the flavor fit (neither alone does),
 *  m[0].vm < m[1].vm; `b_after_a`: once m[0] has left, m[1] could be remapped on the host (its
 *  own share counted free), `a_after_b` the other way round: necessary for the second step of a
 *  plan when no other host takes its VM. */
struct Pair {
    std::array<Mover, 2> m;
    bool b_after_a = false, a_after_b = false;
    Bound ub;  ///< ranking by capacity: the Bound of the host with both lifted
};

/**
 * Per host, for one flavor f, what the host alone decides (valid while its host_version is
 * `version`): `singles`, the migratable VMs whose removal alone lets f fit, in (RAM, VM) order;
 * `pairs`, two migratable VMs, neither a single, whose removal together does; `shuffles`, (y, x)
 * with x a single that, once y has left the host, can be remapped on it so that f fits. Ranking
 * by RAM (only run_ram reads them), `pairs` and `shuffles` hold the first of each two kinds of VM
 * alone (find_pairs, find_shuffles); ranking by capacity, all of them.
 */
struct HostMovers {
    std::uint64_t version = 0;
    bool pairs_done = false, shuffles_done = false;
    /** A lower bound on the RAM of the pairs' plans: over the flavor's placements, the least RAM of
     *  two migratable VMs, neither a single, whose vCPU and RAM together cover what the
     *  placement's nodes lack (what a VM frees on them is at most its whole demand); kNoPair when
     *  there can be none. `least_shuffle_ram`, the same for the shuffles: the least single plus
     *  the least migratable VM. */
    Amount least_two_ram = 0, least_shuffle_ram = 0;
    bool bound_done = false;  ///< least_two_ram and least_shuffle_ram computed (on first use)
    /** Ranking by capacity: the singles' Mover::ub computed (Search::single_bounds: only where
     *  the flavor arrives; a host's singles for another flavor serve as a chain's first VMs,
     *  whose Bounds are Search::Z's). */
    bool ubs_done = false;

    std::vector<Mover> singles;
    /** The singles' distinct flavors (`flavors`), each single's index among them (`group`), and
     *  whether one has a remap (remap_at >= 0): a chain's first VMs are the singles another host
     *  takes or that have a remap, decided per flavor (Search::each_mobile_single). */
    std::vector<int> flavors, group;
    bool any_remap = false;
    std::vector<Pair> pairs;
    std::vector<std::array<Mover, 2>> shuffles;
    /** Indices into `pairs` (`shuffles`), ascending: the first of each two kinds of VM (flavor,
     *  node set) in list order, which has the least plan key of those kinds (Search::visit looks
     *  at these alone: the kinds and the host decide whether and how a pair works);
     *  `single_firsts`, the same for `singles` by one kind (Search::chains). */
    std::vector<int> pair_firsts, shuffle_firsts, single_firsts;
    /** Ranking by capacity: the largest (own, w) of the pairs' Bounds (and per run of
     *  `shuffle_runs`, of its shuffles' first VMs' Bounds, with the least RAM of the run's plans):
     *  a host's pairs (a run) whose best cannot be ahead of a plan found are skipped whole. */
    std::pair<Count, Score> pairs_top{std::numeric_limits<Count>::min(), 0};
    /** Ranking by capacity, before the pairs are listed (Search::pair_tops: from the pairs of VM
     *  kinds, what listing them would give): pairs_top, the least RAM of a pair (kNoPair: no
     *  pair), `tops_done` when computed. */
    Amount pairs_least_ram = 0;
    bool tops_done = false;
    std::vector<std::pair<Count, Score>> run_top;
    std::vector<Amount> run_least_ram;
    /** Ranking by capacity, as a chain's first VM: per single (index into `singles`), its Bounds
     *  for an arriving flavor `f` (Search::Z::ub and Z::exact, which depend on this host, the
     *  single and `f` alone), `done` when computed. Built on first use per arriving flavor. */
    struct ChainBounds {
        int f = -1;
        std::vector<char> done;
        std::vector<std::array<Bound, 2>> b;
    };
    std::vector<ChainBounds> chain;
    /** The shuffles in runs: those whose first VM (y) could be remapped on the host first (flavor
     *  -1), then by y's flavor, each run in plan order; [flavor, begin, end). A run of VMs that
     *  cannot be remapped can move only when another host takes their flavor, and then its first
     *  shuffle is the run's best and sure to work. */
    std::vector<std::array<int, 3>> shuffle_runs;
    /** Outside run_plain: the flavors of the y without a remap whose runs are not listed yet
     *  (Search::shuffle_run; listed when visit or run_capacity first finds another host taking
     *  the flavor). */
    std::vector<int> shuffle_pending;
    // (could_move's facts last: the fields every call reads for every host come first, in few
    // cache lines)
    /** The migratable VMs by flavor (Search::could_move): `kinds`, those that are not singles; `ys`,
     *  those that alone free what the host lacks in total for the flavor. Per kind: how many
     *  (`n`), how many could be remapped now (`remap`), and how many could be remapped once some
     *  one VM had left (`help`: with the most any one VM frees on each node, a bound). `x_help`:
     *  a single with no remap of its own could be remapped once some VM had left. `shorts`: per
     *  placement of the flavor, the vCPU and RAM its nodes lack. Built on first use. */
    struct Kind {
        int flavor = -1;
        Amount vcpu = 0, ram = 0;
        int n = 0, remap = 0, help = 0;
    };
    bool kinds_done = false, x_help = false;
    std::vector<Kind> kinds, ys;
    /** Search::could_move's answer for the pairs (-1: none yet) when another host took the flavor
     *  of kinds[i] iff pairs_away[i]: the same answer while those do not change. */
    signed char pairs_could = -1;
    std::vector<char> pairs_away;
    std::vector<std::array<Amount, 2>> shorts;
};

/** Per host, for one flavor arriving there on the state's free amounts: its placement index (-1:
 *  none) and the vCPU and RAM it leaves free on the host; valid at `version`. */
struct Landing {
    std::uint64_t version = 0;
    int placement = -1;
    Amount vcpu_left = 0, ram_left = 0;
    Score gain = 0;  ///< ranking by capacity: the weighted capacity change of the host (Dest::gain)
};

/** A single (HostMovers::singles) that is the first of its kind on its host, as
 *  MakeRoomCache::Impl::Flat lists it: its RAM (MiB), VM, host, flavor, index in its host's
 *  `singles` and whether it has a remap (Mover::remap_at >= 0). */
struct SingleRef {
    Amount ram = 0;
    int vm = -1, host = -1, flavor = -1, index = -1;
    bool remap = false;
};

}  // namespace

/** Per host, whatever the flavor (valid at `version`): its free vCPU and RAM in total and the
 *  most vCPU and RAM one migratable VM there has (`next_*`: the second most, another VM). */
struct HostSums {
    std::uint64_t version = 0;
    Amount free_vcpu = 0, free_ram = 0, most_vcpu = 0, most_ram = 0, next_vcpu = 0, next_ram = 0;
};

struct MakeRoomCache::Impl {
    std::uint64_t serial = 0;
    std::vector<HostSums> sums;                   ///< [host]
    std::vector<std::vector<HostMovers>> movers;  ///< [flavor][host]
    std::vector<std::vector<Landing>> landing;    ///< [flavor][host]
    /** Per flavor: the hosts of Search::top() (best first) when every host's version was at
     *  most `clock`; `valid` false: none computed yet. A later call re-reads only the hosts
     *  whose version is above `clock`. */
    struct Top {
        bool valid = false;
        std::uint64_t clock = 0;
        std::vector<int> hosts;
    };
    std::vector<Top> tops;  ///< [flavor]
    /** Per flavor: the first single of each kind on every host (SingleRef), by the single's
     *  flavor (`of`, each list in no order: its readers keep the least of what they find, and a
     *  flavor fixes the RAM), with the flavors that have one in (RAM, flavor) order
     *  (`flavors`), when every host's version was at most `clock`
     *  (`valid` false: none built yet). A later call re-lists only the hosts whose version is
     *  above `clock`. Read for the arriving flavor: the singles pass and the chains' x
     *  (Search::flat); by flavor, so that the chains skip a flavor whose VMs cannot go where a
     *  first step made room without reading its singles. */
    struct Flat {
        bool valid = false;
        std::uint64_t clock = 0;
        std::vector<std::vector<SingleRef>> of;  ///< [flavor of the single]
        std::vector<int> flavors;
    };
    std::vector<Flat> flat;  ///< [flavor]
    /** Per flavor y, per host (valid at version[host]): the flavors of the first singles of each
     *  kind there for y, a bit set of W words, then a word that is 1 when one of them has a remap
     *  ([host * (W + 1) + i]; Search::mobile_singles). */
    struct ZBits {
        std::vector<std::uint64_t> version, bits;
    };
    std::vector<ZBits> zbits;  ///< [flavor]
    /** Per flavor, per step budget (1, 2): the largest host version when the direct search (by
     *  RAM) last found no plan for that flavor and budget; 0: none. */
    std::vector<std::array<std::uint64_t, 3>> failed;
    /** Per host: the flavors of its migratable VMs, a bit set of `words` words ([host * words +
     *  i]), valid at flavors_version[host]. */
    std::vector<std::uint64_t> flavors_on, flavors_version;
    std::size_t words = 0;
};

MakeRoomCache::MakeRoomCache() : impl(std::make_unique<Impl>()) {}
MakeRoomCache::~MakeRoomCache() = default;

namespace {

/** What of a host's HostMovers a caller needs (each implies the singles). */
enum class Part { Singles, Pairs, Shuffles };

/** HostMovers::least_two_ram of a host where no pair or shuffle can make room. */
constexpr Amount kNoPair = std::numeric_limits<Amount>::max() / 4;

/** Best destinations kept per flavor: more than the hosts a plan of two steps changes (3), so that
 *  the best host not among them is always in the list. */
constexpr int kTop = 4;
/** Search::restrict_to_changed: past this many hosts changed since a flavor's failing call, the
 *  whole search runs again. */
constexpr std::size_t kMaxChanged = 64;

/** Where a VM may go: host, placement index there, and the vCPU and RAM it leaves free on it;
 *  ranking by capacity, `gain`: the weighted capacity change of the host when it arrives (<= 0;
 *  0 otherwise). Better: the larger gain, then the least vCPU left, the least RAM, the lowest index. */
struct Dest {
    int host = -1, placement = -1;
    Amount vcpu_left = 0, ram_left = 0;
    Score gain = 0;
    bool better(const Dest& o) const {
        return std::make_tuple(-gain, vcpu_left, ram_left, host) < std::make_tuple(-o.gain, o.vcpu_left, o.ram_left, o.host);
    }
};

/** A step of a plan: the mover, its source and destination. */
struct Step {
    Mover m;
    int from = -1;
    Dest to;
};

/** Free amounts of the (at most 4) hosts a plan's steps changed, over the state's, in a
 *  fixed buffer (no allocation; a copy copies the hosts it holds only). */
class Overlay {
public:
    explicit Overlay(const SearchState& s) : s_(&s), stride_(kMaxHostNodes * s.model().num_resources()) {}
    Overlay(const Overlay& o) : s_(o.s_), n_(o.n_), stride_(o.stride_), host_(o.host_) {
        std::copy(o.free_.begin(), o.free_.begin() + n_ * stride_, free_.begin());
    }
    Overlay& operator=(const Overlay&) = delete;
    const Amount* get(int h) const {
        for (int i = 0; i < n_; ++i)
            if (host_[static_cast<std::size_t>(i)] == h) return free_.data() + i * stride_;
        return s_->free_of(h);
    }
    Amount* edit(int h) {
        for (int i = 0; i < n_; ++i)
            if (host_[static_cast<std::size_t>(i)] == h) return free_.data() + i * stride_;
        const Amount* f = s_->free_of(h);
        Amount* v = free_.data() + n_ * stride_;
        std::copy(f, f + s_->nodes_of(h) * s_->model().num_resources(), v);
        host_[static_cast<std::size_t>(n_++)] = h;
        return v;
    }
    bool has(int h) const {
        for (int i = 0; i < n_; ++i)
            if (host_[static_cast<std::size_t>(i)] == h) return true;
        return false;
    }
    int size() const { return n_; }
    int host(int i) const { return host_[static_cast<std::size_t>(i)]; }

private:
    /** Nodes a host may have (NodeMask's bits). */
    static constexpr int kMaxHostNodes = 16;
    const SearchState* s_;
    int n_ = 0, stride_;
    std::array<int, 4> host_{};
    std::array<Amount, static_cast<std::size_t>(4 * kMaxHostNodes * kMaxResources)> free_;
};

/** A plan of two steps to check: a then b; `ram` their RAM; `forced`: b goes to a's source. */
struct Two {
    Amount ram = 0;
    int host = -1;  ///< where the arriving VM will fit
    Mover a, b;
    int from_a = -1;
    bool forced = false, both_orders = false;
    /** Listed as a pair (both off `host`, neither forced; run_ram's visit): `b_after`, b has
     *  another placement on the host with room once both have left (Pair::b_after_a in this
     *  order); `a_after`, the same of a. Search::pair_either decides it without trying it. */
    bool pair = false, b_after = false, a_after = false;
    /** The order plans are chosen in: RAM, host, the VMs moved, then the VM that moves first. */
    auto key() const { return std::make_tuple(ram, host, std::min(a.vm, b.vm), std::max(a.vm, b.vm), a.vm); }
};

/** find_shuffles' memo for a single x and a kind of VM y (flavor, node set) on its host: `done`
 *  computed; `ok`: once y has left, x can be remapped so that the flavor fits; y's Mover::remap;
 *  the shuffle's Bound (Mover::ub of its first VM). */
struct ShuffleMemo {
    bool done = false, ok = false, remap = false;
    Bound ub;
};

class Search {
public:
    Search(const OnlineCluster& c, int vm, MakeRoomCache::Impl& cache, const MakeRoomOptions& options = {})
        : opt_(options),
          c_(c),
          s_(c.state()),
          m_(s_.model()),
          p_(s_.problem()),
          R_(p_.num_resources()),
          f_(s_.flavor_of(vm)),
          fixes_(m_.fixes_nodes()),
          cap_(c.placer().values_capacity()),
          cache_(cache),
          top_(p_.flavors.size()),
          top_done_(p_.flavors.size(), 0),
          takers_(p_.flavors.size()),
          flat_done_(p_.flavors.size(), 0) {
        if (cache_.serial != c.serial()) {
            cache_.serial = c.serial();
            cache_.movers.clear();
            cache_.landing.clear();
            cache_.sums.clear();
            cache_.tops.clear();
            cache_.flat.clear();
            cache_.zbits.clear();
            cache_.failed.clear();
            cache_.flavors_on.clear();
            cache_.flavors_version.clear();
        }
        cache_.tops.resize(p_.flavors.size());
        cache_.flat.resize(p_.flavors.size());
        cache_.zbits.resize(p_.flavors.size());
        cache_.failed.resize(p_.flavors.size(), {0, 0, 0});
        cache_.movers.resize(p_.flavors.size());
        cache_.landing.resize(p_.flavors.size());
    }

    /** Whether a VM of the flavor fits somewhere already (run() then returns no plan). */
    bool room_already() { return !top(f_).empty(); }

    /** The same choice as run() without its shortcuts: every candidate listed, sorted in plan
     *  order and tried (make_room_direct_plain). */
    std::vector<Placement> run_plain(int k) {
        plain_ = true;
        k = two_step_budget(k);
        if (cap_) return run_capacity(k);
        if (k <= 0 || room_already()) return {};
        const int H = static_cast<int>(p_.hosts.size());
        std::vector<std::pair<Mover, int>> singles;
        for (int g = 0; g < H; ++g)
            for (const Mover& x : movers(f_, g, Part::Singles).singles) singles.emplace_back(x, g);
        std::sort(singles.begin(), singles.end(), [](const auto& a, const auto& b) {
            return std::make_tuple(a.first.ram, a.second, a.first.vm) < std::make_tuple(b.first.ram, b.second, b.first.vm);
        });
        for (const auto& [x, g] : singles)
            if (one(x, g)) return out();
        if (k < 2) return {};
        std::vector<Two> two;
        for (int g = 0; g < H; ++g) {
            for (const Pair& pr : movers(f_, g, Part::Pairs).pairs) {
                const bool a = movable(pr.m[0], g), b = movable(pr.m[1], g);
                const Amount ram = pr.m[0].ram + pr.m[1].ram;
                if (a || b) two.push_back(a ? Two{ram, g, pr.m[0], pr.m[1], g, false, b} : Two{ram, g, pr.m[1], pr.m[0], g, false, false});
            }
            for (const auto& sh : movers(f_, g, Part::Shuffles).shuffles)
                if (movable(sh[0], g)) two.push_back(Two{sh[0].ram + sh[1].ram, g, sh[0], sh[1], g, false, false});
        }
        std::vector<std::vector<std::pair<Mover, int>>> zs(p_.flavors.size());
        std::vector<char> done(p_.flavors.size(), 0);
        for (const auto& [x, g] : singles) {
            auto& z = zs[static_cast<std::size_t>(x.flavor)];
            if (!done[static_cast<std::size_t>(x.flavor)]) {
                done[static_cast<std::size_t>(x.flavor)] = 1;
                for (int d = 0; d < H; ++d)
                    for (const Mover& m : movers(x.flavor, d, Part::Singles).singles)
                        if (movable(m, d)) z.emplace_back(m, d);
                std::sort(z.begin(), z.end(), [](const auto& a, const auto& b) {
                    return std::make_tuple(a.first.ram, a.first.vm) < std::make_tuple(b.first.ram, b.first.vm);
                });
            }
            for (const auto& [m, d] : z) {
                const Two t{x.ram + m.ram, g, m, x, d, true, false};
                if (d != g && plan_two(t)) {
                    two.push_back(t);
                    break;
                }
            }
        }
        std::sort(two.begin(), two.end(), [](const Two& a, const Two& b) { return a.key() < b.key(); });
        for (const Two& t : two)
            if (try_two(t)) return out();
        return {};
    }

    std::vector<Placement> run(int k) {
        k = two_step_budget(k);
        if (cap_) return run_capacity(k);
        return run_ram(k);
    }

    /** `k` with MakeRoomOptions::second_only_for_copies: plans of two steps only as the upgrade of
     *  a plan of one (ranking by capacity with second_for_copies > 0; run_capacity stops there
     *  without a plan of one), else at most one step. */
    int two_step_budget(int k) const {
        if (opt_.second_only_for_copies && (!cap_ || opt_.second_for_copies <= 0)) return std::min(k, 1);
        return k;
    }

    /** run() ranking by RAM (whatever cap_ says: the order of the destinations aside, which
     *  plans exist does not depend on the ranking).
     *
     *  After a call for the same flavor and budget that found no plan, only the candidates a
     *  host changed since can have made work are looked at (restrict_to_changed): the others
     *  still fail, so the plan is the one the whole search would choose. */
    std::vector<Placement> run_ram(int k) {
        if (k <= 0 || room_already()) return {};
        const int H = static_cast<int>(p_.hosts.size());
        const int kk = std::min(k, 2);
        restrict_to_changed(kk);
        // One step: the single of least (RAM, host, VM) that can move; the first of its kind on
        // its host has the least (RAM, VM) of its kind there (Flat). Whether one can is decided
        // without trying it: a single another host takes always works (that host is
        // unchanged, and its leaving is what lets the flavor fit); one that only a remap on its
        // own host could move works iff its cached remap (remap_at) does.
        // After a failing call (restrict_to_changed) only the singles on hosts of C and those of a
        // rare flavor can move now: the others are not read.
        std::optional<SingleRef> best;
        const auto consider = [&](const SingleRef& x) {
            if (best && std::tie(x.ram, x.host, x.vm) >= std::tie(best->ram, best->host, best->vm)) return;
            if (elsewhere(x.flavor, x.host) || x.remap) best = x;
        };
        const MakeRoomCache::Impl::Flat& fl = flat(f_);
        if (restricted_)
            for (const int c : c_hosts_) {
                if (!may_have_singles(f_, c)) continue;
                const HostMovers& hm = movers(f_, c, Part::Singles);
                for (const int i : hm.single_firsts) consider(ref(hm, i, c));
            }
        for (const int y : fl.flavors) {
            const auto& xs = fl.of[static_cast<std::size_t>(y)];
            if (best && xs.front().ram > best->ram) break;  // flavors in RAM order
            if (restricted_ && !rare_[static_cast<std::size_t>(y)]) continue;
            for (const SingleRef& x : xs)
                if (!restricted_ || !in_c_[static_cast<std::size_t>(x.host)]) consider(x);
        }
        if (best) {
            if (!one(single(f_, *best), best->host)) throw std::logic_error("make_room: a single predicted to move did not");
            return out();
        }
        if (k < 2) return failed(kk);
        // Two steps: pairs, shuffles and chains. Each candidate is decided without trying it when
        // it surely works (its first step to another host, its second then too: the plan's host
        // only gains room) or surely fails (a step with nowhere to go); the rest are tried in
        // order, only those that could beat the best sure one.
        best_sure_ = Two{};
        has_sure_ = false;
        maybe_.clear();
        // Pairs and shuffles host by host: first the hosts whose candidates are listed already
        // (cheap to visit), then the others in order of a lower bound on their plans' RAM
        // (HostMovers::least_two_ram) as far as it lets a plan beat the best sure one, each listed
        // only when its VMs could move now (could_move).
        by_need_.clear();
        const auto offer_host = [&](int g) {
            movers(f_, g, Part::Singles);
            HostMovers& hm = cache_.movers[static_cast<std::size_t>(f_)][static_cast<std::size_t>(g)];
            if (!hm.bound_done) {
                hm.bound_done = true;
                hm.least_two_ram = least_two_ram(f_, g, hm);
            }
            for (const Part part : {Part::Pairs, Part::Shuffles}) {
                const Amount need = part == Part::Pairs ? hm.least_two_ram : hm.least_shuffle_ram;
                if (need == kNoPair || (has_sure_ && need > best_sure_.ram)) continue;
                if (part == Part::Pairs ? hm.pairs_done : hm.shuffles_done)
                    visit(g, part, hm);
                else
                    by_need_.emplace_back(need, g, part);
            }
        };
        if (restricted_)
            for (const int g : targets_) offer_host(g);
        else
            for (int g = 0; g < H; ++g) offer_host(g);
        std::sort(by_need_.begin(), by_need_.end());
        for (const auto& [need, g, part] : by_need_) {
            if (has_sure_ && need > best_sure_.ram) break;
            if (!plain_ && !could_move(g, part)) continue;
            visit(g, part, movers(f_, g, part));
        }
        chains();
        // The maybes' least key that works, then its steps (what sorting them and trying each in
        // turn would give; whether one works is known per TwoKey, so no sort).
        const Two* pick = nullptr;
        for (const Two& t : maybe_) {
            if (has_sure_ && !(t.key() < best_sure_.key())) continue;
            if (pick != nullptr && !(t.key() < pick->key())) continue;
            if (works_two(t)) pick = &t;
        }
        if (pick != nullptr) {
            if (!try_two(*pick)) throw std::logic_error("make_room: a plan found to work did not");
            return out();
        }
        if (has_sure_) {
            if (!try_two(best_sure_)) throw std::logic_error("make_room: a plan predicted to work did not");
            return out();
        }
        return failed(kk);
    }

    /** run_ram found no plan for budget kk: kept, so the next call for the flavor looks only at
     *  what changed (restrict_to_changed). */
    std::vector<Placement> failed(int kk) {
        if (!plain_) cache_.failed[static_cast<std::size_t>(f_)][static_cast<std::size_t>(kk)] = now_;
        return {};
    }

    /**
     * Sets restricted_ (and in_c_, rare_, targets_) for run_ram with budget kk: when the last
     * call for this flavor and budget found no plan, and at most kMaxChanged hosts changed since
     * (C, those whose version is above the one kept by failed()).
     *
     * Why the rest cannot hold a plan: a candidate (a host and the VMs moved off it, or a chain:
     * x off g, z off d first) that works now and uses no host of C, as its host, a chain's d or
     * a step's destination, worked then too (those hosts are as they were; which plans exist
     * does not depend on the ranking), and none did. A step that lands on a host c of C a VM
     * of a flavor w that at least 3 hosts outside C take now (in top(w)) can land on one of
     * them instead, which is neither the plan's host nor the other step's source or destination,
     * and is as it was (a chain's first step: not g, not d). So a candidate that works now has
     * its host in C, or a chain's d in C, or moves a VM of a flavor that some host of C takes
     * and fewer than 3 hosts outside it do (rare_). The search then visits: the singles on
     * hosts of C or of a rare flavor; the pairs and shuffles of the hosts of C and of the hosts
     * with a migratable VM of a rare flavor (targets_); the chains whose x or d is on a host of
     * C or whose z is of a rare flavor. Cost: O(H) version reads, O(|C| x flavors) landings, and
     * O(H) reads of flat bit sets when a flavor is rare.
     */
    void restrict_to_changed(int kk) {
        restricted_ = false;
        const int H = static_cast<int>(p_.hosts.size());
        const std::uint64_t last = cache_.failed[static_cast<std::size_t>(f_)][static_cast<std::size_t>(kk)];
        now_ = 0;
        c_hosts_.clear();
        for (int h = 0; h < H; ++h) {
            const std::uint64_t v = s_.host_version(h);
            now_ = std::max(now_, v);
            if (last > 0 && v > last && c_hosts_.size() <= kMaxChanged) c_hosts_.push_back(h);
        }
        if (plain_ || last == 0 || c_hosts_.size() > kMaxChanged) return;
        restricted_ = true;
        in_c_.assign(static_cast<std::size_t>(H), 0);
        for (const int c : c_hosts_) in_c_[static_cast<std::size_t>(c)] = 1;
        const std::size_t F = p_.flavors.size();
        rare_.assign(F, 0);
        bool any_rare = false;
        any_rare_ = false;
        for (std::size_t w = 0; w < F; ++w) {
            bool taken = false;
            for (const int c : c_hosts_) taken = taken || landing(static_cast<int>(w), c).placement >= 0;
            if (!taken) continue;
            int outside = 0;
            for (const Dest& d : top(static_cast<int>(w))) outside += in_c_[static_cast<std::size_t>(d.host)] ? 0 : 1;
            if (outside < 3) rare_[w] = 1;
            any_rare = any_rare || rare_[w] != 0;
        }
        targets_ = c_hosts_;
        any_rare_ = any_rare;
        if (any_rare) {
            const std::size_t W = (F + 63) / 64;
            rare_bits_.assign(W, 0);
            for (std::size_t w = 0; w < F; ++w)
                if (rare_[w]) rare_bits_[w / 64] |= std::uint64_t{1} << (w % 64);
            for (int g = 0; g < H; ++g) {
                if (in_c_[static_cast<std::size_t>(g)]) continue;
                const std::uint64_t* on = flavors_on(g);
                bool any = false;
                for (std::size_t i = 0; i < W && !any; ++i) any = (on[i] & rare_bits_[i]) != 0;
                if (any) targets_.push_back(g);
            }
            std::sort(targets_.begin(), targets_.end());
        }
    }
    /** Could a candidate with a VM of `flavor` off host g (or a chain's z of that flavor off g)
     *  work now when the last call found none (restrict_to_changed)? Necessary for such a
     *  candidate with no other VM or host of C. */
    bool may_be_new(int g, int flavor) const {
        return !restricted_ || in_c_[static_cast<std::size_t>(g)] != 0 || rare_[static_cast<std::size_t>(flavor)] != 0;
    }
    /** The flavors of the migratable VMs on g (MakeRoomCache::Impl::flavors_on), brought up to
     *  date. O(VMs on g) when g changed. */
    const std::uint64_t* flavors_on(int g) {
        const std::size_t W = (p_.flavors.size() + 63) / 64;
        if (cache_.words != W || cache_.flavors_version.size() != p_.hosts.size()) {
            cache_.words = W;
            cache_.flavors_on.assign(p_.hosts.size() * W, 0);
            cache_.flavors_version.assign(p_.hosts.size(), 0);
        }
        std::uint64_t* on = cache_.flavors_on.data() + static_cast<std::size_t>(g) * W;
        std::uint64_t& v = cache_.flavors_version[static_cast<std::size_t>(g)];
        if (v != s_.host_version(g)) {
            v = s_.host_version(g);
            std::fill(on, on + W, 0);
            for (const OnlineCluster::Resident& x : c_.vms_on(g))
                if (x.migratable)
                    on[static_cast<std::size_t>(x.flavor) / 64] |= std::uint64_t{1} << (static_cast<std::size_t>(x.flavor) % 64);
        }
        return on;
    }

    /** MakeRoomCache::Impl::Flat of `flavor`, brought up to date: O(H) version reads, and the
     *  singles of the hosts changed since listed (all hosts when more than an eighth changed) in
     *  place of theirs, O(entries). */
    const MakeRoomCache::Impl::Flat& flat(int flavor) {
        MakeRoomCache::Impl::Flat& fl = cache_.flat[static_cast<std::size_t>(flavor)];
        if (flat_done_[static_cast<std::size_t>(flavor)]) return fl;
        flat_done_[static_cast<std::size_t>(flavor)] = 1;
        const std::size_t F = p_.flavors.size();
        const int H = static_cast<int>(p_.hosts.size());
        std::uint64_t clock = 0;
        changed_flat_.clear();
        for (int h = 0; h < H; ++h) {
            const std::uint64_t v = s_.host_version(h);
            clock = std::max(clock, v);
            if (fl.valid && v > fl.clock) changed_flat_.push_back(h);
        }
        fl.of.resize(F);
        if (!fl.valid || changed_flat_.size() * 8 > static_cast<std::size_t>(H)) {
            for (auto& l : fl.of) l.clear();
            for (int h = 0; h < H; ++h) add_singles(flavor, h, fl);
        } else if (!changed_flat_.empty()) {
            drop_.assign(static_cast<std::size_t>(H), 0);
            for (const int h : changed_flat_) drop_[static_cast<std::size_t>(h)] = 1;
            for (auto& l : fl.of) std::erase_if(l, [&](const SingleRef& x) { return drop_[static_cast<std::size_t>(x.host)] != 0; });
            for (const int h : changed_flat_) add_singles(flavor, h, fl);
        }
        fl.flavors.clear();
        for (std::size_t y = 0; y < F; ++y)
            if (!fl.of[y].empty()) fl.flavors.push_back(static_cast<int>(y));
        std::sort(fl.flavors.begin(), fl.flavors.end(), [&](int a, int b) {
            return std::make_pair(fl.of[static_cast<std::size_t>(a)].front().ram, a) <
                   std::make_pair(fl.of[static_cast<std::size_t>(b)].front().ram, b);
        });
        fl.valid = true;
        fl.clock = clock;
        return fl;
    }
    void add_singles(int flavor, int h, MakeRoomCache::Impl::Flat& fl) {
        if (!may_have_singles(flavor, h)) return;
        const HostMovers& hm = movers(flavor, h, Part::Singles);
        for (const int i : hm.single_firsts)
            fl.of[static_cast<std::size_t>(hm.singles[static_cast<std::size_t>(i)].flavor)].push_back(ref(hm, i, h));
    }
    /** The SingleRef of hm.singles[i] (host h's). */
    static SingleRef ref(const HostMovers& hm, int i, int h) {
        const Mover& x = hm.singles[static_cast<std::size_t>(i)];
        return SingleRef{x.ram, x.vm, h, x.flavor, i, x.remap_at >= 0};
    }
    /** `out`: the first single of each kind on every host for `flavor` that could move first (a
     *  chain's z): another host takes its flavor, or it has a remap; in no order. Only
     *  the hosts whose singles' flavors (MakeRoomCache::Impl::ZBits, kept per host version)
     *  include one some host takes now, or a remap, are read. O(H) flat reads, plus the singles
     *  of those hosts and of the hosts changed since. */
    void mobile_singles(int flavor, std::vector<SingleRef>& out) {
        const std::size_t F = p_.flavors.size(), W = (F + 63) / 64;
        const int H = static_cast<int>(p_.hosts.size());
        if (!taken_done_) {
            taken_done_ = true;
            taken_bits_.assign(W, 0);
            for (std::size_t w = 0; w < F; ++w)
                if (!top(static_cast<int>(w)).empty()) taken_bits_[w / 64] |= std::uint64_t{1} << (w % 64);
        }
        MakeRoomCache::Impl::ZBits& zb = cache_.zbits[static_cast<std::size_t>(flavor)];
        if (zb.version.size() != static_cast<std::size_t>(H)) {
            zb.version.assign(static_cast<std::size_t>(H), 0);
            zb.bits.assign(static_cast<std::size_t>(H) * (W + 1), 0);
        }
        out.clear();
        for (int d = 0; d < H; ++d) {
            std::uint64_t* bits = zb.bits.data() + static_cast<std::size_t>(d) * (W + 1);  // [W]: a remap
            if (zb.version[static_cast<std::size_t>(d)] != s_.host_version(d)) {
                zb.version[static_cast<std::size_t>(d)] = s_.host_version(d);
                std::fill(bits, bits + W + 1, 0);
                if (may_have_singles(flavor, d)) {
                    const HostMovers& hm = movers(flavor, d, Part::Singles);
                    for (const int i : hm.single_firsts) {
                        const Mover& m = hm.singles[static_cast<std::size_t>(i)];
                        bits[static_cast<std::size_t>(m.flavor) / 64] |= std::uint64_t{1} << (static_cast<std::size_t>(m.flavor) % 64);
                        if (m.remap_at >= 0) bits[W] = 1;
                    }
                }
            }
            bool read = bits[W] != 0;
            for (std::size_t i = 0; i < W && !read; ++i) read = (bits[i] & taken_bits_[i]) != 0;
            if (read) add_mobile_singles(flavor, d, out);
        }
    }
    /** Appends to `out` the first single of each kind on d for `flavor` that could move first
     *  (mobile_singles' test), unsorted. */
    void add_mobile_singles(int flavor, int d, std::vector<SingleRef>& out) {
        const HostMovers& hm = movers(flavor, d, Part::Singles);
        for (const int i : hm.single_firsts) {
            const Mover& m = hm.singles[static_cast<std::size_t>(i)];
            if (m.remap_at >= 0 || elsewhere(m.flavor, d)) out.push_back(ref(hm, i, d));
        }
    }

    /** The Mover a SingleRef of `flavor` names (its host's HostMovers are current: flat()). */
    const Mover& single(int flavor, const SingleRef& x) const {
        return cache_.movers[static_cast<std::size_t>(flavor)][static_cast<std::size_t>(x.host)].singles[static_cast<std::size_t>(x.index)];
    }

    /**
     * Ranking by capacity (cap_): of the plans of the fewest migrations, the one whose plan_value
     * is largest (room for the flavor, then weighted capacity), ties by the order of plans by RAM
     * (Two::key, for one step (RAM, host, VM)).
     * Every candidate that could work is valued: the singles, then the pairs (both orders),
     * shuffles and chains. Outside run_plain, the exact tests the RAM ranking uses skip candidates
     * that cannot work (a single nowhere to go, could_move, may_have_singles, no plan of two steps
     * by run_ram), and under the free rule a single another host takes is valued without trying
     * it and the others are tried in order of their Bound until it falls below the best found.
     */
    std::vector<Placement> run_capacity(int k) {
        if (k <= 0 || room_already()) return {};
        const int H = static_cast<int>(p_.hosts.size());
        // Outside run_plain and under the free rule, candidates are tried in order of an upper
        // bound on what they leave (Bound) until the bound falls below the best plan found.
        const bool prune = !plain_ && !fixes_;
        using Value = std::pair<Count, Score>;
        bool have = false;
        Value best_v{0, 0};
        std::vector<Step> best_steps;
        using Key = std::tuple<Amount, int, int, int, int>;
        Key best_key;
        // (v, key) ranks strictly before (w, key_w): the larger value, then the smaller key.
        const auto ahead = [](const Value& v, const Key& key, const Value& w, const Key& key_w) {
            return v > w || (v == w && key < key_w);
        };
        // With MakeRoomOptions::second_for_copies, once a plan of one step is found, plans of two
        // whose room for the flavor (own) is below floor_own are not taken.
        Count floor_own = std::numeric_limits<Count>::min();
        const auto keep = [&](Value v, const Key& key) {
            if (v.first < floor_own) return;
            if (have && !ahead(v, key, best_v, best_key)) return;
            have = true;
            best_v = v;
            best_key = key;
            best_steps = steps_;
        };
        const auto done = [&]() {
            steps_ = best_steps;
            return have ? out() : std::vector<Placement>{};
        };
        // One step. A single another host takes works, one only a remap could move works iff
        // its cached remap does (run()). Pruning, a single another host takes is valued without
        // trying it: it goes to its flavor's best host other than g (first_other), which only
        // loses room (the flavor's VMCAP there stays 0: it fit nowhere), so the plan leaves its
        // Bound plus that host's gain; the best of those is tried once, at the end.
        cands_.clear();
        const Mover* sure = nullptr;
        int sure_g = -1;
        Value sure_v{0, 0};
        Key sure_key;
        for (int g = 0; g < H; ++g)
            for (const Mover& x : movers(f_, g, Part::Singles).singles) {
                const auto key = std::make_tuple(x.ram, g, x.vm, x.vm, x.vm);
                if (prune) {
                    if (const Dest* d = first_other_dest(x.flavor, g); d != nullptr) {
                        const Value v{x.ub.own, x.ub.w + d->gain};
                        if (sure == nullptr || ahead(v, key, sure_v, sure_key)) {
                            sure = &x;
                            sure_g = g;
                            sure_v = v;
                            sure_key = key;
                        }
                        continue;
                    }
                    if (x.remap_at < 0) continue;
                    cands_.push_back(Cand{Value{x.ub.own, x.ub.w}, key, 0, g, 0, 0});
                    continue;
                }
                if (!plain_ && !elsewhere(x.flavor, g) && x.remap_at < 0) continue;
                if (one(x, g)) keep(plan_value(*done_), key);
            }
        // The singles only a remap moves (pruning): in order of their bound, while it could beat
        // the best sure one.
        std::sort(cands_.begin(), cands_.end());
        for (const Cand& c : cands_) {
            if (sure != nullptr && ahead(sure_v, sure_key, c.ub, c.key)) break;
            if (have && !ahead(c.ub, c.key, best_v, best_key)) break;  // none after it can be ahead
            const auto& singles = movers(f_, c.g, Part::Singles).singles;
            const auto x = std::find_if(singles.begin(), singles.end(), [&c](const Mover& m) { return m.vm == std::get<2>(c.key); });
            if (one(*x, c.g)) keep(plan_value(*done_), c.key);
        }
        if (sure != nullptr && (!have || ahead(sure_v, sure_key, best_v, best_key))) {
            if (!one(*sure, sure_g) || plan_value(*done_) != sure_v)
                throw std::logic_error("make_room: a single valued without trying it did not");
            keep(sure_v, sure_key);
        }
        if (k < 2 || (have && opt_.second_for_copies <= 0)) return done();
        if (!have && opt_.second_only_for_copies) return {};  // two steps only as an upgrade
        // A plan of one step found and second_for_copies: the plans of two steps that leave room
        // for that many more VMs of the flavor are searched as below (without the ranking by RAM's
        // start: one of two steps need not exist); the best of them, else the plan of one step.
        const bool upgrade = have;
        const std::vector<Step> one_steps = best_steps;
        if (upgrade) {
            floor_own = best_v.first + opt_.second_for_copies;
            have = false;
        }
        if (prune && !upgrade) {
            // Whether a plan of two steps exists, from the ranking by RAM (its shortcuts decide
            // most candidates without trying them; enumerating them all here would try each):
            // none, no plan; one, its value is where the pruning starts.
            if (run_ram(2).empty()) return {};
            const Step& a = steps_[0];
            const Step& b = steps_[1];
            keep(plan_value(*done_),
                 std::make_tuple(a.m.ram + b.m.ram, b.from, std::min(a.m.vm, b.m.vm), std::max(a.m.vm, b.m.vm), a.m.vm));
        }
        const auto consider = [&](const Two& t) {
            if (plan_two(t)) keep(plan_value(*done_), t.key());
            if (t.both_orders) {
                const Two u{t.ram, t.host, t.b, t.a, t.from_a, false, false};
                if (plan_two(u)) keep(plan_value(*done_), u.key());
            }
        };
        // Two steps: pairs (kind 1) and shuffles (kind 2) host by host, chains (kind 3): a single
        // x on g that no host takes, after a VM z off d != g made room for it on d. A chain's
        // bound: g's with x lifted plus d's with z lifted (x's arrival there only takes room), the
        // flavor's VM placed on whichever of the two gives more. Pruning, a candidate (or a whole
        // host's pairs or shuffles, a single's chains: by their largest bound and least RAM) that
        // cannot be ahead of the plan found is not listed: it could not be chosen.
        // Pruning, every plan of two steps that works has a key at least key0's, the ranking by
        // RAM's plan (the least key that works): a candidate is judged with its key raised to that.
        const Key key0 = upgrade ? Key{std::numeric_limits<Amount>::min(), -1, -1, -1, -1} : best_key;
        const auto behind = [&](const Value& ub, const Key& key) {
            return prune && (ub.first < floor_own || (have && !ahead(ub, std::max(key, key0), best_v, best_key)));
        };
        const auto lowest = [](Amount ram, int g) { return Key{ram, g, -1, -1, -1}; };
        cands_.clear();
        for (int g = 0; g < H; ++g) {
            // A host whose pairs (shuffles) are listed already is judged by its cached bounds
            // first; the others are listed only when could_move says they could move.
            // With a plan of one step found, a host where no two VMs free room in total for
            // floor_own VMs of the flavor is skipped (the pairs' and shuffles' room is g's alone).
            if (upgrade && prune) {
                const HostSums& hs = sums(g);
                const Flavor& ff = flavor(f_);
                if (std::min((hs.free_vcpu + hs.most_vcpu + hs.next_vcpu) / ff.demand[kVcpu],
                             (hs.free_ram + hs.most_ram + hs.next_ram) / ff.demand[kRamMib]) < floor_own)
                    continue;
            }
            const HostMovers& listed_hm = cache_.movers[static_cast<std::size_t>(f_)][static_cast<std::size_t>(g)];
            const auto pairs_behind = [&](const HostMovers& hm) {
                return hm.pairs.empty() || behind(hm.pairs_top, lowest(hm.pairs.front().m[0].ram + hm.pairs.front().m[1].ram, g));
            };
            // Pruning, a host whose pairs are not listed yet is judged first by what listing
            // them would give (pair_tops: their largest Bound and least RAM, from the VMs' kinds).
            const auto tops_behind = [&]() {
                HostMovers& hm = cache_.movers[static_cast<std::size_t>(f_)][static_cast<std::size_t>(g)];
                if (!hm.tops_done) pair_tops(f_, g, hm);
                return hm.pairs_least_ram == kNoPair || behind(hm.pairs_top, lowest(hm.pairs_least_ram, g));
            };
            if (!(prune && listed_hm.pairs_done && pairs_behind(listed_hm)) && (plain_ || could_move(g, Part::Pairs)) &&
                !(prune && !listed_hm.pairs_done && tops_behind())) {
                const HostMovers& hm = movers(f_, g, Part::Pairs);
                if (!pairs_behind(hm))
                    for (std::size_t i = 0; i < hm.pairs.size(); ++i) {
                        const Value ub{hm.pairs[i].ub.own, hm.pairs[i].ub.w};
                        if (const Two t = pair_two(hm.pairs[i], g); t.host >= 0 && !behind(ub, t.key()))
                            cands_.push_back(Cand{ub, t.key(), 1, g, static_cast<int>(i), 0});
                    }
            }
            if ((prune && listed_hm.shuffles_done) || plain_ || could_move(g, Part::Shuffles)) {
                movers(f_, g, Part::Shuffles);
                list_pending_runs(g);  // the runs of a flavor no other host takes are skipped below
                const HostMovers& hm = cache_.movers[static_cast<std::size_t>(f_)][static_cast<std::size_t>(g)];
                for (std::size_t r = 0; r < hm.shuffle_runs.size(); ++r) {
                    const auto [fy, begin, end] = hm.shuffle_runs[r];
                    // A run's y cannot be remapped (fy >= 0): each goes to another host, which
                    // loses at least what the best one other than g would (none: it cannot move).
                    const Dest* o = prune && fy >= 0 ? first_other_dest(fy, g) : nullptr;
                    if (prune && fy >= 0 && o == nullptr) continue;
                    const Score loss = o != nullptr ? o->gain : 0;
                    if (prune && behind(Value{hm.run_top[r].first, hm.run_top[r].second + loss}, lowest(hm.run_least_ram[r], g))) continue;
                    for (int i = begin; i < end; ++i)
                        // (With a plan of one step found, a shuffle whose single another host
                        // takes is left out: its Bound has the single on g.)
                        if (const auto& sh = hm.shuffles[static_cast<std::size_t>(i)];
                            movable(sh[0], g) && !(upgrade && elsewhere(sh[1].flavor, g))) {
                            const Value ub{sh[0].ub.own, sh[0].ub.w + loss};
                            if (const Two t = shuffle_two(sh, g); !behind(ub, t.key())) cands_.push_back(Cand{ub, t.key(), 2, g, i, 0});
                        }
                }
            }
        }
        zs_.assign(p_.flavors.size(), {});
        std::vector<char> listed(p_.flavors.size(), 0);
        // Pruning, per flavor of x, the componentwise largest of the chains' first VMs' Bounds
        // (Z::ub) and their least RAM: a bound on every chain of a single of that flavor.
        std::vector<std::pair<Bound, Amount>> z_top(p_.flavors.size());
        // Pruning, a chain whose first VM z goes to another host than g (the best one other than
        // d, o1, when it is not g) is sure to work and valued exactly without trying it: z then
        // goes to o1 (any other host but g works alike, and g after z would only have less room),
        // x to its placement of the largest change on d with z gone, and g, d and o1 end as
        // Search::Z::exact and o1_gain say. The best of them is tried once, at the end.
        std::optional<Cand> sure_chain;
        const auto chain_value = [](const Mover& x, const Bound& zb) {
            Score w = x.ub.w + zb.w_without;
            if (zb.fits) w = std::max(w, x.ub.w_without + zb.w);
            return Value{x.ub.own + zb.own, w};
        };
        for (int g = 0; g < H; ++g) {
            const auto& singles = movers(f_, g, Part::Singles).singles;
            for (std::size_t i = 0; i < singles.size(); ++i) {
                const Mover& x = singles[i];
                const auto y = static_cast<std::size_t>(x.flavor);
                auto& z = zs_[y];
                if (!listed[y]) {
                    listed[y] = 1;
                    z_top[y].second = kNoPair;
                    // With a floor on the room (second_for_copies), what d must add to the most a
                    // single of this flavor leaves: hosts where z's leaving and x's arrival cannot
                    // leave that much room in total, and first VMs whose bound does not, are left out.
                    Count need = std::numeric_limits<Count>::min();
                    if (prune && floor_own > std::numeric_limits<Count>::min()) {
                        Count most = std::numeric_limits<Count>::min();
                        for (int h = 0; h < H; ++h)
                            for (const Mover& m : movers(f_, h, Part::Singles).singles)
                                if (m.flavor == x.flavor) most = std::max(most, m.ub.own);
                        need = floor_own - most;
                    }
                    const Flavor& fy = flavor(x.flavor);
                    const Flavor& ff = flavor(f_);
                    for (int d = 0; d < H; ++d) {
                        if (!may_have_singles(x.flavor, d)) continue;
                        if (need >= 1) {
                            const HostSums& hs = sums(d);
                            if (std::min((hs.free_vcpu + hs.most_vcpu - fy.demand[kVcpu]) / ff.demand[kVcpu],
                                         (hs.free_ram + hs.most_ram - fy.demand[kRamMib]) / ff.demand[kRamMib]) < need)
                                continue;
                        }
                        const HostMovers& zhm = movers(x.flavor, d, Part::Singles);
                        const auto add = [&](std::size_t l) {
                            const Mover& m = zhm.singles[l];
                            Z zz{m, d, {}, {}};
                            if (prune) {
                                chain_bounds(zz, x.flavor, cache_.movers[y][static_cast<std::size_t>(d)], l);
                                if (zz.ub.own < need) return;
                                widen(z_top[y].first, zz.ub, !z.empty());
                                z_top[y].second = std::min(z_top[y].second, m.ram);
                            }
                            z.push_back(zz);
                        };
                        if (plain_) {
                            for (std::size_t l = 0; l < zhm.singles.size(); ++l)
                                if (movable(zhm.singles[l], d)) add(l);
                        } else {
                            each_mobile_single(zhm, d, add);
                        }
                    }
                    // Pruning, by room for the flavor, the most first: a single's chains stop
                    // where they fall below floor_own.
                    if (prune) std::stable_sort(z.begin(), z.end(), [](const Z& a, const Z& b) { return a.ub.own > b.ub.own; });
                }
                if (z.empty() || behind(chain_value(x, z_top[y].first), lowest(x.ram + z_top[y].second, g))) continue;
                for (std::size_t j = 0; j < z.size(); ++j) {
                    if (prune && x.ub.own + z[j].ub.own < floor_own) break;
                    if (z[j].d == g) continue;
                    const bool exact = prune && z[j].o1 >= 0 && z[j].o1 != g;
                    Value v = chain_value(x, exact ? z[j].exact : z[j].ub);
                    if (exact) v.second += z[j].o1_gain;
                    const Two t = chain_two(x, g, j);
                    if (behind(v, t.key())) continue;
                    const Cand c{v, t.key(), 3, g, static_cast<int>(i), static_cast<int>(j)};
                    if (!exact) {
                        cands_.push_back(c);
                    } else if (!sure_chain || ahead(c.ub, c.key, sure_chain->ub, sure_chain->key)) {
                        sure_chain = c;
                    }
                }
            }
        }
        if (prune) std::sort(cands_.begin(), cands_.end());
        for (const Cand& c : cands_) {
            if (behind(c.ub, c.key)) break;  // nor any after it (sorted)
            if (sure_chain && ahead(sure_chain->ub, sure_chain->key, c.ub, c.key)) break;
            if (c.kind == 1) {
                consider(pair_two(movers(f_, c.g, Part::Pairs).pairs[static_cast<std::size_t>(c.i)], c.g));
            } else if (c.kind == 2) {
                consider(shuffle_two(movers(f_, c.g, Part::Shuffles).shuffles[static_cast<std::size_t>(c.i)], c.g));
            } else {
                const Mover x = movers(f_, c.g, Part::Singles).singles[static_cast<std::size_t>(c.i)];
                consider(chain_two(x, c.g, c.j));
            }
        }
        if (sure_chain && (!have || ahead(sure_chain->ub, sure_chain->key, best_v, best_key))) {
            const Mover x = movers(f_, sure_chain->g, Part::Singles).singles[static_cast<std::size_t>(sure_chain->i)];
            if (!plan_two(chain_two(x, sure_chain->g, sure_chain->j)) || plan_value(*done_) != sure_chain->ub)
                throw std::logic_error("make_room: a chain valued without trying it did not");
            keep(sure_chain->ub, sure_chain->key);
        }
        if (upgrade && !have) {
            steps_ = one_steps;
            return out();
        }
        return done();
    }
    /** A candidate plan of run_capacity: its bound, its key, its kind (0 single, 1 pair, 2
     *  shuffle, 3 chain), host and indices. Sorted: the largest bound first, then the key. */
    struct Cand {
        std::pair<Count, Score> ub;
        std::tuple<Amount, int, int, int, int> key;
        int kind = 0, g = -1, i = -1, j = -1;
        bool operator<(const Cand& o) const { return ub != o.ub ? ub > o.ub : key < o.key; }
    };
    /** A Bound of d in a chain whose first VM z leaves d and a VM of `flavor` then arrives there:
     *  d ends with at most its free amounts with z lifted less that VM on some placement with
     *  room in them (whichever z does), so the Bound of each such placement, componentwise the
     *  largest. */
    Bound chain_bound(const Mover& z, int d, int flavor) {
        tmp2_.assign(s_.free_of(d), s_.free_of(d) + s_.nodes_of(d) * R_);
        share(tmp2_.data(), this->flavor(z.flavor), z.mask, +1);
        const Flavor& fl = this->flavor(flavor);
        Bound out;
        bool any = false;
        for (const Embedding& e : placements(flavor, d)) {
            if (!room(fl, e, tmp2_.data())) continue;
            share(tmp2_.data(), fl, e.mask, -1);
            widen(out, bound(f_, d, tmp2_.data()), any);
            share(tmp2_.data(), fl, e.mask, +1);
            any = true;
        }
        return out;
    }
    /** A chain's first VM: a single of the flavor of x on d; its Bound for the arriving flavor
     *  (`ub`: chain_bound); `o1`, the best host other than d that takes it now (-1: none) and its
     *  gain there; `exact`, d's Bound when z has gone to another host and x arrived on its
     *  placement of the largest change (best_arrival: where plan_two puts it). */
    struct Z {
        Mover m;
        int d = -1;
        Bound ub, exact;
        int o1 = -1;
        Score o1_gain = 0;
    };
    /** `out` := the componentwise largest of `out` and `b` (`out` := `b` when not `any`). */
    static void widen(Bound& out, const Bound& b, bool any) {
        if (!any) {
            out = b;
            return;
        }
        out.own = std::max(out.own, b.own);
        out.w_without = std::max(out.w_without, b.w_without);
        if (b.fits) out.w = out.fits ? std::max(out.w, b.w) : b.w;
        out.fits = out.fits || b.fits;
    }
    /** Fills z.ub, z.exact, z.o1 and z.o1_gain, x of `flavor`, z the single `i` of its host's
     *  HostMovers for `flavor` (`hm`): the Bounds from hm's ChainBounds for the arriving flavor
     *  when computed there. */
    void chain_bounds(Z& z, int flavor, HostMovers& hm, std::size_t i) {
        if (const Dest* o = first_other_dest(z.m.flavor, z.d); o != nullptr) {
            z.o1 = o->host;
            z.o1_gain = o->gain;
        }
        auto cb = std::find_if(hm.chain.begin(), hm.chain.end(), [this](const HostMovers::ChainBounds& c) { return c.f == f_; });
        if (cb == hm.chain.end()) {
            cb = hm.chain.insert(hm.chain.end(), HostMovers::ChainBounds{f_, {}, {}});
            cb->done.assign(hm.singles.size(), 0);
            cb->b.resize(hm.singles.size());
        }
        if (cb->done[i]) {
            z.ub = cb->b[i][0];
            z.exact = cb->b[i][1];
            return;
        }
        chain_bounds(z, flavor);
        cb->done[i] = 1;
        cb->b[i] = {z.ub, z.exact};
    }
    /** Fills z.ub and z.exact, x of `flavor`. */
    void chain_bounds(Z& z, int flavor) {
        z.ub = chain_bound(z.m, z.d, flavor);
        tmp2_.assign(s_.free_of(z.d), s_.free_of(z.d) + s_.nodes_of(z.d) * R_);
        share(tmp2_.data(), this->flavor(z.m.flavor), z.m.mask, +1);
        Score unused = 0;
        const int e = best_arrival(flavor, z.d, tmp2_.data(), unused);
        if (e < 0) throw std::logic_error("make_room: a chain's VM does not fit where its first VM left");
        share(tmp2_.data(), this->flavor(flavor), placements(flavor, z.d)[static_cast<std::size_t>(e)].mask, -1);
        z.exact = bound(f_, z.d, tmp2_.data());
    }
    /** The pair's plan in the order tried first (host -1: neither VM can move now). */
    Two pair_two(const Pair& pr, int g) {
        const bool a = movable(pr.m[0], g), b = movable(pr.m[1], g);
        const Amount ram = pr.m[0].ram + pr.m[1].ram;
        if (!a && !b) return Two{};
        return a ? Two{ram, g, pr.m[0], pr.m[1], g, false, b} : Two{ram, g, pr.m[1], pr.m[0], g, false, false};
    }
    static Two shuffle_two(const std::array<Mover, 2>& sh, int g) { return Two{sh[0].ram + sh[1].ram, g, sh[0], sh[1], g, false, false}; }
    Two chain_two(const Mover& x, int g, int j) const {
        const Z& z = zs_[static_cast<std::size_t>(x.flavor)][static_cast<std::size_t>(j)];
        return Two{x.ram + z.m.ram, g, z.m, x, z.d, true, false};
    }

private:
    const Flavor& flavor(int j) const { return p_.flavors[static_cast<std::size_t>(j)]; }
    const std::vector<Embedding>& placements(int flavor, int h) const { return m_.evaluator(s_.type_of(h), flavor).placements(); }

    /** Does a placement of `flavor` have room in `free` on host h: its index (the rule's under a
     *  rule that fixes nodes, else the tightest: least free vCPU left on its nodes, lowest index), or -1. */
    int arrival(int flavor, int h, const Amount* free) const {
        if (fixes_) {
            const int e = m_.node_choice(flavor, h, free);
            return e >= 0 ? e : -1;
        }
        const auto& pl = placements(flavor, h);
        const Flavor& fl = this->flavor(flavor);
        int best = -1;
        Amount best_left = 0;
        for (std::size_t e = 0; e < pl.size(); ++e) {
            if (!room(fl, pl[e], free)) continue;
            Amount left = 0;
            for (int i = 0; i < fl.num_vnuma(); ++i) left += free[pl[e].map[static_cast<std::size_t>(i)] * R_ + kVcpu];
            if (best < 0 || left < best_left) {
                best = static_cast<int>(e);
                best_left = left;
            }
        }
        return best;
    }
    /** Does any placement of `flavor` fit in `free` on h (the rule's one under a rule that fixes nodes)? */
    bool fits(int flavor, int h, const Amount* free) const {
        if (fixes_) return m_.node_choice(flavor, h, free) >= 0;
        const Flavor& fl = this->flavor(flavor);
        for (const Embedding& e : placements(flavor, h))
            if (room(fl, e, free)) return true;
        return false;
    }
    bool room(const Flavor& fl, const Embedding& e, const Amount* free) const {
        for (int i = 0; i < fl.num_vnuma(); ++i)
            for (int r = 0; r < R_; ++r)
                if (free[e.map[static_cast<std::size_t>(i)] * R_ + r] < fl.node_demand[static_cast<std::size_t>(r)]) return false;
        return true;
    }
    /** free += sign x the share of a VM of `fl` on the nodes of `mask`. */
    void share(Amount* free, const Flavor& fl, NodeMask mask, int sign) const {
        for (unsigned b = mask; b; b &= b - 1)
            for (int r = 0; r < R_; ++r) free[std::countr_zero(b) * R_ + r] += sign * fl.node_demand[static_cast<std::size_t>(r)];
    }
    /** The place of a VM of `flavor` arriving on h in `free`: ranking by RAM, arrival(); by
     *  capacity, best_arrival() and its gain less `base` (the host's gain in `free` already). */
    Dest dest_on(int flavor, int h, const Amount* free, Score base = 0) const {
        Dest d;
        d.placement = cap_ ? best_arrival(flavor, h, free, d.gain) : arrival(flavor, h, free);
        if (d.placement < 0) return d;
        d.gain -= base;
        d.host = h;
        const Flavor& fl = this->flavor(flavor);
        for (int n = 0; n < s_.nodes_of(h); ++n) {
            d.vcpu_left += free[n * R_ + kVcpu];
            d.ram_left += free[n * R_ + kRamMib];
        }
        d.vcpu_left -= fl.demand[kVcpu];
        d.ram_left -= fl.demand[kRamMib];
        return d;
    }

    /** Ranking by capacity: the weighted capacity change of host h (score units, against the
     *  state's cached capacities of h) when its nodes have the free amounts `free`: the change
     *  the vmcap-fit placer ranks by (capacity_gain, the kernel placement_delta uses). */
    Score host_gain(int h, const Amount* free) const {
        return capacity_gain(s_, h, static_cast<unsigned>((1U << s_.nodes_of(h)) - 1U), free);
    }
    /** The placement of a VM of `flavor` arriving on h in `free` with the largest host_gain after
     *  it (ties: the least free vCPU left on its nodes, then the lowest index; under a rule that
     *  fixes nodes, the rule's), that gain in `gain`; -1 if none has room. */
    int best_arrival(int flavor, int h, const Amount* free, Score& gain) const {
        const int n = s_.nodes_of(h);
        const Flavor& fl = this->flavor(flavor);
        const auto& pl = placements(flavor, h);
        Amount local[kMaxPNuma * kMaxResources];
        const auto with = [&](std::size_t e) {
            std::copy(free, free + n * R_, local);
            share(local, fl, pl[e].mask, -1);
            return host_gain(h, local);
        };
        if (fixes_) {
            const int e = m_.node_choice(flavor, h, free);
            if (e < 0) return -1;
            gain = with(static_cast<std::size_t>(e));
            return e;
        }
        int best = -1;
        Amount best_left = 0;
        for (std::size_t e = 0; e < pl.size(); ++e) {
            if (!room(fl, pl[e], free)) continue;
            const Score g = with(e);
            Amount left = 0;
            for (int i = 0; i < fl.num_vnuma(); ++i) left += free[pl[e].map[static_cast<std::size_t>(i)] * R_ + kVcpu];
            if (best < 0 || g > gain || (g == gain && left < best_left)) {
                best = static_cast<int>(e);
                gain = g;
                best_left = left;
            }
        }
        return best;
    }
    /** Ranking by capacity: what a plan leaves, `ov` the free amounts of the hosts its steps
     *  changed. First the room for VMs of the arriving flavor: the change of its VMCAP summed over
     *  those hosts (the arriving VM not yet placed); then the weighted capacity change of those
     *  hosts with the arriving VM placed as the vmcap-fit placer would place it (the largest
     *  change among the hosts of `ov` where it fits: no other host takes it). Larger is better. */
    std::pair<Count, Score> plan_value(const Overlay& ov) const {
        Score v = 0, arrive = 0;
        Count own = 0;
        bool fits_somewhere = false;
        for (int i = 0; i < ov.size(); ++i) {
            const int h = ov.host(i);
            const Score g = host_gain(h, ov.get(h));
            v += g;
            own += own_capacity(h, ov.get(h)) - own_capacity(h, s_.free_of(h));
            Score with = 0;
            if (best_arrival(f_, h, ov.get(h), with) >= 0 && (!fits_somewhere || with - g > arrive)) {
                arrive = with - g;
                fits_somewhere = true;
            }
        }
        if (!fits_somewhere) throw std::logic_error("make_room: a plan after which the VM fits nowhere");
        return {own, v + arrive};
    }
    /** VMCAP of `flavor` (the arriving one by default) on h with the free amounts `free`.
     *  O(nodes x R + VMCAP). */
    Count own_capacity(int h, const Amount* free, int flavor = -1) const {
        if (flavor < 0) flavor = f_;
        Count b[kMaxPNuma];
        m_.capacity_vector(flavor, s_.nodes_of(h), free, b);
        return m_.evaluator(s_.type_of(h), flavor)(b);
    }
    /** The Bound of host h for `flavor` with the free amounts `lifted` (h's with the leaving VMs'
     *  shares freed). O(placements x (targets x (nodes x R + VMCAP))). */
    Bound bound(int flavor, int h, const Amount* lifted) const {
        Bound b;
        b.own = own_capacity(h, lifted, flavor) - own_capacity(h, s_.free_of(h), flavor);
        b.w_without = host_gain(h, lifted);
        b.fits = best_arrival(flavor, h, lifted, b.w) >= 0;
        return b;
    }

    /** The best kTop hosts where a VM of `flavor` fits now (Dest::better order, a strict total
     *  order: the same hosts whatever order they are offered in). Kept between calls
     *  (MakeRoomCache::Impl::Top): only the hosts whose version changed since are re-read, and
     *  merged into the kept ones unless one of those changed (then every host is read). O(H)
     *  version reads, plus O(H) when a kept host changed. */
    const std::vector<Dest>& top(int flavor) {
        // Read for every candidate (elsewhere, movable): the known answer without a call.
        if (top_done_[static_cast<std::size_t>(flavor)]) return top_[static_cast<std::size_t>(flavor)];
        return compute_top(flavor);
    }
    /** Where a VM of `flavor` lands on h now (Landing, kept per host version). */
    const Landing& landing(int flavor, int h) {
        std::vector<Landing>& land = cache_.landing[static_cast<std::size_t>(flavor)];
        land.resize(p_.hosts.size());
        Landing& l = land[static_cast<std::size_t>(h)];
        if (l.version != s_.host_version(h)) {
            const Dest d = dest_on(flavor, h, s_.free_of(h));
            l = Landing{s_.host_version(h), d.placement, d.vcpu_left, d.ram_left, d.gain};
        }
        return l;
    }
    [[gnu::noinline]] const std::vector<Dest>& compute_top(int flavor) {
        auto& t = top_[static_cast<std::size_t>(flavor)];
        top_done_[static_cast<std::size_t>(flavor)] = 1;
        std::vector<Landing>& land = cache_.landing[static_cast<std::size_t>(flavor)];
        MakeRoomCache::Impl::Top& kept = cache_.tops[static_cast<std::size_t>(flavor)];
        const int H = static_cast<int>(p_.hosts.size());
        land.resize(static_cast<std::size_t>(H));
        const auto offer = [&](int h) {
            const Landing& l = landing(flavor, h);
            if (l.placement < 0) return;
            const Dest d{h, l.placement, l.vcpu_left, l.ram_left, l.gain};
            if (static_cast<int>(t.size()) == kTop && !d.better(t.back())) return;
            if (static_cast<int>(t.size()) == kTop) t.pop_back();
            t.insert(std::upper_bound(t.begin(), t.end(), d, [](const Dest& a, const Dest& b) { return a.better(b); }), d);
        };
        std::uint64_t clock = 0;
        bool full = !kept.valid;
        changed_.clear();
        for (int h = 0; h < H; ++h) {
            const std::uint64_t v = s_.host_version(h);
            clock = std::max(clock, v);
            if (!full && v > kept.clock) {
                changed_.push_back(h);
                full = std::find(kept.hosts.begin(), kept.hosts.end(), h) != kept.hosts.end();
            }
        }
        if (full) {
            for (int h = 0; h < H; ++h) offer(h);
        } else {
            // The kept hosts are unchanged (their Landing is current) and every unchanged host
            // not among them is behind the last of them: the best of the kept and the changed.
            for (const int h : kept.hosts) offer(h);
            for (const int h : changed_) offer(h);
        }
        kept.valid = true;
        kept.clock = clock;
        kept.hosts.clear();
        for (const Dest& d : t) kept.hosts.push_back(d.host);
        return t;
    }

    /** The places `x` (on `from`) may go in `ov`, best first: other hosts (Dest::better), then,
     *  under the free rule, other nodes of `from` (placement order). */
    const std::vector<Dest>& options(const Mover& x, int from, const Overlay& ov, int depth) {
        std::vector<Dest>& o = opts_[static_cast<std::size_t>(depth)];
        o.clear();
        for (const Dest& d : top(x.flavor))
            if (d.host != from && !ov.has(d.host)) o.push_back(d);
        for (int i = 0; i < ov.size(); ++i)
            if (const int h = ov.host(i); h != from)
                if (const Dest d = dest_on(x.flavor, h, ov.get(h), cap_ ? host_gain(h, ov.get(h)) : 0); d.host >= 0) o.push_back(d);
        std::sort(o.begin(), o.end(), [](const Dest& a, const Dest& b) { return a.better(b); });
        if (!fixes_) {
            const auto& pl = placements(x.flavor, from);
            for (std::size_t e = 0; e < pl.size(); ++e)
                if (pl[e].mask != x.mask) o.push_back(Dest{from, static_cast<int>(e), 0, 0});
        }
        return o;
    }

    /** Can x (on `from`) move at all on the state as it is: another host takes it, or (free rule)
     *  another placement on `from` has room, its own share counted free. A necessary condition for
     *  x's step first in a plan; for a later step only when it leaves another host than the
     *  earlier ones changed. */
    bool movable(const Mover& x, int from) { return elsewhere(x.flavor, from) || x.remap; }
    /** fn(l) for each single l of `hm` (host d's, in index order) that could be a chain's first
     *  VM: another host takes its flavor (elsewhere), or it has a remap (remap_at >= 0). Decided
     *  per flavor: a host where neither holds for any is skipped without reading its singles. */
    template <class Fn>
    void each_mobile_single(const HostMovers& hm, int d, Fn&& fn) {
        mobile_.resize(hm.flavors.size());
        bool any = hm.any_remap;
        for (std::size_t k = 0; k < hm.flavors.size(); ++k) {
            mobile_[k] = elsewhere(hm.flavors[k], d) ? 1 : 0;
            any = any || mobile_[k] != 0;
        }
        if (!any) return;
        for (std::size_t l = 0; l < hm.singles.size(); ++l)
            if (mobile_[static_cast<std::size_t>(hm.group[l])] != 0 || hm.singles[l].remap_at >= 0) fn(l);
    }
    /** Does another host than h take a VM of `flavor` now? */
    bool elsewhere(int flavor, int h) {
        // Read for nearly every candidate: from a flat per-flavor summary of top() (how many
        // hosts, at most 2, and the first), not the list itself.
        Takers& t = takers_[static_cast<std::size_t>(flavor)];
        if (t.n < 0) {
            const std::vector<Dest>& tp = top(flavor);
            t.n = static_cast<int>(std::min<std::size_t>(tp.size(), 2));
            t.first = tp.empty() ? -1 : tp.front().host;
        }
        return t.n >= 2 || (t.n == 1 && t.first != h);
    }
    /** The best host other than h that takes a VM of `flavor` now (its first option off h), or -1. */
    int first_other(int flavor, int h) {
        for (const Dest& d : top(flavor))
            if (d.host != h) return d.host;
        return -1;
    }
    /** The best place other than h for a VM of `flavor` now (top()), or null. */
    const Dest* first_other_dest(int flavor, int h) {
        for (const Dest& d : top(flavor))
            if (d.host != h) return &d;
        return nullptr;
    }
    /** Does the plan "a off g to another host, then b off g" surely work: a goes to its first
     *  option (first_other), and another host than g and that one takes b (then g has the room of
     *  both, which lets the flavor fit: a pair)? */
    bool sure_pair(const Mover& a, const Mover& b, int g) {
        const int o1 = first_other(a.flavor, g);
        if (o1 < 0) return false;
        for (const Dest& d : top(b.flavor))
            if (d.host != g && d.host != o1) return true;
        return false;
    }
    void sure(const Two& t) {
        if (!has_sure_ || t.key() < best_sure_.key()) best_sure_ = t;
        has_sure_ = true;
    }
    void maybe(const Two& t) {
        if (!has_sure_ || t.key() < best_sure_.key()) maybe_.push_back(t);
    }
    bool try_two(const Two& t) { return plan_two(t) || (t.both_orders && plan_two(reversed(t))); }

    /** HostMovers::least_two_ram of g for `flavor`, its singles known (and least_shuffle_ram). O(VMs on g + V^2) for V
     *  distinct vCPU counts among them. */
    Amount least_two_ram(int flavor, int g, HostMovers& hm) const {
        const Flavor& fl = this->flavor(flavor);
        const Amount* free = s_.free_of(g);
        // Per vCPU count (few: flavors), the two least RAM among the migratable VMs on g.
        struct Class {
            Amount vcpu, ram1, ram2;
        };
        std::vector<Class> cls;
        constexpr Amount kNone = kNoPair;
        Amount least_ram = kNone;
        for (const OnlineCluster::Resident& x : c_.vms_on(g)) {
            if (!x.migratable) continue;
            const Flavor& fx = this->flavor(x.flavor);
            const Amount v = fx.demand[kVcpu], r = fx.demand[kRamMib];
            least_ram = std::min(least_ram, r);
            // A pair has no single (a shuffle's single is counted below).
            if (std::any_of(hm.singles.begin(), hm.singles.end(), [&x](const Mover& m) { return m.vm == x.vm; })) continue;
            auto it = std::find_if(cls.begin(), cls.end(), [v](const Class& c) { return c.vcpu == v; });
            if (it == cls.end()) {
                cls.push_back(Class{v, r, kNone});
            } else if (r < it->ram1) {
                it->ram2 = it->ram1;
                it->ram1 = r;
            } else if (r < it->ram2) {
                it->ram2 = r;
            }
        }
        Amount best = kNone;
        for (const Embedding& e : placements(flavor, g)) {
            const auto [short_vcpu, short_ram] = lacks(fl, e, free);
            for (std::size_t i = 0; i < cls.size(); ++i)
                for (std::size_t j = i; j < cls.size(); ++j) {
                    if (cls[i].vcpu + cls[j].vcpu < short_vcpu) continue;
                    if (i == j && cls[i].ram2 == kNone) continue;
                    const Amount r = i == j ? cls[i].ram1 + cls[i].ram2 : cls[i].ram1 + cls[j].ram1;
                    best = std::min(best, std::max(r, short_ram));
                }
        }
        hm.least_shuffle_ram = fixes_ || hm.singles.empty() || least_ram == kNone ? kNone : hm.singles.front().ram + least_ram;
        return best;
    }

    /** run()'s visit of the pairs (or shuffles) of g: each offered as sure or maybe. */
    void visit(int g, Part part, const HostMovers& hm) {
        // Each host's pairs and shuffles are in plan order (Two::key): the first sure one is
        // the host's best, and none after one that cannot beat the best sure plan can.
        // Of the pairs (shuffles) of the same two kinds of VM (flavor, node set), which decide
        // whether and how they work, the first has the least plan key: the others are skipped.
        // (HostMovers::pair_firsts, shuffle_firsts: kept with the host's lists.)
        // After a failing call (restrict_to_changed) a pair off a host outside C is new only
        // when one of its VMs is of a rare flavor (it lands on a host of C). Not on the shuffles'
        // runs: the run of first VMs with a remap also holds VMs that can go to another host.
        const bool rare_only = restricted_ && !in_c_[static_cast<std::size_t>(g)];
        if (part == Part::Pairs)
            for (const int i : hm.pair_firsts) {
                const Pair& pr = hm.pairs[static_cast<std::size_t>(i)];
                const Mover& a = pr.m[0];
                const Mover& b = pr.m[1];
                if (rare_only && !rare_[static_cast<std::size_t>(a.flavor)] && !rare_[static_cast<std::size_t>(b.flavor)]) continue;
                const bool ma = movable(a, g), mb = movable(b, g);
                if (!ma && !mb) continue;
                // The order tried first: a then b when a can move, else b then a.
                Two t = ma ? Two{a.ram + b.ram, g, a, b, g, false, mb} : Two{a.ram + b.ram, g, b, a, g, false, false};
                t.pair = true;
                t.b_after = ma ? pr.b_after_a : pr.a_after_b;
                t.a_after = ma ? pr.a_after_b : pr.b_after_a;
                if (has_sure_ && !(t.key() < best_sure_.key())) break;
                const bool ab = ma && (elsewhere(b.flavor, g) || pr.b_after_a);
                const bool ba = mb && (elsewhere(a.flavor, g) || pr.a_after_b);
                if (!ab && !ba) continue;
                const int first = ab ? two_off(a, b, g) : 0, second = ba ? two_off(b, a, g) : 0;
                if (first > 0 || second > 0) {
                    sure(t);
                    break;
                }
                if (first < 0 || second < 0) maybe(t);
            }
        if (part == Part::Shuffles) {
            list_pending_runs(g);
            // Two kinds' shuffles are in one run (a run is decided by its first VM's kind).
            auto first = hm.shuffle_firsts.begin();
            for (const auto& [fy, begin, end] : hm.shuffle_runs) {
                while (first != hm.shuffle_firsts.end() && *first < begin) ++first;
                if (fy >= 0 && !elsewhere(fy, g)) continue;  // y can move nowhere
                for (; first != hm.shuffle_firsts.end() && *first < end; ++first) {
                    const auto& sh = hm.shuffles[static_cast<std::size_t>(*first)];
                    const Two t{sh[0].ram + sh[1].ram, g, sh[0], sh[1], g, false, false};
                    if (has_sure_ && !(t.key() < best_sure_.key())) break;
                    // The VM that leaves first goes to another host: the remap the shuffle was
                    // found with has room (nothing else changed on g).
                    const int works = elsewhere(sh[0].flavor, g) ? 1 : two_off(sh[0], sh[1], g);
                    if (works > 0) {
                        sure(t);
                        break;
                    }
                    if (works < 0) maybe(t);
                }
            }
        }
    }

    /** The pending shuffle runs of g (HostMovers::shuffle_pending) whose flavor another host
     *  takes now, listed (shuffle_run): the others' y can move nowhere. */
    void list_pending_runs(int g) {
        HostMovers& hm = cache_.movers[static_cast<std::size_t>(f_)][static_cast<std::size_t>(g)];
        std::vector<int>& pending = hm.shuffle_pending;
        for (std::size_t i = 0; i < pending.size();) {
            if (elsewhere(pending[i], g)) {
                const int fy = pending[i];
                pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
                shuffle_run(f_, g, hm, fy);
            } else {
                ++i;
            }
        }
    }

    /** Does the plan "a off g, then b off g" (each to another host or remapped on g) make room
     *  for the flavor on g: 1 surely, 0 surely not, -1 not known without trying it (plan_two).
     *  Decided on g alone unless both can go to another host: then a step to another host
     *  leaves g as any other would, and b goes nowhere else (another host than g takes it, or
     *  none: then not the one a took either, which only lost room). */
    int two_off(const Mover& a, const Mover& b, int g) {
        const bool ea = elsewhere(a.flavor, g), eb = elsewhere(b.flavor, g);
        if (!ea && !a.remap) return 0;
        if (ea && eb) return sure_pair(a, b, g) ? 1 : -1;
        if (ea) return (remap_after(a, b, g, false) || (a.remap && remap_after(a, b, g, true))) ? 1 : 0;
        return remap_after(a, b, g, true) ? 1 : 0;
    }
    /** On g alone: a leaves g (`a_remaps` false) or is remapped on g (some placement with room,
     *  in order), then b is remapped on g (or, when another host takes b's flavor and a was
     *  remapped, leaves g), and the flavor fits on g. */
    bool remap_after(const Mover& a, const Mover& b, int g, bool a_remaps) {
        if (fixes_) return false;  // no remaps under a rule that fixes nodes
        const Flavor& fa = flavor(a.flavor);
        const Flavor& fb = flavor(b.flavor);
        const bool b_away = a_remaps && elsewhere(b.flavor, g);
        std::vector<Amount>& t = local_;
        t.assign(s_.free_of(g), s_.free_of(g) + s_.nodes_of(g) * R_);
        share(t.data(), fa, a.mask, +1);
        const auto then_b = [&]() {
            share(t.data(), fb, b.mask, +1);  // b lifted
            bool ok = b_away && fits(f_, g, t.data());
            for (const Embedding& e : placements(b.flavor, g)) {
                if (ok) break;
                if (e.mask == b.mask || !room(fb, e, t.data())) continue;
                share(t.data(), fb, e.mask, -1);
                ok = fits(f_, g, t.data());
                share(t.data(), fb, e.mask, +1);
            }
            share(t.data(), fb, b.mask, -1);
            return ok;
        };
        if (!a_remaps) return then_b();
        for (const Embedding& e : placements(a.flavor, g)) {
            if (e.mask == a.mask || !room(fa, e, t.data())) continue;
            share(t.data(), fa, e.mask, -1);
            const bool ok = then_b();
            share(t.data(), fa, e.mask, +1);
            if (ok) return true;
        }
        return false;
    }

    /** Could the pairs (or the shuffles) of g make room now, as far as the VMs' kinds tell
     *  (HostMovers::kinds): two VMs that could each move (another host takes their flavor, or a
     *  remap, for the second once the first has left) and together free what a placement lacks,
     *  the first able to move now; for a shuffle, a single that could be remapped once a VM has
     *  left and a VM that frees the host's total lack and can move now. Necessary. */
    bool could_move(int g, Part part) {
        // The answer depends on g's kinds and top() alone, fixed for this call: kept per host.
        auto& known = could_[part == Part::Shuffles ? 1 : 0];
        known.resize(p_.hosts.size(), -1);
        signed char& k = known[static_cast<std::size_t>(g)];
        if (k < 0) k = could_move_now(g, part) ? 1 : 0;
        return k != 0;
    }
    bool could_move_now(int g, Part part) {
        HostMovers& hm = cache_.movers[static_cast<std::size_t>(f_)][static_cast<std::size_t>(g)];
        if (!hm.kinds_done) build_kinds(g, hm);
        if (part == Part::Shuffles) {
            if (!hm.x_help) return false;
            for (const HostMovers::Kind& y : hm.ys)
                if (elsewhere(y.flavor, g) || y.remap > 0) return true;
            return false;
        }
        const std::size_t K = hm.kinds.size();
        away_.resize(K);
        for (std::size_t i = 0; i < K; ++i) away_[i] = elsewhere(hm.kinds[i].flavor, g) ? 1 : 0;
        if (hm.pairs_could >= 0 && hm.pairs_away == away_) return hm.pairs_could != 0;
        hm.pairs_away = away_;
        hm.pairs_could = pairs_could_move(hm) ? 1 : 0;
        return hm.pairs_could != 0;
    }
    /** could_move for the pairs of the host of `hm`, away_[i]: another host takes kinds[i]'s flavor. */
    bool pairs_could_move(const HostMovers& hm) {
        const std::size_t K = hm.kinds.size();
        avail_.resize(K);
        first_.resize(K);
        for (std::size_t i = 0; i < K; ++i) {
            const HostMovers::Kind& k = hm.kinds[i];
            const bool away = away_[i] != 0;
            avail_[i] = away ? k.n : k.help;
            first_[i] = away ? k.n : k.remap;
        }
        for (std::size_t i = 0; i < K; ++i) {
            if (avail_[i] == 0) continue;
            for (std::size_t j = i; j < K; ++j) {
                if (i == j ? avail_[i] < 2 || first_[i] < 1 : avail_[j] < 1 || (first_[i] < 1 && first_[j] < 1)) continue;
                const Amount v = hm.kinds[i].vcpu + hm.kinds[j].vcpu, r = hm.kinds[i].ram + hm.kinds[j].ram;
                for (const auto& [sv, sr] : hm.shorts)
                    if (v >= sv && r >= sr) return true;
            }
        }
        return false;
    }

    void build_kinds(int g, HostMovers& hm) {
        hm.kinds_done = true;
        hm.pairs_could = -1;
        hm.kinds.clear();
        hm.ys.clear();
        hm.shorts.clear();
        hm.x_help = false;
        const int nodes = s_.nodes_of(g);
        const Amount* free = s_.free_of(g);
        // The most any one migratable VM frees on each node.
        most_.assign(static_cast<std::size_t>(nodes * R_), 0);
        for (const OnlineCluster::Resident& x : c_.vms_on(g)) {
            if (!x.migratable) continue;
            const Flavor& fx = flavor(x.flavor);
            for (unsigned b = x.mask; b; b &= b - 1)
                for (int r = 0; r < R_; ++r) {
                    Amount& m = most_[static_cast<std::size_t>(std::countr_zero(b) * R_ + r)];
                    m = std::max(m, fx.node_demand[static_cast<std::size_t>(r)]);
                }
        }
        const Flavor& ff = flavor(f_);
        const auto [total_vcpu, total_ram] = total_lack(f_, g);
        const auto add = [](std::vector<HostMovers::Kind>& to, const OnlineCluster::Resident& x, const Flavor& fx, bool remap, bool help) {
            auto it = std::find_if(to.begin(), to.end(), [&x](const HostMovers::Kind& k) { return k.flavor == x.flavor; });
            if (it == to.end()) it = to.insert(to.end(), HostMovers::Kind{x.flavor, fx.demand[kVcpu], fx.demand[kRamMib]});
            ++it->n;
            it->remap += remap ? 1 : 0;
            it->help += help ? 1 : 0;
        };
        for (const OnlineCluster::Resident& x : c_.vms_on(g)) {
            if (!x.migratable) continue;
            const Flavor& fx = flavor(x.flavor);
            const Mover m{x.vm, x.flavor, x.mask, fx.demand[kRamMib], false, -1, {}};
            const bool remap = can_remap(m, g);
            bool help = remap;
            if (!help && !fixes_) {
                helped_.assign(free, free + nodes * R_);
                for (std::size_t i = 0; i < helped_.size(); ++i) helped_[i] += most_[i];
                share(helped_.data(), fx, x.mask, +1);
                help = remaps(m, g, helped_.data());
            }
            const auto single = std::find_if(hm.singles.begin(), hm.singles.end(), [&x](const Mover& y) { return y.vm == x.vm; });
            if (single == hm.singles.end())
                add(hm.kinds, x, fx, remap, help);
            else if (single->remap_at < 0 && help)
                hm.x_help = true;
            if (fx.demand[kVcpu] >= total_vcpu && fx.demand[kRamMib] >= total_ram) add(hm.ys, x, fx, remap, help);
        }
        for (const Embedding& e : placements(f_, g)) hm.shorts.push_back(lacks(ff, e, free));
    }

    /** Mover::remap of x on `from`. */
    bool can_remap(const Mover& x, int from) {
        if (fixes_) return false;
        const Flavor& fl = flavor(x.flavor);
        tmp2_.assign(s_.free_of(from), s_.free_of(from) + s_.nodes_of(from) * R_);
        share(tmp2_.data(), fl, x.mask, +1);
        for (const Embedding& e : placements(x.flavor, from))
            if (e.mask != x.mask && room(fl, e, tmp2_.data())) return true;
        return false;
    }

    /** Step x: from -> d on ov, if it has room there (its own share free on its own nodes). */
    bool apply(Overlay& ov, const Mover& x, int from, const Dest& d) const {
        const Flavor& fl = flavor(x.flavor);
        const Embedding& e = placements(x.flavor, d.host)[static_cast<std::size_t>(d.placement)];
        const Amount* t = ov.get(d.host);
        const bool remap = d.host == from;
        for (int i = 0; i < fl.num_vnuma(); ++i) {
            const int n = e.map[static_cast<std::size_t>(i)];
            const bool own = remap && ((x.mask >> n) & 1U);
            for (int r = 0; r < R_; ++r)
                if (t[n * R_ + r] + (own ? fl.node_demand[static_cast<std::size_t>(r)] : 0) < fl.node_demand[static_cast<std::size_t>(r)])
                    return false;
        }
        share(ov.edit(from), fl, x.mask, +1);
        share(ov.edit(d.host), fl, e.mask, -1);
        return true;
    }

    /** Per host, for `flavor`: the singles (and with `pairs`, the pairs and shuffles), from the
     *  cache when the host has not changed. */
    const HostMovers& movers(int flavor, int g, Part part) {
        std::vector<HostMovers>& all = cache_.movers[static_cast<std::size_t>(flavor)];
        all.resize(p_.hosts.size());
        HostMovers& hm = all[static_cast<std::size_t>(g)];
        if (hm.version != s_.host_version(g)) {
            hm.version = s_.host_version(g);
            hm.pairs_done = hm.shuffles_done = hm.kinds_done = hm.bound_done = hm.tops_done = hm.ubs_done = false;
            hm.singles.clear();
            hm.pairs.clear();
            hm.shuffles.clear();
            hm.shuffle_runs.clear();
            hm.shuffle_pending.clear();
            hm.chain.clear();
            hm.pairs_top = {std::numeric_limits<Count>::min(), 0};
            hm.run_top.clear();
            hm.run_least_ram.clear();
            find_singles(flavor, g, hm);
            firsts_of(hm.singles, hm.single_firsts, [](const Mover& x) { return kind(x); });
            hm.flavors.clear();
            hm.group.clear();
            hm.any_remap = false;
            for (const Mover& x : hm.singles) {
                auto it = std::find(hm.flavors.begin(), hm.flavors.end(), x.flavor);
                if (it == hm.flavors.end()) it = hm.flavors.insert(hm.flavors.end(), x.flavor);
                hm.group.push_back(static_cast<int>(it - hm.flavors.begin()));
                hm.any_remap = hm.any_remap || x.remap_at >= 0;
            }
        }
        if (cap_ && flavor == f_ && !hm.ubs_done) single_bounds(flavor, g, hm);
        if (part == Part::Pairs && !hm.pairs_done) {
            hm.pairs_done = true;
            find_pairs(flavor, g, hm);
            firsts_of(hm.pairs, hm.pair_firsts, [](const Pair& pr) { return std::pair{kind(pr.m[0]), kind(pr.m[1])}; });
        }
        if (part == Part::Shuffles && !hm.shuffles_done) {
            hm.shuffles_done = true;
            hm.shuffle_firsts.clear();
            find_shuffles(flavor, g, hm);
            // (outside run_plain shuffle_run keeps them)
            if (plain_)
                firsts_of(hm.shuffles, hm.shuffle_firsts, [](const std::array<Mover, 2>& sh) {
                    return std::pair{kind(sh[0]), kind(sh[1])};
                });
        }
        return hm;
    }

    /** The deficient node set of each placement of `flavor` on g (nodes short of its demand);
     *  false if one has none (it fits already; under a rule that fixes nodes only the rule's
     *  choice fits: the caller knows none does). */
    bool deficits(int flavor, int g, std::vector<NodeMask>& out) const {
        const Flavor& fl = this->flavor(flavor);
        const Amount* free = s_.free_of(g);
        out.clear();
        for (const Embedding& e : placements(flavor, g)) {
            NodeMask d = 0;
            for (int i = 0; i < fl.num_vnuma(); ++i) {
                const int n = e.map[static_cast<std::size_t>(i)];
                for (int r = 0; r < R_; ++r)
                    if (free[n * R_ + r] < fl.node_demand[static_cast<std::size_t>(r)]) d = static_cast<NodeMask>(d | (1U << n));
            }
            // Under a rule that fixes nodes a placement with room may still not be the rule's
            // choice: a VM off any node may change that choice (its deficit set is empty: every
            // VM covers it).
            if (d == 0 && !fixes_) return false;
            out.push_back(d);
        }
        return true;
    }
    static bool covers(const std::vector<NodeMask>& def, NodeMask m) {
        for (const NodeMask d : def)
            if ((d & ~m) == 0) return true;
        return false;
    }

    /** HostSums of g, brought up to date. O(VMs on g) when it changed. */
    const HostSums& sums(int g) {
        cache_.sums.resize(p_.hosts.size());
        HostSums& hs = cache_.sums[static_cast<std::size_t>(g)];
        if (hs.version == s_.host_version(g)) return hs;
        hs = HostSums{s_.host_version(g)};
        const Amount* free = s_.free_of(g);
        for (int n = 0; n < s_.nodes_of(g); ++n) {
            hs.free_vcpu += free[n * R_ + kVcpu];
            hs.free_ram += free[n * R_ + kRamMib];
        }
        const auto top2 = [](Amount& most, Amount& next, Amount a) {
            if (a > most) {
                next = most;
                most = a;
            } else if (a > next) {
                next = a;
            }
        };
        for (const OnlineCluster::Resident& x : c_.vms_on(g))
            if (x.migratable) {
                top2(hs.most_vcpu, hs.next_vcpu, flavor(x.flavor).demand[kVcpu]);
                top2(hs.most_ram, hs.next_ram, flavor(x.flavor).demand[kRamMib]);
            }
        return hs;
    }

    /** What g lacks in total (over its nodes) for a VM of `flavor`, vCPU and RAM (<= 0: nothing),
     *  from its cached HostSums. */
    std::pair<Amount, Amount> total_lack(int flavor, int g) {
        const HostSums& hs = sums(g);
        const Flavor& fl = this->flavor(flavor);
        return {fl.demand[kVcpu] - hs.free_vcpu, fl.demand[kRamMib] - hs.free_ram};
    }

    /** Could one VM's leaving g let a VM of `flavor` fit there (it frees enough in total)? Always
     *  true in run_plain. Necessary for a single. */
    bool may_have_singles(int flavor, int g) {
        if (plain_) return true;
        const auto [lack_vcpu, lack_ram] = total_lack(flavor, g);
        const HostSums& hs = sums(g);
        return hs.most_vcpu >= lack_vcpu && hs.most_ram >= lack_ram;
    }

    /** Ranking by capacity: each single's Mover::ub, the Bound of g for `flavor` with it lifted. */
    void single_bounds(int flavor, int g, HostMovers& hm) {
        hm.ubs_done = true;
        ub_tmp_.assign(s_.free_of(g), s_.free_of(g) + s_.nodes_of(g) * R_);
        for (Mover& m : hm.singles) {
            const Flavor& fx = this->flavor(m.flavor);
            share(ub_tmp_.data(), fx, m.mask, +1);
            m.ub = bound(flavor, g, ub_tmp_.data());
            share(ub_tmp_.data(), fx, m.mask, -1);
        }
    }

    void find_singles(int flavor, int g, HostMovers& hm) {
        if (!may_have_singles(flavor, g)) return;
        if (!deficits(flavor, g, def_)) return;
        const Amount* free = s_.free_of(g);
        tmp_.assign(free, free + s_.nodes_of(g) * R_);
        // A VM that frees less in total than every placement lacks cannot be a single (a quick
        // test before the exact one).
        const auto [short_vcpu, short_ram] = least_short(flavor, g);
        for (const OnlineCluster::Resident& x : c_.vms_on(g)) {
            if (!covers(def_, x.mask) || !x.migratable) continue;
            const Flavor& fx = this->flavor(x.flavor);
            if (!plain_ && (fx.demand[kVcpu] < short_vcpu || fx.demand[kRamMib] < short_ram)) continue;
            share(tmp_.data(), fx, x.mask, +1);
            if (fits(flavor, g, tmp_.data())) {
                Mover m = mover(x, g);
                if (m.remap) m.remap_at = remap_at(flavor, m, g, tmp_.data());
                hm.singles.push_back(m);
            }
            share(tmp_.data(), fx, x.mask, -1);
        }
        std::sort(hm.singles.begin(), hm.singles.end(),
                  [](const Mover& a, const Mover& b) { return std::tie(a.ram, a.vm) < std::tie(b.ram, b.vm); });
    }
    /** Mover::remap_at of the single x on g, `lifted` g's free amounts with x's share free. */
    int remap_at(int flavor, const Mover& x, int g, Amount* lifted) const {
        const Flavor& fx = this->flavor(x.flavor);
        const auto& pl = placements(x.flavor, g);
        for (std::size_t e = 0; e < pl.size(); ++e) {
            if (pl[e].mask == x.mask || !room(fx, pl[e], lifted)) continue;
            share(lifted, fx, pl[e].mask, -1);
            const bool ok = fits(flavor, g, lifted);
            share(lifted, fx, pl[e].mask, +1);
            if (ok) return static_cast<int>(e);
        }
        return -1;
    }
    /** Could x be remapped on g (another placement with room in `lifted`, its share free there)? */
    bool remaps(const Mover& x, int g, const Amount* lifted) const {
        if (fixes_) return false;
        const Flavor& fx = this->flavor(x.flavor);
        for (const Embedding& e : placements(x.flavor, g))
            if (e.mask != x.mask && room(fx, e, lifted)) return true;
        return false;
    }

    /** HostMovers::pairs_top and pairs_least_ram of g for `flavor` (ranking by capacity, outside
     *  run_plain), its singles known, without listing the pairs: what find_pairs would give,
     *  from each pair of VM kinds (flavor, node set) present (a kind with itself when it has two
     *  VMs), which decide its tests and Bound. O(VMs on g + kinds^2 x (fits + Bound)). */
    void pair_tops(int flavor, int g, HostMovers& hm) {
        hm.tops_done = true;
        hm.pairs_least_ram = kNoPair;
        if (!deficits(flavor, g, def_)) return;
        const Amount* free = s_.free_of(g);
        tmp_.assign(free, free + s_.nodes_of(g) * R_);
        NodeMask any_def = 0;
        for (const NodeMask d : def_) any_def = static_cast<NodeMask>(any_def | d);
        kinds_.clear();
        kind_count_.clear();
        for (const OnlineCluster::Resident& x : c_.vms_on(g))
            if ((x.mask & any_def) && x.migratable &&
                std::none_of(hm.singles.begin(), hm.singles.end(), [&x](const Mover& m) { return m.vm == x.vm; })) {
                const auto k = static_cast<std::size_t>(kind_id(x.flavor, x.mask));
                if (k == kind_count_.size()) kind_count_.push_back(0);
                ++kind_count_[k];
            }
        const auto [short_vcpu, short_ram] = least_short(flavor, g);
        for (std::size_t i = 0; i < kinds_.size(); ++i)
            for (std::size_t j = i; j < kinds_.size(); ++j) {
                if (i == j && kind_count_[i] < 2) continue;
                const auto [fa, ma] = kinds_[i];
                const auto [fb, mb] = kinds_[j];
                const Flavor& a = this->flavor(fa);
                const Flavor& b = this->flavor(fb);
                const Amount ram = a.demand[kRamMib] + b.demand[kRamMib];
                if (ram < short_ram || a.demand[kVcpu] + b.demand[kVcpu] < short_vcpu) continue;
                if (!covers(def_, static_cast<NodeMask>(ma | mb))) continue;
                share(tmp_.data(), a, ma, +1);
                share(tmp_.data(), b, mb, +1);
                if (fits(flavor, g, tmp_.data())) {
                    const Bound ub = bound(flavor, g, tmp_.data());
                    hm.pairs_top = std::max(hm.pairs_top, std::make_pair(ub.own, ub.w));
                    hm.pairs_least_ram = std::min(hm.pairs_least_ram, ram);
                }
                share(tmp_.data(), a, ma, -1);
                share(tmp_.data(), b, mb, -1);
            }
    }

    void find_pairs(int flavor, int g, HostMovers& hm) {
        if (!deficits(flavor, g, def_)) return;
        const auto on = c_.vms_on(g);
        const Amount* free = s_.free_of(g);
        tmp_.assign(free, free + s_.nodes_of(g) * R_);
        const auto single = [&](int vm) {
            return std::any_of(hm.singles.begin(), hm.singles.end(), [vm](const Mover& m) { return m.vm == vm; });
        };
        std::vector<Mover> can;  // migratable VMs on a deficient node, not singles
        NodeMask any_def = 0;
        for (const NodeMask d : def_) any_def = static_cast<NodeMask>(any_def | d);
        // Outside run_plain, what a pair decides depends on its two VMs' kinds (flavor and node
        // set) alone: g's free amounts with both lifted. So each kind's Mover::remap, and each
        // pair of kinds' fit, remaps and Bound, are computed once (kind_of_, below).
        kind_of_.clear();
        kinds_.clear();
        kind_remap_.clear();
        for (const OnlineCluster::Resident& x : on)
            if ((x.mask & any_def) && !single(x.vm) && x.migratable) {
                if (plain_) {
                    can.push_back(mover(x, g));
                    continue;
                }
                const int k = kind_id(x.flavor, x.mask);
                if (k == static_cast<int>(kind_remap_.size())) kind_remap_.push_back(mover(x, g).remap);
                Mover m{x.vm, x.flavor, x.mask, this->flavor(x.flavor).demand[kRamMib], kind_remap_[static_cast<std::size_t>(k)] != 0,
                        -1,   {}};
                can.push_back(m);
                kind_of_.push_back(k);
            }
        const std::size_t K = kinds_.size();

        // What the flavor's placements lack on their nodes, the least over them per resource: two
        // VMs that free less in total cannot make room (a quick test before the exact one).
        const auto [short_vcpu, short_ram] = least_short(flavor, g);
        // Ranking by RAM (run_ram alone reads the list: visit, its first pair of each two kinds
        // of VM): only the first pair of each two kinds is kept. The two kinds fix the pair's
        // RAM and every test below, so it is the one of least (VM, VM): each kind's least VM
        // (a kind with itself: its two least). O(VMs + kinds^2).
        if (!cap_ && !plain_) {
            least_x_.assign(K, {-1, -1});
            const auto can_vm = [&](int i) { return can[static_cast<std::size_t>(i)].vm; };
            for (std::size_t i = 0; i < can.size(); ++i)
                keep_least(least_x_[static_cast<std::size_t>(kind_of_[i])], static_cast<int>(i), can_vm);
            for (std::size_t ki = 0; ki < K; ++ki)
                for (std::size_t kj = ki; kj < K; ++kj) {
                    int ia = least_x_[ki][0], ib = ki == kj ? least_x_[ki][1] : least_x_[kj][0];
                    if (ia < 0 || ib < 0) continue;
                    if (can[static_cast<std::size_t>(ib)].vm < can[static_cast<std::size_t>(ia)].vm) std::swap(ia, ib);
                    const Mover& a = can[static_cast<std::size_t>(ia)];  // the lower VM first, as Pair::m
                    const Mover& b = can[static_cast<std::size_t>(ib)];
                    const KindPair two = kind_pair(a, b, flavor, g, short_vcpu, short_ram);
                    if (!two.fits) continue;
                    Pair pr;
                    pr.m = {a, b};
                    pr.b_after_a = two.remap_b;
                    pr.a_after_b = two.remap_a;
                    hm.pairs.push_back(pr);
                }
        }
        // Ranking by capacity (run_capacity reads every pair): every pair, each two kinds tested
        // once (their fit, remaps and Bound), then every two VMs of those kinds listed.
        // O(VMs + kinds^2 + pairs listed).
        if (cap_ && !plain_) {
            kind_vms_.resize(K);
            for (auto& l : kind_vms_) l.clear();
            for (std::size_t i = 0; i < can.size(); ++i) kind_vms_[static_cast<std::size_t>(kind_of_[i])].push_back(static_cast<int>(i));
            for (std::size_t ki = 0; ki < K; ++ki)
                for (std::size_t kj = ki; kj < K; ++kj) {
                    if (ki == kj && kind_vms_[ki].size() < 2) continue;
                    const KindPair two = kind_pair(can[static_cast<std::size_t>(kind_vms_[ki].front())],
                                                   can[static_cast<std::size_t>(kind_vms_[kj].back())], flavor, g, short_vcpu, short_ram);
                    if (!two.fits) continue;
                    const bool remap_a = two.remap_a, remap_b = two.remap_b;
                    const Bound ub = two.ub;
                    hm.pairs_top = std::max(hm.pairs_top, std::make_pair(ub.own, ub.w));
                    for (const int i : kind_vms_[ki])
                        for (const int j : kind_vms_[kj]) {
                            if (ki == kj && j <= i) continue;
                            const Mover& x = can[static_cast<std::size_t>(i)];  // of kind ki
                            const Mover& y = can[static_cast<std::size_t>(j)];  // of kind kj
                            Pair pr;
                            const bool xy = x.vm < y.vm;
                            pr.m = xy ? std::array<Mover, 2>{x, y} : std::array<Mover, 2>{y, x};
                            pr.b_after_a = xy ? remap_b : remap_a;
                            pr.a_after_b = xy ? remap_a : remap_b;
                            pr.ub = ub;
                            hm.pairs.push_back(pr);
                        }
                }
        }
        // run_plain: every pair, each tested on its own (no quick test, no memo).
        for (std::size_t i = 0; i < can.size() && plain_; ++i)
            for (std::size_t j = i + 1; j < can.size(); ++j) {
                const Mover& a = can[i];
                const Mover& b = can[j];
                if (!covers(def_, static_cast<NodeMask>(a.mask | b.mask))) continue;
                share(tmp_.data(), this->flavor(a.flavor), a.mask, +1);
                share(tmp_.data(), this->flavor(b.flavor), b.mask, +1);
                if (fits(flavor, g, tmp_.data())) {
                    Pair pr;
                    const bool ab = a.vm < b.vm;
                    const bool remap_a = remaps(a, g, tmp_.data()), remap_b = remaps(b, g, tmp_.data());
                    pr.m = ab ? std::array<Mover, 2>{a, b} : std::array<Mover, 2>{b, a};
                    pr.b_after_a = ab ? remap_b : remap_a;
                    pr.a_after_b = ab ? remap_a : remap_b;
                    if (cap_) {
                        pr.ub = bound(flavor, g, tmp_.data());
                        hm.pairs_top = std::max(hm.pairs_top, std::make_pair(pr.ub.own, pr.ub.w));
                    }
                    hm.pairs.push_back(pr);
                }
                share(tmp_.data(), this->flavor(a.flavor), a.mask, -1);
                share(tmp_.data(), this->flavor(b.flavor), b.mask, -1);
            }
        const auto pair_key = [](const Pair& p) { return std::make_tuple(p.m[0].ram + p.m[1].ram, p.m[0].vm, p.m[1].vm); };
        std::sort(hm.pairs.begin(), hm.pairs.end(), [&](const Pair& a, const Pair& b) { return pair_key(a) < pair_key(b); });
    }

    /** find_pairs outside run_plain: what two VM kinds decide, tested on a VM of each (a, b):
     *  whether lifting both lets `flavor` fit on g (after the quick tests on their totals and
     *  node sets), each one's remap with both lifted and, ranking by capacity, g's Bound then.
     *  tmp_ holds g's free amounts, as on return. */
    struct KindPair {
        bool fits = false, remap_a = false, remap_b = false;
        Bound ub;
    };
    KindPair kind_pair(const Mover& a, const Mover& b, int flavor, int g, Amount short_vcpu, Amount short_ram) {
        KindPair out;
        const Flavor& fa = this->flavor(a.flavor);
        const Flavor& fb = this->flavor(b.flavor);
        if (a.ram + b.ram < short_ram || fa.demand[kVcpu] + fb.demand[kVcpu] < short_vcpu) return out;
        if (!covers(def_, static_cast<NodeMask>(a.mask | b.mask))) return out;
        share(tmp_.data(), fa, a.mask, +1);
        share(tmp_.data(), fb, b.mask, +1);
        out.fits = fits(flavor, g, tmp_.data());
        if (out.fits) {
            out.remap_a = remaps(a, g, tmp_.data());
            out.remap_b = remaps(b, g, tmp_.data());
            if (cap_) out.ub = bound(flavor, g, tmp_.data());
        }
        share(tmp_.data(), fa, a.mask, -1);
        share(tmp_.data(), fb, b.mask, -1);
        return out;
    }

    /** What the placements of `flavor` on g lack on their nodes, vCPU and RAM, each the least over
     *  them: VMs whose removal frees less in total cannot make room. O(placements). */
    std::pair<Amount, Amount> least_short(int flavor, int g) const {
        const Amount* free = s_.free_of(g);
        Amount short_vcpu = std::numeric_limits<Amount>::max(), short_ram = short_vcpu;
        const Flavor& ff = this->flavor(flavor);
        for (const Embedding& e : placements(flavor, g)) {
            const auto [sv, sr] = lacks(ff, e, free);
            short_vcpu = std::min(short_vcpu, sv);
            short_ram = std::min(short_ram, sr);
        }
        return {short_vcpu, short_ram};
    }
    /** The vCPU and RAM the nodes of placement e lack, in `free`, for a VM of `fl`. */
    std::array<Amount, 2> lacks(const Flavor& fl, const Embedding& e, const Amount* free) const {
        std::array<Amount, 2> out{0, 0};
        for (int i = 0; i < fl.num_vnuma(); ++i) {
            const Amount* n = free + e.map[static_cast<std::size_t>(i)] * R_;
            out[0] += std::max<Amount>(0, fl.node_demand[kVcpu] - n[kVcpu]);
            out[1] += std::max<Amount>(0, fl.node_demand[kRamMib] - n[kRamMib]);
        }
        return out;
    }

    /** Shuffles: y leaves g (anywhere), then the single x is remapped into the room. */
    /** find_shuffles' test and Bound for the single x (on g, for `flavor`) and a y of kind
     *  (yf, ym) that leaves g first: `memo` filled (done); tmp_ holds g's free amounts, as on
     *  return. */
    void shuffle_value(ShuffleMemo& memo, const Mover& x, int yf, NodeMask ym, int g, int flavor) {
        const Flavor& fx = this->flavor(x.flavor);
        const Flavor& fy = this->flavor(yf);
        const auto& pl = placements(x.flavor, g);
        memo.done = true;
        share(tmp_.data(), fy, ym, +1);
        bool ok = false;
        for (std::size_t e = 0; e < pl.size() && !ok; ++e) {
            if (pl[e].mask == x.mask) continue;
            share(tmp_.data(), fx, x.mask, +1);
            if (room(fx, pl[e], tmp_.data())) {
                share(tmp_.data(), fx, pl[e].mask, -1);
                ok = fits(flavor, g, tmp_.data());
                share(tmp_.data(), fx, pl[e].mask, +1);
            }
            share(tmp_.data(), fx, x.mask, -1);
        }
        memo.ok = ok;
        if (ok) {
            memo.remap = can_remap(Mover{-1, yf, ym, fy.demand[kRamMib], false, -1, {}}, g);  // on g as it is (tmp2_)
            if (cap_) {
                // x stays on g (no other host takes it, else it would be a plan of one step), on
                // one of its other placements with room that lets the flavor fit: g ends with at
                // most that, whatever y does.
                share(tmp_.data(), fx, x.mask, +1);
                bool any = false;
                for (const Embedding& e : pl) {
                    if (e.mask == x.mask || !room(fx, e, tmp_.data())) continue;
                    share(tmp_.data(), fx, e.mask, -1);
                    if (fits(flavor, g, tmp_.data())) {
                        widen(memo.ub, bound(flavor, g, tmp_.data()), any);
                        any = true;
                    }
                    share(tmp_.data(), fx, e.mask, +1);
                }
                share(tmp_.data(), fx, x.mask, -1);
            }
        }
        share(tmp_.data(), fy, ym, -1);
    }

    /** The nodes of placement e whose free amounts in tmp_ are short of a vNUMA node of `fl`. */
    NodeMask short_nodes(const Flavor& fl, const Embedding& e) const {
        NodeMask m = 0;
        for (int i = 0; i < fl.num_vnuma(); ++i) {
            const int node = e.map[static_cast<std::size_t>(i)];
            for (int r = 0; r < R_; ++r)
                if (tmp_[static_cast<std::size_t>(node * R_ + r)] < fl.node_demand[static_cast<std::size_t>(r)])
                    m = static_cast<NodeMask>(m | (1U << node));
        }
        return m;
    }

    /** The node sets a VM y must cover for the single x (of kind `xk`) to be remapped on g once y
     *  has left, so that `flavor` fits (find_shuffles); outside run_plain kept per kind until
     *  the next host's shuffles. tmp_ holds g's free amounts, as on return. */
    const std::vector<NodeMask>& shuffle_need(const Mover& x, int g, int flavor, std::size_t xk) {
        const Flavor& fx = this->flavor(x.flavor);
        const Flavor& ff = this->flavor(flavor);
        const auto& pl = placements(x.flavor, g);
        const auto& fpl = placements(flavor, g);
        if (need_memo_.size() <= xk) need_memo_.resize(xk + 1);
        auto& [known, need] = need_memo_[xk];
        if (!plain_ && known) return need;
        known = true;
        need.clear();
        share(tmp_.data(), fx, x.mask, +1);
        for (const Embedding& e : pl) {
            if (e.mask == x.mask) continue;
            const NodeMask short_x = short_nodes(fx, e);
            share(tmp_.data(), fx, e.mask, -1);
            for (const Embedding& q : fpl) need.push_back(static_cast<NodeMask>(short_x | short_nodes(ff, q)));
            share(tmp_.data(), fx, e.mask, +1);
        }
        share(tmp_.data(), fx, x.mask, -1);
        std::sort(need.begin(), need.end());
        need.erase(std::unique(need.begin(), need.end()), need.end());
        return need;
    }

    void find_shuffles(int flavor, int g, HostMovers& hm) {
        if (fixes_ || !deficits(flavor, g, def_)) return;  // no remaps under a rule that fixes nodes
        // Outside run_plain, run by run (shuffle_run).
        if (!plain_) {
            shuffle_run(flavor, g, hm, -1);
            return;
        }
        // run_plain: every single x and VM y, each tested on its own (no quick test, no memo).
        for (auto& n : need_memo_) n.first = false;
        const auto on = c_.vms_on(g);
        const Amount* free = s_.free_of(g);
        tmp_.assign(free, free + s_.nodes_of(g) * R_);
        for (const Mover& x : hm.singles) {
            // A single with a remap of its own is a plan of one step: the search never gets to
            // the shuffles then.
            if (x.remap_at >= 0) continue;
            // The node sets y must cover: for a remap of x onto p, the nodes of p short of x's
            // share (x lifted), and those of some placement of the flavor short after it.
            const std::vector<NodeMask>& need = shuffle_need(x, g, flavor, 0);
            for (const OnlineCluster::Resident& y : on) {
                if (y.vm == x.vm || !y.migratable || !covers(need, y.mask)) continue;
                ShuffleMemo memo;
                shuffle_value(memo, x, y.flavor, y.mask, g, flavor);
                if (memo.ok) {
                    Mover my{y.vm, y.flavor, y.mask, this->flavor(y.flavor).demand[kRamMib], memo.remap, -1, {}};
                    my.ub = memo.ub;
                    hm.shuffles.push_back({my, x});
                }
            }
        }
        const auto shuffle_key = [](const std::array<Mover, 2>& t) {
            return std::make_tuple(t[0].ram + t[1].ram, std::min(t[0].vm, t[1].vm), std::max(t[0].vm, t[1].vm), t[0].vm);
        };
        const auto run_of = [](const std::array<Mover, 2>& t) { return t[0].remap ? -1 : t[0].flavor; };
        std::sort(hm.shuffles.begin(), hm.shuffles.end(), [&](const std::array<Mover, 2>& a, const std::array<Mover, 2>& b) {
            return std::make_pair(run_of(a), shuffle_key(a)) < std::make_pair(run_of(b), shuffle_key(b));
        });
        for (std::size_t i = 0; i < hm.shuffles.size(); ++i) {
            const int r = run_of(hm.shuffles[i]);
            const auto& sh = hm.shuffles[i];
            const std::pair<Count, Score> v{sh[0].ub.own, sh[0].ub.w};
            if (hm.shuffle_runs.empty() || hm.shuffle_runs.back()[0] != r) {
                hm.shuffle_runs.push_back({r, static_cast<int>(i), static_cast<int>(i)});
                hm.run_top.push_back(v);
                hm.run_least_ram.push_back(sh[0].ram + sh[1].ram);
            }
            hm.shuffle_runs.back()[2] = static_cast<int>(i) + 1;
            hm.run_top.back() = std::max(hm.run_top.back(), v);
            hm.run_least_ram.back() = std::min(hm.run_least_ram.back(), sh[0].ram + sh[1].ram);
        }
    }
    /**
     * find_shuffles outside run_plain, for the y of one run: `run` -1, the y whose kind has a
     * remap (then also HostMovers::shuffle_pending, the flavors of the other y); `run` a flavor,
     * that flavor's y without one (visit and run_capacity list a pending run when another host
     * takes its flavor: else the run is skipped whole, as most are on a saturated cluster). The
     * run's shuffles are appended to hm.shuffles in plan order, with their run and the first of
     * each two kinds (and ranking by capacity the run's largest Bound and least RAM). Every test
     * reads x's and y's kinds alone, so two kinds pass or fail whole. Ranking by RAM (only visit
     * reads the list) only the first shuffle of each two kinds is listed: the order kept, (least
     * VM, greatest VM, y), grows with each VM, so it is among the two least VMs of each (the
     * second only when the first is the other's); O(VMs + singles + kinds^2). Ranking by
     * capacity (run_capacity reads them all) every shuffle, each two kinds valued once.
     */
    void shuffle_run(int flavor, int g, HostMovers& hm, int run) {
        kinds_.clear();
        for (auto& n : need_memo_) n.first = false;
        const auto on = c_.vms_on(g);
        on_kind_.clear();
        for (const OnlineCluster::Resident& y : on) on_kind_.push_back(kind_id(y.flavor, y.mask));
        const std::size_t KS = kinds_.size();  // every VM on g has its kind now, x's too
        const Amount* free = s_.free_of(g);
        tmp_.assign(free, free + s_.nodes_of(g) * R_);
        // A remap leaves the host's totals as they are: y alone must free what the host lacks in
        // total for the flavor, a quick test before the exact one.
        const auto [short_vcpu, short_ram] = total_lack(flavor, g);
        // A single with a remap of its own is a plan of one step: the search never gets to the
        // shuffles then.
        if (std::all_of(hm.singles.begin(), hm.singles.end(), [](const Mover& x) { return x.remap_at >= 0; })) return;
        const auto on_vm = [&](int i) { return on[static_cast<std::size_t>(i)].vm; };
        const auto x_vm = [&](int i) { return hm.singles[static_cast<std::size_t>(i)].vm; };
        if (!cap_) {
            least_y_.assign(KS, {-1, -1});
            least_x_.assign(KS, {-1, -1});
            for (std::size_t yi = 0; yi < on.size(); ++yi)
                if (on[yi].migratable) keep_least(least_y_[static_cast<std::size_t>(on_kind_[yi])], static_cast<int>(yi), on_vm);
            for (std::size_t i = 0; i < hm.singles.size(); ++i)
                if (const Mover& x = hm.singles[i]; x.remap_at < 0)
                    keep_least(least_x_[static_cast<std::size_t>(kind_id(x.flavor, x.mask))], static_cast<int>(i), x_vm);
        }
        const std::size_t begin = hm.shuffles.size();
        // Ranking by capacity (run_capacity reads every shuffle and its Bound): every single x and
        // VM y of the run, what the two kinds decide computed once per two kinds.
        if (cap_) {
            shuffle_memo_.assign(KS * KS, ShuffleMemo{});
            y_remap_.assign(KS, -1);
            for (const Mover& x : hm.singles) {
                if (x.remap_at >= 0) continue;
                const auto xk = static_cast<std::size_t>(kind_id(x.flavor, x.mask));
                const std::vector<NodeMask>& need = shuffle_need(x, g, flavor, xk);
                for (std::size_t yi = 0; yi < on.size(); ++yi) {
                    const OnlineCluster::Resident& y = on[yi];
                    if (y.vm == x.vm || !y.migratable || !covers(need, y.mask)) continue;
                    const Flavor& fy = this->flavor(y.flavor);
                    if (fy.demand[kVcpu] < short_vcpu || fy.demand[kRamMib] < short_ram) continue;
                    const auto yk = static_cast<std::size_t>(on_kind_[yi]);
                    if (y_remap_[yk] < 0)
                        y_remap_[yk] = can_remap(Mover{-1, y.flavor, y.mask, fy.demand[kRamMib], false, -1, {}}, g) ? 1 : 0;
                    if (!in_run(hm, y.flavor, y_remap_[yk] != 0, run)) continue;
                    ShuffleMemo& memo = shuffle_memo_[xk * KS + yk];
                    if (!memo.done) shuffle_value(memo, x, y.flavor, y.mask, g, flavor);
                    if (memo.ok) {
                        Mover my{y.vm, y.flavor, y.mask, fy.demand[kRamMib], memo.remap, -1, {}};
                        my.ub = memo.ub;
                        hm.shuffles.push_back({my, x});
                    }
                }
            }
        }
        for (std::size_t yk = 0; yk < KS && !cap_; ++yk) {
            if (least_y_[yk][0] < 0) continue;
            const OnlineCluster::Resident& y0 = on[static_cast<std::size_t>(least_y_[yk][0])];
            if (run >= 0 && y0.flavor != run) continue;
            const Flavor& fy = this->flavor(y0.flavor);
            if (fy.demand[kVcpu] < short_vcpu || fy.demand[kRamMib] < short_ram) continue;
            // y's run: -1 when its kind has a remap on g (Mover::remap, as shuffle_value's).
            const bool remap = can_remap(Mover{-1, y0.flavor, y0.mask, fy.demand[kRamMib], false, -1, {}}, g);
            if (!in_run(hm, y0.flavor, remap, run)) continue;
            for (std::size_t xk = 0; xk < KS; ++xk) {
                if (least_x_[xk][0] < 0) continue;
                const Mover& x0 = hm.singles[static_cast<std::size_t>(least_x_[xk][0])];
                const std::vector<NodeMask>& need = shuffle_need(x0, g, flavor, xk);
                if (!covers(need, y0.mask)) continue;
                ShuffleMemo memo;
                shuffle_value(memo, x0, y0.flavor, y0.mask, g, flavor);
                if (!memo.ok) continue;
                const auto order = [](int yv, int xv) { return std::make_tuple(std::min(yv, xv), std::max(yv, xv), yv); };
                int bx = -1, by = -1;
                for (const int xi : least_x_[xk])
                    for (const int yi : least_y_[yk]) {
                        if (xi < 0 || yi < 0 || x_vm(xi) == on_vm(yi)) continue;
                        if (bx < 0 || order(on_vm(yi), x_vm(xi)) < order(on_vm(by), x_vm(bx))) {
                            bx = xi;
                            by = yi;
                        }
                    }
                if (bx < 0) continue;
                const OnlineCluster::Resident& y = on[static_cast<std::size_t>(by)];
                Mover my{y.vm, y.flavor, y.mask, fy.demand[kRamMib], memo.remap, -1, {}};
                my.ub = memo.ub;
                hm.shuffles.push_back({my, hm.singles[static_cast<std::size_t>(bx)]});
            }
        }
        const auto shuffle_key = [](const std::array<Mover, 2>& t) {
            return std::make_tuple(t[0].ram + t[1].ram, std::min(t[0].vm, t[1].vm), std::max(t[0].vm, t[1].vm), t[0].vm);
        };
        std::sort(hm.shuffles.begin() + static_cast<std::ptrdiff_t>(begin), hm.shuffles.end(),
                  [&](const std::array<Mover, 2>& a, const std::array<Mover, 2>& b) { return shuffle_key(a) < shuffle_key(b); });
        const int b = static_cast<int>(begin), e = static_cast<int>(hm.shuffles.size());
        if (e == b) return;
        hm.shuffle_runs.push_back({run, b, e});
        if (!cap_) {
            for (int i = b; i < e; ++i) hm.shuffle_firsts.push_back(i);  // one per two kinds
            return;
        }
        // The first of each two kinds (visit's), the run's largest Bound and least RAM
        // (run_capacity's).
        std::vector<std::pair<Kind, Kind>> seen;
        std::pair<Count, Score> top{std::numeric_limits<Count>::min(), 0};
        Amount least = std::numeric_limits<Amount>::max();
        for (int i = b; i < e; ++i) {
            const auto& sh = hm.shuffles[static_cast<std::size_t>(i)];
            if (first_time(seen, std::pair{kind(sh[0]), kind(sh[1])})) hm.shuffle_firsts.push_back(i);
            top = std::max(top, std::make_pair(sh[0].ub.own, sh[0].ub.w));
            least = std::min(least, sh[0].ram + sh[1].ram);
        }
        hm.run_top.push_back(top);
        hm.run_least_ram.push_back(least);
    }
    /** `two` := the two of least vm_of among its entries and i (-1: none yet), least first. */
    template <class VmOf>
    static void keep_least(std::array<int, 2>& two, int i, const VmOf& vm_of) {
        if (two[0] < 0 || vm_of(i) < vm_of(two[0])) {
            two[1] = two[0];
            two[0] = i;
        } else if (two[1] < 0 || vm_of(i) < vm_of(two[1])) {
            two[1] = i;
        }
    }
    /** shuffle_run: is a y of `flavor` (with a remap or not) in `run`? When `run` is -1 and it is
     *  not (no remap), its flavor is kept pending (HostMovers::shuffle_pending). */
    static bool in_run(HostMovers& hm, int flavor, bool remap, int run) {
        if (run >= 0) return !remap && flavor == run;
        if (!remap && std::find(hm.shuffle_pending.begin(), hm.shuffle_pending.end(), flavor) == hm.shuffle_pending.end())
            hm.shuffle_pending.push_back(flavor);
        return remap;
    }
    /** The index of the kind (flavor, node set) in kinds_, added when new (kind_remap_ is then
     *  one shorter than kinds_ until the caller adds its entry). O(kinds). */
    int kind_id(int flavor, NodeMask mask) {
        const Kind k{flavor, mask};
        for (std::size_t i = 0; i < kinds_.size(); ++i)
            if (kinds_[i] == k) return static_cast<int>(i);
        kinds_.push_back(k);
        return static_cast<int>(kinds_.size()) - 1;
    }
    /** A VM's kind: its flavor and pNUMA node set, which with its host decide how it can move. */
    using Kind = std::pair<int, NodeMask>;
    static Kind kind(const Mover& m) { return Kind{m.flavor, m.mask}; }
    /** Adds `k` to `seen` unless it is there; whether it was not (a linear scan: a host's VMs are
     *  of few kinds). */
    template <class K>
    static bool first_time(std::vector<K>& seen, const K& k) {
        if (std::find(seen.begin(), seen.end(), k) != seen.end()) return false;
        seen.push_back(k);
        return true;
    }
    /** `out`: the indices (ascending) of the items of `list` whose key(item) is met for the first
     *  time in list order. O(items x distinct keys). */
    template <class T, class KeyOf>
    static void firsts_of(const std::vector<T>& list, std::vector<int>& out, KeyOf key) {
        using K = decltype(key(list.front()));
        std::vector<K> seen;
        out.clear();
        for (std::size_t i = 0; i < list.size(); ++i)
            if (first_time(seen, key(list[i]))) out.push_back(static_cast<int>(i));
    }
    Mover mover(const OnlineCluster::Resident& x, int g) {
        Mover m{x.vm, x.flavor, x.mask, flavor(x.flavor).demand[kRamMib], false, -1, {}};
        m.remap = can_remap(m, g);
        return m;
    }

    /** One step: x off g, the arriving VM then fits on g. */
    bool one(const Mover& x, int g) {
        if (!movable(x, g)) return false;
        const Overlay none(s_);
        for (const Dest& d : options(x, g, none, 0)) {
            Overlay ov(s_);
            if (!apply(ov, x, g, d) || !fits(f_, g, ov.get(g))) continue;
            steps_ = {Step{x, g, d}};
            done_.emplace(ov);
            return true;
        }
        return false;
    }

    /** Two steps: t.a off t.from_a, then t.b off t.host (to t.from_a when forced); the arriving
     *  VM then fits on t.host. The first plan in options' order, its steps in steps_ and its
     *  hosts' amounts in done_; a key refuted earlier in this call (two_known_) is not tried again. */
    bool plan_two(const Two& t) {
        if (!movable(t.a, t.from_a)) return false;
        const auto [it, added] = two_known_.try_emplace(two_key(t), false);
        if (!added && !it->second) return false;
        it->second = plan_two_tried(t);
        return it->second;
    }
    /** Whether plan_two(t) would find a plan, without its steps (steps_ and done_ may change). */
    bool two_works(const Two& t) {
        if (!movable(t.a, t.from_a)) return false;
        const auto [it, added] = two_known_.try_emplace(two_key(t), false);
        if (added) it->second = plan_two_tried(t);
        return it->second;
    }
    /** try_two's answer without its steps. */
    bool works_two(const Two& t) {
        if (t.pair && t.both_orders && elsewhere(t.a.flavor, t.host) && elsewhere(t.b.flavor, t.host)) return pair_either(t);
        return two_works(t) || (t.both_orders && two_works(reversed(t)));
    }
    static Two reversed(const Two& t) {
        Two r{t.ram, t.host, t.b, t.a, t.from_a, false, false};
        r.pair = t.pair;
        r.b_after = t.a_after;
        r.a_after = t.b_after;
        return r;
    }
    /**
     * works_two for a pair that visit left a maybe (both its VMs have another host, so it may
     * go in both orders): whether plan_two_tried finds a plan for t or for reversed(t), without
     * trying them. plan_two_tried takes the first VM to another host of its top() or to another
     * placement on g = t.host, then the second to another host of its top() outside those two,
     * to the first's host with the first there, or to another placement on g, and asks that the
     * flavor fits on g, which it does once both have left (a pair). So a plan in one order is:
     *  - both to other hosts (pair_lands, kept per call by the two flavors when g is not among
     *    their top hosts);
     *  - the first to another host, then the second re-placed on g (remap_after without a
     *    remap; needs Two::b_after);
     *  - the first re-placed on g, then the second to another host or re-placed on g. Not
     *    tried: the other order's plan of the previous kind then works (the second leaves first,
     *    or the first leaves: it has another host; then the other is re-placed where it went,
     *    with more room, and the flavor fits in the same or a roomier end state).
     */
    bool pair_either(const Two& t) {
        const auto one = [&](const Two& o) {
            return pair_lands(o.a, o.b, o.host) || (o.b_after && elsewhere(o.a.flavor, o.host) && remap_after(o.a, o.b, o.host, false));
        };
        return one(t) || one(reversed(t));
    }
    /** pair_either: can a (off g) go to another host of top(a), and then b to another host of
     *  top(b) that is neither g nor a's, or to a's with a there? */
    bool pair_lands(const Mover& a, const Mover& b, int g) {
        const std::vector<Dest>& ta = top(a.flavor);
        const std::vector<Dest>& tb = top(b.flavor);
        bool touches = false;
        for (const Dest& d : ta) touches = touches || d.host == g;
        for (const Dest& d : tb) touches = touches || d.host == g;
        signed char* known = nullptr;
        if (!touches) {
            const std::size_t F = p_.flavors.size();
            if (lands_.size() != F * F) lands_.assign(F * F, -1);
            known = &lands_[static_cast<std::size_t>(a.flavor) * F + static_cast<std::size_t>(b.flavor)];
            if (*known >= 0) return *known != 0;
        }
        bool ok = false;
        for (const Dest& d1 : ta) {
            if (d1.host == g) continue;
            for (const Dest& d2 : tb) ok = ok || (d2.host != g && d2.host != d1.host);
            if (ok) break;
            Overlay ov(s_);
            if (apply(ov, a, g, d1) && dest_on(b.flavor, d1.host, ov.get(d1.host)).host >= 0) {
                ok = true;
                break;
            }
        }
        if (known != nullptr) *known = ok ? 1 : 0;
        return ok;
    }
    /** What plan_two's outcome depends on besides the state, which a call does not change: the
     *  hosts, the two VMs' kinds (flavor, node set) and whether the second step is forced. On a
     *  saturated cluster most candidates fail, and many of one call share their key (measured on
     *  the 5.7-day Azure ×3 run at 1,200 hosts under best fit: 95% of the tries). */
    struct TwoKey {
        int host, from, fa, fb;
        NodeMask ma, mb;
        bool forced;
        bool operator==(const TwoKey&) const = default;
    };
    struct TwoKeyHash {
        std::size_t operator()(const TwoKey& k) const {
            constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ULL;
            std::uint64_t h = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.host)) << 32) ^ static_cast<std::uint32_t>(k.from);
            h = h * kMul ^ ((static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.fa)) << 32) | static_cast<std::uint32_t>(k.fb));
            h = h * kMul ^ ((static_cast<std::uint64_t>(k.ma) << 17) | (static_cast<std::uint64_t>(k.mb) << 1) | (k.forced ? 1U : 0U));
            return static_cast<std::size_t>(h ^ (h >> 29));
        }
    };
    static TwoKey two_key(const Two& t) { return TwoKey{t.host, t.from_a, t.a.flavor, t.b.flavor, t.a.mask, t.b.mask, t.forced}; }
    bool plan_two_tried(const Two& t) {
        const Overlay none(s_);
        for (const Dest& d1 : options(t.a, t.from_a, none, 0)) {
            Overlay ov(s_);
            if (!apply(ov, t.a, t.from_a, d1)) continue;
            std::vector<Dest>& o2 = opts_[1];
            if (t.forced) {
                o2.clear();
                if (const Dest d = dest_on(t.b.flavor, t.from_a, ov.get(t.from_a)); d.host >= 0) o2.push_back(d);
            } else {
                options(t.b, t.host, ov, 1);
            }
            for (const Dest& d2 : o2) {
                Overlay ov2 = ov;
                if (!apply(ov2, t.b, t.host, d2) || !fits(f_, t.host, ov2.get(t.host))) continue;
                steps_ = {Step{t.a, t.from_a, d1}, Step{t.b, t.host, d2}};
                done_.emplace(ov2);
                return true;
            }
        }
        return false;
    }

    /** Chains: a single x on g that no host takes, after a VM z off a host d != g (the least RAM
     *  first, then the lowest index) made room for it on d; each single's chain is offered as
     *  sure (sure()). A z another host takes works unless that host is g (then it is tried); one
     *  only a remap could move works iff its remap_at does (its host d only changes, x has room
     *  there after it iff its flavor has; g keeps x's room). */
    void chains() {
        // A chain's outcome depends on its VMs' kinds (flavor, node set) and hosts alone, and of
        // the VMs of one kind on one host the first in (RAM, VM) order has the least plan key:
        // only that one of each kind is looked at, as x (Flat) and as z (mobile_singles). The x
        // are taken by flavor in RAM order (a flavor fixes the RAM): the best sure chain does not
        // depend on the order they are offered in, and a flavor with no z that could move first
        // is skipped whole.
        zs_mobile_.resize(p_.flavors.size());
        zs_done_.assign(p_.flavors.size(), 0);
        zs_c_.resize(p_.flavors.size());
        zs_c_done_.assign(p_.flavors.size(), 0);
        const MakeRoomCache::Impl::Flat& fl = flat(f_);
        // After a failing call (restrict_to_changed) an x off a host outside C needs a z off a
        // host of C or of a rare flavor: without rare flavors, the z of the hosts of C alone,
        // read from their lists (the whole list of the flavor is not brought up to date), and
        // the x of the hosts of C, which may take any z, read from theirs.
        const bool c_only = restricted_ && !any_rare_;
        if (c_only)
            for (const int c : c_hosts_) {
                if (!may_have_singles(f_, c)) continue;
                const HostMovers& hm = movers(f_, c, Part::Singles);
                for (const int i : hm.single_firsts) {
                    const SingleRef xr = ref(hm, i, c);
                    if (has_sure_ && xr.ram >= best_sure_.ram) continue;
                    for (const SingleRef& mr : mobile_zs(xr.flavor)) try_chain(xr, true, mr);
                }
            }
        for (const int y : fl.flavors) {
            const auto& xs = fl.of[static_cast<std::size_t>(y)];
            if (has_sure_ && xs.front().ram >= best_sure_.ram) break;  // none better
            const std::vector<SingleRef>& z = c_only ? c_zs(y) : mobile_zs(y);
            if (z.empty()) continue;
            for (const SingleRef& xr : xs) {
                const bool x_new = !restricted_ || in_c_[static_cast<std::size_t>(xr.host)] != 0;
                if (c_only && x_new) continue;  // above
                for (const SingleRef& mr : z) try_chain(xr, x_new, mr);
            }
        }
    }
    /** chains(): the z that could move first for an x of flavor y (mobile_singles), this call. */
    const std::vector<SingleRef>& mobile_zs(int y) {
        std::vector<SingleRef>& z = zs_mobile_[static_cast<std::size_t>(y)];
        if (!zs_done_[static_cast<std::size_t>(y)]) {
            zs_done_[static_cast<std::size_t>(y)] = 1;
            mobile_singles(y, z);
        }
        return z;
    }
    /** chains(), restricted_ without rare flavors: mobile_zs(y) of the hosts of C alone. */
    const std::vector<SingleRef>& c_zs(int y) {
        std::vector<SingleRef>& z = zs_c_[static_cast<std::size_t>(y)];
        if (!zs_c_done_[static_cast<std::size_t>(y)]) {
            zs_c_done_[static_cast<std::size_t>(y)] = 1;
            z.clear();
            for (const int c : c_hosts_)
                if (may_have_singles(y, c)) add_mobile_singles(y, c, z);
        }
        return z;
    }
    /** chains(): the chain "z (mr) off its host d, then x (xr) off g into d", offered as sure
     *  when it works and its plan key (Two::key) is below the best sure one's; `x_new`: x's host
     *  is in C or the call is not restricted. The z lists are in no order (sorting them cost
     *  more than reading each whole): the best chain is the least key that works, whatever
     *  the order its chains are offered in. */
    void try_chain(const SingleRef& xr, bool x_new, const SingleRef& mr) {
        const int g = xr.host, d = mr.host;
        if (d == g) return;
        if (!x_new && !may_be_new(d, mr.flavor)) return;
        if (has_sure_ && !(std::make_tuple(xr.ram + mr.ram, g, std::min(xr.vm, mr.vm), std::max(xr.vm, mr.vm), mr.vm) < best_sure_.key()))
            return;
        const Mover& x = single(f_, xr);
        const Mover& m = single(xr.flavor, mr);
        const Two t{x.ram + m.ram, g, m, x, d, true, false};
        // z to another host: sure unless that host is g; else its remap (remap_at, the same
        // test plan_two makes: z remapped, then a VM of x's flavor fits on d).
        const int o1 = first_other(m.flavor, d);
        if (o1 < 0 || o1 != g || chain_via_g(xr, mr)) sure(t);
    }
    /** try_chain's answer when z's first other host is x's host g: plan_two_tried's for the
     *  chain, without trying it. It takes z to a host of top(z) other than d, or re-places it
     *  on d, then x to d (where a VM of x's flavor fits once z has left: z is a single for it),
     *  and asks that the flavor fits on g. So the chain works when top(z) has a host other than
     *  d and g (g then only loses x, a single), when z has a remap (remap_at: then x fits on d),
     *  or when the flavor fits on g with z landed where top() puts it and x gone, which depends
     *  on x and z's flavor alone (kept per x this call). */
    bool chain_via_g(const SingleRef& xr, const SingleRef& mr) {
        const int g = xr.host;
        const Dest* at_g = nullptr;
        for (const Dest& o : top(mr.flavor)) {
            if (o.host != mr.host && o.host != g) return true;
            if (o.host == g) at_g = &o;
        }
        if (mr.remap) return true;
        if (at_g == nullptr) return false;
        if (via_x_ != std::make_pair(xr.vm, g)) {
            via_x_ = {xr.vm, g};
            via_.assign(p_.flavors.size(), -1);
        }
        signed char& known = via_[static_cast<std::size_t>(mr.flavor)];
        if (known < 0) {
            const Mover& x = single(f_, xr);
            const Flavor& fz = flavor(mr.flavor);
            local_.assign(s_.free_of(g), s_.free_of(g) + s_.nodes_of(g) * R_);
            share(local_.data(), fz, placements(mr.flavor, g)[static_cast<std::size_t>(at_g->placement)].mask, -1);
            share(local_.data(), flavor(x.flavor), x.mask, +1);
            known = fits(f_, g, local_.data()) ? 1 : 0;
        }
        return known != 0;
    }

    std::vector<Placement> out() const {
        std::vector<Placement> o;
        for (const Step& st : steps_) {
            Placement pl{st.m.vm, st.to.host, {}};
            pl.pnuma = placements(st.m.flavor, st.to.host)[static_cast<std::size_t>(st.to.placement)].map;
            o.push_back(pl);
        }
        return o;
    }

    const MakeRoomOptions opt_;
    const OnlineCluster& c_;
    const SearchState& s_;
    const CapacityModel& m_;
    const Problem& p_;
    const int R_, f_;
    const bool fixes_;
    const bool cap_;  ///< rank plans by the capacity they leave (run_capacity), not by RAM
    MakeRoomCache::Impl& cache_;
    std::vector<std::vector<Dest>> top_;  ///< [flavor]: top(), this call
    std::vector<char> top_done_;
    std::array<std::vector<signed char>, 2> could_;  ///< could_move this call, [pairs / shuffles][host]: -1 not known
    /** elsewhere's summary of top(flavor) this call: its size capped at 2 (-1: not read yet) and
     *  its first host. */
    struct Takers {
        int n = -1, first = -1;
    };
    std::vector<Takers> takers_;  ///< [flavor]
    std::vector<int> changed_;
    std::vector<char>
        mobile_;  ///< each_mobile_single: [flavor index]: another host takes it  ///< top(): hosts changed since the kept top was computed
    std::vector<NodeMask> def_;
    /** plan_two's outcomes this call (TwoKey): most tries on a saturated cluster repeat one. */
    std::unordered_map<TwoKey, bool, TwoKeyHash> two_known_;
    /** pair_lands' answers this call, [flavor of a x flavors + flavor of b]: -1 not known (empty
     *  until the first). */
    std::vector<signed char> lands_;
    /** chain_via_g's answers for one x (its VM and host `via_x_`), [flavor of z]: -1 not known. */
    std::pair<int, int> via_x_{-1, -1};
    std::vector<signed char> via_;
    std::vector<Amount> tmp_, tmp2_, ub_tmp_;
    std::vector<Step> steps_;
    std::optional<Overlay> done_;     ///< the free amounts of the hosts the plan in steps_ changed (one, plan_two)
    std::vector<Cand> cands_;         ///< run_capacity's candidates
    std::vector<std::vector<Z>> zs_;  ///< run_capacity: per flavor, the chains' first VMs
    bool plain_ = false;
    /** find_pairs' and find_shuffles' memos by kind (flavor, node set) of the VMs on one host:
     *  what depends on the kinds alone (the host's free amounts with them lifted). */
    std::vector<Kind> kinds_;
    std::vector<char> kind_remap_;                       ///< [kind]: Mover::remap of a VM of that kind
    std::vector<int> kind_of_;                           ///< find_pairs: [index into its list]: the kind
    std::vector<std::array<int, 2>> least_y_, least_x_;  ///< find_shuffles, find_pairs (ranking by RAM): [kind]: its two least VMs, -1 none
    std::vector<int> kind_count_;                        ///< pair_tops: [kind]: VMs of that kind
    std::vector<std::vector<int>> kind_vms_;             ///< find_pairs (ranking by capacity): [kind]: its VMs (indices into its list)
    std::vector<int> on_kind_;                           ///< find_shuffles: [index into vms_on]: the kind
    std::vector<ShuffleMemo> shuffle_memo_;              ///< shuffle_run (ranking by capacity): [x's kind * kinds + y's kind]
    std::vector<signed char> y_remap_;                   ///< shuffle_run (ranking by capacity): [kind]: Mover::remap, -1 not known
    std::vector<std::pair<bool, std::vector<NodeMask>>> need_memo_;  ///< find_shuffles: [x's kind]: known, the node sets y must cover
    std::vector<Amount> local_;                                      ///< remap_after's free amounts of g
    std::array<std::vector<Dest>, 2> opts_;                          ///< options(), by depth: a plan's first step, its second
    std::vector<int> avail_, first_;                                 ///< could_move, per kind
    std::vector<char> away_;                                         ///< could_move, per kind: another host takes its flavor
    std::vector<Amount> most_, helped_;  ///< build_kinds  ///< run_plain: no quick tests before the exact ones either
    Two best_sure_;                      ///< the best two-step plan sure to work so far (run())
    bool has_sure_ = false;
    std::vector<Two> maybe_;                              ///< two-step plans that may work, to try
    std::vector<std::tuple<Amount, int, Part>> by_need_;  ///< (lower bound, host, pairs or shuffles), run()
    /** run_ram after a failing call (restrict_to_changed): `restricted_`, only what changed is
     *  searched; `c_hosts_` (C) the hosts changed since, `in_c_` [host] membership; `rare_`
     *  [flavor], a host of C takes it and fewer than 3 others; `targets_`, the hosts whose pairs
     *  and shuffles are visited; `now_` the largest host version (kept by failed()). */
    bool restricted_ = false, any_rare_ = false;
    std::uint64_t now_ = 0;
    std::vector<int> c_hosts_, targets_;
    std::vector<char> in_c_, rare_;
    std::vector<std::uint64_t> rare_bits_;
    std::vector<char> flat_done_;                    ///< [flavor]: flat() brought up to date this call
    std::vector<int> changed_flat_;                  ///< flat(): hosts changed since its list
    std::vector<char> drop_;                         ///< flat(): [host] changed
    std::vector<std::vector<SingleRef>> zs_mobile_;  ///< chains(): per flavor, the z that could move (mobile_singles)
    std::vector<std::uint64_t> taken_bits_;          ///< mobile_singles(): the flavors some host takes now (bit set), this call
    bool taken_done_ = false;
    std::vector<char> zs_done_;
    std::vector<std::vector<SingleRef>> zs_c_;  ///< chains(): per flavor, the z off hosts of C that could move (restricted_)
    std::vector<char> zs_c_done_;
};

}  // namespace

bool make_room_direct_applies(const CapacityModel& model) {
    return !model.has_filters();
}

std::vector<Placement> make_room_direct(const OnlineCluster& cluster, int vm, int k, MakeRoomCache* cache, bool* room_already,
                                        const MakeRoomOptions& options) {
    MakeRoomCache own;
    Search search(cluster, vm, cache != nullptr ? *cache->impl : *own.impl, options);
    if (room_already != nullptr) *room_already = search.room_already();
    return search.run(std::min(k, 2));
}

std::vector<Placement> make_room_direct_plain(const OnlineCluster& cluster, int vm, int k, const MakeRoomOptions& options) {
    MakeRoomCache own;
    return Search(cluster, vm, *own.impl, options).run_plain(std::min(k, 2));
}

namespace {

std::vector<Placement> search_room(const OnlineCluster& cluster, int vm, int k, MakeRoomCache* cache, const MakeRoomOptions& options) {
    if (k <= 0) return {};
    if (make_room_direct_applies(cluster.state().model())) {
        bool already = false;
        std::vector<Placement> plan = make_room_direct(cluster, vm, k, cache, &already, options);
        if (!plan.empty() || (k <= 2 && !already)) return plan;
    }
    return make_room_engine(cluster.state(), vm, k);
}

}  // namespace

MakeRoomSearch::MakeRoomSearch(const MakeRoomOptions& options) : options_(options), cache_(std::make_shared<MakeRoomCache>()) {}

std::vector<Placement> MakeRoomSearch::operator()(const OnlineCluster& cluster, int vm, int k) const {
    return search_room(cluster, vm, k, cache_.get(), options_);
}

std::vector<Placement> make_room(const OnlineCluster& cluster, int vm, int k) {
    return search_room(cluster, vm, k, nullptr, MakeRoomOptions{});
}

std::vector<Placement> make_room_engine(const SearchState& state, int vm, int k) {
    const int flavor = state.flavor_of(vm);
    // The cluster as it stands (its VMs where they are now: their new origin), the arriving
    // flavor the only target, k migrations.
    std::vector<int> original;  // q's VM -> state's
    Problem q = cluster_now(state, original);
    for (Flavor& f : q.flavors) f.weight = 0.0;
    q.flavors[static_cast<std::size_t>(flavor)].weight = 1.0;
    q.constraints.max_migrations = k;
    const CapacityModel model(q);
    SearchParams prm;
    prm.threads = 1;
    prm.quiet = true;
    prm.value_memo = false;
    const SearchResult r = greedy(model, prm);
    if (r.score_best <= 0) return {};
    const Plan plan = build_plan(model, r.best);
    if (plan.capacity_after.empty() || plan.capacity_after[static_cast<std::size_t>(flavor)] < 1) return {};
    std::vector<Placement> out;
    for (const PlanStep& s : plan.steps) out.push_back(Placement{original[static_cast<std::size_t>(s.vm)], s.to_host, s.to_pnuma});
    return out;
}

Problem cluster_now(const SearchState& state, std::vector<int>& original) {
    const Problem& p = state.problem();
    Problem q;
    q.resources = p.resources;
    q.host_types = p.host_types;
    q.hosts = p.hosts;
    q.network = p.network;
    q.flavors = p.flavors;
    original.clear();
    std::vector<int> index(p.vms.size(), -1);  // state's VM -> q's
    for (int v = 0; v < static_cast<int>(p.vms.size()); ++v) {
        if (!state.is_placed(v)) continue;
        index[static_cast<std::size_t>(v)] = static_cast<int>(q.vms.size());
        Vm x = p.vms[static_cast<std::size_t>(v)];
        if (x.id.empty()) {  // arrivals of a replay have no ids: plans and validate name VMs by id
            char id[24];
            std::snprintf(id, sizeof id, "a%d", v);
            x.id = id;
        }
        x.host = state.host_of(v);
        const int nv = p.flavors[static_cast<std::size_t>(x.flavor)].num_vnuma();
        for (int i = 0; i < nv; ++i) x.pnuma[static_cast<std::size_t>(i)] = state.pnuma_of(v)[i];
        original.push_back(v);
        q.vms.push_back(std::move(x));
    }
    q.vdcs = p.vdcs;
    for (const Vlink& l : p.vlinks) {
        const int a = index[static_cast<std::size_t>(l.a)], b = index[static_cast<std::size_t>(l.b)];
        if (a >= 0 && b >= 0) q.vlinks.push_back(Vlink{a, b, l.mbps, l.vdc});
    }
    q.server_groups.clear();  // groups name VMs by index: not carried over (placement/ has none)
    q.constraints = Constraints{};
    finalize_problem(q, "<cluster now>");
    return q;
}

}  // namespace vmcap
