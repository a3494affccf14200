// Subcommand exact: proven optimum of a small snapshot (branch and bound by default, or the MILP
// with CBC), written as a plan.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

#include <boost/program_options.hpp>

#include "evaluators/state/capacity_model.h"
#include "instances/snapshot_io.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "optimizer/plan/waves.h"
#include "optimizer/solvers/exact.h"
#include "optimizer/solvers/exact_bb.h"
#include "optimizer/plan/ordering.h"
#include "optimizer/plan/plan.h"
#include "optimizer/search/search_params.h"
#include "optimizer/bound/upper_bound.h"

namespace po = boost::program_options;

namespace vmcap::cli {

using namespace detail;

namespace {

/** The solver settings of one `vmcap exact` run. */
struct MethodChoice {
    std::string method;      ///< "auto", "bb" or "milp"
    std::string milp_model;  ///< "aggregated" or "per-vm"
    std::int64_t max_nodes = 0, warm_start = 100000;
};

/** Seconds the branch and bound gets under --method auto before CBC takes over: a tenth of the
 *  time left, at most 5 s (it proves the quality suite's instances in milliseconds, but some
 *  10-host ones at budget 6 take minutes, which CBC proves in about a second). */
double auto_bb_share(double left) {
    return std::min(5.0, 0.1 * left);
}

ExactResult run_bb(const CapacityModel& model, const MethodChoice& c, double seconds) {
    BranchBoundParams bp;
    bp.time_limit_s = seconds;
    bp.max_nodes = c.max_nodes;
    bp.warm_start_evaluations = c.warm_start;
    return solve_exact_bb(model, bp);
}

ExactResult run_milp(const CapacityModel& model, const MethodChoice& c, double seconds) {
    MilpParams mp;
    mp.time_limit_s = seconds;
    mp.aggregate = c.milp_model == "aggregated";
    mp.warm_start_evaluations = c.warm_start;
    return solve_exact(model, mp);
}

/**
 * Runs the method `c` names within `left` seconds and returns its result; `used` is set to the
 * solver whose result it is ("bb" or "milp"), `note` to what auto did (empty otherwise). auto:
 * the branch and bound for auto_bb_share(left) seconds; if it has not proven the optimum (or
 * refuses the instance), CBC with the rest, keeping the better of the two results when neither
 * proves. Throws UsageError for an instance a solver refuses (std::invalid_argument).
 */
ExactResult run_method(const CapacityModel& model, const MethodChoice& c, double left, std::string& used, std::string& note) {
    try {
        if (c.method == "bb" || c.method == "milp") {
            used = c.method;
            return c.method == "bb" ? run_bb(model, c, left) : run_milp(model, c, left);
        }
        const auto t0 = std::chrono::steady_clock::now();
        const double share = auto_bb_share(left);
        ExactResult bb;
        bool bb_ran = true;
        try {
            bb = run_bb(model, c, share);
        } catch (const std::invalid_argument& e) {
            bb_ran = false;  // e.g. a budget beyond what the branch and bound can enumerate
            note = std::string("branch and bound refused (") + e.what() + "); ";
        }
        if (bb_ran && bb.proven) {
            used = "bb";
            note = "the branch and bound proved it within its share";
            return bb;
        }
        if (bb_ran) {
            char buf[128];
            std::snprintf(buf, sizeof buf, "the branch and bound did not prove it in %.1f s (%lld nodes); ", share,
                          static_cast<long long>(bb.nodes));
            note = buf;
        }
        const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        ExactResult milp = run_milp(model, c, std::max(0.05, left - spent));
        note += "CBC took over";
        if (bb_ran && !milp.proven && bb.objective > milp.objective) {
            used = "bb";
            note += " but found less than the branch and bound's best";
            return bb;
        }
        used = "milp";
        return milp;
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
}

/**
 * The plan `vmcap exact` writes for `ex`: the builder's order, else the exact ordering search
 * (until `deadline`). The branch and bound optimises over states some plan reaches, so its plan
 * reaches ex.score; the MILP optimises final states, so its optimum holds for what is written only
 * if some plan reaches it — if none does, `ex` is marked not proven, saying why.
 */
Plan ordered_plan(const CapacityModel& model, ExactResult& ex, std::chrono::steady_clock::time_point deadline) {
    Plan plan = build_plan(model, ex.best);
    bool order_timed_out = false;
    if (plan.score_after < ex.score) {
        const OrderResult o = find_order(model, ex.best, 2'000'000, deadline);
        if (o.status == OrderStatus::Found) plan = plan_from_steps(model, o.steps);
        order_timed_out = o.status == OrderStatus::Unknown && std::chrono::steady_clock::now() > deadline;
    }
    if (plan.score_after < ex.score && ex.proven) {
        ex.proven = false;
        ex.stopped_by = order_timed_out ? StopReason::OrderingTimeLimit : StopReason::OptimumUnreachable;
    }
    return plan;
}

/** The same bound fields as a `vmcap plan` plan: the smaller of the solver's bound and the
 *  removal bound (both valid; the latter gets 5% of the time limit, 2.5-600 s); the objective
 *  itself when proven. */
void set_bound_fields(const CapacityModel& model, const ExactResult& ex, const Plan& plan, double time_limit, PlanInfo& info) {
    UpperBoundParams ubp;
    ubp.deadline = std::chrono::steady_clock::now() +
                   std::chrono::milliseconds(static_cast<std::int64_t>(1000.0 * std::min(600.0, std::max(2.5, 0.05 * time_limit))));
    const UpperBound ub = compute_upper_bound(model, ubp);
    Score bound = ub.score;
    // CBC's bound is a double, valid up to its relative tolerance (kMilpTolerance): rounded up to score
    // units (which keeps it valid), and one within that tolerance below the plan's objective is that objective.
    if (std::isfinite(ex.bound) && ex.bound >= plan.objective_after - kMilpTolerance * std::max(1.0, std::abs(plan.objective_after)))
        bound = std::min(bound, std::max(score_at_least(ex.bound), plan.score_after));
    if (ex.proven) bound = plan.score_after;
    info.upper_bound = bound;
    info.upper_bound_covers_objective = ub.covers_objective;
    info.upper_bound_seconds = ub.seconds;
    info.upper_bound_complete = ex.proven || ub.complete;
    info.upper_bound_stopped_by = info.upper_bound_complete ? StopReason::Complete : ub.stopped_by;
}

/** The run's summary on stdout. */
void print_exact_summary(const ExactResult& ex, const Plan& plan, const std::string& used, const std::string& note,
                         const std::string& milp_model, const std::string& out) {
    const bool ordered = plan.score_after >= ex.score;
    if (!note.empty()) std::printf("method    auto: %s\n", note.c_str());
    if (used == "bb")
        std::printf("exact     branch and bound: %lld nodes in %.2f s (warm start %s): %s\n", static_cast<long long>(ex.nodes), ex.seconds,
                    fmt_num(ex.start_objective).c_str(), ex.proven ? "proven optimal" : "NOT proven optimal");
    else
        std::printf("exact     %s MILP with %d columns, %d rows, solved by CBC in %.2f s (warm start %s): %s\n", milp_model.c_str(),
                    ex.columns, ex.rows, ex.seconds, fmt_num(ex.start_objective).c_str(),
                    ex.proven ? "proven optimal" : "NOT proven optimal");
    if (!ex.proven) std::printf("stopped   by %s\n", std::string(to_string(ex.stopped_by)).c_str());
    std::printf("objective %s -> %s (best bound %s)\n", fmt_num(plan.objective_before).c_str(), fmt_num(ex.objective).c_str(),
                std::isfinite(ex.bound) ? fmt_num(ex.bound).c_str() : "none");
    std::printf("plan      %zu migration(s) -> %s\n", plan.steps.size(), out.c_str());
    if (!ordered)
        std::printf("note      no plan within the budget reaches that state: the plan written reaches %s (not proven for plans)\n",
                    fmt_num(plan.objective_after).c_str());
}

}  // namespace

int cmd_exact(const Args& args) {
    const auto started = std::chrono::steady_clock::now();
    po::options_description desc("vmcap exact options");
    std::string cluster, out;
    MethodChoice choice;
    std::string& method = choice.method;
    std::string& milp_model = choice.milp_model;
    std::int64_t& max_nodes = choice.max_nodes;
    std::int64_t& warm_start = choice.warm_start;
    std::int64_t max_mig = -1;
    double max_gib = -1, time_limit = 600;
    // clang-format off
    desc.add_options()("help,h", "show this help")
        ("cluster", po::value(&cluster), "cluster snapshot JSON (default: the bundled example, far too large for this command)")
        ("out", po::value(&out)->default_value("plan.json"), "migration plan JSON to write (atomically)")
        ("method", po::value(&method)->default_value("auto"),
         "auto (the branch and bound for a tenth of the time limit, at most 5 s; CBC with the rest if it has not proven the "
         "optimum), bb (combinatorial branch and bound) or milp (MILP solved by CBC)")
        ("milp-model", po::value(&milp_model)->default_value("aggregated"),
         "milp: aggregated (identical VMs as leaving counts, landing counts per flavor, host and node set; VMs with vlinks keep "
         "per-VM columns for the link rule) or per-vm (one binary per VM, host and node set; much slower, a cross-check)")
        ("max-migrations", po::value(&max_mig), "migration budget: live migrations (default: the snapshot's constraints)")
        ("max-migrated-gib", po::value(&max_gib), "migration budget: RAM moved, GiB (default: the snapshot's constraints)")
        ("time-limit", po::value(&time_limit)->default_value(600),
         "wall-clock limit in seconds (warm start, model, search and the plan's ordering included); if hit, the result is "
         "reported as not proven; exact-fallback VMCAP evaluations past it + max(5 s, 10%) stop with exit code 4")
        ("max-nodes", po::value(&max_nodes)->default_value(0), "bb: search-node limit (0: unlimited); if hit, not proven")
        ("warm-start", po::value(&warm_start)->default_value(100000),
         "incumbent (bb) or MIP start (milp): greedy plus an annealing run of this many evaluations (seed 1); 0: greedy only; "
         "-1: the snapshot (a cross-check: the solver must find the optimum itself)");
    // clang-format on
    add_model_options(desc);
    ScheduleParams schedule;
    add_schedule_options(desc, schedule, nullptr);
    po::variables_map vm;
    if (parse(args, desc, vm,
              "usage: vmcap exact [--cluster C] [--out plan.json] [--method auto|bb|milp] [--time-limit S]\n"
              "Solves a small instance (about <= 10 hosts, <= 40 VMs, a few migrations) to proven optimality."))
        return 0;
    if (!(time_limit > 0)) throw UsageError("--time-limit must be > 0");
    if (max_nodes < 0) throw UsageError("--max-nodes must be >= 0");
    if (warm_start < -1) throw UsageError("--warm-start must be >= -1");
    if (method != "auto" && method != "bb" && method != "milp") throw UsageError("--method must be auto, bb or milp");
    if (milp_model != "aggregated" && milp_model != "per-vm") throw UsageError("--milp-model must be aggregated or per-vm");
    if (out.empty()) throw UsageError("--out must not be empty");
    check_output_path(out);
    check_outputs_distinct({{"--out", out}}, {{"--cluster", cluster.empty() ? default_cluster_path() : cluster}});
    check_schedule_options(schedule, "");
    const Problem p = load_for_search(cluster, vm, max_mig, max_gib);
    // The solvers stop themselves at the limit (warm start, model, search, the ordering below) and
    // write their best plan; this backstop (10% later, at least 5 s) stops exact-fallback VMCAP
    // evaluations that would carry the command far past it (exit code 4, nothing written).
    const auto model_ptr = model_for(p, cluster, vm, deadline_after(started, time_limit + std::max(5.0, 0.1 * time_limit)));
    const CapacityModel& model = *model_ptr;
    const auto deadline = deadline_after(started, time_limit);
    // What is left of the limit after loading, for the solver (at least a little, so that it
    // reports its warm start rather than nothing).
    const double left = std::max(0.05, std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count());
    std::string used, note;
    const auto solve_start = std::chrono::steady_clock::now();
    ExactResult ex = run_method(model, choice, left, used, note);
    const double solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - solve_start).count();
    // In waves, like every plan: the same moves, so the same end state (a better prefix cannot
    // beat an optimum over the states the budget reaches) — unless a memory copy finds no spare
    // bandwidth on its route: then the plan is cut there, and what it reaches is not the optimum.
    const Plan ordered = ordered_plan(model, ex, deadline);
    const Plan plan = schedule_plan(model, ordered, schedule.limits, schedule.durations);
    if (plan.score_after < ordered.score_after && ex.proven) {
        ex.proven = false;
        ex.stopped_by = StopReason::ScheduleCut;
    }
    PlanInfo info;
    info.cluster = cluster;
    info.algorithm = used == "bb" ? "exact-bb" : "exact-milp";
    info.seconds = solve_seconds;  // both solvers' under --method auto
    info.evaluations = ex.nodes;
    info.stopped_by = ex.stopped_by;
    if (ex.proven) info.proven_optimum = ex.score;
    set_bound_fields(model, ex, plan, time_limit, info);
    nlohmann::ordered_json doc = plan_to_json(p, plan, info);
    // Exact's own fields: whether the optimum is proven, the best state found and the best bound.
    doc["search"]["proven_optimal"] = ex.proven;
    doc["search"]["optimum"] = ex.objective;
    if (std::isfinite(ex.bound)) doc["search"]["bound"] = ex.bound;
    write_file_atomic(out, format_json_lines(doc));
    print_exact_summary(ex, plan, used, note, milp_model, out);
    return 0;
}

}  // namespace vmcap::cli
