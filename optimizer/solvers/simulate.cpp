#include "optimizer/solvers/simulate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <queue>
#include <stdexcept>

#include "evaluators/state/capacity_model.h"
#include "evaluators/state/cluster_capacity.h"
#include "optimizer/plan/plan.h"
#include "optimizer/plan/validate.h"
#include "optimizer/solvers/cluster_now.h"
#include "placement/placer.h"

namespace vmcap {

namespace {

/** The replay in progress: the state, its placer, departures to come and blocked flavors. */
class Run {
public:
    Run(const std::vector<TraceVm>& trace, const std::vector<std::size_t>& arrivals, const CapacityModel& model, Placer& placer)
        : trace_(trace), arrivals_(arrivals), state_(model), placer_(placer), blocked_(model.problem().flavors.size(), 0) {
        placer_.reset(state_);
    }

    SearchState& state() { return state_; }
    Placer& placer() { return placer_; }
    std::int64_t live() const { return live_; }

    /** Departures up to trace time t (inclusive). */
    void depart_until(double t, SimulateResult& out) {
        while (!departures_.empty() && departures_.top().first <= t) {
            const int vm = departures_.top().second;
            departures_.pop();
            const int h = state_.host_of(vm);
            remove_vm(state_, placer_, vm);
            --live_;
            ++out.departed;
            unblock(h);
        }
    }

    /** Arrival a: placed, or rejected and counted in `day` and `out`. */
    void arrive(std::size_t a, SimulateDay& day, SimulateResult& out) {
        const TraceVm& vm = trace_[arrivals_[a]];
        const int v = static_cast<int>(a);
        ++day.arrivals;
        ++out.arrivals;
        const int f = state_.flavor_of(v);
        if (blocked_[static_cast<std::size_t>(f)] || !place_vm(state_, placer_, v).found()) {
            blocked_[static_cast<std::size_t>(f)] = 1;
            ++day.rejected;
            ++out.rejected;
            day.rejected_vcpu += vm.vcpu;
            out.rejected_vcpu += vm.vcpu;
            ++out.rejected_by_flavor[state_.problem().flavors[static_cast<std::size_t>(f)].name];
            return;
        }
        ++live_;
        if (vm.departure_s != std::numeric_limits<double>::infinity()) departures_.emplace(vm.departure_s, v);
    }

    /** After migrations: a blocked flavor may fit on a host they emptied. */
    void unblock(int host) {
        for (std::size_t g = 0; g < blocked_.size(); ++g)
            if (blocked_[g] && first_fitting_placement(state_, static_cast<int>(g), host) >= 0) blocked_[g] = 0;
    }

private:
    using Departure = std::pair<double, int>;  // (time, arrival ordinal): a total order, deterministic
    const std::vector<TraceVm>& trace_;
    const std::vector<std::size_t>& arrivals_;
    SearchState state_;
    Placer& placer_;
    std::priority_queue<Departure, std::vector<Departure>, std::greater<>> departures_;
    std::vector<char> blocked_;
    std::int64_t live_ = 0;
};

/** The night's plan on the cluster as it stands, applied to the run; fills the day's figures. */
void defragment(Run& run, const SimulateOptions& o, int night, SimulateDay& day) {
    std::vector<int> original;
    Problem q = cluster_now(run.state(), original);
    const auto vms = static_cast<std::int64_t>(q.vms.size());
    q.constraints.max_migrations =
        o.budget_count >= 0 ? o.budget_count : std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(o.budget_fraction * vms)));
    const CapacityModel model(q);
    const SearchState before(model);
    day.objective_before = before.objective_value();
    day.objective_after = day.objective_before;
    day.capacity_after = cluster_capacity(model, compute_node_usage(q)).totals();
    if (o.defrag == "none" || vms == 0) return;
    OptimizeParams op;
    op.algorithm = o.defrag == "greedy" ? Algorithm::Greedy : Algorithm::Annealing;
    op.search.threads = 1;
    op.search.quiet = true;
    op.search.seed = o.seed + static_cast<std::uint64_t>(night);
    op.search.max_evaluations = o.evaluations;
    op.search.time_limit_s = 1e9;  // stopped by its evaluation budget: reproducible (unless interrupted)
    op.search.stop = o.stop;
    const OptimizeResult r = optimize(model, op);
    if (o.check) {
        const auto doc = nlohmann::json::parse(plan_to_json(q, r.plan, PlanInfo{}).dump());
        const PlanCheck c = validate_plan(model, doc, "<night " + std::to_string(night) + ">", true, false);
        if (!c.ok) throw std::logic_error("simulate: night " + std::to_string(night) + ": the plan does not validate: " + c.error);
    }
    SearchState& s = run.state();
    for (const PlanStep& st : r.plan.steps) {
        const int v = original[static_cast<std::size_t>(st.vm)];
        const int k = s.problem().flavors[static_cast<std::size_t>(s.flavor_of(v))].num_vnuma();
        if (!step_fits(s, v, st.to_host, st.to_pnuma))
            throw std::logic_error("simulate: night " + std::to_string(night) + ": a plan step has no room on the replay's state");
        const int from = s.host_of(v);
        s.move(v, st.to_host, embedding_of(st.to_pnuma, k));
        run.placer().host_changed(s, from);
        run.placer().host_changed(s, st.to_host);
        run.unblock(from);
    }
    day.migrations = r.plan.migrations;
    day.objective_after = r.plan.objective_after;
    day.capacity_after = r.plan.capacity_after;
}

/** Closes `day` at time t (after the first arrival): live VMs and utilisation. */
void close_day(Run& run, double t, SimulateDay& day) {
    const SearchState& s = run.state();
    const Problem& p = s.problem();
    Amount used = 0, cap = 0;
    for (int v = 0; v < static_cast<int>(p.vms.size()); ++v)
        if (s.is_placed(v)) used += p.flavors[static_cast<std::size_t>(s.flavor_of(v))].demand[kVcpu];
    for (std::size_t h = 0; h < p.hosts.size(); ++h) {
        const HostType& ht = p.host_type_of(static_cast<int>(h));
        for (int n = 0; n < ht.num_nodes(); ++n) cap += ht.node_capacity[static_cast<std::size_t>(n * p.num_resources() + kVcpu)];
    }
    day.time_s = t;
    day.live_vms = run.live();
    day.used_vcpu_fraction = cap > 0 ? static_cast<double>(used) / static_cast<double>(cap) : 0.0;
}

}  // namespace

SimulateResult simulate(const std::vector<TraceVm>& trace, const SimulateOptions& o) {
    if (o.defrag != "none" && o.defrag != "greedy" && o.defrag != "sa") throw InputError("simulate: --defrag must be none, greedy or sa");
    if (!(o.defrag_every_s > 0.0) || !(o.defrag_at_s >= 0.0))
        throw InputError("simulate: the defragmentation times must be >= 0, every > 0");
    if (o.budget_count < -1 || !(o.budget_fraction >= 0.0 && o.budget_fraction <= 1.0))
        throw InputError("simulate: the nightly budget must be a count >= 0 or a fraction in [0, 1]");
    if (o.replay.targets == "demand") throw InputError("simulate: --weights demand is not supported yet");
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::size_t> arrivals;
    const Problem placing = replay_arrivals(trace, o.replay, arrivals);
    const CapacityModel model(placing);
    std::unique_ptr<Placer> placer = make_placer(o.replay.placer);
    Run run(trace, arrivals, model, *placer);
    SimulateResult out;
    for (const Flavor& f : placing.flavors) out.flavors.push_back(f.name);
    const double origin = trace.empty() ? 0.0 : trace.front().arrival_s;
    const double end = origin + o.replay.time_s;
    double next = origin + o.defrag_at_s;
    SimulateDay day;
    int night = 0;
    const auto night_until = [&](double t) {  // every defragmentation due by trace time t
        while (next <= t && next <= end && !(o.stop != nullptr && o.stop->load())) {
            run.depart_until(next, out);
            close_day(run, next - origin, day);
            defragment(run, o, night, day);
            out.migrations += day.migrations;
            out.days.push_back(day);
            day = SimulateDay{};
            day.day = ++night;
            next += o.defrag_every_s;
        }
    };
    const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    const auto stopping = [&] {  // polled every 1,024 arrivals and before every night
        if (o.stop != nullptr && o.stop->load())
            out.stopped_by = "interrupt";
        else if (elapsed() > o.time_limit_s)
            out.stopped_by = "time limit";
        return out.stopped_by != "complete";
    };
    double now = end;
    for (std::size_t a = 0; a < arrivals.size(); ++a) {
        const double t = trace[arrivals[a]].arrival_s;
        if ((a % 1024 == 0 || next <= t) && stopping()) {
            now = t;
            break;
        }
        night_until(t);
        run.depart_until(t, out);
        run.arrive(a, day, out);
    }
    if (out.stopped_by == "complete") night_until(end);
    run.depart_until(now, out);
    close_day(run, now - origin, day);
    SimulateOptions last = o;
    last.defrag = "none";  // the end of the span: figures only
    defragment(run, last, night, day);
    out.days.push_back(day);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

}  // namespace vmcap
