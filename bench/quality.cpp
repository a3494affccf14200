// Quality suite: annealing and greedy against the proven optimum (MILP, CBC) on small generated
// instances. Prints a Markdown table and a summary; exit code 1 if the annealing is ever below
// greedy or its average gap to the optimum exceeds the target (0.5%).
//
// usage: vmcap_quality [--instances N] [--sa-evaluations E] [--cbc-seconds S]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "evaluators/capacity_model.h"
#include "instances/generator.h"
#include "optimizer/annealing.h"
#include "optimizer/exact.h"
#include "optimizer/greedy.h"
#include "optimizer/plan.h"

using namespace vmcap;

int main(int argc, char** argv) {
    int instances = 24;
    std::int64_t sa_evals = 2000000;
    double cbc_seconds = 120;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--instances")) instances = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--sa-evaluations")) sa_evals = std::atoll(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--cbc-seconds")) cbc_seconds = std::atof(argv[i + 1]);
        else {
            std::fprintf(stderr, "usage: vmcap_quality [--instances N] [--sa-evaluations E] [--cbc-seconds S]\n");
            return 2;
        }
    }
    const char* topologies[] = {"CQ3", "K4", "Q33", "2xK4", "C4", "K2"};
    std::printf("| # | host | hosts | VMs | budget | before | greedy | annealing | optimum | proven | gap %% | CBC s | SA s |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    double gap_sum = 0;
    int counted = 0, below_greedy = 0, unproven = 0;
    for (int k = 0; k < instances; ++k) {
        GenerateOptions o;
        o.host_topology = topologies[k % 6];
        const bool small_host = o.host_topology == "C4" || o.host_topology == "K2" || o.host_topology == "K4";
        o.hosts = 4 + (k * 7) % 7;                      // 4..10
        o.vms = 20 + (k * 13) % 21;                     // 20..40
        o.node_vcpu = small_host ? 16 : 8;
        o.node_ram_mib = (small_host ? 64 : 32) * 1024;
        o.churn = 0.5;
        o.migration_budget = (k % 3 == 0) ? 0.05 : (k % 3 == 1 ? 0.1 : 0.25);
        o.seed = 1000 + k;
        Problem p = generate_cluster(o);
        const CapacityModel m(p);
        if (m.num_targets() == 0) continue;
        SearchParams sp;
        sp.quiet = true;
        sp.seed = 1;
        sp.time_limit_s = 10;
        const SearchResult g = greedy(m, sp);
        const double greedy_obj = build_plan(m, g.best).objective_after;
        sp.start = g.best;
        sp.max_evaluations = sa_evals;
        const SearchResult sa = anneal(m, sp);
        const double sa_obj = build_plan(m, sa.best).objective_after;
        const ExactResult ex = solve_exact(m, cbc_seconds);
        const double opt = ex.objective;
        const double gap = opt > 0 ? 100.0 * (opt - sa_obj) / opt : 0.0;
        if (ex.proven) {
            gap_sum += gap;
            ++counted;
        } else {
            ++unproven;
        }
        if (sa_obj < greedy_obj) ++below_greedy;
        std::printf("| %d | %s | %zu | %zu | %lld | %g | %g | %g | %g | %s | %.2f | %.1f | %.1f |\n", k + 1, o.host_topology.c_str(), p.hosts.size(),
                    p.vms.size(), static_cast<long long>(p.constraints.max_migrations), g.objective_before, greedy_obj, sa_obj, opt,
                    ex.proven ? "yes" : "no", gap, ex.seconds, sa.seconds);
        std::fflush(stdout);
    }
    const double avg = counted ? gap_sum / counted : 0.0;
    std::printf("\nsummary: %d instances with a proven optimum, average annealing gap %.3f%%, annealing below greedy on %d, unproven %d\n",
                counted, avg, below_greedy, unproven);
    return (below_greedy == 0 && avg <= 0.5) ? 0 : 1;
}
