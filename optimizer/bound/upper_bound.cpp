// Upper bound of upper_bound.h: per-host tables of the best value after k removals (exact by
// enumeration up to a depth, a valid tail beyond), combined by a multiple-choice knapsack over the
// budget, then tightened by a Lagrangian relaxation of the RAM budget. docs/upper-bound.md has the
// formula and the validity argument; the comments here say which step relies on what.
#include "optimizer/bound/upper_bound.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <span>
#include <stdexcept>
#include <vector>

#include <boost/container/small_vector.hpp>
#include <tbb/task_arena.h>

#include "evaluators/state/capacity_model.h"
#include "optimizer/search/fork_join.h"
#include "optimizer/search/search_params.h"

namespace vmcap {

void UpperBoundParams::validate() const {
    if (!(fallback_seconds >= 0.0)) throw std::invalid_argument("upper bound: fallback_seconds must be >= 0");
    if (max_full_tables < -1) throw std::invalid_argument("upper bound: max_full_tables must be >= -1");
    if (!(give_up >= 0.0)) throw std::invalid_argument("upper bound: give_up must be >= 0");
    if (max_sets_per_host < 1) throw std::invalid_argument("upper bound: max_sets_per_host must be >= 1");
    if (max_sets_per_exact_host < 1) throw std::invalid_argument("upper bound: max_sets_per_exact_host must be >= 1");
    if (max_exact_removals < 0) throw std::invalid_argument("upper bound: max_exact_removals must be >= 0");
    if (max_search_per_host < 0) throw std::invalid_argument("upper bound: max_search_per_host must be >= 0");
    if (max_search_per_exact_host < 0) throw std::invalid_argument("upper bound: max_search_per_exact_host must be >= 0");
    if (max_search_total < 0) throw std::invalid_argument("upper bound: max_search_total must be >= 0");
    if (max_allocation_per_host < 0) throw std::invalid_argument("upper bound: max_allocation_per_host must be >= 0");
    if (max_allocation_per_exact_host < 0) throw std::invalid_argument("upper bound: max_allocation_per_exact_host must be >= 0");
    if (node_subset_retry < 1) throw std::invalid_argument("upper bound: node_subset_retry must be >= 1");
    if (max_allocation_total < 0) throw std::invalid_argument("upper bound: max_allocation_total must be >= 0");
    if (split_exact_removals < 0) throw std::invalid_argument("upper bound: split_exact_removals must be >= 0");
    if (ram_lagrangian_steps < 0) throw std::invalid_argument("upper bound: ram_lagrangian_steps must be >= 0");
    if (threads < 1) throw std::invalid_argument("upper bound: threads must be >= 1");
    if (arrival_steps < 0) throw std::invalid_argument("upper bound: arrival_steps must be >= 0");
}

bool bound_covers_objective(const CapacityModel& model) {
    // A migrated-RAM cost is modelled; a non-positive term is covered; anything else is of unknown sign.
    for (const auto& term : model.terms())
        if (term->shape() == TermShape::Unknown) return false;
    return true;
}

Score vmcap_score(const Problem& p, const std::vector<Count>& capacity) {
    Score s = 0;
    for (std::size_t f = 0; f < p.flavors.size(); ++f)
        if (p.flavors[f].weight > 0) s += weight_units(p.flavors[f].weight) * capacity[f];
    return s;
}

Score covered_score(const Problem& p, bool covers_objective, Score score, const std::vector<Count>& capacity) {
    return covers_objective ? score : vmcap_score(p, capacity);
}

double relative_gap(double bound, double objective) {
    const double scale = std::max(std::abs(bound), std::abs(objective));
    if (scale == 0.0 || bound <= objective) return 0.0;
    return (bound - objective) / scale;
}

namespace {

/** Lagrange multipliers are num / 2^kShift score units per MiB, so every product stays an exact
 *  integer (Wide) and each multiplier's bound is exact. */
constexpr int kShift = 16;

/** One removal option of a host: RAM taken off (MiB) and the host's value bound after it, ram
 *  cost subtracted (score units). */
struct Point {
    Amount ram = 0;
    Score value = 0;
};

/** How a host's table was made. */
enum class TableKind : std::uint8_t {
    Full,     ///< enumeration, branch and bound, allocation and tail bounds (or no migratable VM)
    Cheap,    ///< cut short: V_h(0), and V_h(every migratable VM removed) at one removal's costs
    Trivial,  ///< cut short, fallback time spent: the topology-free value of "all removed", no removal option
};

/** lagrangian_upper_bound(): what one host's best option of k removals removes and where its
 *  arrivals go, read for the subgradient (arrivals - removals per flavor). */
struct Witness {
    std::vector<std::pair<int, int>> removed;  ///< (flavor, VMs removed)
    std::vector<Amount> rooms;                 ///< [node * R + r]: room left for arriving pieces
    std::vector<int> arrived;                  ///< [flavor] whole multi-node VMs arriving (MultiNodeArrivals), or empty
};

/** A host's table: front[k] = Pareto front (RAM ascending, value strictly ascending) of the
 *  options removing exactly k migratable VMs, k = 0..front.size()-1. front[0] = {0, V_h(0)} (an
 *  upper bound on it for a Trivial table). A table may stop before the budget when its last
 *  options dominate every larger k (no more RAM, at least the value). */
struct HostTable {
    std::vector<std::vector<Point>> front;
    int depth = -1;  ///< exact depth K_h (-1: no migratable VM, or not a Full table)
    std::int64_t evaluations = 0;
    TableKind kind = TableKind::Full;
    bool beyond = false;        ///< the table goes beyond the exact depth
    bool node_subsets = false;  ///< the node-subset bound completed there
    bool split = false;         ///< ... as split_subset_bound() (SplitShape)
    /** lagrangian_upper_bound() only: the per-k search with arrivals ran out here or was not
     *  tried (read after the first multiplier vector: the later ones skip it on this host). */
    bool per_k_out = false;
    /** lagrangian_upper_bound() only: [k] the witness of front[k] (null: none recorded). */
    std::vector<std::shared_ptr<const Witness>> witness;
};

/** Thrown out of a host's table when the bound must stop refining (deadline or stop). */
struct BoundHalted {};

/** What the workers of one bound share: whether to stop refining, and why (first reason wins). */
struct HaltWatch {
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
    const std::atomic<bool>* stop = nullptr;
    std::atomic<bool> halted{false};
    std::atomic<int> reason{0};              // 0 none, 1 time limit, 2 interrupt, 3 table limit
    std::atomic<bool> model_timeout{false};  // an exact-fallback evaluation met the model's deadline
    bool limited = false;                    // max_full_tables applies
    std::atomic<std::int64_t> tables_left{0};
    // UpperBoundParams::give_up: the bound's start, its allowance to the deadline, the tables made.
    double give_up = 0.0;
    std::chrono::steady_clock::time_point start;
    double allowance_s = 0.0;
    std::int64_t total = 0;
    std::atomic<std::int64_t> made{0};
    /** After a host's full table: gives up (time limit) when tables_out_of_reach. */
    void table_made() {
        const std::int64_t m = made.fetch_add(1) + 1;
        if (give_up <= 0.0 || (m & 15) != 0) return;
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (tables_out_of_reach(elapsed, allowance_s, m, total, give_up)) halt_if(1);
    }
    /** Checks the stop flag and the clock; true (and remembered) once either says stop. */
    bool check() {
        if (halted.load(std::memory_order_relaxed)) return true;
        return halt_if(stop != nullptr && stop->load(std::memory_order_relaxed)                                                   ? 2
                       : deadline != std::chrono::steady_clock::time_point::max() && std::chrono::steady_clock::now() >= deadline ? 1
                                                                                                                                  : 0);
    }
    /** Before a host's full table: false (and the bound halts) once max_full_tables are done. */
    bool take_table() {
        if (check()) return false;
        if (!limited || tables_left.fetch_sub(1) > 0) return true;
        halt_if(3);
        return false;
    }
    bool halt_if(int why) {
        if (why == 0) return false;
        int expected = 0;
        reason.compare_exchange_strong(expected, why);
        halted.store(true, std::memory_order_relaxed);
        return true;
    }
};

/**
 * lagrangian_upper_bound()'s arrivals on one pNUMA node: the largest sum of piece values of
 * one-node pieces (piece[g] > 0 per piece of flavor g, its per-node demand) that fit in a node's
 * free amounts, for every free vector at once: an exact unbounded knapsack over the grid of the
 * two resources in units of the pieces' greatest common divisors (every demand is a multiple, so
 * floor(room / gcd) loses nothing). Built once per multiplier vector, read by every worker
 * (const). Two resources only; `ok()` false when the grid would pass kMaxCells.
 */
class ArrivalGrid {
public:
    static constexpr std::int64_t kMaxCells = 1 << 22;
    ArrivalGrid(const Problem& p, const std::vector<Score>& piece) {
        if (p.num_resources() != 2) return;
        Amount cap[2] = {0, 0};
        for (const HostType& ht : p.host_types)
            for (int i = 0; i < ht.num_nodes(); ++i)
                for (int r = 0; r < 2; ++r) cap[r] = std::max(cap[r], ht.node_capacity[static_cast<std::size_t>(i) * 2 + r]);
        unit_[0] = unit_[1] = 0;
        std::vector<int> items;  // the flavors whose pieces fit a node and are worth something
        for (std::size_t g = 0; g < piece.size(); ++g) {
            const Amount* d = p.flavors[g].node_demand.data();
            if (piece[g] <= 0 || d[0] > cap[0] || d[1] > cap[1] || (d[0] <= 0 && d[1] <= 0)) continue;
            items.push_back(static_cast<int>(g));
            for (int r = 0; r < 2; ++r) unit_[r] = std::gcd(unit_[r], d[r]);
        }
        for (int r = 0; r < 2; ++r) {
            if (unit_[r] <= 0) unit_[r] = std::max<Amount>(1, cap[r]);
            n_[r] = cap[r] / unit_[r] + 1;
        }
        if (n_[0] * n_[1] > kMaxCells) return;
        for (int g : items) {
            const Amount* d = p.flavors[static_cast<std::size_t>(g)].node_demand.data();
            step_.push_back({d[0] / unit_[0], d[1] / unit_[1], piece[static_cast<std::size_t>(g)], g});
        }
        table_.assign(static_cast<std::size_t>(n_[0] * n_[1]), 0);
        for (Amount a = 0; a < n_[0]; ++a)
            for (Amount b = 0; b < n_[1]; ++b) {
                Score v = 0;
                if (a > 0) v = std::max(v, at(a - 1, b));
                if (b > 0) v = std::max(v, at(a, b - 1));
                for (const Step& st : step_)
                    if (st.da <= a && st.db <= b) v = std::max(v, at(a - st.da, b - st.db) + st.value);
                table_[static_cast<std::size_t>(a * n_[1] + b)] = v;
            }
        ok_ = true;
    }
    bool ok() const { return ok_; }
    /** The best piece value fitting in `room` (2 amounts, each >= 0 and <= the largest node's). O(1). */
    Score value(const Amount* room) const { return at(cell(room, 0), cell(room, 1)); }
    /** Adds the pieces of value()'s best packing of `room` per flavor to `count`. O(cells walked x flavors). */
    void pieces(const Amount* room, std::vector<int>& count) const {
        Amount a = cell(room, 0), b = cell(room, 1);
        while (at(a, b) > 0) {
            const Score v = at(a, b);
            if (a > 0 && at(a - 1, b) == v) {
                --a;
                continue;
            }
            if (b > 0 && at(a, b - 1) == v) {
                --b;
                continue;
            }
            for (const Step& st : step_)
                if (st.da <= a && st.db <= b && at(a - st.da, b - st.db) + st.value == v) {
                    ++count[static_cast<std::size_t>(st.flavor)];
                    a -= st.da;
                    b -= st.db;
                    break;
                }
        }
    }

private:
    struct Step {
        Amount da, db;
        Score value;
        int flavor;
    };
    Amount cell(const Amount* room, int r) const { return std::clamp<Amount>(room[r] / unit_[r], 0, n_[r] - 1); }
    Score at(Amount a, Amount b) const { return table_[static_cast<std::size_t>(a * n_[1] + b)]; }
    bool ok_ = false;
    Amount unit_[2] = {1, 1}, n_[2] = {1, 1};
    std::vector<Step> step_;
    std::vector<Score> table_;
};

/**
 * lagrangian_upper_bound()'s exact arrivals of multi-node VMs, where every target's per-node
 * demand is a whole multiple m_t of one unit u (u = the targets' per-node demands' common divisor
 * along their shared direction: the bundled example's 8c56g on K2 and 16c112g on C4 share 4c28g,
 * m = 1; Huawei's 12c24g and 24c48g (6c12g per node), 16c32g and 32c64g (8c16g), 48c96g (12c24g)
 * and 64c128g (16c32g) share 2c4g, m = 3, 4, 6, 8). Then node_b(t, free) = floor(b / m_t) with
 * b = min over r of floor(free_r / u_r) (floor(x / (m u)) = floor(floor(x / u) / m)), so a host's
 * value V_h reads only the units b_i of its nodes, and through the copy counts only their
 * *class*: the run of b over which every floor(b / m_t) is the same (on a 16c64g node with
 * Huawei's targets b = 0-2, 3, 4-5, 6-7, 8: five classes). An arriving VM of a multi-node flavor
 * g whose per-node demand is m_g u takes m_g units on each node of its placement. With c the
 * class vector and cmax its classes' largest units,
 *
 *     T(c) = max( V(c), max over g, placements P of g with cmax_i >= m_g on P of
 *                 T(class(cmax - m_g 1_P)) + pi_g ),
 *
 * made once per multiplier vector for every class vector of each host type (prod (classes_i)
 * states, at most kMaxStates per type, else not applied), is at least the best value of the
 * targets' copies plus such arrivals, each placed whole on linked nodes, at every b of class c:
 * by induction, an arrival at b leaves b - m_g 1_P <= cmax - m_g 1_P, whose class is no higher,
 * and T is monotone in the classes (more room, more choices). Where every m is 1, or the units'
 * vectors are at most kMaxExactStates, each b is its own class and T is exact. Applied only when
 * every arrival lowers its nodes' classes (else a class could take an arrival and stay: no finite
 * table), and not on hosts whose nodes are all linked when the multiples differ (below). Flavors it covers are left out of the
 * one-node pieces (ArrivalGrid). Read by every worker (const).
 */
class MultiNodeArrivals {
public:
    static constexpr std::int64_t kMaxStates = std::int64_t{1} << 20;
    static constexpr std::int64_t kMaxExactStates = std::int64_t{1} << 16;
    MultiNodeArrivals(const CapacityModel& m, const std::vector<Score>& price) : R_(m.num_resources()) {
        const Problem& p = m.problem();
        const int T = m.num_targets();
        if (T == 0) return;
        // The unit: every target's per-node demand is g_t x v for one direction v (its demands
        // over their gcd); u = gcd(g_t) x v, m_t = g_t / gcd(g_t).
        auto split = [&](const std::vector<Amount>& d, std::vector<Amount>& dir) -> Amount {
            Amount g = 0;
            for (int r = 0; r < R_; ++r) g = std::gcd(g, d[static_cast<std::size_t>(r)]);
            dir.assign(d.begin(), d.end());
            if (g > 0)
                for (Amount& x : dir) x /= g;
            return g;
        };
        std::vector<Amount> dir, dir_t;
        std::vector<Amount> whole(static_cast<std::size_t>(T));
        for (int j = 0; j < T; ++j) {
            const Amount g = split(p.flavors[static_cast<std::size_t>(m.target_flavor(j))].node_demand, dir_t);
            if (g <= 0 || (j > 0 && dir_t != dir)) return;
            dir = dir_t;
            whole[static_cast<std::size_t>(j)] = g;
        }
        // Covered: multi-node flavors of a price whose per-node demand lies along v; u divides
        // theirs too.
        covers_.assign(p.flavors.size(), 0);
        std::vector<Amount> flavor_whole(p.flavors.size(), 0);
        Amount common = 0;
        for (Amount g : whole) common = std::gcd(common, g);
        bool any = false;
        for (std::size_t g = 0; g < p.flavors.size(); ++g) {
            if (p.flavors[g].num_vnuma() <= 1 || price[g] <= 0) continue;
            const Amount w = split(p.flavors[g].node_demand, dir_t);
            if (w <= 0 || dir_t != dir) continue;
            covers_[g] = 1;
            flavor_whole[g] = w;
            common = std::gcd(common, w);
            any = true;
        }
        if (!any) return;
        unit_.resize(static_cast<std::size_t>(R_));
        for (int r = 0; r < R_; ++r) unit_[static_cast<std::size_t>(r)] = common * dir[static_cast<std::size_t>(r)];
        multiple_.resize(static_cast<std::size_t>(T));
        for (int j = 0; j < T; ++j)
            multiple_[static_cast<std::size_t>(j)] = static_cast<Count>(whole[static_cast<std::size_t>(j)] / common);
        std::vector<Count> flavor_multiple(p.flavors.size(), 0);
        for (std::size_t g = 0; g < p.flavors.size(); ++g) flavor_multiple[g] = static_cast<Count>(flavor_whole[g] / common);
        // Targets of different multiples on hosts whose nodes are all linked (K2, K4): pieces, as
        // before this table took them. Measured on the Huawei K2 replay (1,000 hosts): with whole
        // arrivals the multipliers' path never went below the removal-only bound in 20 steps
        // (3,068 at 1,036 migrations, 2,476 at 207), where the pieces' path reaches 2,813 and
        // 2,452 (docs/performance.md, "Whole arrivals in unit classes"). At pi = the landing
        // costs whole arrivals tie with empty room, so the first subgradient has no arrivals.
        const bool one_multiple = std::all_of(multiple_.begin(), multiple_.end(), [](Count x) { return x == 1; });
        if (!one_multiple &&
            std::all_of(p.host_types.begin(), p.host_types.end(), [](const HostType& h) { return h.topology.graph.is_complete(); }))
            return;
        types_.resize(p.host_types.size());
        std::vector<Count> sig, prev;
        for (std::size_t ht = 0; ht < p.host_types.size(); ++ht) {
            Type& ty = types_[ht];
            const HostType& h = p.host_types[ht];
            ty.n = h.num_nodes();
            // Every b its own class (T exact) where the units' vectors are at most kMaxExactStates
            // (2-node hosts: 21 x 21 on Huawei's K2 40c90g, where the classes lost most of what
            // the arrivals priced gain: docs/performance.md, "Whole arrivals in unit classes");
            // else the classes of the copy counts (8-node CQ3 16c64g: 5^8 instead of 9^8).
            std::int64_t unit_states = 1;
            for (int i = 0; i < ty.n; ++i) {
                ty.node[i].bmax = units(h.node_capacity.data() + static_cast<std::ptrdiff_t>(i) * R_);
                unit_states = std::min(kMaxStates + 1, unit_states * (static_cast<std::int64_t>(ty.node[i].bmax) + 1));
            }
            const bool exact = unit_states <= kMaxExactStates;
            std::int64_t states = 1;
            for (int i = 0; i < ty.n; ++i) {
                Node& nd = ty.node[i];
                // Classes: the runs of b with the same copy counts floor(b / m_t).
                nd.class_of.assign(static_cast<std::size_t>(nd.bmax) + 1, 0);
                nd.low.clear();
                nd.high.clear();
                for (Count b = 0; b <= nd.bmax; ++b) {
                    sig.resize(static_cast<std::size_t>(T));
                    for (int j = 0; j < T; ++j) sig[static_cast<std::size_t>(j)] = b / multiple_[static_cast<std::size_t>(j)];
                    if (b == 0 || exact || sig != prev) {
                        nd.low.push_back(b);
                        nd.high.push_back(b);
                    } else {
                        nd.high.back() = b;
                    }
                    nd.class_of[static_cast<std::size_t>(b)] = static_cast<Count>(nd.low.size()) - 1;
                    prev = sig;
                }
                ty.stride[i] = states;
                states *= static_cast<std::int64_t>(nd.low.size());
                if (states > kMaxStates) return;
            }
            for (std::size_t g = 0; g < p.flavors.size(); ++g) {
                if (!covers_[g]) continue;
                // One move per node set, in the placements' order (an embedding's automorphic
                // copies take the same units).
                std::vector<NodeMask> masks;
                for (const Embedding& e : m.evaluator(static_cast<int>(ht), static_cast<int>(g)).placements()) {
                    if (std::find(masks.begin(), masks.end(), e.mask) != masks.end()) continue;
                    masks.push_back(e.mask);
                    ty.moves.push_back({static_cast<int>(g), e.mask, flavor_multiple[g], price[g]});
                }
            }
            // Every arrival must lower the classes of its nodes (T's recursion then ends).
            for (const Move& mv : ty.moves)
                for (int i = 0; i < ty.n; ++i) {
                    if (((mv.mask >> i) & 1U) == 0) continue;
                    const Node& nd = ty.node[i];
                    for (std::size_t c = 0; c < nd.low.size(); ++c)
                        if (nd.high[c] >= mv.units && nd.class_of[static_cast<std::size_t>(nd.high[c] - mv.units)] >= static_cast<Count>(c))
                            return;
                }
            ty.t.assign(static_cast<std::size_t>(states), 0);
            ty.next.assign(static_cast<std::size_t>(states), -1);
            ty.choice.assign(static_cast<std::size_t>(states), -1);
            // Per (node, units) the state index an arrival of that many units on the node takes
            // away, by the node's class: (c - class_of[high_c - units]) x stride, or -1 where
            // the class's largest b has fewer units (the move does not fit). At least one stride
            // where it fits (checked above), so -1 is free as the marker. Each move reads one
            // table per node of its mask: the recursion below is most of a price vector's time on
            // 8-node hosts (up to kMaxStates states x moves x nodes).
            std::vector<std::vector<std::int64_t>> drops;
            std::vector<std::pair<int, Count>> drop_key;  // (node, units) of drops[k]
            std::vector<std::vector<std::pair<int, const std::int64_t*>>> move_nodes(ty.moves.size());
            for (const Move& mv : ty.moves)
                for (int i = 0; i < ty.n; ++i) {
                    if (((mv.mask >> i) & 1U) == 0) continue;
                    if (std::find(drop_key.begin(), drop_key.end(), std::pair{i, mv.units}) != drop_key.end()) continue;
                    const Node& nd = ty.node[i];
                    std::vector<std::int64_t> d(nd.low.size(), -1);
                    for (std::size_t c = 0; c < nd.low.size(); ++c)
                        if (nd.high[c] >= mv.units)
                            d[c] = (static_cast<Count>(c) - nd.class_of[static_cast<std::size_t>(nd.high[c] - mv.units)]) * ty.stride[i];
                    drop_key.emplace_back(i, mv.units);
                    drops.push_back(std::move(d));
                }
            for (std::size_t a = 0; a < ty.moves.size(); ++a)
                for (int i = 0; i < ty.n; ++i)
                    if ((ty.moves[a].mask >> i) & 1U) {
                        const auto k = std::find(drop_key.begin(), drop_key.end(), std::pair{i, ty.moves[a].units}) - drop_key.begin();
                        move_nodes[a].emplace_back(i, drops[static_cast<std::size_t>(k)].data());
                    }
            Count c[kMaxPNuma] = {};
            Count counts[kMaxPNuma] = {};
            for (std::int64_t s = 0; s < states; ++s) {
                if (s > 0)  // the next class vector in mixed radix (node 0 fastest): s's digits
                    for (int i = 0; i < ty.n; ++i) {
                        if (c[i] + 1 < static_cast<Count>(ty.node[i].low.size())) {
                            ++c[i];
                            break;
                        }
                        c[i] = 0;
                    }
                Score v = 0;
                for (int j = 0; j < T; ++j) {
                    for (int i = 0; i < ty.n; ++i)
                        counts[i] = ty.node[i].low[static_cast<std::size_t>(c[i])] / multiple_[static_cast<std::size_t>(j)];
                    v += m.target_weight_units(j) * m.evaluator(static_cast<int>(ht), m.target_flavor(j))(counts);
                }
                int pick = -1;
                std::int64_t pick_next = -1;
                for (std::size_t a = 0; a < ty.moves.size(); ++a) {
                    std::int64_t to = s;
                    bool fits = true;
                    for (const auto& [i, drop] : move_nodes[a]) {
                        const std::int64_t x = drop[c[i]];
                        if (x < 0) {
                            fits = false;
                            break;
                        }
                        to -= x;
                    }
                    if (!fits) continue;
                    const Score val = ty.t[static_cast<std::size_t>(to)] + ty.moves[a].value;
                    if (val > v) {
                        v = val;
                        pick = static_cast<int>(a);
                        pick_next = to;
                    }
                }
                ty.t[static_cast<std::size_t>(s)] = v;
                ty.choice[static_cast<std::size_t>(s)] = pick;
                ty.next[static_cast<std::size_t>(s)] = pick_next;
            }
            ty.most_gain = 0;
            for (int j = 0; j < T; ++j) ty.most_gain += std::max<Score>(0, m.target_weight_units(j));
            for (const Move& mv : ty.moves) ty.most_gain_extra = std::max(ty.most_gain_extra, mv.value);
        }
        ok_ = true;
    }
    /** Does T apply (a table for every host type)? */
    bool ok() const { return ok_; }
    /** Are all of a host type's nodes' classes below `classes` (priced_search()'s per-node arrays)? */
    bool fits(int type, Count classes = 15) const {
        const Type& ty = types_[static_cast<std::size_t>(type)];
        for (int i = 0; i < ty.n; ++i)
            if (static_cast<Count>(ty.node[i].low.size()) - 1 > classes) return false;
        return true;
    }
    /** Is flavor g's arrival exact here (so not a one-node piece)? */
    bool covers(int g) const { return ok_ && covers_[static_cast<std::size_t>(g)] != 0; }
    /** T at a host of `type` with free amounts `free` ([node * R + r]). Free amounts within the
     *  nodes' capacities (the node-subset search's, the tails') read the table; beyond it (never
     *  met) each unit of b above bmax_i adds what one unit can: one copy per target and one arrival. */
    Score value(int type, const Amount* free) const {
        std::int64_t s = 0;
        Score extra = 0;
        for (int i = 0; i < types_[static_cast<std::size_t>(type)].n; ++i) {
            const NodePart np = node_part(type, i, free + static_cast<std::ptrdiff_t>(i) * R_);
            s += np.idx;
            extra += np.extra;
        }
        return at(type, s) + extra;
    }
    /** Node i's share of value(): the class of its units b (min(b, bmax_i)) as the state index's
     *  digit (class x stride_i) and what units beyond bmax_i add. value() = at() of the nodes'
     *  idx summed, plus their extra summed; a search that keeps a node's free amounts fixed while
     *  others change reads its part once. O(R). */
    struct NodePart {
        std::int64_t idx = 0;
        Score extra = 0;
    };
    NodePart node_part(int type, int i, const Amount* free_node) const {
        const Type& ty = types_[static_cast<std::size_t>(type)];
        const Node& nd = ty.node[i];
        Count b = units(free_node);
        NodePart np;
        if (b > nd.bmax) {
            np.extra = (b - nd.bmax) * (ty.most_gain + ty.most_gain_extra);
            b = nd.bmax;
        }
        np.idx = nd.class_of[static_cast<std::size_t>(b)] * ty.stride[i];
        return np;
    }
    /** The class of node i's units at `free_node` (at most the node's last class). O(R). */
    Count unit_class(int type, int i, const Amount* free_node) const {
        const Node& nd = types_[static_cast<std::size_t>(type)].node[i];
        return nd.class_of[static_cast<std::size_t>(std::min(units(free_node), nd.bmax))];
    }
    /** The least units of each class of node i up to the class of `free_node`'s units. */
    std::span<const Count> class_lows(int type, int i, const Amount* free_node) const {
        const Node& nd = types_[static_cast<std::size_t>(type)].node[i];
        return {nd.low.data(), static_cast<std::size_t>(unit_class(type, i, free_node)) + 1};
    }
    /** u's amount of resource r. */
    Amount unit(int r) const { return unit_[static_cast<std::size_t>(r)]; }
    /** Adds T's arrivals at `free` (value()'s argmax) to `count` [flavor]. O(arrivals x nodes). */
    void arrivals(int type, const Amount* free, std::vector<int>& count) const {
        std::int64_t s = 0;
        for (int i = 0; i < types_[static_cast<std::size_t>(type)].n; ++i)
            s += node_part(type, i, free + static_cast<std::ptrdiff_t>(i) * R_).idx;
        arrivals_at(type, s, count);
    }
    /** The state index of a class vector: sum of c_i x stride(type, i). */
    std::int64_t stride(int type, int i) const { return types_[static_cast<std::size_t>(type)].stride[i]; }
    /** T at state index `s`. O(1). */
    Score at(int type, std::int64_t s) const { return types_[static_cast<std::size_t>(type)].t[static_cast<std::size_t>(s)]; }
    /** T of a host type, by state index (at() without the lookups, for tight loops). */
    const Score* table(int type) const { return types_[static_cast<std::size_t>(type)].t.data(); }
    /** Adds T's arrivals at state index `s` to `count` [flavor]. */
    void arrivals_at(int type, std::int64_t s, std::vector<int>& count) const {
        const Type& ty = types_[static_cast<std::size_t>(type)];
        for (int a = ty.choice[static_cast<std::size_t>(s)]; a >= 0; a = ty.choice[static_cast<std::size_t>(s)]) {
            ++count[static_cast<std::size_t>(ty.moves[static_cast<std::size_t>(a)].flavor)];
            s = ty.next[static_cast<std::size_t>(s)];
        }
    }

private:
    /** b = min over resources with a unit of floor(free_r / u_r). */
    Count units(const Amount* free_node) const {
        Count b = std::numeric_limits<Count>::max();
        for (int r = 0; r < R_; ++r)
            if (unit_[static_cast<std::size_t>(r)] > 0)
                b = std::min<Count>(b, static_cast<Count>(free_node[r] / unit_[static_cast<std::size_t>(r)]));
        return b;
    }
    struct Move {
        int flavor;
        NodeMask mask;
        Count units;  ///< m_flavor: the units it takes on each node of `mask`
        Score value;  ///< pi_flavor
    };
    struct Node {
        Count bmax = 0;                ///< units at the node's capacity
        std::vector<Count> class_of;   ///< [b] its class
        std::vector<Count> low, high;  ///< [class] its least and largest b
    };
    struct Type {
        int n = 0;
        Node node[kMaxPNuma];
        std::int64_t stride[kMaxPNuma] = {};
        std::vector<Move> moves;
        std::vector<Score> t;
        std::vector<std::int64_t> next;  ///< [state] the state T's arrival there leaves (-1: none)
        std::vector<int> choice;         ///< [state] the arrival T takes there (-1: the copies alone)
        Score most_gain = 0, most_gain_extra = 0;
    };
    int R_;
    std::vector<Amount> unit_;     ///< u per resource
    std::vector<Count> multiple_;  ///< [target] m_t
    bool ok_ = false;
    std::vector<char> covers_;
    std::vector<Type> types_;
};

/**
 * The split of a host's value where every target is either a one-node flavor or a multi-node
 * flavor whose per-node demand is one u shared by all multi-node targets (az10k-8t: 8c56g on K2
 * and 16c112g on C4, 4c28g per vNUMA node, beside six one-node targets). Then
 *
 *     V_h(F) = V_multi(n(F)) + sum_i V_one(F_i),   n_i(F) = min over r of floor(F_ir / u_r),
 *
 * V_one(x) = sum over one-node targets of w_t node_b(t, x) (a one-node flavor's VMCAP is the sum
 * of its per-node copies) and V_multi reads the nodes only through n (node_b of every multi-node
 * target is n_i). The node-subset search with this split (HostBounder::split_subset_bound) keeps
 * per node, removal count and n only the best V_one less landing costs: the one-node targets add
 * over the nodes, so a node's options no longer multiply by its copy counts of every target.
 * V_multi is tabulated per host type over every n <= nmax (mixed radix). Checked on construction:
 * each one-node target's evaluator gives the sum of b on sample vectors. Read by every worker (const).
 */
class SplitShape {
public:
    /** Copy vectors tabulated per host type at most (8-node 16c64g hosts with a 4c16g unit: 5^8). */
    static constexpr std::int64_t kMaxStates = 1 << 19;

    explicit SplitShape(const CapacityModel& m) : m_(m) {
        const Problem& p = m.problem();
        if (p.num_resources() != 2 || m.num_targets() == 0) return;
        bool has_multi = false;
        for (int j = 0; j < m.num_targets(); ++j) {
            const int fl = m.target_flavor(j);
            const Flavor& f = p.flavors[static_cast<std::size_t>(fl)];
            if (f.num_vnuma() <= 1) {
                one_.push_back({fl, m.target_weight_units(j)});
                continue;
            }
            if (has_multi && (u_[0] != f.node_demand[0] || u_[1] != f.node_demand[1])) return;
            has_multi = true;
            u_[0] = f.node_demand[0];
            u_[1] = f.node_demand[1];
            multi_.push_back({fl, m.target_weight_units(j)});
        }
        if (one_.empty()) return;  // all multi-node: the copy counts are the node's whole state already
        types_.resize(p.host_types.size());
        for (std::size_t ht = 0; ht < p.host_types.size(); ++ht) {
            const HostType& h = p.host_types[ht];
            Type& t = types_[ht];
            t.n = h.num_nodes();
            for (int j = 0; j < m.num_targets(); ++j)
                if (!m.evaluator(static_cast<int>(ht), m.target_flavor(j)).is_closed_form()) return;
            Count nmax = 0;
            if (has_multi)
                for (int i = 0; i < t.n; ++i) {
                    Count b = std::numeric_limits<Count>::max();
                    for (int r = 0; r < 2; ++r)
                        if (u_[r] > 0) b = std::min<Count>(b, h.node_capacity[static_cast<std::size_t>(i) * 2 + r] / u_[r]);
                    nmax = std::max(nmax, b);
                }
            t.nmax = nmax;
            std::int64_t states = 1;
            for (int i = 0; i < t.n; ++i) {
                t.stride[i] = states;
                states *= nmax + 1;
                if (states > kMaxStates) return;
            }
            t.vm.assign(static_cast<std::size_t>(states), 0);
            Count n[kMaxPNuma] = {};
            for (std::int64_t x = 0; x < states; ++x) {
                std::int64_t y = x;
                for (int i = 0; i < t.n; ++i) {
                    n[i] = static_cast<Count>(y % (nmax + 1));
                    y /= nmax + 1;
                }
                Score v = 0;
                for (const Target& o : multi_) v += o.weight * m.evaluator(static_cast<int>(ht), o.flavor)(n);
                t.vm[static_cast<std::size_t>(x)] = v;
            }
            // A one-node target's VMCAP must be the sum of its per-node copies.
            for (const Target& o : one_) {
                const VmcapEvaluator& ev = m.evaluator(static_cast<int>(ht), o.flavor);
                for (int s = 0; s < 8; ++s) {
                    Count b[kMaxPNuma] = {};
                    Count sum = 0;
                    for (int i = 0; i < t.n; ++i) {
                        b[i] = static_cast<Count>((i * 7 + s * 3) % (s + 2));
                        sum += b[i];
                    }
                    if (ev(b) != sum) return;
                }
            }
            t.ok = true;
        }
        ok_ = true;
    }

    bool ok() const { return ok_; }
    Count nmax(int type) const { return types_[static_cast<std::size_t>(type)].nmax; }
    std::int64_t stride(int type, int i) const { return types_[static_cast<std::size_t>(type)].stride[i]; }
    /** V_multi of the copy vector with mixed-radix index `x` (sum_i n_i stride(type, i)). */
    Score vmulti(int type, std::int64_t x) const { return types_[static_cast<std::size_t>(type)].vm[static_cast<std::size_t>(x)]; }
    /** n_i of one node's free amounts x (2 entries, >= 0), at most nmax. O(1). */
    Count units(int type, const Amount* x) const {
        Count b = types_[static_cast<std::size_t>(type)].nmax;
        for (int r = 0; r < 2; ++r)
            if (u_[r] > 0) b = std::min<Count>(b, x[r] / u_[r]);
        return b;
    }
    /** V_one of one node's free amounts x (2 entries, >= 0). O(one-node targets). */
    Score vone(const Amount* x) const {
        Score v = 0;
        for (const Target& o : one_) v += o.weight * m_.node_b(o.flavor, x);
        return v;
    }

private:
    struct Target {
        int flavor;
        Score weight;
    };
    struct Type {
        bool ok = false;
        int n = 0;
        Count nmax = 0;
        std::int64_t stride[kMaxPNuma] = {};
        std::vector<Score> vm;
    };
    const CapacityModel& m_;
    std::vector<Target> one_, multi_;
    Amount u_[2] = {0, 0};
    std::vector<Type> types_;
    bool ok_ = false;
};

/** A class of identical migratable VMs of one host (same flavor and pNUMA node set). */
struct VmClass {
    int flavor = -1;
    NodeMask mask = 0;
    int count = 0;
    Amount ram = 0;
    Score landing = 0;  ///< lower bound on the cost of landing one of them anywhere
};

/** kernel_by_type()'s answers per host type: values target by target; by the kernel; by the
 *  kernel, but the node-subset search's from its options' copy counts (HostBounder::value_of_b). */
constexpr char kPerTarget = 0, kKernel = 1, kKernelOrCopyCounts = 2;

class HostBounder {
    /** An option of one pNUMA node in node_subset_bound(). Its vectors keep a few elements
     *  inline (two resources, up to four targets): a host's tables make and drop hundreds of
     *  thousands of options per price vector, and heap blocks for each were a quarter of
     *  lagrangian_upper_bound()'s time (docs/performance.md, "Options without heap blocks"). */
    struct SlotOption {
        int a = 0;                                         ///< single-node VMs removed from the node
        Score land = 0;                                    ///< their landing costs
        boost::container::small_vector<Count, 4> b;        ///< copies per target the node then holds (node_b)
        boost::container::small_vector<Amount, 2> free;    ///< the node's free amounts then
        int state = 0;                                     ///< lagrangian_upper_bound(): the node state it comes from
        boost::container::small_vector<Amount, 2> arrive;  ///< lagrangian_upper_bound(): the room left for arriving pieces
    };

public:
    /** `landing[f]`: lower bound on what a VM of flavor f costs the host it lands on (score
     *  units; landing_costs()), subtracted once per removed VM of f. `fronts`: keep the whole
     *  Pareto front of (RAM, value) of the enumerated sets (the RAM multiplier search reads it);
     *  false: only the best value per removal count, which is all the knapsack reads without it.
     *  `kernel[type]`: how hosts of that type are evaluated (kPerTarget, kKernel: the
     *  target-parallel kernel, closed forms only, no free remaps; kKernelOrCopyCounts: the kernel,
     *  but the node-subset search from its options' copy counts; kernel_by_type()). */
    HostBounder(const CapacityModel& m, const UpperBoundParams& prm, bool free_remaps, Score ram_milli, const std::vector<Score>& landing,
                std::int64_t search_share, std::int64_t allocation_share, bool fronts, const std::vector<char>& kernel, HaltWatch* watch)
        : watch_(watch),
          kernel_(kernel),
          fronts_(fronts),
          m_(m),
          p_(m.problem()),
          prm_(prm),
          remaps_(free_remaps),
          wm_(ram_milli),
          land_(landing),
          search_share_(search_share),
          allocation_share_(allocation_share),
          R_(m.num_resources()),
          T_(m.num_targets()) {}

    /** lagrangian_upper_bound(): from now on run() makes joint tables of removals and arrivals
     *  (arrivals' pieces valued by `grid`, whole multi-node arrivals by `multi` when not null; the
     *  removal prices are the `landing` given). */
    void set_arrivals(const ArrivalGrid* grid, const MultiNodeArrivals* multi) {
        grid_ = grid;
        multi_ = multi;
    }
    /** lagrangian_upper_bound(): whether the next run() may try the per-k search with arrivals
     *  (UpperBoundParams::arrival_per_k_first) where the envelope can take its place. Off on a
     *  host where it ran out at the first multiplier vector (the landing costs): on 8-node hosts
     *  it runs out on most hosts at every vector, and trying it again took about a fifth of the
     *  time of each vector on huawei-1000. */
    void set_per_k(bool on) { per_k_ = on; }
    /** compute_upper_bound(): the targets' split (SplitShape), when they split; the node-subset
     *  search then runs as split_subset_bound() on the host types it holds, else as before. */
    void set_shape(const SplitShape* shape) { shape_ = shape; }

    /** Host h's table for removal counts k <= kcap (front.size() - 1 <= kcap). Checks the watch
     *  every 64 value evaluations: throws BoundHalted once it says stop. */
    HostTable run(int h, const std::vector<int>& movable, const std::vector<Amount>& usage, int kcap) {
        checking_ = true;
        setup(h, movable, usage);
        if (grid_ != nullptr) return build_joint(movable, kcap);
        HostTable t;
        const Score v0 = value(free_.data());
        t.front.push_back({Point{0, v0}});
        if (movable.empty()) {
            t.evaluations = evaluations_;
            return t;
        }
        // Every removal set is worth at most "all removed" (V_h is monotone): computed first, so
        // that every point is clamped at it (an exact-fallback value replaced by its relaxation
        // could exceed it), and the cheap and trivial tables dominate every full one.
        g_all_ = all_removed_value(movable);
        return build(t, movable, kcap, v0);
    }

    /**
     * The cheap table of host h, for a bound cut short: V_h(0); for k = 1..kCheapDepth the tail
     * bound min(V_h(all removed), V_h(every node and resource gaining its k largest demands)) at the
     * k smallest RAMs and landing costs; and one option at kCheapDepth + 1 removals, "every
     * migratable VM removed" at the kCheapDepth + 1 smallest costs, which dominates every larger k
     * (value at least, RAM at most, fewer removals). Each option is at least the full table's
     * option of the same k (its exact or relaxed values are clamped at "all removed"), so the
     * knapsack over it is at least the one over the full table. kCheapDepth + 2 value evaluations;
     * no watch checks.
     */
    HostTable cheap(int h, const std::vector<int>& movable, const std::vector<Amount>& usage, int kcap) {
        constexpr int kCheapDepth = 4;
        checking_ = false;
        setup(h, movable, usage);
        HostTable t;
        t.kind = TableKind::Cheap;
        t.front.push_back({Point{0, value(free_.data())}});
        const int k_top = std::min(static_cast<int>(movable.size()), kcap);
        if (k_top >= 1) {
            const std::size_t X = free_.size();
            std::vector<Amount> all = free_;
            std::vector<std::vector<Amount>> per(X);
            std::vector<Amount> rams;
            std::vector<Score> lands;
            for (int v : movable) {
                const int f = p_.vms[v].flavor;
                const NodeMask mask = vm_mask(v);
                shift(all.data(), f, mask, +1);
                for (int i = 0; i < n_; ++i)
                    if ((mask >> i) & 1U)
                        for (int r = 0; r < R_; ++r) per[static_cast<std::size_t>(i) * R_ + r].push_back(p_.flavors[f].node_demand[r]);
                rams.push_back(p_.flavors[f].demand[kRamMib]);
                lands.push_back(land_[f]);
            }
            std::sort(rams.begin(), rams.end());
            std::sort(lands.begin(), lands.end());
            for (auto& d : per) std::sort(d.begin(), d.end(), std::greater<>());
            const Score g_all = value(all.data());
            std::vector<Amount> top = free_;
            Amount ram = 0;
            Score land = 0;
            for (int k = 1; k <= std::min(k_top, kCheapDepth + 1); ++k) {
                ram += rams[k - 1];
                land += lands[k - 1];
                Score v = g_all;
                if (k <= kCheapDepth) {
                    for (std::size_t x = 0; x < X; ++x)
                        if (static_cast<std::size_t>(k) <= per[x].size()) top[x] += per[x][k - 1];
                    v = std::min(g_all, value(top.data()));
                }
                t.front.push_back({Point{ram, v - wm_ * ram - land}});
            }
        }
        t.evaluations = evaluations_;
        return t;
    }

private:
    /** Per-host state of run() and cheap(): type, free amounts, the pooled cap with free remaps. */
    void setup(int h, const std::vector<int>& movable, const std::vector<Amount>& usage) {
        type_ = p_.hosts[h].type;
        const HostType& ht = p_.host_types[type_];
        n_ = ht.num_nodes();
        evaluations_ = 0;
        free_.assign(ht.node_capacity.size(), 0);
        for (std::size_t i = 0; i < free_.size(); ++i) free_[i] = ht.node_capacity[i] - usage[i];
        if (remaps_) {
            // Pooled relaxation's per-host cap: VMCAP with only the non-migratable VMs in place
            // (they never move; every arrangement of the others leaves at most this room).
            std::vector<Amount> fixed(ht.node_capacity.begin(), ht.node_capacity.end());
            fixed_cap_.assign(T_, 0);
            std::vector<Amount> movable_use(free_.size(), 0);
            for (int v : movable) shift(movable_use.data(), p_.vms[v].flavor, vm_mask(v), +1);
            for (std::size_t i = 0; i < fixed.size(); ++i) fixed[i] = free_[i] + movable_use[i];
            Count b[kMaxPNuma];
            for (int j = 0; j < T_; ++j) {
                const int f = m_.target_flavor(j);
                m_.capacity_vector(f, n_, fixed.data(), b);
                fixed_cap_[j] = vmcap_ub(f, b);
            }
        }
    }

    /** classes_: the host's migratable VMs by (flavor, pNUMA node set), node by node. */
    void make_classes(const std::vector<int>& movable) {
        made_.k_top = -1;  // what subsets_and_states() made was of the previous classes
        // Classes of identical VMs, in (flavor, mask) order.
        std::map<std::pair<int, NodeMask>, int> index;
        classes_.clear();
        for (int v : movable) {
            const auto key = std::make_pair(p_.vms[v].flavor, vm_mask(v));
            auto it = index.find(key);
            if (it == index.end()) {
                it = index.emplace(key, static_cast<int>(classes_.size())).first;
                classes_.push_back(VmClass{key.first, key.second, 0, p_.flavors[key.first].demand[kRamMib], land_[key.first]});
            }
            ++classes_[it->second].count;
        }
        // Node by node (highest pNUMA node of the mask, then mask, then flavor): the branch and
        // bound's later classes then touch fewer nodes, and its cut gives the others nothing.
        std::sort(classes_.begin(), classes_.end(), [](const VmClass& a, const VmClass& b) {
            const int ha = std::bit_width(a.mask), hb = std::bit_width(b.mask);
            if (ha != hb) return ha < hb;
            return a.mask != b.mask ? a.mask < b.mask : a.flavor < b.flavor;
        });
    }

    HostTable build(HostTable& t, const std::vector<int>& movable, int kcap, Score v0) {
        make_classes(movable);

        // Exact depth: the largest K whose multisets of at most K removals fit the work cap.
        bool exact_pair = false;
        for (int j = 0; j < T_; ++j) exact_pair = exact_pair || !m_.evaluator(type_, m_.target_flavor(j)).is_closed_form();
        const std::int64_t cap = exact_pair ? prm_.max_sets_per_exact_host : prm_.max_sets_per_host;
        const int n_mov = static_cast<int>(movable.size());
        const int k_top = std::min(n_mov, kcap);  // largest removal count the table needs
        const int kmax = std::min(prm_.max_exact_removals, k_top);
        std::vector<double> ways(kmax + 1, 0.0);  // multisets of exactly k removals
        ways[0] = 1.0;
        for (const VmClass& c : classes_)
            for (int k = kmax; k >= 1; --k)
                for (int t = 1; t <= std::min(c.count, k); ++t) ways[k] += ways[k - t];
        int depth = 0;
        double total = 1.0;
        for (int k = 1; k <= kmax; ++k) {
            total += ways[k];
            if (total > static_cast<double>(cap) && k > 1) break;
            depth = k;  // depth 1 (one set per class) is always affordable: at most one per VM
        }
        t.depth = depth;

        // Exact part: every multiset of at most `depth` removals.
        raw_.assign(depth + 1, {});
        raw_[0].push_back(Point{0, v0});
        used_.assign(classes_.size(), 0);
        depth_ = depth;
        enumerate(0, 0, 0, 0);
        for (int k = 1; k <= depth; ++k) t.front.push_back(fronts_ ? pareto(raw_[k]) : best_point(raw_[k]));

        // Beyond the exact depth, per k: a branch and bound over removal multisets of exactly k
        // VMs (best_of_size) while its evaluation allowance lasts, else the tail bound
        // min(all migratable removed, every node gains its k largest demands). Either point
        // carries the k smallest RAMs and landing costs, at most any k-set's (valid for the RAM
        // Lagrangian too: value - lambda x ram only grows when ram shrinks).
        t.beyond = depth < k_top;
        if (depth < k_top) {
            prepare_suffixes();
            greedy_pick_.clear();
            greedy_value_.clear();
            greedy_cost_.clear();
            const auto& rams = suf_ram_[0];    // prefix sums of the host's RAMs, ascending
            const auto& lands = suf_land_[0];  // prefix sums of its landing costs, ascending
            std::int64_t allowance = exact_pair ? prm_.max_search_per_exact_host : std::min(prm_.max_search_per_host, search_share_);
            std::int64_t alloc_allowance =
                exact_pair ? prm_.max_allocation_per_exact_host : std::min(prm_.max_allocation_per_host, allocation_share_);
            Score alloc_floor = std::numeric_limits<Score>::min();
            // Node-subset bound (node_subset_bound()) first, with an allowance as large as the
            // allocation bound's; the allocation bound only where it does not complete. Where it completes without a RAM
            // cost it is exact (the best V_h - L over k-sets, carried at the k smallest RAMs, as
            // the branch and bound's points are), so the branch and bound has nothing to add.
            const bool split = shape_ != nullptr && grid_ == nullptr;
            const bool slot_ok = prm_.node_subsets && !remaps_ && !exact_pair &&
                                 (split ? split_subset_bound(k_top, alloc_allowance) : node_subsets_retried(k_top, alloc_allowance));
            t.node_subsets = slot_ok;
            t.split = split;
            bool searching = allowance > 0 && !(slot_ok && wm_ == 0);
            Score best_cheap = std::numeric_limits<Score>::min();  // best point so far with ram = the k smallest
            std::vector<Amount> top(free_.size());
            for (int k = depth + 1; k <= k_top; ++k) {
                const Amount min_ram = rams[k];
                const Score min_land = lands[k];
                Score val = 0;
                bool exact_k = false;
                if (searching) {
                    exact_k = best_of_size(k, allowance, val);
                    searching = exact_k;
                }
                if (!exact_k && slot_ok) {
                    for (std::size_t x = 0; x < top.size(); ++x) top[x] = free_[x] + suf_top_[0][x][k];
                    // Both bound every k-set: the smaller holds.
                    val = std::min({g_all_ - min_land, slot_best_[k], value(top.data()) - min_land}) - wm_ * min_ram;
                } else if (!exact_k) {
                    Score alloc = 0;
                    if (allocation_bound(k, alloc_allowance, alloc_floor, alloc)) {
                        alloc_floor = alloc;
                        val = std::min(g_all_, alloc) - wm_ * min_ram - min_land;
                    } else {
                        for (std::size_t x = 0; x < top.size(); ++x) top[x] = free_[x] + suf_top_[0][x][k];
                        val = std::min(g_all_, value(top.data())) - wm_ * min_ram - min_land;
                    }
                }
                t.front.push_back({Point{min_ram, val}});
                best_cheap = std::max(best_cheap, val);
                // Stop: every larger k' is worth at most g_all - its k' smallest costs, which an
                // option of at most k removals and no more RAM already reaches or beats.
                if (k < k_top && best_cheap >= g_all_ - wm_ * rams[k + 1] - lands[k + 1]) break;
            }
        }
        t.evaluations = evaluations_;
        return t;
    }

    /** V_h with every migratable VM of the host removed (one value evaluation). */
    Score all_removed_value(const std::vector<int>& movable) {
        std::vector<Amount> all = free_;
        for (int v : movable) shift(all.data(), p_.vms[v].flavor, vm_mask(v), +1);
        return value(all.data());
    }

    /** node_subset_bound() with `allowance` value evaluations, and once more with
     *  node_subset_retry x it when the first search ran out after at least an eighth of it: on
     *  huawei-1000 (1%) most such hosts then complete, while on az10k-8t almost every host runs
     *  out within its first eighth and would waste the retry (docs/performance.md, "The
     *  node-subset bound's second try"). The rule reads the host alone, so the tables do not
     *  depend on threads or order. */
    bool node_subsets_retried(int k_top, std::int64_t allowance) {
        std::int64_t left = allowance;
        double progress = 0.0;
        if (node_subset_bound(k_top, left, progress)) return true;
        if (prm_.node_subset_retry <= 1 || progress < kSubsetRetryProgress) return false;
        left = allowance * prm_.node_subset_retry;
        return node_subset_bound(k_top, left, progress);
    }

    /**
     * With whole multi-node arrivals (multi_) and no RAM cost: the host's table from a price mu on
     * removals. H(mu) = the best over removal sets S and arrivals of T(b) - pi(S) - mu |S| + the
     * pieces' value, b being what the copies and multi-node arrivals keep per node: X (a multiset
     * of multi-node VMs, outer_sets()) and, per node, one option of node_options() (removals a,
     * kept units b, prices less pieces). With the removals priced the nodes separate but for T:
     * per node and b the least cost phi_i(b) = min over options keeping >= b units of
     * (cost + mu a), and a depth-first search over the b vectors (cut: the later nodes at their
     * most units and least costs). Every set of k removals is worth at most H(mu) + mu k, so
     * slot_best_[k] = min over the mu evaluated of H(mu) + mu k. The mu are the breakpoints of H
     * (Eisner and Severance's search: from mu = 0 and a mu where no removal pays, the
     * intersection of two configurations' lines, again while a new one appears): slot_best_ is
     * then the concave envelope of the exact per-k bests, up to integer mu. False when the X or
     * the states pass their caps, or the searches' leaves and cuts pass kPricedLeavesPerEvaluation
     * x `allowance`.
     */
    bool priced_search(int k_top, std::int64_t allowance) {
        std::vector<int> multi;
        std::vector<std::vector<int>> outer;
        std::int64_t work = kWorkPerEvaluation * allowance;
        if (!subsets_and_states(k_top, work, multi, outer)) return false;
        // Every X's options per node (nodes X leaves alone share X empty's; those X touches are
        // kept in `store`, whose elements stay put as it grows).
        std::vector<std::vector<const std::vector<SlotOption>*>> opts(
            outer.size(), std::vector<const std::vector<SlotOption>*>(static_cast<std::size_t>(n_)));
        std::deque<std::vector<SlotOption>> store;
        std::vector<int> x_size(outer.size(), 0);
        std::vector<Score> x_land(outer.size(), 0);
        std::vector<Amount> base;
        for (std::size_t o = 0; o < outer.size(); ++o) {
            NodeMask touched = 0;
            base = free_;
            for (std::size_t m = 0; m < multi.size(); ++m) {
                const VmClass& vc = classes_[multi[m]];
                x_size[o] += outer[o][m];
                x_land[o] += vc.landing * outer[o][m];
                if (outer[o][m] > 0) touched = static_cast<NodeMask>(touched | vc.mask);
                for (int q = 0; q < outer[o][m]; ++q) shift(base.data(), vc.flavor, vc.mask, +1);
            }
            for (int i = 0; i < n_; ++i) {
                const std::vector<SlotOption>*& mine = opts[o][static_cast<std::size_t>(i)];
                if (o == 0) {
                    if (!empty_x_options(i, k_top, work, mine)) return false;
                } else if (((touched >> i) & 1U) == 0) {
                    mine = opts[0][static_cast<std::size_t>(i)];
                } else {
                    if (!node_options(i, base, k_top - x_size[o], node_states_[i], work, store.emplace_back())) return false;
                    mine = &store.back();
                }
            }
        }
        std::int64_t left = kPricedLeavesPerEvaluation * allowance;
        const std::int64_t width = kMaxPricedUnits + 1;
        std::vector<Score> phi;
        std::vector<int> arg, arg_a, most, pick(static_cast<std::size_t>(n_)), best_pick;
        // The search's leaves read T and the strides straight (a leaf is a read and an add).
        const Score* const tab = multi_->table(type_);
        std::int64_t stride[kMaxPNuma] = {};
        for (int i = 0; i < n_; ++i) stride[i] = multi_->stride(type_, i);
        std::vector<Score> rest_least(static_cast<std::size_t>(n_) + 1);
        std::vector<std::int64_t> rest_top(static_cast<std::size_t>(n_) + 1);
        struct Level {
            std::int64_t idx;  ///< its class x the node's stride
            Score cost;        ///< phi at the class (with mu)
            int arg, a;        ///< the option and its removals
        };
        std::vector<Level> levels(static_cast<std::size_t>(n_ * width));
        std::vector<int> n_levels(static_cast<std::size_t>(n_)), order;
        // H(mu): its value, the removals of a best configuration, and that configuration's witness.
        struct Eval {
            Score h = std::numeric_limits<Score>::min();
            int k = 0;
            std::shared_ptr<const Witness> w;
        };
        bool aborted = false;
        // The configurations found so far (lines G - mu k): the best of them at mu seeds each
        // evaluation, so the search only has to prove that nothing beats it (at a breakpoint
        // search's mu two of them tie, and most often nothing does).
        std::vector<Eval> lines;
        auto eval = [&](Score mu) {
            Eval e;
            for (const Eval& l : lines) {
                const Score at_mu = l.h - mu * l.k;
                if (e.w == nullptr || at_mu > e.h) {
                    e = l;
                    e.h = at_mu;
                }
            }
            bool found = false;
            std::size_t best_o = 0;
            std::int64_t best_idx = 0;
            int cur_a = 0;
            for (std::size_t o = 0; o < outer.size() && !aborted; ++o) {
                const int room = k_top - x_size[o];
                phi.assign(static_cast<std::size_t>(n_ * width), std::numeric_limits<Score>::max());
                arg.assign(phi.size(), -1);
                arg_a.assign(phi.size(), 0);
                most.assign(static_cast<std::size_t>(n_), -1);
                for (int i = 0; i < n_; ++i) {
                    const std::vector<SlotOption>& os = *opts[o][static_cast<std::size_t>(i)];
                    for (std::size_t q = 0; q < os.size(); ++q) {
                        if (os[q].a > room) continue;
                        const int b = static_cast<int>(multi_->unit_class(type_, i, os[q].free.data()));
                        const Score c = os[q].land + mu * os[q].a;
                        const std::size_t x = static_cast<std::size_t>(i * width + b);
                        if (c < phi[x] || (c == phi[x] && os[q].a < arg_a[x])) {
                            phi[x] = c;
                            arg[x] = static_cast<int>(q);
                            arg_a[x] = os[q].a;
                        }
                        most[i] = std::max(most[i], b);
                    }
                    // Fewer units kept: every option keeping more qualifies (suffix minimum).
                    for (int b = most[i] - 1; b >= 0; --b) {
                        const std::size_t x = static_cast<std::size_t>(i * width + b);
                        if (arg[x + 1] >= 0 && (arg[x] < 0 || phi[x + 1] < phi[x])) {
                            phi[x] = phi[x + 1];
                            arg[x] = arg[x + 1];
                            arg_a[x] = arg_a[x + 1];
                        }
                    }
                }
                // Per node its undominated levels: the classes whose least cost is below that of
                // every higher class (a class costing no less than a higher one is never better: T
                // is monotone), largest first, so costs fall along the list. A node with one level
                // is fixed; the others are searched in their order.
                std::int64_t idx0 = 0;
                Score value0 = -x_land[o] - mu * x_size[o];
                int a0 = 0;
                order.clear();
                for (int i = 0; i < n_; ++i) {
                    Level* lv = levels.data() + static_cast<std::ptrdiff_t>(i) * width;
                    int cnt_i = 0;
                    Score above = std::numeric_limits<Score>::max();
                    for (int b = most[i]; b >= 0; --b) {
                        const std::size_t x = static_cast<std::size_t>(i * width + b);
                        if (arg[x] < 0 || phi[x] >= above) continue;
                        above = phi[x];
                        lv[cnt_i++] = Level{b * stride[i], phi[x], arg[x], arg_a[x]};
                    }
                    n_levels[static_cast<std::size_t>(i)] = cnt_i;
                    if (cnt_i == 1) {
                        idx0 += lv[0].idx;
                        value0 -= lv[0].cost;
                        a0 += lv[0].a;
                        pick[static_cast<std::size_t>(i)] = lv[0].arg;
                    } else if (cnt_i > 1) {
                        order.push_back(i);
                    }
                }
                if (std::find(n_levels.begin(), n_levels.end(), 0) != n_levels.end())
                    continue;  // a node without an option within the removals left
                const int depth = static_cast<int>(order.size());
                rest_least[static_cast<std::size_t>(depth)] = 0;
                rest_top[static_cast<std::size_t>(depth)] = 0;
                for (int d = depth - 1; d >= 0; --d) {
                    const int i = order[static_cast<std::size_t>(d)];
                    const Level* lv = levels.data() + static_cast<std::ptrdiff_t>(i) * width;
                    rest_least[static_cast<std::size_t>(d)] =
                        rest_least[static_cast<std::size_t>(d) + 1] + lv[n_levels[static_cast<std::size_t>(i)] - 1].cost;
                    rest_top[static_cast<std::size_t>(d)] = rest_top[static_cast<std::size_t>(d) + 1] + lv[0].idx;
                }
                cur_a = a0;
                auto leaf = [&](std::int64_t idx, Score v, int extra_a) {
                    found = true;
                    e.h = v;
                    e.k = x_size[o] + cur_a + extra_a;
                    best_o = o;
                    best_idx = idx;
                    best_pick = pick;
                };
                auto dfs = [&](auto&& self, int d, std::int64_t idx, Score value) -> void {
                    if (--left < 0) {
                        aborted = true;
                        return;
                    }
                    tick();
                    if (d == depth) {
                        const Score v = tab[idx] + value;
                        if (v > e.h) leaf(idx, v, 0);
                        return;
                    }
                    const std::size_t u = static_cast<std::size_t>(d);
                    if (tab[idx + rest_top[u]] + value - rest_least[u] <= e.h) return;
                    // Each later node j at its own levels, the others at their top classes and least
                    // costs: T(idx, s) - phi(s) <= T(idx, top but s_j) - phi_j(s_j) - the others' least.
                    // Node order[d]'s own terms bound each of its levels' subtrees (child_ub).
                    Score child_ub[kMaxPricedUnits + 1];
                    for (int dj = d; dj < depth; ++dj) {
                        const int j = order[static_cast<std::size_t>(dj)];
                        const Level* lj = levels.data() + static_cast<std::ptrdiff_t>(j) * width;
                        const int nj = n_levels[static_cast<std::size_t>(j)];
                        const std::int64_t base_j = idx + rest_top[u] - lj[0].idx;
                        const Score rest_j = value - (rest_least[u] - lj[nj - 1].cost);
                        Score best_j = std::numeric_limits<Score>::min();
                        for (int q = 0; q < nj; ++q) {
                            const Score b = tab[base_j + lj[q].idx] - lj[q].cost + rest_j;
                            if (dj == d) child_ub[q] = b;
                            best_j = std::max(best_j, b);
                        }
                        if (best_j <= e.h) return;
                    }
                    const int i = order[u];
                    const Level* lv = levels.data() + static_cast<std::ptrdiff_t>(i) * width;
                    const int nl = n_levels[static_cast<std::size_t>(i)];
                    if (d == depth - 1) {
                        // The last node's choices are leaves: read them in one loop.
                        left -= nl;
                        for (int q = 0; q < nl; ++q) {
                            const Score v = tab[idx + lv[q].idx] + value - lv[q].cost;
                            if (v <= e.h) continue;
                            pick[static_cast<std::size_t>(i)] = lv[q].arg;
                            leaf(idx + lv[q].idx, v, lv[q].a);
                        }
                        return;
                    }
                    for (int q = 0; q < nl && !aborted; ++q) {
                        if (child_ub[q] <= e.h) continue;
                        pick[static_cast<std::size_t>(i)] = lv[q].arg;
                        cur_a += lv[q].a;
                        self(self, d + 1, idx + lv[q].idx, value - lv[q].cost);
                        cur_a -= lv[q].a;
                    }
                };
                dfs(dfs, 0, idx0, value0);
            }
            if (aborted || !found) return e;
            auto w = std::make_shared<Witness>();
            for (std::size_t m = 0; m < multi.size(); ++m)
                if (outer[best_o][m] > 0) w->removed.emplace_back(classes_[multi[m]].flavor, outer[best_o][m]);
            w->rooms.assign(free_.size(), 0);
            for (int j = 0; j < n_; ++j) {
                const SlotOption& opt =
                    (*opts[best_o][static_cast<std::size_t>(j)])[static_cast<std::size_t>(best_pick[static_cast<std::size_t>(j)])];
                for (const auto& [c, x] : node_states_[j].take[static_cast<std::size_t>(opt.state)])
                    w->removed.emplace_back(classes_[c].flavor, x);
                std::copy(opt.arrive.begin(), opt.arrive.end(), w->rooms.begin() + static_cast<std::ptrdiff_t>(j) * R_);
            }
            w->arrived.assign(p_.flavors.size(), 0);
            multi_->arrivals_at(type_, best_idx, w->arrived);
            e.w = std::move(w);
            Eval line = e;
            line.h = e.h + mu * e.k;  // G: the line's value at mu = 0
            lines.push_back(std::move(line));
            return e;
        };
        // The breakpoints of H: lines G - mu k of the configurations found (G = h + mu k).
        std::vector<std::pair<Score, Eval>> done;  // (mu, H(mu))
        const Eval e0 = eval(0);
        if (aborted) return false;
        done.emplace_back(0, e0);
        if (e0.k > 0) {
            // No removal pays beyond mu = H(0) + 1: every configuration with removals is then below 0
            // <= the best without (T >= 0, pieces >= 0, no prices paid).
            const Score top = std::max<Score>(e0.h, 0) + 1;
            const Eval e1 = eval(top);
            if (aborted) return false;
            done.emplace_back(top, e1);
            // Pairs (a, b) of configurations, a with more removals, to intersect.
            std::vector<std::pair<std::pair<int, Score>, std::pair<int, Score>>> todo;
            todo.push_back({{e0.k, e0.h}, {e1.k, e1.h + top * e1.k}});
            while (!todo.empty() && static_cast<int>(done.size()) < kMaxPricedMu) {
                const auto [a, b] = todo.back();
                todo.pop_back();
                if (a.first <= b.first) continue;
                // The mu where a's line G_a - mu k_a meets b's, rounded up.
                const Score num = a.second - b.second, den = a.first - b.first;
                const Score mu = num <= 0 ? 0 : (num + den - 1) / den;
                const Eval e = eval(mu);
                if (aborted) return false;
                done.emplace_back(mu, e);
                const Score g = e.h + mu * e.k;
                // A configuration above both lines at mu splits the pair; else the pair is an edge.
                if (e.h > a.second - mu * a.first && e.h > b.second - mu * b.first && e.k < a.first && e.k > b.first) {
                    todo.push_back({a, {e.k, g}});
                    todo.push_back({{e.k, g}, b});
                }
            }
        }
        slot_best_.assign(static_cast<std::size_t>(k_top) + 1, 0);
        slot_wit_.assign(slot_best_.size(), nullptr);
        for (int k = 0; k <= k_top; ++k) {
            Score v = std::numeric_limits<Score>::max();
            std::shared_ptr<const Witness> w;
            for (const auto& [mu, e] : done)
                if (e.h + mu * k < v) {
                    v = e.h + mu * k;
                    w = e.w;
                }
            slot_best_[static_cast<std::size_t>(k)] = v;
            slot_wit_[static_cast<std::size_t>(k)] = w;
        }
        return true;
    }

    /**
     * lagrangian_upper_bound()'s table of the host: front[k] bounds the best
     * V_h(F + d(S) - d(A)) - W x RAM(S) - pi(S) + pi(A) over removal sets S of k VMs and arrival
     * piece sets A (grid_), k = 0..min(VMs, kcap), each at the k smallest RAMs, with its witness.
     * The node-subset search (node_subset_bound() with arrival options) where it completes (exact
     * for the pieces); else the joint tail: Vt(F) <= V(F) + sum_i K(F_i) (split F into what the
     * copies and the pieces use; V and K are monotone), at every node gaining its k largest
     * demands, less the k smallest prices.
     */
    HostTable build_joint(const std::vector<int>& movable, int kcap) {
        make_classes(movable);
        HostTable t;
        t.depth = 0;
        const int k_top = std::min(static_cast<int>(movable.size()), kcap);
        std::vector<Amount> all = free_;
        for (int v : movable) shift(all.data(), p_.vms[v].flavor, vm_mask(v), +1);
        g_all_ = tvalue(all.data());
        prepare_suffixes();
        const std::int64_t allowance = std::min(prm_.max_allocation_per_host, allocation_share_);
        // Exact per k first; where it runs out, the envelope of the removals priced (cheaper on
        // 8-node hosts, where the per-k search's combinations are too many: docs/upper-bound.md).
        // set_per_k(false) skips it only where the envelope can take its place.
        const bool priced = multi_ != nullptr && wm_ == 0 && multi_->fits(type_, kMaxPricedUnits);
        const bool per_k = prm_.arrival_per_k_first && (per_k_ || !priced);
        bool ok = per_k && node_subsets_retried(k_top, allowance);
        t.per_k_out = !ok;
        if (!ok && priced) ok = priced_search(k_top, allowance);
        if (!ok && !prm_.arrival_per_k_first) ok = node_subsets_retried(k_top, allowance);
        t.node_subsets = ok;
        t.beyond = k_top > 0;
        std::vector<Amount> top(free_.size());
        for (int k = 0; k <= k_top; ++k) {
            const Amount min_ram = suf_ram_[0][static_cast<std::size_t>(k)];
            Score val = 0;
            std::shared_ptr<const Witness> w;
            if (ok) {
                val = slot_best_[static_cast<std::size_t>(k)];
                w = slot_wit_[static_cast<std::size_t>(k)];
            } else {
                for (std::size_t x = 0; x < top.size(); ++x) top[x] = free_[x] + suf_top_[0][x][static_cast<std::size_t>(k)];
                val = std::min(g_all_, tvalue(top.data())) - suf_land_[0][static_cast<std::size_t>(k)];
                for (int i = 0; i < n_; ++i) val += grid_->value(top.data() + static_cast<std::ptrdiff_t>(i) * R_);
                auto tw = std::make_shared<Witness>();
                tw->rooms = top;
                if (multi_ != nullptr) {
                    tw->arrived.assign(p_.flavors.size(), 0);
                    multi_->arrivals(type_, top.data(), tw->arrived);
                }
                w = std::move(tw);
            }
            t.front.push_back({Point{min_ram, val - wm_ * min_ram}});
            t.witness.push_back(std::move(w));
        }
        t.evaluations = evaluations_;
        return t;
    }

    /** Suffix data over classes c..end for the branch and bound's bounds: per (node, resource)
     *  prefix sums of their VMs' demands there, descending, and prefix sums of their RAMs and
     *  landing costs, ascending (index q: the q largest / smallest). */
    void prepare_suffixes() {
        // Also, for the whole host: span_sum_ and on_node_ (allocation_bound).
        const int C = static_cast<int>(classes_.size());
        const std::size_t X = free_.size();
        suf_top_.assign(C + 1, std::vector<std::vector<Amount>>(X));
        suf_ram_.assign(C + 1, {});
        suf_land_.assign(C + 1, {});
        suf_count_.assign(C + 1, 0);
        std::vector<std::vector<Amount>> per(X);
        std::vector<Amount> rams;
        std::vector<Score> lands;
        std::vector<int> spans;
        on_node_.assign(n_, 0);
        for (int c = C; c >= 0; --c) {
            if (c < C) {
                const VmClass& vc = classes_[c];
                const Amount* nd = p_.flavors[vc.flavor].node_demand.data();
                for (int q = 0; q < vc.count; ++q) {
                    for (int i = 0; i < n_; ++i)
                        if ((vc.mask >> i) & 1U)
                            for (int r = 0; r < R_; ++r) per[static_cast<std::size_t>(i) * R_ + r].push_back(nd[r]);
                    rams.push_back(vc.ram);
                    lands.push_back(vc.landing);
                    spans.push_back(std::popcount(vc.mask));
                }
                for (int i = 0; i < n_; ++i) on_node_[i] += ((vc.mask >> i) & 1U) ? vc.count : 0;
                suf_count_[c] = suf_count_[c + 1] + vc.count;
            }
            const int n = suf_count_[c];
            for (std::size_t x = 0; x < X; ++x) {
                std::vector<Amount> d = per[x];
                std::sort(d.begin(), d.end(), std::greater<>());
                auto& ps = suf_top_[c][x];
                ps.assign(n + 1, 0);
                for (int q = 1; q <= n; ++q) ps[q] = ps[q - 1] + (q <= static_cast<int>(d.size()) ? d[q - 1] : 0);
            }
            std::vector<Amount> rs = rams;
            std::vector<Score> ls = lands;
            std::sort(rs.begin(), rs.end());
            std::sort(ls.begin(), ls.end());
            suf_ram_[c].assign(n + 1, 0);
            suf_land_[c].assign(n + 1, 0);
            for (int q = 1; q <= n; ++q) {
                suf_ram_[c][q] = suf_ram_[c][q - 1] + rs[q - 1];
                suf_land_[c][q] = suf_land_[c][q - 1] + ls[q - 1];
            }
        }
        std::sort(spans.begin(), spans.end(), std::greater<>());
        span_sum_.assign(spans.size() + 1, 0);
        for (std::size_t q = 1; q <= spans.size(); ++q) span_sum_[q] = span_sum_[q - 1] + spans[q - 1];
    }

    /**
     * The best V_h(S) - W x RAM(S) - landing(S) over removal multisets S of exactly k VMs, into
     * `best`, by depth-first branch and bound over the classes (how many of class c leave, most
     * first) from a greedy incumbent. A partial set is cut when even removing the q still to
     * choose with each node gaining the q largest remaining demands there, at the q smallest
     * remaining RAMs and landing costs, cannot beat the incumbent. Every value evaluation uses
     * one unit of `allowance`; false (and `best` meaningless) if it runs out first.
     */
    bool best_of_size(int k, std::int64_t& allowance, Score& best) {
        bb_k_ = k;
        bb_left_ = &allowance;
        bb_aborted_ = false;
        // Greedy incumbent: k times the class whose removal scores best. Its first steps are the
        // same for every k, so they are computed once per host (greedy_pick_ etc.) and only
        // charged to the allowance again, exactly as many evaluations as they took (so the
        // allowance runs out where it would if they were recomputed: the same table).
        bb_best_ = std::numeric_limits<Score>::min();
        {
            Amount ram = 0;
            Score land = 0;
            int shifted = 0;  // picks removed from free_ so far
            for (int step = 0; step < k && !bb_aborted_; ++step) {
                if (step < static_cast<int>(greedy_pick_.size())) {
                    if (allowance < greedy_cost_[step]) {
                        allowance = -1;
                        bb_aborted_ = true;
                        break;
                    }
                    allowance -= greedy_cost_[step];
                } else if (!greedy_step(ram, land, allowance)) {
                    bb_aborted_ = true;
                    break;
                }
                const VmClass& vc = classes_[greedy_pick_[step]];
                ram += vc.ram;
                land += vc.landing;
                shift(free_.data(), vc.flavor, vc.mask, +1);
                ++shifted;
                if (step == k - 1) bb_best_ = greedy_value_[step];
            }
            for (int q = 0; q < shifted; ++q) shift(free_.data(), classes_[greedy_pick_[q]].flavor, classes_[greedy_pick_[q]].mask, -1);
        }
        if (!bb_aborted_) branch(0, 0, 0, 0);
        best = bb_best_;
        return !bb_aborted_;
    }

    /** The next step of best_of_size()'s greedy incumbent, from free_ with its earlier picks (RAM
     *  `ram`, landing costs `land`) removed: the class whose removal scores best, appended to
     *  greedy_pick_ with its value and the evaluations it took. False (nothing appended) if
     *  `allowance` runs out first, one evaluation per class with VMs left, as before. */
    bool greedy_step(Amount ram, Score land, std::int64_t& allowance) {
        std::vector<int> used(classes_.size(), 0);
        for (int q : greedy_pick_) ++used[q];
        int pick = -1, cost = 0;
        Score pick_v = std::numeric_limits<Score>::min();
        for (std::size_t c = 0; c < classes_.size(); ++c) {
            const VmClass& vc = classes_[c];
            if (used[c] == vc.count) continue;
            if (--allowance < 0) return false;
            ++cost;
            shift(free_.data(), vc.flavor, vc.mask, +1);
            const Score v = std::min(g_all_, value(free_.data())) - wm_ * (ram + vc.ram) - (land + vc.landing);
            shift(free_.data(), vc.flavor, vc.mask, -1);
            if (v > pick_v) {
                pick_v = v;
                pick = static_cast<int>(c);
            }
        }
        greedy_pick_.push_back(pick);  // k <= the host's migratable VMs: some class has VMs left
        greedy_value_.push_back(pick_v);
        greedy_cost_.push_back(cost);
        return true;
    }

    /**
     * Node-subset bound on V_h(S) - L(S) over removal sets S of k VMs, for every k <= k_top at
     * once, into slot_best_[k]; exact when it completes. Every multiset X of the host's VMs that
     * use several pNUMA nodes is taken in turn (most hosts have a few); with X removed, node i's
     * options are what its single-node VMs can free: node_states() (once per node, by dynamic
     * programming over the amounts freed, independent of X) lists, per number a of removals, the
     * amounts some multiset of a single-node VMs on i frees at the least landing cost, and of the
     * node's free amounts after each (X's share plus the amounts freed) only those whose copy
     * counts (node_b per target) and landing costs no state of at most a removals beats are kept
     * (V_h reads only the copy counts and is monotone in each). A set S of k VMs is X plus, on
     * each node, a_i single-node VMs with |X| + sum_i a_i = k, so the best combination of one
     * option per node with at most k - |X| removals bounds V_h(S) - L(S); the combinations are
     * searched node by node with a cut, the X in order of size. False (slot_best_ meaningless)
     * when there are more than kOuterSets multisets X, the states' work (states made, compared and
     * counted per target) passes kWorkPerEvaluation x `allowance`, the combinations with X empty
     * (the product of the nodes' option counts) pass kCombinationsPerEvaluation x `allowance`, or
     * the search's value evaluations (one per leaf and one per cut test) pass `allowance`, which it
     * spends; then `progress` is the share of the search it had done, (X's index + the share of
     * node 0's options begun) / the number of X, read from the host alone (0 where it gave up
     * before searching).
     */
    bool node_subset_bound(int k_top, std::int64_t& allowance, double& progress) {
        progress = 0.0;
        constexpr std::int64_t kCombinationsPerEvaluation = 64;
        std::vector<int> multi;
        std::vector<std::vector<int>> outer;
        std::int64_t work = kWorkPerEvaluation * allowance;
        if (!subsets_and_states(k_top, work, multi, outer)) return false;
        std::vector<std::vector<SlotOption>> own(n_);  // the options of the nodes X touches (X empty's: empty_x_options())
        // upto[k]: the best combination found with at most k removals (over every X so far).
        std::vector<Score> upto(static_cast<std::size_t>(k_top) + 1, std::numeric_limits<Score>::min());
        std::vector<std::shared_ptr<const Witness>> wit(grid_ != nullptr ? upto.size() : 0);  // [k]: upto[k]'s combination
        std::vector<const SlotOption*> chosen(static_cast<std::size_t>(n_), nullptr);
        std::vector<Score> neg(static_cast<std::size_t>(n_) + 1, 0);  // [i]: the later nodes' least (negative) option costs, summed
        std::int64_t left = allowance;
        std::vector<Amount> base;
        for (std::size_t o = 0; o < outer.size(); ++o) {
            const std::vector<int>& xs = outer[o];
            int x_size = 0;
            Score x_land = 0;
            NodeMask touched = 0;
            base = free_;
            for (std::size_t m = 0; m < multi.size(); ++m) {
                const VmClass& vc = classes_[multi[m]];
                x_size += xs[m];
                x_land += vc.landing * xs[m];
                if (xs[m] > 0) touched = static_cast<NodeMask>(touched | vc.mask);
                for (int q = 0; q < xs[m]; ++q) shift(base.data(), vc.flavor, vc.mask, +1);
            }
            const int room = k_top - x_size;  // single-node removals left
            slot_opts_.assign(n_, nullptr);
            for (int i = 0; i < n_; ++i) {
                if (o == 0) {
                    if (!empty_x_options(i, k_top, work, slot_opts_[i])) return false;
                } else if (((touched >> i) & 1U) == 0) {
                    slot_opts_[i] = &made_.none[i];  // the same free amounts as with X empty (combine() skips a > room)
                } else {
                    if (!node_options(i, base, room, node_states_[i], work, own[i])) return false;
                    slot_opts_[i] = &own[i];
                }
            }
            // Every combination of one option per node within the removals left, depth-first over
            // the nodes. A partial one (X alone included) is cut when even its later nodes at their
            // largest free amounts over their options (slot_top_, at least every option's copy
            // counts) cannot beat the best found with at most as many removals as it already has:
            // a completion with k removals only counts where it beats every option of at most k.
            // An option is skipped when that bound less its own landing cost cannot beat the best
            // with its removals added (later landing costs are >= 0).
            slot_top_.assign(free_.size(), 0);
            for (int i = 0; i < n_; ++i)
                for (const SlotOption& opt : *slot_opts_[i])
                    for (int r = 0; r < R_; ++r)
                        slot_top_[static_cast<std::size_t>(i) * R_ + r] =
                            std::max(slot_top_[static_cast<std::size_t>(i) * R_ + r], opt.free[r]);
            // With arrivals an option's cost (prices less its pieces' value) may be negative: the
            // cuts then add the later nodes' least costs (0 without arrivals, costs being >= 0).
            for (int i = n_ - 1; i >= 0; --i) {
                Score least = 0;
                for (const SlotOption& opt : *slot_opts_[i]) least = std::min(least, opt.land);
                neg[static_cast<std::size_t>(i)] = neg[static_cast<std::size_t>(i) + 1] + least;
            }
            // Per node and option, the end of its group of options with as many removals (the
            // options come by removals, then landing cost: node_options()).
            group_end_.resize(static_cast<std::size_t>(n_));
            for (int i = 0; i < n_; ++i) {
                const std::vector<SlotOption>& os = *slot_opts_[i];
                std::vector<std::uint32_t>& ge = group_end_[static_cast<std::size_t>(i)];
                ge.resize(os.size());
                for (std::size_t q = os.size(); q-- > 0;)
                    ge[q] = q + 1 < os.size() && os[q + 1].a == os[q].a ? ge[q + 1] : static_cast<std::uint32_t>(q + 1);
            }
            slot_free_ = base;
            // With whole multi-node arrivals T reads each node's units alone (node_part()): the
            // options' parts and the later nodes' top parts are read once, and a value is a table
            // read (what tvalue() of the same free amounts gives).
            using Part = MultiNodeArrivals::NodePart;
            if (multi_ != nullptr) {
                top_part_.assign(static_cast<std::size_t>(n_) + 1, Part{});
                for (int i = n_ - 1; i >= 0; --i) {
                    const Part tp = multi_->node_part(type_, i, slot_top_.data() + static_cast<std::ptrdiff_t>(i) * R_);
                    top_part_[static_cast<std::size_t>(i)] = Part{top_part_[static_cast<std::size_t>(i) + 1].idx + tp.idx,
                                                                  top_part_[static_cast<std::size_t>(i) + 1].extra + tp.extra};
                }
                opt_part_.resize(static_cast<std::size_t>(n_));
                for (int i = 0; i < n_; ++i) {
                    opt_part_[static_cast<std::size_t>(i)].clear();
                    for (const SlotOption& opt : *slot_opts_[i])
                        opt_part_[static_cast<std::size_t>(i)].push_back(multi_->node_part(type_, i, opt.free.data()));
                }
            }
            const Score* const tab = multi_ != nullptr ? multi_->table(type_) : nullptr;
            // Without T and free remaps, where kernel_by_type() did not keep the kernel for the
            // search (kPerTarget, kKernelOrCopyCounts), a value is the closed forms of the copy
            // counts b, which every option carries (node_options()): they are written per node
            // into bmat_ (the later nodes' at slot_top_ for the cuts), and value_of_b() reads
            // them, the same integer as value() without its divisions.
            const bool by_b = tab == nullptr && !remaps_ && kernel_[type_] != kKernel;
            if (by_b) {
                bmat_.assign(static_cast<std::size_t>(T_) * n_, 0);
                top_b_.assign(static_cast<std::size_t>(T_) * n_, 0);
                for (int i = 0; i < n_; ++i)
                    for (int j = 0; j < T_; ++j)
                        top_b_[static_cast<std::size_t>(j) * n_ + i] =
                            m_.node_b(m_.target_flavor(j), slot_top_.data() + static_cast<std::ptrdiff_t>(i) * R_);
            }
            bool aborted = false;
            // `pre`: the chosen options' parts summed (multi_ only).
            auto combine = [&](auto&& self, int i, int cost, Score land, Part pre) -> void {
                if (aborted) return;
                if (--left < 0) {
                    aborted = true;
                    return;
                }
                const std::size_t k = static_cast<std::size_t>(x_size + cost);
                if (i == n_) {
                    Score tv = 0;
                    if (tab != nullptr) {
                        tick();
                        tv = tab[pre.idx] + pre.extra;
                    } else if (by_b) {
                        tv = value_of_b(bmat_.data());
                    } else {
                        tv = tvalue(slot_free_.data());
                    }
                    const Score v = tv - land;
                    if (upto[k] >= v) return;
                    const auto w = grid_ != nullptr ? joint_witness(multi, xs, chosen) : nullptr;
                    for (std::size_t q = k; q < upto.size() && upto[q] < v; ++q) {
                        upto[q] = v;
                        if (w) wit[q] = w;
                    }
                    return;
                }
                Score vb = 0;
                if (tab != nullptr) {
                    tick();
                    const Part& tp = top_part_[static_cast<std::size_t>(i)];
                    vb = tab[pre.idx + tp.idx] + pre.extra + tp.extra - land;
                } else if (by_b) {
                    for (int j = 0; j < T_; ++j)
                        std::copy(top_b_.begin() + static_cast<std::ptrdiff_t>(j) * n_ + i,
                                  top_b_.begin() + static_cast<std::ptrdiff_t>(j + 1) * n_,
                                  bmat_.begin() + static_cast<std::ptrdiff_t>(j) * n_ + i);
                    vb = value_of_b(bmat_.data()) - land;
                } else {
                    slot_bound_ = slot_free_;
                    std::copy(slot_top_.begin() + static_cast<std::ptrdiff_t>(i) * R_, slot_top_.end(),
                              slot_bound_.begin() + static_cast<std::ptrdiff_t>(i) * R_);
                    vb = tvalue(slot_bound_.data()) - land;
                }
                if (vb - neg[static_cast<std::size_t>(i)] <= upto[k]) return;
                const std::vector<SlotOption>& os = *slot_opts_[i];
                const std::vector<std::uint32_t>& group_end = group_end_[static_cast<std::size_t>(i)];
                for (std::size_t q = 0; q < os.size(); ++q) {
                    const SlotOption& opt = os[q];
                    if (i == 0) first_begun_ = q;
                    if (cost + opt.a > room) break;  // the options come by removals, fewest first
                    // Its completions have at least cost + a removals, and are worth at most vb
                    // less its own cost and the later nodes' least costs. The options of as many
                    // removals come by landing cost, least first: the rest of its group is cut too.
                    if (vb - opt.land - neg[static_cast<std::size_t>(i) + 1] <= upto[k + static_cast<std::size_t>(opt.a)]) {
                        q = group_end[q] - 1;
                        continue;
                    }
                    std::copy(opt.free.begin(), opt.free.end(), slot_free_.begin() + static_cast<std::ptrdiff_t>(i) * R_);
                    chosen[static_cast<std::size_t>(i)] = &opt;
                    if (by_b)
                        for (int j = 0; j < T_; ++j) bmat_[static_cast<std::size_t>(j) * n_ + i] = opt.b[static_cast<std::size_t>(j)];
                    Part next = pre;
                    if (tab != nullptr) {
                        const Part& op = opt_part_[static_cast<std::size_t>(i)][q];
                        next.idx += op.idx;
                        next.extra += op.extra;
                    }
                    self(self, i + 1, cost + opt.a, land + opt.land, next);
                    if (aborted) return;
                }
            };
            if (o == 0) {
                // Give up before any combination when X empty alone has more than
                // kCombinationsPerEvaluation x `allowance` of them: on a 10,000-host Azure replay
                // (8-node hosts, 2,000 evaluations each) no host with more than 10^4 completes,
                // while on huawei-1000 (2-node hosts, 20,000 each) hosts with 10^5.5 do
                // (docs/performance.md, "Node-subset states by dynamic programming").
                double combinations = 1.0;
                for (int i = 0; i < n_; ++i) combinations *= static_cast<double>(std::max<std::size_t>(1, slot_opts_[i]->size()));
                if (combinations > static_cast<double>(kCombinationsPerEvaluation) * static_cast<double>(allowance)) return false;
            }
            combine(combine, 0, 0, x_land, Part{});
            if (aborted) {
                const double begun =
                    slot_opts_[0]->empty() ? 0.0 : static_cast<double>(first_begun_) / static_cast<double>(slot_opts_[0]->size());
                progress = (static_cast<double>(o) + begun) / static_cast<double>(outer.size());
                return false;
            }
        }
        allowance = left;
        // At most k removals: a set of k is never worth more than the best of at most k.
        slot_best_ = std::move(upto);
        slot_wit_ = std::move(wit);
        return true;
    }

    static constexpr std::int64_t kOuterSets = 1024, kWorkPerEvaluation = 8;
    /**
     * node_subset_bound() where the targets split (SplitShape). For each multiset X of the host's
     * multi-node VMs (outer_sets()) and each node i, phi_i(n, a) = the best V_one of the node's
     * free amounts less landing costs over its states (node_states()) of at most a single-node
     * removals that keep at least n copies of u there. A set of k removals is X plus one state
     * per node, and V_h = V_multi(n(F)) + sum_i V_one(F_i) (SplitShape), so
     *
     *     G(k) = max over X, n, a with |X| + sum_i a_i <= k of V_multi(n) + sum_i phi_i(n_i, a_i) - L(X).
     *
     * Two searches over the copy vectors n, depth-first over the nodes (per node only the n whose
     * row of phi is not below the next n's everywhere; cut: V_multi with the later nodes at their
     * most copies, which is monotone, plus the later nodes' best rows):
     * - exact, for k up to UpperBoundParams::split_exact_removals removals beyond X: the rows convolved (max-plus) over the
     *   nodes, an array per removal count;
     * - for every k, removals priced: H(mu) = max over X, n, a of the same less mu (|X| + sum a),
     *   one scalar per node and n, so G(k) <= H(mu) + mu k for every mu >= 0. The mu are the
     *   breakpoints of H (Eisner and Severance, from mu = 0 and a mu where no removal pays, up to
     *   integer mu; at most kSplitPrices): the concave envelope of G.
     * slot_best_[k] = the smaller where both hold (a bound on every set of at most k). One unit of
     * `allowance` per state read and search node; false when the envelope runs out (the exact part
     * then only stops early) or the X or the states pass their caps (node_subset_bound()'s).
     */
    bool split_subset_bound(int k_top, std::int64_t& allowance) {
        std::vector<int> multi;
        std::vector<std::vector<int>> outer;
        std::int64_t work = kWorkPerEvaluation * allowance;
        if (!subsets_and_states(k_top, work, multi, outer)) return false;
        const int levels = static_cast<int>(shape_->nmax(type_)) + 1;
        std::int64_t left = allowance * kSplitStepsPerEvaluation;
        // Per X: its size, landing costs, removals left K, and per node the rows of phi.
        split_x_.resize(outer.size());
        std::vector<Amount> base;
        for (std::size_t o = 0; o < outer.size(); ++o) {
            SplitX& sx = split_x_[o];
            sx.size = 0;
            sx.land = 0;
            base = free_;
            for (std::size_t m = 0; m < multi.size(); ++m) {
                const VmClass& vc = classes_[multi[m]];
                sx.size += outer[o][m];
                sx.land += vc.landing * outer[o][m];
                for (int q = 0; q < outer[o][m]; ++q) shift(base.data(), vc.flavor, vc.mask, +1);
            }
            sx.K = k_top - sx.size;
            const std::size_t W = static_cast<std::size_t>(sx.K) + 1;
            sx.phi.assign(static_cast<std::size_t>(n_) * levels * W, kSplitNo);
            sx.lv.assign(static_cast<std::size_t>(n_) * levels, -1);
            sx.top.assign(static_cast<std::size_t>(n_), 0);
            for (int i = 0; i < n_; ++i) {
                Score* ph = sx.phi.data() + static_cast<std::size_t>(i) * levels * W;
                const NodeStates& st = node_states_[static_cast<std::size_t>(i)];
                Amount x[2];
                for (std::size_t s = 0; s < st.size(); ++s) {
                    if (st.a[s] > sx.K) continue;
                    if (--left < 0) return false;
                    for (int r = 0; r < 2; ++r) x[r] = base[static_cast<std::size_t>(i) * 2 + r] + st.freed[s * 2 + r];
                    const Score v = shape_->vone(x) - st.land[s];
                    const Count n = shape_->units(type_, x);
                    for (Count c = 0; c <= n; ++c) {
                        Score& e = ph[static_cast<std::size_t>(c) * W + static_cast<std::size_t>(st.a[s])];
                        e = std::max(e, v);
                    }
                }
                for (int c = 0; c < levels; ++c)
                    for (std::size_t a = 1; a < W; ++a) ph[c * W + a] = std::max(ph[c * W + a], ph[c * W + a - 1]);
                // Useful n: a row strictly above the next kept (higher) row somewhere, most first.
                int* l = sx.lv.data() + static_cast<std::size_t>(i) * levels;
                int kept = 0;
                for (int c = levels - 1; c >= 0; --c) {
                    bool some = false, above = kept == 0;
                    for (std::size_t a = 0; a < W; ++a) {
                        const Score v = ph[c * W + a];
                        if (v > kSplitNo) some = true;
                        if (kept > 0 && v > ph[static_cast<std::size_t>(l[kept - 1]) * W + a]) above = true;
                    }
                    if (some && above) l[kept++] = c;
                }
                sx.top[static_cast<std::size_t>(i)] = kept > 0 ? l[0] : 0;  // the no-removal state is always there
            }
            sx.top_idx.assign(static_cast<std::size_t>(n_) + 1, 0);
            for (int i = n_ - 1; i >= 0; --i)
                sx.top_idx[static_cast<std::size_t>(i)] =
                    sx.top_idx[static_cast<std::size_t>(i) + 1] + sx.top[static_cast<std::size_t>(i)] * shape_->stride(type_, i);
        }
        const std::size_t KT = static_cast<std::size_t>(k_top) + 1;
        // The envelope: H at the breakpoints, each a (k, value) of its best configuration.
        std::vector<Score> env(KT, std::numeric_limits<Score>::max());
        auto add_line = [&](Score mu, Score h) {
            for (std::size_t k = 0; k < KT; ++k) env[k] = std::min(env[k], h + mu * static_cast<Score>(k));
        };
        int prices = 0;
        using Pt = Pt2;
        auto eval = [&](Score mu, Pt& out) -> bool {
            if (++prices > kSplitPrices) return true;  // enough lines: the envelope stays valid with fewer
            Score h = kSplitNo;
            out = Pt{0, kSplitNo};
            for (SplitX& sx : split_x_)
                if (!split_priced(sx, levels, mu, h, out, left)) return false;
            add_line(mu, h);
            return true;
        };
        Pt lo{}, hi{};
        if (!eval(0, lo)) return false;
        const Score v0 = value(free_.data());
        const Score mu_hi = std::max<Score>(1, lo.v - v0 + 1);  // no removal pays: every config with k >= 1 is below k = 0
        if (!eval(mu_hi, hi)) return false;
        std::vector<std::pair<Pt, Pt>> todo;
        if (lo.k > hi.k) todo.push_back({lo, hi});
        while (!todo.empty() && prices < kSplitPrices) {
            const auto [a, b] = todo.back();
            todo.pop_back();
            if (a.k <= b.k) continue;
            // Where the two lines meet: v_a - mu k_a = v_b - mu k_b.
            const Score mu = std::max<Score>(0, (a.v - b.v) / (a.k - b.k));
            Pt c{};
            const int before = prices;
            if (!eval(mu, c)) return false;
            if (prices == before || prices > kSplitPrices) break;
            if (c.k != a.k && c.k != b.k && c.v - mu * c.k > a.v - mu * a.k) {
                todo.push_back({a, c});
                todo.push_back({c, b});
            }
        }
        // The exact part, for up to split_exact_removals removals beyond X, within what the envelope left.
        std::vector<Score> exact(KT, kSplitNo);
        bool exact_ok = true;
        for (SplitX& sx : split_x_) {
            const std::size_t W = static_cast<std::size_t>(std::min(sx.K, prm_.split_exact_removals)) + 1;
            split_arr_.resize(static_cast<std::size_t>(n_) + 1);
            split_arr_[0].assign(W, kSplitNo);
            split_arr_[0][0] = 0;
            if (!split_exact(sx, levels, 0, 0, W, exact, left)) {
                exact_ok = false;
                break;
            }
        }
        int exact_top = -1;  // exact for every k <= exact_top
        if (exact_ok) {
            exact_top = k_top;
            for (const SplitX& sx : split_x_) exact_top = std::min(exact_top, sx.size + std::min(sx.K, prm_.split_exact_removals));
            for (std::size_t k = 1; k < KT; ++k) exact[k] = std::max(exact[k], exact[k - 1]);
        }
        allowance = std::max<std::int64_t>(0, left / kSplitStepsPerEvaluation);
        std::vector<Score> best(KT);
        for (std::size_t k = 0; k < KT; ++k) best[k] = static_cast<int>(k) <= exact_top ? std::min(env[k], exact[k]) : env[k];
        slot_best_ = std::move(best);
        slot_wit_.clear();
        return true;
    }

    static constexpr Score kSplitNo = std::numeric_limits<Score>::min() / 4;
    static constexpr int kSplitPrices = 48;
    /** split_subset_bound()'s states read and search nodes per value evaluation of the allowance:
     *  each is a table read and an add (a value evaluation of eight targets is dozens of divisions);
     *  with 32, 7,095 of az10k-8t's 7,129 hosts with removals beyond the exact depth complete at
     *  their 2,617 evaluations (2,250 with 8), in about the time the general search gave up in. */
    static constexpr std::int64_t kSplitStepsPerEvaluation = 32;
    struct Pt2 {
        int k = 0;    ///< removals of a configuration
        Score v = 0;  ///< its value, unpriced
    };
    struct SplitX {
        int size = 0, K = 0;
        Score land = 0;
        std::vector<Score> phi;             ///< [(node * levels + n) * (K + 1) + a]
        std::vector<int> lv;                ///< [node * levels + q]: its useful n, most first (-1 ends)
        std::vector<Count> top;             ///< [node]: its largest useful n
        std::vector<std::int64_t> top_idx;  ///< [i]: nodes i.. at their top, as a copy-vector index
    };

    /** H(mu) over one X into `h` (and its configuration's k and unpriced value into `at`), scalar
     *  depth-first search over the nodes' useful n. */
    bool split_priced(SplitX& sx, int levels, Score mu, Score& h, Pt2& at, std::int64_t& left) {
        const std::size_t W = static_cast<std::size_t>(sx.K) + 1;
        // Per node and n: the best of phi - mu a and its a; and per node the best over n (the n = 0 row's).
        psi_.resize(static_cast<std::size_t>(n_) * levels);
        psi_a_.resize(psi_.size());
        split_opt_.assign(static_cast<std::size_t>(n_) + 1, 0);
        for (int i = 0; i < n_; ++i)
            for (int q = 0; q < levels; ++q) {
                const int c = sx.lv[static_cast<std::size_t>(i) * levels + q];
                if (c < 0) break;
                const Score* row = sx.phi.data() + (static_cast<std::size_t>(i) * levels + c) * W;
                Score b = kSplitNo;
                int ba = 0;
                for (std::size_t a = 0; a < W; ++a)
                    if (row[a] > kSplitNo && row[a] - mu * static_cast<Score>(a) > b) {
                        b = row[a] - mu * static_cast<Score>(a);
                        ba = static_cast<int>(a);
                    }
                psi_[static_cast<std::size_t>(i) * levels + c] = b;
                psi_a_[static_cast<std::size_t>(i) * levels + c] = ba;
            }
        for (int i = n_ - 1; i >= 0; --i) {
            Score b = kSplitNo;
            for (int q = 0; q < levels; ++q) {
                const int c = sx.lv[static_cast<std::size_t>(i) * levels + q];
                if (c < 0) break;
                b = std::max(b, psi_[static_cast<std::size_t>(i) * levels + c]);
            }
            split_opt_[static_cast<std::size_t>(i)] = split_opt_[static_cast<std::size_t>(i) + 1] + b;
        }
        const Score fixed = -sx.land - mu * sx.size;
        return split_priced_dfs(sx, levels, 0, 0, 0, 0, fixed, mu, h, at, left);
    }

    bool split_priced_dfs(const SplitX& sx, int levels, int i, std::int64_t idx, Score acc, int acc_a, Score fixed, Score mu, Score& h,
                          Pt2& at, std::int64_t& left) {
        if (--left < 0) return false;
        if (i == n_) {
            const Score v = shape_->vmulti(type_, idx) + acc + fixed;
            if (v > h) {
                h = v;
                at.k = sx.size + acc_a;
                at.v = v + mu * at.k;
            }
            return true;
        }
        if (shape_->vmulti(type_, idx + sx.top_idx[static_cast<std::size_t>(i)]) + acc + split_opt_[static_cast<std::size_t>(i)] + fixed <=
            h)
            return true;
        for (int q = 0; q < levels; ++q) {
            const int c = sx.lv[static_cast<std::size_t>(i) * levels + q];
            if (c < 0) break;
            const std::size_t x = static_cast<std::size_t>(i) * levels + c;
            if (!split_priced_dfs(sx, levels, i + 1, idx + c * shape_->stride(type_, i), acc + psi_[x], acc_a + psi_a_[x], fixed, mu, h, at,
                                  left))
                return false;
        }
        return true;
    }

    /** The exact part over one X: node i on, split_arr_[i] the earlier nodes' convolved rows (W
     *  entries: at most W - 1 removals beyond X), `idx` their copy vector; bests into `exact`. */
    bool split_exact(const SplitX& sx, int levels, int i, std::int64_t idx, std::size_t W, std::vector<Score>& exact, std::int64_t& left) {
        if (--left < 0) return false;
        const std::vector<Score>& cur = split_arr_[static_cast<std::size_t>(i)];
        if (i == n_) {
            const Score vm = shape_->vmulti(type_, idx) - sx.land;
            for (std::size_t a = 0; a < W; ++a)
                if (cur[a] > kSplitNo) {
                    Score& b = exact[static_cast<std::size_t>(sx.size) + a];
                    b = std::max(b, cur[a] + vm);
                }
            return true;
        }
        {
            // Cut: at every count the later nodes at their best (each node's n = 0 row bounds its
            // others: phi falls with n) and V_multi at their most copies cannot beat the best found
            // with at most as many removals.
            const Score vm = shape_->vmulti(type_, idx + sx.top_idx[static_cast<std::size_t>(i)]) - sx.land;
            Score prefix = std::numeric_limits<Score>::min();
            for (std::size_t k = 0; k < static_cast<std::size_t>(sx.size); ++k) prefix = std::max(prefix, exact[k]);
            // The later nodes' best rows summed at their largest (the arrays are monotone in a).
            Score later = 0;
            const std::size_t WK = static_cast<std::size_t>(sx.K) + 1;
            for (int j = i; j < n_; ++j) later += sx.phi[static_cast<std::size_t>(j) * levels * WK + std::min(W - 1, WK - 1)];
            bool hope = false;
            for (std::size_t a = 0; a < W && !hope; ++a) {
                prefix = std::max(prefix, exact[static_cast<std::size_t>(sx.size) + a]);
                if (cur[a] > kSplitNo && cur[a] + later + vm > prefix) hope = true;
            }
            if (!hope) return true;
        }
        const std::size_t WK = static_cast<std::size_t>(sx.K) + 1;
        std::vector<Score>& next = split_arr_[static_cast<std::size_t>(i) + 1];
        for (int q = 0; q < levels; ++q) {
            const int c = sx.lv[static_cast<std::size_t>(i) * levels + q];
            if (c < 0) break;
            const Score* row = sx.phi.data() + (static_cast<std::size_t>(i) * levels + c) * WK;
            next.assign(W, kSplitNo);
            for (std::size_t a1 = 0; a1 < W; ++a1) {
                if (cur[a1] <= kSplitNo) continue;
                for (std::size_t a2 = 0; a1 + a2 < W; ++a2)
                    if (row[a2] > kSplitNo) next[a1 + a2] = std::max(next[a1 + a2], cur[a1] + row[a2]);
            }
            if (!split_exact(sx, levels, i + 1, idx + c * shape_->stride(type_, i), W, exact, left)) return false;
        }
        return true;
    }

    /** The host's classes split into multi-node (`multi`) and single-node ones (`single`), and
     *  the multisets X of multi-node VMs (counts per class of `multi`) of at most k_top VMs, the
     *  smallest first (X empty first): the best combinations of few removals are found first, so
     *  the cuts prune more of the larger X. False when there are more than `most`. */
    bool outer_sets(int k_top, std::vector<int>& multi, std::vector<int>& single, std::vector<std::vector<int>>& outer,
                    std::int64_t most = kOuterSets) const {
        for (std::size_t c = 0; c < classes_.size(); ++c)
            (std::popcount(classes_[c].mask) > 1 ? multi : single).push_back(static_cast<int>(c));
        outer.assign(1, std::vector<int>(multi.size(), 0));
        for (std::size_t m = 0; m < multi.size(); ++m) {
            const std::size_t n = outer.size();
            for (std::size_t o = 0; o < n; ++o) {
                int size = 0;
                for (int x : outer[o]) size += x;
                for (int x = 1; x <= classes_[multi[m]].count && size + x <= k_top; ++x) {
                    outer.push_back(outer[o]);
                    outer.back()[m] = x;
                    if (static_cast<std::int64_t>(outer.size()) > most) return false;
                }
            }
        }
        std::stable_sort(outer.begin(), outer.end(), [](const std::vector<int>& x, const std::vector<int>& y) {
            int sx = 0, sy = 0;
            for (int c : x) sx += c;
            for (int c : y) sy += c;
            return sx < sy;
        });
        return true;
    }

    /** What both node-subset searches start from: outer_sets() and every node's node_states()
     *  (into node_states_), within `work`. False when either passes its cap. */
    bool subsets_and_states(int k_top, std::int64_t& work, std::vector<int>& multi, std::vector<std::vector<int>>& outer) {
        if (made_.k_top == k_top) {  // made before for this host: charge the work it took
            work -= made_.work;
            if (work < 0) return false;
            multi = made_.multi;
            outer = made_.outer;
            return true;
        }
        std::vector<int> single;
        if (!outer_sets(k_top, multi, single, outer)) return false;
        const std::int64_t before = work;
        node_states_.resize(static_cast<std::size_t>(n_));
        for (int i = 0; i < n_; ++i)
            if (!node_states(i, single, k_top, work, node_states_[i])) return false;
        made_.k_top = k_top;
        made_.work = before - work;
        made_.multi = multi;
        made_.outer = outer;
        made_.none.resize(static_cast<std::size_t>(n_));
        made_.none_work.assign(static_cast<std::size_t>(n_), -1);
        return true;
    }

    /** node_options() of node i with X empty (free amounts free_, `k_top` removals), made once per
     *  host after subsets_and_states() and then read (`out`) by the per-k search, its retry and
     *  priced_search(). A read charges `work` what the making took, so every caller runs out of
     *  work exactly where it would making them itself: the tables do not depend on the reuse. */
    bool empty_x_options(int i, int k_top, std::int64_t& work, const std::vector<SlotOption>*& out) {
        std::int64_t& took = made_.none_work[static_cast<std::size_t>(i)];
        std::vector<SlotOption>& opts = made_.none[static_cast<std::size_t>(i)];
        if (took >= 0) {
            work -= took;
            if (work < 0) return false;
        } else {
            const std::int64_t before = work;
            if (!node_options(i, free_, k_top, node_states_[i], work, opts)) return false;
            took = before - work;
        }
        out = &opts;
        return true;
    }

    /** The witness of a complete combination: X (counts per class of `multi`) and each node's
     *  option (`chosen`): the VMs removed per flavor and each node's room for arriving pieces. */
    std::shared_ptr<const Witness> joint_witness(const std::vector<int>& multi, const std::vector<int>& xs,
                                                 const std::vector<const SlotOption*>& chosen) const {
        auto w = std::make_shared<Witness>();
        for (std::size_t m = 0; m < multi.size(); ++m)
            if (xs[m] > 0) w->removed.emplace_back(classes_[multi[m]].flavor, xs[m]);
        w->rooms.assign(free_.size(), 0);
        for (int i = 0; i < n_; ++i) {
            const SlotOption& opt = *chosen[static_cast<std::size_t>(i)];
            for (const auto& [c, x] : node_states_[i].take[static_cast<std::size_t>(opt.state)])
                w->removed.emplace_back(classes_[c].flavor, x);
            std::copy(opt.arrive.begin(), opt.arrive.end(), w->rooms.begin() + static_cast<std::ptrdiff_t>(i) * R_);
        }
        if (multi_ != nullptr) {
            w->arrived.assign(p_.flavors.size(), 0);
            multi_->arrivals(type_, slot_free_.data(), w->arrived);
        }
        return w;
    }

    /** What node_states() lists of one pNUMA node: state s removes a[s] single-node VMs, frees
     *  freed[s * R + r] of resource r, at landing costs land[s]. */
    struct NodeStates {
        std::vector<int> a;
        std::vector<Score> land;
        std::vector<Amount> freed;
        std::vector<std::vector<std::pair<int, int>>> take;  ///< with arrivals only: (class, VMs) removed
        void clear() {
            a.clear();
            land.clear();
            freed.clear();
            take.clear();
        }
        std::size_t size() const { return a.size(); }
    };

    /**
     * node_subset_bound()'s states of node i: dynamic programming over the single-node classes on
     * i (classes `single`), a state being (a removals, amounts freed per resource, landing cost);
     * removing a class's VMs changes only those, so states with the same removals and amounts are
     * one (the least landing cost kept), and a state is dropped when another has at most as many
     * removals, frees at least as much of every resource and costs no more to land (its every
     * extension is then beaten too, and node_b is monotone in the free amounts, whatever the base
     * they are added to). At most k_top removals. Covers every multiset of the node's single-node
     * VMs: some state has at most its removals, at least its amounts and at most its landing
     * costs. Each state made and each dominance test costs one unit of `work`; false when it runs
     * out.
     */
    bool node_states(int i, const std::vector<int>& single, int k_top, std::int64_t& work, NodeStates& out) const {
        out.clear();
        out.a.push_back(0);
        out.land.push_back(0);
        out.freed.assign(static_cast<std::size_t>(R_), 0);
        const bool takes = grid_ != nullptr;
        if (takes) out.take.emplace_back();
        NodeStates next;
        for (int c : single) {
            const VmClass& vc = classes_[c];
            if (((vc.mask >> i) & 1U) == 0) continue;
            const Amount* nd = p_.flavors[vc.flavor].node_demand.data();
            next.clear();
            for (std::size_t s = 0; s < out.size(); ++s)
                for (int x = 0; x <= vc.count && out.a[s] + x <= k_top; ++x) {
                    if (--work < 0) return false;
                    next.a.push_back(out.a[s] + x);
                    next.land.push_back(out.land[s] + vc.landing * x);
                    for (int r = 0; r < R_; ++r) next.freed.push_back(out.freed[s * R_ + r] + nd[r] * x);
                    if (takes) {
                        next.take.push_back(out.take[s]);
                        if (x > 0) next.take.back().emplace_back(c, x);
                    }
                }
            if (!prune_states(next, work, out)) return false;
        }
        return true;
    }

    /** Keeps of `in` (into `out`) the states no other state beats (node_states()), in order of
     *  removals, then landing cost, then amounts freed (lexicographically, largest first): every
     *  state that beats another then comes before it. One unit of `work` per test; false when it
     *  runs out. */
    bool prune_states(const NodeStates& in, std::int64_t& work, NodeStates& out) const {
        std::vector<std::size_t> order(in.size());
        for (std::size_t s = 0; s < order.size(); ++s) order[s] = s;
        const Amount* fr = in.freed.data();
        std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
            if (in.a[x] != in.a[y]) return in.a[x] < in.a[y];
            if (in.land[x] != in.land[y]) return in.land[x] < in.land[y];
            return std::lexicographical_compare(fr + y * R_, fr + (y + 1) * R_, fr + x * R_, fr + (x + 1) * R_);
        });
        out.clear();
        for (std::size_t s : order) {
            bool beaten = false;
            for (std::size_t q = 0; q < out.size() && !beaten; ++q) {
                if (--work < 0) return false;
                if (out.land[q] > in.land[s]) continue;
                bool ge = true;
                for (int r = 0; r < R_ && ge; ++r) ge = out.freed[q * R_ + r] >= fr[s * R_ + r];
                beaten = ge;
            }
            if (beaten) continue;
            out.a.push_back(in.a[s]);
            out.land.push_back(in.land[s]);
            out.freed.insert(out.freed.end(), fr + s * R_, fr + (s + 1) * R_);
            if (!in.take.empty()) out.take.push_back(in.take[s]);
        }
        return true;
    }

    /** node_subset_bound()'s options of node i at free amounts `base` from its states `st`
     *  (node_states()) of at most `room` removals: the node's free amounts after each, kept when
     *  no kept option of at most as many removals has at least its copy counts at no more landing
     *  cost. One unit of `work` per state and target, and per dominance test; false when it runs
     *  out. */
    bool node_options(int i, const std::vector<Amount>& base, int room, const NodeStates& st, std::int64_t& work,
                      std::vector<SlotOption>& opts) {
        const std::int64_t per_set = std::max(1, T_);
        std::vector<SlotOption>& cand = cand_;
        cand.clear();
        for (std::size_t s = 0; s < st.size(); ++s) {
            if (st.a[s] > room) continue;
            work -= per_set;
            if (work < 0) return false;
            // Made in place (the candidates' list or, with arrivals, one scratch option): a copy of
            // an option costs as much as making it.
            SlotOption& o = grid_ != nullptr ? state_opt_ : cand.emplace_back();
            o.a = st.a[s];
            o.land = st.land[s];
            o.free.assign(base.begin() + static_cast<std::ptrdiff_t>(i) * R_, base.begin() + static_cast<std::ptrdiff_t>(i + 1) * R_);
            for (int r = 0; r < R_; ++r) o.free[r] += st.freed[s * R_ + r];
            o.state = static_cast<int>(s);
            if (grid_ != nullptr) {
                if (!joint_options(i, o, work, cand)) return false;
                continue;
            }
            o.b.resize(T_);
            for (int j = 0; j < T_; ++j) o.b[j] = m_.node_b(m_.target_flavor(j), o.free.data());
        }
        // By removals, then landing cost, then copy counts (lexicographically, most first): an
        // option that beats another comes before it. (Sorted by index: the options stay put.)
        std::vector<int>& order = cand_order_;
        order.resize(cand.size());
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(), [&cand](int xi, int yi) {
            const SlotOption& x = cand[static_cast<std::size_t>(xi)];
            const SlotOption& y = cand[static_cast<std::size_t>(yi)];
            if (x.a != y.a) return x.a < y.a;
            if (x.land != y.land) return x.land < y.land;
            if (y.b != x.b) return std::lexicographical_compare(y.b.begin(), y.b.end(), x.b.begin(), x.b.end());
            return xi < yi;  // equal keys: the order made (std::sort is not stable)
        });
        opts.clear();
        for (int ci : order) {
            const SlotOption& c = cand[static_cast<std::size_t>(ci)];
            bool covered = false;
            for (const SlotOption& o : opts) {
                if (--work < 0) return false;
                bool ge = o.land <= c.land;
                for (int j = 0; j < T_ && ge; ++j) ge = o.b[j] >= c.b[j];
                if (ge) {
                    covered = true;
                    break;
                }
            }
            if (!covered) opts.push_back(c);
        }
        return true;
    }

    /**
     * With arrivals: the options of one node state `o` (o.free = the node's free amounts L after
     * its removals): for each room P kept for the targets' copies, P_r one of 0 and the multiples
     * q x d_tr (q up to node_b of t in L) that fit in L, the option (P, its copy counts, prices
     * less the best pieces in L - P). Every split of L into the copies' room and the pieces' is
     * covered: the least room holding the same copy counts (per resource the largest q x d_tr) is
     * listed, and leaves at least as much to the pieces. One unit of `work` per target and option;
     * false when it runs out.
     */
    bool joint_options(int i, const SlotOption& o, std::int64_t& work, std::vector<SlotOption>& cand) const {
        // The option keeping room (x, y) for the copies; its copy counts b are the caller's.
        auto add = [&](Amount x, Amount y) -> SlotOption* {
            work -= std::max(1, T_);
            if (work < 0) return nullptr;
            SlotOption& c = cand.emplace_back();
            c.a = o.a;
            c.state = o.state;
            c.free = {x, y};
            c.arrive = {o.free[0] - x, o.free[1] - y};
            c.land = o.land - grid_->value(c.arrive.data());
            return &c;
        };
        if (multi_ != nullptr) {
            // With whole multi-node arrivals the copies' room is read through its units' class
            // alone: each class's least units (times u) is the least room holding it. Compared by
            // class (node_options() drops an option that another beats in b and cost): the copy
            // counts alone do not give the class where each unit is its own.
            const std::span<const Count> lows = multi_->class_lows(type_, i, o.free.data());
            for (std::size_t q = 0; q < lows.size(); ++q) {
                SlotOption* c = add(lows[q] * multi_->unit(0), lows[q] * multi_->unit(1));
                if (c == nullptr) return false;
                c->b.assign(static_cast<std::size_t>(T_), static_cast<Count>(q));
            }
            return true;
        }
        std::vector<Amount> keep[2];
        for (int r = 0; r < 2; ++r) {
            keep[r].push_back(0);
            for (int j = 0; j < T_; ++j) {
                const int t = m_.target_flavor(j);
                const Amount d = p_.flavors[t].node_demand[r];
                const Count most = m_.node_b(t, o.free.data());
                for (Count q = 1; q <= most && d > 0; ++q) keep[r].push_back(q * d);
            }
            std::sort(keep[r].begin(), keep[r].end());
            keep[r].erase(std::unique(keep[r].begin(), keep[r].end()), keep[r].end());
            while (!keep[r].empty() && keep[r].back() > o.free[r]) keep[r].pop_back();
        }
        for (Amount x : keep[0])
            for (Amount y : keep[1]) {
                SlotOption* c = add(x, y);
                if (c == nullptr) return false;
                c->b.resize(T_);
                for (int j = 0; j < T_; ++j) c->b[j] = m_.node_b(m_.target_flavor(j), c->free.data());
            }
        return true;
    }

    /**
     * Allocation bound on V_h(S) over removal sets S of k VMs: node i gains at most the a_i
     * largest demands (per resource) of the VMs on it, where a_i = |S on node i| <= k and
     * sum_i a_i <= the k largest spans (vNUMA counts) of the host's VMs, so the maximum over such
     * (a_i) of V_h(free + top(a)) bounds every S (V_h is monotone). Searched node by node with
     * a cut (the later nodes all at their caps), from `floor` (a value the maximum is known to
     * reach: the bound of k - 1). False if it needs more than `allowance` evaluations.
     */
    bool allocation_bound(int k, std::int64_t& allowance, Score floor, Score& out) {
        int q = span_sum_[k];
        alloc_cap_.assign(n_, 0);
        int cap_sum = 0;
        for (int i = 0; i < n_; ++i) {
            alloc_cap_[i] = std::min(k, on_node_[i]);  // more removals than VMs on a node add nothing there
            cap_sum += alloc_cap_[i];
        }
        q = std::min(q, cap_sum);
        bound_.assign(free_.begin(), free_.end());
        alloc_best_ = floor;
        alloc_left_ = &allowance;
        alloc_aborted_ = false;
        allocate(0, q);
        out = alloc_best_;
        return !alloc_aborted_;
    }

    /** Nodes i.. share `left` removals; bound_ holds the earlier nodes' allocation. */
    void allocate(int i, int left) {
        if (alloc_aborted_) return;
        if (--*alloc_left_ < 0) {
            alloc_aborted_ = true;
            return;
        }
        if (i == n_ || left == 0) {
            alloc_best_ = std::max(alloc_best_, value(bound_.data()));
            return;
        }
        // Cut: every later node at its cap (more than `left` in total) is no worse than any split.
        for (int j = i; j < n_; ++j)
            for (int r = 0; r < R_; ++r) {
                const std::size_t x = static_cast<std::size_t>(j) * R_ + r;
                bound_[x] = free_[x] + suf_top_[0][x][std::min(alloc_cap_[j], left)];
            }
        const Score ub = value(bound_.data());
        if (ub <= alloc_best_) return;
        int rest = 0;  // most the later nodes can take
        for (int j = i + 1; j < n_; ++j) rest += alloc_cap_[j];
        for (int a = std::min(alloc_cap_[i], left); a >= std::max(0, left - rest) && !alloc_aborted_; --a) {
            for (int j = i; j < n_; ++j)
                for (int r = 0; r < R_; ++r) {
                    const std::size_t x = static_cast<std::size_t>(j) * R_ + r;
                    bound_[x] = free_[x] + (j == i ? suf_top_[0][x][a] : 0);
                }
            allocate(i + 1, left - a);
        }
    }

    void branch(int c, int s, Amount ram, Score land) {
        if (bb_aborted_) return;
        if (s == bb_k_) {
            if (--*bb_left_ < 0) {
                bb_aborted_ = true;
                return;
            }
            bb_best_ = std::max(bb_best_, std::min(g_all_, value(free_.data())) - wm_ * ram - land);
            return;
        }
        const int q = bb_k_ - s;
        if (c == static_cast<int>(classes_.size()) || suf_count_[c] < q) return;
        if (--*bb_left_ < 0) {
            bb_aborted_ = true;
            return;
        }
        bound_.resize(free_.size());
        for (std::size_t x = 0; x < free_.size(); ++x) bound_[x] = free_[x] + suf_top_[c][x][q];
        const Score ub = std::min(g_all_, value(bound_.data())) - wm_ * (ram + suf_ram_[c][q]) - (land + suf_land_[c][q]);
        if (ub <= bb_best_) return;
        const VmClass& vc = classes_[c];
        const int most = std::min(vc.count, q);
        for (int t = 0; t < most; ++t) shift(free_.data(), vc.flavor, vc.mask, +1);
        // The loop runs to the end even after an abort (branch then returns at once), so that
        // free_ is the host's own again.
        for (int t = most; t >= 0; --t) {
            branch(c + 1, s + t, ram + vc.ram * t, land + vc.landing * t);
            if (t > 0) shift(free_.data(), vc.flavor, vc.mask, -1);
        }
    }

    NodeMask vm_mask(int v) const { return node_mask(p_.vms[v].pnuma.data(), p_.flavors[p_.vms[v].flavor].num_vnuma()); }

    void shift(Amount* f, int flavor, NodeMask mask, Amount sign) const {
        const Amount* nd = p_.flavors[flavor].node_demand.data();
        for (int i = 0; i < n_; ++i)
            if ((mask >> i) & 1U)
                for (int r = 0; r < R_; ++r) f[i * R_ + r] += sign * nd[r];
    }

    /** VMCAP of (host type, flavor) at b, or an upper bound when the exact fallback refuses. */
    Count vmcap_ub(int flavor, const Count* b) const {
        const VmcapEvaluator& ev = m_.evaluator(type_, flavor);
        if (ev.is_closed_form()) return ev(b);
        try {
            return ev(b);
        } catch (const InputError&) {
        } catch (const TimeLimitReached&) {
            // The model's deadline, not a property of the input: this bound depends on timing.
            if (watch_ != nullptr) watch_->model_timeout.store(true, std::memory_order_relaxed);
        }
        // Each copy uses guest_nodes() distinct nodes, one unit of b at each.
        Count s = 0;
        for (int i = 0; i < n_; ++i) s += b[i];
        return ev.guest_nodes() > 0 ? s / ev.guest_nodes() : s;
    }

    /** Upper bound on the host's weighted VMCAP with free amounts `f` (exact without free remaps;
     *  with them, the pooled relaxation of any re-placement of the VMs that stay). */
    Score value(const Amount* f) {
        tick();
        // Closed forms only: the target-parallel kernel where it is the faster of the two on this
        // host type (kernel_by_type()), the same integer (weighted_vmcap.h).
        if (kernel_[type_] != kPerTarget) return m_.vmcap_host_value(type_, f);
        Score s = 0;
        Count b[kMaxPNuma];
        for (int j = 0; j < T_; ++j) {
            const int fl = m_.target_flavor(j);
            Count c = 0;
            if (!remaps_) {
                m_.capacity_vector(fl, n_, f, b);
                c = vmcap_ub(fl, b);
            } else {
                // Every copy takes demand_r of resource r from the host's total free amount.
                c = fixed_cap_[j];
                const std::vector<Amount>& d = p_.flavors[fl].demand;
                for (int r = 0; r < R_; ++r) {
                    if (d[r] <= 0) continue;
                    Amount tot = 0;
                    for (int i = 0; i < n_; ++i) tot += f[i * R_ + r];
                    c = std::min<Count>(c, tot / d[r]);
                }
            }
            s += m_.target_weight_units(j) * c;
        }
        return s;
    }

    /** value() target by target (no free remaps) from the copy counts `b[j * n + i]` =
     *  node_b(target j, node i's free amounts): the same integer as either of value()'s paths,
     *  without the divisions. Counted as one value evaluation. */
    Score value_of_b(const Count* b) {
        tick();
        Score s = 0;
        for (int j = 0; j < T_; ++j)
            s += m_.target_weight_units(j) * vmcap_ub(m_.target_flavor(j), b + static_cast<std::ptrdiff_t>(j) * n_);
        return s;
    }

    /** One value evaluation: counted, and the watch checked every 64 (throws BoundHalted). */
    void tick() {
        if (checking_ && watch_ != nullptr && (evaluations_ & 63) == 0 && watch_->check()) throw BoundHalted{};
        ++evaluations_;
    }

    /** In joint tables: the best value of the targets' copies and whole multi-node arrivals at
     *  free amounts `f` (MultiNodeArrivals::value) when set_arrivals() gave them, else value(f). */
    Score tvalue(const Amount* f) {
        if (multi_ == nullptr) return value(f);
        tick();
        return multi_->value(type_, f);
    }

    void enumerate(int first, int k, Amount ram, Score landing) {
        if (k > 0) raw_[k].push_back(Point{ram, std::min(g_all_, value(free_.data())) - wm_ * ram - landing});
        if (k == depth_) return;
        for (int c = first; c < static_cast<int>(classes_.size()); ++c) {
            VmClass& vc = classes_[c];
            if (used_[c] == vc.count) continue;
            shift(free_.data(), vc.flavor, vc.mask, +1);
            ++used_[c];
            enumerate(c, k + 1, ram + vc.ram, landing + vc.landing);
            --used_[c];
            shift(free_.data(), vc.flavor, vc.mask, -1);
        }
    }

    /** The option of largest value (smallest RAM among equals): all the knapsack reads of a front
     *  when the RAM multiplier search does not run (option_gain at multiplier 0). O(|pts|). */
    static std::vector<Point> best_point(const std::vector<Point>& pts) {
        Point best = pts.front();
        for (const Point& q : pts)
            if (q.value > best.value || (q.value == best.value && q.ram < best.ram)) best = q;
        return {best};
    }

    /** Options of one k: keep those no other beats in both RAM (lower) and value (higher). */
    static std::vector<Point> pareto(std::vector<Point>& pts) {
        std::sort(pts.begin(), pts.end(),
                  [](const Point& a, const Point& b) { return a.ram != b.ram ? a.ram < b.ram : a.value > b.value; });
        std::vector<Point> out;
        for (const Point& q : pts)
            if (out.empty() || q.value > out.back().value) out.push_back(q);
        return out;
    }

    HaltWatch* watch_;
    const std::vector<char>& kernel_;  ///< [host type] kPerTarget, kKernel or kKernelOrCopyCounts (kernel_by_type())
    bool fronts_;
    bool checking_ = false;
    const CapacityModel& m_;
    const Problem& p_;
    const UpperBoundParams& prm_;
    bool remaps_;
    Score wm_;
    const std::vector<Score>& land_;
    std::int64_t search_share_, allocation_share_;  // per-host shares of the total allowances
    int R_, T_;
    int type_ = 0, n_ = 0, depth_ = 0;
    std::int64_t evaluations_ = 0;
    std::vector<Amount> free_;
    std::vector<Count> fixed_cap_;
    std::vector<VmClass> classes_;
    std::vector<int> used_;
    std::vector<std::vector<Point>> raw_;
    // Branch and bound beyond the exact depth (best_of_size).
    Score g_all_ = 0;
    std::vector<std::vector<std::vector<Amount>>> suf_top_;  // [class][node * R + r][q]
    std::vector<std::vector<Amount>> suf_ram_;               // [class][q]
    std::vector<std::vector<Score>> suf_land_;               // [class][q]
    std::vector<int> suf_count_;                             // [class]: VMs in classes >= it
    std::vector<Amount> bound_;
    std::vector<int> alloc_cap_;
    std::vector<int> span_sum_;  // [q]: the q largest spans (vNUMA counts) of the host's VMs, summed
    std::vector<int> on_node_;   // [node]: the host's migratable VMs with a vNUMA node there
    Score alloc_best_ = 0;
    std::vector<const std::vector<SlotOption>*> slot_opts_;  // node_subset_bound(): [node] its options (X empty's or X's own)
    std::vector<SlotOption> cand_;                           // node_options(): candidates (scratch, reused)
    std::vector<std::vector<std::uint32_t>> group_end_;      // node_subset_bound(): [node][option] the end of its removals' group
    std::vector<Count> bmat_, top_b_;  // node_subset_bound(), per-target values: [target * n + node] copy counts chosen / at slot_top_
    std::vector<MultiNodeArrivals::NodePart> top_part_;               // node_subset_bound(): [i] nodes i.. at slot_top_, summed
    std::vector<std::vector<MultiNodeArrivals::NodePart>> opt_part_;  // node_subset_bound(): [node][option] its part
    std::vector<int> cand_order_;                                     // node_options(): their order
    SlotOption state_opt_;                                            // node_options(): a node state before its joint options
    std::vector<NodeStates> node_states_;                             // node_subset_bound(): [node] node_states()
    /** What subsets_and_states() made for the host's classes at k_top (-1: nothing yet; reset by
     *  make_classes()), with the work it took, and the options of X empty per node
     *  (empty_x_options(); none_work[i] < 0: not made yet). */
    struct Made {
        int k_top = -1;
        std::int64_t work = 0;
        std::vector<int> multi;
        std::vector<std::vector<int>> outer;
        std::vector<std::vector<SlotOption>> none;
        std::vector<std::int64_t> none_work;
    } made_;
    std::size_t first_begun_ = 0;                           // node_subset_bound(): the index of node 0's option being searched
    static constexpr double kSubsetRetryProgress = 0.125;   // node_subset_retry: the share searched before a second try
    std::vector<Score> slot_best_;                          // [k]: its bound on V_h over k-sets
    std::vector<std::shared_ptr<const Witness>> slot_wit_;  // [k]: with arrivals, slot_best_[k]'s witness
    const ArrivalGrid* grid_ = nullptr;                     // set_arrivals(): joint tables of removals and arrivals
    const MultiNodeArrivals* multi_ = nullptr;              // set_arrivals(): whole multi-node arrivals, or null
    const SplitShape* shape_ = nullptr;                     // set_shape(): the targets' split, or null
    std::vector<SplitX> split_x_;                           // split_subset_bound(): per X
    std::vector<std::vector<Score>> split_arr_;             // split_exact(): [node] the convolved rows so far
    std::vector<Score> psi_, split_opt_;                    // split_priced(): [node * levels + n], [node] suffix bests
    std::vector<int> psi_a_;                                // split_priced(): [node * levels + n] its removals
    bool per_k_ = true;                                     // set_per_k()
    // priced_search(): leaves and cuts per unit of allowance. A leaf is one table read and an
    // add, far cheaper than a value evaluation; at 64 the hosts of random 4-host CQ3 clusters with
    // up to 4 units per node (5^8 unit vectors per mu) ran out, at 512 they complete (measured:
    // docs/performance.md, "Whole multi-node arrivals"), the bundled example's cost unchanged.
    static constexpr std::int64_t kPricedLeavesPerEvaluation = 512;
    static constexpr int kMaxPricedMu = 64;     // priced_search(): the most prices on removals per host
    static constexpr int kMaxPricedUnits = 15;  // priced_search(): the most units b per node it takes
    std::vector<Amount> slot_free_, slot_top_, slot_bound_;
    std::int64_t* alloc_left_ = nullptr;
    bool alloc_aborted_ = false;
    std::vector<int> greedy_pick_;     ///< best_of_size()'s greedy incumbent: class removed at each step
    std::vector<Score> greedy_value_;  ///< its score after each step
    std::vector<int> greedy_cost_;     ///< evaluations each step took
    int bb_k_ = 0;
    std::int64_t* bb_left_ = nullptr;
    bool bb_aborted_ = false;
    Score bb_best_ = 0;
};

/**
 * Landing costs: for every flavor g, a lower bound on the weighted VMCAP that one VM of g takes
 * from whichever host it lands on, in that host's state whatever else moves:
 *
 *     landing[g] = min over host types H where g fits, placements P of g on H, of
 *                  sum_t w_t x m_t(H, g, P),   m_t = VMCAP_t on H with g's per-node demand free on P's nodes only
 *
 * m_t counts the copies of target t that fit inside the VM's own footprint. If A lands on a host
 * whose free amounts are F, an optimal packing of t in F - d(A) plus the m_t copies carved out of
 * each arrival's footprint is a packing of t in F (floor(a/d) + floor(c/d) <= floor((a+c)/d) per
 * node and resource), so VMCAP_t(F - d(A)) <= VMCAP_t(F) - sum_{a in A} m_t(a). Summed over the
 * moved VMs, the plan's value is at most sum_h V_h(removals) - sum_{moved v} landing[g_v]: a
 * removal table can subtract its VMs' landing costs. 0 for flavors that contain no target copy
 * (small VMs), and 0 everywhere with free remaps (the pooled relaxation does not see placements).
 * An exact-fallback evaluation that refuses counts 0 (a valid lower bound). O(types x flavors x
 * placements x targets) evaluations on footprints (tiny b vectors).
 */
std::vector<Score> landing_costs(const CapacityModel& model) {
    const Problem& p = model.problem();
    const int R = model.num_resources();
    std::vector<Score> out(p.flavors.size(), 0);
    for (std::size_t g = 0; g < p.flavors.size(); ++g) {
        const Flavor& fl = p.flavors[g];
        Score best = std::numeric_limits<Score>::max();
        for (std::size_t ht = 0; ht < p.host_types.size(); ++ht) {
            const HostType& type = p.host_types[ht];
            // Only placements whose nodes can hold g: a host type where g fits nowhere drops out.
            for (const Embedding& e : model.evaluator(static_cast<int>(ht), static_cast<int>(g)).placements()) {
                bool ok = true;
                for (int i = 0; i < fl.num_vnuma() && ok; ++i)
                    for (int r = 0; r < R; ++r) ok = ok && fl.node_demand[r] <= type.node_capacity[e.map[i] * R + r];
                if (!ok) continue;
                Score cost = 0;
                for (int j = 0; j < model.num_targets(); ++j) {
                    const int t = model.target_flavor(j);
                    Count b[kMaxPNuma] = {};
                    const Count piece = model.node_b(t, fl.node_demand.data());
                    if (piece == 0) continue;
                    for (int i = 0; i < fl.num_vnuma(); ++i) b[e.map[i]] = piece;
                    Count copies = 0;
                    try {
                        copies = model.evaluator(static_cast<int>(ht), t)(b);
                    } catch (const InputError&) {
                    } catch (const TimeLimitReached&) {
                    }
                    cost += model.target_weight_units(j) * copies;
                }
                best = std::min(best, cost);
            }
        }
        out[g] = best == std::numeric_limits<Score>::max() ? 0 : best;
    }
    return out;
}

/**
 * The topology-free value of host h with every migratable VM removed: sum_t w_t x floor(sum_i b_i /
 * guest nodes of t), b from the free amounts left by the non-migratable VMs. No VMCAP value of any
 * state of the host exceeds it (each copy of t takes one unit of b at guest-nodes distinct nodes;
 * b is monotone in the free amounts, which only shrink from there), with or without free remaps.
 * O(targets x nodes x resources + VMs of h); no VMCAP evaluation.
 */
Score topology_free_all_removed(const CapacityModel& m, int h, const std::vector<int>& movable, const std::vector<Amount>& usage) {
    const Problem& p = m.problem();
    const HostType& ht = p.host_type_of(h);
    const int R = m.num_resources(), n = ht.num_nodes();
    std::vector<Amount> all(ht.node_capacity.size());
    for (std::size_t x = 0; x < all.size(); ++x) all[x] = ht.node_capacity[x] - usage[x];
    for (int v : movable) {
        const Flavor& fl = p.flavors[p.vms[v].flavor];
        for (int i = 0; i < fl.num_vnuma(); ++i)
            for (int r = 0; r < R; ++r) all[static_cast<std::size_t>(p.vms[v].pnuma[i]) * R + r] += fl.node_demand[r];
    }
    Score s = 0;
    for (int j = 0; j < m.num_targets(); ++j) {
        const int t = m.target_flavor(j);
        Count sum = 0;
        for (int i = 0; i < n; ++i) sum += m.node_b(t, all.data() + static_cast<std::size_t>(i) * R);
        const int g = p.flavors[t].num_vnuma();
        s += m.target_weight_units(j) * (g > 0 ? sum / g : sum);
    }
    return s;
}

/** gain_h(k) of knapsack() for k = 1..min(front.size() - 1, budget): the best option of k removals
 *  at RAM price num, less the host's k = 0 value, all x 2^kShift. */
Wide option_gain(const HostTable& t, std::size_t k, Wide num) {
    const Wide base = static_cast<Wide>(t.front[0][0].value) << kShift;
    Wide g = std::numeric_limits<Wide>::min();
    for (const Point& q : t.front[k]) g = std::max(g, (static_cast<Wide>(q.value) << kShift) - num * q.ram - base);
    return g;
}

/**
 * The LP relaxation of knapsack() (fractional choices), an upper bound on it: per host the upper
 * concave hull of (k, gain_h(k)) from (0, 0), its increments taken in decreasing order of gain per
 * removal while the budget lasts, the last one in part (rounded up). O(options x log options).
 */
Wide knapsack_lp(const std::vector<HostTable>& tables, std::int64_t budget, Wide num) {
    struct Inc {
        std::int64_t dk;
        Wide dg;
    };
    std::vector<Inc> incs;
    std::vector<std::pair<std::int64_t, Wide>> hull;
    for (const HostTable& t : tables) {
        hull.assign(1, {0, 0});
        for (std::size_t k = 1; k < t.front.size() && static_cast<std::int64_t>(k) <= budget; ++k) {
            const Wide g = option_gain(t, k, num);
            const std::int64_t kk = static_cast<std::int64_t>(k);
            // Pop points on or below the segment from the one before to (k, g).
            while (hull.size() >= 2) {
                const auto& [k1, g1] = hull[hull.size() - 2];
                const auto& [k2, g2] = hull.back();
                if ((g2 - g1) * (kk - k2) <= (g - g2) * (k2 - k1))
                    hull.pop_back();
                else
                    break;
            }
            if (hull.size() == 1 && g <= 0) continue;  // never better than taking nothing
            hull.emplace_back(kk, g);
        }
        for (std::size_t i = 1; i < hull.size(); ++i) {
            const Wide dg = hull[i].second - hull[i - 1].second;
            if (dg <= 0) break;  // slopes only fall from here
            incs.push_back(Inc{hull[i].first - hull[i - 1].first, dg});
        }
    }
    std::sort(incs.begin(), incs.end(), [](const Inc& a, const Inc& b) { return a.dg * b.dk > b.dg * a.dk; });
    Wide total = 0;
    std::int64_t left = budget;
    for (const Inc& in : incs) {
        if (left <= 0) break;
        if (in.dk <= left) {
            total += in.dg;
            left -= in.dk;
        } else {
            total += (in.dg * left + in.dk - 1) / in.dk;
            left = 0;
        }
    }
    return total;
}

/**
 * max over (k_h), sum k_h <= budget, of sum_h gain_h(k_h), where gain_h(k) = best over front[k] of
 * (value x 2^kShift - num x ram) minus host h's k = 0 value x 2^kShift (num = 0: the plain
 * count knapsack, in exact units scaled by 2^kShift). Group knapsack by DP over the budget:
 * O(hosts x options x budget).
 */
Wide knapsack(const std::vector<HostTable>& tables, std::int64_t budget, Wide num, HaltWatch& watch, bool& relaxed) {
    std::vector<Wide> dp(static_cast<std::size_t>(budget) + 1, 0);
    std::vector<std::pair<int, Wide>> opts;
    std::size_t done = 0;
    for (const HostTable& t : tables) {
        // Cut short: the LP relaxation, which is at least the exact maximum.
        if ((done++ & 63) == 0 && watch.check()) {
            relaxed = true;
            return knapsack_lp(tables, budget, num);
        }
        opts.clear();
        Wide best = 0;
        for (std::size_t k = 1; k < t.front.size() && static_cast<std::int64_t>(k) <= budget; ++k) {
            const Wide g = option_gain(t, k, num);
            if (g > best) {  // a larger k that gains no more is never needed
                best = g;
                opts.emplace_back(static_cast<int>(k), g);
            }
        }
        if (opts.empty()) continue;
        for (std::int64_t b = budget; b >= 1; --b) {
            Wide v = dp[b];
            for (const auto& [k, g] : opts) {
                if (k > b) break;
                v = std::max(v, dp[b - k] + g);
            }
            dp[b] = v;
        }
    }
    return dp[budget];
}

/** sum_j w_j VMCAP_j of a host of `type` at free amounts `f`, target by target (closed forms). */
Score per_target_value(const CapacityModel& m, int type, int n, const Amount* f) {
    Score s = 0;
    Count b[kMaxPNuma];
    for (int j = 0; j < m.num_targets(); ++j) {
        const int fl = m.target_flavor(j);
        m.capacity_vector(fl, n, f, b);
        s += m.target_weight_units(j) * m.evaluator(type, fl)(b);
    }
    return s;
}

/**
 * Per host type: evaluate its host values by the target-parallel kernel (WeightedVmcap) rather than
 * target by target? Both give the same integer (weighted_vmcap.h), so only the bound's speed
 * depends on this, never its value; which is faster depends on the type and the targets (the
 * kernel's per-node tables and batched closed forms: 1.3x faster on a 1,000-host Huawei replay
 * with 2 targets, 1.4x slower on the bundled example with the same 2, 4.7x slower on a generated
 * 2xK4 cluster; docs/performance.md, "Bound speed"). So each type with closed forms only is timed
 * both ways on the free amounts of up to 16 of its hosts, before and after removing all their
 * migratable VMs (three alternating rounds of at least 0.3 ms each, the fastest round of each
 * kept), and the closed forms alone on those samples' copy counts (below): about 3 ms per type
 * (UpperBoundParams::value_path Auto; Kernel and PerTarget force one way). Never with free remaps (their pooled relaxation is not VMCAP).
 *
 * Returns per type kPerTarget, kKernel, or kKernelOrCopyCounts: the kernel where free amounts are
 * evaluated, but the node-subset search, whose options carry their copy counts, evaluates the
 * closed forms from those (HostBounder::value_of_b), which Auto timed faster than the kernel on
 * the same samples (on huawei-1000 the removal-only bound 2.16 -> 1.59 s; on az-test-1100 the
 * kernel stays: 0.33 s against 0.53 s; docs/performance.md, "Price vectors of the arrivals'
 * Lagrangian"). A per-target type always takes them from the copy counts (the same closed forms
 * without the divisions).
 */
std::vector<char> kernel_by_type(const CapacityModel& m, const std::vector<std::vector<int>>& movable,
                                 const std::vector<std::vector<Amount>>& usage, bool free_remaps, UpperBoundParams::ValuePath path) {
    const Problem& p = m.problem();
    std::vector<char> kernel(p.host_types.size(), 0);
    if (free_remaps || path == UpperBoundParams::ValuePath::PerTarget) return kernel;
    const int R = m.num_resources();
    for (std::size_t type = 0; type < p.host_types.size(); ++type) {
        const HostType& ht = p.host_types[type];
        if (!m.weighted_vmcap(static_cast<int>(type)).closed_forms_only()) continue;
        if (path == UpperBoundParams::ValuePath::Kernel) {
            kernel[type] = kKernel;
            continue;
        }
        const int n = ht.num_nodes();
        const std::size_t X = ht.node_capacity.size();
        std::vector<std::vector<Amount>> samples;
        for (std::size_t h = 0; h < p.hosts.size() && samples.size() < 32; ++h) {
            if (p.hosts[h].type != static_cast<int>(type) || movable[h].empty()) continue;
            std::vector<Amount> f(X);
            for (std::size_t x = 0; x < X; ++x) f[x] = ht.node_capacity[x] - usage[h][x];
            samples.push_back(f);
            for (int v : movable[h]) {
                const Vm& vm = p.vms[v];
                const Flavor& fl = p.flavors[vm.flavor];
                for (int g = 0; g < fl.num_vnuma(); ++g)
                    for (int r = 0; r < R; ++r) f[static_cast<std::size_t>(vm.pnuma[g]) * R + r] += fl.node_demand[r];
            }
            samples.push_back(std::move(f));
        }
        if (samples.empty()) continue;
        // Seconds per evaluation of eval(s) (s: a sample's index) over all samples, >= 0.3 ms.
        auto seconds_per_eval = [&](auto&& eval) {
            using clock = std::chrono::steady_clock;
            const auto t0 = clock::now();
            std::int64_t evals = 0;
            Score sink = 0;
            double dt = 0.0;
            do {
                for (std::size_t q = 0; q < samples.size(); ++q) sink += eval(q);
                evals += static_cast<std::int64_t>(samples.size());
                dt = std::chrono::duration<double>(clock::now() - t0).count();
            } while (dt < 3e-4);
            volatile Score keep = sink;  // the evaluations must not be optimised away
            (void)keep;
            return dt / static_cast<double>(evals);
        };
        // The same samples' copy counts, [j * n + i], for the closed forms alone.
        const int T = m.num_targets();
        std::vector<std::vector<Count>> counts;
        for (const auto& f : samples) {
            std::vector<Count> b(static_cast<std::size_t>(T) * n);
            for (int j = 0; j < T; ++j) m.capacity_vector(m.target_flavor(j), n, f.data(), b.data() + static_cast<std::ptrdiff_t>(j) * n);
            counts.push_back(std::move(b));
        }
        const int ty = static_cast<int>(type);
        auto per_eval = [&](bool by_kernel) {
            return seconds_per_eval([&](std::size_t q) {
                return by_kernel ? m.vmcap_host_value(ty, samples[q].data()) : per_target_value(m, ty, n, samples[q].data());
            });
        };
        auto per_eval_counts = [&] {
            return seconds_per_eval([&](std::size_t q) {
                Score v = 0;
                for (int j = 0; j < T; ++j)
                    v += m.target_weight_units(j) *
                         m.evaluator(ty, m.target_flavor(j))(counts[q].data() + static_cast<std::ptrdiff_t>(j) * n);
                return v;
            });
        };
        double by_kernel = std::numeric_limits<double>::max(), by_target = by_kernel, by_counts = by_kernel;
        for (int round = 0; round < 3; ++round) {
            by_kernel = std::min(by_kernel, per_eval(true));
            by_target = std::min(by_target, per_eval(false));
            by_counts = std::min(by_counts, per_eval_counts());
        }
        kernel[type] = by_kernel < by_target ? (by_counts < by_kernel ? kKernelOrCopyCounts : kKernel) : kPerTarget;
    }
    return kernel;
}

/** What the workers of compute_upper_bound make every host's table from; read-only while they run. */
struct TableInputs {
    const CapacityModel& model;
    const UpperBoundParams& params;
    bool free_remaps;
    Score ram_milli;                ///< migrated-RAM cost, score units per MiB
    std::vector<Score> landing;     ///< [flavor] landing cost (landing_costs(); 0 when off)
    std::int64_t search_share;      ///< per-host share of max_search_total
    std::int64_t allocation_share;  ///< per-host share of max_allocation_total
    const std::vector<std::vector<int>>& movable;
    const std::vector<std::vector<Amount>>& usage;
    int kcap;                           ///< the effective budget: no table goes beyond it
    bool fronts;                        ///< the RAM multiplier search will run: keep whole Pareto fronts (HostBounder)
    std::vector<char> kernel;           ///< [host type] evaluate by the target-parallel kernel (kernel_by_type())
    const SplitShape* shape = nullptr;  ///< the targets' split (HostBounder::set_shape), or null
};

/** Until the deadline or the stop (the watch): the full table of every host, hosts dealt to the
 *  workers round-robin (each table depends on its host only, so the tables do not depend on the
 *  thread count). done[h] = 1 for each table made; a host cut short (BoundHalted) and every host
 *  not reached keep no table yet. */
void full_tables(tbb::task_arena& arena, int workers, const TableInputs& in, HaltWatch& watch, std::vector<HostTable>& tables,
                 std::vector<char>& done) {
    const int H = static_cast<int>(tables.size());
    run_workers(arena, workers, [&](int w) {
        HostBounder hb(in.model, in.params, in.free_remaps, in.ram_milli, in.landing, in.search_share, in.allocation_share, in.fronts,
                       in.kernel, &watch);
        hb.set_shape(in.shape);
        for (int h = w; h < H; h += workers) {
            if (!watch.take_table()) break;
            try {
                tables[h] = hb.run(h, in.movable[h], in.usage[h], in.kcap);
                done[h] = 1;
                watch.table_made();
            } catch (const BoundHalted&) {
                break;
            }
        }
    });
}

/** After full_tables() was cut short: the hosts left (done[h] == 0) get the cheap table (two value
 *  evaluations each) for at most fallback_seconds, then the topology-free value (no evaluation).
 *  Both dominate the full table, so the bound stays valid. */
void fallback_tables(tbb::task_arena& arena, int workers, const TableInputs& in, HaltWatch& watch, std::vector<HostTable>& tables,
                     const std::vector<char>& done) {
    const int H = static_cast<int>(tables.size());
    const auto fallback_end = deadline_after(std::chrono::steady_clock::now(), std::max(0.0, in.params.fallback_seconds));
    std::atomic<bool> late{false};
    run_workers(arena, workers, [&](int w) {
        HostBounder hb(in.model, in.params, in.free_remaps, in.ram_milli, in.landing, in.search_share, in.allocation_share, in.fronts,
                       in.kernel, &watch);
        hb.set_shape(in.shape);
        for (int h = w; h < H; h += workers) {
            if (done[h]) continue;
            if (!late.load(std::memory_order_relaxed) && std::chrono::steady_clock::now() >= fallback_end) late.store(true);
            if (!late.load(std::memory_order_relaxed)) {
                tables[h] = hb.cheap(h, in.movable[h], in.usage[h], in.kcap);
            } else {
                tables[h] = HostTable{};
                tables[h].kind = TableKind::Trivial;
                tables[h].front.push_back({Point{0, topology_free_all_removed(in.model, h, in.movable[h], in.usage[h])}});
            }
        }
    });
}

/** The migrated-RAM cost of `model`'s terms, score units per MiB (0 without a ram-cost term). */
Score migrated_ram_milli(const CapacityModel& model) {
    Score ram_milli = 0;
    for (const auto& term : model.terms())
        if (term->shape() == TermShape::MigratedRamCost) ram_milli += weight_milli(term->weight());
    return ram_milli;
}

/** Each host's migratable VMs (into `movable`, one list per host); returns their RAM, MiB. */
Amount migratable_vms(const Problem& p, std::vector<std::vector<int>>& movable) {
    movable.assign(p.hosts.size(), {});
    Amount all_ram = 0;
    for (std::size_t v = 0; v < p.vms.size(); ++v)
        if (p.vms[v].migratable) {
            movable[p.vms[v].host].push_back(static_cast<int>(v));
            all_ram += p.flavors[p.vms[v].flavor].demand[kRamMib];
        }
    return all_ram;
}

/** A host's share of a total allowance (`total` over the hosts with migratable VMs), so that
 *  large clusters stay within a few seconds. */
std::int64_t per_host_share(std::int64_t total, const std::vector<std::vector<int>>& movable) {
    std::int64_t with_movable = 0;
    for (const auto& mv : movable) with_movable += mv.empty() ? 0 : 1;
    return total / std::max<std::int64_t>(1, with_movable);
}

/** Every host's table, full until the watch says stop, then cheap or trivial (see full_tables()
 *  and fallback_tables()). Sets out.priced_flavors. */
std::vector<HostTable> host_tables(const CapacityModel& model, const UpperBoundParams& params, UpperBound& out, Score ram_milli,
                                   const std::vector<std::vector<int>>& movable, const std::vector<std::vector<Amount>>& usage, bool fronts,
                                   HaltWatch& watch) {
    const Problem& p = model.problem();
    const int H = static_cast<int>(p.hosts.size());
    // Per-host tables, hosts dealt to workers round-robin; each table depends on its host only.
    // A host never removes more than the effective budget, so its table stops there.
    std::vector<HostTable> tables(H);
    const int kcap = static_cast<int>(std::min<std::int64_t>(out.effective_budget, std::numeric_limits<int>::max()));
    const int workers = std::min(params.threads, std::max(1, H));
    tbb::task_arena arena(workers);
    std::vector<Score> landing(p.flavors.size(), 0);
    if (params.landing_costs && !out.free_remaps) landing = landing_costs(model);
    for (std::size_t g = 0; g < landing.size(); ++g) out.priced_flavors += landing[g] > 0 ? 1 : 0;
    // Per-host shares of the total allowances, so that large clusters stay within a few seconds.
    const std::int64_t search_share = per_host_share(params.max_search_total, movable);
    const std::int64_t allocation_share = per_host_share(params.max_allocation_total, movable);
    TableInputs in{model,
                   params,
                   out.free_remaps,
                   ram_milli,
                   std::move(landing),
                   search_share,
                   allocation_share,
                   movable,
                   usage,
                   kcap,
                   fronts,
                   kernel_by_type(model, movable, usage, out.free_remaps, params.value_path)};
    const SplitShape shape(model);
    if (shape.ok() && !out.free_remaps && params.split_nodes) in.shape = &shape;
    std::vector<char> done(H, 0);
    full_tables(arena, workers, in, watch, tables, done);
    if (watch.halted.load()) fallback_tables(arena, workers, in, watch, tables, done);
    return tables;
}

/** Sums the tables up: `base` = the hosts' k = 0 values, `useful` = the removals beyond which no
 *  host gains more; fills out's evaluation, table-kind and depth counts. */
void tally_tables(const std::vector<HostTable>& tables, const std::vector<std::vector<int>>& movable, UpperBound& out, Score& base,
                  std::int64_t& useful) {
    const int H = static_cast<int>(tables.size());
    out.min_depth = std::numeric_limits<int>::max();
    for (int h = 0; h < H; ++h) {
        const HostTable& t = tables[h];
        base += t.front[0][0].value;
        useful += static_cast<std::int64_t>(t.front.size()) - 1;
        out.evaluations += t.evaluations;
        if (!movable[h].empty()) {
            out.hosts_tightened += t.kind == TableKind::Full ? 1 : 0;
            out.hosts_node_subsets += t.kind == TableKind::Full && t.node_subsets ? 1 : 0;
            out.hosts_split += t.kind == TableKind::Full && t.node_subsets && t.split ? 1 : 0;
            out.hosts_beyond_depth += t.kind == TableKind::Full && t.beyond ? 1 : 0;
            out.hosts_cheap += t.kind == TableKind::Cheap ? 1 : 0;
            out.hosts_trivial += t.kind == TableKind::Trivial ? 1 : 0;
        }
        if (t.depth >= 0 && t.kind == TableKind::Full) {
            out.min_depth = std::min(out.min_depth, t.depth);
            out.max_depth = std::max(out.max_depth, t.depth);
        }
    }
    if (out.min_depth == std::numeric_limits<int>::max()) out.min_depth = 0;
}

/** The largest RAM multiplier worth trying: beyond it no removal pays for its RAM, so the bound
 *  then only grows with the multiplier. */
Wide multiplier_ceiling(const std::vector<HostTable>& tables) {
    Wide num_hi = 0;
    for (const HostTable& t : tables)
        for (std::size_t k = 1; k < t.front.size(); ++k)
            for (const Point& q : t.front[k])
                if (q.ram > 0 && q.value > t.front[0][0].value)
                    num_hi = std::max(num_hi, ((static_cast<Wide>(q.value - t.front[0][0].value) << kShift) + q.ram - 1) / q.ram);
    return num_hi;
}

/**
 * Golden-section search over the integer RAM multiplier in [0, num_hi]: bound_at(num) is convex
 * (a maximum of functions linear in num), and every evaluated num gives a valid bound anyway, so
 * a search cut short (`steps` bounds at most, fewer once the watch says stop) keeps the best so
 * far. Lowers `best` to the least bound found; returns its multiplier (0: none beat `best`).
 */
template <class BoundAt>
Wide golden_multiplier(BoundAt& bound_at, Wide num_hi, int steps, HaltWatch& watch, Score& best) {
    std::map<Wide, Score> memo;
    Wide best_num = 0;
    auto f = [&](Wide num) {
        auto it = memo.find(num);
        if (it != memo.end()) return it->second;
        const Score v = bound_at(num);
        memo.emplace(num, v);
        if (v < best) {
            best = v;
            best_num = num;
        }
        return v;
    };
    const double phi = (std::sqrt(5.0) - 1.0) / 2.0;
    double lo = 0.0, hi = static_cast<double>(num_hi);
    double x1 = hi - phi * (hi - lo), x2 = lo + phi * (hi - lo);
    Score f1 = f(static_cast<Wide>(std::llround(x1))), f2 = f(static_cast<Wide>(std::llround(x2)));
    // Cut short: the multipliers evaluated so far (each bound is valid; the best is kept).
    for (int it = 2; it < steps && hi - lo > 1.0 && !watch.check(); ++it) {
        if (f1 <= f2) {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - phi * (hi - lo);
            f1 = f(static_cast<Wide>(std::llround(x1)));
        } else {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + phi * (hi - lo);
            f2 = f(static_cast<Wide>(std::llround(x2)));
        }
    }
    return best_num;
}

}  // namespace

bool tables_out_of_reach(double elapsed_s, double allowance_s, std::int64_t made, std::int64_t total, double factor) {
    if (!(factor > 0.0) || made <= 0 || !(elapsed_s >= kGiveUpProbe * allowance_s)) return false;
    return elapsed_s * static_cast<double>(total) / static_cast<double>(made) > factor * allowance_s;
}

UpperBound compute_upper_bound(const CapacityModel& model, const UpperBoundParams& params) {
    params.validate();
    const auto t0 = std::chrono::steady_clock::now();
    const Problem& p = model.problem();
    const int H = static_cast<int>(p.hosts.size());
    UpperBound out;
    out.free_remaps = !p.constraints.remap_counts_as_migration;

    // Terms: a migrated-RAM cost is subtracted per removal set (every VM off its host is migrated
    // RAM); non-positive terms are covered; anything else: VMCAP part only (TermShape).
    const Score ram_milli = migrated_ram_milli(model);
    out.covers_objective = bound_covers_objective(model);
    HaltWatch watch;
    watch.deadline = params.deadline;
    watch.stop = params.stop;
    watch.limited = params.max_full_tables >= 0;
    watch.tables_left.store(params.max_full_tables);
    if (params.deadline != std::chrono::steady_clock::time_point::max()) {
        watch.give_up = params.give_up;
        watch.start = t0;
        watch.allowance_s = std::chrono::duration<double>(params.deadline - t0).count();
        watch.total = H;
    }

    std::vector<std::vector<int>> movable;
    const Amount all_ram = migratable_vms(p, movable);  // says whether the RAM budget can bind at all
    const auto usage = compute_node_usage(p);

    // Effective budget: migrations, and how many of the smallest migratable VMs the RAM budget admits.
    const Amount ram_budget = p.constraints.max_migrated_ram_mib;
    out.effective_budget = migrations_the_budget_allows(p);
    // Whole (RAM, value) fronts only for the RAM multiplier search (its condition below, without
    // the budget, which needs the tables): the count knapsack reads the best value per k alone.
    const bool fronts = ram_budget < all_ram && params.ram_lagrangian_steps > 0;
    const std::vector<HostTable> tables = host_tables(model, params, out, ram_milli, movable, usage, fronts, watch);

    std::int64_t useful = 0;  // beyond this many removals in total no host gains more
    Score base = 0;
    tally_tables(tables, movable, out, base, useful);
    const std::int64_t budget = std::min(out.effective_budget, useful);

    // Count knapsack (multiplier 0), then the RAM multiplier when the RAM budget can bind.
    const Wide scale = Wide{1} << kShift;
    auto bound_at = [&](Wide num) {
        const Wide v = (static_cast<Wide>(base) << kShift) + knapsack(tables, budget, num, watch, out.knapsack_relaxed) + num * ram_budget;
        return static_cast<Score>(v / scale);  // v >= 0; the optimum is an integer <= v / scale
    };
    Score best = bound_at(0);
    const bool ram_binds = ram_budget < all_ram && budget > 0;
    if (ram_binds && params.ram_lagrangian_steps > 0) {
        const Wide best_num = golden_multiplier(bound_at, multiplier_ceiling(tables), params.ram_lagrangian_steps, watch, best);
        if (best_num > 0) {
            out.ram_lagrangian = true;
            // num / 2^kShift score units per MiB -> objective units per GiB.
            out.lambda_per_gib = static_cast<double>(best_num) / static_cast<double>(scale) * 1024.0 / static_cast<double>(kScoreScale);
        }
    }
    out.score = best;
    out.value = to_objective(best);
    const int why = watch.reason.load();
    if (why != 0 || watch.model_timeout.load()) {
        out.complete = false;
        out.stopped_by = why == 2 ? StopReason::Interrupted : why == 3 ? StopReason::TableLimit : StopReason::TimeLimit;
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

namespace {

/** max over (k_h), sum k_h <= budget, of sum_h (front_h[k_h] - front_h[0]) (best point per k),
 *  with the k_h of one maximiser in `pick`. Group knapsack by DP over the budget with the choices
 *  kept: O(hosts x options x budget) time, O(hosts x budget) memory. */
Score knapsack_with_choices(const std::vector<HostTable>& tables, std::int64_t budget, std::vector<int>& pick) {
    const std::size_t H = tables.size();
    std::vector<Score> dp(static_cast<std::size_t>(budget) + 1, 0);
    std::vector<std::vector<std::int32_t>> choice(H);
    std::vector<std::pair<int, Score>> opts;
    for (std::size_t h = 0; h < H; ++h) {
        const HostTable& t = tables[h];
        opts.clear();
        Score best = 0;
        for (std::size_t k = 1; k < t.front.size() && static_cast<std::int64_t>(k) <= budget; ++k) {
            Score v = std::numeric_limits<Score>::min();
            for (const Point& q : t.front[k]) v = std::max(v, q.value);
            const Score g = v - t.front[0][0].value;
            if (g > best) {  // a larger k that gains no more is never needed
                best = g;
                opts.emplace_back(static_cast<int>(k), g);
            }
        }
        if (opts.empty()) continue;
        choice[h].assign(static_cast<std::size_t>(budget) + 1, 0);
        for (std::int64_t b = budget; b >= 1; --b) {
            Score v = dp[b];
            for (const auto& [k, g] : opts) {
                if (k > b) break;
                if (dp[b - k] + g > v) {
                    v = dp[b - k] + g;
                    choice[h][static_cast<std::size_t>(b)] = k;
                }
            }
            dp[b] = v;
        }
    }
    pick.assign(H, 0);
    std::int64_t b = budget;
    for (std::size_t h = H; h-- > 0;) {
        if (choice[h].empty()) continue;
        pick[h] = choice[h][static_cast<std::size_t>(b)];
        b -= pick[h];
    }
    return dp[static_cast<std::size_t>(budget)];
}

}  // namespace

LagrangianBound lagrangian_upper_bound(const CapacityModel& model, const UpperBoundParams& params, Score target, int steps, Score today,
                                       const std::vector<Score>* prices) {
    params.validate();
    if (steps < 0) throw std::invalid_argument("lagrangian_upper_bound: steps must be >= 0");
    const Problem& p = model.problem();
    const std::size_t F = p.flavors.size();
    if (prices != nullptr && prices->size() != F) throw std::invalid_argument("lagrangian_upper_bound: one price per flavor");
    const auto t0 = std::chrono::steady_clock::now();
    LagrangianBound out;
    const int H = static_cast<int>(p.hosts.size());
    // Where it applies: the pieces' grid needs two resources; free remaps use the pooled
    // relaxation (no placements to land on); exact-fallback pairs and a binding RAM budget are
    // left to compute_upper_bound's own paths.
    if (p.num_resources() != 2 || !p.constraints.remap_counts_as_migration || !bound_covers_objective(model)) return out;
    for (std::size_t ht = 0; ht < p.host_types.size(); ++ht)
        for (int j = 0; j < model.num_targets(); ++j)
            if (!model.evaluator(static_cast<int>(ht), model.target_flavor(j)).is_closed_form()) return out;
    std::vector<std::vector<int>> movable;
    if (p.constraints.max_migrated_ram_mib < migratable_vms(p, movable)) return out;
    const std::int64_t budget = migrations_the_budget_allows(p);
    if (budget <= 0) return out;
    const Score ram_milli = migrated_ram_milli(model);
    // Without a RAM cost every final state's VMCAP part, which bounds its objective (the other
    // covered terms are <= 0), is a multiple of the targets' weights' greatest common divisor:
    // a bound rounds down to one.
    Score grain = 0;
    if (ram_milli == 0)
        for (int j = 0; j < model.num_targets(); ++j) grain = std::gcd(grain, model.target_weight_units(j));
    const auto usage = compute_node_usage(p);
    const int kcap = static_cast<int>(std::min<std::int64_t>(budget, std::numeric_limits<int>::max()));
    HaltWatch watch;
    watch.deadline = params.deadline;
    watch.stop = params.stop;
    const std::int64_t search_share = per_host_share(params.max_search_total, movable);
    const std::int64_t allocation_share = per_host_share(params.max_allocation_total, movable);
    const std::vector<char> kernel = kernel_by_type(model, movable, usage, false, params.value_path);
    const int workers = std::min(params.threads, std::max(1, H));
    tbb::task_arena arena(workers);

    // Subgradient schedule (docs/performance.md, "Arrivals priced"): Polyak steps of theta x (L -
    // target) / |d|^2 along d = s + kDeflection x the previous d (Camerini, Fratta and Maffioli's
    // deflection: plain steps zigzag across the steep faces where a price makes arrivals pay on
    // every host), theta halved and the search restarted from the best multipliers after
    // kPatience steps without a better bound, and multiplied by kGrow (at most kThetaMost) after
    // a step that found one: the Polyak target is the plan's objective, below the dual optimum
    // by an amount no one knows, and fixed steps were too short on some models and too long on
    // others (docs/performance.md, "Longer steps after a better bound"). Give up on models where it does not pay: after the
    // first step when L exceeds today's bound by more than kHopeless, or after kNoGain steps that
    // never went below it (8-node hosts, where one-node pieces are far too loose).
    constexpr double kTheta = 0.5, kDeflection = 0.5, kHopeless = 0.5, kGrow = 1.5, kThetaMost = 2.0;
    constexpr int kPatience = 3, kNoGain = 20;
    // The first vector is always the landing costs. Its per-k searches decide where later
    // vectors skip them (HostBounder::set_per_k): a fixed set, so that stated prices are
    // evaluated as the search evaluated them -- first the landing costs, then the prices.
    const std::vector<Score> landing = landing_costs(model);
    std::vector<double> pi(F);
    for (std::size_t g = 0; g < F; ++g) pi[g] = static_cast<double>(landing[g]);
    const bool stated_first = prices != nullptr && *prices == landing;
    if (prices != nullptr) steps = stated_first ? 1 : 2;
    std::vector<char> skip_per_k(static_cast<std::size_t>(H), 0);
    std::vector<Score> price(F);
    std::vector<HostTable> tables(H);
    Score best = std::numeric_limits<Score>::max();
    std::vector<double> best_pi = pi, best_sub, dir;
    double theta = kTheta;
    int stale = 0;
    for (int it = 0; it < steps; ++it) {
        std::vector<Score> piece(F);
        for (std::size_t g = 0; g < F; ++g) price[g] = std::max<Score>(0, static_cast<Score>(std::llround(pi[g])));
        const MultiNodeArrivals multi(model, price);
        for (std::size_t g = 0; g < F; ++g) {
            const Score span = p.flavors[g].num_vnuma();
            // Rounded up: the pieces are worth at least the VM. A flavor arriving whole has none.
            piece[g] = multi.covers(static_cast<int>(g)) ? 0 : (price[g] + span - 1) / span;
        }
        const ArrivalGrid grid(p, piece);
        if (!grid.ok()) break;
        std::atomic<bool> halted{false};
        run_workers(arena, workers, [&](int w) {
            HostBounder hb(model, params, false, ram_milli, price, search_share, allocation_share, false, kernel, &watch);
            hb.set_arrivals(&grid, multi.ok() ? &multi : nullptr);
            for (int h = w; h < H; h += workers) {
                if (watch.check()) {
                    halted.store(true);
                    break;
                }
                try {
                    hb.set_per_k(skip_per_k[static_cast<std::size_t>(h)] == 0);
                    tables[h] = hb.run(h, movable[h], usage[h], kcap);
                } catch (const BoundHalted&) {
                    halted.store(true);
                    break;
                }
            }
        });
        if (halted.load()) {  // this multiplier vector is discarded
            out.stopped_by = watch.reason.load() == 2 ? StopReason::Interrupted : StopReason::TimeLimit;
            break;
        }
        if (it == 0)
            for (int h = 0; h < H; ++h) skip_per_k[static_cast<std::size_t>(h)] = tables[h].per_k_out ? 1 : 0;
        if (prices != nullptr && !stated_first && it == 0) {
            // Stated prices: the landing costs' vector only fixed the skips.
            for (std::size_t g = 0; g < F; ++g) pi[g] = static_cast<double>((*prices)[g]);
            continue;
        }
        Score base = 0;
        for (const HostTable& t : tables) base += t.front[0][0].value;
        std::vector<int> pick;
        Score L = base + knapsack_with_choices(tables, budget, pick);
        if (grain > 0) L -= ((L % grain) + grain) % grain;
        ++out.steps;
        if (L < best) {
            // A step that found a better bound is taken as a sign the steps can be longer.
            if (best != std::numeric_limits<Score>::max()) theta = std::min(kThetaMost, theta * kGrow);
            best = L;
            best_pi = pi;
            out.prices = price;
            out.whole_arrivals = multi.ok();
            stale = 0;
        }
        if (L <= target) break;
        if (prices == nullptr &&
            ((it == 0 && static_cast<double>(L) > (1.0 + kHopeless) * static_cast<double>(today)) || (it + 1 >= kNoGain && best >= today)))
            break;
        // Subgradient at the knapsack's choice: arrivals (pieces / vNUMA nodes) - removals per flavor.
        std::vector<double> sub(F, 0.0);
        std::vector<int> pieces(F, 0);
        for (int h = 0; h < H; ++h) {
            const auto& w = tables[h].witness[static_cast<std::size_t>(pick[h])];
            if (!w) continue;
            for (const auto& [g, x] : w->removed) sub[static_cast<std::size_t>(g)] -= x;
            for (std::size_t g = 0; g < w->arrived.size(); ++g) sub[g] += w->arrived[g];
            for (std::size_t x = 0; x + 1 < w->rooms.size(); x += 2) grid.pieces(w->rooms.data() + x, pieces);
        }
        for (std::size_t g = 0; g < F; ++g) sub[g] += static_cast<double>(pieces[g]) / p.flavors[g].num_vnuma();
        if (L == best) best_sub = sub;
        Score from = L;
        if (L > best && ++stale >= kPatience) {
            theta *= 0.5;
            stale = 0;
            pi = best_pi;
            sub = best_sub;
            dir.clear();
            from = best;
        }
        if (!dir.empty())
            for (std::size_t g = 0; g < F; ++g) sub[g] += kDeflection * dir[g];
        dir = sub;
        double norm = 0.0;
        for (double x : sub) norm += x * x;
        if (norm == 0.0) break;
        // Multipliers kept >= 0: a negative price would pay for removals.
        const double step = theta * static_cast<double>(from - target) / norm;
        for (std::size_t g = 0; g < F; ++g) pi[g] = std::max(0.0, pi[g] - step * sub[g]);
    }
    out.applied = out.steps > 0;
    out.score = best;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

Score upper_bound_ceiling(const CapacityModel& model) {
    const Problem& p = model.problem();
    const int H = static_cast<int>(p.hosts.size());
    std::vector<std::vector<int>> movable;
    migratable_vms(p, movable);
    const auto usage = compute_node_usage(p);
    Score s = 0;
    for (int h = 0; h < H; ++h) s += topology_free_all_removed(model, h, movable[h], usage[h]);
    return s;
}

}  // namespace vmcap
