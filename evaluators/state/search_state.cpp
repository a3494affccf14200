#include "evaluators/state/search_state.h"

#include "evaluators/state/capacity_change.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace vmcap {

SearchState::SearchState(const CapacityModel& model)
    : model_(&model),
      R_(model.num_resources()),
      T_(model.num_targets()),
      per_target_(T_ < kBatchRefreshTargets && !model.counts_by_rule()) {
    const Problem& p = model.problem();
    const std::size_t H = p.hosts.size();
    nodes_.resize(H);
    type_.resize(H);
    free_off_.resize(H);
    b_off_.resize(H);
    std::size_t fo = 0, bo = 0;
    for (std::size_t h = 0; h < H; ++h) {
        nodes_[h] = p.host_type_of(static_cast<int>(h)).num_nodes();
        type_[h] = p.hosts[h].type;
        free_off_[h] = fo;
        b_off_[h] = bo;
        fo += static_cast<std::size_t>(nodes_[h]) * R_;
        if (per_target_) bo += static_cast<std::size_t>(nodes_[h]) * T_;
    }
    free_.assign(fo, 0);
    b_.assign(bo, 0);
    cap_.assign(per_target_ ? H * T_ : 0, 0);
    host_value_.assign(H, 0);
    total_.assign(per_target_ ? T_ : 0, 0);
    vm_.resize(p.vms.size());
    for (std::size_t v = 0; v < p.vms.size(); ++v) {
        const Vm& src = p.vms[v];
        VmSlot& d = vm_[v];
        d.host = src.host;
        d.origin = src.host;
        d.flavor = src.flavor;
        d.migrated_pos = -1;
        d.pnuma = src.pnuma;
        d.migratable = src.migratable;
    }
    host_version_.assign(H, 0);
    term_value_.assign(model.terms().size(), 0);
    track_displaced_ = !p.constraints.remap_counts_as_migration;
    max_migrations_ = p.constraints.max_migrations;
    max_ram_mib_ = p.constraints.max_migrated_ram_mib;
    rebuild();
}

void SearchState::set_budget(std::int64_t max_migrations, Amount max_migrated_ram_mib) {
    const Constraints& c = problem().constraints;
    max_migrations_ = std::min(max_migrations, c.max_migrations);
    max_ram_mib_ = std::min(max_migrated_ram_mib, c.max_migrated_ram_mib);
}

NodeMask SearchState::mask_of(int vm) const {
    return node_mask(vm_[vm].pnuma.data(), problem().flavors[vm_[vm].flavor].num_vnuma());
}

bool SearchState::differs_from_origin(int vm, int host, NodeMask mask) const {
    // An arriving VM has no snapshot placement to differ from: moving it is not a migration of
    // the snapshot's (rebuild() counts it so too; the budget is about snapshot VMs).
    if (vm_[vm].origin == kUnplaced) return false;
    if (vm_[vm].origin != host) return true;  // the common case without touching the Problem's VM record
    return differs_from_snapshot(problem(), vm, host, mask);
}

void SearchState::rebuild() {
    const Problem& p = problem();
    for (std::size_t h = 0; h < p.hosts.size(); ++h) {
        const HostType& ht = p.host_type_of(static_cast<int>(h));
        std::copy(ht.node_capacity.begin(), ht.node_capacity.end(), free_.begin() + static_cast<std::ptrdiff_t>(free_off_[h]));
    }
    for (std::size_t v = 0; v < p.vms.size(); ++v) {
        if (vm_[v].host == kUnplaced) continue;
        const Flavor& fl = p.flavors[p.vms[v].flavor];
        Amount* f = free_.data() + free_off_[vm_[v].host];
        for (int i = 0; i < fl.num_vnuma(); ++i)
            for (int r = 0; r < R_; ++r) f[vm_[v].pnuma[i] * R_ + r] -= fl.node_demand[r];
    }
    // b = 0 with VMCAP 0 is a consistent start (VMCAP of the zero vector is 0), so refresh_host's
    // unchanged-vector shortcut is exact from it.
    std::fill(total_.begin(), total_.end(), 0);
    std::fill(b_.begin(), b_.end(), 0);
    std::fill(cap_.begin(), cap_.end(), 0);
    std::fill(host_value_.begin(), host_value_.end(), 0);
    capacity_value_ = 0;
    for (std::size_t h = 0; h < p.hosts.size(); ++h) {
        host_version_[h] = ++clock_;
        refresh_host(static_cast<int>(h), (1 << nodes_[h]) - 1);
    }
    migrated_.clear();
    displaced_.clear();
    for (VmSlot& d : vm_) d.migrated_pos = d.displaced_pos = -1;
    migrated_ram_ = 0;
    // An arriving VM (snapshot host kUnplaced) is never a migration, wherever place() put it.
    for (std::size_t v = 0; v < p.vms.size(); ++v)
        if (vm_[v].origin != kUnplaced && differs_from_origin(static_cast<int>(v), vm_[v].host, mask_of(static_cast<int>(v))))
            set_migrated(static_cast<int>(v), true);
    if (track_displaced_)
        for (std::size_t v = 0; v < p.vms.size(); ++v)
            if (vm_[v].origin != kUnplaced) update_displaced(static_cast<int>(v));
    recompute_terms();
}

void SearchState::placement_arrays(std::vector<int>& host, std::vector<NodeMask>& mask) const {
    host.resize(vm_.size());
    mask.resize(vm_.size());
    for (std::size_t v = 0; v < vm_.size(); ++v) {
        host[v] = vm_[v].host;
        mask[v] = mask_of(static_cast<int>(v));
    }
}

const StateAggregates* SearchState::aggregates(const AggregateHooks& keeper) const {
    const auto& keepers = model_->aggregate_keepers();
    for (std::size_t k = 0; k < agg_.size(); ++k)
        if (keepers[k] == &keeper) return agg_[k].get();
    return nullptr;
}

void SearchState::recompute_terms() {
    agg_.clear();
    keeps_aggregates_ = false;
    for (const AggregateHooks* keeper : model_->aggregate_keepers()) {
        agg_.emplace_back(keeper->make_aggregates(*this));
        keeps_aggregates_ = keeps_aggregates_ || agg_.back().get() != nullptr;
    }
    if (term_value_.empty()) return;
    std::vector<int> host;
    std::vector<NodeMask> mask;
    placement_arrays(host, mask);
    for (std::size_t t = 0; t < term_value_.size(); ++t) term_value_[t] = model_->terms()[t]->value(problem(), PlacementView{host, mask});
}

// Brings b of the nodes in `nodes_mask` and the VMCAP of every target on `host` in step with the
// free amounts, and total_ with them, through the capacity-change kernel (capacity_change.h): the
// same arithmetic that scored the move.
void SearchState::refresh_host(int host, int nodes_mask) {
    const int n = nodes_[host];
    const Amount* f = free_.data() + free_off_[host];
    const int type = type_[host];
    const auto touched = static_cast<unsigned>(nodes_mask);
    if (!per_target_) {
        // The host's value from its free amounts alone: the worker's memo (the move just applied
        // was evaluated with these amounts, so usually a hit), else one target-parallel pass.
        const Score after = HostValueMemo::value_or(memo_.ptr, type, f, n * R_, [&] { return model_->host_value(type, f); });
        capacity_value_ += after - host_value_[host];
        host_value_[host] = after;
        return;
    }
    Score value = 0;
    Count nb[kMaxPNuma];
    for (int j = 0; j < T_; ++j) {
        Count* b = b_.data() + b_off_[host] + static_cast<std::size_t>(j) * n;
        Count& cached = cap_[static_cast<std::size_t>(host) * T_ + j];
        const Count dc = target_capacity_change(*model_, type, n, j, b, cached, touched, f, nb);
        for (unsigned t = touched; t != 0; t &= t - 1) b[std::countr_zero(t)] = nb[std::countr_zero(t)];
        cached += dc;
        total_[j] += dc;
        value += model_->target_weight_units(j) * dc;
    }
    host_value_[host] += value;
}

void SearchState::update_displaced(int vm) {
    if (vm_[vm].origin == kUnplaced) return;  // an arrival is never displaced (as in rebuild())
    const Vm& orig = problem().vms[vm];
    // Node sets, not mappings: capacity depends on the set (as in differs_from_origin).
    const bool now = vm_[vm].host != orig.host || mask_of(vm) != node_mask(orig.pnuma.data(), problem().flavors[orig.flavor].num_vnuma());
    set_listed(displaced_, &VmSlot::displaced_pos, vm, now);
}

void SearchState::set_migrated(int vm, bool migrated) {
    if (!set_listed(migrated_, &VmSlot::migrated_pos, vm, migrated)) return;
    const Amount ram = problem().flavors[vm_[vm].flavor].demand[kRamMib];
    migrated_ram_ += migrated ? ram : -ram;
}

bool SearchState::set_listed(std::vector<int>& list, std::int32_t VmSlot::*pos, int vm, bool in) {
    const bool was = vm_[vm].*pos >= 0;
    if (was == in) return false;
    if (in) {
        vm_[vm].*pos = static_cast<std::int32_t>(list.size());
        list.push_back(vm);
    } else {  // swap-remove: O(1), the order of the rest depends on history (set_placements sorts)
        const std::int32_t at = vm_[vm].*pos;
        const int last = list.back();
        list[at] = last;
        vm_[last].*pos = at;
        list.pop_back();
        vm_[vm].*pos = -1;
    }
    return true;
}

void SearchState::move(int vm, int host, const Embedding& emb) {
    const Problem& p = problem();
    if (!term_value_.empty() || keeps_aggregates_) {  // before the change: terms' values, then every aggregate retracted and inserted
        const Relocation r{vm, vm_[vm].host, host, emb.mask};
        for (std::size_t t = 0; t < term_value_.size(); ++t) term_value_[t] += model_->terms()[t]->delta(*this, std::span(&r, 1));
        if (keeps_aggregates_) {
            const auto& keepers = model_->aggregate_keepers();
            for (std::size_t k = 0; k < agg_.size(); ++k)
                if (StateAggregates* agg = agg_[k].get()) keepers[k]->on_move(*agg, *this, r);
        }
    }
    const Flavor& fl = p.flavors[vm_[vm].flavor];
    const int k = fl.num_vnuma();
    const int src = vm_[vm].host;
    Amount* fs = free_.data() + free_off_[src];
    unsigned src_mask = 0;
    for (int i = 0; i < k; ++i) {
        const int node = vm_[vm].pnuma[i];
        src_mask |= 1U << node;
        for (int r = 0; r < R_; ++r) fs[node * R_ + r] += fl.node_demand[r];
    }
    Amount* fd = free_.data() + free_off_[host];
    for (int i = 0; i < k; ++i)
        for (int r = 0; r < R_; ++r) fd[emb.map[i] * R_ + r] -= fl.node_demand[r];
    host_version_[src] = ++clock_;
    host_version_[host] = ++clock_;
    if (src == host) {
        refresh_host(src, static_cast<int>(src_mask | emb.mask));
    } else {
        refresh_host(src, static_cast<int>(src_mask));
        refresh_host(host, emb.mask);
    }
    vm_[vm].host = host;
    for (int i = 0; i < k; ++i) vm_[vm].pnuma[i] = emb.map[i];
    set_migrated(vm, differs_from_origin(vm, host, emb.mask));
    if (track_displaced_) update_displaced(vm);
}

void SearchState::require_arrivals_supported(const char* what) const {
    bool ok = term_value_.empty();
    const auto& keepers = model_->aggregate_keepers();
    for (std::size_t k = 0; k < agg_.size() && ok; ++k) ok = agg_[k].get() == nullptr || keepers[k]->supports_arrivals();
    if (!ok)
        throw std::logic_error(std::string(what) +
                               ": arriving VMs need a model without objective terms and whose rules' aggregates support arrivals");
}

void SearchState::arrival_hooks(const Relocation& r) {
    if (!keeps_aggregates_) return;
    const auto& keepers = model_->aggregate_keepers();
    for (std::size_t k = 0; k < agg_.size(); ++k)
        if (StateAggregates* agg = agg_[k].get()) keepers[k]->on_move(*agg, *this, r);
}

void SearchState::place(int vm, int host, const Embedding& emb) {
    require_arrivals_supported("SearchState::place");
    if (vm_[vm].host != kUnplaced) throw std::logic_error("SearchState::place: the VM is already on a host");
    arrival_hooks(Relocation{vm, kUnplaced, host, emb.mask});  // before the change, as in move()
    const Flavor& fl = problem().flavors[vm_[vm].flavor];
    const int k = fl.num_vnuma();
    Amount* fd = free_.data() + free_off_[host];
    for (int i = 0; i < k; ++i)
        for (int r = 0; r < R_; ++r) fd[emb.map[i] * R_ + r] -= fl.node_demand[r];
    host_version_[host] = ++clock_;
    refresh_host(host, emb.mask);
    vm_[vm].host = host;
    for (int i = 0; i < k; ++i) vm_[vm].pnuma[i] = emb.map[i];
}

void SearchState::unplace(int vm) {
    require_arrivals_supported("SearchState::unplace");
    const int src = vm_[vm].host;
    if (src == kUnplaced) throw std::logic_error("SearchState::unplace: the VM is not on a host");
    if (vm_[vm].origin != kUnplaced) throw std::logic_error("SearchState::unplace: only an arriving VM may leave the cluster");
    arrival_hooks(Relocation{vm, src, kUnplaced, 0});
    const Flavor& fl = problem().flavors[vm_[vm].flavor];
    const int k = fl.num_vnuma();
    Amount* fs = free_.data() + free_off_[src];
    unsigned mask = 0;
    for (int i = 0; i < k; ++i) {
        mask |= 1U << vm_[vm].pnuma[i];
        for (int r = 0; r < R_; ++r) fs[vm_[vm].pnuma[i] * R_ + r] += fl.node_demand[r];
    }
    host_version_[src] = ++clock_;
    refresh_host(src, static_cast<int>(mask));
    vm_[vm].host = kUnplaced;
}

void SearchState::hold(int host, const Embedding& emb, int flavor, int sign) {
    require_arrivals_supported("SearchState::hold");
    if (sign != 1 && sign != -1) throw std::logic_error("SearchState::hold: sign must be +1 or -1");
    const Flavor& fl = problem().flavors[static_cast<std::size_t>(flavor)];
    const HostType& type = problem().host_type_of(host);
    const int k = fl.num_vnuma();
    Amount* fd = free_.data() + free_off_[host];
    for (int i = 0; i < k; ++i)
        for (int r = 0; r < R_; ++r) {
            const Amount after = fd[emb.map[i] * R_ + r] - sign * fl.node_demand[r];
            if (after < 0 || after > type.node_capacity[static_cast<std::size_t>(emb.map[i] * R_ + r)])
                throw std::logic_error(sign > 0 ? "SearchState::hold: no room on the held nodes"
                                                : "SearchState::hold: nothing held on the released nodes");
        }
    for (int i = 0; i < k; ++i)
        for (int r = 0; r < R_; ++r) fd[emb.map[i] * R_ + r] -= sign * fl.node_demand[r];
    host_version_[host] = ++clock_;
    refresh_host(host, emb.mask);
}

void SearchState::hold_amounts(int host, const std::vector<Amount>& amounts, int sign) {
    require_arrivals_supported("SearchState::hold_amounts");
    if (sign != 1 && sign != -1) throw std::logic_error("SearchState::hold_amounts: sign must be +1 or -1");
    const int n = nodes_[host];
    if (amounts.size() != static_cast<std::size_t>(n * R_))
        throw std::logic_error("SearchState::hold_amounts: one amount per node and resource");
    const HostType& type = problem().host_type_of(host);
    Amount* fd = free_.data() + free_off_[host];
    int mask = 0;
    for (int i = 0; i < n * R_; ++i) {
        const Amount after = fd[i] - sign * amounts[static_cast<std::size_t>(i)];
        if (amounts[static_cast<std::size_t>(i)] < 0 || after < 0 || after > type.node_capacity[static_cast<std::size_t>(i)])
            throw std::logic_error(sign > 0 ? "SearchState::hold_amounts: no room on the held nodes"
                                            : "SearchState::hold_amounts: nothing held on the released nodes");
        if (amounts[static_cast<std::size_t>(i)] != 0) mask |= 1 << (i / R_);
    }
    if (mask == 0) return;
    for (int i = 0; i < n * R_; ++i) fd[i] -= sign * amounts[static_cast<std::size_t>(i)];
    host_version_[host] = ++clock_;
    refresh_host(host, mask);
}

std::vector<Placement> SearchState::displaced_placements() const {
    std::vector<Placement> out;
    const std::vector<int>& moved = displaced_vms();
    out.reserve(moved.size());
    for (int vm : moved) out.push_back(Placement{vm, vm_[vm].host, vm_[vm].pnuma});
    return out;
}

void SearchState::set_placements(const std::vector<Placement>& placements) {
    const Problem& p = problem();
    // Only VMs that are migrated now or listed can change: move each to its target (listed
    // placement, else its snapshot placement) in the free amounts, then refresh the touched
    // hosts. O(migrated + listed + touched hosts x targets x VMCAP) instead of a full rebuild;
    // this is the synchronisation cost of every worker that adopts another's best state.
    if (listed_.size() != p.vms.size()) listed_.assign(p.vms.size(), -1);
    for (std::size_t k = 0; k < placements.size(); ++k) listed_[placements[k].vm] = static_cast<int>(k);
    std::vector<int> candidates = displaced_vms();
    for (const Placement& pl : placements) candidates.push_back(pl.vm);
    std::vector<std::pair<int, unsigned>> touched;  // (host, node mask), may repeat hosts
    std::vector<int> changed;
    for (int vm : candidates) {
        if (listed_[vm] == -2) continue;  // already handled (listed and migrated)
        const Vm& orig = p.vms[vm];
        const int to_host = listed_[vm] >= 0 ? placements[listed_[vm]].host : orig.host;
        const std::array<std::uint8_t, kMaxVNuma>& to_nodes = listed_[vm] >= 0 ? placements[listed_[vm]].pnuma : orig.pnuma;
        listed_[vm] = -2;
        changed.push_back(vm);
        if (to_host == vm_[vm].host && to_nodes == vm_[vm].pnuma) continue;
        const Flavor& fl = p.flavors[orig.flavor];
        const int k = fl.num_vnuma();
        Amount* fs = free_.data() + free_off_[vm_[vm].host];
        Amount* fd = free_.data() + free_off_[to_host];
        const unsigned ms = node_mask(vm_[vm].pnuma.data(), k), md = node_mask(to_nodes.data(), k);
        for (int i = 0; i < k; ++i) {
            for (int r = 0; r < R_; ++r) {
                fs[vm_[vm].pnuma[i] * R_ + r] += fl.node_demand[r];
                fd[to_nodes[i] * R_ + r] -= fl.node_demand[r];
            }
        }
        touched.emplace_back(vm_[vm].host, ms);
        touched.emplace_back(to_host, md);
        vm_[vm].host = to_host;
        vm_[vm].pnuma = to_nodes;
    }
    for (int vm : changed) listed_[vm] = -1;
    // Merge the node masks per host, then refresh each touched host once with a new version.
    std::sort(touched.begin(), touched.end());
    for (std::size_t a = 0; a < touched.size();) {
        const int h = touched[a].first;
        unsigned mask = 0;
        for (; a < touched.size() && touched[a].first == h; ++a) mask |= touched[a].second;
        host_version_[h] = ++clock_;
        refresh_host(h, static_cast<int>(mask));
        const Amount* f = free_.data() + free_off_[h];
        for (int x = 0; x < nodes_[h] * R_; ++x)
            if (f[x] < 0) throw std::logic_error("set_placements: the placement overloads a pNUMA node");
    }
    for (int vm : changed) {
        set_migrated(vm, differs_from_origin(vm, vm_[vm].host, mask_of(vm)));
        if (track_displaced_) update_displaced(vm);
    }
    // Migrated VMs in VM order, as a rebuild lists them: the search draws from this list by
    // position, so the order is part of what makes a run reproducible.
    std::sort(migrated_.begin(), migrated_.end());
    for (std::size_t k = 0; k < migrated_.size(); ++k) vm_[migrated_[k]].migrated_pos = static_cast<int>(k);
    std::sort(displaced_.begin(), displaced_.end());
    for (std::size_t k = 0; k < displaced_.size(); ++k) vm_[displaced_[k]].displaced_pos = static_cast<int>(k);
    recompute_terms();
}

void SearchState::check_consistency() const {
    SearchState fresh(*model_);
    // Same placement, aggregates from scratch.
    fresh.vm_ = vm_;
    fresh.rebuild();
    const Problem& p = problem();
    auto fail = [](const std::string& what) { throw std::logic_error("incremental state differs from full recomputation: " + what); };
    for (std::size_t h = 0; h < p.hosts.size(); ++h) {
        for (int i = 0; i < nodes_[h] * R_; ++i) {
            if (free_[free_off_[h] + i] != fresh.free_[free_off_[h] + i]) {
                std::ostringstream s;
                s << "host " << p.hosts[h].id << " pNUMA node " << (i / R_ + 1) << " free " << p.resources[i % R_] << ": cached "
                  << free_[free_off_[h] + i] << ", recomputed " << fresh.free_[free_off_[h] + i];
                fail(s.str());
            }
            if (free_[free_off_[h] + i] < 0) fail("host " + p.hosts[h].id + " has a pNUMA node over capacity");
        }
        for (int j = 0; per_target_ && j < T_; ++j) {
            for (int i = 0; i < nodes_[h]; ++i)
                if (b_of(static_cast<int>(h), j)[i] != fresh.b_of(static_cast<int>(h), j)[i])
                    fail("host " + p.hosts[h].id + " b of flavor " + p.flavors[model_->target_flavor(j)].name);
            if (capacity(static_cast<int>(h), j) != fresh.capacity(static_cast<int>(h), j)) {
                std::ostringstream s;
                s << "host " << p.hosts[h].id << " VMCAP of flavor " << p.flavors[model_->target_flavor(j)].name << ": cached "
                  << capacity(static_cast<int>(h), j) << ", recomputed " << fresh.capacity(static_cast<int>(h), j);
                fail(s.str());
            }
        }
    }
    for (std::size_t h = 0; h < p.hosts.size(); ++h)
        if (host_value_[h] != fresh.host_value_[h])
            fail("host " + p.hosts[h].id + " weighted VMCAP: cached " + std::to_string(host_value_[h]) + ", recomputed " +
                 std::to_string(fresh.host_value_[h]));
    if (capacity_value() != fresh.capacity_value())
        fail("weighted VMCAP of the cluster: cached " + std::to_string(capacity_value()) + ", recomputed " +
             std::to_string(fresh.capacity_value()));
    for (int j = 0; per_target_ && j < T_; ++j)
        if (total_[j] != fresh.total_[j])
            fail("cluster total of flavor " + p.flavors[model_->target_flavor(j)].name + ": cached " + std::to_string(total_[j]) +
                 ", recomputed " + std::to_string(fresh.total_[j]));
    for (std::size_t t = 0; t < term_value_.size(); ++t)
        if (term_value_[t] != fresh.term_value_[t]) {
            std::ostringstream s;
            s << "objective term " << model_->terms()[t]->name() << ": cached " << term_value_[t] << ", recomputed "
              << fresh.term_value_[t];
            fail(s.str());
        }
    for (std::size_t k = 0; k < agg_.size(); ++k)
        if (const StateAggregates* agg = agg_[k].get())
            if (const std::string why = model_->aggregate_keepers()[k]->check_aggregates(*agg, *this); !why.empty())
                fail("aggregates of " + std::string(model_->aggregate_keepers()[k]->name()) + ": " + why);
    if (displaced_vms().size() != fresh.displaced_vms().size())
        fail("VMs off their snapshot placement: cached " + std::to_string(displaced_vms().size()) + ", recomputed " +
             std::to_string(fresh.displaced_vms().size()));
    if (migrations() != fresh.migrations() || migrated_ram_ != fresh.migrated_ram_)
        fail("migration count or migrated RAM: cached " + std::to_string(migrations()) + "/" + std::to_string(migrated_ram_) +
             ", recomputed " + std::to_string(fresh.migrations()) + "/" + std::to_string(fresh.migrated_ram_));
}

}  // namespace vmcap
