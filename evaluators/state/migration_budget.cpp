#include "evaluators/state/migration_budget.h"

#include "evaluators/state/search_state.h"

namespace vmcap {

BudgetTally MigrationBudget::after(const SearchState& s, std::span<const Relocation> moves) {
    BudgetTally t{s.migrations(), s.migrated_ram_mib()};
    for (std::size_t i = 0; i < moves.size(); ++i) {
        const int vm = moves[i].vm;
        bool seen = false;  // counted once, at its first relocation, by where its last one leaves it
        for (std::size_t j = 0; j < i && !seen; ++j) seen = moves[j].vm == vm;
        if (seen) continue;
        std::size_t end = i;
        for (std::size_t j = i + 1; j < moves.size(); ++j)
            if (moves[j].vm == vm) end = j;
        const Relocation& r = moves[end];
        const Amount ram = s.problem().flavors[s.flavor_of(vm)].demand[kRamMib];
        const bool was = s.is_migrated(vm);
        const bool is = r.to_mask == 0 ? r.to_host != s.origin_of(vm) : s.differs_from_origin(vm, r.to_host, r.to_mask);
        t.migrations += (is ? 1 : 0) - (was ? 1 : 0);
        t.ram_mib += (is ? ram : 0) - (was ? ram : 0);
    }
    return t;
}

bool MigrationBudget::admits(const SearchState& s, std::span<const Relocation> moves) const {
    const BudgetTally t = after(s, moves);
    return t.migrations <= s.max_migrations() && t.ram_mib <= s.max_migrated_ram_mib();
}

BudgetTally MigrationBudget::tally(const Problem& p, const PlacementView& placement) {
    BudgetTally t;
    for (std::size_t v = 0; v < p.vms.size(); ++v)
        if (differs_from_snapshot(p, static_cast<int>(v), placement.host[v], placement.mask[v])) {
            ++t.migrations;
            t.ram_mib += p.flavors[p.vms[v].flavor].demand[kRamMib];
        }
    return t;
}

std::string MigrationBudget::violation(const Problem& p, const PlacementView& placement) const {
    const BudgetTally t = tally(p, placement);
    if (t.migrations > p.constraints.max_migrations)
        return std::to_string(t.migrations) + " VMs differ from the snapshot, beyond the migration budget of " +
               std::to_string(p.constraints.max_migrations);
    if (t.ram_mib > p.constraints.max_migrated_ram_mib)
        return std::to_string(t.ram_mib) + " MiB of migrated RAM, beyond the budget of " +
               std::to_string(p.constraints.max_migrated_ram_mib) + " MiB";
    return "";
}

}  // namespace vmcap
