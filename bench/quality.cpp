// Quality suite (vmcap_quality): greedy and annealing against the proven optimum of the branch and
// bound (optimizer/exact_bb.h) on small generated instances (<= 10 hosts, <= 40 VMs; host
// topologies CQ3, K4, Q33, 2xK4, C4, K2; budgets of 1-6 migrations; see instance()). Greedy and annealing run as
// `vmcap plan` does (greedy, then annealing from its plan, default parameters, 1 thread, seed 1,
// 10 s wall-clock per instance for both together). All three are compared on the final state they
// reach (the exact solver's semantics); the plan built from the annealing state is checked to keep
// that value. Prints a Markdown table and a summary; exit code 1 if the annealing is ever below
// greedy, its average gap to the optimum exceeds 0.5%, or an optimum is not proven.
//
// usage: vmcap_quality [--instances N] [--sa-seconds S] [--exact-seconds S] [--only K] [--cold 1] [--symmetry 0]
//                      [--mix-remap P] [--milp 1]
// (--mix-remap P: annealing proposes same-host remaps with probability P instead of the default.)
// (--cold 1: the exact solver starts from the snapshot instead of greedy + a short annealing run;
// --symmetry 0: without symmetry breaking. Both only cross-check the solver: same optima, slower.
// --milp 1: also solves every instance with the aggregated MILP of `vmcap exact --method milp`
// (exact.h; CBC started from the snapshot with --cold 1), prints its time in an extra column, and
// exits 1 if both are proven with different optima.)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "evaluators/capacity_model.h"
#include "instances/generator.h"
#include "optimizer/optimize.h"
#include "optimizer/exact.h"
#include "optimizer/exact_bb.h"
#include "optimizer/greedy.h"
#include "optimizer/plan.h"

using namespace vmcap;

namespace {

/**
 * Instance k of the suite (30 by default), topology cycling over CQ3, K4, Q33, 2xK4, C4, K2.
 * k < 18, "sparse": 4-10 hosts with full-size nodes, 20-40 VMs, budget 1, 2, 3 migrations.
 * k >= 18, "dense": 4-6 hosts with half-size nodes on 8-node hosts, 36-40 VMs (hosts about half
 * full, so landing a moved VM costs capacity), budget 4 (k < 24) or 6 migrations. A budget of 8
 * on dense 8-node hosts was not proven within 60 s (docs/performance.md), so the suite stops at 6.
 */
GenerateOptions instance(int k, int& budget, const char*& kind) {
    const char* topologies[] = {"CQ3", "K4", "Q33", "2xK4", "C4", "K2"};
    GenerateOptions o;
    o.host_topology = topologies[k % 6];
    const bool small_host = o.host_topology == "C4" || o.host_topology == "K2" || o.host_topology == "K4";
    o.churn = 0.5;
    o.seed = 1000 + static_cast<std::uint64_t>(k);
    if (k < 18) {
        kind = "sparse";
        o.hosts = 4 + (k * 5) % 7;   // 4..10
        o.vms = 20 + (k * 13) % 21;  // 20..40
        o.node_vcpu = small_host ? 16 : 8;
        o.node_ram_mib = (small_host ? 64 : 32) * 1024;
        budget = 1 + k / 6;
    } else {
        kind = "dense";
        o.hosts = 4 + k % 3;  // 4..6
        o.vms = 36 + k % 5;   // 36..40
        o.node_vcpu = small_host ? 8 : 4;
        o.node_ram_mib = (small_host ? 32 : 16) * 1024;
        if (o.host_topology == "K2") {
            o.node_vcpu = 16;
            o.node_ram_mib = 64 * 1024;
        }
        budget = k < 24 ? 4 : 6;
    }
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    int instances = 30, only = -1, cold = 0, symmetry = 1, milp = 0;
    double mix_remap = -1;           // < 0: the annealing's default move mix
    double neutral_acceptance = -1;  // < 0: the annealing's default
    double sa_seconds = 10, exact_seconds = 300;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) {
            std::fprintf(stderr, "vmcap_quality: %s needs a value\n", argv[i]);
            return 2;
        }
        if (!std::strcmp(argv[i], "--instances"))
            instances = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--sa-seconds"))
            sa_seconds = std::atof(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--exact-seconds"))
            exact_seconds = std::atof(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--only"))
            only = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--cold"))
            cold = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--symmetry"))
            symmetry = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--mix-remap"))
            mix_remap = std::atof(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--milp"))
            milp = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--neutral-acceptance"))
            neutral_acceptance = std::atof(argv[i + 1]);
        else {
            std::fprintf(stderr,
                         "usage: vmcap_quality [--instances N] [--sa-seconds S] [--exact-seconds S] [--only K] [--cold 1] [--symmetry 0] "
                         "[--mix-remap P] [--neutral-acceptance P] [--milp 1]\n");
            return 2;
        }
    }
    if (instances < 1 || !(sa_seconds > 0) || !(exact_seconds > 0)) {
        std::fprintf(stderr, "vmcap_quality: --instances must be >= 1, --sa-seconds and --exact-seconds > 0\n");
        return 2;
    }
    std::printf(
        "| # | kind | topology | hosts | VMs | budget | before | greedy | annealing | tabu | optimum | proven | gap %% | exact s | SA s | "
        "B&B nodes |%s\n",
        milp ? " MILP s | MILP proven |" : "");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|%s\n", milp ? "---|---|" : "");
    int milp_mismatch = 0, milp_unproven = 0;
    double milp_total = 0, milp_max = 0;
    double gap_sum = 0, exact_total = 0, exact_max = 0;
    int counted = 0, below_greedy = 0, unproven = 0, at_optimum = 0, plan_short = 0, tabu_at_optimum = 0;
    double tabu_gap_sum = 0.0;
    std::vector<int> missed;
    for (int k = 0; k < instances; ++k) {
        if (only >= 0 && k != only) continue;
        int budget = 0;
        const char* kind = "";
        const GenerateOptions o = instance(k, budget, kind);
        Problem p = generate_cluster(o);
        p.constraints.max_migrations = budget;
        const CapacityModel m(p);
        if (m.num_targets() == 0) continue;

        // As `vmcap plan` (default): greedy, then annealing from its plan within the time left.
        SearchParams sp;
        sp.quiet = true;
        sp.seed = 1;
        sp.time_limit_s = sa_seconds;
        if (mix_remap >= 0) sp.mix.set("remap", mix_remap);
        if (neutral_acceptance >= 0) sp.neutral_acceptance = neutral_acceptance;
        OptimizeParams op;
        op.search = sp;
        const auto t0 = std::chrono::steady_clock::now();
        const SearchResult g = greedy(m, sp);
        const OptimizeResult run = optimize(m, op);
        const SearchResult& sa = run.search;
        const double sa_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (build_plan(m, sa.best).objective_after < sa.objective_best) ++plan_short;
        // Tabu search the same way (reported beside the annealing; the targets are the annealing's).
        op.algorithm = Algorithm::Tabu;
        const SearchResult tb = optimize(m, op).search;

        BranchBoundParams bp;
        bp.time_limit_s = exact_seconds;
        if (cold) bp.warm_start_evaluations = -1;
        bp.symmetry = symmetry != 0;
        // The suite compares final states (the annealing's best, the MILP's optimum), so the
        // branch and bound optimises over final states too, not only those a plan reaches.
        bp.orderable_only = false;
        const ExactResult ex = solve_exact_bb(m, bp);
        const double opt = ex.objective;
        const double gap = opt > 0 ? 100.0 * (opt - sa.objective_best) / opt : 0.0;
        if (ex.proven) {
            gap_sum += gap;
            tabu_gap_sum += opt > 0 ? 100.0 * (opt - tb.objective_best) / opt : 0.0;
            if (tb.objective_best >= opt) ++tabu_at_optimum;
            ++counted;
            if (sa.objective_best >= opt)
                ++at_optimum;
            else
                missed.push_back(k + 1);
        } else {
            ++unproven;
        }
        exact_total += ex.seconds;
        exact_max = std::max(exact_max, ex.seconds);
        if (sa.objective_best < g.objective_best) ++below_greedy;
        std::printf("| %d | %s | %s | %zu | %zu | %d | %g | %g | %g | %g | %g | %s | %.2f | %.2f | %.2f | %lld |", k + 1, kind,
                    o.host_topology.c_str(), p.hosts.size(), p.vms.size(), budget, g.objective_before, g.objective_best, sa.objective_best,
                    tb.objective_best, opt, ex.proven ? "yes" : "no", gap, ex.seconds, sa_s, static_cast<long long>(ex.nodes));
        if (milp) {
            // The aggregated MILP on the same instance: an independent formulation and solver.
            MilpParams mp;
            mp.time_limit_s = exact_seconds;
            if (cold) mp.warm_start_evaluations = -1;
            const ExactResult mx = solve_exact(m, mp);
            milp_total += mx.seconds;
            milp_max = std::max(milp_max, mx.seconds);
            if (!mx.proven) ++milp_unproven;
            const bool differ = mx.proven && ex.proven && std::abs(mx.objective - opt) > 1e-9 * std::max(1.0, opt);
            milp_mismatch += differ ? 1 : 0;
            std::printf(" %.2f | %s%s |", mx.seconds, mx.proven ? "yes" : "no", differ ? " (DIFFERENT OPTIMUM)" : "");
        }
        std::printf("\n");
        std::fflush(stdout);
    }
    const double avg = counted ? gap_sum / counted : 0.0;
    std::printf(
        "\nsummary: %d instances with a proven optimum (%d unproven); annealing at the optimum on %d, average gap %.3f%%, "
        "below greedy on %d; exact solve %.2f s total, %.2f s max",
        counted, unproven, at_optimum, avg, below_greedy, exact_total, exact_max);
    if (plan_short > 0) std::printf("; plan of the annealing state shorter on %d", plan_short);
    std::printf("\ntabu search (reported, not a target): at the optimum on %d, average gap %.3f%%", tabu_at_optimum,
                counted ? tabu_gap_sum / counted : 0.0);
    std::printf("\n");
    if (!missed.empty()) {
        std::printf("annealing below the optimum on instance(s):");
        for (int k : missed) std::printf(" %d", k);
        std::printf("\n");
    }
    if (milp)
        std::printf("aggregated MILP: %d unproven, %d optima different from the branch and bound; %.2f s total, %.2f s max\n",
                    milp_unproven, milp_mismatch, milp_total, milp_max);
    return (below_greedy == 0 && avg <= 0.5 && unproven == 0 && milp_mismatch == 0) ? 0 : 1;
}
