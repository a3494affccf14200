// A measurement probe, not part of vmcap (docs/performance.md, "The Lagrangian on moved VMs'
// conservation, measured exactly on small clusters"; issue 43). Not built by CMake or CI.
//
// What it computes, on small random clusters (tests/fixtures.h make_random_problem, 80% filled):
// the proven optimum (CBC, `vmcap exact`'s MILP), vmcap's bound (compute_upper_bound), and the
// Lagrangian bound L(pi) on the conservation of moved VMs per flavor (sum over hosts of arrivals of
// flavor g = sum of its removals, multiplier pi_g): per host the exact joint table
//   G_h(k) = max over removal multisets S (|S| = k) of  Vt_h(F_h + d(S)) - sum_{v in S} pi_{g(v)},
//   Vt_h(F) = max over arrival multisets A of flavors with pi > 0 (real placements) of V_h(F - d(A)) + pi(A),
// then the same knapsack over hosts as the bound (at most B removals). Valid for every pi: a final
// state within the budget has, per flavor, as many arrivals as removals, so adding
// sum_g pi_g (arrivals_g - removals_g) = 0 to its objective and letting each host choose its own
// removals and arrivals can only raise it. At pi = the landing costs l_g it equals the bound
// (arrivals then never gain). With -DPRICE_ALL=0 only flavors with l_g > 0 are priced, the others
// charged l_g as the bound does. The minimum over pi is approached by a pattern search from
// pi = l (steps 0.25, 0.125, 0.0625): every reported value is a valid bound (checked against the
// optimum: "INVALID" would be printed), not necessarily the minimum.
// Exactness relies on the targets sharing one per-node demand td (checked: V then reads a host's
// free amounts only through c_i = min_r floor(F_ir / td_r)), so Vt(F) = max over c' <= c(F) of
// V(c' td) + (the best pi-value of arrivals fitting in F - c' td); two resources.
// -DSUBGRAD: Polyak subgradient steps toward CBC's best instead of the pattern search (at most 60);
// -DTARGET_SHARE=0.9: toward 90% of it (a plan below the optimum, as vmcap would have).
// -DPARAM2: pi_g = l_g + alpha x vCPU_g / 4 + beta x GiB_g / 16, two multipliers searched.
// -DRELAX_PIECES: multi-node arrivals relaxed to independent one-node pieces, each worth
// ceil(pi_g / vNUMA nodes) (what a per-node search of arrivals could use; still a bound).
//
// Build (from a Release build of vmcap, scripts/setup.sh) and run:
//   scripts/probes/build_lagrangian_probe.sh [-DBUDGETS='{4,6,8,10}' -DSEEDS=10 -DPRICE_ALL=0 -DVERBOSE]
//   build/lagrangian_probe K2 4     # topology, hosts; one line per (seed, budget)
//   build/lagrangian_probe snap.json  # one snapshot at its own budget, without CBC
#include <cstdio>
#include <map>
#include <cstdint>
#include <unordered_map>
#include <vector>
#include <algorithm>
#include <chrono>
#include <functional>
#include "tests/fixtures.h"
#include "optimizer/bound/upper_bound.h"
#include "optimizer/solvers/exact.h"
#include "instances/snapshot_io.h"

using namespace vmcap;
struct VH {
    std::size_t operator()(const std::vector<std::int64_t>& v) const {
        std::size_t h = 1469598103934665603ULL;
        for (auto x : v) {
            h ^= static_cast<std::size_t>(x) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
        }
        return h;
    }
};
struct PH {
    std::size_t operator()(const std::pair<std::int64_t, std::int64_t>& v) const {
        return std::hash<long long>()(v.first * 1000003LL + v.second);
    }
};
#ifndef PRICE_ALL
#define PRICE_ALL 1
#endif
#ifndef BUDGETS
#define BUDGETS \
    { 8, 12 }
#endif
#ifndef TARGET_SHARE
#define TARGET_SHARE 1.0
#endif
constexpr double kTargetShare = TARGET_SHARE;
#if defined(SUBGRAD) && defined(RELAX_PIECES)
#error "-DSUBGRAD backtracks whole arrivals: not with -DRELAX_PIECES's pieces"
#endif  // -DSUBGRAD's target: this share of CBC's best
#ifdef SUBGRAD
constexpr bool kSubgradient = true;  // Polyak subgradient steps instead of the pattern search
#else
constexpr bool kSubgradient = false;
#endif
#ifdef PARAM2
constexpr bool kParam2 = true;
#else
constexpr bool kParam2 = false;
#endif
#ifdef RELAX_PIECES
constexpr bool kRelaxPieces = true;  // multi-node arrivals as independent per-node pieces
#else
constexpr bool kRelaxPieces = false;
#endif
#ifndef SEEDS
#define SEEDS 8
#endif

struct Probe {
    const CapacityModel& m;
    const Problem& p;
    int R;
    std::vector<Score> cost;  // per flavor: pi (priced) or landing cost (unpriced), score units
    std::vector<bool> priced;
    std::unordered_map<std::vector<Amount>, Score, VH> memo;
    Probe(const CapacityModel& mm) : m(mm), p(mm.problem()), R(mm.problem().num_resources()) {}
    Score V(const std::vector<Amount>& F) const {
        Score s = 0;
        for (int j = 0; j < m.num_targets(); ++j) s += m.target_weight_units(j) * m.host_capacity(0, m.target_flavor(j), F.data());
        return s;
    }
    void shift(std::vector<Amount>& F, int g, NodeMask mask, Amount sign) const {
        const int n = p.host_types[0].num_nodes();
        for (int i = 0; i < n; ++i)
            if ((mask >> i) & 1U)
                for (int r = 0; r < R; ++r) F[i * R + r] += sign * p.flavors[g].node_demand[r];
    }
    // V depends on the free amounts only through the per-node copy counts c_i of the targets' common
    // per-node demand td (checked). Vt(F) = max over c' <= c(F) of V(c' td) + Arr(F - c' td), Arr the
    // best pi-value of priced arrivals fitting in what is left above c' td on every node.
    std::vector<Amount> td;
    int nn = 0;
    std::unordered_map<std::vector<Amount>, Score, VH> amemo;  // Arr per pi
    struct Item {
        Score v;
        std::vector<Amount> av;
    };
    std::unordered_map<std::vector<Amount>, std::vector<Item>, VH> pre;  // per F, pi-independent
    void prepare() {
        nn = p.host_types[0].num_nodes();
        td.clear();
        for (int j = 0; j < m.num_targets(); ++j) {
            const auto& d = p.flavors[m.target_flavor(j)].node_demand;
            std::vector<Amount> x(d.begin(), d.end());
            if (td.empty()) td = x;
            if (x != td) {
                std::fprintf(stderr, "targets differ per node\n");
                std::exit(1);
            }
        }
        amemo.clear();
        kmemo.clear();
        if (R != 2) {
            std::fprintf(stderr, "R != 2\n");
            std::exit(1);
        }
    }
    std::unordered_map<std::pair<Amount, Amount>, Score, PH> kmemo;  // per-node knapsack of one-node arrivals, per pi
    Score K(Amount c, Amount r) {
        auto it = kmemo.find({c, r});
        if (it != kmemo.end()) return it->second;
        Score best = 0;
        for (int g = 0; g < static_cast<int>(p.flavors.size()); ++g) {
            if (!priced[g] || cost[g] <= 0) continue;
            const int span = p.flavors[g].num_vnuma();
            if (span != 1 && !kRelaxPieces) continue;
            // A multi-node arrival relaxed to independent one-node pieces, each worth its share of
            // pi_g rounded up: a superset of the real placements at no less value, so still a bound.
            const Score value = (cost[g] + span - 1) / span;
            const Amount dc = p.flavors[g].node_demand[0], dr = p.flavors[g].node_demand[1];
            if (dc <= c && dr <= r) best = std::max(best, K(c - dc, r - dr) + value);
        }
        kmemo[{c, r}] = best;
        return best;
    }
    // Calls f(g, av less one arrival of g) for every placement of a priced multi-node flavor g that
    // fits in av (none with -DRELAX_PIECES: K takes them as pieces), until f returns true.
    template <class Fn>
    void each_multi_arrival(const std::vector<Amount>& av, Fn f) {
        if (kRelaxPieces) return;
        for (int g = 0; g < static_cast<int>(p.flavors.size()); ++g) {
            if (!priced[g] || cost[g] <= 0 || p.flavors[g].num_vnuma() == 1) continue;
            for (const Embedding& e : m.evaluator(0, g).placements()) {
                std::vector<Amount> G = av;
                shift(G, g, e.mask, -1);
                bool ok = true;
                for (Amount a : G) ok = ok && a >= 0;
                if (ok && f(g, G)) return;
            }
        }
    }
    Score Arr(const std::vector<Amount>& av) {
        auto it = amemo.find(av);
        if (it != amemo.end()) return it->second;
        Score best = 0;
        for (int i = 0; i < nn; ++i) best += K(av[i * R], av[i * R + 1]);
        each_multi_arrival(av, [&](int g, const std::vector<Amount>& G) {
            best = std::max(best, Arr(G) + cost[g]);
            return false;
        });
        amemo[av] = best;
        return best;
    }
    Score Vt(const std::vector<Amount>& F) {
        auto it = memo.find(F);
        if (it != memo.end()) return it->second;
        auto pit = pre.find(F);
        if (pit == pre.end()) {
            std::vector<Item> list;
            std::vector<int> cm(nn);
            for (int i = 0; i < nn; ++i) {
                cm[i] = 1 << 20;
                for (int r = 0; r < R; ++r)
                    if (td[r] > 0) cm[i] = std::min<int>(cm[i], static_cast<int>(F[i * R + r] / td[r]));
            }
            std::vector<int> c(nn, 0);
            while (true) {
                std::vector<Amount> T(F.size(), 0), A = F;
                for (int i = 0; i < nn; ++i)
                    for (int r = 0; r < R; ++r) {
                        T[i * R + r] = c[i] * td[r];
                        A[i * R + r] -= c[i] * td[r];
                    }
                list.push_back({V(T), A});
                int i = 0;
                while (i < nn && ++c[i] > cm[i]) c[i++] = 0;
                if (i == nn) break;
            }
            std::stable_sort(list.begin(), list.end(), [](const Item& a, const Item& b) { return a.v > b.v; });
            pit = pre.emplace(F, std::move(list)).first;
        }
        Score best = std::numeric_limits<Score>::min();
        const Score amax = Arr(F);
        for (const Item& x : pit->second) {
            if (x.v + amax <= best) break;
            best = std::max(best, x.v + Arr(x.av));
        }
        memo[F] = best;
        return best;
    }
    Score landing(int g) const {
        Score best = std::numeric_limits<Score>::max();
        for (const Embedding& e : m.evaluator(0, g).placements()) {
            std::vector<Amount> F(p.host_types[0].node_capacity.size(), 0);
            shift(F, g, e.mask, +1);
            best = std::min(best, V(F));
        }
        return best;
    }
    // L: knapsack over hosts of the joint tables.
    Score L(std::int64_t B) {
        memo.clear();
        prepare();
        const int H = static_cast<int>(p.hosts.size());
        std::vector<std::vector<Amount>> free(H, p.host_types[0].node_capacity);
        std::vector<std::vector<int>> mov(H);
        for (std::size_t v = 0; v < p.vms.size(); ++v) {
            const Vm& vm = p.vms[v];
            shift(free[vm.host], vm.flavor, node_mask(vm.pnuma.data(), p.flavors[vm.flavor].num_vnuma()), -1);
            if (vm.migratable) mov[vm.host].push_back(static_cast<int>(v));
        }
        std::vector<Score> dp(B + 1, 0);  // best over hosts so far with at most b removals
        for (int h = 0; h < H; ++h) {
            const int n = static_cast<int>(mov[h].size());
            std::map<std::pair<int, NodeMask>, int> cls;
            for (int v : mov[h]) {
                const Vm& vm = p.vms[v];
                ++cls[{vm.flavor, node_mask(vm.pnuma.data(), p.flavors[vm.flavor].num_vnuma())}];
            }
            std::vector<std::pair<std::pair<int, NodeMask>, int>> cl(cls.begin(), cls.end());
            std::vector<Score> G(n + 1, std::numeric_limits<Score>::min());
            std::vector<Amount> F = free[h];
            std::vector<std::vector<int>> rem_k(n + 1);      // removals per flavor of G[k]'s best set
            std::vector<std::vector<Amount>> free_k(n + 1);  // its free amounts
            std::vector<int> rem(p.flavors.size(), 0);
            std::function<void(std::size_t, int, Score)> rec = [&](std::size_t i, int k, Score c) {
                if (i == cl.size()) {
                    const Score v = Vt(F) - c;
                    if (v > G[k]) {
                        G[k] = v;
                        rem_k[k] = rem;
                        free_k[k] = F;
                    }
                    return;
                }
                const auto [fm, cnt] = cl[i];
                int taken = 0;
                rec(i + 1, k, c);
                while (taken < cnt && k + taken < B) {
                    ++taken;
                    ++rem[fm.first];
                    shift(F, fm.first, fm.second, +1);
                    rec(i + 1, k + taken, c + taken * cost[fm.first]);
                }
                rem[fm.first] -= taken;
                for (int t = 0; t < taken; ++t) shift(F, fm.first, fm.second, -1);
            };
            rec(0, 0, 0);
            std::vector<Score> nd(B + 1, std::numeric_limits<Score>::min());
            for (std::int64_t b = 0; b <= B; ++b)
                for (int k = 0; k <= n && k <= b; ++k)
                    if (dp[b - k] != std::numeric_limits<Score>::min() && G[k] != std::numeric_limits<Score>::min())
                        nd[b] = std::max(nd[b], dp[b - k] + G[k]);
            for (std::int64_t b = 1; b <= B; ++b) nd[b] = std::max(nd[b], nd[b - 1]);
            hist.push_back(dp);
            tables.push_back({G, rem_k, free_k});
            dp = nd;
        }
        // Backtrack the knapsack's choice: per host its k, removals and arrivals per flavor; their
        // difference summed is a subgradient of L at this pi (arrivals - removals per flavor).
        sub.assign(p.flavors.size(), 0);
        std::int64_t b = B;
        for (int h = H - 1; h >= 0; --h) {
            const auto& prev = hist[static_cast<std::size_t>(h)];
            const Table& t = tables[static_cast<std::size_t>(h)];
            // the best value at b or below (nd is a prefix maximum)
            Score target = std::numeric_limits<Score>::min();
            for (std::int64_t bb = 0; bb <= b; ++bb)
                for (std::size_t k = 0; k < t.G.size() && static_cast<std::int64_t>(k) <= bb; ++k)
                    if (prev[bb - k] != std::numeric_limits<Score>::min() && t.G[k] != std::numeric_limits<Score>::min())
                        target = std::max(target, prev[bb - k] + t.G[k]);
            bool found = false;
            for (std::int64_t bb = b; bb >= 0 && !found; --bb)
                for (std::size_t k = 0; k < t.G.size() && static_cast<std::int64_t>(k) <= bb && !found; ++k)
                    if (prev[bb - k] != std::numeric_limits<Score>::min() && t.G[k] != std::numeric_limits<Score>::min() &&
                        prev[bb - k] + t.G[k] == target) {
                        for (std::size_t g = 0; g < p.flavors.size(); ++g) sub[g] -= t.rem[k][g];
                        arrivals(t.free[k], sub);
                        b = bb - static_cast<std::int64_t>(k);
                        found = true;
                    }
        }
        hist.clear();
        tables.clear();
        return dp[B];
    }
    struct Table {
        std::vector<Score> G;
        std::vector<std::vector<int>> rem;
        std::vector<std::vector<Amount>> free;
    };
    std::vector<std::vector<Score>> hist;
    std::vector<Table> tables;
    std::vector<int> sub;  // the last L's subgradient, per flavor
    // Arrivals per flavor of Vt(F)'s maximiser, added to out (memos of the same pi).
    void arrivals(const std::vector<Amount>& F, std::vector<int>& out) {
        const Score best = Vt(F);
        for (const Item& x : pre.at(F))
            if (x.v + Arr(x.av) == best) {
                arr_counts(x.av, out);
                return;
            }
    }
    void arr_counts(const std::vector<Amount>& av, std::vector<int>& out) {
        const Score best = Arr(av);
        Score ksum = 0;
        for (int i = 0; i < nn; ++i) ksum += K(av[i * R], av[i * R + 1]);
        if (ksum == best) {
            for (int i = 0; i < nn; ++i) k_counts(av[i * R], av[i * R + 1], out);
            return;
        }
        each_multi_arrival(av, [&](int g, const std::vector<Amount>& G) {
            if (Arr(G) + cost[g] != best) return false;
            ++out[g];
            arr_counts(G, out);
            return true;
        });
    }
    void k_counts(Amount c, Amount r, std::vector<int>& out) {
        const Score best = K(c, r);
        if (best == 0) return;
        for (int g = 0; g < static_cast<int>(p.flavors.size()); ++g) {
            if (!priced[g] || cost[g] <= 0 || p.flavors[g].num_vnuma() != 1) continue;
            const Amount dc = p.flavors[g].node_demand[0], dr = p.flavors[g].node_demand[1];
            if (dc <= c && dr <= r && K(c - dc, r - dr) + cost[g] == best) {
                ++out[g];
                k_counts(c - dc, r - dr, out);
                return;
            }
        }
    }
};

int main(int argc, char** argv) {
    const std::string arg1 = argc > 1 ? argv[1] : "CQ3";
    // A snapshot file instead of random clusters: its own budget, no CBC (its optimum is unknown;
    // "opt" prints 0).
    const bool from_file = arg1.size() > 5 && arg1.substr(arg1.size() - 5) == ".json";
    const char* topo = from_file ? "snapshot" : arg1.c_str();
    const int hosts = argc > 2 ? std::atoi(argv[2]) : 4;
    const std::uint64_t seeds = from_file ? 1 : SEEDS;
    const std::vector<std::int64_t> budgets = from_file ? std::vector<std::int64_t>{-1} : std::vector<std::int64_t> BUDGETS;
    for (std::uint64_t seed = 1; seed <= seeds; ++seed)
        for (std::int64_t B : budgets) {
            test::RandomCluster rc;
            rc.host_topology = topo;
            rc.hosts = hosts;
            rc.seed = 100 + seed;
            rc.fill = 0.8;
            rc.max_migrations = B;
            const Problem p = from_file ? load_snapshot(arg1) : test::make_random_problem(rc);
            if (from_file) B = p.constraints.max_migrations;
            const CapacityModel m(p);
            int maxn = 0;
            {
                std::vector<int> c(p.hosts.size(), 0);
                for (const Vm& vm : p.vms)
                    if (vm.migratable) maxn = std::max(maxn, ++c[vm.host]);
            }
            if (maxn > 16 && !from_file) {
                std::printf("skip seed %lu: %d VMs on a host\n", seed, maxn);
                continue;
            }
            const UpperBound ub = compute_upper_bound(m);
            MilpParams mp;
            mp.time_limit_s = 60;
            const ExactResult ex = from_file ? ExactResult{} : solve_exact(m, mp);
            Probe pr(m);
            const int F = static_cast<int>(p.flavors.size());
            std::vector<Score> ell(F);
            for (int g = 0; g < F; ++g) ell[g] = pr.landing(g);
            // priced: every flavor (PRICE_ALL), else those with a positive landing cost
            pr.priced.assign(F, false);
            std::vector<int> P;
            for (int g = 0; g < F; ++g)
                if (ell[g] > 0 || PRICE_ALL) {
                    pr.priced[g] = true;
                    P.push_back(g);
                }
            const Score unit = kScoreScale;
            int evaluations = 0;
            const auto started = std::chrono::steady_clock::now();
            auto eval = [&](const std::vector<double>& d) {
                ++evaluations;
                pr.cost = ell;
                for (std::size_t i = 0; i < P.size(); ++i) {
                    const Flavor& fl = p.flavors[static_cast<std::size_t>(P[i])];
                    // -DSUBGRAD: Polyak subgradient steps toward CBC's best instead of the pattern search (at most 60);
                    // -DTARGET_SHARE=0.9: toward 90% of it (a plan below the optimum, as vmcap would have).
                    // -DPARAM2: pi_g = l_g + alpha x vCPU / 4 + beta x GiB / 16 (d = (alpha, beta)): a
                    // price on the room a moved VM takes, two multipliers for every flavor.
                    const double extra = kParam2 ? d[0] * static_cast<double>(fl.demand[0]) / 4.0 +
                                                       d[1] * static_cast<double>(fl.demand[1]) / (16.0 * 1024.0)
                                                 : d[i];
                    pr.cost[P[i]] = ell[P[i]] + static_cast<Score>(extra * unit);
                }
                const auto t0 = std::chrono::steady_clock::now();
                const Score r = pr.L(B);
#ifdef VERBOSE
                std::printf("    L(");
                for (double x : d) std::printf(" %.3f", x);
                std::printf(" ) = %.3f  %.2f s\n", static_cast<double>(r) / unit,
                            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
                std::fflush(stdout);
#else
                (void)t0;
#endif
                return r;
            };
            const std::size_t dims = kParam2 ? 2 : P.size();
            std::vector<double> d(dims, 0.0);
            const Score at_ell = eval(d);
            Score best = at_ell;
            std::vector<double> bestd = d;
            Score eval_last = at_ell;
            if (kSubgradient) {
                // Polyak subgradient steps from d = 0 toward a target value (CBC's best here; in
                // vmcap the plan's objective): d -= (L - target) / |s|^2 x s, s = arrivals -
                // removals per priced flavor at the knapsack's choice; at most 60 L(pi).
                std::vector<double> cur = d;
                std::vector<int> s0 = pr.sub;
                for (int it = 0; it < 60; ++it) {
                    const std::vector<int> sg = it == 0 ? s0 : pr.sub;
                    double norm = 0.0;
                    for (int g : P) norm += static_cast<double>(sg[static_cast<std::size_t>(g)]) * sg[static_cast<std::size_t>(g)];
                    const double gap = static_cast<double>(it == 0 ? at_ell : eval_last) / unit - kTargetShare * ex.objective;
                    if (norm == 0.0 || gap <= 1e-9) break;
                    for (std::size_t i = 0; i < P.size(); ++i) cur[i] -= gap / norm * sg[static_cast<std::size_t>(P[i])];
                    eval_last = eval(cur);
                    if (eval_last < best) {
                        best = eval_last;
                        bestd = cur;
                    }
                }
            } else {
                // Pattern search from d = 0: at each step size, move to the best of the 3^n - 1
                // neighbours d + step x {-1, 0, 1}^n while one lowers L, then halve the step (0.25,
                // 0.125, 0.0625). L is convex in pi but not smooth: single-coordinate moves stall at kinks.
                for (double st : {0.25, 0.125, 0.0625})
                    for (int iter = 0; iter < 40; ++iter) {
                        Score round_best = best;
                        std::vector<double> round_d = bestd;
                        std::vector<int> dir(dims, -1);
                        while (true) {
                            bool zero = true;
                            for (int x : dir) zero = zero && x == 0;
                            if (!zero) {
                                std::vector<double> t = bestd;
                                for (std::size_t i = 0; i < dims; ++i) t[i] += dir[i] * st;
                                const Score v = eval(t);
                                if (v < round_best) {
                                    round_best = v;
                                    round_d = t;
                                }
                            }
                            std::size_t i = 0;
                            while (i < dims && ++dir[i] > 1) dir[i++] = -1;
                            if (i == dims) break;
                        }
                        if (round_best >= best) break;
                        best = round_best;
                        bestd = round_d;
                    }
            }
            const double opt = ex.objective;
            std::printf("%s seed %lu B %ld VMs %zu: opt %.3f%s bound %.3f  L(ell) %.3f  min L %.3f at (", topo, seed, B, p.vms.size(), opt,
                        ex.proven ? "" : "?", ub.value, static_cast<double>(at_ell) / unit, static_cast<double>(best) / unit);
            for (double x : bestd) std::printf(" %.2f", x);
            std::printf(" )  %d L(pi) in %.2f s%s\n", evaluations,
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
                        static_cast<double>(best) / unit + 1e-9 < opt ? "  INVALID" : "");
            std::fflush(stdout);
        }
}
