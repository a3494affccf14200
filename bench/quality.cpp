// Quality suite (vmcap_quality): greedy and annealing against the proven optimum of the branch and
// bound (optimizer/solvers/exact_bb.h) on small generated instances (<= 10 hosts, <= 40 VMs; host
// topologies CQ3, K4, Q33, 2xK4, C4, K2; budgets of 1-6 migrations; see instance()), then the
// extra rows of extra_cases() (a two-host remap swap; four instances with the ram-cost term).
// Greedy and annealing run as `vmcap plan` does (greedy, then annealing from its plan, default
// parameters, 1 thread, seed 1, the default evaluation budget, at most 10 s wall-clock per
// instance for both together). All three are compared on the final state they reach (the exact
// solver's semantics); the plan built from the annealing state is checked to keep that value.
// With the ram-cost term the optimum is the branch and bound's under lowered RAM budgets
// (exact_with_ram_cost: the solver refuses the term). Prints a Markdown table and a summary; exit
// code 1 if the annealing is ever below greedy, its average gap to the optimum exceeds 0.5%, or an
// optimum is not proven.
//
// usage: vmcap_quality [--instances N] [--sa-seconds S] [--exact-seconds S] [--only K] [--cold 1] [--symmetry 0]
//                      [--mix-remap P] [--move-mix kind=p,...] [--neutral-acceptance P] [--ram-cost W]
//                      [--max-evaluations E] [--sa-start greedy|snapshot] [--initial-temperature T]
//                      [--seed K] [--optima-file F] [--extra 0] [--milp 1]
// (--mix-remap P / --move-mix: the annealing's move mix instead of the default; --ram-cost W: every
// generated instance gets the ram-cost term W; --extra 0: no extra rows; --only K: row K, 0-based.)
// (--cold 1: the exact solver starts from the snapshot instead of greedy + a short annealing run;
// --symmetry 0: without symmetry breaking. Both only cross-check the solver: same optima, slower.
// --milp 1: also solves every instance without a term with the aggregated MILP of `vmcap exact
// --method milp` (exact.h; CBC started from the snapshot with --cold 1), prints its time in an
// extra column, and exits 1 if both are proven with different optima.)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "evaluators/state/capacity_model.h"
#include "instances/generator.h"
#include "optimizer/solvers/optimize.h"
#include "optimizer/solvers/exact.h"
#include "optimizer/solvers/exact_bb.h"
#include "optimizer/search/greedy.h"
#include "optimizer/plan/plan.h"
#include "evaluators/state/search_state.h"
#include "tests/tight_cases.h"

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

/**
 * Proven optimum of problem `p` whose objective has further terms that the branch and bound does
 * not model, here only "ram-cost" (W per GiB migrated, counted as the budget counts RAM): the
 * branch and bound without the term, under a RAM budget G that a loop lowers. With opt(G) the
 * capacity optimum among states moving at most G MiB, and (c, r) its value and RAM, every state
 * moving more than r - 1 and at most G MiB is worth at most c - W r; so G := r - 1 until
 * opt(G) <= the best value found (every state left is worth at most opt(G)). The state reached
 * is re-scored under the full objective. `proven` iff every solve was proven; `nodes` and
 * `seconds` are summed; `rounds` counts the solves.
 */
ExactResult exact_with_ram_cost(const Problem& p, const BranchBoundParams& bp, int& rounds) {
    Problem q = p;
    q.objective_terms.clear();
    const CapacityModel full(p);
    ExactResult out;
    out.proven = true;
    out.objective = -1e300;
    rounds = 0;
    Amount g = q.constraints.max_migrated_ram_mib;
    for (;;) {
        q.constraints.max_migrated_ram_mib = g;
        const CapacityModel mq(q);
        const ExactResult ex = solve_exact_bb(mq, bp);
        ++rounds;
        out.seconds += ex.seconds;
        out.nodes += ex.nodes;
        out.proven = out.proven && ex.proven;
        if (ex.objective <= out.objective + 1e-9) break;  // nothing within G can beat the best
        SearchState s(full);
        s.set_placements(ex.best);
        if (s.objective_value() > out.objective) {
            out.objective = s.objective_value();
            out.best = ex.best;
        }
        if (s.migrated_ram_mib() == 0) break;
        g = s.migrated_ram_mib() - 1;
    }
    return out;
}

/** One row of the suite: a problem and how it is labelled. */
struct Case {
    Problem problem;
    std::string kind, topology;
    int budget = 0;
};

/**
 * Extra rows after the generated instances, each a miss of an earlier default:
 * - "remap-swap": two full K2 hosts whose VMs must swap (tests/tight_cases.h, ring of two, the
 *   detour through the destination's other pNUMA node; tests/cases/remap_swap_2host.json) at
 *   budget 3: the optimum, 4, is reached only through a same-host remap (the default move mix
 *   had remap=0: 3).
 * - "ram-cost": generated instances 24, 31, 32 and 47 of `--instances 50` with the ram-cost term
 *   (0.05 per GiB), where the annealing from the greedy plan stopped below the optimum (the
 *   e^-3.3 polish temperature; 49 is the fifth such miss, left out: its proof takes ~4 min).
 *   Their optimum comes from exact_with_ram_cost.
 */
std::vector<Case> extra_cases() {
    std::vector<Case> out;
    out.push_back(Case{test::tight_ring(2, test::TightVariant::NumaDetour, 3, false), "remap-swap", "K2", 3});
    for (int k : {23, 30, 31, 46}) {
        int budget = 0;
        const char* kind = "";
        const GenerateOptions o = instance(k, budget, kind);
        Case c{generate_cluster(o), std::string(kind) + " ram-cost", o.host_topology, budget};
        c.problem.constraints.max_migrations = budget;
        c.problem.objective_terms.emplace_back("ram-cost", 0.05);
        out.push_back(std::move(c));
    }
    return out;
}

/** Parses "kind=p,kind=p" into `mix` (MoveMix::set; throws std::invalid_argument). */
void parse_mix(const std::string& text, MoveMix& mix) {
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t comma = std::min(text.find(',', pos), text.size());
        const std::string item = text.substr(pos, comma - pos);
        const std::size_t eq = item.find('=');
        if (eq == std::string::npos) throw std::invalid_argument("move mix item '" + item + "' is not kind=share");
        mix.set(item.substr(0, eq), std::stod(item.substr(eq + 1)));
        pos = comma + 1;
    }
    mix.validate();
}

/** std::visit over a set of lambdas. */
template <class... F>
struct Overloaded : F... {
    using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

}  // namespace

int main(int argc, char** argv) {
    int instances = 30, only = -1, cold = 0, symmetry = 1, milp = 0, extra = 1;
    double mix_remap = -1;           // < 0: the annealing's default move mix
    double neutral_acceptance = -1;  // < 0: the annealing's default
    double sa_seconds = 10, exact_seconds = 300, ram_cost = 0;
    double initial_temperature = 0;    // 0: calibrated
    std::uint64_t seed = 1;            // of greedy, the annealing and tabu (not of the exact warm start)
    std::int64_t max_evaluations = 0;  // 0: the default run length (default_evaluations)
    std::int64_t ruin_iterations = OptimizeParams::kDefaultRuinIterations;
    std::string move_mix, sa_start = "greedy";
    // --optima-file F: proven optima by row label ("kind|topology|hosts|vms|budget|seed-row k"),
    // read if F exists and appended to, so that parameter sweeps skip the exact solves they
    // already made (the rows then show exact s 0 and B&B nodes 0).
    std::string optima_file;
    using Target = std::variant<int*, double*, std::int64_t*, std::uint64_t*, std::string*>;
    const std::map<std::string, Target> options = {{"--instances", &instances},
                                                   {"--sa-seconds", &sa_seconds},
                                                   {"--exact-seconds", &exact_seconds},
                                                   {"--only", &only},
                                                   {"--cold", &cold},
                                                   {"--symmetry", &symmetry},
                                                   {"--mix-remap", &mix_remap},
                                                   {"--move-mix", &move_mix},
                                                   {"--milp", &milp},
                                                   {"--neutral-acceptance", &neutral_acceptance},
                                                   {"--ram-cost", &ram_cost},
                                                   {"--max-evaluations", &max_evaluations},
                                                   {"--ruin-iterations", &ruin_iterations},
                                                   {"--sa-start", &sa_start},
                                                   {"--initial-temperature", &initial_temperature},
                                                   {"--optima-file", &optima_file},
                                                   {"--seed", &seed},
                                                   {"--extra", &extra}};
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) {
            std::fprintf(stderr, "vmcap_quality: %s needs a value\n", argv[i]);
            return 2;
        }
        const auto it = options.find(argv[i]);
        if (it == options.end()) {
            std::fprintf(stderr,
                         "usage: vmcap_quality [--instances N] [--sa-seconds S] [--exact-seconds S] [--only K] [--cold 1] [--symmetry 0] "
                         "[--mix-remap P] [--move-mix kind=p,...] [--neutral-acceptance P] [--ram-cost W] [--max-evaluations E] "
                         "[--ruin-iterations N] [--sa-start greedy|snapshot] [--initial-temperature T] [--seed K] [--optima-file F] "
                         "[--extra 0] [--milp 1]\n");
            return 2;
        }
        const char* v = argv[i + 1];
        std::visit(Overloaded{[&](int* x) { *x = std::atoi(v); }, [&](double* x) { *x = std::atof(v); },
                              [&](std::int64_t* x) { *x = std::atoll(v); }, [&](std::uint64_t* x) { *x = std::strtoull(v, nullptr, 10); },
                              [&](std::string* x) { *x = v; }},
                   it->second);
    }
    if (instances < 1 || !(sa_seconds > 0) || !(exact_seconds > 0) || ram_cost < 0 || max_evaluations < 0 || ruin_iterations < 0 ||
        (sa_start != "greedy" && sa_start != "snapshot")) {
        std::fprintf(stderr,
                     "vmcap_quality: --instances must be >= 1, --sa-seconds and --exact-seconds > 0, --ram-cost, --max-evaluations and "
                     "--ruin-iterations "
                     ">= 0, --sa-start greedy or snapshot\n");
        return 2;
    }
    if (milp && ram_cost > 0) {
        std::fprintf(stderr, "vmcap_quality: --milp does not model --ram-cost\n");
        return 2;
    }
    SearchParams base;
    base.quiet = true;
    base.seed = seed;
    base.time_limit_s = sa_seconds;
    base.max_evaluations = max_evaluations;
    base.initial_temperature = initial_temperature;
    try {
        if (mix_remap >= 0) base.mix.set("remap", mix_remap);
        if (!move_mix.empty()) parse_mix(move_mix, base.mix);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "vmcap_quality: %s\n", e.what());
        return 2;
    }
    if (neutral_acceptance >= 0) base.neutral_acceptance = neutral_acceptance;

    // The rows: the generated instances (with --ram-cost W, each with the ram-cost term), then
    // (unless --extra 0) the extra cases of extra_cases().
    std::vector<Case> cases;
    for (int k = 0; k < instances; ++k) {
        int budget = 0;
        const char* kind = "";
        const GenerateOptions o = instance(k, budget, kind);
        Case c{generate_cluster(o), kind, o.host_topology, budget};
        c.problem.constraints.max_migrations = budget;
        if (ram_cost > 0) {
            c.problem.objective_terms.emplace_back("ram-cost", ram_cost);
            c.kind += " ram-cost";
        }
        cases.push_back(std::move(c));
    }
    if (extra) {
        for (Case& c : extra_cases()) cases.push_back(std::move(c));
    }

    std::map<std::string, double> known;
    if (!optima_file.empty()) {
        if (FILE* f = std::fopen(optima_file.c_str(), "r")) {
            char key[512];
            double v = 0;
            while (std::fscanf(f, "%511s %lf", key, &v) == 2) known[key] = v;
            std::fclose(f);
        }
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
    std::vector<int> missed, tabu_missed;
    for (std::size_t k = 0; k < cases.size(); ++k) {
        if (only >= 0 && static_cast<int>(k) != only) continue;
        const Case& c = cases[k];
        const Problem& p = c.problem;
        const CapacityModel m(p);
        if (m.num_targets() == 0) continue;

        // As `vmcap plan` (default): greedy, then annealing from its plan within the time left.
        const SearchParams& sp = base;
        OptimizeParams op;
        op.search = sp;
        op.greedy_start = sa_start == "greedy";
        op.ruin_iterations = ruin_iterations;
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
        int rounds = 1;
        std::string label =
            std::to_string(k) + "|" + c.kind + "|" + c.topology + "|" + std::to_string(p.vms.size()) + "|" + std::to_string(c.budget);
        for (const auto& [name, w] : p.objective_terms) label += "|" + name + "=" + std::to_string(w);
        std::replace(label.begin(), label.end(), ' ', '_');
        ExactResult ex;
        if (const auto it = known.find(label); it != known.end()) {
            ex.objective = it->second;
            ex.proven = true;
            rounds = 0;
        } else {
            ex = m.has_terms() ? exact_with_ram_cost(p, bp, rounds) : solve_exact_bb(m, bp);
            if (!optima_file.empty() && ex.proven) {
                if (FILE* f = std::fopen(optima_file.c_str(), "a")) {
                    std::fprintf(f, "%s %.17g\n", label.c_str(), ex.objective);
                    std::fclose(f);
                }
            }
        }
        const double opt = ex.objective;
        const double eps = 1e-9 * std::max(1.0, std::abs(opt));
        const double gap = opt > 0 ? 100.0 * (opt - sa.objective_best) / opt : 0.0;
        if (ex.proven) {
            gap_sum += gap;
            tabu_gap_sum += opt > 0 ? 100.0 * (opt - tb.objective_best) / opt : 0.0;
            if (tb.objective_best >= opt - eps)
                ++tabu_at_optimum;
            else
                tabu_missed.push_back(static_cast<int>(k) + 1);
            ++counted;
            if (sa.objective_best >= opt - eps)
                ++at_optimum;
            else
                missed.push_back(static_cast<int>(k) + 1);
        } else {
            ++unproven;
        }
        exact_total += ex.seconds;
        exact_max = std::max(exact_max, ex.seconds);
        if (sa.objective_best < g.objective_best - eps) ++below_greedy;
        std::printf("| %zu | %s | %s | %zu | %zu | %d | %g | %g | %g | %g | %g | %s | %.2f | %.2f | %.2f | %lld%s |", k + 1, c.kind.c_str(),
                    c.topology.c_str(), p.hosts.size(), p.vms.size(), c.budget, g.objective_before, g.objective_best, sa.objective_best,
                    tb.objective_best, opt, ex.proven ? "yes" : "no", gap, ex.seconds, sa_s, static_cast<long long>(ex.nodes),
                    rounds > 1 ? (" (" + std::to_string(rounds) + " solves)").c_str() : "");
        if (milp && !m.has_terms()) {
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
        } else if (milp) {
            std::printf(" - | - |");
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
    if (!tabu_missed.empty()) {
        std::printf("tabu below the optimum on instance(s):");
        for (int k : tabu_missed) std::printf(" %d", k);
        std::printf("\n");
    }
    if (milp)
        std::printf("aggregated MILP: %d unproven, %d optima different from the branch and bound; %.2f s total, %.2f s max\n",
                    milp_unproven, milp_mismatch, milp_total, milp_max);
    return (below_greedy == 0 && avg <= 0.5 && unproven == 0 && milp_mismatch == 0) ? 0 : 1;
}
