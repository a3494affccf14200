#include "placement/admission.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "evaluators/state/capacity_model.h"
#include "evaluators/state/search_state.h"
#include "evaluators/rules/feasibility.h"
#include "instances/printable.h"
#include "placement/online_cluster.h"
#include "placement/placer.h"

namespace vmcap {

namespace {

/** The cluster with every requested VM appended, unplaced, and the requests' vlinks; vm_of[i][k]
 *  is the index of VM k of request i. */
Problem with_arrivals(const Problem& cluster, const std::vector<Request>& requests, const std::string& path,
                      std::vector<std::vector<int>>& vm_of) {
    Problem p = cluster;
    std::map<std::string, int> flavor;
    for (std::size_t f = 0; f < p.flavors.size(); ++f) flavor.emplace(p.flavors[f].name, static_cast<int>(f));
    std::set<std::string> ids, vdcs(p.vdcs.begin(), p.vdcs.end());
    for (const Vm& v : p.vms) ids.insert(v.id);
    vm_of.assign(requests.size(), {});
    for (std::size_t i = 0; i < requests.size(); ++i) {
        const Request& r = requests[i];
        const std::string where = path + ": requests[" + std::to_string(i) + "]";
        for (std::size_t k = 0; k < r.vms.size(); ++k) {
            const auto it = flavor.find(r.vms[k].flavor);
            const std::string field = r.vdc ? ".vms[" + std::to_string(k) + "].flavor" : ".flavor";
            if (it == flavor.end()) throw InputError(printable(where + field + ": no flavor '" + r.vms[k].flavor + "' in the cluster"));
            Vm vm;
            vm.id = r.vdc ? r.id + "/" + r.vms[k].id : r.id;
            if (!ids.insert(vm.id).second) throw InputError(printable(where + ": VM id '" + vm.id + "' is already in the cluster"));
            vm.flavor = it->second;
            vm.host = kUnplaced;
            vm_of[i].push_back(static_cast<int>(p.vms.size()));
            p.vms.push_back(std::move(vm));
        }
        if (r.vlinks.empty()) continue;
        if (p.network.switches.empty()) throw InputError(where + ".vlinks: the cluster has no network (vlinks need one)");
        if (!vdcs.insert(r.id).second) throw InputError(printable(where + ".id: VDC '" + r.id + "' is already in the cluster"));
        const int vdc = static_cast<int>(p.vdcs.size());
        p.vdcs.push_back(r.id);
        for (const RequestVlink& l : r.vlinks) p.vlinks.push_back(Vlink{vm_of[i][l.a], vm_of[i][l.b], l.mbps, vdc});
    }
    finalize_problem(p, path, true);
    return p;
}

/** `mib` as GiB: "112", or "3.5" when not whole. */
std::string gib(Amount mib) {
    if (mib % 1024 == 0) return std::to_string(mib / 1024);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(mib) / 1024.0);
    return buf;
}

/** Why no host took `vm` now: the resource that is short everywhere, NUMA fragmentation, or links;
 *  `in_group`: the VM of a request of several placed all or nothing, its earlier VMs taken off
 *  again already (room they held may be free now). */
std::string why_not(const SearchState& s, int vm, bool in_group) {
    const Problem& p = s.problem();
    const Flavor& fl = p.flavors[static_cast<std::size_t>(s.flavor_of(vm))];
    int total_room = 0, node_room = 0;
    for (int h = 0; h < static_cast<int>(p.hosts.size()); ++h) {
        const HostFree f = host_free(s, h);
        if (f.vcpu < fl.demand[kVcpu] || f.ram_mib < fl.demand[kRamMib]) continue;
        ++total_room;
        if (first_fitting_placement(s, s.flavor_of(vm), h) >= 0) ++node_room;
    }
    const std::string need = std::to_string(fl.demand[kVcpu]) + " vCPU and " + gib(fl.demand[kRamMib]) + " GiB";
    if (total_room == 0) return "no host has " + need + " free";
    if (node_room == 0)
        return "pNUMA fragmentation: " + std::to_string(total_room) + " host(s) have " + need + " free in total, none on a " +
               std::to_string(fl.num_vnuma()) + "-node set of its vNUMA topology";
    if (in_group)
        return s.model().has_filters()
                   ? "no host could take it (" + need +
                         " on a usable pNUMA node set, every link within capacity) once the request's earlier VMs were placed (all undone)"
                   : "no host had " + need + " free on a usable pNUMA node set once the request's earlier VMs were placed (all undone)";
    if (!s.model().has_filters())  // no link rule: the strategy chose no host although one has room
        return "not placed by the strategy: " + std::to_string(node_room) + " host(s) have " + need +
               " free on a usable pNUMA node set (no link rule applies)";
    int admitted = 0;  // a strategy that tries only some hosts (starnet) may miss one that links admit
    for (int h = 0; h < static_cast<int>(p.hosts.size()); ++h)
        if (const int e = first_fitting_placement(s, s.flavor_of(vm), h);
            e >= 0 &&
            rules_admit(s, vm, h, s.model().evaluator(s.type_of(h), s.flavor_of(vm)).placements()[static_cast<std::size_t>(e)].mask))
            ++admitted;
    if (admitted > 0)
        return "link capacity on the host(s) the strategy tried: " + std::to_string(admitted) + " of the " + std::to_string(node_room) +
               " host(s) with room on their pNUMA nodes are within every link's capacity";
    return "link capacity: " + std::to_string(node_room) + " host(s) have room on their pNUMA nodes, none within every link's capacity";
}

/** res.problem: the cluster's VMs where they stand now, then the placed arrivals in request order,
 *  the vlinks between placed VMs; res's per-request VM indices and totals. */
void build_result(const Problem& cluster, const Problem& placing, const SearchState& state, const std::vector<std::vector<int>>& vm_of,
                  AdmissionResult& res) {
    Problem& out = res.problem;
    out = cluster;
    std::vector<int> result_of(placing.vms.size(), -1);
    for (std::size_t v = 0; v < cluster.vms.size(); ++v) {
        result_of[v] = static_cast<int>(v);
        Vm& vm = out.vms[v];  // where it stands now: live migrations may have moved it
        vm.host = state.host_of(static_cast<int>(v));
        const int k = placing.flavors[static_cast<std::size_t>(vm.flavor)].num_vnuma();
        std::copy(state.pnuma_of(static_cast<int>(v)), state.pnuma_of(static_cast<int>(v)) + k, vm.pnuma.begin());
    }
    for (std::size_t i = 0; i < vm_of.size(); ++i) {
        RequestOutcome& o = res.outcomes[i];
        for (const int v : vm_of[i]) {
            if (!state.is_placed(v)) {
                o.result_vm.push_back(-1);
                continue;
            }
            Vm vm = placing.vms[static_cast<std::size_t>(v)];
            vm.host = state.host_of(v);
            const Flavor& fl = placing.flavors[static_cast<std::size_t>(vm.flavor)];
            std::copy(state.pnuma_of(v), state.pnuma_of(v) + fl.num_vnuma(), vm.pnuma.begin());
            result_of[static_cast<std::size_t>(v)] = static_cast<int>(out.vms.size());
            o.result_vm.push_back(result_of[static_cast<std::size_t>(v)]);
            out.vms.push_back(std::move(vm));
            ++res.vms_placed;
            res.vcpu_placed += fl.demand[kVcpu];
            res.ram_mib_placed += fl.demand[kRamMib];
        }
    }
    std::map<int, int> vdc_of;  // placing's VDC index -> out's: the cluster's own as they were
    for (int d = 0; d < static_cast<int>(cluster.vdcs.size()); ++d) vdc_of.emplace(d, d);
    out.vlinks.clear();
    for (const Vlink& l : placing.vlinks) {
        const int a = result_of[static_cast<std::size_t>(l.a)], b = result_of[static_cast<std::size_t>(l.b)];
        if (a < 0 || b < 0) continue;
        int vdc = -1;
        if (l.vdc >= 0) {
            const auto [it, fresh] = vdc_of.emplace(l.vdc, static_cast<int>(out.vdcs.size()));
            if (fresh) out.vdcs.push_back(placing.vdcs[static_cast<std::size_t>(l.vdc)]);
            vdc = it->second;
        }
        out.vlinks.push_back(Vlink{a, b, l.mbps, vdc});
        if (l.a >= static_cast<int>(cluster.vms.size()) || l.b >= static_cast<int>(cluster.vms.size())) res.mbps_placed += l.mbps;
    }
}

/** One admission run: the state, the strategy and the outcomes, request after request. */
class Admission {
public:
    Admission(OnlineCluster& cluster, const AdmissionOptions& options, const MakeRoom& make_room,
              const std::vector<std::vector<int>>& vm_of, AdmissionResult& res)
        : cluster_(cluster),
          state_(cluster.state()),
          options_(options),
          make_room_(make_room),
          vm_of_(vm_of),
          res_(res),
          room_made_(options.migrations_per_request > 0 && make_room) {}

    /** VM `v` of request i (best effort, or a batch's): placed, else room made for it within `budget`. */
    void place_single(std::size_t i, int v, int& budget) {
        RequestOutcome& o = res_.outcomes[i];
        if (cluster_.place(v).found()) {
            record_placed(i, v);
            return;
        }
        std::string reason = why_not(state_, v, false);
        if (const std::string note = cluster_.placer().refusal_note(); !note.empty()) reason += "; " + note;
        std::vector<OnlineCluster::Migration> moved;
        if (room_made_ && budget > 0) moved = cluster_.migrate_all(make_room_(cluster_, v, budget));
        if (!moved.empty() && cluster_.place(v).found()) {
            o.migrations += static_cast<int>(moved.size());
            budget -= static_cast<int>(moved.size());
            record_moves(o, moved);
            record_placed(i, v);
            return;
        }
        cluster_.undo(moved);
        if (o.reason.empty()) o.reason = reason;
    }

    /** Requests [i, j), single VMs, ordered by the strategy as one batch, each then placed on its own. */
    void offer_batch(std::size_t i, std::size_t j) {
        std::vector<int> vms;
        std::unordered_map<int, std::size_t> request_of;
        for (std::size_t k = i; k < j; ++k) {
            vms.push_back(vm_of_[k].front());
            request_of[vm_of_[k].front()] = k;
        }
        for (const int v : cluster_.batch_order(vms)) {
            int budget = options_.migrations_per_request;
            place_single(request_of.at(v), v, budget);
        }
    }

    /** Request i, several VMs, all or nothing; room made for the VM that failed, then once more,
     *  again for the next VM that fails while the budget lasts (a make_room that makes room for
     *  one VM at a time). */
    void offer_group(std::size_t i) {
        RequestOutcome& o = res_.outcomes[i];
        const GroupPlacement g = cluster_.place_group(vm_of_[i]);
        if (g.placed()) {
            for (const int v : vm_of_[i]) record_placed(i, v);
            return;
        }
        o.reason = why_not(state_, g.failed_vm, true);
        if (const std::string note = cluster_.placer().refusal_note(); !note.empty()) o.reason += "; " + note;
        // Room for the VM that failed (the group's others taken off again), then the group again.
        std::vector<OnlineCluster::Migration> moved;
        int budget = options_.migrations_per_request, failed = g.failed_vm;
        while (room_made_ && budget > 0) {
            const std::vector<OnlineCluster::Migration> more = cluster_.migrate_all(make_room_(cluster_, failed, budget));
            if (more.empty()) break;
            moved.insert(moved.end(), more.begin(), more.end());
            budget -= static_cast<int>(more.size());
            const GroupPlacement again = cluster_.place_group(vm_of_[i]);
            if (again.placed()) {
                o.migrations = static_cast<int>(moved.size());
                o.reason.clear();
                record_moves(o, moved);
                for (const int v : vm_of_[i]) record_placed(i, v);
                return;
            }
            failed = again.failed_vm;
        }
        cluster_.undo(moved);
    }

    /** Request i's VMs each on its own (best effort). */
    void offer_each(std::size_t i) {
        int budget = options_.migrations_per_request;  // per request, over its VMs
        for (const int v : vm_of_[i]) place_single(i, v, budget);
    }

    /** Request i's counts, once it was offered. */
    void close(std::size_t i, double seconds) {
        RequestOutcome& o = res_.outcomes[i];
        o.seconds = seconds;
        for (const int v : vm_of_[i]) o.placed += state_.is_placed(v) ? 1 : 0;
        o.accepted = o.placed == o.vms;
        (o.accepted ? res_.accepted : res_.rejected) += 1;
        res_.migrations += o.migrations;
        if (o.accepted && o.migrations > 0) ++res_.admitted_by_migrations;
        if (!o.accepted && options_.stop_at_first_failure && !res_.stopped()) {  // after the batch it is in
            res_.stopped_by = StopReason::FirstFailure;
        }
    }

    /** Stops the stream (before the next request) at an interrupt or the time limit. */
    void check_stop(std::chrono::steady_clock::time_point started) {
        if (!res_.stopped() && options_.stop != nullptr && options_.stop->load()) {
            res_.stopped_by = StopReason::Interrupted;
        }
        if (!res_.stopped() && options_.time_limit_s > 0.0 &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() >= options_.time_limit_s) {
            res_.stopped_by = StopReason::TimeLimit;
        }
    }

private:
    /** `vm`'s pNUMA nodes now, 0-based, in vNUMA order. */
    std::vector<int> nodes_of(int vm) const {
        const int k = state_.problem().flavors[static_cast<std::size_t>(state_.flavor_of(vm))].num_vnuma();
        return std::vector<int>(state_.pnuma_of(vm), state_.pnuma_of(vm) + k);
    }

    /** VM `v` of request i placed now: its admission event, the run's next step. */
    void record_placed(std::size_t i, int v) {
        const std::vector<int>& vms = vm_of_[i];
        const auto k = static_cast<std::size_t>(std::find(vms.begin(), vms.end(), v) - vms.begin());
        AdmissionEvent& e = res_.outcomes[i].admitted.at(k);
        e.step = ++step_;
        e.vm = state_.problem().vms[static_cast<std::size_t>(v)].id;
        e.to_host = state_.host_of(v);
        e.to_pnuma = nodes_of(v);
    }

    /** The migrations `moved` (applied, kept) as o's events, in the order they were made. */
    void record_moves(RequestOutcome& o, const std::vector<OnlineCluster::Migration>& moved) {
        for (const OnlineCluster::Migration& a : moved) {
            const int k = state_.problem().flavors[static_cast<std::size_t>(state_.flavor_of(a.vm))].num_vnuma();
            AdmissionEvent e;
            e.step = ++step_;
            e.vm = state_.problem().vms[static_cast<std::size_t>(a.vm)].id;
            e.from_host = a.from_host;
            e.from_pnuma.assign(a.from_pnuma.begin(), a.from_pnuma.begin() + k);
            e.to_host = a.to_host;
            e.to_pnuma.assign(a.to_pnuma.begin(), a.to_pnuma.begin() + k);
            o.moves.push_back(std::move(e));
        }
    }

    std::int64_t step_ = 0;  ///< the last event's step
    OnlineCluster& cluster_;
    const SearchState& state_;
    const AdmissionOptions& options_;
    const MakeRoom& make_room_;
    const std::vector<std::vector<int>>& vm_of_;
    AdmissionResult& res_;
    bool room_made_;
};

}  // namespace

AdmissionResult admit_requests(const Problem& cluster, const std::vector<Request>& requests, const AdmissionOptions& options,
                               const std::string& requests_path, const MakeRoom& make_room) {
    std::vector<std::vector<int>> vm_of;
    const Problem placing = with_arrivals(cluster, requests, requests_path, vm_of);
    const CapacityModel model(placing);
    std::unique_ptr<Placer> placer = make_placer(options.strategy);
    std::optional<OnlineCluster> online;
    try {
        online.emplace(model, *placer);
    } catch (const std::logic_error& e) {
        throw InputError(std::string(e.what()) + " (the cluster and requests have vlinks: use --strategy link-fit)");
    }
    AdmissionResult res;
    res.outcomes.resize(requests.size());
    Admission run(*online, options, make_room, vm_of, res);
    const auto started = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < requests.size();) {
        run.check_stop(started);
        // A batch: consecutive single-VM requests, ordered by the strategy together (batch_order()).
        std::size_t j = i + 1;
        while (options.batch > 1 && vm_of[i].size() == 1 && j < requests.size() && j - i < static_cast<std::size_t>(options.batch) &&
               vm_of[j].size() == 1)
            ++j;
        for (std::size_t k = i; k < j; ++k) {
            res.outcomes[k].id = requests[k].id;
            res.outcomes[k].vms = static_cast<int>(vm_of[k].size());
            res.outcomes[k].offered = !res.stopped();
            res.outcomes[k].admitted.resize(vm_of[k].size());
        }
        if (!res.stopped()) {
            const auto t0 = std::chrono::steady_clock::now();
            if (j > i + 1)
                run.offer_batch(i, j);
            else if (options.all_or_nothing && vm_of[i].size() > 1)
                run.offer_group(i);
            else
                run.offer_each(i);
            const double seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / static_cast<double>(j - i);
            for (std::size_t k = i; k < j; ++k) run.close(k, seconds);
        }
        i = j;
    }
    build_result(cluster, placing, online->state(), vm_of, res);
    finalize_problem(res.problem, requests_path);  // from scratch: every placement valid, no node over capacity
    return res;
}

}  // namespace vmcap
