#include "optimizer/exact.h"

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

#include "evaluators/link_filter.h"
#include "evaluators/placements.h"
#include "optimizer/annealing.h"
#include "optimizer/greedy.h"

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
    const LinkCapacityFilter* links = nullptr;
    for (const auto& f : model.filters()) {
        const auto* l = dynamic_cast<const LinkCapacityFilter*>(f.get());
        if (l == nullptr || links != nullptr) {
            std::string msg = "the exact solvers model the built-in rules and one link-capacity rule only: feasibility filter '";
            msg += f->name();
            msg += "' is not modelled";
            throw std::invalid_argument(msg);
        }
        links = l;
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

/** Link-rule auxiliary column (exact.h): d (NIC crossing) or z (switch pair). */
struct AuxCol {
    std::vector<std::pair<int, double>> lower[2];  // rows aux - sum coef x >= rhs[k] (0, 1 or 2 rows)
    double rhs[2] = {0.0, 0.0};
    int rows = 0;
    int a = -1, b = -1;  ///< the vlink's VMs
    int host = -1;       ///< d: the NIC's host; z: -1
    int s = -1, t = -1;  ///< z: switches of a and b
};

}  // namespace

std::vector<Placement> exact_warm_start(const CapacityModel& model, std::int64_t evaluations, std::uint64_t seed, double time_limit_s) {
    SearchParams sp;
    sp.quiet = true;
    sp.seed = seed;
    sp.threads = 1;
    sp.time_limit_s = std::max(0.1, time_limit_s / 4);
    SearchResult r = greedy(model, sp);
    if (evaluations > 0) {
        sp.start = r.best;
        sp.max_evaluations = evaluations;
        r = anneal(model, sp);
    }
    return r.best;
}

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
    const int H = static_cast<int>(p.hosts.size());
    const int R = p.num_resources();
    const int T = model.num_targets();
    const int V = static_cast<int>(p.vms.size());
    const auto placements_of = [&](int host, int flavor) -> const std::vector<Embedding>& {
        return model.evaluator(p.hosts[host].type, flavor).placements();
    };

    // Usage of the non-migratable VMs: constant.
    std::vector<std::vector<Amount>> fixed(H);
    for (int h = 0; h < H; ++h) fixed[h].assign(p.host_type_of(h).node_capacity.size(), 0);
    for (const Vm& vm : p.vms) {
        if (vm.migratable) continue;
        const Flavor& fl = p.flavors[vm.flavor];
        for (int i = 0; i < fl.num_vnuma(); ++i)
            for (int r = 0; r < R; ++r) fixed[vm.host][vm.pnuma[i] * R + r] += fl.node_demand[r];
    }
    auto fits_empty = [&](int flavor, int host, const Embedding& e) {
        const HostType& ht = p.host_type_of(host);
        const Flavor& fl = p.flavors[flavor];
        for (int i = 0; i < fl.num_vnuma(); ++i)
            for (int r = 0; r < R; ++r)
                if (fixed[host][e.map[i] * R + r] + fl.node_demand[r] > ht.node_capacity[e.map[i] * R + r]) return false;
        return true;
    };
    // Most copies of `flavor` that placement e of host h can hold beside the non-migratable VMs.
    auto copies_ub = [&](int flavor, int host, const Embedding& e) {
        Amount ub = std::numeric_limits<Amount>::max();
        const HostType& ht = p.host_type_of(host);
        const Flavor& fl = p.flavors[flavor];
        for (int i = 0; i < fl.num_vnuma(); ++i)
            for (int r = 0; r < R; ++r)
                if (fl.node_demand[r] > 0)
                    ub = std::min(ub, (ht.node_capacity[e.map[i] * R + r] - fixed[host][e.map[i] * R + r]) / fl.node_demand[r]);
        return ub;
    };
    // Effective budget: migrations, and how many of the smallest VMs the RAM budget admits.
    std::int64_t budget = p.constraints.max_migrations;
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

    // Which migratable VMs keep per-VM columns: all of them without aggregation; with it, those
    // with a vlink (the link rows need each one's host); the others form classes.
    std::vector<char> per_vm(V, 0);
    for (int v = 0; v < V; ++v) per_vm[v] = p.vms[v].migratable && !prm.aggregate;
    if (prm.aggregate && links)
        for (const Vlink& vl : p.vlinks) {
            per_vm[vl.a] = p.vms[vl.a].migratable;
            per_vm[vl.b] = p.vms[vl.b].migratable;
        }

    Columns cols;
    std::vector<XCol> xcols;
    std::vector<int> xcol_index;               // [k] column of xcols[k]
    std::vector<std::vector<int>> vm_cols(V);  // indices into xcols
    for (int v = 0; v < V; ++v) {
        if (!per_vm[v]) continue;
        const Vm& vm = p.vms[v];
        const NodeMask orig_mask = node_mask(vm.pnuma.data(), p.flavors[vm.flavor].num_vnuma());
        for (int h = 0; h < H; ++h) {
            const auto& pl = placements_of(h, vm.flavor);
            for (std::size_t e = 0; e < pl.size(); ++e) {
                const bool stay = h == vm.host && pl[e].mask == orig_mask;
                if (!stay && (budget == 0 || !fits_empty(vm.flavor, h, pl[e]))) continue;
                vm_cols[v].push_back(static_cast<int>(xcols.size()));
                xcols.push_back(XCol{v, h, static_cast<int>(e), stay});
                xcol_index.push_back(cols.add(0, 1, 0, true));
            }
        }
    }
    // Classes (ordered by flavor, host, mask: deterministic) and their leaving counts L.
    std::vector<VmClass> classes;
    std::vector<int> class_of(V, -1);
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
    std::vector<std::int64_t> leavers_ub(p.flavors.size(), 0);  // [flavor] most VMs of it that can leave
    for (VmClass& c : classes) {
        const Amount ram = p.flavors[c.flavor].demand[kRamMib];
        std::int64_t ub = std::min<std::int64_t>(static_cast<std::int64_t>(c.vms.size()), budget);
        if (ram > 0) ub = std::min<std::int64_t>(ub, p.constraints.max_migrated_ram_mib / ram);
        c.col = cols.add(0, static_cast<double>(ub), 0, true);
        leavers_ub[c.flavor] = std::min(budget, leavers_ub[c.flavor] + ub);
    }
    // n[f,h,S]: leaving VMs of flavor f that land on (h, S).
    std::vector<CountCol> ncols;
    std::vector<int> ncol_index;
    std::map<std::tuple<int, int, NodeMask>, int> ncol_of;  // (flavor, host, mask) -> index into ncols
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
    // y[t,h,S]: VMCAP packing of target t on host h.
    std::vector<CountCol> ycols;
    std::vector<int> ycol_index;
    std::map<std::tuple<int, int, NodeMask>, int> ycol_of;  // (target, host, mask) -> index into ycols
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

    // Link rule (exact.h), on the per-VM columns. A vlink with one end fixed loads each link
    // linearly in the moving end's x. With both ends migratable: d[e,h] >= |u[a,h] - u[b,h]| (1
    // iff the vlink crosses host h's NIC) carries mbps on both directions of uplink h, and
    // z[e,s,t] >= U[a,s] + U[b,t] - 1 (U: u summed over the hosts on switch s) carries the route
    // shares of both flows, s -> t and t -> s, s != t. d and z are continuous in [0, 1]; the link rows bound them only from above,
    // so their values at an integer x (|difference|, product) are always feasible and the rows
    // are exact there.
    std::vector<AuxCol> aux;
    std::vector<int> aux_index;
    const int L = links ? links->routes().num_links() : 0;
    std::vector<std::map<int, double>> link_coef(L);  // [link] column -> micro-units
    std::vector<double> link_const(L, 0.0);           // [link] load of the vlinks between fixed VMs
    if (links) {
        const NetworkRoutes& routes = links->routes();
        const std::vector<int>& sw = p.network.host_switch;
        auto new_aux = [&](AuxCol a) {
            aux.push_back(std::move(a));
            aux_index.push_back(cols.add(0, 1, 0, false));
            return aux_index.back();
        };
        for (std::size_t e = 0; e < p.vlinks.size(); ++e) {
            const Vlink& vl = p.vlinks[e];
            const double mbps = static_cast<double>(vl.mbps);
            const bool ma = p.vms[vl.a].migratable, mb = p.vms[vl.b].migratable;
            const int ha0 = p.vms[vl.a].host, hb0 = p.vms[vl.b].host;
            if (!ma && !mb) {
                routes.for_each_share(ha0, hb0,
                                      [&](int link, std::int64_t units) { link_const[link] += mbps * static_cast<double>(units); });
                continue;
            }
            if (ma != mb) {
                const int mv = ma ? vl.a : vl.b, fixed_host = ma ? hb0 : ha0;
                for (int k : vm_cols[mv]) {
                    const int c = xcol_index[k];
                    routes.for_each_share(xcols[k].host, fixed_host,
                                          [&](int link, std::int64_t units) { link_coef[link][c] += mbps * static_cast<double>(units); });
                }
                continue;
            }
            for (int h = 0; h < H; ++h) {
                AuxCol d;
                d.a = vl.a;
                d.b = vl.b;
                d.host = h;
                for (int k = 0; k < 2; ++k) {
                    const double sign = k == 0 ? 1.0 : -1.0;  // d >= u[a,h] - u[b,h], d >= u[b,h] - u[a,h]
                    for (int x : vm_cols[vl.a])
                        if (xcols[x].host == h) d.lower[k].emplace_back(xcol_index[x], -sign);
                    for (int x : vm_cols[vl.b])
                        if (xcols[x].host == h) d.lower[k].emplace_back(xcol_index[x], sign);
                }
                if (d.lower[0].empty()) continue;  // neither end can be on h
                d.rows = 2;
                const int col = new_aux(std::move(d));
                for (int dir = 0; dir < 2; ++dir) link_coef[NetworkRoutes::arc(h, dir)][col] += mbps;  // both flows, whole Mbps
            }
            for (std::size_t s = 0; s < p.network.switches.size(); ++s)
                for (std::size_t t = 0; t < p.network.switches.size(); ++t) {
                    if (s == t) continue;
                    AuxCol z;
                    z.a = vl.a;
                    z.b = vl.b;
                    z.s = static_cast<int>(s);
                    z.t = static_cast<int>(t);
                    z.rows = 1;
                    z.rhs[0] = -1.0;
                    for (int x : vm_cols[vl.a])
                        if (sw[xcols[x].host] == static_cast<int>(s)) z.lower[0].emplace_back(xcol_index[x], -1.0);
                    const std::size_t on_s = z.lower[0].size();
                    for (int x : vm_cols[vl.b])
                        if (sw[xcols[x].host] == static_cast<int>(t)) z.lower[0].emplace_back(xcol_index[x], -1.0);
                    if (on_s == 0 || z.lower[0].size() == on_s) continue;  // an end never under s, or never under t
                    const int col = new_aux(std::move(z));
                    for (const LinkShare& ls : routes.route(static_cast<int>(s), static_cast<int>(t)))  // flow a -> b
                        link_coef[ls.link][col] += mbps * static_cast<double>(ls.share);
                    for (const LinkShare& ls : routes.route(static_cast<int>(t), static_cast<int>(s)))  // flow b -> a
                        link_coef[ls.link][col] += mbps * static_cast<double>(ls.share);
                }
        }
    }
    const int ncol = cols.size();

    CoinPackedMatrix m(false, 0, 0);
    m.setDimensions(0, ncol);
    std::vector<double> rowlb, rowub;
    auto add_row = [&](const CoinPackedVector& row, double lb, double ub) {
        m.appendRow(row);
        rowlb.push_back(lb);
        rowub.push_back(ub);
    };
    // Each per-VM VM in exactly one placement.
    for (int v = 0; v < V; ++v) {
        if (!per_vm[v]) continue;
        CoinPackedVector row;
        for (int k : vm_cols[v]) row.insert(xcol_index[k], 1.0);
        add_row(row, 1.0, 1.0);
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
        const int f = p.vms[x.vm].flavor;
        uses[x.host].push_back(Use{xcol_index[k], f, placements_of(x.host, f)[x.emb].mask, 1.0});
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
    // Link rows: the lower bounds of d and z, then every link's load <= max(capacity, snapshot load).
    for (std::size_t k = 0; k < aux.size(); ++k)
        for (int r = 0; r < aux[k].rows; ++r) {
            CoinPackedVector row;
            row.insert(aux_index[k], 1.0);
            for (const auto& [c, coef] : aux[k].lower[r]) row.insert(c, coef);
            add_row(row, aux[k].rhs[r], COIN_DBL_MAX);
        }
    for (int l = 0; l < L; ++l) {
        if (link_coef[l].empty()) continue;
        CoinPackedVector row;
        for (const auto& [c, units] : link_coef[l]) row.insert(c, units);
        add_row(row, -COIN_DBL_MAX, static_cast<double>(links->allowance(l, 0)) - link_const[l]);
    }

    // The column values of a final state (the start CBC is given): per-VM x, class L and n,
    // a VMCAP packing y of every host (vmcap_placements), the link auxiliaries at their exact
    // values. Empty if some value has no column (cannot happen for a feasible state).
    auto columns_of = [&](const SearchState& s) {
        std::vector<double> x(ncol, 0.0);
        for (int v = 0; v < V; ++v) {
            if (per_vm[v]) {
                bool found = false;
                for (int k : vm_cols[v])
                    if (xcols[k].host == s.host_of(v) && placements_of(xcols[k].host, p.vms[v].flavor)[xcols[k].emb].mask == s.mask_of(v)) {
                        x[xcol_index[k]] = 1.0;
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
            for (int h = 0; h < H; ++h)
                for (const PlacementCount& pc : vmcap_placements(model.evaluator(p.hosts[h].type, f), s.b_of(h, j))) {
                    const auto it = ycol_of.find(std::make_tuple(j, h, pc.placement.mask));
                    if (it == ycol_of.end()) return std::vector<double>{};
                    x[ycol_index[it->second]] += static_cast<double>(pc.copies);
                }
        }
        const std::vector<int>* sw = links ? &p.network.host_switch : nullptr;
        for (std::size_t k = 0; k < aux.size(); ++k) {
            const AuxCol& a = aux[k];
            const int ha = s.host_of(a.a), hb = s.host_of(a.b);
            if (a.host >= 0)
                x[aux_index[k]] = (ha == a.host) != (hb == a.host) ? 1.0 : 0.0;
            else
                x[aux_index[k]] = (*sw)[ha] == a.s && (*sw)[hb] == a.t ? 1.0 : 0.0;
        }
        return x;
    };

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
    std::vector<double> start = columns_of(start_state);
    if (start.empty()) start = columns_of(SearchState(model));
    if (start.empty()) throw std::logic_error("exact: the snapshot has no MILP column");

    OsiClpSolverInterface solver;
    solver.messageHandler()->setLogLevel(0);
    solver.loadProblem(m, cols.lb.data(), cols.ub.data(), cols.obj.data(), rowlb.data(), rowub.data());
    solver.setObjSense(-1.0);
    for (int c = 0; c < ncol; ++c)
        if (cols.integer[c]) solver.setInteger(c);
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
    for (int r = 0; r < static_cast<int>(rowlb.size()); ++r) solver.setRowName(r, "r" + std::to_string(r));
    CbcModel cbc(solver);
    CbcSolverUsefulData data;
    data.noPrinting_ = true;
    data.useSignalHandler_ = false;
    CbcMain0(cbc, data);
    cbc.setLogLevel(0);
    cbc.messageHandler()->setLogLevel(0);
    cbc.solver()->messageHandler()->setLogLevel(0);
    cbc.setMIPStart(mipstart);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::string seconds = std::to_string(std::max(0.5, prm.time_limit_s - elapsed));
    const std::string threads = std::to_string(prm.threads > 1 ? 100 + prm.threads : 0);  // > 100: deterministic
    const char* argv[] = {"vmcap",    "-log",          "0",      "-timeMode", "elapsed", "-seconds", seconds.c_str(),
                          "-threads", threads.c_str(), "-solve", "-quit"};
    CbcMain1(
        static_cast<int>(sizeof(argv) / sizeof(argv[0])), argv, cbc, [](CbcModel*, int) { return 0; }, data);

    ExactResult res;
    res.columns = ncol;
    res.rows = static_cast<int>(rowlb.size());
    res.proven = cbc.isProvenOptimal();
    res.bound = std::abs(cbc.getBestPossibleObjValue());  // the objective is >= 0; CBC's sign follows its internal minimisation
    const double* x = cbc.bestSolution();
    if (x == nullptr) throw std::runtime_error("exact: CBC returned no solution");
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
        Placement pl;
        pl.vm = v;
        pl.host = xc.host;
        pl.pnuma = placements_of(xc.host, p.vms[v].flavor)[xc.emb].map;
        res.best.push_back(pl);
    }
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
            if (std::abs(x[ncol_index[k]] - static_cast<double>(cnt)) > 1e-6 || cnt < 0)
                throw std::runtime_error("exact: CBC returned a fractional landing count");
            for (long long q = 0; q < cnt; ++q) slots.emplace_back(ncols[k].host, ncols[k].emb);
        }
        for (const VmClass& c : classes) {
            if (c.flavor != static_cast<int>(f)) continue;
            const long long cnt = std::llround(x[c.col]);
            if (std::abs(x[c.col] - static_cast<double>(cnt)) > 1e-6 || cnt < 0 || cnt > static_cast<long long>(c.vms.size()))
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
            res.best.push_back(pl);
        }
    }
    std::sort(res.best.begin(), res.best.end(), [](const Placement& a, const Placement& b) { return a.vm < b.vm; });
    // Re-evaluate the optimum from scratch: VMCAP through SearchState (the MILP's y are a packing
    // that VMCAP may exceed only if the model were wrong), budget and link loads; a mismatch is a
    // bug, reported loudly.
    SearchState s(model);
    s.set_placements(res.best);
    res.objective = s.objective_value();
    if (s.migrations() > p.constraints.max_migrations || s.migrated_ram_mib() > p.constraints.max_migrated_ram_mib)
        throw std::runtime_error("exact: the MILP's optimum breaks the migration budget");
    if (links) {
        std::vector<int> host;
        std::vector<NodeMask> mask;
        s.placement_arrays(host, mask);
        const std::string why = links->violation(p, PlacementView{host, mask});
        if (!why.empty()) {
            std::string msg = "exact: the MILP's optimum breaks the link-capacity rule: ";
            msg += why;
            throw std::runtime_error(msg);
        }
    }
    const double milp_value = std::abs(cbc.getObjValue());
    if (res.proven && std::abs(res.objective - milp_value) > 1e-6 * std::max(1.0, res.objective))
        throw std::runtime_error("exact: MILP optimum " + std::to_string(milp_value) + " differs from the VMCAP re-evaluation " +
                                 std::to_string(res.objective));
    if (res.proven) res.bound = res.objective;
    res.start_objective = start_state.objective_value();
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    res.stopped_by = res.proven ? "proven optimal" : "time limit";
    return res;
}

}  // namespace vmcap
