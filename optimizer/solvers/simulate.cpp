#include "optimizer/solvers/simulate.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <queue>
#include <stdexcept>

#include "evaluators/state/capacity_model.h"
#include "evaluators/state/cluster_capacity.h"
#include "optimizer/plan/plan.h"
#include "optimizer/plan/validate.h"
#include "optimizer/plan/waves.h"
#include "optimizer/solvers/cluster_now.h"
#include "optimizer/solvers/make_room.h"
#include "optimizer/solvers/night_policy.h"
#include "optimizer/solvers/optimize.h"
#include "placement/online_cluster.h"
#include "placement/placer.h"

namespace vmcap {

namespace {

/** The replay in progress: the online cluster (placement/online_cluster.h) and what the
 *  simulation counts of it (admissions and rejections, steps in flight per night). */
class Run {
public:
    Run(const std::vector<TraceVm>& trace, const std::vector<std::size_t>& arrivals, const CapacityModel& model, Placer& placer,
        int migrations_per_request, const MakeRoomOptions& make_room, bool reserve_plan)
        : trace_(trace), arrivals_(arrivals), cluster_(model, placer) {
        cluster_.set_make_room(migrations_per_request, MakeRoomSearch(make_room));
        cluster_.set_reserve_steps(reserve_plan);
    }

    const SearchState& state() const { return cluster_.state(); }
    std::int64_t live() const { return cluster_.live(); }

    /** Departures and the steps in flight's starts and ends up to trace time t (inclusive), in
     *  time order (OnlineCluster::advance_to). */
    void depart_until(double t, SimulateResult& out) {
        cluster_.advance_to(t, step_ended(out));
        out.departed = cluster_.departed();
    }

    /** Every step still in flight completes now (before a night plans on the cluster). */
    void finish_flights(SimulateResult& out) { cluster_.finish_steps(step_ended(out)); }

    /** The steps of `plan` (on the cluster of `original`) start at trace time t0 + their start_s
     *  and end at t0 + end_s (Plan::schedule set); their figures go to out.days[row]. With
     *  reservations (SimulateOptions::reserve_plan) each keeps its room until it starts, at most
     *  until t0 + window_s (the plan's window; none: its makespan). */
    void launch(const Plan& plan, const std::vector<int>& original, double t0, double window_s, std::size_t row) {
        for (const PlanStep& st : plan.steps)
            cluster_.launch(original[static_cast<std::size_t>(st.vm)], st.to_host, st.to_pnuma, t0 + st.start_s, t0 + st.end_s, row,
                            t0 + window_s);
    }

    /** Arrival a: placed (with live migrations that make room for it, when allowed), or rejected
     *  and counted in `day`. */
    void arrive(std::size_t a, SimulateDay& day) {
        const TraceVm& vm = trace_[arrivals_[a]];
        const int v = static_cast<int>(a);
        ++day.arrivals;
        const OnlineCluster::Arrival r = cluster_.arrive(v, vm.departure_s);
        day.admission_migrations += r.migrations;
        if (!r.placed) {
            ++day.rejected;
            day.rejected_vcpu += vm.vcpu;
            ++rejected_by_flavor_[static_cast<std::size_t>(state().flavor_of(v))];
            return;
        }
        if (r.migrations > 0) ++day.admitted_by_migrations;
        admitted_[a] = 1;
    }

    /** Per arrival: whether it was admitted. */
    const std::vector<char>& admitted() const { return admitted_; }

    /** Live migration of `vm` to (host, pnuma) if it has room there now (rules included). */
    bool migrate(int vm, int host, const std::array<std::uint8_t, kMaxVNuma>& pnuma) { return cluster_.migrate(vm, host, pnuma); }

    /** Rejections per flavor of the whole run (the problem's flavor order). */
    const std::vector<std::int64_t>& rejected_by_flavor() const { return rejected_by_flavor_; }

private:
    /** A step in flight ended: counted on the row of the night that planned it. */
    static OnlineCluster::StepEnded step_ended(SimulateResult& out) {
        return [&out](std::size_t row, bool moved) {
            ++(moved ? out.days[row].migrations : out.days[row].steps_dropped);
            ++(moved ? out.migrations : out.steps_dropped);
        };
    }

    const std::vector<TraceVm>& trace_;
    const std::vector<std::size_t>& arrivals_;
    OnlineCluster cluster_;
    std::vector<char> admitted_ = std::vector<char>(arrivals_.size(), 0);
    std::vector<std::int64_t> rejected_by_flavor_ = std::vector<std::int64_t>(state().problem().flavors.size(), 0);
};

/** The fragmentation-free reference (SimulateDay::rejected_one_pool): the cluster's total vCPU
 *  and RAM as one pool, fed the same arrivals and departures. */
class Pool {
public:
    explicit Pool(const Problem& p) {
        for (std::size_t h = 0; h < p.hosts.size(); ++h) {
            const HostType& ht = p.host_type_of(static_cast<int>(h));
            for (int n = 0; n < ht.num_nodes(); ++n) {
                free_v_ += ht.node_capacity[static_cast<std::size_t>(n * p.num_resources() + kVcpu)];
                free_r_ += ht.node_capacity[static_cast<std::size_t>(n * p.num_resources() + kRamMib)];
            }
        }
    }

    /** Departures up to trace time t, then `vm` admitted if the pool has its vCPU and RAM; false
     *  if rejected. */
    bool arrive(const TraceVm& vm, double t) {
        while (!left_.empty() && left_.top().time <= t) {
            free_v_ += left_.top().vcpu;
            free_r_ += left_.top().ram;
            left_.pop();
        }
        if (vm.vcpu > free_v_ || vm.ram_mib > free_r_) return false;
        free_v_ -= vm.vcpu;
        free_r_ -= vm.ram_mib;
        if (vm.departure_s != std::numeric_limits<double>::infinity()) left_.push(Leaving{vm.departure_s, vm.vcpu, vm.ram_mib});
        return true;
    }

private:
    struct Leaving {
        double time;
        Amount vcpu, ram;
        bool operator>(const Leaving& o) const { return time > o.time; }
    };
    Amount free_v_ = 0, free_r_ = 0;
    std::priority_queue<Leaving, std::vector<Leaving>, std::greater<>> left_;
};

/** The forecast's history (instances/forecast.h): every sampled arrival, accepted or not, and its
 *  departure, with the flavors of the replay's problem, departures first at equal times. */
class Forecaster {
public:
    Forecaster(const std::vector<TraceVm>& trace, const std::vector<std::size_t>& arrivals, const Problem& placing, double origin,
               const ForecastOptions& o)
        : flavors_(static_cast<int>(placing.flavors.size())), origin_(origin), o_(o) {
        for (std::size_t a = 0; a < arrivals.size(); ++a) {
            const TraceVm& vm = trace[arrivals[a]];
            const int f = placing.vms[a].flavor;
            events_.push_back(FlavorEvent{vm.arrival_s, f, +1});
            if (!vm.censored()) events_.push_back(FlavorEvent{vm.departure_s, f, -1});
        }
        std::stable_sort(events_.begin(), events_.end(), [](const FlavorEvent& x, const FlavorEvent& y) {
            return x.time_s < y.time_s || (x.time_s == y.time_s && x.delta < y.delta);
        });
    }
    /** The needs at trace time t (nullopt before a full day of history). */
    std::optional<std::vector<std::int64_t>> need(double t) const { return forecast_need(events_, flavors_, origin_, t, o_); }

private:
    std::vector<FlavorEvent> events_;
    int flavors_;
    double origin_;
    ForecastOptions o_;
};

/** Capacity of every flavor of the run's problem on the cluster as it stands, sum over hosts. */
std::vector<Count> capacity_now(const SearchState& s) {
    const CapacityModel& m = s.model();
    std::vector<Count> c(s.problem().flavors.size(), 0);
    for (int h = 0; h < static_cast<int>(s.problem().hosts.size()); ++h)
        for (std::size_t f = 0; f < c.size(); ++f) c[f] += m.host_capacity(s.type_of(h), static_cast<int>(f), s.free_of(h));
    return c;
}

/** The free vCPU and RAM of the cluster as it stands, summed over its pNUMA nodes. */
struct FreeRoom {
    Amount vcpu = 0, ram_mib = 0;
};
FreeRoom free_room(const SearchState& s) {
    const Problem& p = s.problem();
    FreeRoom r;
    for (int h = 0; h < static_cast<int>(p.hosts.size()); ++h)
        for (int n = 0; n < p.host_type_of(h).num_nodes(); ++n) {
            r.vcpu += s.free_of(h)[n * p.num_resources() + kVcpu];
            r.ram_mib += s.free_of(h)[n * p.num_resources() + kRamMib];
        }
    return r;
}

/** The requests of the demand window before a night, per flavor of the replay's problem. */
struct WindowDemand {
    std::map<std::string, double> weights;  ///< demand_weights of the window (empty: no request)
};

/** The demand weights (demand_weights, instances/trace.h) of the requests, accepted or not, of
 *  (t - window, t] among the arrivals before `next`. */
WindowDemand window_demand(const std::vector<TraceVm>& trace, const std::vector<std::size_t>& arrivals, std::size_t next, double t,
                           double window_s) {
    std::vector<FlavorRequest> asked;
    for (std::size_t a = next; a-- > 0 && trace[arrivals[a]].arrival_s > t - window_s;)
        asked.push_back(FlavorRequest{trace[arrivals[a]].arrival_s, trace[arrivals[a]].flavor_name, 0});
    std::int64_t total = 0;
    return WindowDemand{demand_weights(asked, t, window_s, total)};
}

/** The night's weights per flavor of `q` (the cluster now, the replay's flavors) given the
 *  window's demand (SimulateOptions::replay): fixed, or "demand" (0 for a flavor not requested);
 *  a window without requests keeps the fixed weights. The `weights` overrides apply last. */
std::vector<double> night_weights(const Problem& q, const WindowDemand& d, const SnapshotOptions& o,
                                  const std::optional<std::vector<std::int64_t>>& need, double base) {
    std::vector<double> w;
    for (const Flavor& f : q.flavors) w.push_back(f.weight);
    if (o.targets == "forecast" && need) {
        std::fill(w.begin(), w.end(), base);
    } else {
        if (o.targets != "demand" || d.weights.empty()) return w;
        for (std::size_t f = 0; f < w.size(); ++f) {
            const auto it = d.weights.find(q.flavors[f].name);
            w[f] = it == d.weights.end() ? 0.0 : it->second;
        }
    }
    for (std::size_t f = 0; f < w.size(); ++f)
        if (auto it = o.weights.find(q.flavors[f].name); it != o.weights.end()) w[f] = it->second;
    return w;
}

/** The registry SimulateOptions::defrag is looked up in. */
const NightPolicies& registry_of(const SimulateOptions& o, NightPolicies& builtin) {
    if (o.night_policies != nullptr) return *o.night_policies;
    return builtin = builtin_night_policies();
}

/** The nightly budget (SimulateOptions::budget_*) for `vms` VMs on a host. */
std::int64_t run_budget(const SimulateOptions& o, std::int64_t vms) {
    return o.budget_ram_mib >= 0 ? vms
           : o.budget_count >= 0 ? o.budget_count
                                 : std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(o.budget_fraction * vms)));
}

/** What a run of the policy is given beyond the options: the forecast needs (per flavor, or none)
 *  and the most migrations it may plan (the day's budget left; -1: no such cap). */
struct RunLimits {
    std::optional<std::vector<std::int64_t>> need;
    std::int64_t most = -1;
    std::uint64_t seed_offset = 0;  ///< added to the night's seed (a triggered run draws its own)
};

/** Forecast coverage sum_f min(capacity_f, need_f) (SimulateOptions::defrag_when). */
std::int64_t coverage(const std::vector<Count>& capacity, const std::vector<std::int64_t>& need) {
    std::int64_t c = 0;
    for (std::size_t f = 0; f < need.size() && f < capacity.size(); ++f) c += std::min<std::int64_t>(capacity[f], need[f]);
    return c;
}

/** The night's plan on the cluster as it stands with `weights`, asked of the night policy and
 *  applied to the run; fills the day's figures. A plan that lowers the forecast coverage (with
 *  limits.need) is not applied (day.plans_refused). Returns whether the time limit cut the night. */
bool defragment(Run& run, const SimulateOptions& o, int night, const WindowDemand& demand, double t, std::size_t row, SimulateDay& day,
                const std::vector<double>& night_base, const RunLimits& limits = {}) {
    std::vector<int> original;
    Problem q = cluster_now(run.state(), original);
    for (std::size_t f = 0; f < q.flavors.size(); ++f) q.flavors[f].weight = night_base[f];  // the targets', not the placer's
    const std::vector<double> weights = night_weights(q, demand, o.replay, limits.need, o.forecast_base_weight);
    for (std::size_t f = 0; f < q.flavors.size(); ++f) q.flavors[f].weight = weights[f];
    if (o.replay.targets == "forecast" && limits.need) {
        for (std::size_t f = 0; f < q.flavors.size(); ++f) q.flavors[f].need = (*limits.need)[f];
        q.objective_terms.emplace_back("uncovered-need", 1.0);
    }
    if (limits.need) day.needs = *limits.need;
    const auto vms = static_cast<std::int64_t>(q.vms.size());
    q.constraints.max_migrations = run_budget(o, vms);
    if (limits.most >= 0) q.constraints.max_migrations = std::min(q.constraints.max_migrations, limits.most);
    if (o.budget_ram_mib >= 0) q.constraints.max_migrated_ram_mib = o.budget_ram_mib;
    const CapacityModel model(q);
    const SearchState before(model);
    day.weights = weights;
    day.objective_before = before.objective_value();
    day.objective_after = day.objective_before;
    day.capacity_after = cluster_capacity(model, compute_node_usage(q)).totals();
    if (vms == 0) return false;
    NightPolicies builtin;
    const std::unique_ptr<NightPolicy> policy = registry_of(o, builtin).make(o.defrag, o.defrag_options);
    const Night n{.model = model,
                  .index = night,
                  .time_s = t,
                  .budget = {q.constraints.max_migrations, q.constraints.max_migrated_ram_mib},
                  .seed = o.seed + static_cast<std::uint64_t>(night) + limits.seed_offset,
                  .evaluations = o.evaluations,
                  .schedule = o.schedule,
                  .stop = o.stop,
                  .time_limit_s = o.time_limit_s};
    std::optional<NightPlan> r = policy->plan(n);
    if (!r) return false;
    if (o.schedule && !r->plan.schedule)  // a policy that does not schedule its plan: its waves here
        r->plan = schedule_plan(model, r->plan, o.schedule->limits, o.schedule->durations, o.schedule->window_s);
    const Plan& plan = r->plan;
    if (limits.need && coverage(plan.capacity_after, *limits.need) < coverage(day.capacity_after, *limits.need)) {
        ++day.plans_refused;  // the plan would leave less of the forecast need covered: the cluster stays as it is
        return r->stopped_by == StopReason::TimeLimit;
    }
    if (o.check) {
        const auto doc = nlohmann::json::parse(plan_to_json(q, plan, PlanInfo{}).dump());
        const PlanCheck c = validate_plan(model, doc, "<night " + std::to_string(night) + ">", true, false);
        if (!c.ok) throw std::logic_error("simulate: night " + std::to_string(night) + ": the plan does not validate: " + c.error);
    }
    day.planned_migrations = plan.migrations;
    day.planned_ram_mib = plan.migrated_ram_mib;
    day.makespan_s = plan.schedule ? plan.schedule->makespan_s : 0.0;
    if (o.apply_over_duration) {  // counted as the steps end (Run::launch)
        run.launch(plan, original, t, o.schedule->window_s > 0.0 ? o.schedule->window_s : day.makespan_s, row);
    } else {
        for (const PlanStep& st : plan.steps)
            if (!run.migrate(original[static_cast<std::size_t>(st.vm)], st.to_host, st.to_pnuma))
                throw std::logic_error("simulate: night " + std::to_string(night) + ": a plan step has no room on the replay's state");
        day.migrations += plan.migrations;
    }
    day.objective_after = plan.objective_after;
    day.capacity_after = plan.capacity_after;
    return r->stopped_by == StopReason::TimeLimit;
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

/** Seed 003 Table 4.2: (vCPU, RAM GB, $/h), the minimum rate per shape. */
struct Price {
    Amount vcpu;
    double ram_gb, per_hour;
};
constexpr Price kTable42[] = {{1, 0.75, 0.018}, {1, 1.75, 0.044}, {1, 2, 0.043},  {2, 3.5, 0.088}, {2, 4, 0.091},  {2, 14, 0.175},
                              {2, 16, 0.149},   {4, 7, 0.176},    {4, 8, 0.191},  {4, 28, 0.35},   {4, 32, 0.297}, {8, 14, 0.352},
                              {8, 16, 0.4},     {8, 56, 0.7},     {8, 64, 0.594}, {16, 112, 1.387}};

/** Rejected VDCs and seed 003's revenue (SimulateResult) of the run up to trace time `end`. */
void revenue_and_vdcs(const Problem& placing, const std::vector<TraceVm>& trace, const std::vector<std::size_t>& arrivals,
                      const std::vector<char>& admitted, double end, const SimulateOptions& o, SimulateResult& out) {
    const auto hours = [&](std::size_t a) {  // the VM's lifetime within the span
        const TraceVm& vm = trace[arrivals[a]];
        return std::max(0.0, std::min(vm.departure_s, end) - vm.arrival_s) / 3600.0;
    };
    bool priced = true;
    for (std::size_t a = 0; a < arrivals.size(); ++a) {
        const TraceVm& vm = trace[arrivals[a]];
        if (vm.arrival_s > end) break;
        const std::optional<double> price = vm_price_per_hour(vm.vcpu, vm.ram_mib);
        priced = priced && price.has_value();
        const double r = price.value_or(0.0) * hours(a);
        out.base_revenue += r;
        if (admitted[a]) out.compute_revenue += r;
    }
    std::vector<char> rejected_vdc(placing.vdcs.size(), 0);
    for (const Vlink& l : placing.vlinks) {
        const auto a = static_cast<std::size_t>(l.a), b = static_cast<std::size_t>(l.b);
        if (admitted[a] && admitted[b]) {
            const TraceVm &x = trace[arrivals[a]], &y = trace[arrivals[b]];
            const double overlap = std::max(0.0, std::min({x.departure_s, y.departure_s, end}) - std::max(x.arrival_s, y.arrival_s));
            out.network_revenue += static_cast<double>(l.mbps) * overlap / 3600.0 * o.bw_price_per_mbps_h;
        } else if (l.vdc >= 0 && (trace[arrivals[a]].arrival_s <= end && trace[arrivals[b]].arrival_s <= end)) {
            rejected_vdc[static_cast<std::size_t>(l.vdc)] = 1;
        }
    }
    out.vdcs = static_cast<std::int64_t>(placing.vdcs.size());
    out.rejected_vdcs = std::count(rejected_vdc.begin(), rejected_vdc.end(), 1);
    out.revenue_gain = !priced                  ? std::numeric_limits<double>::quiet_NaN()
                       : out.base_revenue > 0.0 ? (out.compute_revenue + out.network_revenue) / out.base_revenue - 1.0
                                                : 0.0;
}

/** SimulateResult::rejected_vcpu_hours of the run up to trace time `end`. */
double rejected_vcpu_hours(const std::vector<TraceVm>& trace, const std::vector<std::size_t>& arrivals, const std::vector<char>& admitted,
                           double end) {
    double sum = 0.0;
    for (std::size_t a = 0; a < arrivals.size() && trace[arrivals[a]].arrival_s <= end; ++a) {
        const TraceVm& vm = trace[arrivals[a]];
        if (!admitted[a]) sum += static_cast<double>(vm.vcpu) * std::max(0.0, std::min(vm.departure_s, end) - vm.arrival_s) / 3600.0;
    }
    return sum;
}

/** Adds a closed day to the run's totals and series. */
void add_day(const SimulateDay& d, SimulateResult& out) {
    out.arrivals += d.arrivals;
    out.rejected += d.rejected;
    out.rejected_vcpu += d.rejected_vcpu;
    out.migrations += d.migrations;
    out.rejected_one_pool += d.rejected_one_pool;
    out.rejected_one_pool_vcpu += d.rejected_one_pool_vcpu;
    out.admission_migrations += d.admission_migrations;
    out.admitted_by_migrations += d.admitted_by_migrations;
    out.triggered_runs += d.triggered_runs;
    out.plans_refused += d.plans_refused;
    out.days.push_back(d);
}

}  // namespace

std::optional<double> vm_price_per_hour(Amount vcpu, Amount ram_mib) {
    for (const Price& p : kTable42)
        if (p.vcpu == vcpu && std::llround(p.ram_gb * 1024.0) == ram_mib) return p.per_hour;
    return std::nullopt;
}

double first_defragmentation_s(double first_arrival_s, double at_s) {
    const double night = std::floor(first_arrival_s / 86400.0) * 86400.0 + at_s;  // at_s on the first arrival's day
    return night >= first_arrival_s ? night : night + 86400.0;
}

void check_simulate_options(const SimulateOptions& o) {
    try {
        NightPolicies builtin;
        registry_of(o, builtin).make(o.defrag, o.defrag_options);
    } catch (const InputError& e) {
        throw InputError(std::string("simulate: ") + e.what());
    }
    if (!(o.defrag_every_s > 0.0) || !(o.defrag_at_s >= 0.0 && o.defrag_at_s < 86400.0))
        throw InputError("simulate: the defragmentation time of day must be in [0, 86400) s, the interval > 0");
    if (o.budget_count < -1 || !(o.budget_fraction >= 0.0 && o.budget_fraction <= 1.0))
        throw InputError("simulate: the nightly budget must be a count >= 0 or a fraction in [0, 1]");
    if (o.migrations_per_request < 0) throw InputError("simulate: --migrations-per-request must be >= 0");
    if (o.make_room.second_for_copies < 0) throw InputError("simulate: --make-room-copies must be >= 0");
    if (o.evaluations < 0) throw InputError("simulate: --evaluations must be >= 0");
    if (o.apply_over_duration && !o.schedule) throw InputError("simulate: applying plans over their duration needs a schedule");
    if (o.bpc_mbps > 0.0 && !o.network) throw InputError("simulate: VDC vlinks (bpc) need a network");
    if (o.defrag_when != "nightly" && o.defrag_when != "triggered" && o.defrag_when != "both")
        throw InputError("simulate: --defrag-when must be nightly, triggered or both, got '" + o.defrag_when + "'");
    if (o.defrag_when != "nightly") {
        if (!(o.trigger_every_s > 0.0)) throw InputError("simulate: --trigger-every must be > 0");
        if (o.apply_over_duration)
            throw InputError("simulate: --defrag-when " + o.defrag_when + " applies plans at once (not with --apply waves)");
        if (o.budget_ram_mib >= 0)
            throw InputError("simulate: --defrag-when " + o.defrag_when + " counts migrations (a budget in GiB is not supported)");
        if (o.daily_budget_count < -1 ||
            !(o.daily_budget_fraction == -1.0 || (o.daily_budget_fraction >= 0.0 && o.daily_budget_fraction <= 1.0)))
            throw InputError("simulate: --daily-budget must be a count >= 0 or a fraction in [0, 1]");
    }
    if (o.replay.targets == "forecast" || o.defrag_when != "nightly") {
        if (!(o.forecast.horizon_s > 0.0 && o.forecast.horizon_s <= 86400.0))
            throw InputError("simulate: --forecast-horizon must be in (0, 24h]");
        if (o.forecast.days < 1) throw InputError("simulate: --forecast-days must be >= 1");
        if (!(o.forecast.burst_s >= 0.0)) throw InputError("simulate: --forecast-burst must be >= 0");
        if (!(o.forecast.quantile > 0.0 && o.forecast.quantile <= 1.0)) throw InputError("simulate: --forecast-quantile must be in (0, 1]");
        if (!(weight_milli(o.forecast_base_weight) > 0))
            throw InputError("simulate: the forecast's base weight must be in (0, 100000] with at most 3 decimals");
    }
    bool known = false;
    for (const PlacerInfo& p : registered_placers()) known = known || p.name == o.replay.placer;
    if (!known) throw InputError("simulate: --placer must be one of " + placer_names() + ", got '" + o.replay.placer + "'");
}

namespace {

/** The problem the replay places on; `night_base` (may be null): its flavors' weights as the
 *  targets give them, before SimulateOptions::placer_one_node. */
Problem placing_problem(const std::vector<TraceVm>& trace, const SimulateOptions& o, std::vector<std::size_t>& arrivals,
                        std::vector<double>* night_base = nullptr) {
    check_simulate_options(o);
    Problem placing = replay_arrivals(trace, o.replay, arrivals);
    if (night_base != nullptr)
        for (const Flavor& f : placing.flavors) night_base->push_back(f.weight);
    if (o.placer_one_node)
        if (const int f = largest_one_node_flavor(placing.flavors);
            f >= 0 && !o.replay.weights.contains(placing.flavors[static_cast<std::size_t>(f)].name))
            placing.flavors[static_cast<std::size_t>(f)].weight = 1.0;
    if (o.network) {
        build_datacenter_network(placing, *o.network, "simulate");
        if (o.bpc_mbps > 0.0) add_trace_vdcs(placing, trace, arrivals, o.bpc_mbps, o.vdc_cap);
        finalize_problem(placing, "<simulate>", true);
    }
    return placing;
}

}  // namespace

void check_simulation(const std::vector<TraceVm>& trace, const SimulateOptions& o) {
    std::vector<std::size_t> arrivals;
    placing_problem(trace, o, arrivals);
}

SimulateResult simulate(const std::vector<TraceVm>& trace, const SimulateOptions& o) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::size_t> arrivals;
    std::vector<double> night_base;
    const Problem placing = placing_problem(trace, o, arrivals, &night_base);
    const CapacityModel model(placing);
    std::unique_ptr<Placer> placer = make_placer(o.replay.placer);
    Run run(trace, arrivals, model, *placer, o.migrations_per_request, o.make_room, o.apply_over_duration && o.reserve_plan);
    Pool pool(placing);
    SimulateResult out;
    for (const Flavor& f : placing.flavors) out.flavors.push_back(f.name);
    const double origin = trace.empty() ? 0.0 : trace.front().arrival_s;
    const double end = origin + o.replay.time_s;
    double next = first_defragmentation_s(origin, o.defrag_at_s);
    SimulateDay day;
    int night = 0;
    std::size_t a = 0;  // the next arrival
    const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    // Triggered runs (SimulateOptions::defrag_when) and forecast targets read the forecast.
    const bool nightly = o.defrag_when != "triggered", triggered = o.defrag_when != "nightly";
    std::optional<Forecaster> forecaster;
    if (o.replay.targets == "forecast" || triggered) forecaster.emplace(trace, arrivals, placing, origin, o.forecast);
    std::vector<FlavorSize> sizes;  // SimulateOptions::forecast_room
    for (const Flavor& f : placing.flavors) sizes.push_back(FlavorSize{f.demand[kVcpu], f.demand[kRamMib]});
    const auto need_at = [&](double t) { return forecaster ? forecaster->need(t) : std::nullopt; };
    const auto room_holds = [&](std::vector<std::int64_t> need) {  // the part of the needs the free room holds
        const FreeRoom room = free_room(run.state());
        return needs_the_room_holds(need, sizes, room.vcpu, room.ram_mib);
    };
    const auto planned = [&](std::optional<std::vector<std::int64_t>> need) {  // the needs a run plans for, from the forecast
        if (need && o.forecast_room == ForecastRoom::On) need = room_holds(std::move(*need));
        if (need && o.forecast_room == ForecastRoom::Keep) {  // the part the room holds, or the capacity kept up to the need
            const std::vector<Count> cap = capacity_now(run.state());
            std::vector<std::int64_t> held = room_holds(*need);
            for (std::size_t f = 0; f < held.size() && f < cap.size(); ++f)
                held[f] = std::max<std::int64_t>(held[f], std::min<std::int64_t>(cap[f], std::max<std::int64_t>(0, (*need)[f])));
            need = std::move(held);
        }
        return need;
    };
    const auto run_need = [&](double t) { return planned(need_at(t)); };
    const auto short_of = [&](const std::vector<std::int64_t>& need) {  // a flavor's capacity below its need (the part the room holds)
        const std::vector<Count> cap = capacity_now(run.state());
        const std::vector<std::int64_t> at = o.forecast_room == ForecastRoom::Off ? need : room_holds(need);
        for (std::size_t f = 0; f < cap.size(); ++f)
            if (cap[f] < at[f]) return true;
        return false;
    };
    double next_check = origin + o.trigger_every_s;
    std::int64_t day_budget = -1, day_used = 0;  // the day's migration budget (set at its first run) and its use
    const auto budget_left = [&] {
        if (day_budget < 0) {
            const std::int64_t live = run.live();
            day_budget = o.daily_budget_count >= 0 ? o.daily_budget_count
                         : o.daily_budget_fraction >= 0.0
                             ? std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(o.daily_budget_fraction * live)))
                             : run_budget(o, live);
        }
        return std::max<std::int64_t>(0, day_budget - day_used);
    };
    const auto bounded = [&](const SimulateOptions& oo) {  // a run's search ends with the time limit (then not reproducible)
        SimulateOptions b = oo;
        b.time_limit_s = std::max(1e-3, o.time_limit_s - elapsed());
        return b;
    };
    const auto close = [&](double t, const SimulateOptions& oo) {  // the day's row at trace time t
        close_day(run, t - origin, day);
        run.finish_flights(out);  // the last night's steps still in flight end now
        RunLimits limits;
        limits.need = run_need(t);  // none without a forecast (the defaults)
        if (triggered) {            // a new day of budget starts with the night
            day_budget = -1;
            day_used = 0;
            limits.most = budget_left();
        }
        if (defragment(run, bounded(oo), night, window_demand(trace, arrivals, a, t, o.replay.demand_window_s), t, out.days.size(), day,
                       night_base, limits))
            out.stopped_by = StopReason::TimeLimit;
        day_used += day.plans_refused > 0 ? 0 : day.planned_migrations;
        add_day(day, out);
        if (o.on_day) o.on_day(day);
    };
    const auto check = [&](double t) {  // a triggered run at trace time t when a flavor's capacity is below its need
        const std::optional<std::vector<std::int64_t>> forecast = need_at(t);
        if (!forecast) return;
        if (!short_of(*forecast) || budget_left() == 0) return;
        RunLimits limits{planned(forecast), budget_left(), 1000003ULL * static_cast<std::uint64_t>(day.triggered_runs + 1)};
        SimulateDay run_day;  // the run's own figures; the day's row gets its migrations
        if (defragment(run, bounded(o), night, window_demand(trace, arrivals, a, t, o.replay.demand_window_s), t, out.days.size(), run_day,
                       night_base, limits))
            out.stopped_by = StopReason::TimeLimit;
        ++day.triggered_runs;
        day.plans_refused += run_day.plans_refused;
        day.triggered_migrations += run_day.migrations;
        day.migrations += run_day.migrations;
        day_used += run_day.migrations;
    };
    SimulateOptions at_night = o;  // defrag_when triggered: the nights only close the rows
    if (!nightly) {
        at_night.defrag = "none";
        at_night.defrag_options.clear();
    }
    const auto night_until = [&](double t) {  // every defragmentation and triggered check due by trace time t, in time order
        while (out.stopped_by == StopReason::Complete && !(o.stop != nullptr && o.stop->load())) {
            const bool night_due = next <= t && next <= end;
            const bool check_due = triggered && next_check <= t && next_check <= end;
            if (!night_due && !check_due) break;
            if (check_due && (!night_due || next_check < next)) {
                run.depart_until(next_check, out);
                check(next_check);
                next_check += o.trigger_every_s;
                continue;
            }
            run.depart_until(next, out);
            close(next, at_night);
            day = SimulateDay{};
            day.day = ++night;
            next += o.defrag_every_s;
        }
    };
    const auto stopping = [&] {  // polled every 1,024 arrivals and before every night
        if (o.stop != nullptr && o.stop->load())
            out.stopped_by = StopReason::Interrupted;
        else if (elapsed() > o.time_limit_s)
            out.stopped_by = StopReason::TimeLimit;
        return out.stopped_by != StopReason::Complete;
    };
    double now = end;
    for (; a < arrivals.size(); ++a) {
        const double t = trace[arrivals[a]].arrival_s;
        if (out.stopped_by != StopReason::Complete || ((a % 1024 == 0 || next <= t) && stopping())) {
            now = t;
            break;
        }
        night_until(t);
        run.depart_until(t, out);
        run.arrive(a, day);
        if (!pool.arrive(trace[arrivals[a]], t)) {
            ++day.rejected_one_pool;
            day.rejected_one_pool_vcpu += trace[arrivals[a]].vcpu;
        }
    }
    if (out.stopped_by == StopReason::Complete) night_until(end);
    run.depart_until(now, out);
    SimulateOptions last = o;
    last.defrag = "none";  // the end of the span: figures only
    last.defrag_options.clear();
    close(now, last);
    revenue_and_vdcs(placing, trace, arrivals, run.admitted(), now, o, out);
    out.rejected_vcpu_hours = rejected_vcpu_hours(trace, arrivals, run.admitted(), now);
    for (std::size_t f = 0; f < placing.flavors.size(); ++f)
        if (run.rejected_by_flavor()[f] > 0) out.rejected_by_flavor[placing.flavors[f].name] += run.rejected_by_flavor()[f];
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

}  // namespace vmcap
