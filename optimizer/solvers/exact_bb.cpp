// Branch and bound of exact_bb.h.
//
// Why it is exact. The problem is: pick a set M of at most B migratable VMs (RAM within the
// budget) and give each a destination (host, placement) other than its snapshot one, so that no
// pNUMA node is over capacity. The outer search enumerates M in increasing solver order; the inner
// one places M's VMs on "snapshot minus M". Every feasible final state is reached with M = the VMs
// whose (host, node set) changed, so nothing is missed; a VM of M put back on its snapshot nodes
// is the same final state as a smaller M, so that destination is skipped.
//
// Bounds, all from monotonicity (adding a VM to a host never raises its VMCAP of any flavor):
//  * state value: the current objective bounds every completion (only additions remain);
//  * landing: for each unplaced VM v and host h, loss(v, h) = the least objective drop of putting
//    v alone on h now. A completion sends each unplaced VM to some host; a host's final drop is at
//    least the largest loss of the VMs it receives, so the total drop is at least the minimum over
//    assignments of sum_h max_{v -> h} loss(v, h) (a DP over subsets of the unplaced VMs);
//  * supersets of M: each host's removal gains F_h(S) for subsets S of its movable VMs (|S| <= B,
//    precomputed) combined by a group knapsack over the hosts still open to removals.
// Symmetry: identical VMs (same host, flavor and node set) are chosen as a prefix of their class
// and placed consecutively with non-decreasing (host, placement); a host with the same type and
// free amounts as a lower host (neither the snapshot host of an unplaced VM) is not tried.
//
// The link-capacity rule (evaluators/rules/link_filter.h), when the model has it. The search keeps the
// "determined" load of every link: that of the vlinks whose two ends are final (not in M, or
// placed). A vlink loads every link by >= 0, so the final load of a link is at least its
// determined load: a placement that takes some link above max(capacity, snapshot load) is never
// part of a feasible completion and is skipped (the check depends on the host only), and a VM
// with no such host left ends the branch. At a leaf every vlink is determined, so the incumbent
// is link-feasible (re-checked from scratch at the end). The VMCAP bounds stay upper bounds, as
// forbidding placements only lowers the optimum. Symmetries change: hosts differ by their place
// in the network and their loads (no host symmetry), and a VM with a vlink is in no class of
// identical VMs (its vlinks name it).
#include "optimizer/solvers/exact_bb.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "evaluators/state/capacity_change.h"
#include "evaluators/rules/link_filter.h"
#include "evaluators/closed_forms/score.h"
#include "optimizer/plan/ordering.h"
#include "optimizer/plan/plan.h"
#include "optimizer/search/search_params.h"

namespace vmcap {
namespace {

/** "No bound" / "no option" in score units: far above any objective (weights and capacities are
 *  capped so that every score sum stays below 2^62), and safe to add a score to. */
constexpr Score kInf = std::numeric_limits<Score>::max() / 4;

/** A destination of one VM: host, index into the placements of its flavor there, objective change. */
struct Option {
    int host = -1;
    int emb = -1;
    Score delta = 0;  ///< exact, score units
};

/** A migratable VM in solver order (host, flavor, node mask, VM index). */
struct Movable {
    int vm = -1, host = -1, flavor = -1;
    int cls = -1;    ///< identical-VM class: equal (host, flavor, mask) <=> equal class
    int local = -1;  ///< position among its host's movable VMs
    NodeMask mask = 0;
    Amount ram = 0;
};

class BranchBound {
public:
    BranchBound(const CapacityModel& model, const BranchBoundParams& params);
    ExactResult run();

private:
    // --- state: snapshot minus removed VMs plus placed ones, per-host cached capacities ---
    Amount* free_of(int h) { return free_.data() + off_[h]; }
    void refresh(int h, NodeMask changed);
    void shift(int h, int flavor, NodeMask mask, Amount sign);
    void take_off(int pos);
    void put_back(int pos);
    void place(int pos, int h, int emb);
    void unplace(int pos, int h, int emb);
    bool trial(int h, int flavor, const Embedding& e, Score& delta) const;
    // --- link-capacity rule (only with links_): determined loads ---
    void link_shift(int vm, int h, int sign);
    bool link_trial(int vm, int h);
    Score objective() const { return m_.weighted(tot_.data()); }
    bool tick();

    // --- search ---
    void build_tables();
    void warm_start();
    void removal(int first, Amount ram);
    Score superset_bound(int first, int r) const;
    void search(std::uint64_t unplaced, int last_k);
    /** search(): each host's representative, the first host interchangeable with it (same type
     *  and free amounts, no link rule, symmetry on, neither the snapshot host of an unplaced VM:
     *  going back there is restricted), else itself. */
    std::vector<int> representatives(std::uint64_t unplaced) const;
    /** search(): the options of each unplaced VM ks[a] on each representative host, the least
     *  loss of each, and each VM's option count (a copy's counts its representative's). False
     *  (the rest unfilled) once a VM has none: free space only shrinks below this node. */
    bool unplaced_options(const std::vector<int>& ks, const std::vector<int>& rep, std::vector<std::vector<Option>>& opts,
                          std::vector<Score>& loss, std::vector<int>& nopt);
    /** search(): the branching VM's options, one per interchangeable host group with symmetry (and
     *  none before the previous copy's destination), best first (stable: ties keep host order). */
    std::vector<Option> candidates(int a_sel, int prev_host, int prev_emb, const std::vector<int>& rep,
                                   const std::vector<std::vector<Option>>& opts) const;
    Score landing_bound(const std::vector<int>& ks, const std::vector<Score>& loss) const;
    void options_on(int pos, int h, std::vector<Option>& out) const;
    void record();
    /** The current leaf's placements (what record() would keep). */
    std::vector<Placement> leaf() const;
    /** True if some plan within the budget reaches `placements` (find_order); an undecided
     *  search counts as no, and the result is then not proven. */
    bool orderable(const std::vector<Placement>& placements);

    const CapacityModel& m_;
    const Problem& p_;
    BranchBoundParams prm_;
    int H_ = 0, R_ = 0, T_ = 0;
    std::vector<int> type_, n_;
    std::vector<std::size_t> off_, boff_;
    std::vector<Amount> free_;
    std::vector<Count> b_, cap_, tot_;
    std::vector<int> touch_;  ///< > 0: host differs from the snapshot (removals or placements)

    const LinkCapacityFilter* links_ = nullptr;
    std::vector<std::vector<int>> vlinks_of_;  ///< [vm] indices into problem.vlinks
    std::vector<std::int64_t> load_;           ///< [link] determined load, micro-units
    std::vector<int> cur_host_;                ///< [vm] host now (snapshot host while open)
    std::vector<char> open_;                   ///< [vm] in M and not placed yet
    std::vector<std::int64_t> ldelta_;         ///< [link] link_trial scratch (zero between calls)
    std::vector<int> ltouched_;

    std::vector<Movable> mov_;
    std::vector<int> host_first_, host_end_;  ///< range of each host's movable VMs in mov_
    int B_ = 0;
    Amount RB_ = 0;
    std::vector<std::vector<Option>> opts0_;  ///< [pos * H + h]: options on untouched host h

    bool tables_ok_ = false;
    std::vector<std::unordered_map<std::uint64_t, Score>> ftab_;  ///< [h][local removal mask] -> host value (score units)
    std::vector<std::vector<Score>> ksuf_;                        ///< [h][t]: best gain of t removals on hosts >= h

    std::vector<int> chosen_;                ///< M, positions in mov_, increasing
    std::vector<int> dest_host_, dest_emb_;  ///< per index into chosen_
    Score inc_ = 0;                          ///< the incumbent, score units
    std::vector<Placement> best_;
    std::int64_t nodes_ = 0;
    std::optional<StopReason> stopped_;  ///< NodeLimit or TimeLimit once reached
    bool order_unknown_ = false;         ///< an incumbent candidate's orderability was not decided
    std::chrono::steady_clock::time_point t0_;
};

BranchBound::BranchBound(const CapacityModel& model, const BranchBoundParams& params) : m_(model), p_(model.problem()), prm_(params) {
    if (!(prm_.time_limit_s > 0)) throw std::invalid_argument("exact: time limit must be > 0");
    if (prm_.max_nodes < 0) throw std::invalid_argument("exact: node limit must be >= 0");
    H_ = static_cast<int>(p_.hosts.size());
    R_ = p_.num_resources();
    T_ = m_.num_targets();
    const auto usage = compute_node_usage(p_);
    std::size_t fo = 0, bo = 0;
    for (int h = 0; h < H_; ++h) {
        const HostType& ht = p_.host_type_of(h);
        type_.push_back(p_.hosts[h].type);
        n_.push_back(ht.num_nodes());
        off_.push_back(fo);
        boff_.push_back(bo);
        fo += ht.node_capacity.size();
        bo += static_cast<std::size_t>(T_) * ht.num_nodes();
        for (std::size_t i = 0; i < ht.node_capacity.size(); ++i) free_.push_back(ht.node_capacity[i] - usage[h][i]);
    }
    b_.assign(bo, 0);
    cap_.assign(static_cast<std::size_t>(H_) * T_, 0);
    tot_.assign(T_, 0);
    touch_.assign(H_, 0);
    for (int h = 0; h < H_; ++h) refresh(h, static_cast<NodeMask>((1U << n_[h]) - 1));

    links_ = m_.find<LinkCapacityFilter>();  // solve_exact_bb refuses every other filter first (check_exact_scope)
    if (links_) {
        vlinks_of_.assign(p_.vms.size(), {});
        for (std::size_t e = 0; e < p_.vlinks.size(); ++e) {
            vlinks_of_[p_.vlinks[e].a].push_back(static_cast<int>(e));
            vlinks_of_[p_.vlinks[e].b].push_back(static_cast<int>(e));
        }
        load_ = links_->snapshot_loads();
        ldelta_.assign(load_.size(), 0);
        cur_host_.resize(p_.vms.size());
        for (std::size_t v = 0; v < p_.vms.size(); ++v) cur_host_[v] = p_.vms[v].host;
        open_.assign(p_.vms.size(), 0);
    }

    for (std::size_t v = 0; v < p_.vms.size(); ++v) {
        const Vm& vm = p_.vms[v];
        if (!vm.migratable) continue;
        Movable mv;
        mv.vm = static_cast<int>(v);
        mv.host = vm.host;
        mv.flavor = vm.flavor;
        mv.mask = node_mask(vm.pnuma.data(), p_.flavors[vm.flavor].num_vnuma());
        mv.ram = p_.flavors[vm.flavor].demand[kRamMib];
        mov_.push_back(mv);
    }
    // Host-major order: removals of one host are contiguous (superset bound), identical VMs adjacent.
    std::sort(mov_.begin(), mov_.end(), [](const Movable& a, const Movable& b) {
        if (a.host != b.host) return a.host < b.host;
        if (a.flavor != b.flavor) return a.flavor < b.flavor;
        if (a.mask != b.mask) return a.mask < b.mask;
        return a.vm < b.vm;
    });
    host_first_.assign(H_, 0);
    host_end_.assign(H_, 0);
    for (std::size_t i = 0; i < mov_.size(); ++i) {
        Movable& mv = mov_[i];
        const auto linked = [&](const Movable& x) { return links_ != nullptr && !vlinks_of_[x.vm].empty(); };
        const bool same = i > 0 && mov_[i - 1].host == mv.host && mov_[i - 1].flavor == mv.flavor && mov_[i - 1].mask == mv.mask &&
                          !linked(mov_[i - 1]) && !linked(mv);
        mv.cls = same ? mov_[i - 1].cls : static_cast<int>(i);
        if (i == 0 || mov_[i - 1].host != mv.host) host_first_[mv.host] = static_cast<int>(i);
        host_end_[mv.host] = static_cast<int>(i) + 1;
        mv.local = static_cast<int>(i) - host_first_[mv.host];
    }
    for (int h = 0; h < H_; ++h)
        if (host_end_[h] == 0) host_first_[h] = host_end_[h] = 0;

    // Effective budget: migrations, and how many of the smallest VMs the RAM budget admits.
    RB_ = p_.constraints.max_migrated_ram_mib;
    std::vector<Amount> rams;
    for (const Movable& mv : mov_) rams.push_back(mv.ram);
    std::sort(rams.begin(), rams.end());
    Amount sum = 0;
    int fit = 0;
    for (Amount r : rams) {
        if (sum + r > RB_) break;
        sum += r;
        ++fit;
    }
    const std::int64_t budget = std::min<std::int64_t>(p_.constraints.max_migrations, fit);
    if (budget > 62) throw std::invalid_argument("exact: a budget of more than 62 migrations is out of scope of the branch and bound");
    B_ = static_cast<int>(budget);

    // Options on every host as in the snapshot (reused while a host is untouched).
    opts0_.assign(mov_.size() * static_cast<std::size_t>(H_), {});
    for (std::size_t pos = 0; pos < mov_.size(); ++pos)
        for (int h = 0; h < H_; ++h)
            if (h != mov_[pos].host) options_on(static_cast<int>(pos), h, opts0_[pos * H_ + h]);
}

void BranchBound::refresh(int h, NodeMask changed) {
    const Amount* f = free_of(h);
    const int n = n_[h];
    for (int j = 0; j < T_; ++j) {
        const int tf = m_.target_flavor(j);
        Count* b = b_.data() + boff_[h] + static_cast<std::size_t>(j) * n;
        for (int i = 0; i < n; ++i)
            if ((changed >> i) & 1U) b[i] = m_.node_b(tf, f + i * R_);
        const Count c = m_.evaluator(type_[h], tf)(b);
        Count& old = cap_[static_cast<std::size_t>(h) * T_ + j];
        tot_[j] += c - old;
        old = c;
    }
}

void BranchBound::shift(int h, int flavor, NodeMask mask, Amount sign) {
    const Amount* nd = p_.flavors[flavor].node_demand.data();
    Amount* f = free_of(h);
    for (int i = 0; i < n_[h]; ++i)
        if ((mask >> i) & 1U)
            for (int r = 0; r < R_; ++r) f[i * R_ + r] += sign * nd[r];
    refresh(h, mask);
}

void BranchBound::take_off(int pos) {
    const Movable& mv = mov_[pos];
    shift(mv.host, mv.flavor, mv.mask, +1);
    ++touch_[mv.host];
    if (links_) {
        link_shift(mv.vm, mv.host, -1);
        open_[mv.vm] = 1;
    }
}

void BranchBound::put_back(int pos) {
    const Movable& mv = mov_[pos];
    shift(mv.host, mv.flavor, mv.mask, -1);
    --touch_[mv.host];
    if (links_) {
        open_[mv.vm] = 0;
        link_shift(mv.vm, mv.host, +1);
    }
}

void BranchBound::place(int pos, int h, int emb) {
    const Movable& mv = mov_[pos];
    shift(h, mv.flavor, m_.evaluator(type_[h], mv.flavor).placements()[emb].mask, -1);
    ++touch_[h];
    if (links_) {
        open_[mv.vm] = 0;
        cur_host_[mv.vm] = h;
        link_shift(mv.vm, h, +1);
    }
}

void BranchBound::unplace(int pos, int h, int emb) {
    const Movable& mv = mov_[pos];
    shift(h, mv.flavor, m_.evaluator(type_[h], mv.flavor).placements()[emb].mask, +1);
    --touch_[h];
    if (links_) {
        link_shift(mv.vm, h, -1);
        cur_host_[mv.vm] = mv.host;
        open_[mv.vm] = 1;
    }
}

void BranchBound::link_shift(int vm, int h, int sign) {
    // The vlinks of `vm` whose other end is final join (sign +1) or leave (-1) the determined loads.
    const NetworkRoutes& routes = links_->routes();
    for (int e : vlinks_of_[vm]) {
        const Vlink& l = p_.vlinks[e];
        const int other = l.a == vm ? l.b : l.a;
        if (!open_[other]) routes.add_vlink(load_, h, cur_host_[other], l.mbps, sign);
    }
}

bool BranchBound::link_trial(int vm, int h) {
    // Would `vm` (open) on host h take a link above max(capacity, snapshot load) with the vlinks
    // to its final peers? Their loads only add, so the sum per link is compared once.
    const NetworkRoutes& routes = links_->routes();
    for (int e : vlinks_of_[vm]) {
        const Vlink& l = p_.vlinks[e];
        const int other = l.a == vm ? l.b : l.a;
        if (open_[other]) continue;
        routes.for_each_share(h, cur_host_[other], [&](int link, std::int64_t units) {
            if (ldelta_[link] == 0) ltouched_.push_back(link);
            ldelta_[link] += l.mbps * units;
        });
    }
    bool ok = true;
    for (int link : ltouched_) {
        ok = ok && links_->allowed(link, load_[link] + ldelta_[link]);
        ldelta_[link] = 0;
    }
    ltouched_.clear();
    return ok;
}

bool BranchBound::trial(int h, int flavor, const Embedding& e, Score& delta) const {
    const Flavor& fl = p_.flavors[flavor];
    const int k = fl.num_vnuma();
    const Amount* nd = fl.node_demand.data();
    const Amount* f = free_.data() + off_[h];
    Amount local[kMaxPNuma * kMaxResources];  // node-indexed free amounts of the placement's nodes with the VM
    for (int i = 0; i < k; ++i)
        for (int r = 0; r < R_; ++r) {
            const Amount l = f[e.map[i] * R_ + r] - nd[r];
            if (l < 0) return false;
            local[e.map[i] * R_ + r] = l;
        }
    const int n = n_[h];
    Count nb[kMaxPNuma];
    delta = 0;
    // The search's capacity-change kernel (evaluators/state/capacity_change.h): the same integers.
    for (int j = 0; j < T_; ++j)
        delta +=
            m_.target_weight_units(j) * target_capacity_change(m_, type_[h], n, j, b_.data() + boff_[h] + static_cast<std::size_t>(j) * n,
                                                               cap_[static_cast<std::size_t>(h) * T_ + j], e.mask, local, nb);
    return true;
}

void BranchBound::options_on(int pos, int h, std::vector<Option>& out) const {
    out.clear();
    const Movable& mv = mov_[pos];
    const auto& pl = m_.evaluator(type_[h], mv.flavor).placements();
    for (std::size_t e = 0; e < pl.size(); ++e) {
        if (h == mv.host && pl[e].mask == mv.mask) continue;  // back home: the same state as a smaller M
        Score d = 0;
        if (trial(h, mv.flavor, pl[e], d)) out.push_back(Option{h, static_cast<int>(e), d});
    }
}

bool BranchBound::tick() {
    if (stopped_) return true;
    ++nodes_;
    if (prm_.max_nodes > 0 && nodes_ > prm_.max_nodes) {
        stopped_ = StopReason::NodeLimit;
        return true;
    }
    if ((nodes_ & 255) == 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count() > prm_.time_limit_s) {
        stopped_ = StopReason::TimeLimit;
        return true;
    }
    return false;
}

void BranchBound::build_tables() {
    // Table size first: sum_h sum_{s <= B} C(n_h, s) host evaluations; skip the superset bound if
    // that is too much (the search stays exact, only slower).
    double count = 0.0;
    for (int h = 0; h < H_; ++h) {
        const int n = host_end_[h] - host_first_[h];
        if (n > 63) return;
        double c = 1.0;
        for (int s = 0; s <= std::min(B_, n); ++s) {
            count += c;
            c = c * (n - s) / (s + 1);
        }
    }
    if (count > 2e6) return;
    ftab_.assign(H_, {});
    std::vector<std::vector<Score>> gain(H_, std::vector<Score>(B_ + 1, 0));
    for (int h = 0; h < H_; ++h) {
        const int first = host_first_[h], n = host_end_[h] - first;
        auto host_value = [&] { return m_.weighted(cap_.data() + static_cast<std::size_t>(h) * T_); };
        const Score base = host_value();
        auto rec = [&](auto&& self, int start, std::uint64_t mask, int depth) -> void {
            const Score v = host_value();
            ftab_[h].emplace(mask, v);
            gain[h][depth] = std::max(gain[h][depth], v - base);
            if (depth == B_) return;
            for (int l = start; l < n; ++l) {
                take_off(first + l);
                self(self, l + 1, mask | (std::uint64_t{1} << l), depth + 1);
                put_back(first + l);
            }
        };
        rec(rec, 0, 0, 0);
        for (int t = 1; t <= B_; ++t) gain[h][t] = std::max(gain[h][t], gain[h][t - 1]);
    }
    ksuf_.assign(H_ + 1, std::vector<Score>(B_ + 1, 0));
    for (int h = H_ - 1; h >= 0; --h)
        for (int t = 0; t <= B_; ++t) {
            Score best = 0;
            for (int s = 0; s <= t; ++s) best = std::max(best, gain[h][s] + ksuf_[h + 1][t - s]);
            ksuf_[h][t] = best;
        }
    tables_ok_ = true;
}

Score BranchBound::superset_bound(int first, int r) const {
    if (!tables_ok_) return kInf;
    const Score now = objective();
    if (first >= static_cast<int>(mov_.size())) return now;
    const int hc = mov_[first].host;
    const int base_first = host_first_[hc], n = host_end_[hc] - base_first;
    std::uint64_t removed = 0;
    for (int pos : chosen_)
        if (mov_[pos].host == hc) removed |= std::uint64_t{1} << mov_[pos].local;
    const auto& tab = ftab_[hc];
    const auto it0 = tab.find(removed);
    if (it0 == tab.end()) return kInf;  // cannot happen: |removed| <= B
    const Score base = it0->second;
    std::vector<Score> g(r + 1, 0);
    auto rec = [&](auto&& self, int start, std::uint64_t mask, int depth) -> void {
        if (depth > 0) {
            const auto it = tab.find(mask);
            if (it != tab.end()) g[depth] = std::max(g[depth], it->second - base);
        }
        if (depth == r) return;
        for (int l = start; l < n; ++l) self(self, l + 1, mask | (std::uint64_t{1} << l), depth + 1);
    };
    rec(rec, mov_[first].local, removed, 0);
    Score best = 0;
    for (int t = 0; t <= r; ++t) {
        if (t > 0) g[t] = std::max(g[t], g[t - 1]);
        best = std::max(best, g[t] + ksuf_[hc + 1][r - t]);
    }
    return now + best;
}

void BranchBound::warm_start() {
    SearchState s(m_);
    inc_ = s.objective();
    if (prm_.warm_start_evaluations < 0 || B_ == 0) return;
    std::vector<Placement> start = exact_warm_start(m_, prm_.warm_start_evaluations, prm_.seed, prm_.time_limit_s);
    // The incumbent is what a plan reaches: the end state of the builder's ordered prefix.
    if (prm_.orderable_only) start = plan_end_state(m_, build_plan(m_, start));
    s.set_placements(start);
    if (links_) {
        // The searches obey the filter; a start that breaks it would make the incumbent infeasible.
        std::vector<int> host;
        std::vector<NodeMask> mask;
        s.placement_arrays(host, mask);
        if (!links_->violation(p_, PlacementView{host, mask}).empty()) return;
    }
    if (s.objective() > inc_) {
        inc_ = s.objective();
        best_ = start;
    }
}

std::vector<Placement> BranchBound::leaf() const {
    std::vector<Placement> out;
    for (std::size_t k = 0; k < chosen_.size(); ++k) {
        const Movable& mv = mov_[chosen_[k]];
        Placement pl;
        pl.vm = mv.vm;
        pl.host = dest_host_[k];
        pl.pnuma = m_.evaluator(type_[pl.host], mv.flavor).placements()[dest_emb_[k]].map;
        out.push_back(pl);
    }
    return out;
}

bool BranchBound::orderable(const std::vector<Placement>& placements) {
    if (!prm_.orderable_only) return true;
    // The ordering search stops at the time limit too (then undecided: not proven).
    const auto deadline = deadline_after(t0_, prm_.time_limit_s);
    const OrderResult o = find_order(m_, placements, prm_.max_order_expansions, deadline);
    if (o.status == OrderStatus::Unknown) order_unknown_ = true;
    return o.status == OrderStatus::Found;
}

void BranchBound::record() {
    inc_ = objective();
    best_ = leaf();
}

Score BranchBound::landing_bound(const std::vector<int>& ks, const std::vector<Score>& loss) const {
    // loss[idx * H + h], idx into ks. Minimum over assignments of sum_h max loss on h.
    const int m = static_cast<int>(ks.size());
    if (m == 1 || m > 8) {
        Score lb = 0;
        for (int a = 0; a < m; ++a) {
            Score best = kInf;
            for (int h = 0; h < H_; ++h) best = std::min(best, loss[static_cast<std::size_t>(a) * H_ + h]);
            lb = std::max(lb, best);
        }
        return lb;
    }
    const int full = (1 << m) - 1;
    std::vector<Score> g(full + 1, kInf), ng(full + 1), c(full + 1);
    g[0] = 0;
    for (int h = 0; h < H_; ++h) {
        c[0] = 0;
        for (int x = 1; x <= full; ++x) {
            const int low = std::countr_zero(static_cast<unsigned>(x));
            c[x] = std::max(c[x & (x - 1)], loss[static_cast<std::size_t>(low) * H_ + h]);
        }
        for (int s = 0; s <= full; ++s) {
            Score best = g[s];  // X = empty
            for (int x = s; x > 0; x = (x - 1) & s) best = std::min(best, g[s ^ x] + c[x]);
            ng[s] = best;
        }
        std::swap(g, ng);
    }
    return g[full];
}

std::vector<int> BranchBound::representatives(std::uint64_t unplaced) const {
    const bool sym = prm_.symmetry;
    std::vector<int> rep(H_);
    std::vector<char> origin(H_, 0);
    for (std::uint64_t u = unplaced; u; u &= u - 1) origin[mov_[chosen_[std::countr_zero(u)]].host] = 1;
    for (int h = 0; h < H_; ++h) {
        rep[h] = h;
        if (!sym || links_ || origin[h]) continue;
        const std::size_t len = static_cast<std::size_t>(n_[h]) * R_;
        for (int g = 0; g < h; ++g)
            if (rep[g] == g && !origin[g] && type_[g] == type_[h] &&
                std::equal(free_.begin() + static_cast<std::ptrdiff_t>(off_[g]), free_.begin() + static_cast<std::ptrdiff_t>(off_[g] + len),
                           free_.begin() + static_cast<std::ptrdiff_t>(off_[h]))) {
                rep[h] = g;
                break;
            }
    }
    return rep;
}

bool BranchBound::unplaced_options(const std::vector<int>& ks, const std::vector<int>& rep, std::vector<std::vector<Option>>& opts,
                                   std::vector<Score>& loss, std::vector<int>& nopt) {
    const int mcount = static_cast<int>(ks.size());
    for (int a = 0; a < mcount; ++a) {
        const int pos = chosen_[ks[a]];
        for (int h = 0; h < H_; ++h) {
            auto& o = opts[static_cast<std::size_t>(a) * H_ + h];
            if (rep[h] != h) {
                loss[static_cast<std::size_t>(a) * H_ + h] = loss[static_cast<std::size_t>(a) * H_ + rep[h]];
                nopt[a] += static_cast<int>(opts[static_cast<std::size_t>(a) * H_ + rep[h]].size());
                continue;
            }
            if (links_ && !link_trial(mov_[pos].vm, h))
                o.clear();  // some link over its limit already: never feasible below this node
            else if (touch_[h] == 0 && h != mov_[pos].host)
                o = opts0_[static_cast<std::size_t>(pos) * H_ + h];
            else
                options_on(pos, h, o);
            Score l = kInf;
            for (const Option& op : o) l = std::min(l, -op.delta);
            loss[static_cast<std::size_t>(a) * H_ + h] = l;
            nopt[a] += static_cast<int>(o.size());
        }
        if (nopt[a] == 0) return false;  // free space only shrinks from here: it never fits
    }
    return true;
}

std::vector<Option> BranchBound::candidates(int a_sel, int prev_host, int prev_emb, const std::vector<int>& rep,
                                            const std::vector<std::vector<Option>>& opts) const {
    const bool sym = prm_.symmetry;
    std::vector<Option> cand;
    std::vector<char> seen(H_, 0);
    for (int h = 0; h < H_; ++h) {
        if (sym && h < prev_host) continue;
        if (sym && h > prev_host) {
            if (seen[rep[h]]) continue;
            seen[rep[h]] = 1;
        }
        for (Option op : opts[static_cast<std::size_t>(a_sel) * H_ + rep[h]]) {
            if (sym && h == prev_host && op.emb < prev_emb) continue;
            op.host = h;
            cand.push_back(op);
        }
    }
    std::stable_sort(cand.begin(), cand.end(), [](const Option& x, const Option& y) { return x.delta > y.delta; });
    return cand;
}

void BranchBound::search(std::uint64_t unplaced, int last_k) {
    if (tick()) return;
    const Score obj = objective();
    if (unplaced == 0) {
        // Only states some plan within the budget reaches count (the bounds stay valid: they
        // bound every final state, orderable or not).
        if (obj > inc_ && orderable(leaf())) record();
        return;
    }
    if (obj <= inc_) return;

    // Hosts that are the snapshot host of an unplaced VM are never interchangeable (going back
    // there is restricted); others are if type and free amounts are equal.
    const std::vector<int> rep = representatives(unplaced);

    std::vector<int> ks;
    for (std::uint64_t u = unplaced; u; u &= u - 1) ks.push_back(std::countr_zero(u));
    const int mcount = static_cast<int>(ks.size());
    std::vector<std::vector<Option>> opts(static_cast<std::size_t>(mcount) * H_);
    std::vector<Score> loss(static_cast<std::size_t>(mcount) * H_, kInf);
    std::vector<int> nopt(mcount, 0);
    if (!unplaced_options(ks, rep, opts, loss, nopt)) return;
    if (obj - landing_bound(ks, loss) <= inc_) return;

    // Branching VM: continue the class of the last placed VM, else the most constrained class head.
    const bool sym = prm_.symmetry;
    int a_sel = -1, prev_host = -1, prev_emb = -1;
    if (sym && last_k >= 0 && last_k + 1 < static_cast<int>(chosen_.size()) && ((unplaced >> (last_k + 1)) & 1U) &&
        mov_[chosen_[last_k + 1]].cls == mov_[chosen_[last_k]].cls) {
        for (int a = 0; a < mcount; ++a)
            if (ks[a] == last_k + 1) a_sel = a;
        prev_host = dest_host_[last_k];
        prev_emb = dest_emb_[last_k];
    } else {
        for (int a = 0; a < mcount; ++a) {
            const int k = ks[a];
            if (sym && k > 0 && mov_[chosen_[k - 1]].cls == mov_[chosen_[k]].cls) continue;  // not a class head
            if (a_sel < 0 || nopt[a] < nopt[a_sel]) a_sel = a;
        }
    }
    const int k_sel = ks[a_sel];
    const int pos = chosen_[k_sel];
    const std::vector<Option> cand = candidates(a_sel, prev_host, prev_emb, rep, opts);
    for (const Option& op : cand) {
        if (obj + op.delta <= inc_) break;  // best first: the rest cannot beat the incumbent
        place(pos, op.host, op.emb);
        dest_host_[k_sel] = op.host;
        dest_emb_[k_sel] = op.emb;
        search(unplaced & ~(std::uint64_t{1} << k_sel), k_sel);
        unplace(pos, op.host, op.emb);
        if (stopped_) return;
    }
}

void BranchBound::removal(int first, Amount ram) {
    if (!chosen_.empty()) {
        dest_host_.assign(chosen_.size(), -1);
        dest_emb_.assign(chosen_.size(), -1);
        search((std::uint64_t{1} << chosen_.size()) - 1, -1);
    } else if (tick()) {
        return;
    }
    if (stopped_) return;
    const int r = B_ - static_cast<int>(chosen_.size());
    if (r == 0) return;
    if (superset_bound(first, r) <= inc_) return;
    for (int pos = first; pos < static_cast<int>(mov_.size()); ++pos) {
        if (prm_.symmetry && pos > first && mov_[pos].cls == mov_[pos - 1].cls) continue;  // identical VMs: a prefix of the class
        if (ram + mov_[pos].ram > RB_) continue;
        take_off(pos);
        chosen_.push_back(pos);
        removal(pos + 1, ram + mov_[pos].ram);
        chosen_.pop_back();
        put_back(pos);
        if (stopped_) return;
    }
}

ExactResult BranchBound::run() {
    t0_ = std::chrono::steady_clock::now();
    ExactResult res;
    warm_start();
    res.start_objective = to_objective(inc_);
    build_tables();
    if (B_ > 0) removal(0, 0);
    res.nodes = nodes_;
    res.proven = !stopped_ && !order_unknown_;
    res.stopped_by = res.proven ? StopReason::ProvenOptimal : stopped_.value_or(StopReason::OrderingSearchLimit);
    // Unproven: the superset tables' root bound if they were built (objective + best gain of B
    // removals), else none.
    if (res.proven)
        res.bound = to_objective(inc_);
    else if (tables_ok_)
        res.bound = to_objective(std::max(inc_, objective() + ksuf_[0][B_]));
    else
        res.bound = std::numeric_limits<double>::infinity();
    res.best = best_;

    // Independent re-evaluation through SearchState: value and budget, in exact integers.
    SearchState s(m_);
    s.set_placements(best_);
    res.score = s.objective();
    res.objective = to_objective(res.score);
    if (res.score != inc_) throw std::logic_error("exact: branch-and-bound value differs from the SearchState re-evaluation");
    if (const std::string why = first_rule_violation(m_, s); !why.empty())
        throw std::logic_error("exact: branch-and-bound optimum breaks the " + why);
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    return res;
}

}  // namespace

ExactResult solve_exact_bb(const CapacityModel& model, const BranchBoundParams& params) {
    // The search enumerates moved VMs as budget users (a free remap would be a move outside it),
    // and models VMCAP under the built-in rules and the link-capacity rule only.
    check_exact_scope(model);
    BranchBound bb(model, params);
    return bb.run();
}

}  // namespace vmcap
