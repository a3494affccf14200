#include "optimizer/validate.h"

#include "instances/snapshot_io.h"

#include <cmath>
#include <initializer_list>
#include <limits>
#include <unordered_map>

namespace vmcap {

namespace {

/** VMCAP term in exact score units (score.h), from the validator's own capacities. */
Score weighted(const Problem& p, const std::vector<Count>& cap) {
    Score s = 0;
    for (std::size_t f = 0; f < p.flavors.size(); ++f)
        if (p.flavors[f].weight > 0) s += weight_units(p.flavors[f].weight) * cap[f];
    return s;
}

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

bool close(double a, double b) {
    return std::fabs(a - b) <= 1e-6 * std::max(1.0, std::fabs(b));
}

}  // namespace

PlanCheck validate_plan(const CapacityModel& model, const nlohmann::json& plan, const std::string& file, bool use_plan_budget) {
    const Problem& p = model.problem();
    const int R = p.num_resources();
    auto bad = [&](const std::string& path, const std::string& what) -> InputError { return InputError(file + ": " + path + ": " + what); };
    if (!plan.is_object() || !plan.contains("format") || !plan["format"].is_string() || plan["format"].get<std::string>() != "vmcap-plan/1")
        throw bad("format", "expected \"vmcap-plan/1\"");
    if (!plan.contains("steps") || !plan["steps"].is_array()) throw bad("steps", "missing array of steps");
    // Every field the plan format defines has one JSON type (docs/format.md); a field of another
    // type is a malformed plan (exit 2), not a plan with a wrong value (exit 3). Unknown fields
    // are ignored, so that later versions may add some.
    enum class Kind { String, Number, Integer, Boolean, Object, Array };
    auto check_kinds = [&](const nlohmann::json& obj, const std::string& prefix,
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
    };
    check_kinds(plan, "",
                {{"cluster", Kind::String},
                 {"algorithm", Kind::String},
                 {"seed", Kind::Integer},
                 {"threads", Kind::Integer},
                 {"budget", Kind::Object},
                 {"migrations", Kind::Integer},
                 {"migrated_ram_gib", Kind::Number},
                 {"objective_before", Kind::Number},
                 {"objective_after", Kind::Number},
                 {"capacity_before", Kind::Object},
                 {"capacity_after", Kind::Object},
                 {"objective_terms", Kind::Object},
                 {"search", Kind::Object}});
    for (std::size_t i = 0; i < plan["steps"].size(); ++i)
        if (plan["steps"][i].is_object())
            check_kinds(plan["steps"][i], "steps[" + std::to_string(i) + "].",
                        {{"step", Kind::Integer},
                         {"vm", Kind::String},
                         {"flavor", Kind::String},
                         {"from_host", Kind::String},
                         {"to_host", Kind::String},
                         {"from_pnuma", Kind::Array},
                         {"to_pnuma", Kind::Array},
                         {"ram_gib", Kind::Number},
                         {"objective_after", Kind::Number},
                         {"temporary", Kind::Boolean}});

    std::unordered_map<std::string, int> vm_index, host_index;
    for (std::size_t v = 0; v < p.vms.size(); ++v) vm_index.emplace(p.vms[v].id, static_cast<int>(v));
    for (std::size_t h = 0; h < p.hosts.size(); ++h) host_index.emplace(p.hosts[h].id, static_cast<int>(h));

    // Own replay state: host, mapping and per-node usage.
    std::vector<int> host(p.vms.size());
    std::vector<std::vector<int>> map(p.vms.size());
    for (std::size_t v = 0; v < p.vms.size(); ++v) {
        host[v] = p.vms[v].host;
        map[v].assign(p.vms[v].pnuma.begin(), p.vms[v].pnuma.begin() + p.flavors[p.vms[v].flavor].num_vnuma());
    }
    std::vector<std::vector<Amount>> used(p.hosts.size());
    for (std::size_t h = 0; h < p.hosts.size(); ++h) used[h].assign(p.host_type_of(static_cast<int>(h)).node_capacity.size(), 0);
    for (std::size_t v = 0; v < p.vms.size(); ++v)
        for (int n : map[v])
            for (int r = 0; r < R; ++r) used[host[v]][n * R + r] += p.flavors[p.vms[v].flavor].node_demand[r];

    PlanCheck out;

    // The budget the plan claims it was made for (vmcap plan's overrides included), unless the
    // caller fixes it; else the snapshot's.
    Constraints budget = p.constraints;
    if (use_plan_budget && plan.contains("budget")) {
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
            } else {
                throw bad("budget", "unknown key \"" + it.key() + "\"");
            }
        }
    }

    // Per-host capacity of every flavor, kept in step with the replay (only the touched hosts are
    // recomputed), so that every step's objective_after is checked.
    const std::size_t F = p.flavors.size();
    std::vector<Count> host_cap(p.hosts.size() * F), totals(F, 0);
    auto refresh = [&](int h) {
        const HostType& ht = p.host_type_of(h);
        std::vector<Amount> free(ht.node_capacity.size());
        for (std::size_t x = 0; x < free.size(); ++x) free[x] = ht.node_capacity[x] - used[h][x];
        for (std::size_t f = 0; f < F; ++f) {
            Count& c = host_cap[static_cast<std::size_t>(h) * F + f];
            totals[f] -= c;
            c = model.host_capacity(p.hosts[h].type, static_cast<int>(f), free.data());
            totals[f] += c;
        }
    };
    for (int h = 0; h < static_cast<int>(p.hosts.size()); ++h) refresh(h);
    const std::vector<Count> before = totals;
    out.objective_before = to_objective(weighted(p, before) + terms_value(model, host, map));

    auto node_list = [&](const nlohmann::json& a, const std::string& path, int k, int nodes) {
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
    };

    const auto& steps = plan["steps"];
    std::unordered_map<int, std::size_t> last_step;  // VM -> index of its last step (checks "temporary")
    for (std::size_t i = 0; i < steps.size(); ++i)
        if (steps[i].is_object() && steps[i].contains("vm") && steps[i]["vm"].is_string()) {
            auto it = vm_index.find(steps[i]["vm"].get<std::string>());
            if (it != vm_index.end()) last_step[it->second] = i;
        }
    Amount ram = 0;
    std::int64_t migrations = 0;  // steps that count against the budget
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const auto& st = steps[i];
        const std::string path = "steps[" + std::to_string(i) + "]";
        if (!st.is_object()) throw bad(path, "expected an object");
        for (const char* key : {"vm", "from_host", "to_host", "from_pnuma", "to_pnuma"})
            if (!st.contains(key)) throw bad(path, std::string("missing key \"") + key + "\"");
        if (!st["vm"].is_string() || !vm_index.count(st["vm"].get<std::string>()))
            throw bad(path + ".vm", "unknown VM " + describe(st["vm"]));
        const int v = vm_index.at(st["vm"].get<std::string>());
        for (const char* key : {"from_host", "to_host"})
            if (!st[key].is_string() || !host_index.count(st[key].get<std::string>()))
                throw bad(path + "." + key, "unknown host " + describe(st[key]));
        const int from = host_index.at(st["from_host"].get<std::string>());
        const int to = host_index.at(st["to_host"].get<std::string>());
        const Flavor& fl = p.flavors[p.vms[v].flavor];
        const int k = fl.num_vnuma();
        const auto from_nodes = node_list(st["from_pnuma"], path + ".from_pnuma", k, p.host_type_of(from).num_nodes());
        const auto to_nodes = node_list(st["to_pnuma"], path + ".to_pnuma", k, p.host_type_of(to).num_nodes());
        const std::string where = path + " (step " + std::to_string(i + 1) + ", vm \"" + p.vms[v].id + "\")";
        auto reject = [&](const std::string& why) {
            out.ok = false;
            out.error = where + ": " + why;
            out.steps = static_cast<int>(i);
            return out;
        };
        if (!p.vms[v].migratable) return reject("the VM is not migratable");
        if (host[v] != from || map[v] != from_nodes)
            return reject("the VM is not on host \"" + p.hosts[from].id + "\" with the given from_pnuma at this point (it is on \"" +
                          p.hosts[host[v]].id + "\")");
        if (from == to && from_nodes == to_nodes) return reject("the step does not move the VM");
        if (!is_valid_mapping(p.host_type_of(to).topology.graph, fl.vnuma.graph, to_nodes))
            return reject("to_pnuma is not a valid mapping of vNUMA topology " + fl.vnuma.name + " on host type \"" +
                          p.host_type_of(to).name + "\"");
        // Every step is a live migration, except a remap (same host) when remaps are free.
        if (from != to || p.constraints.remap_counts_as_migration) {
            if (++migrations > budget.max_migrations)
                return reject("exceeds the migration budget of " + std::to_string(budget.max_migrations) + " migrations");
            ram += fl.demand[kRamMib];
            if (ram > budget.max_migrated_ram_mib) return reject("exceeds the migrated-RAM budget");
        }
        // What the step states about itself.
        if (st.contains("flavor") && (!st["flavor"].is_string() || st["flavor"].get<std::string>() != fl.name))
            return reject("flavor is " + describe(st["flavor"]) + ", the VM's flavor is \"" + fl.name + "\"");
        if (st.contains("ram_gib") &&
            (!st["ram_gib"].is_number() || !close(st["ram_gib"].get<double>(), static_cast<double>(fl.demand[kRamMib]) / 1024.0)))
            return reject("ram_gib is " + describe(st["ram_gib"]) + ", the flavor's RAM is " +
                          std::to_string(static_cast<double>(fl.demand[kRamMib]) / 1024.0) + " GiB");
        if (st.contains("temporary")) {
            if (!st["temporary"].is_boolean()) throw bad(path + ".temporary", "expected true or false");
            if (st["temporary"].get<bool>() && last_step.at(v) == i) return reject("marked temporary, but the VM never moves again");
        }
        for (int n : from_nodes)
            for (int r = 0; r < R; ++r) used[from][n * R + r] -= fl.node_demand[r];
        for (int n : to_nodes)
            for (int r = 0; r < R; ++r) {
                used[to][n * R + r] += fl.node_demand[r];
                if (used[to][n * R + r] > p.host_type_of(to).node_capacity[n * R + r])
                    return reject("pNUMA node " + std::to_string(n + 1) + " of host \"" + p.hosts[to].id + "\" would be over capacity in " +
                                  p.resources[r]);
            }
        host[v] = to;
        map[v] = to_nodes;
        if (const std::string why = filter_violation(model, host, map); !why.empty()) return reject(why);
        refresh(from);
        if (to != from) refresh(to);
        if (st.contains("objective_after")) {
            const double now = to_objective(weighted(p, totals) + terms_value(model, host, map));
            if (!st["objective_after"].is_number() || !close(st["objective_after"].get<double>(), now))
                return reject("objective_after is " + describe(st["objective_after"]) + ", recomputed " + std::to_string(now));
        }
    }
    out.steps = static_cast<int>(steps.size());
    out.capacity_after = totals;  // every host touched by a step was refreshed from the replayed usage
    out.objective_after = to_objective(weighted(p, out.capacity_after) + terms_value(model, host, map));

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
    for (auto [key, value] : {std::pair{"objective_before", out.objective_before}, std::pair{"objective_after", out.objective_after}})
        if (mismatch.empty() && plan.contains(key) && (!plan[key].is_number() || !close(plan[key].get<double>(), value)))
            mismatch = std::string(key) + " is " + describe(plan[key]) + ", recomputed " + std::to_string(value);
    if (mismatch.empty() && plan.contains("migrations") &&
        (!plan["migrations"].is_number_integer() || plan["migrations"].get<std::int64_t>() != migrations))
        mismatch = "migrations is " + describe(plan["migrations"]) + ", recomputed " + std::to_string(migrations);
    if (mismatch.empty() && plan.contains("migrated_ram_gib") &&
        (!plan["migrated_ram_gib"].is_number() || !close(plan["migrated_ram_gib"].get<double>(), static_cast<double>(ram) / 1024.0)))
        mismatch = "migrated_ram_gib is " + describe(plan["migrated_ram_gib"]) + ", recomputed " +
                   std::to_string(static_cast<double>(ram) / 1024.0);
    if (!mismatch.empty()) {
        out.ok = false;
        out.error = "after all steps: " + mismatch;
        return out;
    }
    out.ok = true;
    return out;
}

}  // namespace vmcap
