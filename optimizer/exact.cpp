#include "optimizer/exact.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include <coin/CbcModel.hpp>
#include <coin/CoinMessageHandler.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/CoinPackedVector.hpp>
#include <coin/OsiClpSolverInterface.hpp>

#include "evaluators/link_filter.h"

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

ExactResult solve_exact(const CapacityModel& model, double time_limit_s) {
    const auto t0 = std::chrono::steady_clock::now();
    const Problem& p = model.problem();
    const LinkCapacityFilter* links = check_exact_scope(model);
    const int H = static_cast<int>(p.hosts.size());
    const int R = p.num_resources();
    const int T = model.num_targets();

    // Usage of the non-migratable VMs: constant.
    std::vector<std::vector<Amount>> fixed(H);
    for (int h = 0; h < H; ++h) fixed[h].assign(p.host_type_of(h).node_capacity.size(), 0);
    for (const Vm& vm : p.vms) {
        if (vm.migratable) continue;
        const Flavor& fl = p.flavors[vm.flavor];
        for (int i = 0; i < fl.num_vnuma(); ++i)
            for (int r = 0; r < R; ++r) fixed[vm.host][vm.pnuma[i] * R + r] += fl.node_demand[r];
    }

    std::vector<double> collb, colub, obj;
    std::vector<char> integer;
    struct XCol {
        int vm, host, emb;
        bool stay;
    };
    std::vector<XCol> xcols;
    struct YCol {
        int target, host, emb;
    };
    std::vector<YCol> ycols;
    auto fits_empty = [&](int flavor, int host, const Embedding& e) {
        const HostType& ht = p.host_type_of(host);
        const Flavor& fl = p.flavors[flavor];
        for (int i = 0; i < fl.num_vnuma(); ++i)
            for (int r = 0; r < R; ++r)
                if (fixed[host][e.map[i] * R + r] + fl.node_demand[r] > ht.node_capacity[e.map[i] * R + r]) return false;
        return true;
    };
    std::vector<std::vector<int>> vm_cols(p.vms.size());
    for (std::size_t v = 0; v < p.vms.size(); ++v) {
        const Vm& vm = p.vms[v];
        if (!vm.migratable) continue;
        const unsigned orig_mask = node_mask(vm.pnuma.data(), p.flavors[vm.flavor].num_vnuma());
        for (int h = 0; h < H; ++h) {
            const auto& pl = model.evaluator(p.hosts[h].type, vm.flavor).placements();
            for (std::size_t e = 0; e < pl.size(); ++e) {
                const bool stay = h == vm.host && pl[e].mask == orig_mask;
                if (!stay && !fits_empty(vm.flavor, h, pl[e])) continue;
                vm_cols[v].push_back(static_cast<int>(xcols.size()));
                xcols.push_back(XCol{static_cast<int>(v), h, static_cast<int>(e), stay});
            }
        }
    }
    const int nx = static_cast<int>(xcols.size());
    for (int c = 0; c < nx; ++c) {
        collb.push_back(0);
        colub.push_back(1);
        obj.push_back(0);
        integer.push_back(1);
    }
    for (int j = 0; j < T; ++j) {
        const int f = model.target_flavor(j);
        for (int h = 0; h < H; ++h) {
            const auto& pl = model.evaluator(p.hosts[h].type, f).placements();
            for (std::size_t e = 0; e < pl.size(); ++e) {
                if (!fits_empty(f, h, pl[e])) continue;
                ycols.push_back(YCol{j, h, static_cast<int>(e)});
                // Finite bound: no more copies than the emptiest node of the placement can hold.
                Amount ub = std::numeric_limits<Amount>::max();
                const HostType& ht = p.host_type_of(h);
                for (int i = 0; i < p.flavors[f].num_vnuma(); ++i)
                    for (int r = 0; r < R; ++r)
                        if (p.flavors[f].node_demand[r] > 0)
                            ub = std::min(ub, (ht.node_capacity[pl[e].map[i] * R + r] - fixed[h][pl[e].map[i] * R + r]) /
                                                  p.flavors[f].node_demand[r]);
                collb.push_back(0);
                colub.push_back(static_cast<double>(ub));
                obj.push_back(model.target_weight(j));
                integer.push_back(1);
            }
        }
    }
    // Link rule (exact.h). A vlink with one end fixed loads each link linearly in the moving
    // end's x. With both ends migratable: d[e,h] >= |u[a,h] - u[b,h]| (1 iff the vlink crosses
    // host h's NIC) carries scale() x mbps on uplink h, and z[e,s,t] >= U[a,s] + U[b,t] - 1 (U:
    // u summed over the hosts on switch s) carries the route shares of s -> t, s != t. d and z
    // are continuous in [0, 1]; the link rows bound them only from above, so their values at an
    // integer x (|difference|, product) are always feasible and the rows are exact there.
    struct AuxCol {
        std::vector<std::pair<int, double>> lower[2];  // rows aux - sum coef x >= rhs[k] (0, 1 or 2 rows)
        double rhs[2] = {0.0, 0.0};
        int rows = 0;
        double start = 0.0;  // value at the snapshot
    };
    std::vector<AuxCol> aux;
    const int L = links ? links->routes().num_links() : 0;
    std::vector<std::map<int, double>> link_coef(L);  // [link] column -> micro-units
    std::vector<double> link_const(L, 0.0);           // [link] load of the vlinks between fixed VMs
    if (links) {
        const NetworkRoutes& routes = links->routes();
        const std::vector<int>& sw = p.network.host_switch;
        const double scale = static_cast<double>(routes.scale());
        auto new_aux = [&](AuxCol a) {
            const int c = static_cast<int>(collb.size());
            collb.push_back(0);
            colub.push_back(1);
            obj.push_back(0);
            integer.push_back(0);
            aux.push_back(std::move(a));
            return c;
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
                for (int c : vm_cols[mv])
                    routes.for_each_share(xcols[c].host, fixed_host,
                                          [&](int link, std::int64_t units) { link_coef[link][c] += mbps * static_cast<double>(units); });
                continue;
            }
            for (int h = 0; h < H; ++h) {
                AuxCol d;
                for (int k = 0; k < 2; ++k) {
                    const double sign = k == 0 ? 1.0 : -1.0;  // d >= u[a,h] - u[b,h], d >= u[b,h] - u[a,h]
                    for (int c : vm_cols[vl.a])
                        if (xcols[c].host == h) d.lower[k].emplace_back(c, -sign);
                    for (int c : vm_cols[vl.b])
                        if (xcols[c].host == h) d.lower[k].emplace_back(c, sign);
                }
                if (d.lower[0].empty()) continue;  // neither end can be on h
                d.rows = 2;
                d.start = (ha0 == h) != (hb0 == h) ? 1.0 : 0.0;
                link_coef[h][new_aux(std::move(d))] += mbps * scale;
            }
            for (std::size_t s = 0; s < p.network.switches.size(); ++s)
                for (std::size_t t = 0; t < p.network.switches.size(); ++t) {
                    if (s == t) continue;
                    AuxCol z;
                    z.rows = 1;
                    z.rhs[0] = -1.0;
                    for (int c : vm_cols[vl.a])
                        if (sw[xcols[c].host] == static_cast<int>(s)) z.lower[0].emplace_back(c, -1.0);
                    const std::size_t on_s = z.lower[0].size();
                    for (int c : vm_cols[vl.b])
                        if (sw[xcols[c].host] == static_cast<int>(t)) z.lower[0].emplace_back(c, -1.0);
                    if (on_s == 0 || z.lower[0].size() == on_s) continue;  // an end never under s, or never under t
                    z.start = sw[ha0] == static_cast<int>(s) && sw[hb0] == static_cast<int>(t) ? 1.0 : 0.0;
                    const int col = new_aux(std::move(z));
                    for (const LinkShare& ls : routes.route(static_cast<int>(s), static_cast<int>(t)))
                        link_coef[ls.link][col] += mbps * static_cast<double>(ls.share);
                }
        }
    }
    const int ncols = static_cast<int>(collb.size());
    const int aux0 = ncols - static_cast<int>(aux.size());

    CoinPackedMatrix m(false, 0, 0);
    m.setDimensions(0, ncols);
    std::vector<double> rowlb, rowub;
    auto add_row = [&](const CoinPackedVector& row, double lb, double ub) {
        m.appendRow(row);
        rowlb.push_back(lb);
        rowub.push_back(ub);
    };
    // Each migratable VM in exactly one placement.
    for (std::size_t v = 0; v < p.vms.size(); ++v) {
        if (!p.vms[v].migratable) continue;
        CoinPackedVector row;
        for (int c : vm_cols[v]) row.insert(c, 1.0);
        add_row(row, 1.0, 1.0);
    }
    // Capacity rows: VMs alone (t = -1), then VMs plus the packing of each target flavor.
    for (int h = 0; h < H; ++h) {
        const HostType& ht = p.host_type_of(h);
        for (int i = 0; i < ht.num_nodes(); ++i)
            for (int r = 0; r < R; ++r)
                for (int t = -1; t < T; ++t) {
                    CoinPackedVector row;
                    for (int c = 0; c < nx; ++c) {
                        const XCol& x = xcols[c];
                        if (x.host != h) continue;
                        const Embedding& e = model.evaluator(p.hosts[h].type, p.vms[x.vm].flavor).placements()[x.emb];
                        if ((e.mask >> i) & 1U) {
                            const Amount d = p.flavors[p.vms[x.vm].flavor].node_demand[r];
                            if (d != 0) row.insert(c, static_cast<double>(d));
                        }
                    }
                    if (t >= 0) {
                        const int f = model.target_flavor(t);
                        const Amount d = p.flavors[f].node_demand[r];
                        if (d == 0) continue;  // same as the t = -1 row
                        for (std::size_t c = 0; c < ycols.size(); ++c) {
                            const YCol& y = ycols[c];
                            if (y.target != t || y.host != h) continue;
                            if ((model.evaluator(p.hosts[h].type, f).placements()[y.emb].mask >> i) & 1U)
                                row.insert(nx + static_cast<int>(c), static_cast<double>(d));
                        }
                    }
                    add_row(row, -COIN_DBL_MAX, static_cast<double>(ht.node_capacity[i * R + r] - fixed[h][i * R + r]));
                }
    }
    // Budget: VMs that stay on their snapshot placement.
    {
        CoinPackedVector count, ram;
        double movable = 0, movable_ram = 0;
        for (int c = 0; c < nx; ++c)
            if (xcols[c].stay) {
                const double mib = static_cast<double>(p.flavors[p.vms[xcols[c].vm].flavor].demand[kRamMib]);
                count.insert(c, 1.0);
                ram.insert(c, mib);
                movable += 1;
                movable_ram += mib;
            }
        if (p.constraints.max_migrations < static_cast<std::int64_t>(movable))
            add_row(count, movable - static_cast<double>(p.constraints.max_migrations), COIN_DBL_MAX);
        if (static_cast<double>(p.constraints.max_migrated_ram_mib) < movable_ram)
            add_row(ram, movable_ram - static_cast<double>(p.constraints.max_migrated_ram_mib), COIN_DBL_MAX);
    }

    // Link rows: the lower bounds of d and z, then every link's load <= max(capacity, snapshot load).
    for (std::size_t k = 0; k < aux.size(); ++k)
        for (int r = 0; r < aux[k].rows; ++r) {
            CoinPackedVector row;
            row.insert(aux0 + static_cast<int>(k), 1.0);
            for (const auto& [c, coef] : aux[k].lower[r]) row.insert(c, coef);
            add_row(row, aux[k].rhs[r], COIN_DBL_MAX);
        }
    for (int l = 0; l < L; ++l) {
        if (link_coef[l].empty()) continue;
        CoinPackedVector row;
        for (const auto& [c, units] : link_coef[l]) row.insert(c, units);
        add_row(row, -COIN_DBL_MAX, static_cast<double>(links->allowance(l, 0)) - link_const[l]);
    }

    OsiClpSolverInterface solver;
    solver.messageHandler()->setLogLevel(0);
    solver.loadProblem(m, collb.data(), colub.data(), obj.data(), rowlb.data(), rowub.data());
    solver.setObjSense(-1.0);
    for (int c = 0; c < ncols; ++c)
        if (integer[c]) solver.setInteger(c);
    // Start from the snapshot (all VMs stay, y = 0): always feasible.
    CbcModel cbc(solver);
    cbc.setLogLevel(0);
    cbc.messageHandler()->setLogLevel(0);
    cbc.solver()->messageHandler()->setLogLevel(0);
    cbc.setMaximumSeconds(time_limit_s);
    {
        std::vector<double> start(ncols, 0.0);
        for (int c = 0; c < nx; ++c) start[c] = xcols[c].stay ? 1.0 : 0.0;
        for (std::size_t k = 0; k < aux.size(); ++k) start[aux0 + static_cast<int>(k)] = aux[k].start;
        cbc.setBestSolution(start.data(), ncols, 0.0, true);
    }
    cbc.branchAndBound();

    ExactResult res;
    res.columns = ncols;
    res.rows = static_cast<int>(rowlb.size());
    res.proven = cbc.isProvenOptimal();
    res.bound = std::abs(cbc.getBestPossibleObjValue());  // the objective is >= 0; CBC's sign follows its internal minimisation
    const double* x = cbc.bestSolution();
    if (x == nullptr) throw std::runtime_error("exact: CBC returned no solution");
    for (std::size_t v = 0; v < p.vms.size(); ++v) {
        if (!p.vms[v].migratable) continue;
        int chosen = -1;
        for (int c : vm_cols[v])
            if (x[c] > 0.5) {
                if (chosen >= 0) throw std::runtime_error("exact: VM " + p.vms[v].id + " placed twice");
                chosen = c;
            }
        if (chosen < 0) throw std::runtime_error("exact: VM " + p.vms[v].id + " not placed");
        if (xcols[chosen].stay) continue;
        const XCol& xc = xcols[chosen];
        const Embedding& e = model.evaluator(p.hosts[xc.host].type, p.vms[v].flavor).placements()[xc.emb];
        Placement pl;
        pl.vm = static_cast<int>(v);
        pl.host = xc.host;
        pl.pnuma = e.map;
        res.best.push_back(pl);
    }
    // Re-evaluate the optimum with the exact VMCAP evaluators (the MILP's y are a packing that
    // VMCAP may exceed only if the model were wrong; a mismatch is a bug, reported loudly).
    SearchState s(model);
    s.set_placements(res.best);
    res.objective = s.objective_value();
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
    if (res.proven && std::abs(res.objective - std::abs(cbc.getObjValue())) > 1e-6 * std::max(1.0, res.objective))
        throw std::runtime_error("exact: MILP optimum " + std::to_string(std::abs(cbc.getObjValue())) +
                                 " differs from the VMCAP re-evaluation " + std::to_string(res.objective));
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    res.stopped_by = res.proven ? "proven optimal" : "time limit";
    return res;
}

}  // namespace vmcap
