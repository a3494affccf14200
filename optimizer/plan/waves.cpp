#include "optimizer/plan/waves.h"

#include <algorithm>
#include <string>
#include <memory>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "evaluators/network/network_load.h"
#include "evaluators/rules/feasibility.h"
#include "evaluators/state/fit.h"

namespace vmcap {

namespace {

/** One wave being filled: the in-flight reservations, the limits' counters, the rules that hold
 *  in flight and the memory copies' load on the network, on top of the boundary state `s`. */
class OpenWave {
public:
    OpenWave(const SearchState& s, const NetworkRoutes* routes, const std::vector<std::int64_t>& loads, const MigrationLimits& limits)
        : s_(s), p_(s.problem()), R_(p_.num_resources()), routes_(routes), loads_(loads), limits_(limits), flight_(s.model()) {}

    bool empty() const { return taken_ == 0; }
    /** No further step may join: the cluster limit is reached, or a copy slowed to its route's
     *  spare bandwidth runs alone. */
    bool full() const { return alone_ || (limits_.cluster > 0 && taken_ >= limits_.cluster); }

    /** Admits `st` into the wave if the limits, the in-flight room and the network allow it; on
     *  success returns the Mbps its memory copy gets, else 0. */
    std::int64_t try_add(const PlanStep& st, std::int64_t mbps) {
        if (out_[st.from_host] >= limits_.per_host_out || in_[st.to_host] >= limits_.per_host_in) return 0;
        const std::string& tenant = p_.vms[st.vm].tenant;
        if (limits_.per_tenant > 0 && !tenant.empty() && tenants_[tenant] >= limits_.per_tenant) return 0;
        const Flavor& fl = p_.flavors[p_.vms[st.vm].flavor];
        const NodeMask to_mask = embedding_of(st.to_pnuma, fl.num_vnuma()).mask;
        if (!room_in_flight(st) || !rule_assigns_in_flight(st, to_mask) ||
            flight_.refusal(s_, st.vm, st.from_host, st.to_host, to_mask) != nullptr)
            return 0;
        const std::int64_t got = network_share(st, mbps);
        if (got == 0) return 0;
        std::vector<Amount>& extra = reserve(st.to_host);
        for (int i = 0; i < fl.num_vnuma(); ++i)
            if (!held(st, fl.num_vnuma(), st.to_pnuma[i]))
                for (int r = 0; r < R_; ++r) extra[st.to_pnuma[i] * R_ + r] += fl.node_demand[r];
        if (routes_ != nullptr)
            routes_->for_each_flow(st.from_host, st.to_host, [&](int arc, std::int64_t u) { streams_[arc] += got * u; });
        ++out_[st.from_host];
        ++in_[st.to_host];
        if (!tenant.empty()) ++tenants_[tenant];
        flight_.join(st.vm, st.from_host, st.to_host, to_mask);
        ++taken_;
        alone_ = got < mbps;
        return got;
    }

private:
    /** Does the VM of `st` (k vNUMA nodes) already occupy `node` of its destination? Only a
     *  remap's: it re-pins in place, so a node in both mappings holds one share in flight. */
    static bool held(const PlanStep& st, int k, int node) {
        for (int c = 0; c < k && st.from_host == st.to_host; ++c)
            if (st.from_pnuma[c] == node) return true;
        return false;
    }

    std::vector<Amount>& reserve(int host) {
        auto [it, fresh] = extra_.try_emplace(host);
        if (fresh) it->second.assign(static_cast<std::size_t>(p_.host_type_of(host).num_nodes()) * R_, 0);
        return it->second;
    }

    bool room_in_flight(const PlanStep& st) {
        const Flavor& fl = p_.flavors[p_.vms[st.vm].flavor];
        const int k = fl.num_vnuma();
        const Amount* free = s_.free_of(st.to_host);
        const std::vector<Amount>& extra = reserve(st.to_host);
        for (int i = 0; i < k; ++i) {
            if (held(st, k, st.to_pnuma[i])) continue;
            const int n = st.to_pnuma[i];
            for (int r = 0; r < R_; ++r)
                if (free[n * R_ + r] - extra[n * R_ + r] < fl.node_demand[r]) return false;
        }
        return true;
    }

    /** Are `to_mask` the nodes the destination-node rule assigns when the step starts: on its
     *  destination in flight, the boundary state less the wave's earlier arrivals there (its
     *  departures still hold their nodes)? Always under the free rule. */
    bool rule_assigns_in_flight(const PlanStep& st, NodeMask to_mask) {
        const CapacityModel& m = s_.model();
        if (!m.fixes_nodes()) return true;
        if (st.from_host == st.to_host) return false;  // a remap arrives nowhere
        const std::vector<Amount>& extra = reserve(st.to_host);
        const Amount* free = s_.free_of(st.to_host);
        Amount now[kMaxPNuma * kMaxResources];
        for (std::size_t x = 0; x < extra.size(); ++x) now[x] = free[x] - extra[x];
        return assigned_nodes(m, p_.vms[st.vm].flavor, st.to_host, now) == to_mask;
    }

    /** `mbps` if the copy fits every arc of its route beside the loads and the wave's other
     *  copies; alone in the wave, the route's spare bandwidth if less (0: none). */
    std::int64_t network_share(const PlanStep& st, std::int64_t mbps) const {
        if (routes_ == nullptr || st.from_host == st.to_host) return mbps;
        std::int64_t best = mbps;
        routes_->for_each_flow(st.from_host, st.to_host, [&](int arc, std::int64_t u) {
            const auto it = streams_.find(arc);
            const std::int64_t spare = routes_->capacity(arc) - loads_[arc] - (it == streams_.end() ? 0 : it->second);
            best = std::min(best, spare <= 0 ? 0 : spare / u);
        });
        if (best >= mbps) return mbps;
        return empty() ? best : 0;
    }

    const SearchState& s_;
    const Problem& p_;
    const int R_;
    const NetworkRoutes* routes_;
    const std::vector<std::int64_t>& loads_;
    const MigrationLimits& limits_;
    InFlightWave flight_;                                 ///< the rules that hold in flight, and the wave's arrivals they see
    std::unordered_map<std::string, int> tenants_;        ///< tenant -> steps in this wave
    std::unordered_map<int, std::vector<Amount>> extra_;  ///< host -> in-flight use per [node * R + r]
    std::unordered_map<int, int> out_, in_;
    std::unordered_map<int, std::int64_t> streams_;  ///< arc -> memory copies' load, micro-units
    int taken_ = 0;
    bool alone_ = false;
};

/** The vlink loads of every arc with the VMs where `s` has them (empty without routes). */
std::vector<std::int64_t> loads_of(const SearchState& s, const NetworkRoutes* routes) {
    if (routes == nullptr) return {};
    const Problem& p = s.problem();
    std::vector<int> host(p.vms.size());
    for (std::size_t v = 0; v < host.size(); ++v) host[v] = s.host_of(static_cast<int>(v));
    return link_loads(p, *routes, host);
}

}  // namespace

namespace {

/** What building the waves reads. */
struct WaveInputs {
    const CapacityModel& model;
    const Plan& plan;
    const MigrationLimits& limits;
    const DurationModel& durations;
    double window_s;
    const NetworkRoutes* routes;
};

/**
 * The steps in wave order with their waves and times (schedule_plan's contract). `reorder`: a
 * step may overtake earlier steps on other hosts. `speculative` (reordering past a rule that is
 * not separable per host, e.g. links): when an overtaking step turns out not to fit at its wave's
 * end, or a step can no longer run at all, nullopt — the caller then builds consecutive waves.
 */
std::optional<std::vector<PlanStep>> build_waves(const WaveInputs& in, bool reorder, bool speculative) {
    const Problem& p = in.model.problem();
    SearchState s(in.model);
    std::vector<std::size_t> pending(in.plan.steps.size());
    for (std::size_t i = 0; i < pending.size(); ++i) pending[i] = i;
    std::vector<PlanStep> ordered;
    double t = 0.0;
    int wave = 0;
    bool stopped = false;
    while (!pending.empty() && !stopped) {
        const std::vector<std::int64_t> loads = loads_of(s, in.routes);
        OpenWave w(s, in.routes, loads, in.limits);
        std::vector<PlanStep> taken;
        std::vector<std::size_t> left;
        std::unordered_set<int> blocked_vm, blocked_host, in_wave;
        for (std::size_t idx : pending) {
            const PlanStep& st = in.plan.steps[idx];
            const bool eligible = left.empty() || reorder;
            std::int64_t mbps = 0;
            if (eligible && !w.full() && !blocked_vm.count(st.vm) && !in_wave.count(st.vm) && !blocked_host.count(st.from_host) &&
                !blocked_host.count(st.to_host))
                mbps = w.try_add(st, in.durations.mbps);
            if (mbps > 0) {
                PlanStep x = st;
                x.wave = wave;
                x.mbps = mbps;
                x.start_s = t;
                x.end_s = t + in.durations.seconds(p.flavors[p.vms[st.vm].flavor].demand[kRamMib], mbps);
                in_wave.insert(st.vm);
                taken.push_back(x);
            } else {
                left.push_back(idx);
                blocked_vm.insert(st.vm);
                blocked_host.insert(st.from_host);
                blocked_host.insert(st.to_host);
            }
        }
        if (taken.empty()) {  // the next step cannot run even alone: no spare bandwidth on its route
            if (speculative) return std::nullopt;
            break;
        }
        double end = t;
        for (const PlanStep& x : taken) end = std::max(end, x.end_s);
        if (in.window_s > 0.0 && end > in.window_s) {  // keep what ends within the window, then stop
            // Under a destination-node rule that fixes nodes, a step whose destination lost an
            // earlier arrival of the wave would find other free amounts there: it goes too.
            std::unordered_set<int> cut_into;
            std::vector<PlanStep> kept;
            for (const PlanStep& x : taken)
                if (x.end_s > in.window_s || (in.model.fixes_nodes() && cut_into.count(x.to_host)))
                    cut_into.insert(x.to_host);
                else
                    kept.push_back(x);
            taken = std::move(kept);
            stopped = true;
            end = t;
            for (const PlanStep& x : taken) end = std::max(end, x.end_s);
        }
        for (const PlanStep& x : taken) {
            if (!step_fits(s, x.vm, x.to_host, x.to_pnuma)) {
                if (speculative) return std::nullopt;
                throw std::logic_error("schedule_plan: step of VM " + p.vms[x.vm].id + " has no room at its wave's end");
            }
            s.move(x.vm, x.to_host, embedding_of(x.to_pnuma, p.flavors[p.vms[x.vm].flavor].num_vnuma()));
            ordered.push_back(x);
        }
        if (!taken.empty()) ++wave;
        t = end;
        pending = std::move(left);
    }
    return ordered;
}

}  // namespace

Plan schedule_plan(const CapacityModel& model, const Plan& plan, const MigrationLimits& limits, const DurationModel& durations,
                   double window_s) {
    limits.validate();
    durations.validate();
    if (!(window_s >= 0.0)) throw std::invalid_argument("the maintenance window must be >= 0 s");
    const Problem& p = model.problem();
    std::shared_ptr<const NetworkRoutes> routes = model.network_routes();
    if (!limits.copies_on_network)
        routes = nullptr;
    else if (routes == nullptr && p.network.present())
        routes = std::make_shared<const NetworkRoutes>(p);
    bool separable = true;
    for (const auto& f : model.filters()) separable = separable && f->separable_per_host();
    const WaveInputs in{model, plan, limits, durations, window_s, routes.get()};
    std::optional<std::vector<PlanStep>> built = build_waves(in, true, !separable);
    if (!built) built = build_waves(in, false, false);
    const std::vector<PlanStep>& ordered = *built;
    Plan out = plan_from_steps(model, ordered, plan.dropped);
    PlanSchedule sch;
    sch.limits = limits;
    sch.durations = durations;
    sch.window_s = window_s;
    sch.cut_steps = static_cast<int>(plan.steps.size() - out.steps.size());
    for (const PlanStep& x : out.steps) {
        sch.waves = std::max(sch.waves, x.wave + 1);
        sch.makespan_s = std::max(sch.makespan_s, x.end_s);
    }
    out.schedule = sch;
    return out;
}

}  // namespace vmcap
