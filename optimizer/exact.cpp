#include "optimizer/exact.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <coin/CbcModel.hpp>
#include <coin/CoinMessageHandler.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/CoinPackedVector.hpp>
#include <coin/OsiClpSolverInterface.hpp>

namespace vmcap {

ExactResult solve_exact(const CapacityModel& model, double time_limit_s) {
    const auto t0 = std::chrono::steady_clock::now();
    const Problem& p = model.problem();
    if (!p.constraints.remap_counts_as_migration)
        throw std::invalid_argument("the exact solvers need constraints.remap_counts_as_migration = true (free remaps are not modelled)");
    if (model.has_terms() || model.has_filters())
        throw std::invalid_argument(
            "the exact solvers optimise VMCAP capacity under the built-in rules only (no further objective terms or feasibility filters)");
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
    const int ncols = static_cast<int>(collb.size());

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
    if (res.proven && std::abs(res.objective - std::abs(cbc.getObjValue())) > 1e-6 * std::max(1.0, res.objective))
        throw std::runtime_error("exact: MILP optimum " + std::to_string(std::abs(cbc.getObjValue())) +
                                 " differs from the VMCAP re-evaluation " + std::to_string(res.objective));
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    res.stopped_by = res.proven ? "proven optimal" : "time limit";
    return res;
}

}  // namespace vmcap
