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
    e.ret.fits = sc.fits(fl, v.pnuma.data()) && rule_admits_return(s, vm, sc);
    e.ret.delta = e.ret.fits ? sc.gain(s, &fl, v.pnuma.data()) : 0;
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
    Score best = 0;
    e.value.embedding = dest.best_placement(s, flavor, best);
    e.value.delta = e.value.embedding >= 0 ? best : 0;
    return e.value;
}

Score MoveCache::removal_miss(const SearchState& s, int vm) {
    Removal& r = removal_[vm];
    ++misses_;
    r.version = s.host_version(s.host_of(vm));
    r.delta = removal_delta(s, vm);
    return r.delta;
}

const Insertion& MoveCache::insertion_miss(const SearchState& s, int flavor, int host) {
    Slot& e = insertion_[static_cast<std::size_t>(host) * F_ + flavor];
    ++misses_;
    e.version = s.host_version(host);
    e.ins = best_insertion(s, flavor, host, -1);
    return e.ins;
}

}  // namespace vmcap
