// `ctaap` (placer.h): clustered topology-aware coallocation, seed 002 §3.3 (CTAAP-Solver): a
// request graph (a VDC: VMs with vlinks) mapped onto clusters of machines in three steps.
//  1. Graduated assignment (Alg. 1, after Gold & Rangarajan): a soft assignment X (VMs x
//     candidate hosts, plus a slack row and column) raised as exp(beta Q) with Q_ij = sum over the
//     VM's vlinks (i, k) and hosts l of X_kl F(i, k, j, l), then normalised by rows and by the
//     columns, for beta = 0.5, x 1.075, up to 10, at most 4 outer and 30 inner iterations (the
//     paper's parameters, §4). Columns: a column whose sum exceeds cap_j is scaled down to cap_j
//     (capacitated softassign). The paper's own rule (divide by the sum of the column's
//     N + 2 - cap_j smallest entries, cap at 1) sets every entry to 1 when a host can take most of
//     the group, as hosts here usually can, and the assignment then carries no information.
//  2. Weighted bipartite matching (Alg. 2) of VMs to hosts with capacities cap_j, weights X:
//     maximum cardinality, then maximum weight, as a min-cost flow (Boost.Graph,
//     successive_shortest_path_nonnegative_weights).
//  3. Clean-up (Alg. 3): count, per matched pair, the violations it takes part in; while any,
//     forbid the pair with the most and match again.
// Mapped onto vmcap (the paper has identical machines, no NUMA and bandwidth per cluster pair; the
// choices where it is silent are ours):
//  - a "cluster" is one candidate host: among the hosts where some VM of the group fits now, the
//    emptiest (the anchor) and the hosts nearest to it in the network (arcs weighted by ECMP
//    share; ties to more free vCPU), kCandidates of them, and beyond those the nearest hosts a VM
//    still lacks, until each VM has as many candidates where it fits as the group has VMs;
//    cap_j = how many of the group's VMs fit on it packed smallest first;
//  - b_ik = Mbps of the vlinks between VMs i and k; the bandwidth between hosts j != l is the most
//    one more vlink could take on the route (the smallest allowance over its arcs), unlimited on
//    one host (co-located vlinks cost nothing);
//  - F(i, k, j, l) = 1 on one host (j = l), 0 when b_ik exceeds the bandwidth between j and l,
//    else (1 - b_ik d_jl / (b_max d_max)) / 2 with d the route's length in arcs weighted by ECMP
//    shares: co-location scores most, then compatible near pairs;
//  - the matching's weights tie (to 1e-9) towards the fuller host (best fit);
//  - the clean-up counts the paper's pairwise test and also what it misses: a VM that does not fit
//    its host's pNUMA nodes next to the others matched there (packed largest first, each in the
//    placement leaving the least free vCPU) first lowers that host's capacity to what packed and
//    matches again; then every vlink on an arc the group's vlinks together overload counts 1 for
//    both its ends.
// The group is placed all or nothing: if the matching leaves a VM out, the request is refused
// (CTAAP is a heuristic: not complete). A VM on its own is a group of one. order() returns the
// plan in packing order, so placing VM by VM reproduces it.
// Cost per group: O(beta steps x (I0 x (vlinks x K^2) + I0 x I1 x N x K)) for step 1 with K
// candidates; steps 2-3 at most N x K matchings of O(N x (N x K) log) each.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/successive_shortest_path_nonnegative_weights.hpp>

#include "evaluators/rules/link_filter.h"
#include "placement/placer.h"

namespace vmcap {

namespace {

constexpr int kCandidates = 32;  // hosts offered to one group (the paper's clusters)
// Graduated assignment's schedule (seed 002 §4: beta0, betaf, betar, I0, I1) and our tolerances.
constexpr double kBeta0 = 0.5, kBetaF = 10.0, kBetaR = 1.075;
constexpr int kI0 = 4, kI1 = 30;
constexpr double kEps = 1e-3;  // initial slack and convergence threshold (the paper gives neither)

/** One group's instance: VMs, candidate hosts, bandwidths and distances. */
struct Instance {
    std::vector<int> vm;                                   // [i] the group's VMs
    std::vector<int> host;                                 // [j] candidate hosts
    std::vector<int> cap;                                  // [j] how many of the group fit (packed smallest first)
    std::vector<Amount> free_vcpu;                         // [j] free vCPU now (the matching's tie-break: best fit)
    std::vector<char> ok;                                  // [i x M + j] VM i fits host j on its own
    std::vector<std::vector<std::pair<int, double>>> nbr;  // [i] (k, b_ik Mbps)
    std::vector<double> room;                              // [j x M + l] Mbps one more vlink may take, j != l
    std::vector<double> dist;                              // [j x M + l] arcs weighted by ECMP share
    int N() const { return static_cast<int>(vm.size()); }
    int M() const { return static_cast<int>(host.size()); }
};

/** Free amounts of a host as a scratch vector, and the tightest placement on it. */
struct Scratch {
    std::vector<Amount> free;
    /** The tightest placement of `flavor` that fits, taken off `free`; -1 when none fits. */
    int take(const SearchState& s, int flavor, int host) { return tightest_placement_on(s, flavor, host, free.data(), true); }
    static Scratch of(const SearchState& s, int h) {
        return Scratch{{s.free_of(h), s.free_of(h) + s.nodes_of(h) * s.model().num_resources()}};
    }
};

/** The packing order of a group: largest first (vCPU, RAM), then VM index. */
bool packs_before(const SearchState& s, int a, int b) {
    const Flavor& fa = s.problem().flavors[static_cast<std::size_t>(s.flavor_of(a))];
    const Flavor& fb = s.problem().flavors[static_cast<std::size_t>(s.flavor_of(b))];
    return std::make_tuple(-fa.demand[kVcpu], -fa.demand[kRamMib], a) < std::make_tuple(-fb.demand[kVcpu], -fb.demand[kRamMib], b);
}

Instance make_instance(const SearchState& s, std::span<const int> group) {
    Instance in;
    in.vm.assign(group.begin(), group.end());
    const Problem& p = s.problem();
    // Candidates: an anchor (link-fit's: the fullest host that could hold the group's vCPU, else
    // the emptiest), then the hosts nearest to it in the network (arcs weighted by ECMP share),
    // ties to the most free vCPU, then host index: a neighbourhood with room.
    std::vector<int> usable;
    for (int h = 0; h < static_cast<int>(p.hosts.size()); ++h) {
        bool any = false;
        for (int v : in.vm) any = any || first_fitting_placement(s, s.flavor_of(v), h) >= 0;
        if (any) usable.push_back(h);
    }
    if (usable.empty()) return in;
    auto anchor_key = [&](int h) { return std::pair(-host_free(s, h).vcpu, h); };  // the emptiest, then the lowest index
    const int anchor = *std::min_element(usable.begin(), usable.end(), [&](int a, int b) { return anchor_key(a) < anchor_key(b); });
    const LinkCapacityFilter* lf = s.model().find<LinkCapacityFilter>();
    std::vector<std::tuple<double, Amount, int>> keyed;  // (distance to the anchor, -free vCPU, host)
    for (int h : usable) {
        double d = 0.0;
        if (lf != nullptr)
            lf->routes().for_each_share(anchor, h, [&](int arc, std::int64_t units) {
                d += static_cast<double>(units) / static_cast<double>(lf->routes().scale(arc));
            });
        keyed.emplace_back(d, -host_free(s, h).vcpu, h);
    }
    std::sort(keyed.begin(), keyed.end());
    // The nearest kCandidates, and beyond them the nearest hosts a VM still lacks: each VM gets at
    // least as many candidates where it fits as the group has VMs (where there are that many).
    std::vector<int> fitting(in.vm.size(), 0);
    for (const auto& k : keyed) {
        const int h = std::get<2>(k);
        bool needed = in.host.size() < static_cast<std::size_t>(kCandidates);
        for (std::size_t i = 0; !needed && i < in.vm.size(); ++i)
            needed = fitting[i] < static_cast<int>(in.vm.size()) && first_fitting_placement(s, s.flavor_of(in.vm[i]), h) >= 0;
        if (!needed) continue;
        in.host.push_back(h);
        for (std::size_t i = 0; i < in.vm.size(); ++i) fitting[i] += first_fitting_placement(s, s.flavor_of(in.vm[i]), h) >= 0 ? 1 : 0;
    }
    const int N = in.N(), M = in.M();
    std::vector<int> smallest(in.vm.begin(), in.vm.end());
    std::sort(smallest.begin(), smallest.end(), [&](int a, int b) { return packs_before(s, b, a); });
    in.ok.assign(static_cast<std::size_t>(N * M), 0);
    for (int j = 0; j < M; ++j) {
        Scratch sc = Scratch::of(s, in.host[static_cast<std::size_t>(j)]);
        int fitted = 0;
        for (int v : smallest) fitted += sc.take(s, s.flavor_of(v), in.host[static_cast<std::size_t>(j)]) >= 0 ? 1 : 0;
        in.cap.push_back(fitted);
        in.free_vcpu.push_back(host_free(s, in.host[static_cast<std::size_t>(j)]).vcpu);
        for (int i = 0; i < N; ++i)
            in.ok[static_cast<std::size_t>(i * M + j)] =
                first_fitting_placement(s, s.flavor_of(in.vm[static_cast<std::size_t>(i)]), in.host[static_cast<std::size_t>(j)]) >= 0;
    }
    in.nbr.assign(static_cast<std::size_t>(N), {});
    in.room.assign(static_cast<std::size_t>(M * M), std::numeric_limits<double>::infinity());
    in.dist.assign(static_cast<std::size_t>(M * M), 0.0);
    const LinkCapacityFilter* links = s.model().find<LinkCapacityFilter>();
    const VlinkIndex* vl = s.model().vlink_index();
    if (links == nullptr || vl == nullptr) return in;
    std::unordered_map<int, int> pos;
    for (int i = 0; i < N; ++i) pos[in.vm[static_cast<std::size_t>(i)]] = i;
    for (int i = 0; i < N; ++i) {
        const auto peers = vl->peers_of(in.vm[static_cast<std::size_t>(i)]);
        const auto mbps = vl->mbps_each(in.vm[static_cast<std::size_t>(i)]);
        for (std::size_t k = 0; k < peers.size(); ++k)
            if (const auto at = pos.find(peers[k] >= 0 ? peers[k] : ~peers[k]); at != pos.end())
                in.nbr[static_cast<std::size_t>(i)].emplace_back(at->second, static_cast<double>(mbps[k]));
    }
    const NetworkRoutes& routes = links->routes();
    for (int j = 0; j < M; ++j)
        for (int l = 0; l < M; ++l) {
            if (j == l) continue;
            double room = std::numeric_limits<double>::infinity(), d = 0.0;
            routes.for_each_share(
                in.host[static_cast<std::size_t>(j)], in.host[static_cast<std::size_t>(l)], [&](int arc, std::int64_t units) {
                    room = std::min(room, std::floor(static_cast<double>(links->allowance_now(s, arc)) / static_cast<double>(units)));
                    d += static_cast<double>(units) / static_cast<double>(routes.scale(arc));
                });
            in.room[static_cast<std::size_t>(j * M + l)] = room;
            in.dist[static_cast<std::size_t>(j * M + l)] = d;
        }
    return in;
}

/** Step 1: graduated assignment; returns X (N x M, without the slack). */
std::vector<double> graduated_assignment(const Instance& in) {
    const int N = in.N(), M = in.M();
    double bmax = 0.0, dmax = 0.0;
    for (const auto& row : in.nbr)
        for (const auto& e : row) bmax = std::max(bmax, e.second);
    for (double d : in.dist) dmax = std::max(dmax, d);
    int degree = 1;
    for (const auto& row : in.nbr) degree = std::max(degree, static_cast<int>(row.size()));
    const double scale = std::min(1.0, 70.0 / degree);  // exp(beta Q) with beta <= 10 stays finite
    auto F = [&](double b, int j, int l) {
        if (b > in.room[static_cast<std::size_t>(j * M + l)]) return 0.0;
        if (j == l) return 1.0;  // co-located: no link load at all
        return bmax <= 0.0 || dmax <= 0.0 ? 0.5 : 0.5 * (1.0 - b * in.dist[static_cast<std::size_t>(j * M + l)] / (bmax * dmax));
    };
    const int W = M + 1;  // with the slack column; row N is the slack row
    std::vector<double> X(static_cast<std::size_t>((N + 1) * W), 1.0 + kEps), Q(static_cast<std::size_t>(N * M));
    for (double beta = kBeta0; beta <= kBetaF; beta *= kBetaR) {
        for (int it0 = 0; it0 < kI0; ++it0) {
            for (int i = 0; i < N; ++i)
                for (int j = 0; j < M; ++j) {
                    double q = 0.0;
                    for (auto [k, b] : in.nbr[static_cast<std::size_t>(i)])
                        for (int l = 0; l < M; ++l) q += X[static_cast<std::size_t>(k * W + l)] * F(b, j, l);
                    Q[static_cast<std::size_t>(i * M + j)] = q;
                }
            double change = 0.0;
            for (int i = 0; i < N; ++i)
                for (int j = 0; j < M; ++j) {
                    const double x =
                        in.ok[static_cast<std::size_t>(i * M + j)] ? std::exp(beta * scale * Q[static_cast<std::size_t>(i * M + j)]) : 0.0;
                    change = std::max(change, std::abs(x - X[static_cast<std::size_t>(i * W + j)]));
                    X[static_cast<std::size_t>(i * W + j)] = x;
                }
            for (int it1 = 0; it1 < kI1; ++it1) {
                double moved = 0.0;
                for (int i = 0; i < N; ++i) {  // rows over j = 1..M+1
                    double sum = 0.0;
                    for (int j = 0; j < W; ++j) sum += X[static_cast<std::size_t>(i * W + j)];
                    for (int j = 0; sum > 0.0 && j < W; ++j) X[static_cast<std::size_t>(i * W + j)] /= sum;
                }
                for (int j = 0; j < M; ++j) {  // columns: at most cap_j VMs' worth (see the file comment)
                    double sum = 0.0;
                    for (int i = 0; i < N; ++i) sum += X[static_cast<std::size_t>(i * W + j)];
                    const double f = sum > in.cap[static_cast<std::size_t>(j)] ? in.cap[static_cast<std::size_t>(j)] / sum : 1.0;
                    for (int i = 0; i < N; ++i) {
                        double& x = X[static_cast<std::size_t>(i * W + j)];
                        moved = std::max(moved, std::abs(x * f - x));
                        x *= f;
                    }
                }
                if (moved < kEps) break;
            }
            if (change < kEps) break;
        }
    }
    std::vector<double> out(static_cast<std::size_t>(N * M));
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < M; ++j) out[static_cast<std::size_t>(i * M + j)] = X[static_cast<std::size_t>(i * W + j)];
    return out;
}

/** Step 2: maximum-cardinality, then maximum-weight matching of VMs to hosts with capacities, as
 *  a min-cost flow (Boost.Graph). Returns [i] the host index j, or -1. */
std::vector<int> match(const Instance& in, const std::vector<double>& X, const std::vector<char>& forbidden) {
    using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                        boost::property<boost::edge_capacity_t, long,
                                                        boost::property<boost::edge_residual_capacity_t, long,
                                                                        boost::property<boost::edge_reverse_t, Traits::edge_descriptor,
                                                                                        boost::property<boost::edge_weight_t, double>>>>>;
    const int N = in.N(), M = in.M();
    Graph g(static_cast<std::size_t>(N + M + 2));
    const int src = N + M, dst = N + M + 1;
    auto cap = boost::get(boost::edge_capacity, g);
    auto rev = boost::get(boost::edge_reverse, g);
    auto cost = boost::get(boost::edge_weight, g);
    auto add = [&](int u, int v, long c, double w) {
        const auto e = boost::add_edge(static_cast<std::size_t>(u), static_cast<std::size_t>(v), g).first;
        const auto r = boost::add_edge(static_cast<std::size_t>(v), static_cast<std::size_t>(u), g).first;
        cap[e] = c;
        cap[r] = 0;
        cost[e] = w;
        cost[r] = -w;
        rev[e] = r;
        rev[r] = e;
        return e;
    };
    // Weight X in [0, 1] -> cost kS - kS X >= 0, rounded to an integer (exact in double: path sums
    // stay far below 2^53); equal weights (to 1e-9) go to the fuller host. Costs are double, not
    // integer: Boost's SSP adds the distance of a vertex Dijkstra did not reach (the type's max) to
    // its potential, which overflows a signed integer (UBSan) but saturates in floating point.
    constexpr double kS = 1e9;
    std::vector<std::pair<Traits::edge_descriptor, std::pair<int, int>>> pairs;
    for (int i = 0; i < N; ++i) add(src, i, 1, 0);
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < M; ++j)
            if (in.ok[static_cast<std::size_t>(i * M + j)] && !forbidden[static_cast<std::size_t>(i * M + j)])
                pairs.push_back({add(i, N + j, 1,
                                     kS - std::round(kS * std::min(1.0, X[static_cast<std::size_t>(i * M + j)])) +
                                         static_cast<double>(in.free_vcpu[static_cast<std::size_t>(j)])),
                                 {i, j}});
    for (int j = 0; j < M; ++j) add(N + j, dst, in.cap[static_cast<std::size_t>(j)], 0);
    boost::successive_shortest_path_nonnegative_weights(g, static_cast<std::size_t>(src), static_cast<std::size_t>(dst));
    auto residual = boost::get(boost::edge_residual_capacity, g);
    std::vector<int> out(static_cast<std::size_t>(N), -1);
    for (const auto& [e, ij] : pairs)
        if (cap[e] - residual[e] > 0) out[static_cast<std::size_t>(ij.first)] = ij.second;
    return out;
}

/** Step 3 for one matching: the embedding of each matched VM when its host's VMs are packed
 *  largest first (-1: it does not pack next to the others; plan_group() then lowers that host's
 *  capacity and matches again), and per VM the link violations it takes part in: the paper's
 *  pairwise test and every arc the group's vlinks together overload. */
std::vector<int> violations(const SearchState& s, const Instance& in, const std::vector<int>& A, std::vector<int>& emb) {
    const int N = in.N(), M = in.M();
    std::vector<int> pc(static_cast<std::size_t>(N), 0);
    emb.assign(static_cast<std::size_t>(N), -1);
    std::vector<int> order(static_cast<std::size_t>(N));
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](int a, int b) { return packs_before(s, in.vm[static_cast<std::size_t>(a)], in.vm[static_cast<std::size_t>(b)]); });
    std::unordered_map<int, Scratch> scratch;  // per matched host
    for (int i : order) {
        const int j = A[static_cast<std::size_t>(i)];
        if (j < 0) continue;
        const int h = in.host[static_cast<std::size_t>(j)];
        auto it = scratch.try_emplace(j, Scratch::of(s, h)).first;
        emb[static_cast<std::size_t>(i)] = it->second.take(s, s.flavor_of(in.vm[static_cast<std::size_t>(i)]), h);
    }
    const LinkCapacityFilter* links = s.model().find<LinkCapacityFilter>();
    if (links == nullptr) return pc;
    std::unordered_map<int, std::int64_t> added;  // arc -> the group's load (micro-units)
    std::vector<std::tuple<int, int, std::int64_t>> routed;
    for (int i = 0; i < N; ++i)
        for (const auto& edge : in.nbr[static_cast<std::size_t>(i)]) {
            const int k = edge.first;  // not a structured binding: clang 14 cannot capture one
            const double b = edge.second;
            const int j = A[static_cast<std::size_t>(i)], l = A[static_cast<std::size_t>(k)];
            if (k < i || j < 0 || l < 0 || j == l) continue;
            if (b > in.room[static_cast<std::size_t>(j * M + l)]) {  // the paper's pairwise test
                ++pc[static_cast<std::size_t>(i)];
                ++pc[static_cast<std::size_t>(k)];
            }
            routed.emplace_back(i, k, static_cast<std::int64_t>(b));
            links->routes().for_each_share(in.host[static_cast<std::size_t>(j)], in.host[static_cast<std::size_t>(l)],
                                           [&](int arc, std::int64_t units) { added[arc] += static_cast<std::int64_t>(b) * units; });
        }
    for (const auto& [i, k, b] : routed) {  // vlinks on an arc the group overloads
        bool over = false;
        links->routes().for_each_share(in.host[static_cast<std::size_t>(A[static_cast<std::size_t>(i)])],
                                       in.host[static_cast<std::size_t>(A[static_cast<std::size_t>(k)])],
                                       [&](int arc, std::int64_t) { over = over || added[arc] > links->allowance_now(s, arc); });
        if (over) {
            ++pc[static_cast<std::size_t>(i)];
            ++pc[static_cast<std::size_t>(k)];
        }
    }
    return pc;
}

class CtaapPlacer final : public GroupPlanner {
public:
    std::vector<int> order(const SearchState& s, std::span<const int> group) override { return plan(s, group, true); }

    /** A batch of VMs each placed on its own: the paper's own objective (as many as possible);
     *  a VM the matching leaves out is then tried alone. */
    std::vector<int> batch_order(const SearchState& s, std::span<const int> vms) override { return plan(s, vms, false); }

private:
    /** Left out of the plan: not found. Stale (the state changed since the plan: live migrations
     *  made room in between): planned again alone. */
    PlaceChoice unplanned(const SearchState& s, int vm, const PlaceChoice& planned) override {
        if (!planned.found()) return planned;
        plan_alone(s, vm);
        // The plan of one VM sees only its own links, not those to peers placed since: re-check it,
        // so that choose keeps the placer contract (admitted or not-found) whatever the state.
        const PlaceChoice again = plan_.take(vm, [](int) {});
        return again.found() && choice_admitted(s, vm, again) ? again : PlaceChoice{};
    }

    /** A new plan of `group` (plan_group); returns the group in packing order, the order it is placed in. */
    std::vector<int> plan(const SearchState& s, std::span<const int> group, bool whole) {
        plan_.clear();
        std::vector<int> out(group.begin(), group.end());
        std::sort(out.begin(), out.end(), [&](int a, int b) { return packs_before(s, a, b); });
        plan_group(s, group, whole);
        return out;
    }

    /** Plans `group` (whole: all or nothing; else the VMs matched, the others left unplanned). */
    void plan_group(const SearchState& s, std::span<const int> group, bool whole) override {
        if (whole)
            for (int v : group) plan_.set(v, PlaceChoice{});
        Instance in = make_instance(s, group);
        const int N = in.N(), M = in.M();
        if (M == 0) return;
        const std::vector<double> X = graduated_assignment(in);
        std::vector<char> forbidden(static_cast<std::size_t>(N * M), 0);
        for (int round = 0; round <= N * M; ++round) {
            const std::vector<int> A = match(in, X, forbidden);
            if (whole && std::find(A.begin(), A.end(), -1) != A.end()) return;  // a VM left out: all or nothing
            std::vector<int> emb;
            const std::vector<int> pc = violations(s, in, A, emb);
            // A host matched more VMs than its pNUMA nodes pack: its capacity becomes what packed.
            std::vector<int> packed(static_cast<std::size_t>(M), 0), failed(static_cast<std::size_t>(M), 0);
            for (int i = 0; i < N; ++i)
                if (A[static_cast<std::size_t>(i)] >= 0)
                    (emb[static_cast<std::size_t>(i)] >= 0 ? packed : failed)[static_cast<std::size_t>(A[static_cast<std::size_t>(i)])] +=
                        1;
            bool recapped = false;
            for (int j = 0; j < M; ++j)
                if (failed[static_cast<std::size_t>(j)] > 0) {
                    in.cap[static_cast<std::size_t>(j)] = packed[static_cast<std::size_t>(j)];
                    recapped = true;
                }
            if (recapped) continue;  // match again within the packed capacities before forbidding a pair
            const auto worst = std::max_element(pc.begin(), pc.end());
            if (*worst == 0) {
                for (int i = 0; i < N; ++i)
                    if (A[static_cast<std::size_t>(i)] >= 0)
                        plan_.set(in.vm[static_cast<std::size_t>(i)],
                                  PlaceChoice{in.host[static_cast<std::size_t>(A[static_cast<std::size_t>(i)])],
                                              emb[static_cast<std::size_t>(i)]});
                return;
            }
            const int i = static_cast<int>(worst - pc.begin());  // ties: the first VM
            forbidden[static_cast<std::size_t>(i * M + A[static_cast<std::size_t>(i)])] = 1;
        }
    }
};

}  // namespace

std::unique_ptr<Placer> make_ctaap_placer() {
    return std::make_unique<CtaapPlacer>();
}

}  // namespace vmcap
