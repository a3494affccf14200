#include "evaluators/closed_forms/vmcap_milp.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <coin/CbcModel.hpp>
#include <coin/CoinMessageHandler.hpp>
#include <coin/OsiClpSolverInterface.hpp>

namespace {
/** Wall-clock limit of one CBC run; beyond it vmcap_cbc throws instead of hanging a test. */
constexpr double kCbcSecondsLimit = 60.0;
}  // namespace

namespace vmcap {
namespace {

/** One CBC branch and cut over the placements `masks` (all with a positive cap). */
Count solve_with_cbc(const std::vector<unsigned>& masks, int n, const Count* b) {
    const int m = static_cast<int>(masks.size());
    // Column-major 0/1 matrix; column j = placement j, row i = pNUMA node i.
    std::vector<CoinBigIndex> start(m + 1, 0);
    std::vector<int> index;
    std::vector<double> value, collb(m, 0.0), colub(m), obj(m, 1.0), rowlb(n, 0.0), rowub(n);
    for (int i = 0; i < n; ++i) rowub[i] = static_cast<double>(b[i]);
    for (int j = 0; j < m; ++j) {
        // x_S <= min_{i in S} b_i is implied; stating it helps CBC.
        Count cap = std::numeric_limits<Count>::max();
        for (unsigned s = masks[j]; s; s &= s - 1U) {
            const int i = std::countr_zero(s);
            cap = std::min(cap, b[i]);
            index.push_back(i);
            value.push_back(1.0);
        }
        colub[j] = static_cast<double>(cap);
        start[j + 1] = static_cast<CoinBigIndex>(index.size());
    }

    OsiClpSolverInterface solver;
    solver.messageHandler()->setLogLevel(0);
    solver.loadProblem(m, n, start.data(), index.data(), value.data(), collb.data(), colub.data(), obj.data(), rowlb.data(), rowub.data());
    solver.setObjSense(-1.0);  // maximise
    for (int j = 0; j < m; ++j) solver.setInteger(j);

    CbcModel model(solver);
    model.setLogLevel(0);
    model.messageHandler()->setLogLevel(0);
    model.solver()->messageHandler()->setLogLevel(0);
    model.setMaximumSeconds(kCbcSecondsLimit);
    model.branchAndBound();
    if (!model.isProvenOptimal())
        throw std::runtime_error("vmcap_cbc: CBC did not prove optimality within " + std::to_string(kCbcSecondsLimit) + " s (status " +
                                 std::to_string(model.status()) + ")");

    const double* x = model.bestSolution();
    if (x == nullptr) {
        // x = 0 is always feasible, so a proven optimum without a stored solution means 0.
        if (std::abs(model.getObjValue()) > 0.5) throw std::runtime_error("vmcap_cbc: optimum reported without a solution");
        return 0;
    }
    // Check the solution in integer arithmetic; the oracle must not trust tolerances.
    std::vector<Count> used(n, 0);
    Count total = 0;
    for (int j = 0; j < m; ++j) {
        const double r = std::round(x[j]);
        if (std::abs(x[j] - r) > 1e-6 * std::max(1.0, std::abs(r)) || r < 0.0)
            throw std::runtime_error("vmcap_cbc: non-integral value " + std::to_string(x[j]));
        const Count v = static_cast<Count>(r);
        total += v;
        for (CoinBigIndex p = start[j]; p < start[j + 1]; ++p) used[index[p]] += v;
    }
    for (int i = 0; i < n; ++i)
        if (used[i] > b[i]) throw std::runtime_error("vmcap_cbc: solution exceeds the capacity of node " + std::to_string(i));
    if (std::abs(static_cast<double>(total) - std::abs(model.getObjValue())) > 0.5)
        throw std::runtime_error("vmcap_cbc: objective " + std::to_string(model.getObjValue()) + " disagrees with the solution's count " +
                                 std::to_string(total));
    return total;
}

}  // namespace

Count vmcap_cbc(std::span<const Embedding> placements, int n, const Count* b) {
    if (n <= 0) return 0;
    const unsigned all = n >= 16 ? 0xFFFFU : ((1U << n) - 1U);
    unsigned positive = 0;
    for (int i = 0; i < n; ++i)
        if (b[i] > 0) positive |= 1U << i;
    // Placements that can be used at all (non-empty, inside the host, no node at capacity 0).
    std::vector<unsigned> masks;
    for (const Embedding& e : placements) {
        const unsigned s = e.mask;
        if (s != 0 && (s & ~all) == 0 && (s & ~positive) == 0) masks.push_back(s);
    }
    // Independent components are separate models: CBC proves optimality of a sum of components
    // with half-integral LP gaps only by deep branching (hours at capacities ~10^6).
    std::vector<unsigned> comps;
    for (unsigned s : masks) {
        unsigned merged = s;
        std::vector<unsigned> rest;
        for (unsigned c : comps) {
            if (c & merged)
                merged |= c;
            else
                rest.push_back(c);
        }
        rest.push_back(merged);
        comps.swap(rest);
    }

    static std::mutex cbc_mutex;
    std::lock_guard<std::mutex> lock(cbc_mutex);
    Count total = 0;
    for (unsigned comp : comps) {
        std::vector<unsigned> part;
        for (unsigned s : masks)
            if (s & comp) part.push_back(s);
        total += solve_with_cbc(part, n, b);
    }
    return total;
}

}  // namespace vmcap
