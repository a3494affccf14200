#include "moves/move_cache.h"

#include "moves/host_scratch.h"

namespace vmcap {

MoveCache::MoveCache(const SearchState& s)
    : F_(static_cast<int>(s.problem().flavors.size())),
      removal_(s.problem().vms.size()),
      insertion_(s.problem().hosts.size() * s.problem().flavors.size()),
      return_(s.problem().vms.size()),
      vacated_(std::size_t{1} << kVacatedBits) {}

const MoveCache::Return& MoveCache::return_home(const SearchState& s, int vm) {
    ReturnSlot& e = return_[vm];
    const std::uint64_t ver = s.host_version(s.origin_of(vm));
    if (e.version == ver) {
        ++hits_;
        return e.ret;
    }
    ++misses_;
    e.version = ver;
    const Vm& v = s.problem().vms[vm];
    const Flavor& fl = s.problem().flavors[v.flavor];
    HostScratch sc;
    sc.load(s, v.host);
    if (s.host_of(vm) == v.host) sc.release(fl, s.pnuma_of(vm));  // a remap back: its own share is free
    e.ret.fits = sc.fits(fl, v.pnuma.data());
    e.ret.delta = e.ret.fits ? sc.gain(s, &fl, v.pnuma.data()) : 0.0;
    return e.ret;
}

const MoveCache::Vacated& MoveCache::vacated_insertion(const SearchState& s, int vm, int flavor, bool returned) {
    const int host = s.host_of(vm);
    const std::uint64_t ver = s.host_version(host);
    const int tag = returned ? flavor + F_ : flavor;
    const std::uint64_t key = static_cast<std::uint64_t>(vm) * static_cast<std::uint64_t>(2 * F_) + static_cast<std::uint64_t>(tag);
    VacatedSlot& e = vacated_[(key * 0x9E3779B97F4A7C15ULL) >> (64 - kVacatedBits)];
    if (e.version == ver && e.vm == vm && e.flavor == tag) {
        ++hits_;
        return e.value;
    }
    ++misses_;
    e.version = ver;
    e.vm = vm;
    e.flavor = tag;
    const Problem& p = s.problem();
    const Flavor& own = p.flavors[s.flavor_of(vm)];
    HostScratch dest;
    dest.load(s, host);
    dest.release(own, s.pnuma_of(vm));
    if (returned) {
        const std::uint8_t* snap = p.vms[vm].pnuma.data();
        if (!dest.fits(own, snap)) {
            e.value = Vacated{};
            return e.value;
        }
        dest.occupy(own, snap);
    }
    double best = 0.0;
    e.value.embedding = dest.best_placement(s, p.flavors[flavor], s.model().evaluator(p.hosts[host].type, flavor).placements(), best);
    e.value.delta = e.value.embedding >= 0 ? best : 0.0;
    return e.value;
}

double MoveCache::removal(const SearchState& s, int vm) {
    Removal& r = removal_[vm];
    const std::uint64_t v = s.host_version(s.host_of(vm));
    if (r.version == v) {
        ++hits_;
        return r.delta;
    }
    ++misses_;
    r.version = v;
    r.delta = removal_delta(s, vm);
    return r.delta;
}

const Insertion& MoveCache::insertion(const SearchState& s, int flavor, int host) {
    Slot& e = insertion_[static_cast<std::size_t>(host) * F_ + flavor];
    const std::uint64_t v = s.host_version(host);
    if (e.version == v) {
        ++hits_;
        return e.ins;
    }
    ++misses_;
    e.version = v;
    e.ins = best_insertion(s, flavor, host, -1);
    return e.ins;
}

namespace {

/** A migrated VM back to its snapshot host (remaps counted as migrations, the VM elsewhere now):
 *  the best of its snapshot nodes (the cached return, which gives the budget slot back and wins
 *  ties, as in best_insertion) and any other placement there (the cached best insertion, which
 *  keeps the VM migrated: count and RAM unchanged, so always within the budget). */
MigrateDelta evaluate_home_cached(const MigrateMove& mv, const SearchState& s, MoveCache& cache) {
    const Problem& p = s.problem();
    const Vm& orig = p.vms[mv.vm];
    MigrateDelta out;
    const MoveCache::Return& ret = cache.return_home(s, mv.vm);
    const bool ret_fits = ret.fits;
    const double ret_delta = ret.delta;
    const Insertion& ins = cache.insertion(s, orig.flavor, mv.host);
    if (ret_fits && (ins.embedding < 0 || ret_delta >= ins.delta)) {
        // Every placement on the snapshot node set frees the same amounts (one node demand per
        // vNUMA node), so the first one in the list is what best_insertion picks.
        const NodeMask home_mask = snapshot_embedding(p, mv.vm).mask;
        const auto& placements = s.model().evaluator(p.hosts[mv.host].type, orig.flavor).placements();
        for (std::size_t e = 0; e < placements.size(); ++e)
            if (placements[e].mask == home_mask) {
                out.embedding = static_cast<int>(e);
                break;
            }
        out.delta = cache.removal(s, mv.vm) + ret_delta;
        out.migrations_after = s.migrations() - 1;
    } else {
        if (ins.embedding < 0) return out;
        out.embedding = ins.embedding;
        out.delta = cache.removal(s, mv.vm) + ins.delta;
        out.migrations_after = s.migrations();
    }
    out.feasible = out.embedding >= 0;
    return out;
}

}  // namespace

MigrateDelta evaluate_cached(const MigrateMove& mv, const SearchState& s, MoveCache& cache) {
    const Problem& p = s.problem();
    const int flavor = s.flavor_of(mv.vm);  // the state's compact per-VM record: one cache line
    if (s.origin_of(mv.vm) == mv.host) {
        if (s.migratable(mv.vm) && p.constraints.remap_counts_as_migration && s.host_of(mv.vm) != mv.host)
            return evaluate_home_cached(mv, s, cache);
        return mv.evaluate(s);
    }
    MigrateDelta out;
    if (!s.migratable(mv.vm) || mv.host == s.host_of(mv.vm)) return out;
    // Off the snapshot host every placement is a migration: the budget either admits all of
    // them or none, and the best one does not depend on the VM.
    const bool was = s.is_migrated(mv.vm);
    const std::int64_t after = s.migrations() - (was ? 1 : 0) + 1;
    const Amount ram = p.flavors[flavor].demand[kRamMib];
    if (!within_budget(p, after, s.migrated_ram_mib() - (was ? ram : 0) + ram)) return out;
    const Insertion& ins = cache.insertion(s, flavor, mv.host);
    if (ins.embedding < 0) return out;
    out.feasible = true;
    out.embedding = ins.embedding;
    out.delta = cache.removal(s, mv.vm) + ins.delta;
    out.migrations_after = after;
    return out;
}

}  // namespace vmcap

namespace vmcap {

ExchangeDelta evaluate_cached(const ExchangeMove& mv, const SearchState& s, MoveCache& cache) {
    const Problem& p = s.problem();
    const int a = mv.a, b = mv.b;
    if (a < 0 || b < 0 || a == b || !s.is_migrated(a) || s.is_migrated(b) || !s.migratable(b)) return ExchangeDelta{};
    const int ha = s.host_of(a), home = s.origin_of(a), hb = s.host_of(b), h = mv.host;
    if (h < 0 || h == hb) return ExchangeDelta{};
    if (ha == hb || home == hb || (home == h && ha != home)) return mv.evaluate(s);
    ExchangeDelta out;
    const Flavor& fa = p.flavors[s.flavor_of(a)];
    const Flavor& fb = p.flavors[s.flavor_of(b)];
    if (!within_budget(p, s.migrations(), s.migrated_ram_mib() - fa.demand[kRamMib] + fb.demand[kRamMib])) return out;
    const MoveCache::Return& ret = cache.return_home(s, a);
    if (!ret.fits) return out;
    const double ret_delta = ret.delta;
    if (ha == home) {
        // a is remapped on its snapshot host and moves back to its snapshot nodes there: the
        // cached return is that host's whole change (a quarter of the exchanges evaluated on
        // the 10k-host snapshot). Same sums in the same order as ExchangeMove::evaluate.
        if (h == ha) {  // b takes the room there after a's return
            const MoveCache::Vacated& vac = cache.vacated_insertion(s, a, s.flavor_of(b), true);
            if (vac.embedding < 0) return out;
            out.embedding = vac.embedding;
            out.delta = cache.removal(s, b) + vac.delta;
        } else {
            const Insertion& ins = cache.insertion(s, s.flavor_of(b), h);
            if (ins.embedding < 0) return out;
            out.embedding = ins.embedding;
            out.delta = ret_delta + cache.removal(s, b) + ins.delta;
        }
        out.feasible = true;
        out.migrations_after = s.migrations();
        return out;
    }
    if (h == ha) {
        // b takes the room a leaves: only a's host is evaluated, on a tentative copy without a
        // (the same loop as ExchangeMove::evaluate: first placement of the largest gain).
        const MoveCache::Vacated& vac = cache.vacated_insertion(s, a, s.flavor_of(b));
        if (vac.embedding < 0) return out;
        const double best = vac.delta;
        out.embedding = vac.embedding;
        out.feasible = true;
        out.delta = ret_delta + cache.removal(s, b) + best;
        out.migrations_after = s.migrations();
        return out;
    }
    const Insertion& ins = cache.insertion(s, s.flavor_of(b), h);
    if (ins.embedding < 0) return out;
    out.feasible = true;
    out.embedding = ins.embedding;
    out.delta = cache.removal(s, a) + ret_delta + cache.removal(s, b) + ins.delta;
    out.migrations_after = s.migrations();
    return out;
}

}  // namespace vmcap
