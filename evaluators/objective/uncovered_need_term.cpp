#include "evaluators/objective/uncovered_need_term.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "evaluators/state/capacity_model.h"
#include "evaluators/state/search_state.h"

namespace vmcap {

struct UncoveredNeedTerm::Aggregates final : StateAggregates {
    std::vector<Count> cap;    ///< [host * K + k] capacity of flavors_[k] on the host
    std::vector<Count> total;  ///< [k] sum over hosts
    std::unique_ptr<StateAggregates> clone() const override { return std::make_unique<Aggregates>(*this); }
};

struct UncoveredNeedTerm::Scratch {
    struct Local {
        int host;
        std::vector<Amount> free;
    };
    std::vector<Local> local;  ///< the touched hosts (the first `used` entries)
    std::size_t used = 0;
    std::vector<Count> after;  ///< [touched * K + k]

    Local& local_of(int host, const SearchState& s, int R) {
        for (std::size_t i = 0; i < used; ++i)
            if (local[i].host == host) return local[i];
        if (used == local.size()) local.emplace_back();
        Local& l = local[used++];
        l.host = host;
        const Amount* f = s.free_of(host);
        l.free.assign(f, f + static_cast<std::ptrdiff_t>(s.nodes_of(host)) * R);
        return l;
    }
};

UncoveredNeedTerm::UncoveredNeedTerm(const CapacityModel& model, double weight)
    : model_(model), w_(weight), unit_(weight_milli(weight) * 1024) {
    if (weight_milli(weight) < 0) throw std::invalid_argument("uncovered-need must be a number in [0, 100000] with at most 3 decimals");
    const Problem& p = model.problem();
    for (std::size_t f = 0; f < p.flavors.size(); ++f)
        if (p.flavors[f].need >= 0) {
            flavors_.push_back(static_cast<int>(f));
            need_.push_back(p.flavors[f].need);
        }
}

UncoveredNeedTerm::Aggregates UncoveredNeedTerm::build(const SearchState& s) const {
    const std::size_t K = flavors_.size(), H = s.problem().hosts.size();
    Aggregates a;
    a.cap.assign(H * K, 0);
    a.total.assign(K, 0);
    for (std::size_t h = 0; h < H; ++h)
        for (std::size_t k = 0; k < K; ++k) {
            const Count c = model_.host_capacity(s.type_of(static_cast<int>(h)), flavors_[k], s.free_of(static_cast<int>(h)));
            a.cap[h * K + k] = c;
            a.total[k] += c;
        }
    return a;
}

std::unique_ptr<StateAggregates> UncoveredNeedTerm::make_aggregates(const SearchState& s) const {
    return std::make_unique<Aggregates>(build(s));
}

Score UncoveredNeedTerm::evaluate(const SearchState& s, const Aggregates& a, std::span<const Relocation> moves, Aggregates* commit) const {
    const std::size_t K = flavors_.size();
    if (K == 0) return 0;
    thread_local Scratch sc;
    sc.used = 0;
    const int R = model_.num_resources();
    const Problem& p = s.problem();
    for (std::size_t i = 0; i < moves.size(); ++i) {
        const Relocation& r = moves[i];
        const int from = host_after(s.host_of(r.vm), moves, r.vm, i);
        NodeMask from_mask = s.mask_of(r.vm);
        for (std::size_t j = 0; j < i; ++j)
            if (moves[j].vm == r.vm) from_mask = moves[j].to_mask;
        const Flavor& fl = p.flavors[static_cast<std::size_t>(s.flavor_of(r.vm))];
        if (from != kUnplaced) {
            Scratch::Local& l = sc.local_of(from, s, R);
            for (unsigned m = from_mask; m != 0; m &= m - 1)
                for (int q = 0; q < R; ++q) l.free[static_cast<std::size_t>(std::countr_zero(m) * R + q)] += fl.node_demand[q];
        }
        if (r.to_host != kUnplaced) {
            Scratch::Local& l = sc.local_of(r.to_host, s, R);
            for (unsigned m = r.to_mask; m != 0; m &= m - 1)
                for (int q = 0; q < R; ++q) l.free[static_cast<std::size_t>(std::countr_zero(m) * R + q)] -= fl.node_demand[q];
        }
    }
    Score d = 0;
    for (std::size_t k = 0; k < K; ++k) {
        Count old = 0;
        for (std::size_t i = 0; i < sc.used; ++i) old += a.cap[static_cast<std::size_t>(sc.local[i].host) * K + k];
        // The moved hosts' capacity can only fall to 0: a total that covers the need without them
        // covers it before and after the move, and the term does not change for this flavor.
        if (commit == nullptr && a.total[k] - old >= need_[k]) continue;
        Count now = 0;
        for (std::size_t i = 0; i < sc.used; ++i) {
            const Count c = model_.host_capacity(s.type_of(sc.local[i].host), flavors_[k], sc.local[i].free.data());
            now += c;
            if (commit != nullptr) commit->cap[static_cast<std::size_t>(sc.local[i].host) * K + k] = c;
        }
        const Count before = a.total[k], after = before - old + now;
        d -= unit_ * (std::max<Count>(0, need_[k] - after) - std::max<Count>(0, need_[k] - before));
        if (commit != nullptr) commit->total[k] = after;
    }
    return d;
}

Score UncoveredNeedTerm::delta(const SearchState& s, std::span<const Relocation> moves) const {
    const auto* a = static_cast<const Aggregates*>(s.aggregates(*this));
    return evaluate(s, *a, moves, nullptr);
}

void UncoveredNeedTerm::on_move(StateAggregates& agg, const SearchState& s, const Relocation& r) const {
    auto& a = static_cast<Aggregates&>(agg);
    evaluate(s, a, std::span(&r, 1), &a);
}

double UncoveredNeedTerm::bound(const SearchState& s, std::span<const int>) const {
    const auto* a = static_cast<const Aggregates*>(s.aggregates(*this));
    Score b = 0;
    for (std::size_t k = 0; k < flavors_.size(); ++k) b += unit_ * std::max<Count>(0, need_[k] - a->total[k]);
    return static_cast<double>(b);
}

Score UncoveredNeedTerm::value(const Problem& p, const PlacementView& pl) const {
    const int R = p.num_resources();
    std::vector<std::vector<Amount>> free(p.hosts.size());
    for (std::size_t h = 0; h < p.hosts.size(); ++h) free[h] = p.host_type_of(static_cast<int>(h)).node_capacity;
    for (std::size_t v = 0; v < p.vms.size(); ++v) {
        if (pl.host[v] < 0) continue;
        const Flavor& fl = p.flavors[static_cast<std::size_t>(p.vms[v].flavor)];
        for (unsigned m = pl.mask[v]; m != 0; m &= m - 1)
            for (int q = 0; q < R; ++q)
                free[static_cast<std::size_t>(pl.host[v])][static_cast<std::size_t>(std::countr_zero(m) * R + q)] -= fl.node_demand[q];
    }
    Score out = 0;
    for (std::size_t k = 0; k < flavors_.size(); ++k) {
        Count total = 0;
        for (std::size_t h = 0; h < p.hosts.size(); ++h) total += model_.host_capacity(p.hosts[h].type, flavors_[k], free[h].data());
        out -= unit_ * std::max<Count>(0, need_[k] - total);
    }
    return out;
}

std::string UncoveredNeedTerm::check_aggregates(const StateAggregates& cached, const SearchState& s) const {
    const auto& c = static_cast<const Aggregates&>(cached);
    const Aggregates fresh = build(s);
    if (c.total != fresh.total) return "uncovered-need: a flavor's cluster capacity differs from the hosts' recomputed";
    if (c.cap != fresh.cap) return "uncovered-need: a host's capacity differs from its recomputed";
    return "";
}

}  // namespace vmcap
