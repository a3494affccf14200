#include "optimizer/solvers/optimize.h"

#include <algorithm>
#include <cmath>
#include <chrono>
#include <limits>
#include <stdexcept>

#include "evaluators/rules/feasibility.h"
#include "moves/host_scratch.h"
#include "optimizer/search/annealing.h"
#include "optimizer/search/greedy.h"
#include "optimizer/plan/waves.h"
#include "optimizer/plan/drain.h"

namespace vmcap {

void OptimizeParams::validate() const {
    search.validate();
    if (tabu.tenure < 0) throw std::invalid_argument("tabu tenure must be >= 0");
    if (tabu.candidates < 1) throw std::invalid_argument("tabu candidate list size must be >= 1");
    if (repair_rounds < 0) throw std::invalid_argument("repair rounds must be >= 0");
    if (room_steps < 0) throw std::invalid_argument("room steps must be >= 0");
    if (bound) bound->validate();
    if (schedule) {
        schedule->limits.validate();
        schedule->durations.validate();
        if (!(schedule->window_s >= 0.0) || !std::isfinite(schedule->window_s))
            throw std::invalid_argument("the maintenance window must be a finite number of seconds >= 0");
    }
}

std::vector<Placement> drop_neutral_remaps(const CapacityModel& model, const std::vector<Placement>& placements) {
    const Problem& p = model.problem();
    if (p.constraints.remap_counts_as_migration) return placements;
    SearchState s(model);
    s.set_placements(placements);
    for (bool changed = true; changed;) {
        changed = false;
        std::vector<int> remapped;
        for (int vm : s.displaced_vms())
            if (s.host_of(vm) == s.origin_of(vm)) remapped.push_back(vm);
        std::sort(remapped.begin(), remapped.end());
        for (int vm : remapped) {
            const Flavor& fl = p.flavors[s.flavor_of(vm)];
            const Embedding home = snapshot_embedding(p, vm);
            const int host = s.host_of(vm);
            const Relocation r{vm, host, host, home.mask};
            if (!filters_admit(s, std::span(&r, 1))) continue;
            HostScratch h;
            h.load(s, host);
            h.release(fl, s.pnuma_of(vm));
            if (!h.fits(fl, home.map.data())) continue;
            Score d = h.gain(s, &fl, home.map.data());
            for (const auto& t : model.terms()) d += t->delta(s, std::span(&r, 1));
            if (d < 0) continue;
            s.move(vm, host, home);
            changed = true;
        }
    }
    return s.displaced_placements();
}

namespace {

/** How far above greedy's plan (as a share of greedy's gain over the snapshot) the room plan must
 *  be for the default annealing run to be halved in favour of ruin and recreate: measured between
 *  the 10,000-host Azure replay at 0.5% (4.7%, where halving cost 41) and the Huawei-East-1
 *  1,000-host replay at 1% (10.5%) (docs/performance.md, "Ruin and recreate"). */
constexpr double kRoomMargin = 0.1;

/** The search phase of the pipeline on `model`: greedy (if asked), then annealing or tabu. */
SearchResult run_phase(const CapacityModel& model, const OptimizeParams& params, const SearchParams& base, OptimizeResult* out) {
    SearchParams sp = base;
    sp.room_steps = 0;  // greedy, the baseline and the annealing's start, takes single migrations
    SearchResult sr;
    if (params.algorithm == Algorithm::Greedy || params.greedy_start) sr = greedy(model, sp);
    if (out != nullptr) {
        out->greedy_best = sr.best;
        out->greedy_objective = sr.objective_best;
        out->greedy_score = sr.score_best;
    }
    bool stop_now = sr.stopped_by == StopReason::Interrupted;  // interrupted during greedy: no search phase
    // Annealing / tabu: a second plan, greedy with room steps (OptimizeParams::room_steps). The
    // search still starts from the plain greedy plan, with its budget free to explore (from the
    // room plan, whose budget is spent, it mostly stays there: docs/performance.md, "Room steps"),
    // and the room plan's state replaces the search's only when strictly above it. On a tie the
    // search's is kept, also when the room plan met the bound: its evictions leave several VMs
    // on one host, which the waves move one at a time (the bundled example at 70: 16 waves and
    // 7m56s against the search's 4 and 4m53s, for the same 128).
    SearchResult room;
    bool have_room = false;
    if (params.algorithm != Algorithm::Greedy && params.room_steps > 0 && !stop_now) {
        SearchParams rp = base;
        rp.room_steps = params.room_steps;
        rp.time_limit_s = std::max(1e-3, base.time_limit_s - sr.seconds);
        room = greedy(model, rp);
        have_room = true;
        stop_now = room.stopped_by == StopReason::Interrupted;
        if (out != nullptr) out->room_objective = room.objective_best;
    }
    if (have_room && stop_now) {
        // Interrupted: the better plan so far.
        const double seconds = sr.seconds + room.seconds;
        const std::int64_t evaluations = sr.evaluations + room.evaluations;
        if (room.score_best >= sr.score_best || sr.best.empty()) {
            sr = room;
            if (out != nullptr) out->room_taken = true;
        }
        // The interrupt came during the room steps: it is the run's stop reason whichever plan is
        // kept (greedy's own said "budget spent", and the plan then claimed to be complete, exit 0).
        sr.stopped_by = StopReason::Interrupted;
        sr.seconds = seconds;
        sr.evaluations = evaluations;
    } else if (params.algorithm != Algorithm::Greedy && !stop_now) {
        const double greedy_seconds = sr.seconds + room.seconds;
        const std::int64_t greedy_evals = sr.evaluations + room.evaluations;
        const double greedy_objective = sr.objective_best;
        if (params.greedy_start) sp.start = sr.best;
        // Room steps found a plan well above greedy's (by more than a tenth of greedy's own gain):
        // there ruin and recreate (below) gains more per second than the annealing
        // (docs/performance.md, "Ruin and recreate"), so the default annealing run is halved,
        // leaving its time to them and to the bound. A budget the user gave is kept. Where the
        // room plan is barely above greedy's (the 10,000-host Azure replay at 0.5%: by 4.7% of
        // greedy's gain) the annealing carries the objective and keeps its whole run.
        const bool ruins = have_room && params.ruin_iterations > 0;
        const double greedy_gain = sr.objective_best - sr.objective_before;
        // There the ruins' share of the time limit is also kept from the annealing, so a short
        // time limit does not leave them nothing (the K2 replay at 5% with --time-limit 5: the
        // annealing, cut by the clock, kept 2,648).
        const bool room_ahead = ruins && params.greedy_start && room.objective_best - sr.objective_best > kRoomMargin * greedy_gain &&
                                room.score_best > sr.score_best;
        if (room_ahead && base.max_evaluations == 0)
            sp.max_evaluations = std::max<std::int64_t>(1, default_evaluations(model.problem()) / 2);
        const double ruin_reserve = room_ahead ? OptimizeParams::kRuinTimeShare * base.time_limit_s : 0.0;
        sp.time_limit_s = std::max(1e-3, base.time_limit_s - greedy_seconds - ruin_reserve);
        sr = params.algorithm == Algorithm::Annealing ? anneal(model, sp) : tabu_search(model, sp, params.tabu);
        if (out != nullptr) {
            out->phase_seconds = sr.seconds;
            out->phase_evaluations = sr.evaluations;
        }
        sr.seconds += greedy_seconds;
        sr.evaluations += greedy_evals;
        for (ConvergencePoint& c : sr.convergence) {
            c.seconds += greedy_seconds;
            c.evaluations += greedy_evals;
        }
        if (params.greedy_start)
            sr.convergence.insert(sr.convergence.begin(), ConvergencePoint{greedy_seconds, greedy_evals, greedy_objective});
        if (have_room && room.score_best > sr.score_best) {
            sr.best = room.best;
            sr.score_best = room.score_best;
            sr.objective_best = room.objective_best;
            sr.convergence.push_back(ConvergencePoint{sr.seconds, sr.evaluations, sr.objective_best});
            if (out != nullptr) out->room_taken = true;
        }
        // Ruin and recreate from the better of the two plans, in the time the search left and at
        // most a share of the time limit; nothing to search when the plan meets the bound. A
        // clock-cut annealing leaves them only the reserve kept above, so none where the room plan
        // is not ahead (greedy's set-up alone on 10,000 hosts would overrun the limit).
        const double left = base.time_limit_s - sr.seconds;
        const bool searching = sr.stopped_by != StopReason::Interrupted && sr.stopped_by != StopReason::ProvenOptimal &&
                               (sr.stopped_by != StopReason::TimeLimit || room_ahead) &&
                               !(base.bound_score && sr.score_best >= *base.bound_score);
        if (ruins && searching && left > 0.01) {
            SearchParams lp = base;
            lp.room_steps = params.room_steps;
            lp.ruin_iterations = params.ruin_iterations;
            lp.ruin_time_limit_s = OptimizeParams::kRuinTimeShare * base.time_limit_s;
            lp.time_limit_s = left;
            lp.start = sr.best;
            const SearchResult r = greedy(model, lp);
            sr.seconds += r.seconds;
            sr.evaluations += r.evaluations;
            if (out != nullptr) {
                out->ruins = r.ruins;
                out->ruins_improving = r.ruins_improving;
                out->ruins_cut = r.ruins_cut;
                out->ruin_objective = r.objective_best;
            }
            if (r.score_best > sr.score_best) {
                sr.best = r.best;
                sr.score_best = r.score_best;
                sr.objective_best = r.objective_best;
                sr.convergence.push_back(ConvergencePoint{sr.seconds, sr.evaluations, sr.objective_best});
                if (out != nullptr) out->ruin_taken = true;
            }
            if (r.stopped_by == StopReason::Interrupted || r.stopped_by == StopReason::ProvenOptimal ||
                r.stopped_by == StopReason::TimeLimit)
                sr.stopped_by = r.stopped_by;
        }
    }
    if (params.algorithm != Algorithm::Greedy) sr.best = drop_neutral_remaps(model, sr.best);
    return sr;
}

/** `p` with every VM where `plan` leaves it as the new snapshot, and the budget the plan leaves. */
Problem rebased(const Problem& p, const Plan& plan) {
    Problem q = p;
    for (const PlanStep& st : plan.steps) {
        q.vms[st.vm].host = st.to_host;
        q.vms[st.vm].pnuma = st.to_pnuma;
    }
    if (q.constraints.max_migrations != std::numeric_limits<std::int64_t>::max()) q.constraints.max_migrations -= plan.migrations;
    if (q.constraints.max_migrated_ram_mib != std::numeric_limits<Amount>::max())
        q.constraints.max_migrated_ram_mib -= plan.migrated_ram_mib;
    return q;
}

/** The pipeline without its schedule: search, plan, repair rounds, the greedy floor. */
OptimizeResult plan_unscheduled(const CapacityModel& model, const OptimizeParams& params) {
    const auto t0 = std::chrono::steady_clock::now();
    const Problem& p = model.problem();
    OptimizeResult out;
    const bool may_repair = params.algorithm != Algorithm::Greedy && params.repair_rounds > 0 && model.derived_from_problem();
    SearchParams sp = params.search;
    // Repair rounds run only when the best state cannot be fully ordered; a run stopped by its time
    // limit leaves them a tenth of it.
    if (may_repair) sp.time_limit_s = params.search.time_limit_s * 0.9;
    out.search = run_phase(model, params, sp, &out);
    SearchResult& sr = out.search;
    out.search_best_objective = sr.objective_best;
    out.plan = build_plan(model, sr.best);

    // The search optimises final states; the builder may not order all of its moves within the
    // budget (a detour it cannot afford, a cycle without room anywhere). Then the plan's end state
    // becomes a new snapshot with the budget the plan leaves, and a shorter search (a quarter of
    // the evaluations, sequential moves only) plans from there; its ordered steps are appended. A
    // round that orders nothing retries from the same state with one migration less. The plan
    // only grows: every appended step keeps every prefix feasible.
    const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    Plan acc = out.plan;
    Score target = sr.score_best;
    std::int64_t cap = std::numeric_limits<std::int64_t>::max();  // budget cap of the next round (retries)
    for (int round = 0; may_repair && round < params.repair_rounds && sr.stopped_by != StopReason::Interrupted && acc.score_after < target;
         ++round) {
        const double left = params.search.time_limit_s - elapsed();
        if (left <= 0.0 || (params.search.stop != nullptr && params.search.stop->load())) break;
        Problem q = rebased(p, acc);
        if (q.constraints.max_migrations <= 0 && q.constraints.remap_counts_as_migration) break;
        q.constraints.max_migrations = std::min(q.constraints.max_migrations, cap);
        if (q.constraints.max_migrations < 0) break;
        const CapacityModel mq(q, model.options());
        SearchParams rp = params.search;
        rp.start.clear();
        rp.bound_score.reset();  // the bound is the model's: a re-based snapshot scores its moves differently (ram-cost)
        rp.quiet = true;         // progress lines in a re-based snapshot's objective would only confuse
        rp.time_limit_s = left;
        rp.max_evaluations =
            std::max<std::int64_t>(50000, (params.search.max_evaluations > 0 ? params.search.max_evaluations : default_evaluations(p)) / 4);
        rp.seed = params.search.seed + static_cast<std::uint64_t>(round) + 1;
        // Sequential moves only: each accepted migrate, remap or return step fits the state it is
        // applied to, so the best state is one the builder can usually order as found; swaps,
        // exchanges, ejection chains and gathers change several VMs at once and are what needs
        // detours, so every kind that declares itself compound is off. Remaps join the mix: a
        // detour onto another node often ends with one.
        rp.mix.sequential_only();
        rp.mix.set("remap", 0.05);
        const SearchResult r = run_phase(mq, params, rp, nullptr);
        out.search.evaluations += r.evaluations;
        ++out.repair_rounds;
        const Plan pq = build_plan(mq, r.best);
        if (pq.steps.empty()) {
            // Nothing ordered: the best state needs more detours than the budget leaves.
            const std::int64_t moved = static_cast<std::int64_t>(r.best.size());
            if (moved <= 1) break;
            cap = moved - 1;
            continue;
        }
        cap = std::numeric_limits<std::int64_t>::max();
        std::vector<PlanStep> steps = acc.steps;
        steps.insert(steps.end(), pq.steps.begin(), pq.steps.end());
        acc = plan_from_steps(model, steps, pq.dropped);
        // Stop once a round's best state is ordered in full: what is left is the search's to find.
        target = acc.score_after + (r.score_best - pq.score_after);
    }
    if (out.repair_rounds > 0) {
        out.search.seconds = elapsed();  // the repair rounds included
        if (acc.score_after > out.plan.score_after) out.plan = std::move(acc);
    }
    // Never worse than greedy: the greedy plan is written if the search's ordered plan is below it.
    // (Its plan reaches at most greedy's final state, so it is built only when that is higher.)
    if (params.algorithm != Algorithm::Greedy && params.greedy_start && out.greedy_score > out.plan.score_after) {
        Plan g = build_plan(model, out.greedy_best);
        if (g.score_after > out.plan.score_after) {
            out.plan = std::move(g);
            out.fell_back = true;
        }
    }
    return out;
}

/** With a window: plans whose schedule runs past it are searched again with the migration
 *  budget the window held (optimize's contract). */
OptimizeResult plan_in_window(const CapacityModel& model, const OptimizeParams& params) {
    const ScheduleParams& sch = *params.schedule;
    const auto t0 = std::chrono::steady_clock::now();
    const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    OptimizeParams first = params;
    first.schedule.reset();
    first.search.time_limit_s = 0.5 * params.search.time_limit_s;
    OptimizeResult out = plan_unscheduled(model, first);
    const Plan full = schedule_plan(model, out.plan, sch.limits, sch.durations);
    if (full.schedule->makespan_s <= sch.window_s) {
        out.plan = full;
        out.plan.schedule->window_s = sch.window_s;
        return out;
    }
    out.plan = schedule_plan(model, out.plan, sch.limits, sch.durations, sch.window_s);
    constexpr int kRounds = 3;
    for (int round = 1; round <= kRounds; ++round) {
        const double left = params.search.time_limit_s - elapsed();
        if (left <= 0.0 || out.search.stopped_by == StopReason::Interrupted ||
            (params.search.stop != nullptr && params.search.stop->load()) || out.plan.migrations == 0)
            break;
        Problem q = model.problem();
        q.constraints.max_migrations = std::min(q.constraints.max_migrations, out.plan.migrations);
        const CapacityModel mq(q, model.options());
        OptimizeParams rp = first;
        rp.search.time_limit_s = left / (kRounds - round + 1);
        rp.search.seed = params.search.seed + static_cast<std::uint64_t>(round);
        rp.search.quiet = true;
        const OptimizeResult r = plan_unscheduled(mq, rp);
        out.search.evaluations += r.search.evaluations;
        const Plan cand =
            schedule_plan(model, plan_from_steps(model, r.plan.steps, r.plan.dropped), sch.limits, sch.durations, sch.window_s);
        if (cand.score_after > out.plan.score_after) out.plan = cand;
        if (cand.schedule->cut_steps == 0) break;  // this budget's plan fits the window whole
    }
    out.search.seconds = elapsed();
    return out;
}

/** The pipeline, scheduled as params ask, on a model without VMs to drain. */
OptimizeResult plan_scheduled(const CapacityModel& model, const OptimizeParams& params) {
    if (!params.schedule) return plan_unscheduled(model, params);
    if (params.schedule->window_s > 0.0) return plan_in_window(model, params);
    OptimizeResult out = plan_unscheduled(model, params);
    out.plan = schedule_plan(model, out.plan, params.schedule->limits, params.schedule->durations);
    return out;
}

/** With drained hosts: their VMs leave first (drain_steps), then the pipeline optimises the state
 *  they leave with the budget and window left; the plan is the drain's steps and its steps. */
OptimizeResult plan_with_drain(const CapacityModel& model, const OptimizeParams& params) {
    const Problem& p = model.problem();
    const std::vector<PlanStep> drain = drain_steps(model);  // InputError: the drain cannot be satisfied
    const Plan drained = plan_from_steps(model, drain);
    OptimizeParams rest = params;
    rest.search.bound_score.reset();  // the bound is the model's; the drained snapshot's terms count from the drain's end
    if (params.schedule && params.schedule->window_s > 0.0) {
        const ScheduleParams& sch = *params.schedule;
        const Plan fit = schedule_plan(model, drained, sch.limits, sch.durations, sch.window_s);
        if (const std::string why = drain_violation(p, plan_end_hosts(p, fit)); !why.empty())
            throw InputError("constraints.drain_hosts: emptying the drained hosts does not fit the maintenance window: " + why);
        rest.schedule->window_s = std::max(1e-3, sch.window_s - fit.schedule->makespan_s);
    }
    const Problem q = rebased(p, drained);
    const CapacityModel mq(q, model.options());
    OptimizeResult out = plan_scheduled(mq, rest);
    std::vector<PlanStep> steps = drain;
    steps.insert(steps.end(), out.plan.steps.begin(), out.plan.steps.end());
    out.plan = plan_from_steps(model, steps, out.plan.dropped);
    if (params.schedule)
        out.plan = schedule_plan(model, out.plan, params.schedule->limits, params.schedule->durations, params.schedule->window_s);
    if (const std::string why = drain_violation(p, plan_end_hosts(p, out.plan)); !why.empty())
        throw InputError("constraints.drain_hosts: the plan's waves do not fit the maintenance window with the drain: " + why);
    return out;
}

/** The pipeline after the bound (if any). */
OptimizeResult plan_searched(const CapacityModel& model, const OptimizeParams& params) {
    if (!model.problem().constraints.drain_hosts.empty()) return plan_with_drain(model, params);
    return plan_scheduled(model, params);
}

}  // namespace

OptimizeResult optimize(const CapacityModel& model, const OptimizeParams& params) {
    params.validate();
    if (!params.bound) return plan_searched(model, params);
    // The bound first, once: what the plan reports, and what lets the searches stop at a proven
    // optimum. It runs before greedy so that every search phase can use it; the searches get the
    // time it leaves (an evaluation-bounded run is unchanged by this unless the bound takes so long
    // that the search's budget no longer fits).
    const auto t0 = std::chrono::steady_clock::now();
    UpperBoundParams ubp = *params.bound;
    ubp.deadline = std::min(ubp.deadline, deadline_after(t0, OptimizeParams::kBoundShare * params.search.time_limit_s));
    if (ubp.give_up == 0.0) ubp.give_up = OptimizeParams::kBoundGiveUp;
    UpperBound ub = compute_upper_bound(model, ubp);
    OptimizeParams rest = params;
    rest.search.time_limit_s =
        std::max(1e-3, params.search.time_limit_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (ub.covers_objective) rest.search.bound_score = ub.score;
    OptimizeResult out = plan_searched(model, rest);
    // After the search, in what is left of the time limit: the Lagrangian on moved VMs'
    // conservation, toward the plan's objective (its Polyak target), when the plan is not proven.
    const Score plan_score = out.search.score_best;
    if (ubp.arrival_steps > 0 && ub.covers_objective && ub.score > plan_score &&
        relative_gap(static_cast<double>(ub.score), static_cast<double>(plan_score)) > OptimizeParams::kArrivalMinGap &&
        !(params.search.stop != nullptr && params.search.stop->load())) {
        // At most three times what the bound and the search took (at least kArrivalFloorSeconds): a
        // tighter bound should not make the plan cost many times as long (on 4-node hosts a price
        // vector takes ~1.4 s at 1,000 hosts; docs/performance.md, "Price vectors of the arrivals' Lagrangian").
        // Three since greedy's room candidates are cached: with twice, the faster search left the
        // Lagrangian 23 vectors instead of 26 on a 50-host Huawei cut and the bound at 101, not the
        // plan's 100 (docs/performance.md, "Greedy's room candidates cached").
        UpperBoundParams lp = ubp;
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        lp.deadline = std::min({params.bound->deadline, deadline_after(t0, params.search.time_limit_s),
                                deadline_after(std::chrono::steady_clock::now(),
                                               std::max(OptimizeParams::kArrivalFloorSeconds, OptimizeParams::kArrivalShare * took))});
        const LagrangianBound lb = lagrangian_upper_bound(model, lp, plan_score, ubp.arrival_steps, ub.score);
        ub.arrival_steps = lb.steps;
        ub.arrival_seconds = lb.seconds;
        ub.arrival_stopped_by = lb.stopped_by;
        if (lb.applied && lb.score < ub.score) {
            ub.arrivals_priced = true;
            ub.removal_only = ub.score;
            ub.arrival_prices = lb.prices;
            ub.score = lb.score;
            ub.value = to_objective(ub.score);
        }
    }
    out.bound = std::move(ub);
    return out;
}

}  // namespace vmcap
