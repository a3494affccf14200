// Upper bound of upper_bound.h: per-host tables of the best value after k removals (exact by
// enumeration up to a depth, a valid tail beyond), combined by a multiple-choice knapsack over the
// budget, then tightened by a Lagrangian relaxation of the RAM budget. docs/upper-bound.md has the
// formula and the validity argument; the comments here say which step relies on what.
#include "optimizer/upper_bound.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <vector>

#include <tbb/task_arena.h>

#include "evaluators/bandwidth_capacity.h"
#include "evaluators/locality_term.h"
#include "evaluators/ram_cost_term.h"
#include "optimizer/fork_join.h"

namespace vmcap {

void UpperBoundParams::validate() const {
    if (max_sets_per_host < 1) throw std::invalid_argument("upper bound: max_sets_per_host must be >= 1");
    if (max_sets_per_exact_host < 1) throw std::invalid_argument("upper bound: max_sets_per_exact_host must be >= 1");
    if (max_exact_removals < 0) throw std::invalid_argument("upper bound: max_exact_removals must be >= 0");
    if (ram_lagrangian_steps < 0) throw std::invalid_argument("upper bound: ram_lagrangian_steps must be >= 0");
    if (threads < 1) throw std::invalid_argument("upper bound: threads must be >= 1");
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

/** A host's table: front[k] = Pareto front (RAM ascending, value strictly ascending) of the
 *  options removing exactly k migratable VMs, k = 0..front.size()-1. front[0] = {0, V_h(0)}. */
struct HostTable {
    std::vector<std::vector<Point>> front;
    int depth = -1;  ///< exact depth K_h (-1: no migratable VM)
    std::int64_t evaluations = 0;
};

/** A class of identical migratable VMs of one host (same flavor and pNUMA node set). */
struct VmClass {
    int flavor = -1;
    NodeMask mask = 0;
    int count = 0;
    Amount ram = 0;
};

class HostBounder {
public:
    HostBounder(const CapacityModel& m, const UpperBoundParams& prm, bool free_remaps, Score ram_milli)
        : m_(m), p_(m.problem()), prm_(prm), remaps_(free_remaps), wm_(ram_milli), R_(m.num_resources()), T_(m.num_targets()) {}

    HostTable run(int h, const std::vector<int>& movable, const std::vector<Amount>& usage) {
        HostTable t;
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
                for (int i = 0; i < n_; ++i) b[i] = m_.node_b(f, fixed.data() + i * R_);
                fixed_cap_[j] = vmcap_ub(f, b);
            }
        }
        const Score v0 = value(free_.data());
        t.front.push_back({Point{0, v0}});
        if (movable.empty()) {
            t.evaluations = evaluations_;
            return t;
        }

        // Classes of identical VMs, in (flavor, mask) order.
        std::map<std::pair<int, NodeMask>, int> index;
        classes_.clear();
        for (int v : movable) {
            const auto key = std::make_pair(p_.vms[v].flavor, vm_mask(v));
            auto it = index.find(key);
            if (it == index.end()) {
                it = index.emplace(key, static_cast<int>(classes_.size())).first;
                classes_.push_back(VmClass{key.first, key.second, 0, p_.flavors[key.first].demand[kRamMib]});
            }
            ++classes_[it->second].count;
        }
        std::sort(classes_.begin(), classes_.end(),
                  [](const VmClass& a, const VmClass& b) { return a.flavor != b.flavor ? a.flavor < b.flavor : a.mask < b.mask; });

        // Exact depth: the largest K whose multisets of at most K removals fit the work cap.
        bool exact_pair = false;
        for (int j = 0; j < T_; ++j) exact_pair = exact_pair || !m_.evaluator(type_, m_.target_flavor(j)).is_closed_form();
        const std::int64_t cap = exact_pair ? prm_.max_sets_per_exact_host : prm_.max_sets_per_host;
        const int n_mov = static_cast<int>(movable.size());
        const int kmax = std::min(prm_.max_exact_removals, n_mov);
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
        enumerate(0, 0, 0);
        for (int k = 1; k <= depth; ++k) t.front.push_back(pareto(raw_[k]));

        // Tail, k > depth: min(all migratable removed, every node gains its k largest demands);
        // RAM at least the k smallest. Stops once the first reaches the second's value.
        if (depth < n_mov) {
            std::vector<Amount> all = free_;
            for (int v : movable) shift(all.data(), p_.vms[v].flavor, vm_mask(v), +1);
            const Score g_all = value(all.data());
            std::vector<std::vector<Amount>> per(free_.size());  // [node * R + r]: demands there, descending
            std::vector<Amount> rams;
            for (int v : movable) {
                const Flavor& fl = p_.flavors[p_.vms[v].flavor];
                rams.push_back(fl.demand[kRamMib]);
                const NodeMask mask = vm_mask(v);
                for (int i = 0; i < n_; ++i)
                    if ((mask >> i) & 1U)
                        for (int r = 0; r < R_; ++r) per[static_cast<std::size_t>(i) * R_ + r].push_back(fl.node_demand[r]);
            }
            for (auto& d : per) std::sort(d.begin(), d.end(), std::greater<>());
            std::sort(rams.begin(), rams.end());
            Amount min_ram = 0;
            for (int k = 1; k <= depth; ++k) min_ram += rams[k - 1];
            std::vector<Amount> top(free_.size());
            for (int k = depth + 1; k <= n_mov; ++k) {
                min_ram += rams[k - 1];
                for (std::size_t x = 0; x < top.size(); ++x) {
                    Amount add = 0;
                    for (int q = 0; q < std::min<int>(k, static_cast<int>(per[x].size())); ++q) add += per[x][q];
                    top[x] = free_[x] + add;
                }
                const Score val = std::min(g_all, value(top.data()));
                t.front.push_back({Point{min_ram, val - wm_ * min_ram}});
                if (val >= g_all) break;
            }
        }
        t.evaluations = evaluations_;
        return t;
    }

private:
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
        }
        // Each copy uses guest_nodes() distinct nodes, one unit of b at each.
        Count s = 0;
        for (int i = 0; i < n_; ++i) s += b[i];
        return ev.guest_nodes() > 0 ? s / ev.guest_nodes() : s;
    }

    /** Upper bound on the host's weighted VMCAP with free amounts `f` (exact without free remaps;
     *  with them, the pooled relaxation of any re-placement of the VMs that stay). */
    Score value(const Amount* f) {
        ++evaluations_;
        Score s = 0;
        Count b[kMaxPNuma];
        for (int j = 0; j < T_; ++j) {
            const int fl = m_.target_flavor(j);
            Count c = 0;
            if (!remaps_) {
                for (int i = 0; i < n_; ++i) b[i] = m_.node_b(fl, f + i * R_);
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

    void enumerate(int first, int k, Amount ram) {
        if (k > 0) raw_[k].push_back(Point{ram, value(free_.data()) - wm_ * ram});
        if (k == depth_) return;
        for (int c = first; c < static_cast<int>(classes_.size()); ++c) {
            VmClass& vc = classes_[c];
            if (used_[c] == vc.count) continue;
            shift(free_.data(), vc.flavor, vc.mask, +1);
            ++used_[c];
            enumerate(c, k + 1, ram + vc.ram);
            --used_[c];
            shift(free_.data(), vc.flavor, vc.mask, -1);
        }
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

    const CapacityModel& m_;
    const Problem& p_;
    const UpperBoundParams& prm_;
    bool remaps_;
    Score wm_;
    int R_, T_;
    int type_ = 0, n_ = 0, depth_ = 0;
    std::int64_t evaluations_ = 0;
    std::vector<Amount> free_;
    std::vector<Count> fixed_cap_;
    std::vector<VmClass> classes_;
    std::vector<int> used_;
    std::vector<std::vector<Point>> raw_;
};

/**
 * max over (k_h), sum k_h <= budget, of sum_h gain_h(k_h), where gain_h(k) = best over front[k] of
 * (value x 2^kShift - num x ram) minus host h's k = 0 value x 2^kShift (num = 0: the plain
 * count knapsack, in exact units scaled by 2^kShift). Group knapsack by DP over the budget:
 * O(hosts x options x budget).
 */
Wide knapsack(const std::vector<HostTable>& tables, std::int64_t budget, Wide num) {
    std::vector<Wide> dp(static_cast<std::size_t>(budget) + 1, 0);
    std::vector<std::pair<int, Wide>> opts;
    for (const HostTable& t : tables) {
        opts.clear();
        const Wide base = static_cast<Wide>(t.front[0][0].value) << kShift;
        Wide best = 0;
        for (std::size_t k = 1; k < t.front.size() && static_cast<std::int64_t>(k) <= budget; ++k) {
            Wide g = std::numeric_limits<Wide>::min();
            for (const Point& q : t.front[k]) g = std::max(g, (static_cast<Wide>(q.value) << kShift) - num * q.ram - base);
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

}  // namespace

UpperBound compute_upper_bound(const CapacityModel& model, const UpperBoundParams& params) {
    params.validate();
    const auto t0 = std::chrono::steady_clock::now();
    const Problem& p = model.problem();
    const int H = static_cast<int>(p.hosts.size());
    UpperBound out;
    out.free_remaps = !p.constraints.remap_counts_as_migration;

    // Terms: ram-cost is subtracted per removal set (every VM off its host is migrated RAM);
    // locality and bandwidth capacity are <= 0 in every state; anything else: VMCAP part only.
    Score ram_milli = 0;
    for (const auto& term : model.terms()) {
        if (term->name() == RamCostTerm::kName)
            ram_milli += weight_milli(term->weight());
        else if (term->name() != LocalityTerm::kName && term->name() != BandwidthCapacityTerm::kName)
            out.covers_objective = false;
    }

    std::vector<std::vector<int>> movable(H);
    std::vector<Amount> rams;
    for (std::size_t v = 0; v < p.vms.size(); ++v)
        if (p.vms[v].migratable) {
            movable[p.vms[v].host].push_back(static_cast<int>(v));
            rams.push_back(p.flavors[p.vms[v].flavor].demand[kRamMib]);
        }
    const auto usage = compute_node_usage(p);

    // Per-host tables, hosts dealt to workers round-robin; each table depends on its host only.
    std::vector<HostTable> tables(H);
    const int workers = std::min(params.threads, std::max(1, H));
    tbb::task_arena arena(workers);
    run_workers(arena, workers, [&](int w) {
        HostBounder hb(model, params, out.free_remaps, ram_milli);
        for (int h = w; h < H; h += workers) tables[h] = hb.run(h, movable[h], usage[h]);
    });

    // Effective budget: migrations, and how many of the smallest migratable VMs the RAM budget admits.
    std::sort(rams.begin(), rams.end());
    const Amount ram_budget = p.constraints.max_migrated_ram_mib;
    std::int64_t fit = 0;
    Amount sum = 0, all_ram = 0;
    for (Amount r : rams) all_ram += r;
    for (Amount r : rams) {
        if (sum + r > ram_budget) break;
        sum += r;
        ++fit;
    }
    out.effective_budget = std::min<std::int64_t>(p.constraints.max_migrations, fit);
    std::int64_t useful = 0;  // beyond this many removals in total no host gains more
    Score base = 0;
    out.min_depth = std::numeric_limits<int>::max();
    for (const HostTable& t : tables) {
        base += t.front[0][0].value;
        useful += static_cast<std::int64_t>(t.front.size()) - 1;
        out.evaluations += t.evaluations;
        if (t.depth >= 0) {
            out.min_depth = std::min(out.min_depth, t.depth);
            out.max_depth = std::max(out.max_depth, t.depth);
        }
    }
    if (out.min_depth == std::numeric_limits<int>::max()) out.min_depth = 0;
    const std::int64_t budget = std::min(out.effective_budget, useful);

    // Count knapsack (multiplier 0), then the RAM multiplier when the RAM budget can bind.
    const Wide scale = Wide{1} << kShift;
    auto bound_at = [&](Wide num) {
        const Wide v = (static_cast<Wide>(base) << kShift) + knapsack(tables, budget, num) + num * ram_budget;
        return static_cast<Score>(v / scale);  // v >= 0; the optimum is an integer <= v / scale
    };
    Score best = bound_at(0);
    const bool ram_binds = ram_budget < all_ram && budget > 0;
    if (ram_binds && params.ram_lagrangian_steps > 0) {
        // Beyond num_hi no removal pays for its RAM: the bound then only grows with num.
        Wide num_hi = 0;
        for (const HostTable& t : tables)
            for (std::size_t k = 1; k < t.front.size(); ++k)
                for (const Point& q : t.front[k])
                    if (q.ram > 0 && q.value > t.front[0][0].value)
                        num_hi = std::max(num_hi, ((static_cast<Wide>(q.value - t.front[0][0].value) << kShift) + q.ram - 1) / q.ram);
        // Golden-section search over the integer multiplier: bound_at is convex (a maximum of
        // functions linear in num), and every evaluated num gives a valid bound anyway.
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
        for (int it = 2; it < params.ram_lagrangian_steps && hi - lo > 1.0; ++it) {
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
        if (best_num > 0) {
            out.ram_lagrangian = true;
            // num / 2^kShift score units per MiB -> objective units per GiB.
            out.lambda_per_gib = static_cast<double>(best_num) / static_cast<double>(scale) * 1024.0 / static_cast<double>(kScoreScale);
        }
    }
    out.score = best;
    out.value = to_objective(best);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

}  // namespace vmcap
