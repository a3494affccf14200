#include "optimizer/plan/validate.h"

#include "instances/snapshot_io.h"
#include "optimizer/plan/plan.h"
#include "optimizer/plan/validate_schedule.h"
#include "optimizer/plan/drain.h"
#include "optimizer/bound/upper_bound.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <memory>
#include <unordered_map>

namespace vmcap {

namespace {

/** The further objective terms' value of the replayed placement, from scratch. */
Score terms_value(const CapacityModel& m, const std::vector<int>& host, const std::vector<std::vector<int>>& map) {
    if (!m.has_terms()) return 0;
    std::vector<NodeMask> mask(host.size());
    for (std::size_t v = 0; v < host.size(); ++v) {
        unsigned x = 0;
        for (int n : map[v]) x |= 1U << n;
        mask[v] = static_cast<NodeMask>(x);
    }
    Score s = 0;
    for (const auto& t : m.terms()) s += t->value(m.problem(), PlacementView{host, mask});
    return s;
}

/** The first violated feasibility filter of the replayed placement, or "". */
std::string filter_violation(const CapacityModel& m, const std::vector<int>& host, const std::vector<std::vector<int>>& map) {
    if (!m.has_filters()) return "";
    std::vector<NodeMask> mask(host.size());
    for (std::size_t v = 0; v < host.size(); ++v) {
        unsigned x = 0;
        for (int n : map[v]) x |= 1U << n;
        mask[v] = static_cast<NodeMask>(x);
    }
    for (const auto& f : m.filters()) {
        const std::string why = f->violation(m.problem(), PlacementView{host, mask});
        if (!why.empty()) return std::string(f->name()) + ": " + why;
    }
    return "";
}

/** A plan value as an error message may quote it: scalars (strings shortened), never a nested
 *  array or object (dumping one is recursive and unbounded in size). */
std::string describe(const nlohmann::json& v) {
    if (v.is_array()) return "an array";
    if (v.is_object()) return "an object";
    std::string s = v.dump();
    if (s.size() > 60) s = s.substr(0, 57) + "...";
    return s;
}

/** An objective value as a plan file writes it (shortest round-trip decimal). */
std::string fmt_objective(Score score) {
    return nlohmann::json(to_objective(score)).dump();
}

/** "" if the plan's stated objective figure `key` (objective units, and `key`'s score twin
 *  `score_key` in score units when stated) is the recomputed `score` exactly, else the mismatch.
 *  Every figure vmcap writes is to_objective of a score, which JSON keeps exactly (17 digits),
 *  so no tolerance is needed. */
std::string check_objective(const nlohmann::json& obj, const char* key, const char* score_key, Score score) {
    if (obj.contains(score_key) && obj[score_key].get<Score>() != score)
        return std::string(score_key) + " is " + describe(obj[score_key]) + ", recomputed " + std::to_string(score);
    if (obj.contains(key) && obj[key].get<double>() != to_objective(score))
        return std::string(key) + " is " + describe(obj[key]) + ", recomputed " + fmt_objective(score);
    return "";
}

/** The plan's bound in score units: `upper_bound_score` when stated (then `upper_bound` must be its
 *  objective value: else the returned error), else the least score not below `upper_bound`. */
Score stated_bound(const nlohmann::json& plan, std::string& error) {
    const double ub = plan["upper_bound"].get<double>();
    if (!plan.contains("upper_bound_score")) return score_at_least(ub);
    const Score score = plan["upper_bound_score"].get<Score>();
    if (to_objective(score) != ub)
        error = "upper_bound is " + describe(plan["upper_bound"]) + ", but upper_bound_score " + std::to_string(score) + " is " +
                fmt_objective(score);
    return score;
}

/** "" or why the plan's bound `ub` (score units; `complete` as stated) disagrees with the bound
 *  recomputed for the budget `recorded` the plan was made for (validate.h). */
std::string check_recomputed_bound(const CapacityModel& model, const nlohmann::json& plan, const Constraints& recorded, Score ub,
                                   bool complete) {
    const Problem& p = model.problem();
    std::unique_ptr<CapacityModel> own;
    const CapacityModel* m = &model;
    Problem q;  // outlives `own`, which refers to it
    if (recorded.max_migrations != p.constraints.max_migrations || recorded.max_migrated_ram_mib != p.constraints.max_migrated_ram_mib) {
        q = p;
        q.constraints = recorded;
        own = std::make_unique<CapacityModel>(q, model.options());
        m = own.get();
    }
    UpperBoundParams ubp;
    ubp.deadline = model.options().deadline;
    const UpperBound again = compute_upper_bound(*m, ubp);
    if (plan.contains("upper_bound_arrival_prices")) {
        // The Lagrangian on moved VMs' conservation lowered it: the removal-only bound must be
        // compute_upper_bound's, and the stated one the Lagrangian's at the stated prices.
        const Score removal_only = plan["upper_bound_removal_only_score"].get<Score>();
        if (complete && again.complete && removal_only != again.score)
            return "upper_bound_removal_only_score is " + std::to_string(removal_only) + ", recomputed " + std::to_string(again.score);
        // A flavor without a price is priced 0 (the writer states every flavor's).
        const auto& stated_prices = plan["upper_bound_arrival_prices"];
        std::vector<Score> prices(p.flavors.size(), 0);
        for (std::size_t f = 0; f < p.flavors.size(); ++f) {
            const auto it = stated_prices.find(p.flavors[f].name);
            if (it == stated_prices.end()) continue;
            prices[f] = it->get<Score>();  // an integer: check_plan_fields
            if (prices[f] < 0) return "upper_bound_arrival_prices." + p.flavors[f].name + " is negative";
        }
        const LagrangianBound lb = lagrangian_upper_bound(*m, ubp, 0, 1, again.score, &prices);
        if (!lb.applied)
            return "upper_bound_arrival_prices are stated, but the Lagrangian on arrivals does not apply to this snapshot and budget" +
                   std::string(lb.stopped_by == StopReason::Complete ? "" : " (or was cut short)");
        if (complete && ub != lb.score)
            return "upper_bound is " + describe(plan["upper_bound"]) + ", recomputed at the stated arrival prices " +
                   fmt_objective(lb.score);
        return "";
    }
    const std::string algorithm = plan.contains("algorithm") ? plan["algorithm"].get<std::string>() : "";
    const std::string stated = describe(plan["upper_bound"]);
    const std::string recomputed =
        fmt_objective(again.score) + (again.complete ? "" : " (cut short by " + std::string(to_string(again.stopped_by)) + ")");
    if (algorithm.rfind("exact-", 0) == 0) {
        // vmcap exact states the smaller of its solver's bound and this one.
        if (complete && ub > again.score)
            return "upper_bound is " + stated + ", above the bound recomputed for the plan's budget, " + recomputed;
    } else if (complete) {
        if (again.complete ? ub != again.score : ub > again.score) return "upper_bound is " + stated + ", recomputed " + recomputed;
    } else if (again.complete && ub < again.score) {
        return "upper_bound is " + stated + " (cut short), below the complete bound " + recomputed +
               ": a bound cut short is never below it";
    }
    return "";
}

/** "" or what is wrong with the plan's bound figures (validate.h), `out` holding the replay's
 *  recomputed score_after and capacity_after, `recorded` the budget the plan was made for. Every
 *  comparison is exact, in score units. */
std::string check_bound_figures(const CapacityModel& model, const nlohmann::json& plan, const Constraints& recorded, const PlanCheck& out,
                                bool recompute) {
    const bool has_ub = plan.contains("upper_bound");
    for (const char* key : {"gap", "upper_bound_score", "upper_bound_covers", "upper_bound_complete", "upper_bound_stopped_by",
                            "upper_bound_removal_only", "upper_bound_removal_only_score", "upper_bound_arrival_prices"})
        if (!has_ub && plan.contains(key)) return std::string(key) + " is stated without an upper_bound";
    // The Lagrangian's figures come together: its prices, and the bound without them (above it).
    const bool priced = plan.contains("upper_bound_arrival_prices");
    if (priced != plan.contains("upper_bound_removal_only_score") || priced != plan.contains("upper_bound_removal_only"))
        return "upper_bound_arrival_prices, upper_bound_removal_only and upper_bound_removal_only_score are stated together or not at all";
    if (priced) {
        const Score removal_only = plan["upper_bound_removal_only_score"].get<Score>();
        if (to_objective(removal_only) != plan["upper_bound_removal_only"].get<double>())
            return "upper_bound_removal_only is " + describe(plan["upper_bound_removal_only"]) +
                   ", but upper_bound_removal_only_score is " + fmt_objective(removal_only);
    }
    const auto& search = plan.contains("search") ? plan["search"] : nlohmann::json::object();
    const bool proven = search.contains("proven_optimal") && search["proven_optimal"].get<bool>();
    if (search.contains("proven_optimum") && search["proven_optimum"].get<double>() != to_objective(out.score_after))
        return "search.proven_optimum is " + describe(search["proven_optimum"]) + ", but the plan reaches " +
               fmt_objective(out.score_after);
    if (proven && !has_ub) return "search.proven_optimal is true, but no upper_bound equal to the objective proves it";
    // vmcap plan's search stopped at the bound (vmcap exact's plans say proven_optimal instead).
    const bool stopped_at_bound = !search.contains("proven_optimal") && search.contains("stopped_by") &&
                                  parse_stop_reason(search["stopped_by"].get<std::string>()) == StopReason::ProvenOptimal;
    if (stopped_at_bound && !has_ub) return "search.stopped_by is \"proven optimal\", but no upper_bound proves it";
    if (!has_ub) return "";

    const bool covers = bound_covers_objective(model);
    const std::string stated_covers = plan.contains("upper_bound_covers") ? plan["upper_bound_covers"].get<std::string>() : "objective";
    if (stated_covers != (covers ? "objective" : "vmcap"))
        return std::string("upper_bound_covers is \"") + stated_covers + "\", recomputed \"" + (covers ? "objective" : "vmcap") + "\"";
    // The objective the bound covers: the whole one, or its VMCAP part.
    const Score covered = covered_score(model.problem(), covers, out.score_after, out.capacity_after);
    std::string error;
    const Score ub = stated_bound(plan, error);
    if (!error.empty()) return error;
    const std::string stated = describe(plan["upper_bound"]);
    if (priced && ub >= plan["upper_bound_removal_only_score"].get<Score>())
        return "upper_bound_arrival_prices are stated, but upper_bound " + stated + " is not below upper_bound_removal_only";
    if (ub < covered)
        return "upper_bound is " + stated + ", below the plan's own " + (covers ? "objective_after " : "VMCAP objective ") +
               fmt_objective(covered) + ": no valid bound is below a plan";
    const Score ceiling = upper_bound_ceiling(model);
    if (ub > ceiling)
        return "upper_bound is " + stated + ", above the ceiling " + fmt_objective(ceiling) +
               " (every migratable VM removed, topology-free) that every bound vmcap computes stays under";
    if (plan.contains("gap")) {
        const double gap = relative_gap(to_objective(ub), to_objective(covered));
        if (plan["gap"].get<double>() != gap) return "gap is " + describe(plan["gap"]) + ", recomputed " + nlohmann::json(gap).dump();
    }
    const bool complete = !plan.contains("upper_bound_complete") || plan["upper_bound_complete"].get<bool>();
    const std::string stopped_by =
        plan.contains("upper_bound_stopped_by") ? plan["upper_bound_stopped_by"].get<std::string>() : (complete ? "complete" : "");
    if (complete != (parse_stop_reason(stopped_by) == StopReason::Complete))
        return "upper_bound_complete is " + std::string(complete ? "true" : "false") + ", but upper_bound_stopped_by is \"" + stopped_by +
               "\"";
    if ((proven || search.contains("proven_optimum")) && ub != out.score_after)
        return "search.proven_optimal: the plan claims a proven optimum, but upper_bound " + stated + " is not its objective_after " +
               fmt_objective(out.score_after);
    if (stopped_at_bound) {
        // The search's best state (greedy: the plan's own end state) met the bound.
        const bool has_best = search.contains("best_state_objective");
        const double reached = has_best ? search["best_state_objective"].get<double>() : to_objective(out.score_after);
        if (!covers) return "search.stopped_by is \"proven optimal\", but upper_bound covers only the VMCAP part of the objective";
        if (reached < to_objective(ub))
            return "search.stopped_by is \"proven optimal\", but " +
                   std::string(has_best ? "search.best_state_objective " : "objective_after ") + describe(nlohmann::json(reached)) +
                   " is below upper_bound " + stated;
    }
    if (!recompute) return "";
    return check_recomputed_bound(model, plan, recorded, ub, complete);
}

/** Malformed-plan errors: "<file>: <path>: <what>" (exit 2). */
struct PlanErrors {
    const std::string& file;
    InputError operator()(const std::string& path, const std::string& what) const { return InputError(file + ": " + path + ": " + what); }
};

// Every field the plan format defines has one JSON type (docs/format.md); a field of another
// type is a malformed plan (exit 2), not a plan with a wrong value (exit 3). Unknown fields
// are ignored, so that later versions may add some.
enum class Kind { String, Number, Integer, Boolean, Object, Array };

void check_kinds(const PlanErrors& bad, const nlohmann::json& obj, const std::string& prefix,
                 std::initializer_list<std::pair<const char*, Kind>> fields) {
    for (const auto& [key, kind] : fields) {
        if (!obj.contains(key)) continue;
        const auto& v = obj[key];
        const bool ok = kind == Kind::String    ? v.is_string()
                        : kind == Kind::Number  ? v.is_number()
                        : kind == Kind::Integer ? v.is_number_integer()
                        : kind == Kind::Boolean ? v.is_boolean()
                        : kind == Kind::Object  ? v.is_object()
                                                : v.is_array();
        static constexpr const char* kNames[] = {"a string", "a number", "an integer", "true or false", "an object", "an array"};
        if (!ok) throw bad(prefix + key, std::string("expected ") + kNames[static_cast<int>(kind)] + ", got " + describe(v));
    }
}

/** The plan's format, its steps array and every field it defines, by JSON type and value set. */
void check_plan_fields(const PlanErrors& bad, const nlohmann::json& plan) {
    if (!plan.is_object() || !plan.contains("format") || !plan["format"].is_string() || plan["format"].get<std::string>() != "vmcap-plan/1")
        throw bad("format", "expected \"vmcap-plan/1\"");
    if (!plan.contains("steps") || !plan["steps"].is_array()) throw bad("steps", "missing array of steps");
    check_kinds(bad, plan, "",
                {{"cluster", Kind::String},
                 {"algorithm", Kind::String},
                 {"seed", Kind::Integer},
                 {"threads", Kind::Integer},
                 {"budget", Kind::Object},
                 {"migrations", Kind::Integer},
                 {"migrated_ram_gib", Kind::Number},
                 {"objective_before", Kind::Number},
                 {"objective_after", Kind::Number},
                 {"score_before", Kind::Integer},
                 {"score_after", Kind::Integer},
                 {"capacity_before", Kind::Object},
                 {"capacity_after", Kind::Object},
                 {"objective_terms", Kind::Object},
                 {"upper_bound", Kind::Number},
                 {"upper_bound_score", Kind::Integer},
                 {"gap", Kind::Number},
                 {"upper_bound_covers", Kind::String},
                 {"upper_bound_complete", Kind::Boolean},
                 {"upper_bound_stopped_by", Kind::String},
                 {"upper_bound_removal_only", Kind::Number},
                 {"upper_bound_removal_only_score", Kind::Integer},
                 {"upper_bound_arrival_prices", Kind::Object},
                 {"network", Kind::Object},
                 {"search", Kind::Object}});
    if (plan.contains("search"))
        check_kinds(bad, plan["search"], "search.",
                    {{"evaluations", Kind::Integer},
                     {"seconds", Kind::Number},
                     {"evaluations_per_second", Kind::Number},
                     {"stopped_by", Kind::String},
                     {"dropped_moves", Kind::Integer},
                     {"best_state_objective", Kind::Number},
                     {"repair_rounds", Kind::Integer},
                     {"parallel", Kind::String},
                     {"regions", Kind::Integer},
                     {"convergence", Kind::Array},
                     {"proven_optimum", Kind::Number},
                     {"upper_bound_seconds", Kind::Number},
                     {"upper_bound_arrival_steps", Kind::Integer},
                     {"upper_bound_arrival_seconds", Kind::Number},
                     {"proven_optimal", Kind::Boolean},
                     {"optimum", Kind::Number},
                     {"bound", Kind::Number}});
    if (plan.contains("upper_bound_arrival_prices"))
        for (const auto& [flavor, price] : plan["upper_bound_arrival_prices"].items())
            if (!price.is_number_integer()) throw bad("upper_bound_arrival_prices." + flavor, "expected an integer (score units per VM)");
    if (plan.contains("network"))
        check_kinds(bad, plan["network"], "network.",
                    {{"vlinks", Kind::Integer},
                     {"links_over_capacity_before", Kind::Array},
                     {"links_over_capacity_after", Kind::Array},
                     {"max_link_utilisation_pct_before", Kind::Number},
                     {"max_link_utilisation_pct_after", Kind::Number},
                     {"cross_rack_mbps_before", Kind::Integer},
                     {"cross_rack_mbps_after", Kind::Integer},
                     {"cross_pod_mbps_before", Kind::Integer},
                     {"cross_pod_mbps_after", Kind::Integer}});
    for (const char* key : {"links_over_capacity_before", "links_over_capacity_after"})
        if (plan.contains("network") && plan["network"].contains(key))
            for (std::size_t i = 0; i < plan["network"][key].size(); ++i)
                if (!plan["network"][key][i].is_string())
                    throw bad(std::string("network.") + key + "[" + std::to_string(i) + "]",
                              "expected a link name, got " + describe(plan["network"][key][i]));
    if (plan.contains("upper_bound_covers") && plan["upper_bound_covers"] != "objective" && plan["upper_bound_covers"] != "vmcap")
        throw bad("upper_bound_covers", "expected \"objective\" or \"vmcap\", got " + describe(plan["upper_bound_covers"]));
    if (plan.contains("upper_bound_stopped_by")) {
        // The bound's reasons (UpperBound::stopped_by), in their file words.
        const std::optional<StopReason> r = parse_stop_reason(plan["upper_bound_stopped_by"].get<std::string>());
        if (!r ||
            (*r != StopReason::Complete && *r != StopReason::TimeLimit && *r != StopReason::Interrupted && *r != StopReason::TableLimit))
            throw bad("upper_bound_stopped_by", "expected \"complete\", \"time limit\", \"interrupt\" or \"table limit\", got " +
                                                    describe(plan["upper_bound_stopped_by"]));
    }
    for (std::size_t i = 0; i < plan["steps"].size(); ++i)
        if (plan["steps"][i].is_object())
            check_kinds(bad, plan["steps"][i], "steps[" + std::to_string(i) + "].",
                        {{"step", Kind::Integer},
                         {"vm", Kind::String},
                         {"flavor", Kind::String},
                         {"from_host", Kind::String},
                         {"to_host", Kind::String},
                         {"from_pnuma", Kind::Array},
                         {"to_pnuma", Kind::Array},
                         {"ram_gib", Kind::Number},
                         {"objective_after", Kind::Number},
                         {"score_after", Kind::Integer},
                         {"temporary", Kind::Boolean}});
}

/** The budget the plan claims it was made for (vmcap plan's overrides included); else the snapshot's. */
Constraints plan_budget(const PlanErrors& bad, const nlohmann::json& plan, const Problem& p) {
    Constraints budget = p.constraints;
    if (plan.contains("budget")) {
        const auto& b = plan["budget"];
        if (!b.is_object()) throw bad("budget", "expected an object");
        budget.max_migrations = std::numeric_limits<std::int64_t>::max();
        budget.max_migrated_ram_mib = std::numeric_limits<Amount>::max();
        for (auto it = b.begin(); it != b.end(); ++it) {
            if (it.key() == "max_migrations") {
                if (!it->is_number_integer() || it->get<std::int64_t>() < 0) throw bad("budget.max_migrations", "expected an integer >= 0");
                budget.max_migrations = it->get<std::int64_t>();
            } else if (it.key() == "max_migrated_ram_gib") {
                if (!it->is_number() || !(it->get<double>() >= 0) || !std::isfinite(it->get<double>()))
                    throw bad("budget.max_migrated_ram_gib", "expected a number >= 0");
                budget.max_migrated_ram_mib = gib_to_mib_budget(it->get<double>());
            } else if (it.key() == "remap_counts_as_migration") {
                // How the plan counted remaps: the caller applies it to the problem before the
                // model is built (the objective's ram-cost term and the bound depend on it too).
                if (!it->is_boolean()) throw bad("budget.remap_counts_as_migration", "expected true or false");
            } else {
                throw bad("budget", "unknown key \"" + it.key() + "\"");
            }
        }
    }
    return budget;
}

std::vector<int> node_list(const PlanErrors& bad, const nlohmann::json& a, const std::string& path, int k, int nodes) {
    if (!a.is_array() || static_cast<int>(a.size()) != k) throw bad(path, "expected " + std::to_string(k) + " pNUMA node numbers");
    std::vector<int> out_nodes;
    for (std::size_t i = 0; i < a.size(); ++i) {
        // Read as 64-bit (and unsigned values bounded first): a node number must never be truncated into range.
        if (!a[i].is_number_integer() || (a[i].is_number_unsigned() && a[i].get<std::uint64_t>() > static_cast<std::uint64_t>(nodes)) ||
            a[i].get<std::int64_t>() < 1 || a[i].get<std::int64_t>() > nodes)
            throw bad(path + "[" + std::to_string(i) + "]", "expected a pNUMA node number 1.." + std::to_string(nodes));
        out_nodes.push_back(static_cast<int>(a[i].get<std::int64_t>()) - 1);
    }
    return out_nodes;
}

/** validate_plan's own replay: every VM's host and mapping, per-node usage, and each flavor's
 *  capacity per host (only the hosts a step touches recomputed), from the snapshot on. */
struct PlanReplay {
    explicit PlanReplay(const CapacityModel& m);
    const CapacityModel& model;
    const Problem& p;
    int R;
    std::size_t F;
    std::vector<int> host;
    std::vector<std::vector<int>> map;
    std::vector<std::vector<Amount>> used;
    std::vector<Count> host_cap, totals;
    void refresh(int h);
    Score score() const { return vmcap_score(p, totals) + terms_value(model, host, map); }  // from the replay's own capacities
};

PlanReplay::PlanReplay(const CapacityModel& m)
    : model(m), p(m.problem()), R(p.num_resources()), F(p.flavors.size()), host(p.vms.size()), map(p.vms.size()), used(p.hosts.size()) {
    for (std::size_t v = 0; v < p.vms.size(); ++v) {
        host[v] = p.vms[v].host;
        map[v].assign(p.vms[v].pnuma.begin(), p.vms[v].pnuma.begin() + p.flavors[p.vms[v].flavor].num_vnuma());
    }
    for (std::size_t h = 0; h < p.hosts.size(); ++h) used[h].assign(p.host_type_of(static_cast<int>(h)).node_capacity.size(), 0);
    for (std::size_t v = 0; v < p.vms.size(); ++v)
        for (int n : map[v])
            for (int r = 0; r < R; ++r) used[host[v]][n * R + r] += p.flavors[p.vms[v].flavor].node_demand[r];
    host_cap.assign(p.hosts.size() * F, 0);
    totals.assign(F, 0);
    for (int h = 0; h < static_cast<int>(p.hosts.size()); ++h) refresh(h);
}

void PlanReplay::refresh(int h) {
    const HostType& ht = p.host_type_of(h);
    std::vector<Amount> free(ht.node_capacity.size());
    for (std::size_t x = 0; x < free.size(); ++x) free[x] = ht.node_capacity[x] - used[h][x];
    for (std::size_t f = 0; f < F; ++f) {
        Count& c = host_cap[static_cast<std::size_t>(h) * F + f];
        totals[f] -= c;
        c = model.host_capacity(p.hosts[h].type, static_cast<int>(f), free.data());
        totals[f] += c;
    }
}

/** "" or why the destination-node rule (CapacityModel::node_rule) refuses VM `v`'s step from
 *  `from` onto `to_nodes` of `to` on the replay's state before the step: under a rule that fixes
 *  nodes, a remap, or nodes other than the ones it assigns there now (asked on the replay's own
 *  usage tables). */
std::string node_rule_refusal(const PlanReplay& rep, int v, int from, int to, const std::vector<int>& to_nodes) {
    const CapacityModel& m = rep.model;
    if (!m.fixes_nodes()) return "";
    const Problem& p = rep.p;
    const std::string rule = "the destination-node rule \"" + std::string(m.node_rule().name()) + "\"";
    if (from == to) return "a remap, but under " + rule + " a VM's pNUMA nodes are chosen only when it arrives on a host";
    const HostType& ht = p.host_type_of(to);
    std::vector<Amount> free(ht.node_capacity.size());
    for (std::size_t x = 0; x < free.size(); ++x) free[x] = ht.node_capacity[x] - rep.used[to][x];
    const int flavor = p.vms[v].flavor;
    const int e = m.node_choice(flavor, to, free.data());
    const auto nodes_text = [](const auto& nodes, int k) {
        std::string t = "[";
        for (int i = 0; i < k; ++i) t += (i ? ", " : "") + std::to_string(static_cast<int>(nodes[static_cast<std::size_t>(i)]) + 1);
        return t + "]";
    };
    const int k = p.flavors[flavor].num_vnuma();
    if (e < 0) return rule + " places no VM of flavor \"" + p.flavors[flavor].name + "\" on host \"" + p.hosts[to].id + "\" at this point";
    const Embedding& want = m.evaluator(p.hosts[to].type, flavor).placements()[static_cast<std::size_t>(e)];
    unsigned mask = 0;
    for (int n : to_nodes) mask |= 1U << n;
    if (static_cast<NodeMask>(mask) == want.mask) return "";
    return "to_pnuma " + nodes_text(to_nodes, k) + " is not what " + rule + " assigns on host \"" + p.hosts[to].id + "\" at this point, " +
           nodes_text(want.map, k);
}

/** What the steps share: ids, the budget checked against, and the running migration count and RAM. */
struct StepContext {
    std::unordered_map<std::string, int> vm_index, host_index;
    std::unordered_map<int, std::size_t> last_step;  ///< VM -> index of its last step (checks "temporary")
    Constraints budget;
    Amount ram = 0;
    std::int64_t migrations = 0;  ///< steps that count against the budget
};

/** Checks step `i` of the plan against the replay and applies it: "" if it is valid, else why
 *  not ("steps[i] (step i+1, vm ...): ..."). Throws InputError (bad) on a malformed step. */
std::string replay_step(PlanReplay& rep, StepContext& c, const PlanErrors& bad, const nlohmann::json& st, std::size_t i) {
    const Problem& p = rep.p;
    const int R = rep.R;
    const std::string path = "steps[" + std::to_string(i) + "]";
    if (!st.is_object()) throw bad(path, "expected an object");
    for (const char* key : {"vm", "from_host", "to_host", "from_pnuma", "to_pnuma"})
        if (!st.contains(key)) throw bad(path, std::string("missing key \"") + key + "\"");
    if (!st["vm"].is_string() || !c.vm_index.count(st["vm"].get<std::string>()))
        throw bad(path + ".vm", "unknown VM " + describe(st["vm"]));
    const int v = c.vm_index.at(st["vm"].get<std::string>());
    for (const char* key : {"from_host", "to_host"})
        if (!st[key].is_string() || !c.host_index.count(st[key].get<std::string>()))
            throw bad(path + "." + key, "unknown host " + describe(st[key]));
    const int from = c.host_index.at(st["from_host"].get<std::string>());
    const int to = c.host_index.at(st["to_host"].get<std::string>());
    const Flavor& fl = p.flavors[p.vms[v].flavor];
    const int k = fl.num_vnuma();
    const auto from_nodes = node_list(bad, st["from_pnuma"], path + ".from_pnuma", k, p.host_type_of(from).num_nodes());
    const auto to_nodes = node_list(bad, st["to_pnuma"], path + ".to_pnuma", k, p.host_type_of(to).num_nodes());
    const std::string where = path + " (step " + std::to_string(i + 1) + ", vm \"" + p.vms[v].id + "\")";
    auto reject = [&](const std::string& why) { return where + ": " + why; };
    if (!p.vms[v].migratable) return reject("the VM is not migratable");
    if (rep.host[v] != from || rep.map[v] != from_nodes)
        return reject("the VM is not on host \"" + p.hosts[from].id + "\" with the given from_pnuma at this point (it is on \"" +
                      p.hosts[rep.host[v]].id + "\")");
    if (from == to && from_nodes == to_nodes) return reject("the step does not move the VM");
    if (!is_valid_mapping(p.host_type_of(to).topology.graph, fl.vnuma.graph, to_nodes))
        return reject("to_pnuma is not a valid mapping of vNUMA topology " + fl.vnuma.name + " on host type \"" + p.host_type_of(to).name +
                      "\"");
    if (from == to && !p.constraints.remaps_allowed) return reject("a remap, but remaps are not allowed (constraints.remaps_allowed)");
    const auto listed = [](const std::vector<int>& hs, int h) { return std::binary_search(hs.begin(), hs.end(), h); };
    if (from != to && (listed(p.constraints.drain_hosts, to) || listed(p.constraints.no_target_hosts, to)))
        return reject("moves onto host \"" + p.hosts[to].id + "\", which is closed to incoming VMs (" +
                      (listed(p.constraints.drain_hosts, to) ? "drain" : "no-target") + ")");
    if (const std::string why = node_rule_refusal(rep, v, from, to, to_nodes); !why.empty()) return reject(why);
    // Every step is a live migration, except a remap (same host) when remaps are free.
    if (from != to || p.constraints.remap_counts_as_migration) {
        if (++c.migrations > c.budget.max_migrations)
            return reject("exceeds the migration budget of " + std::to_string(c.budget.max_migrations) + " migrations");
        c.ram += fl.demand[kRamMib];
        if (c.ram > c.budget.max_migrated_ram_mib) return reject("exceeds the migrated-RAM budget");
    }
    // What the step states about itself.
    if (st.contains("flavor") && (!st["flavor"].is_string() || st["flavor"].get<std::string>() != fl.name))
        return reject("flavor is " + describe(st["flavor"]) + ", the VM's flavor is \"" + fl.name + "\"");
    if (st.contains("ram_gib") &&
        (!st["ram_gib"].is_number() || st["ram_gib"].get<double>() != static_cast<double>(fl.demand[kRamMib]) / 1024.0))
        return reject("ram_gib is " + describe(st["ram_gib"]) + ", the flavor's RAM is " +
                      std::to_string(static_cast<double>(fl.demand[kRamMib]) / 1024.0) + " GiB");
    if (st.contains("temporary")) {
        if (!st["temporary"].is_boolean()) throw bad(path + ".temporary", "expected true or false");
        if (st["temporary"].get<bool>() && c.last_step.at(v) == i) return reject("marked temporary, but the VM never moves again");
    }
    for (int n : from_nodes)
        for (int r = 0; r < R; ++r) rep.used[from][n * R + r] -= fl.node_demand[r];
    for (int n : to_nodes)
        for (int r = 0; r < R; ++r) {
            rep.used[to][n * R + r] += fl.node_demand[r];
            if (rep.used[to][n * R + r] > p.host_type_of(to).node_capacity[n * R + r])
                return reject("pNUMA node " + std::to_string(n + 1) + " of host \"" + p.hosts[to].id + "\" would be over capacity in " +
                              p.resources[r]);
        }
    rep.host[v] = to;
    rep.map[v] = to_nodes;
    if (const std::string why = filter_violation(rep.model, rep.host, rep.map); !why.empty()) return reject(why);
    rep.refresh(from);
    if (to != from) rep.refresh(to);
    if (st.contains("objective_after") || st.contains("score_after"))
        if (const std::string why = check_objective(st, "objective_after", "score_after", rep.score()); !why.empty()) return reject(why);
    return "";
}

/** The plan's stated totals (capacities, objectives, migrations, RAM, bound, network figures)
 *  against the replay's end: "" or the first mismatch. Throws InputError (bad) on a malformed one. */
std::string check_stated_totals(const PlanReplay& r, const StepContext& c, const PlanErrors& bad, const nlohmann::json& plan,
                                const std::vector<Count>& before, const Constraints& recorded, const PlanCheck& out, bool recompute_bound) {
    const Problem& p = r.p;
    auto check_caps = [&](const char* key, const std::vector<Count>& expect) -> std::string {
        if (!plan.contains(key)) return "";
        const auto& obj = plan[key];
        if (!obj.is_object()) throw bad(key, "expected an object flavor -> capacity");
        for (std::size_t f = 0; f < p.flavors.size(); ++f) {
            auto it = obj.find(p.flavors[f].name);
            if (it == obj.end()) continue;
            if (!it->is_number_integer() || it->get<Count>() != expect[f])
                return std::string(key) + "." + p.flavors[f].name + " is " + describe(*it) + ", recomputed " + std::to_string(expect[f]);
        }
        return "";
    };
    std::string mismatch = check_caps("capacity_before", before);
    if (mismatch.empty()) mismatch = check_caps("capacity_after", out.capacity_after);
    if (mismatch.empty()) mismatch = check_objective(plan, "objective_before", "score_before", out.score_before);
    if (mismatch.empty()) mismatch = check_objective(plan, "objective_after", "score_after", out.score_after);
    if (mismatch.empty() && plan.contains("migrations") &&
        (!plan["migrations"].is_number_integer() || plan["migrations"].get<std::int64_t>() != c.migrations))
        mismatch = "migrations is " + describe(plan["migrations"]) + ", recomputed " + std::to_string(c.migrations);
    if (mismatch.empty() && plan.contains("migrated_ram_gib") &&
        plan["migrated_ram_gib"].get<double>() != static_cast<double>(c.ram) / 1024.0)
        mismatch = "migrated_ram_gib is " + describe(plan["migrated_ram_gib"]) + ", recomputed " +
                   std::to_string(static_cast<double>(c.ram) / 1024.0);
    if (mismatch.empty()) mismatch = check_bound_figures(r.model, plan, recorded, out, recompute_bound);
    if (mismatch.empty() && (plan.contains("network") || r.model.has_filters())) {
        const auto net = network_figures(r.model, r.host);
        if (plan.contains("network")) {
            if (net.is_null()) mismatch = "network figures are stated, but the snapshot has no network with vlinks";
            for (auto it = net.begin(); mismatch.empty() && it != net.end(); ++it) {
                if (!plan["network"].contains(it.key())) continue;
                const auto& stated = plan["network"][it.key()];
                // The same from-scratch function wrote them: equal to the last bit.
                const bool same = it->is_number() ? stated.get<double>() == it->get<double>() : stated == nlohmann::json(*it);
                if (!same && it->is_array())
                    mismatch = "network." + it.key() + " names " + std::to_string(stated.size()) + " link(s), recomputed " +
                               std::to_string(it->size()) + (stated.size() == it->size() ? " of other names" : "");
                else if (!same)
                    mismatch = "network." + it.key() + " is " + describe(stated) + ", recomputed " + it->dump();
            }
        }
    }
    return mismatch;
}

}  // namespace

PlanCheck validate_plan(const CapacityModel& model, const nlohmann::json& plan, const std::string& file, bool use_plan_budget,
                        bool recompute_bound) {
    const Problem& p = model.problem();
    const PlanErrors bad{file};
    check_plan_fields(bad, plan);
    StepContext c;
    for (std::size_t v = 0; v < p.vms.size(); ++v) c.vm_index.emplace(p.vms[v].id, static_cast<int>(v));
    for (std::size_t h = 0; h < p.hosts.size(); ++h) c.host_index.emplace(p.hosts[h].id, static_cast<int>(h));
    PlanReplay r(model);
    PlanCheck out;
    c.budget = plan_budget(bad, plan, p);
    // The bound was computed for the recorded budget, whatever budget the replay is checked against.
    const Constraints recorded = c.budget;
    if (!use_plan_budget) c.budget = p.constraints;
    const std::vector<Count> before = r.totals;
    out.score_before = r.score();
    out.objective_before = to_objective(out.score_before);

    const auto& steps = plan["steps"];
    for (std::size_t i = 0; i < steps.size(); ++i)
        if (steps[i].is_object() && steps[i].contains("vm") && steps[i]["vm"].is_string()) {
            auto it = c.vm_index.find(steps[i]["vm"].get<std::string>());
            if (it != c.vm_index.end()) c.last_step[it->second] = i;
        }
    for (std::size_t i = 0; i < steps.size(); ++i)
        if (std::string why = replay_step(r, c, bad, steps[i], i); !why.empty()) {
            out.ok = false;
            out.error = std::move(why);
            out.steps = static_cast<int>(i);
            return out;
        }
    out.steps = static_cast<int>(steps.size());
    if (std::string why = drain_violation(p, r.host); !why.empty()) {
        out.ok = false;
        out.error = "after all steps: " + why;
        return out;
    }
    out.capacity_after = r.totals;  // every host touched by a step was refreshed from the replayed usage
    out.score_after = r.score();
    out.objective_after = to_objective(out.score_after);
    if (const std::string mismatch = check_stated_totals(r, c, bad, plan, before, recorded, out, recompute_bound); !mismatch.empty()) {
        out.ok = false;
        out.error = "after all steps: " + mismatch;
        return out;
    }
    if (std::string why = check_schedule(model, plan, file); !why.empty()) {
        out.ok = false;
        out.error = "schedule: " + why;
        return out;
    }
    out.ok = true;
    return out;
}

}  // namespace vmcap
