// libFuzzer harness of the from-scratch plan validation that `vmcap validate` runs
// (optimizer/plan/validate.h), in memory: the bytes are a plan document, parsed as cmd_validate parses
// it (a json::exception is bad input), then replayed by validate_plan on fuzz::kSnapshot under the
// set-ups the CLI's options make: as is (the plan's own budget), --free-remaps,
// --max-migrations 1 --max-migrated-gib 40 (the snapshot's budget replaced, the plan's ignored),
// and --ram-cost 0.05 (an objective term). An InputError, or a json::exception from validate_plan
// (cmd_validate turns it into InputError), is bad input (exit 2); any other exception, or an
// accepted plan whose step count is not its own, is a defect: abort.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluators/state/capacity_model.h"
#include "instances/snapshot_io.h"
#include "optimizer/plan/validate.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

using namespace vmcap;

/** One CLI set-up: the snapshot with the options applied, and its model (which refers to it). */
struct Setup {
    Problem problem;
    std::unique_ptr<CapacityModel> model;
    bool use_plan_budget = true;
};

std::vector<std::unique_ptr<Setup>> make_setups() {
    std::vector<std::unique_ptr<Setup>> out;
    for (int i = 0; i < 4; ++i) {
        auto s = std::make_unique<Setup>();
        s->problem = parse_snapshot(nlohmann::json::parse(fuzz::kSnapshot), "cluster.json");
        Constraints& c = s->problem.constraints;
        if (i == 1) c.remap_counts_as_migration = false;
        if (i == 2) {
            c.max_migrations = 1;
            c.max_migrated_ram_mib = gib_to_mib_budget(40);
            s->use_plan_budget = false;
        }
        if (i == 3) s->problem.objective_terms.emplace_back("ram-cost", 0.05);
        s->model = std::make_unique<CapacityModel>(s->problem);
        out.push_back(std::move(s));
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::vector<std::unique_ptr<Setup>> setups = make_setups();
    try {
        nlohmann::json doc;
        try {
            doc = nlohmann::json::parse(std::string(reinterpret_cast<const char*>(data), size));
        } catch (const nlohmann::json::exception&) {
            return 0;
        }
        for (const auto& s : setups) {
            try {
                const PlanCheck r = validate_plan(*s->model, doc, "plan.json", s->use_plan_budget);
                if (r.ok && static_cast<std::size_t>(r.steps) != doc.at("steps").size())
                    fuzz::internal_error("accepted plan, wrong step count");
            } catch (const InputError&) {
            } catch (const nlohmann::json::exception&) {
            }
        }
    } catch (const std::exception& e) {
        fuzz::internal_error(e.what());
    }
    return 0;
}
