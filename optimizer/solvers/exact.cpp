#include "optimizer/solvers/exact.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>

#include <coin/CbcModel.hpp>
#include <coin/CbcSolver.hpp>
#include <coin/CoinMessageHandler.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/CoinPackedVector.hpp>
#include <coin/OsiClpSolverInterface.hpp>

#include "evaluators/rules/link_filter.h"
#include "evaluators/closed_forms/placements.h"
#include "optimizer/search/annealing.h"
#include "optimizer/search/greedy.h"

namespace vmcap {

const LinkCapacityFilter* check_exact_scope(const CapacityModel& model) {
    if (!model.problem().constraints.remap_counts_as_migration)
        throw std::invalid_argument("the exact solvers need constraints.remap_counts_as_migration = true (free remaps are not modelled)");
    if (model.has_terms()) {
        std::string msg = "the exact solvers optimise VMCAP capacity only: objective term '";
        msg += model.terms().front()->name();
        msg += "' is not modelled (no further objective terms: ram-cost, locality-weight, bandwidth-capacity)";
        throw std::invalid_argument(msg);
    }
    if (model.fixes_nodes())
        throw std::invalid_argument("the exact solvers choose the destination pNUMA nodes freely: destination-node rule '" +
                                    std::string(model.node_rule().name()) + "' is not modelled");
    const LinkCapacityFilter* links = model.find<LinkCapacityFilter>();
    for (const auto& f : model.filters())
        if (f.get() != links) {  // the MILP's link rows and the B&B's link check model it
            std::string msg = "the exact solvers model the built-in rules and the network's link-capacity rule only: feasibility filter '";
            msg += f->name();
            msg += "' is not modelled";
            throw std::invalid_argument(msg);
        }
    return links;
}

namespace {

/** Column bookkeeping of the MILP. */
struct Columns {
    std::vector<double> lb, ub, obj;
    std::vector<char> integer;
    int add(double l, double u, double o, bool is_int) {
        lb.push_back(l);
        ub.push_back(u);
        obj.push_back(o);
        integer.push_back(is_int ? 1 : 0);
        return static_cast<int>(lb.size()) - 1;
    }
    int size() const { return static_cast<int>(lb.size()); }
};

/** One VM kept individually: x[v,h,S] over its destinations (the `stay` one is its snapshot placement). */
struct XCol {
    int vm, host, emb;
    bool stay;
};

/** Identical migratable VMs (flavor, snapshot host, node set), modelled by their leaving count. */
struct VmClass {
    int flavor = -1, host = -1;
    NodeMask mask = 0;
    std::vector<int> vms;  ///< increasing VM index
    int col = -1;          ///< L: how many of them leave
};

/** n[f,h,S] (landing VMs of a class flavor) or y[t,h,S] (VMCAP packing of target t). */
struct CountCol {
    int flavor_or_target, host, emb;
};

/** Link-rule auxiliary column (exact.h): d (a vlink's ends split by a host) or w (switch pair). */
struct AuxCol {
    enum Kind { kEither, kFirst, kSecond, kPair };
    Kind kind = kEither;  ///< d: |u[a,h] - u[b,h]|, its positive part, its negative part; w[s,t]
    int a = -1, b = -1;   ///< the vlink's VMs
    int host = -1;        ///< d: the host
    int s = -1, t = -1;   ///< w: switches of a and b
};

/** A row of the link rule's auxiliaries: lb <= sum coef x col <= ub. */
struct AuxRow {
    std::vector<std::pair<int, double>> coefs;
    double lb = -COIN_DBL_MAX, ub = COIN_DBL_MAX;
};

/**
 * The loads of a vlink between hosts ha != hb, split as NetworkRoutes::for_each_share(ha, hb)
 * = first[ha] + second[hb] + pair[(switch(ha), switch(hb))] (the last absent when the switches
 * are equal). Loads are (link, micro-units per Mbps), sorted by link.
 */
struct RouteParts {
    std::vector<std::vector<std::pair<int, std::int64_t>>> first, second;           ///< [host]
    std::map<std::pair<int, int>, std::vector<std::pair<int, std::int64_t>>> pair;  ///< switch pairs
};

/**
 * Calls f(ha, hb, loads) for every ordered pair of distinct hosts, with the loads of a vlink
 * between them per Mbps (NetworkRoutes::for_each_share; a link it names twice summed), sorted by
 * link. O(H^2 x route length x log).
 */
template <class F>
void for_each_route(const Problem& p, const NetworkRoutes& routes, F&& f) {
    const int H = static_cast<int>(p.hosts.size());
    std::vector<std::pair<int, std::int64_t>> loads;
    for (int ha = 0; ha < H; ++ha)
        for (int hb = 0; hb < H; ++hb) {
            if (ha == hb) continue;
            loads.clear();
            routes.for_each_share(ha, hb, [&](int link, std::int64_t units) { loads.emplace_back(link, units); });
            std::sort(loads.begin(), loads.end());
            std::size_t n = 0;
            for (std::size_t k = 0; k < loads.size(); ++k) {
                if (n > 0 && loads[n - 1].first == loads[k].first)
                    loads[n - 1].second += loads[k].second;
                else
                    loads[n++] = loads[k];
            }
            loads.resize(n);
            f(ha, hb, static_cast<const std::vector<std::pair<int, std::int64_t>>&>(loads));
        }
}

/**
 * Splits every route into RouteParts, through for_each_share only (no assumption about how links
 * are numbered or directed): a link loaded only by host pairs that all contain one host h is h's
 * (first when h is the vlink's first end, second when it is the second), any other link belongs to
 * the switch pairs. Checked on every ordered host pair: the parts must add up to the route
 * exactly. O(H^2 x route length). Throws std::invalid_argument if they do not (a routing the
 * MILP does not model: the branch and bound still applies).
 */
RouteParts split_routes(const Problem& p, const NetworkRoutes& routes) {
    const int H = static_cast<int>(p.hosts.size());
    const int NL = routes.num_links();
    const std::vector<int>& sw = p.network.host_switch;
    // Pass 1: the hosts common to every pair loading a link (-1: none; two: only one pair seen).
    std::vector<int> c1(NL, -2), c2(NL, -2);  // -2: no pair loads the link yet
    for_each_route(p, routes, [&](int ha, int hb, const std::vector<std::pair<int, std::int64_t>>& loads) {
        for (const auto& lu : loads) {
            const int link = lu.first;
            if (c1[link] == -2) {
                c1[link] = ha;
                c2[link] = hb;
                continue;
            }
            if (c1[link] != ha && c1[link] != hb) c1[link] = -1;
            if (c2[link] != ha && c2[link] != hb) c2[link] = -1;
        }
    });
    std::vector<int> owner(NL, -1);  // the host a host link belongs to, -1: a switch link
    for (int l = 0; l < NL; ++l) owner[l] = c1[l] >= 0 ? c1[l] : c2[l] >= 0 ? c2[l] : -1;
    // Pass 2: values and counts.
    RouteParts parts;
    parts.first.resize(H);
    parts.second.resize(H);
    std::map<std::pair<int, int>, std::int64_t> host_pairs;                                      // (s, t) -> ordered host pairs
    std::map<std::tuple<int, int, int>, std::pair<std::int64_t, std::int64_t>> sw_val;           // (s, t, link) -> (units, pairs)
    std::map<std::pair<int, int>, std::pair<std::int64_t, std::int64_t>> first_val, second_val;  // (host, link) -> (units, pairs)
    auto fail = [] {
        throw std::invalid_argument(
            "the MILP needs routes that split into per-host parts and switch-pair parts; this network's do not (use --method bb)");
    };
    for_each_route(p, routes, [&](int ha, int hb, const std::vector<std::pair<int, std::int64_t>>& loads) {
        ++host_pairs[{sw[ha], sw[hb]}];
        for (const auto& [link, units] : loads) {
            const int o = owner[link];
            std::pair<std::int64_t, std::int64_t>* v = nullptr;
            if (o < 0) {
                if (sw[ha] == sw[hb]) fail();
                v = &sw_val.try_emplace({sw[ha], sw[hb], link}, units, 0).first->second;
            } else if (o == ha) {
                v = &first_val.try_emplace({ha, link}, units, 0).first->second;
            } else {
                v = &second_val.try_emplace({hb, link}, units, 0).first->second;
            }
            if (v->first != units) fail();
            ++v->second;
        }
    });
    for (const auto& [key, v] : first_val) {
        if (v.second != H - 1) fail();
        parts.first[key.first].emplace_back(key.second, v.first);
    }
    for (const auto& [key, v] : second_val) {
        if (v.second != H - 1) fail();
        parts.second[key.first].emplace_back(key.second, v.first);
    }
    for (const auto& [key, v] : sw_val) {
        const auto [s, t, link] = key;
        if (v.second != host_pairs.at({s, t})) fail();
        parts.pair[{s, t}].emplace_back(link, v.first);
    }
    return parts;
}

}  // namespace

std::vector<Placement> exact_warm_start(const CapacityModel& model, std::int64_t evaluations, std::uint64_t seed, double time_limit_s) {
    SearchParams sp;
    sp.quiet = true;
    sp.seed = seed;
    sp.threads = 1;
    sp.time_limit_s = std::max(0.1, time_limit_s / 4);
    SearchResult r = greedy(model, sp);
    if (evaluations > 0) {
        // Two short runs from greedy's plan, with the default move mix and with same-host remaps
        // off (the default mix before remaps joined it), the better kept (the first on a tie): a
        // stronger incumbent shortens the proofs, and one run alone sometimes stalls below the
        // other (row 33 of vmcap_quality: 38 instead of 40, its proof 1.6 s -> 177 s).
        sp.start = r.best;
        sp.max_evaluations = evaluations;
        sp.time_limit_s = std::max(0.1, time_limit_s / 8);
        SearchResult a = anneal(model, sp);
        sp.mix.set("remap", 0.0);
        SearchResult b = anneal(model, sp);
        r = b.objective_best > a.objective_best ? std::move(b) : std::move(a);
    }
    return r.best;
}

namespace {

/**
 * The MILP of solve_exact (exact.h), built in stages: columns x (per-VM), m (host-level landings),
 * L and n (classes of identical VMs), y (VMCAP packings), the link rule's auxiliaries, then the
 * rows, gathered and packed once. Members keep the names the model's description uses.
 */
struct MilpBuild {
    MilpBuild(const CapacityModel& model, const MilpParams& prm, const LinkCapacityFilter* links);

    const CapacityModel& model;
    const Problem& p;
    const MilpParams& prm;
    const LinkCapacityFilter* links;
    int H, R, T, V;
    std::vector<std::vector<Amount>> fixed;  ///< [h][node * R + r] usage of the non-migratable VMs
    std::int64_t budget = 0;                 ///< effective migration budget (count and RAM)
    int L = 0;                               ///< links (arcs) of the network
    std::vector<char> binds;                 ///< [link] may reach its allowance
    bool any_binds = false;
    std::vector<char> per_vm;  ///< [vm] keeps per-VM columns

    Columns cols;
    std::vector<XCol> xcols;
    std::vector<int> xcol_index;            ///< [k] column of xcols[k]
    std::vector<std::vector<int>> vm_cols;  ///< [vm] indices into xcols
    bool host_level = false;
    std::vector<std::int64_t> host_level_vms;  ///< [flavor] VMs with host-level columns
    std::vector<CountCol> mcols;
    std::vector<int> mcol_index;
    std::map<std::tuple<int, int, NodeMask>, int> mcol_of;  ///< (flavor, host, mask) -> index into mcols
    std::vector<VmClass> classes;
    std::vector<int> class_of;
    std::vector<std::int64_t> leavers_ub;  ///< [flavor] most VMs of it that can leave
    std::vector<CountCol> ncols;
    std::vector<int> ncol_index;
    std::map<std::tuple<int, int, NodeMask>, int> ncol_of;  ///< (flavor, host, mask) -> index into ncols
    std::vector<CountCol> ycols;
    std::vector<int> ycol_index;
    std::map<std::tuple<int, int, NodeMask>, int> ycol_of;  ///< (target, host, mask) -> index into ycols
    std::vector<AuxCol> aux;
    std::vector<int> aux_index;
    std::vector<AuxRow> aux_rows;
    std::vector<std::map<int, double>> link_coef;  ///< [link] column -> micro-units
    std::vector<double> link_const;                ///< [link] load of the vlinks between fixed VMs
    int ncol = 0;

    // Rows are gathered, then packed once: CoinPackedMatrix::appendRow copies the whole matrix
    // whenever it grows, quadratic in the rows (5.5 s of 7 s on 12 hosts with 96 vlinks).
    std::vector<CoinBigIndex> row_start{0};
    std::vector<int> row_index;
    std::vector<double> row_value;
    std::vector<double> rowlb, rowub;

    const std::vector<Embedding>& placements_of(int host, int flavor) const {
        return model.evaluator(p.hosts[host].type, flavor).placements();
    }
    bool fits_empty(int flavor, int host, const Embedding& e) const;
    Amount copies_ub(int flavor, int host, const Embedding& e) const;
    void effective_budget();
    void find_binding_links();
    void choose_per_vm();
    void add_vm_columns();
    void add_class_columns();
    void add_packing_columns();
    /** Loads on the links that may bind (the others get no row). */
    std::vector<std::pair<int, std::int64_t>> binding(const std::vector<std::pair<int, std::int64_t>>& loads) const;
    int new_aux(AuxCol a);
    void add_link_columns();
    void add_vlink_columns(const Vlink& vl, const RouteParts& parts, bool switch_binds);
    void add_host_parts(const Vlink& vl, double mbps, const RouteParts& parts);
    void add_switch_parts(const Vlink& vl, double mbps, const RouteParts& parts);
    void add_row(const CoinPackedVector& row, double lb, double ub);
    void add_assignment_rows();
    void add_capacity_rows();
    void add_budget_rows();
    void add_link_rows();
    /** The column values of a final state (the start CBC is given): per-VM x, class L and n, a
     *  VMCAP packing y of every host (vmcap_placements), the link auxiliaries at their exact
     *  values. Empty if some value has no column (cannot happen for a feasible state). */
    std::vector<double> columns_of(const SearchState& s) const;
    /** The migrated VMs' placements of a CBC solution `x`, sorted by VM. */
    std::vector<Placement> decode(const double* x) const;
    void decode_per_vm(const double* x, std::vector<Placement>& best, std::map<std::pair<int, int>, std::vector<int>>& movers) const;
    void decode_host_level(const double* x, const std::map<std::pair<int, int>, std::vector<int>>& movers,
                           std::vector<Placement>& best) const;
    void decode_classes(const double* x, std::vector<Placement>& best) const;
};

MilpBuild::MilpBuild(const CapacityModel& m, const MilpParams& params, const LinkCapacityFilter* l)
    : model(m),
      p(m.problem()),
      prm(params),
      links(l),
      H(static_cast<int>(p.hosts.size())),
      R(p.num_resources()),
      T(m.num_targets()),
      V(static_cast<int>(p.vms.size())) {
    // Usage of the non-migratable VMs: constant.
    fixed.resize(static_cast<std::size_t>(H));
    for (int h = 0; h < H; ++h) fixed[h].assign(p.host_type_of(h).node_capacity.size(), 0);
    for (const Vm& vm : p.vms) {
        if (vm.migratable) continue;
        const Flavor& fl = p.flavors[vm.flavor];
        for (int i = 0; i < fl.num_vnuma(); ++i)
            for (int r = 0; r < R; ++r) fixed[vm.host][vm.pnuma[i] * R + r] += fl.node_demand[r];
    }
    effective_budget();
    find_binding_links();
    choose_per_vm();
    add_vm_columns();
    add_class_columns();
    add_packing_columns();
    add_link_columns();
    ncol = cols.size();
    add_assignment_rows();
    add_capacity_rows();
    add_budget_rows();
    add_link_rows();
}

bool MilpBuild::fits_empty(int flavor, int host, const Embedding& e) const {
    const HostType& ht = p.host_type_of(host);
    const Flavor& fl = p.flavors[flavor];
    for (int i = 0; i < fl.num_vnuma(); ++i)
        for (int r = 0; r < R; ++r)
            if (fixed[host][e.map[i] * R + r] + fl.node_demand[r] > ht.node_capacity[e.map[i] * R + r]) return false;
    return true;
}

// Most copies of `flavor` that placement e of host h can hold beside the non-migratable VMs.
Amount MilpBuild::copies_ub(int flavor, int host, const Embedding& e) const {
    Amount ub = std::numeric_limits<Amount>::max();
    const HostType& ht = p.host_type_of(host);
    const Flavor& fl = p.flavors[flavor];
    for (int i = 0; i < fl.num_vnuma(); ++i)
        for (int r = 0; r < R; ++r)
            if (fl.node_demand[r] > 0)
                ub = std::min(ub, (ht.node_capacity[e.map[i] * R + r] - fixed[host][e.map[i] * R + r]) / fl.node_demand[r]);
    return ub;
}

void MilpBuild::effective_budget() {
    // Effective budget: migrations, and how many of the smallest VMs the RAM budget admits.
    budget = p.constraints.max_migrations;
    {
        std::vector<Amount> rams;
        for (const Vm& vm : p.vms)
            if (vm.migratable) rams.push_back(p.flavors[vm.flavor].demand[kRamMib]);
        std::sort(rams.begin(), rams.end());
        Amount sum = 0;
        std::int64_t fit = 0;
        for (Amount r : rams) {
            if (sum + r > p.constraints.max_migrated_ram_mib) break;
            sum += r;
            ++fit;
        }
        budget = std::max<std::int64_t>(0, std::min(budget, fit));
    }
}

void MilpBuild::find_binding_links() {
    // Links that may bind: a vlink loads a link beyond its snapshot share only if one of its ends
    // moves, by at most the most it puts on the link from any two hosts (per Mbps), so no link
    // can carry more than its snapshot load plus that x the vlink bandwidth of the `budget`
    // migratable VMs with the most. A link
    // whose bound fits its allowance needs no row, and without any such row the link rule is
    // inactive: no auxiliaries and no per-VM columns (e.g. the generator's small vlinks).
    L = links ? links->routes().num_links() : 0;
    binds.assign(static_cast<std::size_t>(L), 0);
    if (links) {
        std::vector<std::int64_t> incident(V, 0);
        for (const Vlink& vl : p.vlinks) {
            incident[vl.a] += vl.mbps;
            incident[vl.b] += vl.mbps;
        }
        std::vector<std::int64_t> movable;
        for (int v = 0; v < V; ++v)
            if (p.vms[v].migratable && incident[v] > 0) movable.push_back(incident[v]);
        std::sort(movable.begin(), movable.end(), std::greater<>());
        double moved = 0;  // doubles: no overflow, and the comparison has slack to spare
        for (std::size_t k = 0; k < movable.size() && static_cast<std::int64_t>(k) < budget; ++k) moved += static_cast<double>(movable[k]);
        // Most micro-units per Mbps a vlink puts on each link, over every pair of hosts.
        std::vector<std::int64_t> most(L, 0);
        if (moved > 0)
            for_each_route(p, links->routes(), [&](int, int, const std::vector<std::pair<int, std::int64_t>>& loads) {
                for (const auto& [link, units] : loads) most[link] = std::max(most[link], units);
            });
        for (int l = 0; l < L; ++l) {
            const double extra = moved * static_cast<double>(most[l]);
            binds[l] = static_cast<double>(links->snapshot_loads()[l]) + extra > static_cast<double>(links->allowance(l, 0));
            any_binds = any_binds || binds[l];
        }
    }
}

void MilpBuild::choose_per_vm() {
    // Which migratable VMs keep per-VM columns: all of them without aggregation; with it, those
    // with a vlink when the link rule may bind (the link rows need each one's host); the others
    // form classes.
    per_vm.assign(static_cast<std::size_t>(V), 0);
    for (int v = 0; v < V; ++v) per_vm[v] = p.vms[v].migratable && !prm.aggregate;
    if (prm.aggregate && any_binds)
        for (const Vlink& vl : p.vlinks) {
            per_vm[vl.a] = p.vms[vl.a].migratable;
            per_vm[vl.b] = p.vms[vl.b].migratable;
        }
}

void MilpBuild::add_vm_columns() {
    // Aggregated model: a VM with a vlink gets one column per host it may move to (emb = -1), its
    // placement there taken from the landing counts m[f,h,S] of its flavor and host (the link rows
    // need only its host): H + 1 binaries per VM instead of one per host and placement.
    vm_cols.resize(static_cast<std::size_t>(V));
    host_level = prm.aggregate;
    host_level_vms.assign(p.flavors.size(), 0);
    for (int v = 0; v < V; ++v) {
        if (!per_vm[v]) continue;
        const Vm& vm = p.vms[v];
        const NodeMask orig_mask = node_mask(vm.pnuma.data(), p.flavors[vm.flavor].num_vnuma());
        if (host_level) ++host_level_vms[vm.flavor];
        for (int h = 0; h < H; ++h) {
            const auto& pl = placements_of(h, vm.flavor);
            bool lands = false;  // host_level: some placement of h other than its own fits
            for (std::size_t e = 0; e < pl.size(); ++e) {
                const bool stay = h == vm.host && pl[e].mask == orig_mask;
                if (!stay && (budget == 0 || !fits_empty(vm.flavor, h, pl[e]))) continue;
                if (host_level && !stay) {
                    lands = true;
                    continue;
                }
                vm_cols[v].push_back(static_cast<int>(xcols.size()));
                xcols.push_back(XCol{v, h, static_cast<int>(e), stay});
                xcol_index.push_back(cols.add(0, 1, 0, true));
            }
            if (lands) {
                vm_cols[v].push_back(static_cast<int>(xcols.size()));
                xcols.push_back(XCol{v, h, -1, false});
                xcol_index.push_back(cols.add(0, 1, 0, true));
            }
        }
    }
    // m[f,h,S]: VMs of flavor f with a host-level column that land on host h, placement S.
    for (std::size_t f = 0; f < p.flavors.size(); ++f) {
        if (host_level_vms[f] == 0 || budget == 0) continue;
        const int fi = static_cast<int>(f);
        for (int h = 0; h < H; ++h) {
            const auto& pl = placements_of(h, fi);
            for (std::size_t e = 0; e < pl.size(); ++e) {
                if (!fits_empty(fi, h, pl[e])) continue;
                const Amount ub = std::min<Amount>({copies_ub(fi, h, pl[e]), host_level_vms[f], budget});
                mcol_of.emplace(std::make_tuple(fi, h, pl[e].mask), static_cast<int>(mcols.size()));
                mcols.push_back(CountCol{fi, h, static_cast<int>(e)});
                mcol_index.push_back(cols.add(0, static_cast<double>(ub), 0, true));
            }
        }
    }
}

void MilpBuild::add_class_columns() {
    // Classes (ordered by flavor, host, mask: deterministic) and their leaving counts L.
    class_of.assign(static_cast<std::size_t>(V), -1);
    {
        std::map<std::tuple<int, int, NodeMask>, int> index;
        for (int v = 0; v < V; ++v) {
            const Vm& vm = p.vms[v];
            if (!vm.migratable || per_vm[v]) continue;
            const auto key = std::make_tuple(vm.flavor, vm.host, node_mask(vm.pnuma.data(), p.flavors[vm.flavor].num_vnuma()));
            index.emplace(key, 0);
        }
        for (auto& [key, idx] : index) {
            idx = static_cast<int>(classes.size());
            VmClass c;
            c.flavor = std::get<0>(key);
            c.host = std::get<1>(key);
            c.mask = std::get<2>(key);
            classes.push_back(c);
        }
        for (int v = 0; v < V; ++v) {
            const Vm& vm = p.vms[v];
            if (!vm.migratable || per_vm[v]) continue;
            const int c = index.at(std::make_tuple(vm.flavor, vm.host, node_mask(vm.pnuma.data(), p.flavors[vm.flavor].num_vnuma())));
            classes[c].vms.push_back(v);
            class_of[v] = c;
        }
    }
    leavers_ub.assign(p.flavors.size(), 0);
    for (VmClass& c : classes) {
        const Amount ram = p.flavors[c.flavor].demand[kRamMib];
        std::int64_t ub = std::min<std::int64_t>(static_cast<std::int64_t>(c.vms.size()), budget);
        if (ram > 0) ub = std::min<std::int64_t>(ub, p.constraints.max_migrated_ram_mib / ram);
        c.col = cols.add(0, static_cast<double>(ub), 0, true);
        leavers_ub[c.flavor] = std::min(budget, leavers_ub[c.flavor] + ub);
    }
    // n[f,h,S]: leaving VMs of flavor f that land on (h, S).
    for (std::size_t f = 0; f < p.flavors.size(); ++f) {
        if (leavers_ub[f] == 0) continue;
        const int fi = static_cast<int>(f);
        for (int h = 0; h < H; ++h) {
            const auto& pl = placements_of(h, fi);
            for (std::size_t e = 0; e < pl.size(); ++e) {
                if (!fits_empty(fi, h, pl[e])) continue;
                const Amount ub = std::min<Amount>(copies_ub(fi, h, pl[e]), leavers_ub[f]);
                ncol_of.emplace(std::make_tuple(fi, h, pl[e].mask), static_cast<int>(ncols.size()));
                ncols.push_back(CountCol{fi, h, static_cast<int>(e)});
                ncol_index.push_back(cols.add(0, static_cast<double>(ub), 0, true));
            }
        }
    }
}

void MilpBuild::add_packing_columns() {
    // y[t,h,S]: VMCAP packing of target t on host h.
    for (int j = 0; j < T; ++j) {
        const int f = model.target_flavor(j);
        for (int h = 0; h < H; ++h) {
            const auto& pl = placements_of(h, f);
            for (std::size_t e = 0; e < pl.size(); ++e) {
                if (!fits_empty(f, h, pl[e])) continue;
                ycol_of.emplace(std::make_tuple(j, h, pl[e].mask), static_cast<int>(ycols.size()));
                ycols.push_back(CountCol{j, h, static_cast<int>(e)});
                ycol_index.push_back(cols.add(0, static_cast<double>(copies_ub(f, h, pl[e])), model.target_weight(j), true));
            }
        }
    }
}

std::vector<std::pair<int, std::int64_t>> MilpBuild::binding(const std::vector<std::pair<int, std::int64_t>>& loads) const {
    std::vector<std::pair<int, std::int64_t>> kept;
    for (const auto& lu : loads)
        if (binds[lu.first]) kept.push_back(lu);
    return kept;
}

int MilpBuild::new_aux(AuxCol a) {
    aux.push_back(std::move(a));
    aux_index.push_back(cols.add(0, 1, 0, false));
    return aux_index.back();
}

// Link rule (exact.h), on the per-VM columns. A vlink with one end fixed loads each link
// linearly in the moving end's x. With both ends migratable, its loads split (RouteParts)
// into per-host parts, carried through d[e,h] >= u[a,h] - u[b,h] (and/or the reverse), and
// per switch pair parts, carried through w[e,s,t] (continuous) with sum_t w[e,s,t] = U[a,s]
// and sum_s w[e,s,t] = U[b,t] (U: u summed over the hosts on switch s). The link rows bound d
// only from above, so their values at an integer x (the positive parts) are feasible; w is
// fixed by its margins at an integer x (the indicator of the ends' switches), and its LP
// relaxation is the transportation polytope, far tighter than z >= U[a,s] + U[b,t] - 1.
void MilpBuild::add_link_columns() {
    link_coef.resize(static_cast<std::size_t>(L));
    link_const.assign(static_cast<std::size_t>(L), 0.0);
    if (!any_binds) return;
    const NetworkRoutes& routes = links->routes();
    bool both_move = false;
    for (const Vlink& vl : p.vlinks) both_move = both_move || (p.vms[vl.a].migratable && p.vms[vl.b].migratable);
    RouteParts parts = both_move ? split_routes(p, routes) : RouteParts{};
    bool switch_binds = false;  // some switch link may bind: the w are needed
    for (auto& [key, loads] : parts.pair) {
        loads = binding(loads);
        switch_binds = switch_binds || !loads.empty();
    }
    for (const Vlink& vl : p.vlinks) add_vlink_columns(vl, parts, switch_binds);
}

void MilpBuild::add_vlink_columns(const Vlink& vl, const RouteParts& parts, bool switch_binds) {
    const NetworkRoutes& routes = links->routes();
    const double mbps = static_cast<double>(vl.mbps);
    const bool ma = p.vms[vl.a].migratable, mb = p.vms[vl.b].migratable;
    const int ha0 = p.vms[vl.a].host, hb0 = p.vms[vl.b].host;
    if (!ma && !mb) {
        routes.for_each_share(ha0, hb0, [&](int link, std::int64_t units) { link_const[link] += mbps * static_cast<double>(units); });
        return;
    }
    if (ma != mb) {  // the route from the moving end's host, in the vlink's orientation
        const int mv = ma ? vl.a : vl.b, fixed_host = ma ? hb0 : ha0;
        for (int k : vm_cols[mv]) {
            const int c = xcol_index[k];
            const auto add = [&](int link, std::int64_t units) { link_coef[link][c] += mbps * static_cast<double>(units); };
            if (ma)
                routes.for_each_share(xcols[k].host, fixed_host, add);
            else
                routes.for_each_share(fixed_host, xcols[k].host, add);
        }
        return;
    }
    add_host_parts(vl, mbps, parts);
    if (switch_binds) add_switch_parts(vl, mbps, parts);
}

void MilpBuild::add_host_parts(const Vlink& vl, double mbps, const RouteParts& parts) {
    // Host parts: d >= u[a,h] - u[b,h] carries parts.first[h], d >= u[b,h] - u[a,h]
    // parts.second[h]; one column with both rows when they load the same links equally.
    for (int h = 0; h < H; ++h) {
        std::vector<std::pair<int, double>> diff;  // u[a,h] - u[b,h]
        for (int x : vm_cols[vl.a])
            if (xcols[x].host == h) diff.emplace_back(xcol_index[x], 1.0);
        for (int x : vm_cols[vl.b])
            if (xcols[x].host == h) diff.emplace_back(xcol_index[x], -1.0);
        if (diff.empty()) continue;  // neither end can be on h
        const auto first = binding(parts.first[h]);
        const auto second = binding(parts.second[h]);
        auto add_d = [&](AuxCol::Kind kind, const std::vector<std::pair<int, std::int64_t>>& loads) {
            AuxCol d;
            d.kind = kind;
            d.a = vl.a;
            d.b = vl.b;
            d.host = h;
            const int col = new_aux(std::move(d));
            for (int k = 0; k < 2; ++k) {
                if ((k == 0 && kind == AuxCol::kSecond) || (k == 1 && kind == AuxCol::kFirst)) continue;
                AuxRow row;  // d - sign x (u[a,h] - u[b,h]) >= 0
                row.coefs.emplace_back(col, 1.0);
                for (const auto& [c, v] : diff) row.coefs.emplace_back(c, k == 0 ? -v : v);
                row.lb = 0.0;
                aux_rows.push_back(std::move(row));
            }
            for (const auto& [link, units] : loads) link_coef[link][col] += mbps * static_cast<double>(units);
        };
        if (first == second) {
            if (!first.empty()) add_d(AuxCol::kEither, first);
        } else {
            if (!first.empty()) add_d(AuxCol::kFirst, first);
            if (!second.empty()) add_d(AuxCol::kSecond, second);
        }
    }
}

void MilpBuild::add_switch_parts(const Vlink& vl, double mbps, const RouteParts& parts) {
    const std::vector<int>& sw = p.network.host_switch;
    // Switch parts: w[e,s,t] over the switches each end can be under.
    std::map<int, std::vector<int>> on_a, on_b;  // switch -> x columns of the end on its hosts
    for (int x : vm_cols[vl.a]) on_a[sw[xcols[x].host]].push_back(xcol_index[x]);
    for (int x : vm_cols[vl.b]) on_b[sw[xcols[x].host]].push_back(xcol_index[x]);
    std::map<int, AuxRow> margin_a, margin_b;  // sum_t w[s,t] - U[a,s] = 0, sum_s w[s,t] - U[b,t] = 0
    for (const auto& [s, xs] : on_a)
        for (const auto& [t, xt] : on_b) {
            const auto it = parts.pair.find({s, t});
            if (on_a.size() == 1 && on_b.size() == 1) {  // both ends' switches fixed: a constant load
                if (it != parts.pair.end())
                    for (const auto& [link, units] : it->second) link_const[link] += mbps * static_cast<double>(units);
                continue;
            }
            AuxCol w;
            w.kind = AuxCol::kPair;
            w.a = vl.a;
            w.b = vl.b;
            w.s = s;
            w.t = t;
            const int col = new_aux(std::move(w));
            margin_a[s].coefs.emplace_back(col, 1.0);
            margin_b[t].coefs.emplace_back(col, 1.0);
            if (it != parts.pair.end())
                for (const auto& [link, units] : it->second) link_coef[link][col] += mbps * static_cast<double>(units);
        }
    if (on_a.size() == 1 && on_b.size() == 1) return;
    for (auto* margins : {&margin_a, &margin_b})
        for (auto& [s, row] : *margins) {
            for (int c : (margins == &margin_a ? on_a : on_b).at(s)) row.coefs.emplace_back(c, -1.0);
            row.lb = row.ub = 0.0;
            aux_rows.push_back(std::move(row));
        }
}

void MilpBuild::add_row(const CoinPackedVector& row, double lb, double ub) {
    row_index.insert(row_index.end(), row.getIndices(), row.getIndices() + row.getNumElements());
    row_value.insert(row_value.end(), row.getElements(), row.getElements() + row.getNumElements());
    row_start.push_back(static_cast<CoinBigIndex>(row_index.size()));
    rowlb.push_back(lb);
    rowub.push_back(ub);
}

void MilpBuild::add_assignment_rows() {
    // Each per-VM VM in exactly one placement.
    for (int v = 0; v < V; ++v) {
        if (!per_vm[v]) continue;
        CoinPackedVector row;
        for (int k : vm_cols[v]) row.insert(xcol_index[k], 1.0);
        add_row(row, 1.0, 1.0);
    }
    // Host-level VMs: sum_S m[f,h,S] = the VMs of flavor f that move to host h.
    {
        std::map<std::pair<int, int>, CoinPackedVector> land;  // (flavor, host)
        for (std::size_t k = 0; k < mcols.size(); ++k) land[{mcols[k].flavor_or_target, mcols[k].host}].insert(mcol_index[k], 1.0);
        for (std::size_t k = 0; k < xcols.size(); ++k)
            if (xcols[k].emb < 0) land[{p.vms[xcols[k].vm].flavor, xcols[k].host}].insert(xcol_index[k], -1.0);
        for (const auto& [key, row] : land) add_row(row, 0.0, 0.0);
    }
    // Every leaving VM of a class flavor lands somewhere: sum_{h,S} n[f,h,S] = sum_c L_c.
    for (std::size_t f = 0; f < p.flavors.size(); ++f) {
        if (leavers_ub[f] == 0) continue;
        CoinPackedVector row;
        for (std::size_t k = 0; k < ncols.size(); ++k)
            if (ncols[k].flavor_or_target == static_cast<int>(f)) row.insert(ncol_index[k], 1.0);
        for (const VmClass& c : classes)
            if (c.flavor == static_cast<int>(f)) row.insert(c.col, -1.0);
        add_row(row, 0.0, 0.0);
    }
}

void MilpBuild::add_capacity_rows() {
    // Capacity rows per host, pNUMA node and resource: VMs alone (t = -1), then VMs plus the
    // packing of each target flavor. Usage terms of host h: (column, flavor, mask, sign).
    struct Use {
        int col, flavor;
        NodeMask mask;
        double sign;
    };
    std::vector<std::vector<Use>> uses(H);
    for (std::size_t k = 0; k < xcols.size(); ++k) {
        const XCol& x = xcols[k];
        if (x.emb < 0) continue;  // host level: its usage is in m
        const int f = p.vms[x.vm].flavor;
        uses[x.host].push_back(Use{xcol_index[k], f, placements_of(x.host, f)[x.emb].mask, 1.0});
    }
    for (std::size_t k = 0; k < mcols.size(); ++k) {
        const CountCol& n = mcols[k];
        uses[n.host].push_back(Use{mcol_index[k], n.flavor_or_target, placements_of(n.host, n.flavor_or_target)[n.emb].mask, 1.0});
    }
    for (std::size_t k = 0; k < ncols.size(); ++k) {
        const CountCol& n = ncols[k];
        uses[n.host].push_back(Use{ncol_index[k], n.flavor_or_target, placements_of(n.host, n.flavor_or_target)[n.emb].mask, 1.0});
    }
    for (const VmClass& c : classes) uses[c.host].push_back(Use{c.col, c.flavor, c.mask, -1.0});
    for (int h = 0; h < H; ++h) {
        const HostType& ht = p.host_type_of(h);
        for (int i = 0; i < ht.num_nodes(); ++i)
            for (int r = 0; r < R; ++r) {
                // Right-hand side: capacity minus the non-migratable VMs and every class VM staying.
                double rhs = static_cast<double>(ht.node_capacity[i * R + r] - fixed[h][i * R + r]);
                for (const VmClass& c : classes)
                    if (c.host == h && ((c.mask >> i) & 1U))
                        rhs -= static_cast<double>(p.flavors[c.flavor].node_demand[r]) * static_cast<double>(c.vms.size());
                CoinPackedVector base;
                for (const Use& u : uses[h]) {
                    const Amount d = p.flavors[u.flavor].node_demand[r];
                    if (d != 0 && ((u.mask >> i) & 1U)) base.insert(u.col, u.sign * static_cast<double>(d));
                }
                add_row(base, -COIN_DBL_MAX, rhs);
                for (int t = 0; t < T; ++t) {
                    const int f = model.target_flavor(t);
                    const Amount d = p.flavors[f].node_demand[r];
                    if (d == 0) continue;  // same as the VMs-alone row
                    CoinPackedVector row = base;
                    for (std::size_t k = 0; k < ycols.size(); ++k) {
                        const CountCol& y = ycols[k];
                        if (y.flavor_or_target != t || y.host != h) continue;
                        if ((placements_of(h, f)[y.emb].mask >> i) & 1U) row.insert(ycol_index[k], static_cast<double>(d));
                    }
                    add_row(row, -COIN_DBL_MAX, rhs);
                }
            }
    }
}

void MilpBuild::add_budget_rows() {
    // Budget: leaving class VMs plus per-VM VMs off their snapshot placement (1 - x_stay).
    {
        CoinPackedVector count, ram;
        double per_vm_count = 0, per_vm_ram = 0, all_count = 0, all_ram = 0;
        for (std::size_t k = 0; k < xcols.size(); ++k)
            if (xcols[k].stay) {
                const double mib = static_cast<double>(p.flavors[p.vms[xcols[k].vm].flavor].demand[kRamMib]);
                count.insert(xcol_index[k], -1.0);
                ram.insert(xcol_index[k], -mib);
                per_vm_count += 1;
                per_vm_ram += mib;
            }
        for (const VmClass& c : classes) {
            const double mib = static_cast<double>(p.flavors[c.flavor].demand[kRamMib]);
            count.insert(c.col, 1.0);
            ram.insert(c.col, mib);
            all_count += static_cast<double>(c.vms.size());
            all_ram += mib * static_cast<double>(c.vms.size());
        }
        all_count += per_vm_count;
        all_ram += per_vm_ram;
        if (static_cast<double>(p.constraints.max_migrations) < all_count)
            add_row(count, -COIN_DBL_MAX, static_cast<double>(p.constraints.max_migrations) - per_vm_count);
        if (static_cast<double>(p.constraints.max_migrated_ram_mib) < all_ram)
            add_row(ram, -COIN_DBL_MAX, static_cast<double>(p.constraints.max_migrated_ram_mib) - per_vm_ram);
    }
}

void MilpBuild::add_link_rows() {
    // Link rows: the lower bounds of d and z, then every link's load <= max(capacity, snapshot load).
    for (const AuxRow& r : aux_rows) {
        CoinPackedVector row;
        for (const auto& [c, coef] : r.coefs) row.insert(c, coef);
        add_row(row, r.lb, r.ub);
    }
    for (int l = 0; l < L; ++l) {
        if (link_coef[l].empty() || !binds[l]) continue;
        CoinPackedVector row;
        for (const auto& [c, units] : link_coef[l]) row.insert(c, units);
        add_row(row, -COIN_DBL_MAX, static_cast<double>(links->allowance(l, 0)) - link_const[l]);
    }
}

std::vector<double> MilpBuild::columns_of(const SearchState& s) const {
    std::vector<double> x(ncol, 0.0);
    for (int v = 0; v < V; ++v) {
        if (per_vm[v]) {
            bool found = false;
            const int h = s.host_of(v), f = p.vms[v].flavor;
            for (int k : vm_cols[v])
                if (xcols[k].host == h && xcols[k].emb >= 0 && placements_of(h, f)[xcols[k].emb].mask == s.mask_of(v)) {
                    x[xcol_index[k]] = 1.0;
                    found = true;
                }
            if (!found && host_level)
                for (int k : vm_cols[v])
                    if (xcols[k].host == h && xcols[k].emb < 0) {
                        const auto it = mcol_of.find(std::make_tuple(f, h, s.mask_of(v)));
                        if (it == mcol_of.end()) return std::vector<double>{};
                        x[xcol_index[k]] = 1.0;
                        x[mcol_index[it->second]] += 1.0;
                        found = true;
                    }
            if (!found) return std::vector<double>{};
        } else if (class_of[v] >= 0 && s.is_migrated(v)) {
            x[classes[class_of[v]].col] += 1.0;
            const auto it = ncol_of.find(std::make_tuple(p.vms[v].flavor, s.host_of(v), s.mask_of(v)));
            if (it == ncol_of.end()) return std::vector<double>{};
            x[ncol_index[it->second]] += 1.0;
        }
    }
    for (int j = 0; j < T; ++j) {
        const int f = model.target_flavor(j);
        for (int h = 0; h < H; ++h) {
            // b from the free amounts (the state keeps per-target b only below kBatchRefreshTargets targets).
            Count b[kMaxPNuma];
            model.capacity_vector(f, s.nodes_of(h), s.free_of(h), b);
            for (const PlacementCount& pc : vmcap_placements(model.evaluator(p.hosts[h].type, f), b)) {
                const auto it = ycol_of.find(std::make_tuple(j, h, pc.placement.mask));
                if (it == ycol_of.end()) return std::vector<double>{};
                x[ycol_index[it->second]] += static_cast<double>(pc.copies);
            }
        }
    }
    const std::vector<int>* sw = links ? &p.network.host_switch : nullptr;
    for (std::size_t k = 0; k < aux.size(); ++k) {
        const AuxCol& a = aux[k];
        const int ha = s.host_of(a.a), hb = s.host_of(a.b);
        bool one = false;
        switch (a.kind) {
            case AuxCol::kEither: one = (ha == a.host) != (hb == a.host); break;
            case AuxCol::kFirst: one = ha == a.host && hb != a.host; break;
            case AuxCol::kSecond: one = hb == a.host && ha != a.host; break;
            case AuxCol::kPair: one = (*sw)[ha] == a.s && (*sw)[hb] == a.t; break;
        }
        x[aux_index[k]] = one ? 1.0 : 0.0;
    }
    return x;
}

void MilpBuild::decode_per_vm(const double* x, std::vector<Placement>& best,
                              std::map<std::pair<int, int>, std::vector<int>>& movers) const {
    // Per-VM columns.
    for (int v = 0; v < V; ++v) {
        if (!per_vm[v]) continue;
        int chosen = -1;
        for (int k : vm_cols[v])
            if (x[xcol_index[k]] > 0.5) {
                if (chosen >= 0) throw std::runtime_error("exact: VM " + p.vms[v].id + " placed twice");
                chosen = k;
            }
        if (chosen < 0) throw std::runtime_error("exact: VM " + p.vms[v].id + " not placed");
        if (xcols[chosen].stay) continue;
        const XCol& xc = xcols[chosen];
        if (xc.emb < 0) {  // host level: matched to the landing counts below
            movers[{p.vms[v].flavor, xc.host}].push_back(v);
            continue;
        }
        Placement pl;
        pl.vm = v;
        pl.host = xc.host;
        pl.pnuma = placements_of(xc.host, p.vms[v].flavor)[xc.emb].map;
        best.push_back(pl);
    }
}

void MilpBuild::decode_host_level(const double* x, const std::map<std::pair<int, int>, std::vector<int>>& movers,
                                  std::vector<Placement>& best) const {
    // Host-level VMs: those moving to host h take its landing slots m[f,h,S] in order (identical
    // VMs of one flavor on one host: which takes which slot changes neither capacity nor links).
    {
        std::map<std::pair<int, int>, std::vector<int>> slots;  // (flavor, host) -> embeddings, one per VM
        for (std::size_t k = 0; k < mcols.size(); ++k) {
            const long long cnt = std::llround(x[mcol_index[k]]);
            if (std::abs(x[mcol_index[k]] - static_cast<double>(cnt)) > kMilpTolerance || cnt < 0)
                throw std::runtime_error("exact: CBC returned a fractional landing count");
            for (long long q = 0; q < cnt; ++q) slots[{mcols[k].flavor_or_target, mcols[k].host}].push_back(mcols[k].emb);
        }
        for (const auto& [key, vms] : movers) {
            const auto it = slots.find(key);
            if (it == slots.end() || it->second.size() != vms.size()) throw std::runtime_error("exact: moving and landing counts differ");
        }
        for (const auto& [key, embs] : slots) {
            const auto it = movers.find(key);
            if (it == movers.end() || it->second.size() != embs.size()) throw std::runtime_error("exact: moving and landing counts differ");
            for (std::size_t q = 0; q < embs.size(); ++q) {
                Placement pl;
                pl.vm = it->second[q];
                pl.host = key.second;
                pl.pnuma = placements_of(pl.host, key.first)[embs[q]].map;
                if (pl.host == p.vms[pl.vm].host && pl.pnuma == p.vms[pl.vm].pnuma) continue;  // back where it was
                best.push_back(pl);
            }
        }
    }
}

void MilpBuild::decode_classes(const double* x, std::vector<Placement>& best) const {
    // Classes: the first L_c VMs of class c leave; the landing slots n[f,h,S] are matched to
    // them, a leaver and a slot of its own class first (that VM simply stays), then in order.
    for (std::size_t f = 0; f < p.flavors.size(); ++f) {
        if (leavers_ub[f] == 0) continue;
        std::vector<int> leaving;                            // VMs
        std::vector<std::pair<int, int>> slots;              // (host, emb)
        std::map<std::tuple<int, NodeMask>, int> own_slots;  // (host, mask) -> slots of a class's own placement
        for (std::size_t k = 0; k < ncols.size(); ++k) {
            if (ncols[k].flavor_or_target != static_cast<int>(f)) continue;
            const long long cnt = std::llround(x[ncol_index[k]]);
            if (std::abs(x[ncol_index[k]] - static_cast<double>(cnt)) > kMilpTolerance || cnt < 0)
                throw std::runtime_error("exact: CBC returned a fractional landing count");
            for (long long q = 0; q < cnt; ++q) slots.emplace_back(ncols[k].host, ncols[k].emb);
        }
        for (const VmClass& c : classes) {
            if (c.flavor != static_cast<int>(f)) continue;
            const long long cnt = std::llround(x[c.col]);
            if (std::abs(x[c.col] - static_cast<double>(cnt)) > kMilpTolerance || cnt < 0 || cnt > static_cast<long long>(c.vms.size()))
                throw std::runtime_error("exact: CBC returned a bad leaving count");
            for (long long q = 0; q < cnt; ++q) leaving.push_back(c.vms[static_cast<std::size_t>(q)]);
        }
        if (leaving.size() != slots.size()) throw std::runtime_error("exact: leaving and landing counts differ");
        std::vector<char> used(slots.size(), 0), placed(leaving.size(), 0);
        for (std::size_t a = 0; a < leaving.size(); ++a) {
            const Vm& vm = p.vms[leaving[a]];
            const NodeMask own = node_mask(vm.pnuma.data(), p.flavors[vm.flavor].num_vnuma());
            for (std::size_t q = 0; q < slots.size() && !placed[a]; ++q)
                if (!used[q] && slots[q].first == vm.host && placements_of(vm.host, vm.flavor)[slots[q].second].mask == own)
                    used[q] = placed[a] = 1;  // back on its own placement: not migrated
        }
        std::size_t q = 0;
        for (std::size_t a = 0; a < leaving.size(); ++a) {
            if (placed[a]) continue;
            while (used[q]) ++q;
            used[q] = 1;
            Placement pl;
            pl.vm = leaving[a];
            pl.host = slots[q].first;
            pl.pnuma = placements_of(pl.host, static_cast<int>(f))[slots[q].second].map;
            best.push_back(pl);
        }
    }
}

std::vector<Placement> MilpBuild::decode(const double* x) const {
    std::vector<Placement> best;
    std::map<std::pair<int, int>, std::vector<int>> movers;  // host level: (flavor, host) -> VMs moving there
    decode_per_vm(x, best, movers);
    decode_host_level(x, movers, best);
    decode_classes(x, best);
    std::sort(best.begin(), best.end(), [](const Placement& a, const Placement& b) { return a.vm < b.vm; });
    return best;
}

/** What CBC returned. */
struct CbcOutcome {
    std::vector<double> x;  ///< best solution's column values
    bool proven = false;
    double bound = 0.0;      ///< best possible objective
    double objective = 0.0;  ///< the solution's objective
};

/** Solves the built MILP with CBC from the MIP start `start`, within `seconds`, on `threads`. */
CbcOutcome run_cbc(const MilpBuild& b, const std::vector<double>& start, double seconds_left, int threads_wanted) {
    const int ncol = b.ncol;
    OsiClpSolverInterface solver;
    solver.messageHandler()->setLogLevel(0);
    std::vector<int> row_length(b.rowlb.size());
    for (std::size_t r = 0; r < b.rowlb.size(); ++r) row_length[r] = static_cast<int>(b.row_start[r + 1] - b.row_start[r]);
    const CoinPackedMatrix m(false, ncol, static_cast<int>(b.rowlb.size()), static_cast<CoinBigIndex>(b.row_index.size()),
                             b.row_value.data(), b.row_index.data(), b.row_start.data(), row_length.data());
    solver.loadProblem(m, b.cols.lb.data(), b.cols.ub.data(), b.cols.obj.data(), b.rowlb.data(), b.rowub.data());
    solver.setObjSense(-1.0);
    for (int c = 0; c < ncol; ++c)
        if (b.cols.integer[c]) solver.setInteger(c);
    solver.setIntParam(OsiNameDiscipline, 1);
    std::vector<std::pair<std::string, double>> mipstart;
    for (int c = 0; c < ncol; ++c) {
        std::string nm = "c";
        nm += std::to_string(c);
        solver.setColName(c, nm);
        mipstart.emplace_back(nm, start[c]);
    }
    // Row names too: with column names but none for the rows, Clp's presolve inside its "idiot"
    // crossover (CbcMain's initial solve of larger models) reads the empty row-name array and
    // crashes (coin-or/Cbc#515; seen here on 20 hosts / 80 VMs with per-VM columns).
    for (int r = 0; r < static_cast<int>(b.rowlb.size()); ++r) solver.setRowName(r, "r" + std::to_string(r));
    CbcModel cbc(solver);
    CbcSolverUsefulData data;
    data.noPrinting_ = true;
    data.useSignalHandler_ = false;
    CbcMain0(cbc, data);
    cbc.setLogLevel(0);
    cbc.messageHandler()->setLogLevel(0);
    cbc.solver()->messageHandler()->setLogLevel(0);
    cbc.setMIPStart(mipstart);
    // CBC gets what is left of the limit (warm start and model build spent the rest); a floor of
    // 50 ms lets it at least take the MIP start when they used it all.
    const std::string seconds = std::to_string(std::max(0.05, seconds_left));
    const std::string threads = std::to_string(threads_wanted > 1 ? 100 + threads_wanted : 0);  // > 100: deterministic
    // No CglPreProcess ("-preprocess off"): in CBC 2.10.8, when the time limit stops the search at
    // the root (e.g. right after the MIP start's reduced search), CglPreProcess::postProcess reads
    // freed or missing data of the preprocessed model and crashes (SIGSEGV; `vmcap exact --method
    // milp` on 12 hosts with links at --time-limit 4-5 and on 30 hosts at 0.3-0.6 s).
    // Without it the search is as fast or faster on the models measured (docs/performance.md).
    const char* argv[] = {"vmcap",    "-log",          "0",           "-timeMode", "elapsed", "-seconds", seconds.c_str(),
                          "-threads", threads.c_str(), "-preprocess", "off",       "-solve",  "-quit"};
    CbcMain1(
        static_cast<int>(sizeof(argv) / sizeof(argv[0])), argv, cbc, [](CbcModel*, int) { return 0; }, data);

    CbcOutcome out;
    out.proven = cbc.isProvenOptimal();
    out.bound = std::abs(cbc.getBestPossibleObjValue());  // the objective is >= 0; CBC's sign follows its internal minimisation
    const double* x = cbc.bestSolution();
    if (x == nullptr) throw std::runtime_error("exact: CBC returned no solution");
    out.x.assign(x, x + ncol);
    out.objective = std::abs(cbc.getObjValue());
    return out;
}

}  // namespace

ExactResult solve_exact(const CapacityModel& model, double time_limit_s) {
    MilpParams mp;
    mp.time_limit_s = time_limit_s;
    return solve_exact(model, mp);
}

ExactResult solve_exact(const CapacityModel& model, const MilpParams& prm) {
    const auto t0 = std::chrono::steady_clock::now();
    const Problem& p = model.problem();
    const LinkCapacityFilter* links = check_exact_scope(model);
    if (!(prm.time_limit_s > 0)) throw std::invalid_argument("exact: time limit must be > 0");
    if (prm.threads < 1) throw std::invalid_argument("exact: threads must be >= 1");
    const MilpBuild build(model, prm, links);
    const std::int64_t budget = build.budget;

    // Warm start: greedy then a short annealing run (as the branch and bound), else the snapshot.
    SearchState start_state(model);
    if (prm.warm_start_evaluations >= 0 && budget > 0) {
        SearchState s(model);
        s.set_placements(exact_warm_start(model, prm.warm_start_evaluations, prm.seed, prm.time_limit_s));
        bool ok = s.objective_value() > start_state.objective_value();
        if (ok && links) {
            std::vector<int> host;
            std::vector<NodeMask> mask;
            s.placement_arrays(host, mask);
            ok = links->violation(p, PlacementView{host, mask}).empty();
        }
        if (ok) start_state = s;
    }
    std::vector<double> start = build.columns_of(start_state);
    if (start.empty()) start = build.columns_of(SearchState(model));
    if (start.empty()) throw std::logic_error("exact: the snapshot has no MILP column");

    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const CbcOutcome cbc = run_cbc(build, start, prm.time_limit_s - elapsed, prm.threads);

    ExactResult res;
    res.columns = build.ncol;
    res.rows = static_cast<int>(build.rowlb.size());
    res.proven = cbc.proven;
    res.bound = cbc.bound;
    res.best = build.decode(cbc.x.data());
    // Re-evaluate the optimum from scratch: VMCAP through SearchState (the MILP's y are a packing
    // that VMCAP may exceed only if the model were wrong), budget and link loads; a mismatch is a
    // bug, reported loudly.
    SearchState s(model);
    s.set_placements(res.best);
    res.score = s.objective();
    res.objective = to_objective(res.score);
    if (const std::string why = first_rule_violation(model, s); !why.empty())
        throw std::runtime_error("exact: the MILP's optimum breaks the " + why);
    const double milp_value = cbc.objective;
    if (res.proven && std::abs(res.objective - milp_value) > kMilpTolerance * std::max(1.0, res.objective))
        throw std::runtime_error("exact: MILP optimum " + std::to_string(milp_value) + " differs from the VMCAP re-evaluation " +
                                 std::to_string(res.objective));
    if (res.proven) res.bound = res.objective;
    res.start_objective = start_state.objective_value();
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    res.stopped_by = res.proven ? StopReason::ProvenOptimal : StopReason::TimeLimit;
    return res;
}

}  // namespace vmcap
