// `exact` (placer.h): one request at a time as a MILP solved by CBC, NetSolver-ILP's way (seed
// 003 §2.3.1, digest §1.3): every VM of the group on exactly one host (L1), every host's capacity
// (L2, here per pNUMA node and resource, over the placements of vmcap's vNUMA rule), every link
// within capacity (G2) with co-located vlinks free (G3). The group is placed all or nothing:
// an infeasible MILP means no host assignment exists (complete), the yardstick the heuristics are
// measured against on small networks.
//
// Routing is vmcap's (evaluators/network/network_load.h: fixed ECMP shares) instead of
// NetSolver's splittable multi-commodity flow (Eq. 2.1-2.3): on a tree, the only path, both are
// the same model; on multi-path fabrics the MILP keeps the routing the link rule, the search and
// `vmcap validate` check. Linearisation, exact for 0/1 placements:
//  - x[v,h,e] binary: VM v on host h in placement e (only placements that fit on their own now);
//    X[v,h] = sum_e x[v,h,e], u[v,s] = sum over the hosts h on switch s of X[v,h];
//  - host uplink of h (both directions carry the same): a vlink (v,w) of b Mbps adds
//    b (X[v,h] + X[w,h] - 2 c[vw,h]) with c <= X[v,h], c <= X[w,h] (c = 1: co-located, G3);
//  - switch links: p[vw,s,t] >= u[v,s] + u[w,t] - 1 (v under switch s, w under t != s) adds b x
//    the ECMP share of the flow s -> t and of t -> s on each arc;
//  - a vlink to a VM already on host hp (outside the group) is linear: b x the shares of the route
//    between h and hp, times X[v,h].
// Only rows that can bind are built: a node whose free amount covers every VM of the group that
// could use it, an arc whose allowance covers twice the group's bandwidth, carry none; switch
// pairs get p variables only when a route between them crosses an arc with a row.
// Objective (NetSolver-ILP has none: any feasible point): best fit, the least free vCPU on the
// chosen hosts, which keeps emptier hosts for later requests.
//
// Limits: CBC gets kSecondsPerGroup per group; a group it neither solves nor proves infeasible in
// that time is refused (the log's reason says so). Size: (VMs x hosts x placements) binaries plus
// vlinks x (hosts with a binding uplink + switch pairs) continuous columns: for small networks.
// Deterministic (one CBC thread). The plan of a group is checked before use (room and every rule,
// in integers); a choice the MILP's tolerances let through is replaced by the first admitted
// best-fit placement.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <unordered_map>
#include <vector>

#include <coin/CbcModel.hpp>
#include <coin/CoinMessageHandler.hpp>
#include <coin/OsiClpSolverInterface.hpp>

#include "evaluators/rules/link_filter.h"
#include "placement/placer.h"

namespace vmcap {

namespace {

constexpr double kSecondsPerGroup = 60.0;

/** The MILP of one group, column-major as CBC loads it. */
struct GroupMilp {
    std::vector<double> lb, ub, obj;
    std::vector<char> integer;
    std::vector<std::vector<std::pair<int, double>>> col;  // [column] (row, coefficient)
    std::vector<double> rlb, rub;

    int column(double lo, double hi, double cost, bool is_int) {
        lb.push_back(lo);
        ub.push_back(hi);
        obj.push_back(cost);
        integer.push_back(is_int ? 1 : 0);
        col.emplace_back();
        return static_cast<int>(col.size()) - 1;
    }
    int row(double lo, double hi) {
        rlb.push_back(lo);
        rub.push_back(hi);
        return static_cast<int>(rlb.size()) - 1;
    }
    void add(int r, int c, double a) { col[static_cast<std::size_t>(c)].emplace_back(r, a); }
};

constexpr double kInf = 1e30;
/** Best effort: the objective's reward per VM placed, above any host's free vCPU (best fit's cost). */
constexpr double kPlacedFirst = 1e7;

class ExactPlacer final : public GroupPlanner {
public:
    std::vector<int> order(const SearchState& s, std::span<const int> group) override {
        plan_.clear();
        plan_group(s, group, true);
        std::vector<int> out(group.begin(), group.end());
        // A VM that presolve found no host for goes first: place_group reports it as the one that failed.
        if (const auto it = std::find(out.begin(), out.end(), culprit_); it != out.end()) std::rotate(out.begin(), it, it + 1);
        return out;
    }

    /** A batch of VMs each placed on its own: one MILP placing as many as it can (NetSolver-ILP's
     *  best-effort semantics, digest §1.6), then best fit. */
    std::vector<int> batch_order(const SearchState& s, std::span<const int> vms) override {
        plan_.clear();
        plan_group(s, vms, false);
        return {vms.begin(), vms.end()};
    }

    std::string refusal_note() const override { return note_; }

private:
    /** Left out of the group's solution: not found. Stale (the state changed since order()): best
     *  fit among the admitted placements. */
    PlaceChoice unplanned(const SearchState& s, int vm, const PlaceChoice& planned) override {
        if (!planned.found()) return planned;
        return first_admitted(s, vm, [&](int h, int e) { return CandidateKey{host_free(s, h).vcpu, h, e, 0}; });
    }

    /** Solves the group's MILP on the state now and records its plan (not found for every VM when
     *  it has no solution). */
    void plan_group(const SearchState& s, std::span<const int> group, bool whole) override;

    std::string note_;  // refusal_note(): how the last MILP without a solution ended
    int culprit_ = -1;  // the VM of the last group that presolve found no host for, or -1
};

/** Builds the MILP of placing a group on the state now (one call of build()). */
class MilpBuilder {
public:
    MilpBuilder(const SearchState& s, std::span<const int> group, bool whole, GroupMilp& m)
        : s_(s),
          p_(s.problem()),
          group_(group),
          whole_(whole),
          m_(m),
          links_(s.model().find<LinkCapacityFilter>()),
          H_(static_cast<int>(s.problem().hosts.size())),
          n_(static_cast<int>(group.size())) {}

    /** Fills the MILP; returns (column, group position, host, placement) of every x column. */
    std::vector<std::tuple<int, int, int, int>> build() {
        collect_vlinks();
        add_assignment();
        add_node_rows();
        if (links_ == nullptr || s_.model().vlink_index() == nullptr) return xcols_;
        for (const Inside& l : inside_) bound_ += 2.0 * l.mbps;
        for (const Outside& l : outside_) bound_ += l.mbps;
        add_outside_vlinks();
        add_uplinks();
        add_switch_links();
        return xcols_;
    }

private:
    struct Inside {  // a vlink with both ends in the group, once
        int i, j;
        double mbps;
    };
    struct Outside {  // a vlink from the group's VM i to a VM on `host`
        int i, host;
        double mbps;
    };

    std::vector<int>& xcol(int i, int h) {
        return xcol_[static_cast<std::size_t>(i) * static_cast<std::size_t>(H_) + static_cast<std::size_t>(h)];
    }
    const Flavor& flavor(int i) const { return p_.flavors[static_cast<std::size_t>(s_.flavor_of(group_[static_cast<std::size_t>(i)]))]; }

    void collect_vlinks() {
        const VlinkIndex* vl = s_.model().vlink_index();
        if (links_ == nullptr || vl == nullptr) return;
        std::unordered_map<int, int> pos;  // vm -> position in the group
        for (int i = 0; i < n_; ++i) pos[group_[static_cast<std::size_t>(i)]] = i;
        for (int i = 0; i < n_; ++i) {
            const int vm = group_[static_cast<std::size_t>(i)];
            const auto peers = vl->peers_of(vm);
            const auto mbps = vl->mbps_each(vm);
            for (std::size_t k = 0; k < peers.size(); ++k) {
                const int q = peers[k] >= 0 ? peers[k] : ~peers[k];
                if (const auto at = pos.find(q); at != pos.end()) {
                    if (at->second > i) inside_.push_back({i, at->second, static_cast<double>(mbps[k])});
                } else if (s_.host_of(q) != kUnplaced) {
                    outside_.push_back({i, s_.host_of(q), static_cast<double>(mbps[k])});
                }
            }
        }
    }

    /** Presolve (sound): VM i on host h sends out of h's uplink at least its vlinks' bandwidth
     *  minus that of the group's peers that could share h with it (each on its own: free vCPU and
     *  RAM after i) and of its peers on h already; a host where that exceeds the uplink's
     *  allowance is no candidate. A hub whose spokes cannot share its host needs its whole
     *  bandwidth there. */
    bool uplink_short(int i, int h) const {
        if (links_ == nullptr) return false;
        const HostFree fr = host_free(s_, h);
        const Flavor& fi = flavor(i);
        double out = 0.0;
        for (const Inside& l : inside_) {
            if (l.i != i && l.j != i) continue;
            const Flavor& fw = flavor(l.i == i ? l.j : l.i);
            const bool share = fr.vcpu - fi.demand[kVcpu] >= fw.demand[kVcpu] && fr.ram_mib - fi.demand[kRamMib] >= fw.demand[kRamMib];
            out += share ? 0.0 : l.mbps;
        }
        for (const Outside& l : outside_) out += l.i == i && l.host != h ? l.mbps : 0.0;
        const std::int64_t allow =
            std::min(links_->allowance_now(s_, NetworkRoutes::arc(h, 0)), links_->allowance_now(s_, NetworkRoutes::arc(h, 1)));
        return out > static_cast<double>(allow);  // uplinks carry whole flows: scale 1, Mbps
    }

    /** x columns and the assignment rows (L1): exactly one host each (whole), or at most one. */
    void add_assignment() {
        xcol_.assign(static_cast<std::size_t>(n_) * static_cast<std::size_t>(H_), {});
        for (int i = 0; i < n_; ++i) {
            const int f = s_.flavor_of(group_[static_cast<std::size_t>(i)]);
            const int r1 = whole_ ? m_.row(1.0, 1.0) : m_.row(0.0, 1.0);
            for (int h = 0; h < H_; ++h) {
                if (uplink_short(i, h)) continue;
                const Amount free_vcpu = host_free(s_, h).vcpu;
                const auto& pl = s_.model().evaluator(s_.type_of(h), f).placements();
                for (int e = 0; e < static_cast<int>(pl.size()); ++e) {
                    if (!fits(s_, f, h, pl[static_cast<std::size_t>(e)])) continue;
                    // Each VM placed first (kPlacedFirst outweighs any free vCPU), then best fit.
                    const int c = m_.column(0.0, 1.0, static_cast<double>(free_vcpu) - (whole_ ? 0.0 : kPlacedFirst), true);
                    m_.add(r1, c, 1.0);
                    xcol(i, h).push_back(c);
                    xcols_.emplace_back(c, i, h, e);
                }
            }
        }
    }

    /** Node capacity (L2), only where the group could overfill a node. */
    void add_node_rows() {
        const int R = s_.model().num_resources();
        std::vector<Amount> most(static_cast<std::size_t>(R), 0);  // the group's demand per node and resource, at most
        for (int i = 0; i < n_; ++i)
            for (int r = 0; r < R; ++r) most[static_cast<std::size_t>(r)] += flavor(i).node_demand[r];
        std::vector<std::vector<std::tuple<int, int, int>>> on_host(static_cast<std::size_t>(H_));  // (column, position, placement)
        for (auto [c, i, h, e] : xcols_) on_host[static_cast<std::size_t>(h)].emplace_back(c, i, e);
        for (int h = 0; h < H_; ++h) {
            const Amount* free = s_.free_of(h);
            for (int node = 0; node < s_.nodes_of(h); ++node)
                for (int r = 0; r < R; ++r) {
                    if (on_host[static_cast<std::size_t>(h)].empty() || most[static_cast<std::size_t>(r)] <= free[node * R + r]) continue;
                    const int row = m_.row(-kInf, static_cast<double>(free[node * R + r]));
                    for (auto [c, i, e] : on_host[static_cast<std::size_t>(h)]) {
                        const int f = s_.flavor_of(group_[static_cast<std::size_t>(i)]);
                        if ((s_.model().evaluator(s_.type_of(h), f).placements()[static_cast<std::size_t>(e)].mask >> node) & 1U)
                            m_.add(row, c, static_cast<double>(flavor(i).node_demand[r]));
                    }
                }
        }
    }

    /** The row of `arc` (Mbps), made on first use; -1 when its allowance covers all the group can add. */
    int row_of(int arc) {
        if (auto it = arc_row_.find(arc); it != arc_row_.end()) return it->second;
        const double allow = static_cast<double>(links_->allowance_now(s_, arc)) / static_cast<double>(links_->routes().scale(arc));
        if (allow >= bound_) return -1;
        const int r = m_.row(-kInf, allow);
        arc_row_.emplace(arc, r);
        return r;
    }

    /** Vlinks to VMs on hosts: linear in X[v,h]. */
    void add_outside_vlinks() {
        const NetworkRoutes& routes = links_->routes();
        for (const Outside& l : outside_)
            for (int h = 0; h < H_; ++h)
                for (int c : xcol(l.i, h))
                    routes.for_each_share(h, l.host, [&](int arc, std::int64_t units) {
                        if (const int r = row_of(arc); r >= 0)
                            m_.add(r, c, l.mbps * static_cast<double>(units) / static_cast<double>(routes.scale(arc)));
                    });
    }

    /** Host uplinks: b (X[v,h] + X[w,h] - 2 c[vw,h]) per inside vlink; both directions carry the same. */
    void add_uplinks() {
        for (int h = 0; h < H_; ++h) {
            const int up = row_of(NetworkRoutes::arc(h, 0)), down = row_of(NetworkRoutes::arc(h, 1));
            if (up < 0 && down < 0) continue;
            for (const Inside& l : inside_) {
                const auto& xi = xcol(l.i, h);
                const auto& xj = xcol(l.j, h);
                for (int r : {up, down}) {
                    if (r < 0) continue;
                    for (int c : xi) m_.add(r, c, l.mbps);
                    for (int c : xj) m_.add(r, c, l.mbps);
                }
                if (xi.empty() || xj.empty()) continue;
                const int cc = m_.column(0.0, 1.0, 0.0, false);
                for (int r : {up, down})
                    if (r >= 0) m_.add(r, cc, -2.0 * l.mbps);
                for (const auto* xs : {&xi, &xj}) {  // c <= X
                    const int r = m_.row(-kInf, 0.0);
                    m_.add(r, cc, 1.0);
                    for (int c : *xs) m_.add(r, c, -1.0);
                }
            }
        }
    }

    /** Switch links: p[vw,s,t] >= u[v,s] + u[w,t] - 1 for switch pairs whose routes cross a row. */
    void add_switch_links() {
        const NetworkRoutes& routes = links_->routes();
        std::map<int, std::vector<int>> hosts_on;  // switch -> its hosts
        for (int h = 0; h < H_; ++h) hosts_on[p_.network.host_switch[static_cast<std::size_t>(h)]].push_back(h);
        for (const auto& [sw, hs] : hosts_on)
            for (const auto& [tw, ht] : hosts_on) {
                if (sw == tw) continue;
                std::vector<std::pair<int, double>> share;  // (row, Mbps per Mbps of the vlink), both flows
                auto on_switch_arcs = [&](int arc, std::int64_t units) {
                    if (arc < 2 * H_) return;  // uplinks: add_uplinks
                    if (const int r = row_of(arc); r >= 0)
                        share.emplace_back(r, static_cast<double>(units) / static_cast<double>(routes.scale(arc)));
                };
                routes.for_each_flow(hs.front(), ht.front(), on_switch_arcs);
                routes.for_each_flow(ht.front(), hs.front(), on_switch_arcs);
                if (share.empty()) continue;
                for (const Inside& l : inside_) {  // l.i under sw, l.j under tw (the pair (tw, sw) covers the other way)
                    const int pc = m_.column(0.0, 1.0, 0.0, false);
                    const int r = m_.row(-kInf, 1.0);  // u[i,s] + u[j,t] - p <= 1
                    m_.add(r, pc, -1.0);
                    for (int h : hs)
                        for (int c : xcol(l.i, h)) m_.add(r, c, 1.0);
                    for (int h : ht)
                        for (int c : xcol(l.j, h)) m_.add(r, c, 1.0);
                    for (auto [row, units] : share) m_.add(row, pc, l.mbps * units);
                }
            }
    }

    const SearchState& s_;
    const Problem& p_;
    std::span<const int> group_;
    bool whole_;
    GroupMilp& m_;
    const LinkCapacityFilter* links_;
    int H_, n_;
    std::vector<Inside> inside_;
    std::vector<Outside> outside_;
    std::vector<std::vector<int>> xcol_;                 // [i x H + h]: x columns of VM i on host h
    std::vector<std::tuple<int, int, int, int>> xcols_;  // (column, position, host, placement)
    double bound_ = 0.0;                                 // the most the group can add to one arc, Mbps
    std::unordered_map<int, int> arc_row_;               // arcs that may bind -> their row
};

void ExactPlacer::plan_group(const SearchState& s, std::span<const int> group, bool whole) {
    GroupMilp m;
    const std::vector<std::tuple<int, int, int, int>> xcols = MilpBuilder(s, group, whole, m).build();
    note_.clear();
    culprit_ = -1;
    for (int vm : group) plan_.set(vm, PlaceChoice{});
    std::vector<char> candidate(group.size(), 0);
    for (const auto& x : xcols) candidate[static_cast<std::size_t>(std::get<1>(x))] = 1;
    for (std::size_t i = 0; i < group.size(); ++i)
        if (whole && !candidate[i]) {  // an empty assignment row: infeasible without CBC
            culprit_ = group[i];
            note_ = "exact: VM '" + s.problem().vms[static_cast<std::size_t>(group[i])].id +
                    "' has no host with room on its pNUMA nodes and, for the bandwidth of its vlinks to VMs that cannot share that host, "
                    "on the host's uplink";
            return;
        }
    const int ncol = static_cast<int>(m.col.size()), nrow = static_cast<int>(m.rlb.size());
    std::vector<CoinBigIndex> start{0};
    std::vector<int> index;
    std::vector<double> value;
    for (auto& c : m.col) {  // one entry per (row, column): CoinFactorization asserts on duplicates
        std::sort(c.begin(), c.end());
        for (std::size_t k = 0; k < c.size(); ++k) {
            if (k > 0 && c[k].first == c[k - 1].first) {
                value.back() += c[k].second;
                continue;
            }
            index.push_back(c[k].first);
            value.push_back(c[k].second);
        }
        start.push_back(static_cast<CoinBigIndex>(index.size()));
    }
    OsiClpSolverInterface solver;
    solver.messageHandler()->setLogLevel(0);
    solver.loadProblem(ncol, nrow, start.data(), index.data(), value.data(), m.lb.data(), m.ub.data(), m.obj.data(), m.rlb.data(),
                       m.rub.data());
    for (int c = 0; c < ncol; ++c)
        if (m.integer[static_cast<std::size_t>(c)]) solver.setInteger(c);
    CbcModel cbc(solver);
    cbc.setLogLevel(0);
    cbc.messageHandler()->setLogLevel(0);
    cbc.solver()->messageHandler()->setLogLevel(0);
    cbc.setMaximumSeconds(kSecondsPerGroup);
    cbc.branchAndBound();
    const double* x = cbc.bestSolution();
    if (x == nullptr) {  // the group is refused
        const double secs = cbc.getCurrentSeconds();
        char buf[160];
        std::snprintf(
            buf, sizeof buf, "exact: %s (MILP of %d columns, %d rows, %.1f s)",
            cbc.isProvenInfeasible() ? "CBC proved that no placement of the request exists" : "CBC found no solution within its time limit",
            ncol, nrow, secs);
        note_ = buf;
        return;
    }
    for (auto [c, i, h, e] : xcols)
        if (x[c] > 0.5) plan_.set(group[static_cast<std::size_t>(i)], PlaceChoice{h, e});
}

}  // namespace

std::unique_ptr<Placer> make_exact_placer() {
    return std::make_unique<ExactPlacer>();
}

}  // namespace vmcap
