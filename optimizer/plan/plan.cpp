#include "optimizer/plan/plan.h"

#include "evaluators/state/cluster_capacity.h"
#include "evaluators/rules/feasibility.h"
#include "evaluators/network/network_report.h"
#include "evaluators/rules/link_filter.h"
#include "evaluators/network/network_load.h"
#include "optimizer/bound/upper_bound.h"
#include "evaluators/state/fit.h"

#include <algorithm>
#include <stdexcept>
#include <cmath>
#include <unordered_map>
#include <limits>

namespace vmcap {

void MigrationLimits::validate() const {
    if (per_host_out < 1) throw std::invalid_argument("migrations out of one host at once must be >= 1");
    if (per_host_in < 1) throw std::invalid_argument("migrations into one host at once must be >= 1");
    if (cluster < 0) throw std::invalid_argument("migrations in flight in the cluster must be >= 0 (0: no limit)");
    if (per_tenant < 0) throw std::invalid_argument("migrations of one tenant in flight must be >= 0 (0: no limit)");
}

void DurationModel::validate() const {
    if (mbps < 1 || mbps > 100'000'000) throw std::invalid_argument("migration bandwidth must be in 1..100000000 Mbps");
    if (!(dirty_factor >= 1.0 && dirty_factor <= 100.0)) throw std::invalid_argument("dirty-page factor must be in [1, 100]");
    if (!(overhead_s >= 0.0 && overhead_s <= 86400.0)) throw std::invalid_argument("migration overhead must be in [0, 86400] s");
}

namespace {

struct Detour {
    int vm = -1, host = -1;
    std::array<std::uint8_t, kMaxVNuma> map{};
    int unblocks = -1;
    Score objective = 0;  ///< right after the detour (tie-break; score units)
};

/** What one deadlock's search for a detour shares across the blocked VMs it examines. */
struct DetourScan {
    std::int64_t pending_steps = 0;                        ///< budget slots the pending moves need
    Amount pending_ram = 0;                                ///< RAM they move
    std::unordered_map<int, std::vector<int>> candidates;  ///< [flavor] candidate detour hosts
    Detour best, first;
    int scored = 0;  ///< tentative moves scored so far
};

/**
 * build_plan's state: the search state executing the plan, the moves still pending, the budget
 * left, which hosts have room per flavor, and the detours so far.
 */
class PlanBuilder {
public:
    PlanBuilder(const CapacityModel& model, const std::vector<Placement>& target);
    Plan run();

private:
    static constexpr int kMaxPerVm = 6;      ///< fitting detour placements per VM
    static constexpr int kMaxScored = 4096;  ///< tentative moves scored per deadlock

    bool step_counts(int from, int to) const { return step_uses_budget(p, from, to); }
    /** Room for one more VM of `flavor` on host h in some placement (resources only). */
    bool has_room(int flavor, int h) const { return first_fitting_placement(s, flavor, h) >= 0; }
    /** The nodes a step of pending move `pl` gets now: its target's, or under a destination-node
     *  rule that fixes nodes the rule's choice on its destination now (false: none there, or the
     *  move would be a remap, which such a rule never makes). */
    bool nodes_now(const Placement& pl, std::array<std::uint8_t, kMaxVNuma>& nodes) const;
    /** Can pending move `pl` run now within the budget left? Then true, with its nodes_now. */
    bool ready(const Placement& pl, std::array<std::uint8_t, kMaxVNuma>& nodes) const;
    const std::vector<char>& room_of(int flavor);
    void execute(int vm, int host, const std::array<std::uint8_t, kMaxVNuma>& pnuma, bool temporary);
    bool execute_ready();
    int count_fitting(int host);
    Detour find_detour(bool retarget);
    const std::vector<int>& candidates_of(DetourScan& scan, int flavor);
    void try_detours_of(const Placement& pl, DetourScan& scan, bool retarget);
    /** One deadlock resolved (a detour, a retargeted move, or dropped moves); false: stop. */
    bool resolve_deadlock();

    const CapacityModel& model;
    const Problem& p;
    Plan plan;
    SearchState s;
    std::vector<Placement> pending;
    std::int64_t steps_left;
    Amount ram_left;
    // Per flavor asked about, which hosts have room for one more VM of it in some placement
    // (resources only; step_fits() also consults the filters, per VM): computed on first use,
    // then kept current for the two hosts each executed step touches. A deadlock on a large
    // cluster examines thousands of blocked VMs of a few flavors.
    std::unordered_map<int, std::vector<char>> room;
    std::unordered_map<int, int> detours;     ///< vm -> temporary steps so far
    std::vector<std::vector<int>> into_host;  ///< [host] indices into pending of the moves into it (per deadlock)
    std::vector<int> into_touched;
};

PlanBuilder::PlanBuilder(const CapacityModel& m, const std::vector<Placement>& target)
    : model(m),
      p(m.problem()),
      s(m),
      pending(target),
      steps_left(p.constraints.max_migrations),
      ram_left(p.constraints.max_migrated_ram_mib),
      into_host(p.hosts.size()) {
    plan.score_before = s.objective();
    plan.objective_before = to_objective(plan.score_before);
    plan.capacity_before = cluster_capacity(model, compute_node_usage(p)).totals();
    std::sort(pending.begin(), pending.end(), [](const Placement& a, const Placement& b) { return a.vm < b.vm; });
}

const std::vector<char>& PlanBuilder::room_of(int flavor) {
    auto [it, fresh] = room.try_emplace(flavor);
    if (fresh) {
        it->second.resize(p.hosts.size());
        for (std::size_t h = 0; h < p.hosts.size(); ++h) it->second[h] = has_room(flavor, static_cast<int>(h)) ? 1 : 0;
    }
    return it->second;
}

void PlanBuilder::execute(int vm, int host, const std::array<std::uint8_t, kMaxVNuma>& pnuma, bool temporary) {
    const Flavor& fl = p.flavors[p.vms[vm].flavor];
    PlanStep st;
    st.vm = vm;
    st.from_host = s.host_of(vm);
    std::copy_n(s.pnuma_of(vm), kMaxVNuma, st.from_pnuma.begin());
    st.to_host = host;
    st.to_pnuma = pnuma;
    st.temporary = temporary;
    s.move(vm, host, embedding_of(pnuma, fl.num_vnuma()));
    for (auto& [flavor, flags] : room) {
        flags[st.from_host] = has_room(flavor, st.from_host) ? 1 : 0;
        flags[host] = has_room(flavor, host) ? 1 : 0;
    }
    st.score_after = s.objective();
    st.objective_after = to_objective(st.score_after);
    plan.steps.push_back(st);
    if (step_counts(st.from_host, host)) {
        --steps_left;
        ram_left -= fl.demand[kRamMib];
    }
}

bool PlanBuilder::nodes_now(const Placement& pl, std::array<std::uint8_t, kMaxVNuma>& nodes) const {
    nodes = pl.pnuma;
    if (!model.fixes_nodes()) return true;
    if (s.host_of(pl.vm) == pl.host) return false;
    const int flavor = p.vms[pl.vm].flavor;
    const int e = model.node_choice(flavor, pl.host, s.free_of(pl.host));
    if (e < 0) return false;
    nodes = model.evaluator(p.hosts[pl.host].type, flavor).placements()[static_cast<std::size_t>(e)].map;
    return true;
}

bool PlanBuilder::ready(const Placement& pl, std::array<std::uint8_t, kMaxVNuma>& nodes) const {
    const bool counts = step_counts(s.host_of(pl.vm), pl.host);
    const Amount ram = counts ? p.flavors[p.vms[pl.vm].flavor].demand[kRamMib] : 0;
    return steps_left >= (counts ? 1 : 0) && ram_left >= ram && nodes_now(pl, nodes) && step_fits(s, pl.vm, pl.host, nodes);
}

// Executes every pending move that fits now, in VM order, until none does; true if any ran.
// Under a destination-node rule that fixes nodes, the moves the rule puts on their target's nodes
// go first; when none can, the first that can run on other nodes does (the search reached its
// state in another order), and the sweep starts again.
bool PlanBuilder::execute_ready() {
    bool any = false;
    for (bool progress = true; progress;) {
        progress = false;
        std::array<std::uint8_t, kMaxVNuma> nodes{};
        for (std::size_t i = 0; i < pending.size();) {
            const Placement& pl = pending[i];
            const int k = p.flavors[p.vms[pl.vm].flavor].num_vnuma();
            if (ready(pl, nodes) && node_mask(nodes.data(), k) == node_mask(pl.pnuma.data(), k)) {
                execute(pl.vm, pl.host, nodes, false);
                pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
                progress = any = true;
            } else {
                ++i;
            }
        }
        if (progress || !model.fixes_nodes()) continue;
        for (std::size_t i = 0; i < pending.size() && !progress; ++i)
            if (ready(pending[i], nodes)) {
                execute(pending[i].vm, pending[i].host, nodes, false);
                pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
                progress = any = true;
            }
    }
    return any;
}

// Pending moves into `host` that fit now, ignoring the budget (what a detour off `host`
// unblocks); into_host lists them per destination host (rebuilt per deadlock).
int PlanBuilder::count_fitting(int host) {
    int n = 0;
    std::array<std::uint8_t, kMaxVNuma> nodes{};
    for (int i : into_host[host]) {
        const Placement& q = pending[static_cast<std::size_t>(i)];
        if (nodes_now(q, nodes) && step_fits(s, q.vm, q.host, nodes)) ++n;
    }
    return n;
}

// Per flavor, the first hosts with room: those no pending move targets, then the others
// (the destination's other nodes among them); a few more than a VM scores, as its own
// host is skipped and step_fits may still refuse one.
const std::vector<int>& PlanBuilder::candidates_of(DetourScan& scan, int flavor) {
    auto [it, fresh] = scan.candidates.try_emplace(flavor);
    if (!fresh) return it->second;
    const std::vector<char>& roomy = room_of(flavor);
    const int H = static_cast<int>(p.hosts.size());
    for (int pass = 0; pass < 2; ++pass)
        for (int h = 0; h < H && static_cast<int>(it->second.size()) < 4 * kMaxPerVm; ++h)
            if (roomy[h] && into_host[h].empty() == (pass == 0)) it->second.push_back(h);
    return it->second;
}

// The best affordable detour of a blocked VM: the one that makes the most pending moves into
// the host it leaves fit (own host's other pNUMA nodes, hosts no pending move targets, then
// the others — the destination's other nodes among them); with none that unblocks anything,
// the first affordable detour (a later detour may then unblock). Every placement tried is
// executed and undone on the state, so the filters and the VM's own share are exact.
// retarget: the VM's pending move is given up and the detour placement is final (it costs
// what the move would have): with the budget one short of a true detour, this still orders
// the moves it unblocks. Only detours that unblock something are returned then.
Detour PlanBuilder::find_detour(bool retarget) {
    DetourScan scan;
    for (const Placement& q : pending)
        if (step_counts(s.host_of(q.vm), q.host)) {
            ++scan.pending_steps;
            scan.pending_ram += p.flavors[p.vms[q.vm].flavor].demand[kRamMib];
        }
    for (int h : into_touched) into_host[h].clear();
    into_touched.clear();
    for (std::size_t i = 0; i < pending.size(); ++i) {
        if (into_host[pending[i].host].empty()) into_touched.push_back(pending[i].host);
        into_host[pending[i].host].push_back(static_cast<int>(i));
    }
    // Every blocked VM is examined (a deadlock on a large cluster may have thousands); the
    // unblock scores (a tentative move each) are capped, after which the scan only looks for
    // the first affordable detour (or stops once a scored one unblocks something).
    for (std::size_t i = 0; i < pending.size(); ++i) {
        if (scan.scored >= kMaxScored && (scan.best.unblocks > 0 || (scan.first.vm >= 0 && !retarget))) break;
        try_detours_of(pending[i], scan, retarget);
    }
    if (scan.best.unblocks > 0) return scan.best;
    return retarget ? Detour{} : scan.first;
}

/** Scores the affordable detours of the blocked move `pl` into `scan`. */
void PlanBuilder::try_detours_of(const Placement& pl, DetourScan& scan, bool retarget) {
    // At most two detours per VM: free same-host detours must not loop forever.
    if (detours[pl.vm] >= 2) return;
    const int cur = s.host_of(pl.vm);
    const Flavor& fl = p.flavors[p.vms[pl.vm].flavor];
    const Amount ram = fl.demand[kRamMib];
    std::array<std::uint8_t, kMaxVNuma> cur_map{};
    std::copy_n(s.pnuma_of(pl.vm), kMaxVNuma, cur_map.begin());
    // After the detour the VM's own move starts from the detour host: it counts unless it
    // is then a free remap.
    auto affordable = [&](int detour_host) {
        const bool detour_counts = step_counts(cur, detour_host);
        const bool was = step_counts(cur, pl.host), after = !retarget && step_counts(detour_host, pl.host);
        const std::int64_t steps = scan.pending_steps - (was ? 1 : 0) + (after ? 1 : 0) + (detour_counts ? 1 : 0);
        const Amount rams = scan.pending_ram - (was ? ram : 0) + (after ? ram : 0) + (detour_counts ? ram : 0);
        return steps_left >= steps && ram_left >= rams;
    };
    int tried = 0;
    auto try_host = [&](int h) {
        if (tried >= kMaxPerVm || !affordable(h)) return;
        for (const Embedding& e : model.evaluator(p.hosts[h].type, p.vms[pl.vm].flavor).placements()) {
            if (tried >= kMaxPerVm) return;
            if (h == cur && std::equal(e.map.begin(), e.map.begin() + fl.num_vnuma(), cur_map.begin())) continue;  // not a move
            if (h == pl.host && e.map == pl.pnuma) continue;  // that is the blocked move itself
            if (!step_fits(s, pl.vm, h, e.map)) continue;
            ++tried;
            if (scan.first.vm < 0) scan.first = Detour{pl.vm, h, e.map, 0, 0};
            if (scan.scored >= kMaxScored || into_host[cur].empty()) {
                if (h != cur) return;
                continue;
            }
            ++scan.scored;
            s.move(pl.vm, h, embedding_of(e.map, fl.num_vnuma()));
            const int unblocks = count_fitting(cur);
            const Score obj = s.objective();
            s.move(pl.vm, cur, embedding_of(cur_map, fl.num_vnuma()));
            if (unblocks > scan.best.unblocks || (unblocks == scan.best.unblocks && obj > scan.best.objective))
                scan.best = Detour{pl.vm, h, e.map, unblocks, obj};
            if (h != cur) return;  // another host: the host left (and so the score) is the same
        }
    };
    try_host(cur);
    for (int h : candidates_of(scan, p.vms[pl.vm].flavor))
        if (h != cur && tried < kMaxPerVm) try_host(h);
}

bool PlanBuilder::resolve_deadlock() {
    // Deadlock: detour one blocked VM if the detour and every pending move still fit the
    // budget (the VM's own host, the destination's other nodes and third hosts are tried),
    // preferring detours that unblock a move.
    const Detour d = find_detour(false);
    if (d.unblocks > 0) {
        ++detours[d.vm];
        execute(d.vm, d.host, d.map, true);
        return true;
    }
    // Else give up one blocked move for a final placement elsewhere that unblocks others
    // (the budget is one short of a true detour), then a detour that unblocks nothing yet.
    if (const Detour r = find_detour(true); r.vm >= 0) {
        for (std::size_t i = 0; i < pending.size(); ++i)
            if (pending[i].vm == r.vm) {
                pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
                break;
            }
        ++plan.dropped;
        execute(r.vm, r.host, r.map, false);
        return true;
    }
    if (d.vm >= 0) {
        ++detours[d.vm];
        execute(d.vm, d.host, d.map, true);
        return true;
    }
    // No affordable detour: drop the fewest moves. A dropped VM stays where it is, which
    // frees the budget its move would use; drop the first pending move (VM order) after
    // whose drop a detour becomes affordable, else drop all that are left.
    bool rescued = false;
    for (std::size_t i = 0; i < pending.size() && i < 16 && !rescued; ++i) {
        const Placement z = pending[i];
        pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
        if (find_detour(false).vm >= 0 || find_detour(true).vm >= 0) {
            ++plan.dropped;
            rescued = true;
        } else {
            pending.insert(pending.begin() + static_cast<std::ptrdiff_t>(i), z);
        }
    }
    if (!rescued) {
        plan.dropped += static_cast<int>(pending.size());
        return false;
    }
    return true;
}

Plan PlanBuilder::run() {
    while (!pending.empty()) {
        execute_ready();
        if (pending.empty()) break;
        if (!resolve_deadlock()) break;
    }
    finish_plan(model, plan);
    return plan;
}

}  // namespace

Plan build_plan(const CapacityModel& model, const std::vector<Placement>& target) {
    return PlanBuilder(model, target).run();
}

void finish_plan(const CapacityModel& model, Plan& plan) {
    const Problem& p = model.problem();
    // Keep the best prefix (the shortest among equals) among those that leave the drained hosts
    // empty: every step off a drained host is kept (nothing moves onto one: the closed-hosts rule).
    std::size_t must = 0;
    if (!p.constraints.drain_hosts.empty())
        for (std::size_t i = 0; i < plan.steps.size(); ++i)
            if (plan.steps[i].from_host != plan.steps[i].to_host &&
                std::binary_search(p.constraints.drain_hosts.begin(), p.constraints.drain_hosts.end(), plan.steps[i].from_host))
                must = i + 1;
    std::size_t best_len = must;
    Score best = must == 0 ? plan.score_before : plan.steps[must - 1].score_after;
    for (std::size_t i = must; i < plan.steps.size(); ++i)
        if (plan.steps[i].score_after > best) {
            best = plan.steps[i].score_after;
            best_len = i + 1;
        }
    plan.steps.resize(best_len);
    plan.score_after = best;
    plan.objective_after = to_objective(best);
    // "temporary" means the VM moves again later in the plan: a detour whose follow-up was dropped
    // (no order within the budget) or cut with the tail is the VM's last step, so it is not one.
    {
        std::unordered_map<int, std::size_t> last;
        for (std::size_t i = 0; i < plan.steps.size(); ++i) last[plan.steps[i].vm] = i;
        for (std::size_t i = 0; i < plan.steps.size(); ++i) plan.steps[i].temporary = last[plan.steps[i].vm] != i;
    }

    // Capacity after, recomputed from the usage the kept steps leave.
    Problem after_usage_view = p;  // cheap enough once per plan; keeps compute_node_usage the single definition
    plan.migrated_ram_mib = 0;
    plan.migrations = 0;
    for (const PlanStep& st : plan.steps) {
        after_usage_view.vms[st.vm].host = st.to_host;
        after_usage_view.vms[st.vm].pnuma = st.to_pnuma;
        if (step_uses_budget(p, st.from_host, st.to_host)) {
            plan.migrated_ram_mib += p.flavors[p.vms[st.vm].flavor].demand[kRamMib];
            ++plan.migrations;
        }
    }
    plan.capacity_after = cluster_capacity(model, compute_node_usage(after_usage_view)).totals();
}

std::vector<int> plan_end_hosts(const Problem& p, const Plan& plan) {
    std::vector<int> host(p.vms.size());
    for (std::size_t v = 0; v < host.size(); ++v) host[v] = p.vms[v].host;
    for (const PlanStep& st : plan.steps) host[st.vm] = st.to_host;
    return host;
}

std::vector<Placement> plan_end_state(const CapacityModel& model, const Plan& plan) {
    const Problem& p = model.problem();
    SearchState s(model);
    for (const PlanStep& st : plan.steps) s.move(st.vm, st.to_host, embedding_of(st.to_pnuma, p.flavors[p.vms[st.vm].flavor].num_vnuma()));
    return s.displaced_placements();
}

Plan plan_from_steps(const CapacityModel& model, const std::vector<PlanStep>& steps, int dropped) {
    const Problem& p = model.problem();
    Plan plan;
    SearchState s(model);
    plan.score_before = s.objective();
    plan.objective_before = to_objective(plan.score_before);
    plan.capacity_before = cluster_capacity(model, compute_node_usage(p)).totals();
    plan.dropped = dropped;
    for (PlanStep st : steps) {
        const int k = p.flavors[p.vms[st.vm].flavor].num_vnuma();
        if (s.host_of(st.vm) != st.from_host || !std::equal(st.from_pnuma.begin(), st.from_pnuma.begin() + k, s.pnuma_of(st.vm)))
            throw std::logic_error("plan_from_steps: step of VM " + p.vms[st.vm].id + " does not start where the VM is");
        if (!step_fits(s, st.vm, st.to_host, st.to_pnuma))
            throw std::logic_error("plan_from_steps: step of VM " + p.vms[st.vm].id +
                                   " has no room (or not the nodes the destination-node rule assigns)");
        s.move(st.vm, st.to_host, embedding_of(st.to_pnuma, k));
        st.score_after = s.objective();
        st.objective_after = to_objective(st.score_after);
        plan.steps.push_back(st);
    }
    finish_plan(model, plan);
    if (plan.migrations > p.constraints.max_migrations || plan.migrated_ram_mib > p.constraints.max_migrated_ram_mib)
        throw std::logic_error("plan_from_steps: the steps exceed the migration budget");
    return plan;
}

nlohmann::ordered_json network_figures(const CapacityModel& model, const std::vector<int>& host_after) {
    const Problem& p = model.problem();
    const LinkCapacityFilter* links = model.find<LinkCapacityFilter>();
    if (links == nullptr) return nullptr;
    std::vector<int> host(p.vms.size());
    for (std::size_t v = 0; v < host.size(); ++v) host[v] = p.vms[v].host;
    const NetworkReport r[2] = {network_report(p, links->routes(), host), network_report(p, links->routes(), host_after)};
    std::vector<std::string> over[2];  // link directions over capacity, in link order
    for (int phase = 0; phase < 2; ++phase) {
        std::vector<NetworkReport::Row> rows = r[phase].over;
        std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.arc < b.arc; });
        for (const auto& row : rows) over[phase].push_back(row.name);
    }
    return {{"vlinks", p.vlinks.size()},
            {"links_over_capacity_before", over[0]},
            {"links_over_capacity_after", over[1]},
            {"max_link_utilisation_pct_before", r[0].max_pct},
            {"max_link_utilisation_pct_after", r[1].max_pct},
            {"cross_rack_mbps_before", r[0].cross_rack_mbps},
            {"cross_rack_mbps_after", r[1].cross_rack_mbps},
            {"cross_pod_mbps_before", r[0].cross_pod_mbps},
            {"cross_pod_mbps_after", r[1].cross_pod_mbps}};
}

namespace {

/** The plan file's "rules" object: the drained and no-target hosts by id, and no remaps (docs/format.md). */
nlohmann::ordered_json rules_json(const Problem& p) {
    using oj = nlohmann::ordered_json;
    oj rules = oj::object();
    const auto ids = [&](const std::vector<int>& hs) {
        oj a = oj::array();
        for (int h : hs) a.push_back(p.hosts[h].id);
        return a;
    };
    if (!p.constraints.drain_hosts.empty()) rules["drain_hosts"] = ids(p.constraints.drain_hosts);
    if (!p.constraints.no_target_hosts.empty()) rules["no_target_hosts"] = ids(p.constraints.no_target_hosts);
    if (!p.constraints.remaps_allowed) rules["remaps_allowed"] = false;
    return rules;
}

/** The plan file's "schedule" object (docs/format.md "Schedule"). */
nlohmann::ordered_json schedule_json(const PlanSchedule& sch) {
    using oj = nlohmann::ordered_json;
    oj o;
    o["waves"] = sch.waves;
    o["makespan_s"] = sch.makespan_s;
    if (sch.window_s > 0) o["window_s"] = sch.window_s;
    o["cut_steps"] = sch.cut_steps;
    o["limits"] = {{"per_host_out", sch.limits.per_host_out},
                   {"per_host_in", sch.limits.per_host_in},
                   {"cluster", sch.limits.cluster},
                   {"per_tenant", sch.limits.per_tenant},
                   {"copies_on_network", sch.limits.copies_on_network}};
    o["duration_model"] = {
        {"mbps", sch.durations.mbps}, {"dirty_factor", sch.durations.dirty_factor}, {"overhead_s", sch.durations.overhead_s}};
    return o;
}

}  // namespace

nlohmann::ordered_json plan_to_json(const Problem& p, const Plan& plan, const PlanInfo& info) {
    using oj = nlohmann::ordered_json;
    oj doc;
    doc["format"] = "vmcap-plan/1";
    doc["cluster"] = info.cluster;
    doc["algorithm"] = info.algorithm;
    doc["seed"] = info.seed;
    doc["threads"] = info.threads;
    oj budget = oj::object();
    if (p.constraints.max_migrations != std::numeric_limits<std::int64_t>::max()) budget["max_migrations"] = p.constraints.max_migrations;
    if (p.constraints.max_migrated_ram_mib != std::numeric_limits<Amount>::max())
        budget["max_migrated_ram_gib"] = static_cast<double>(p.constraints.max_migrated_ram_mib) / 1024.0;
    // How the budget counted remaps (the snapshot's or `vmcap plan --free-remaps`), so that validate,
    // export and report count them the same way without the flag.
    if (!p.constraints.remap_counts_as_migration) budget["remap_counts_as_migration"] = false;
    doc["budget"] = budget;
    // The hosts the plan was made to drain and to keep closed, so that `vmcap validate` checks them.
    if (!p.constraints.drain_hosts.empty() || !p.constraints.no_target_hosts.empty() || !p.constraints.remaps_allowed)
        doc["rules"] = rules_json(p);
    doc["migrations"] = plan.migrations;
    doc["migrated_ram_gib"] = static_cast<double>(plan.migrated_ram_mib) / 1024.0;
    if (!p.objective_terms.empty()) {
        oj terms = oj::object();
        for (const auto& [name, weight] : p.objective_terms) terms[name] = weight;
        doc["objective_terms"] = terms;
    }
    doc["objective_before"] = plan.objective_before;
    doc["objective_after"] = plan.objective_after;
    // The exact values: what `vmcap validate` compares, and what two plans are ranked by.
    doc["score_before"] = plan.score_before;
    doc["score_after"] = plan.score_after;
    if (info.upper_bound) {
        // The gap is taken on what the bound covers: the whole objective, or its VMCAP part.
        const Score covered = covered_score(p, info.upper_bound_covers_objective, plan.score_after, plan.capacity_after);
        doc["upper_bound"] = to_objective(*info.upper_bound);
        doc["upper_bound_score"] = *info.upper_bound;
        doc["gap"] = relative_gap(to_objective(*info.upper_bound), to_objective(covered));
        doc["upper_bound_covers"] = info.upper_bound_covers_objective ? "objective" : "vmcap";
        doc["upper_bound_complete"] = info.upper_bound_complete;
        doc["upper_bound_stopped_by"] = std::string(to_string(info.upper_bound_stopped_by));
        if (info.upper_bound_removal_only) {
            doc["upper_bound_removal_only"] = to_objective(*info.upper_bound_removal_only);
            doc["upper_bound_removal_only_score"] = *info.upper_bound_removal_only;
            oj prices = oj::object();
            for (std::size_t f = 0; f < p.flavors.size() && f < info.upper_bound_arrival_prices.size(); ++f)
                prices[p.flavors[f].name] = info.upper_bound_arrival_prices[f];
            doc["upper_bound_arrival_prices"] = prices;
        }
    }
    oj cb = oj::object(), ca = oj::object();
    for (std::size_t f = 0; f < p.flavors.size(); ++f) {
        cb[p.flavors[f].name] = plan.capacity_before[f];
        ca[p.flavors[f].name] = plan.capacity_after[f];
    }
    doc["capacity_before"] = cb;
    doc["capacity_after"] = ca;
    oj search = oj::object();
    search["evaluations"] = info.evaluations;
    search["seconds"] = info.seconds;
    search["evaluations_per_second"] = info.seconds > 0 ? static_cast<double>(info.evaluations) / info.seconds : 0.0;
    search["stopped_by"] = std::string(to_string(info.stopped_by));
    search["dropped_moves"] = plan.dropped;
    if (!std::isnan(info.search_best_objective)) search["best_state_objective"] = info.search_best_objective;
    search["repair_rounds"] = info.repair_rounds;
    if (info.threads > 1 && info.algorithm.rfind("greedy", 0) != 0 && info.search_phase_ran) {
        search["parallel"] = info.regions > 0 ? "regions" : "chains";
        if (info.regions > 0) search["regions"] = info.regions;
    }
    if (!info.convergence.empty()) {
        oj conv = oj::array();
        for (const ConvergencePoint& c : info.convergence) conv.push_back(oj::array({c.seconds, c.evaluations, c.objective}));
        search["convergence"] = conv;
    }
    if (info.proven_optimum) search["proven_optimum"] = to_objective(*info.proven_optimum);
    if (info.upper_bound) search["upper_bound_seconds"] = info.upper_bound_seconds;
    if (info.upper_bound && info.upper_bound_arrival_steps > 0) {
        search["upper_bound_arrival_steps"] = info.upper_bound_arrival_steps;
        search["upper_bound_arrival_seconds"] = info.upper_bound_arrival_seconds;
    }
    doc["search"] = search;
    oj steps = oj::array();
    for (std::size_t i = 0; i < plan.steps.size(); ++i) {
        const PlanStep& st = plan.steps[i];
        const int k = p.flavors[p.vms[st.vm].flavor].num_vnuma();
        oj o;
        o["step"] = i + 1;
        o["vm"] = p.vms[st.vm].id;
        o["flavor"] = p.flavors[p.vms[st.vm].flavor].name;
        o["from_host"] = p.hosts[st.from_host].id;
        o["from_pnuma"] = oj::array();
        for (int v = 0; v < k; ++v) o["from_pnuma"].push_back(st.from_pnuma[v] + 1);
        o["to_host"] = p.hosts[st.to_host].id;
        o["to_pnuma"] = oj::array();
        for (int v = 0; v < k; ++v) o["to_pnuma"].push_back(st.to_pnuma[v] + 1);
        o["ram_gib"] = static_cast<double>(p.flavors[p.vms[st.vm].flavor].demand[kRamMib]) / 1024.0;
        if (st.temporary) o["temporary"] = true;
        o["objective_after"] = st.objective_after;
        o["score_after"] = st.score_after;
        if (plan.schedule) {
            o["wave"] = st.wave + 1;
            o["start_s"] = st.start_s;
            o["end_s"] = st.end_s;
            o["mbps"] = st.mbps;
        }
        steps.push_back(o);
    }
    if (plan.schedule) doc["schedule"] = schedule_json(*plan.schedule);
    doc["steps"] = steps;
    return doc;
}

}  // namespace vmcap
