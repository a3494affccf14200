#include "optimizer/solvers/night_policy.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>

#include "optimizer/solvers/optimize.h"

namespace vmcap {

namespace {

/** `none`: the cluster stays as it is. */
class NoPlan final : public NightPolicy {
public:
    std::optional<NightPlan> plan(const Night&) const override { return std::nullopt; }
};

/** `greedy`, `sa`, `tabu`: the planning pipeline (optimize.h) on the night's cluster, one thread. */
class EnginePolicy final : public NightPolicy {
public:
    EnginePolicy(Algorithm algorithm, std::optional<std::int64_t> evaluations, TabuParams tabu, int room_steps)
        : algorithm_(algorithm), evaluations_(evaluations), tabu_(tabu), room_steps_(room_steps) {}

    std::optional<NightPlan> plan(const Night& night) const override {
        OptimizeParams op;
        op.algorithm = algorithm_;
        op.tabu = tabu_;
        op.room_steps = room_steps_;
        op.search.threads = 1;
        op.search.quiet = true;
        op.search.seed = night.seed;
        op.search.max_evaluations = evaluations_.value_or(night.evaluations);
        // Stopped by its evaluation budget, reproducible, unless interrupted or the simulation's
        // time limit (what is left of it) comes first.
        op.search.time_limit_s = std::min(1e9, night.time_limit_s);
        op.search.stop = night.stop;
        op.schedule = night.schedule;
        OptimizeResult r = optimize(night.model, op);
        return NightPlan{std::move(r.plan), r.search.stopped_by};
    }

private:
    Algorithm algorithm_;
    std::optional<std::int64_t> evaluations_;  ///< evaluations=; unset: Night::evaluations
    TabuParams tabu_;
    int room_steps_ = 0;  ///< room_steps=; 0: the plain pipeline (the nights as measured before room steps)
};

/** options[key] as an integer in [lo, hi], or nullopt when absent; InputError "KEY: expected an
 *  integer in ..., got 'V'" otherwise. */
std::optional<std::int64_t> integer_option(const NightOptions& options, const std::string& key, std::int64_t lo, std::int64_t hi) {
    const auto it = options.find(key);
    if (it == options.end()) return std::nullopt;
    const std::string& text = it->second;
    std::size_t used = 0;
    long long v = 0;
    try {
        v = std::stoll(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (text.empty() || used != text.size() || v < lo || v > hi) {
        const std::string range = hi == std::numeric_limits<std::int64_t>::max() ? ">= " + std::to_string(lo)
                                                                                 : "in " + std::to_string(lo) + ".." + std::to_string(hi);
        throw InputError(key + ": expected an integer " + range + ", got '" + text + "'");
    }
    return v;
}

const NightOptionInfo kEvaluations{"evaluations",
                                   "evaluations per night (default: --evaluations; 0: the engine's default for the cluster)"};

NightPolicyInfo engine_policy(std::string name, std::string summary, Algorithm algorithm) {
    NightPolicyInfo info{std::move(name), std::move(summary), {}, NightUses{.budget = true}, {}};
    if (algorithm != Algorithm::Greedy) {
        info.options.push_back(kEvaluations);
        info.options.push_back({"room_steps",
                                "also run greedy with room steps evicting at most K VMs of one host, keeping the better night plan "
                                "(optimizer/search/greedy.h; default 0: off, as the nights were measured; vmcap plan's default is " +
                                    std::to_string(OptimizeParams::kDefaultRoomSteps) + ")"});
        info.uses.evaluations = info.uses.seed = true;
    }
    if (algorithm == Algorithm::Tabu) {
        const TabuParams d;
        info.options.push_back(
            {"tenure", "iterations a moved VM stays tabu, randomized in [T, 2T] (default " + std::to_string(d.tenure) + ")"});
        info.options.push_back({"candidates", "candidate moves evaluated per iteration (default " + std::to_string(d.candidates) + ")"});
    }
    info.make = [algorithm](const NightOptions& o) -> std::unique_ptr<NightPolicy> {
        const auto max = std::numeric_limits<std::int64_t>::max(), max_int = std::int64_t{std::numeric_limits<int>::max()};
        const std::optional<std::int64_t> evaluations = integer_option(o, "evaluations", 0, max);
        TabuParams tabu;
        tabu.tenure = static_cast<int>(integer_option(o, "tenure", 0, max_int).value_or(tabu.tenure));
        tabu.candidates = static_cast<int>(integer_option(o, "candidates", 1, max_int).value_or(tabu.candidates));
        const int room_steps = static_cast<int>(integer_option(o, "room_steps", 0, 64).value_or(0));
        return std::make_unique<EnginePolicy>(algorithm, evaluations, tabu, room_steps);
    };
    return info;
}

}  // namespace

NightPolicies::NightPolicies() {
    add({"none", "no defragmentation (the cluster stays as the online placer left it)", {}, {}, [](const NightOptions&) {
             return std::make_unique<NoPlan>();
         }});
}

void NightPolicies::add(NightPolicyInfo info) {
    if (info.name.empty() || info.name.find_first_of(":,=") != std::string::npos)
        throw std::invalid_argument("night policy name '" + info.name + "': empty or holding ':', ',' or '='");
    if (find(info.name) != nullptr) throw std::invalid_argument("night policy '" + info.name + "' is already registered");
    if (!info.make) throw std::invalid_argument("night policy '" + info.name + "' has no make");
    infos_.push_back(std::move(info));
}

const NightPolicyInfo* NightPolicies::find(std::string_view name) const {
    for (const NightPolicyInfo& i : infos_)
        if (i.name == name) return &i;
    return nullptr;
}

std::string NightPolicies::names() const {
    std::string out;
    for (const NightPolicyInfo& i : infos_) out += (out.empty() ? "" : ", ") + i.name;
    return out;
}

std::unique_ptr<NightPolicy> NightPolicies::make(std::string_view name, const NightOptions& options) const {
    const NightPolicyInfo* info = find(name);
    if (info == nullptr) throw InputError("night policy '" + std::string(name) + "': expected one of " + names());
    for (const auto& entry : options) {
        const std::string& key = entry.first;  // a named reference, not a structured binding: Clang 14 cannot capture one
        const bool known = std::any_of(info->options.begin(), info->options.end(), [&](const NightOptionInfo& o) { return o.key == key; });
        if (known) continue;
        std::string keys;
        for (const NightOptionInfo& o : info->options) keys += (keys.empty() ? "" : ", ") + o.key;
        throw InputError("night policy " + info->name + ": unknown option '" + key + "' (its options: " + (keys.empty() ? "none" : keys) +
                         ")");
    }
    try {
        return info->make(options);
    } catch (const InputError& e) {
        throw InputError("night policy " + info->name + ": " + e.what());
    }
}

NightPolicies builtin_night_policies() {
    NightPolicies p;
    p.add(engine_policy("greedy", "the best single live migration, repeated within the budget", Algorithm::Greedy));
    p.add(engine_policy("sa", "simulated annealing from greedy's plan, within the budget", Algorithm::Annealing));
    p.add(engine_policy("tabu", "tabu search from greedy's plan, within the budget", Algorithm::Tabu));
    return p;
}

}  // namespace vmcap
