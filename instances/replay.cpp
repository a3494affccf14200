#include "instances/replay.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <queue>
#include <random>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace vmcap {

namespace {

constexpr int kR = 2;  // resources of a replayed snapshot: vcpu, ram_mib

std::string gib_text(Amount mib) {
    char buf[64];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, static_cast<double>(mib) / 1024.0, std::chars_format::fixed);
    return ec == std::errc{} ? std::string(buf, p) : std::to_string(mib) + "MiB";
}

std::string demand_text(const std::vector<Amount>& demand) {
    std::string s = "[";
    for (std::size_t r = 0; r < demand.size(); ++r) {
        if (r) s += ',';
        s += std::to_string(demand[r]);
    }
    return s + "]";
}

bool embeds(const Graph& host, const Graph& guest) {
    return !enumerate_embeddings(host, guest).empty();
}

std::string padded(char prefix, long long value, int width) {
    std::string digits = std::to_string(value);
    if (static_cast<int>(digits.size()) < width) digits.insert(0, static_cast<std::size_t>(width) - digits.size(), '0');
    return std::string(1, prefix) + digits;
}

/** splitmix64 finaliser: decorrelates the sampling stream from the importer's stream of the same seed. */
std::uint64_t mix_seed(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

[[noreturn]] void bad_option(const std::string& what) {
    throw InputError("replay: " + what);
}

/** Everything the placer needs about one flavor; computed at its first arrival. */
struct FlavorPlan {
    std::string name;
    Amount vcpu = 0, ram = 0;            // total demand
    Amount node_vcpu = 0, node_ram = 0;  // per vNUMA node
    int k = 0;
    Topology vnuma;
    std::vector<Embedding> embeddings;
    bool ready = false;    // rule evaluated
    bool blocked = false;  // known not to fit any host (cleared when a departure makes room)
    /** Scan memo of both placers: failed_at[h] == version of host h when h was found not to fit (0: never). */
    std::vector<std::uint32_t> failed_at;
};

/**
 * Free capacity of every pNUMA node of every host plus per-host aggregates (free totals and the
 * largest node's free vCPU / RAM), with the two placer indexes:
 *  - best-fit: one bucket per free-vCPU value, each a two-level bitset of hosts, so hosts are
 *    visited in (free vCPU, index) order, moved between buckets in O(1), and most infeasible hosts
 *    are skipped on their aggregates (or a per-flavor memo of unchanged hosts) without touching
 *    their nodes;
 *  - first-fit: a max segment tree over host index on the largest-node free vCPU / RAM.
 */
class ClusterState {
public:
    ClusterState(const HostType& type, int hosts, bool best_fit) : n_(type.num_nodes()), hosts_(hosts), best_fit_(best_fit) {
        for (int i = 0; i < n_; ++i) {
            cap_.push_back(NodeFree{type.node_capacity[static_cast<std::size_t>(i * kR + kVcpu)],
                                    type.node_capacity[static_cast<std::size_t>(i * kR + kRamMib)]});
            host_cap_v_ += cap_.back().v;
        }
        free_.resize(static_cast<std::size_t>(hosts) * static_cast<std::size_t>(n_));
        agg_.resize(static_cast<std::size_t>(hosts));
        version_.assign(static_cast<std::size_t>(hosts), 1);
        for (int h = 0; h < hosts; ++h) {
            for (int i = 0; i < n_; ++i) free_[idx(h, i)] = cap_[static_cast<std::size_t>(i)];
            refresh_aggregates(h);
        }
        if (best_fit_) {
            buckets_.assign(static_cast<std::size_t>(host_cap_v_) + 1, HostSet(hosts));
            for (int h = 0; h < hosts; ++h) buckets_[static_cast<std::size_t>(agg_[static_cast<std::size_t>(h)].tot_v)].insert(h);
        } else {
            leaves_ = 1;
            while (leaves_ < hosts) leaves_ *= 2;
            seg_.assign(2 * static_cast<std::size_t>(leaves_), NodeFree{-1, -1});
            for (int h = 0; h < hosts; ++h)
                seg_[static_cast<std::size_t>(leaves_ + h)] =
                    NodeFree{agg_[static_cast<std::size_t>(h)].max_v, agg_[static_cast<std::size_t>(h)].max_r};
            for (int x = leaves_ - 1; x >= 1; --x) pull(static_cast<std::size_t>(x));
        }
    }

    /**
     * Index of the placement of `f` on host `h` the placer would use (best-fit: least free vCPU
     * on its nodes, ties lowest mask; first-fit: first feasible), or -1 if none fits.
     */
    int choose(int h, const FlavorPlan& f) const {
        const HostAgg& a = agg_[static_cast<std::size_t>(h)];
        if (a.tot_v < f.vcpu || a.tot_r < f.ram || a.max_v < f.node_vcpu || a.max_r < f.node_ram) return -1;
        unsigned fit = 0;
        for (int i = 0; i < n_; ++i) {
            const NodeFree& nf = free_[idx(h, i)];
            if (nf.v >= f.node_vcpu && nf.r >= f.node_ram) fit |= 1U << i;
        }
        int best = -1;
        Amount best_left = 0;
        for (std::size_t e = 0; e < f.embeddings.size(); ++e) {
            const unsigned mask = f.embeddings[e].mask;
            if ((mask & ~fit) != 0) continue;
            if (!best_fit_) return static_cast<int>(e);
            Amount left = 0;
            for (unsigned m = mask; m; m &= m - 1) left += free_[idx(h, std::countr_zero(m))].v;
            if (best < 0 || left < best_left) {
                best = static_cast<int>(e);
                best_left = left;
            }
        }
        return best;
    }

    /**
     * The placer's (host, placement) for `f`, or (-1, -1) if no host fits. Best-fit remembers in
     * f.failed_at the host versions that did not fit, so an unchanged host is skipped in O(1).
     */
    std::pair<int, int> find(FlavorPlan& f) const {
        if (f.failed_at.size() != static_cast<std::size_t>(hosts_)) f.failed_at.assign(static_cast<std::size_t>(hosts_), 0);
        if (!best_fit_) return first_fit(1, 0, leaves_, f);
        if (f.vcpu > host_cap_v_) return {-1, -1};
        std::pair<int, int> found{-1, -1};
        for (std::size_t v = static_cast<std::size_t>(f.vcpu); v < buckets_.size() && found.first < 0; ++v) {
            if (buckets_[v].empty()) continue;
            buckets_[v].for_each([&](int h) {
                const HostAgg& a = agg_[static_cast<std::size_t>(h)];
                if (a.max_v < f.node_vcpu || a.max_r < f.node_ram || a.tot_r < f.ram) return true;
                std::uint32_t& failed = f.failed_at[static_cast<std::size_t>(h)];
                const std::uint32_t version = version_[static_cast<std::size_t>(h)];
                if (failed == version) return true;
                const int e = choose(h, f);
                if (e >= 0) {
                    found = {h, e};
                    return false;
                }
                failed = version;
                return true;
            });
        }
        return found;
    }

    /** Adds (sign = +1) or removes (sign = -1) one VM of `f` placed by embedding `e` on host `h`. */
    void apply(int h, const FlavorPlan& f, int e, int sign) {
        if (best_fit_) buckets_[static_cast<std::size_t>(agg_[static_cast<std::size_t>(h)].tot_v)].erase(h);
        const Embedding& emb = f.embeddings[static_cast<std::size_t>(e)];
        for (int v = 0; v < f.k; ++v) {
            NodeFree& nf = free_[idx(h, emb.map[static_cast<std::size_t>(v)])];
            nf.v -= sign * f.node_vcpu;
            nf.r -= sign * f.node_ram;
        }
        refresh_aggregates(h);
        if (++version_[static_cast<std::size_t>(h)] == 0) version_[static_cast<std::size_t>(h)] = 1;  // 0 = "never failed"
        const HostAgg& a = agg_[static_cast<std::size_t>(h)];
        if (best_fit_) {
            buckets_[static_cast<std::size_t>(a.tot_v)].insert(h);
        } else {
            std::size_t x = static_cast<std::size_t>(leaves_ + h);
            seg_[x] = NodeFree{a.max_v, a.max_r};
            for (x /= 2; x >= 1; x /= 2) pull(x);
        }
    }

    /** vCPU and RAM (MiB) in use over all hosts. */
    std::pair<Amount, Amount> used() const {
        Amount v = 0, r = 0;
        for (const HostAgg& a : agg_) {
            v -= a.tot_v;
            r -= a.tot_r;
        }
        for (const NodeFree& c : cap_) {
            v += c.v * hosts_;
            r += c.r * hosts_;
        }
        return {v, r};
    }

private:
    struct NodeFree {
        Amount v, r;  // vCPU, MiB
    };
    struct HostAgg {
        Amount tot_v = 0, tot_r = 0, max_v = 0, max_r = 0;
    };
    /** Set of host indices: bitset plus a summary bitset of non-zero words; O(1) update, ordered scan. */
    class HostSet {
    public:
        explicit HostSet(int hosts) : words_((static_cast<std::size_t>(hosts) + 63) / 64, 0), summary_((words_.size() + 63) / 64, 0) {}
        bool empty() const { return count_ == 0; }
        void insert(int h) {
            const auto w = static_cast<std::size_t>(h) / 64;
            words_[w] |= std::uint64_t{1} << (h % 64);
            summary_[w / 64] |= std::uint64_t{1} << (w % 64);
            ++count_;
        }
        void erase(int h) {
            const auto w = static_cast<std::size_t>(h) / 64;
            words_[w] &= ~(std::uint64_t{1} << (h % 64));
            if (words_[w] == 0) summary_[w / 64] &= ~(std::uint64_t{1} << (w % 64));
            --count_;
        }
        /** Calls fn(h) for the members in increasing order while it returns true. */
        template <class Fn>
        void for_each(Fn&& fn) const {
            for (std::size_t s = 0; s < summary_.size(); ++s)
                for (std::uint64_t sw = summary_[s]; sw; sw &= sw - 1) {
                    const std::size_t w = s * 64 + static_cast<std::size_t>(std::countr_zero(sw));
                    for (std::uint64_t bits = words_[w]; bits; bits &= bits - 1)
                        if (!fn(static_cast<int>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits))))) return;
                }
        }

    private:
        std::vector<std::uint64_t> words_, summary_;
        int count_ = 0;
    };

    std::size_t idx(int h, int node) const {
        return static_cast<std::size_t>(h) * static_cast<std::size_t>(n_) + static_cast<std::size_t>(node);
    }

    void refresh_aggregates(int h) {
        HostAgg a;
        for (int i = 0; i < n_; ++i) {
            const NodeFree& nf = free_[idx(h, i)];
            a.tot_v += nf.v;
            a.tot_r += nf.r;
            a.max_v = std::max(a.max_v, nf.v);
            a.max_r = std::max(a.max_r, nf.r);
        }
        agg_[static_cast<std::size_t>(h)] = a;
    }

    void pull(std::size_t x) { seg_[x] = NodeFree{std::max(seg_[2 * x].v, seg_[2 * x + 1].v), std::max(seg_[2 * x].r, seg_[2 * x + 1].r)}; }

    /** Leftmost host in [lo, hi) under segment-tree node x with a feasible placement for f. */
    std::pair<int, int> first_fit(int x, int lo, int hi, FlavorPlan& f) const {
        const NodeFree& s = seg_[static_cast<std::size_t>(x)];
        if (lo >= hosts_ || s.v < f.node_vcpu || s.r < f.node_ram) return {-1, -1};
        if (hi - lo == 1) {
            std::uint32_t& failed = f.failed_at[static_cast<std::size_t>(lo)];
            const std::uint32_t version = version_[static_cast<std::size_t>(lo)];
            if (failed == version) return {-1, -1};
            const int e = choose(lo, f);
            if (e >= 0) return {lo, e};
            failed = version;
            return {-1, -1};
        }
        const int mid = (lo + hi) / 2;
        auto left = first_fit(2 * x, lo, mid, f);
        if (left.first >= 0) return left;
        return first_fit(2 * x + 1, mid, hi, f);
    }

    int n_;
    int hosts_;
    bool best_fit_;
    Amount host_cap_v_ = 0;
    std::vector<NodeFree> cap_;           // per node
    std::vector<NodeFree> free_;          // [host * n + node]
    std::vector<HostAgg> agg_;            // per host
    std::vector<std::uint32_t> version_;  // per host, bumped by every apply (>= 1)
    std::vector<HostSet> buckets_;        // best-fit: [free vCPU] -> hosts
    int leaves_ = 1;
    std::vector<NodeFree> seg_;  // first-fit: max over hosts of (max_v, max_r)
};

void validate_options(const SnapshotOptions& o) {
    const int n = o.host_type.num_nodes();
    if (n < 1) bad_option("host type '" + o.host_type.name + "' has no pNUMA nodes");
    if (o.host_type.node_capacity.size() != static_cast<std::size_t>(n) * kR)
        bad_option("host type '" + o.host_type.name + "' needs " + std::to_string(n * kR) +
                   " node capacities (vcpu, ram_mib per node), has " + std::to_string(o.host_type.node_capacity.size()));
    for (Amount c : o.host_type.node_capacity)
        if (c <= 0) bad_option("host type '" + o.host_type.name + "' has a node capacity <= 0");
    if (o.num_hosts < 1) bad_option("number of hosts must be >= 1, got " + std::to_string(o.num_hosts));
    if (!std::isfinite(o.time_s) || o.time_s < 0.0) bad_option("time must be finite and >= 0");
    if (o.placer != "best-fit" && o.placer != "first-fit") bad_option("placer must be best-fit or first-fit, got '" + o.placer + "'");
    if (o.hosts_per_rack < 1 || o.racks_per_pod < 1) bad_option("hosts per rack and racks per pod must be >= 1");
    if (!(o.sample > 0.0 && o.sample <= 1.0)) bad_option("sample must be in (0, 1]");
    if (o.targets != "multi-numa" && o.targets != "all") bad_option("targets must be multi-numa or all, got '" + o.targets + "'");
    if (!(o.rule.max_node_fraction > 0.0 && o.rule.max_node_fraction <= 1.0)) bad_option("max node fraction must be in (0, 1]");
    for (const auto& [name, w] : o.weights)
        if (!std::isfinite(w) || w < 0.0) bad_option("weight of '" + name + "' must be finite and >= 0");
    if (o.max_migrations < -1) bad_option("max migrations must be >= 0 (or -1 for 1% of the VMs)");
    if (o.max_migrated_ram_mib < -1) bad_option("max migrated RAM must be >= 0 (or -1 for unlimited)");
}

}  // namespace

Topology vnuma_topology_for(const HostType& host, const std::vector<Amount>& demand, const std::string& flavor_name,
                            const VnumaRule& rule) {
    const int n = host.num_nodes();
    const auto R = demand.size();
    const std::string who = "flavor '" + flavor_name + "' (demand " + demand_text(demand) + ") on host type '" + host.name + "'";
    if (R == 0 || n < 1 || host.node_capacity.size() != static_cast<std::size_t>(n) * R)
        throw InputError(who + ": host type has " + std::to_string(host.node_capacity.size()) + " node capacities, expected " +
                         std::to_string(n) + " nodes x " + std::to_string(R) + " resources");
    if (!(rule.max_node_fraction > 0.0 && rule.max_node_fraction <= 1.0)) throw InputError(who + ": max node fraction must be in (0, 1]");
    for (Amount d : demand)
        if (d < 0) throw InputError(who + ": negative demand");
    std::vector<Amount> cap(R, std::numeric_limits<Amount>::max());  // smallest node per resource
    for (int i = 0; i < n; ++i)
        for (std::size_t r = 0; r < R; ++r) cap[r] = std::min(cap[r], host.node_capacity[static_cast<std::size_t>(i) * R + r]);

    auto divisible = [&](int k) { return std::all_of(demand.begin(), demand.end(), [k](Amount d) { return d % k == 0; }); };
    auto fits = [&](int k, double fraction) {
        for (std::size_t r = 0; r < R; ++r)
            if (static_cast<double>(demand[r] / k) > fraction * static_cast<double>(cap[r])) return false;
        return true;
    };

    if (auto it = rule.overrides.find(flavor_name); it != rule.overrides.end()) {
        Topology t;
        try {
            t = parse_topology(it->second);
        } catch (const std::invalid_argument& e) {
            throw InputError(who + ": vNUMA override: " + e.what());
        }
        const int k = t.size();
        if (k > kMaxVNuma || !embeds(host.topology.graph, t.graph))
            throw InputError(who + ": vNUMA override " + t.name + " does not embed in host topology " + host.topology.name);
        if (!divisible(k)) throw InputError(who + ": vNUMA override " + t.name + ": demand not divisible by " + std::to_string(k));
        if (!fits(k, 1.0)) throw InputError(who + ": vNUMA override " + t.name + ": per-node demand exceeds a pNUMA node");
        return t;
    }

    std::vector<double> passes{rule.max_node_fraction};
    if (rule.max_node_fraction < 1.0) passes.push_back(1.0);
    for (double fraction : passes) {
        for (int k : {1, 2, 4}) {
            if (k > n || !divisible(k) || !fits(k, fraction)) continue;
            Topology t = parse_topology(k == 1 ? "K1" : k == 2 ? "K2" : "K4");
            if (k == 4 && !embeds(host.topology.graph, t.graph)) t = parse_topology("C4");
            if (!embeds(host.topology.graph, t.graph)) continue;
            return t;
        }
    }
    throw InputError(who +
                     ": no vNUMA split into 1, 2 or 4 nodes fits the pNUMA nodes; use a vNUMA override "
                     "or larger nodes");
}

HostType uniform_host_type(const std::string& topology_name, Amount node_vcpu, Amount node_ram_mib) {
    HostType t;
    try {
        t.topology = parse_topology(topology_name);
    } catch (const std::invalid_argument& e) {
        throw InputError(std::string("host type: ") + e.what());
    }
    if (node_vcpu <= 0 || node_ram_mib <= 0) throw InputError("host type: node capacities must be > 0");
    t.name = t.topology.name + "-" + std::to_string(node_vcpu) + "c" + gib_text(node_ram_mib) + "g";
    for (int i = 0; i < t.topology.size(); ++i) {
        t.node_capacity.push_back(node_vcpu);
        t.node_capacity.push_back(node_ram_mib);
    }
    return t;
}

Problem replay_snapshot(const std::vector<TraceVm>& trace, const SnapshotOptions& options, ReplayStats* stats) {
    validate_options(options);
    const HostType& type = options.host_type;
    const int H = options.num_hosts;

    // Catalogue of flavor names (whole trace), checked for consistent sizes; ids in first-seen order.
    std::map<std::string, int> flavor_id;
    std::vector<FlavorPlan> plans;
    std::vector<int> vm_flavor(trace.size());
    for (std::size_t i = 0; i < trace.size(); ++i) {
        const TraceVm& vm = trace[i];
        auto fail = [&](const std::string& what) {
            throw InputError("replay: trace VM " + std::to_string(i) + " ('" + vm.flavor_name + "'): " + what);
        };
        if (i > 0 && vm.arrival_s < trace[i - 1].arrival_s) fail("trace is not sorted by arrival");
        if (!std::isfinite(vm.arrival_s) || !(vm.departure_s >= vm.arrival_s)) fail("arrival must be finite and departure >= arrival");
        if (vm.vcpu <= 0 || vm.ram_mib <= 0) fail("vCPU and RAM must be > 0");
        auto [it, inserted] = flavor_id.emplace(vm.flavor_name, static_cast<int>(plans.size()));
        if (inserted) {
            FlavorPlan p;
            p.name = vm.flavor_name;
            p.vcpu = vm.vcpu;
            p.ram = vm.ram_mib;
            plans.push_back(std::move(p));
        } else if (plans[static_cast<std::size_t>(it->second)].vcpu != vm.vcpu ||
                   plans[static_cast<std::size_t>(it->second)].ram != vm.ram_mib) {
            fail("flavor name used with two different sizes");
        }
        vm_flavor[i] = it->second;
    }
    for (const auto& [name, topo] : options.rule.overrides)
        if (!flavor_id.contains(name)) throw InputError("replay: vNUMA override names flavor '" + name + "', absent from the trace");
    for (const auto& [name, w] : options.weights)
        if (!flavor_id.contains(name)) throw InputError("replay: weight names flavor '" + name + "', absent from the trace");

    auto prepare = [&](FlavorPlan& p) {
        if (p.ready) return;
        p.vnuma = vnuma_topology_for(type, {p.vcpu, p.ram}, p.name, options.rule);
        p.k = p.vnuma.size();
        p.node_vcpu = p.vcpu / p.k;
        p.node_ram = p.ram / p.k;
        p.embeddings = enumerate_embeddings(type.topology.graph, p.vnuma.graph);
        p.ready = true;
    };

    const double origin = trace.empty() ? 0.0 : trace.front().arrival_s;
    const double stop = origin + options.time_s;
    const bool best_fit = options.placer == "best-fit";
    ClusterState state(type, H, best_fit);

    struct Placement {
        int host = -1;
        int embedding = -1;
    };
    std::vector<Placement> placement(trace.size());
    using Departure = std::pair<double, std::size_t>;  // (time, trace index): a total order -> deterministic
    std::priority_queue<Departure, std::vector<Departure>, std::greater<>> departures;
    ReplayStats st;
    st.first_arrival_s = origin;
    st.stop_s = stop;
    std::int64_t alive = 0;

    auto depart_until = [&](double t) {
        while (!departures.empty() && departures.top().first <= t) {
            const std::size_t i = departures.top().second;
            departures.pop();
            FlavorPlan& f = plans[static_cast<std::size_t>(vm_flavor[i])];
            const int h = placement[i].host;
            state.apply(h, f, placement[i].embedding, -1);
            placement[i] = Placement{};
            --alive;
            ++st.departed;
            for (FlavorPlan& g : plans)  // capacity only grows on a departure: unblock flavors that fit now
                if (g.blocked && state.choose(h, g) >= 0) g.blocked = false;
        }
    };

    std::mt19937_64 sampler(mix_seed(options.seed));
    for (std::size_t i = 0; i < trace.size(); ++i) {
        const TraceVm& vm = trace[i];
        if (vm.arrival_s > stop) break;
        if (options.sample < 1.0 && static_cast<double>(sampler() >> 11) * 0x1.0p-53 >= options.sample) continue;
        depart_until(vm.arrival_s);
        ++st.arrivals;
        FlavorPlan& f = plans[static_cast<std::size_t>(vm_flavor[i])];
        prepare(f);
        std::pair<int, int> where{-1, -1};
        if (!f.blocked) where = state.find(f);
        if (where.first < 0) {
            f.blocked = true;  // no host fits; stays so until a departure frees a host that fits
            ++st.rejected;
            ++st.rejected_by_flavor[f.name];
            continue;
        }
        state.apply(where.first, f, where.second, +1);
        placement[i] = Placement{where.first, where.second};
        ++st.placed;
        ++alive;
        st.peak_alive = std::max(st.peak_alive, alive);
        if (vm.departure_s != std::numeric_limits<double>::infinity()) departures.emplace(vm.departure_s, i);
    }
    depart_until(stop);
    st.alive_at_end = alive;

    // --- Build the problem from the VMs alive at the stop time.
    Problem problem;
    problem.resources = {"vcpu", "ram_mib"};
    problem.host_types = {type};
    problem.source = options.source;
    for (int h = 0; h < H; ++h) {
        Host host;
        host.id = padded('h', h + 1, 5);
        host.type = 0;
        const int rack = h / options.hosts_per_rack;
        host.rack = padded('r', rack + 1, 4);
        host.pod = padded('p', rack / options.racks_per_pod + 1, 3);
        problem.hosts.push_back(std::move(host));
    }

    std::vector<int> alive_flavors;  // plan ids with at least one alive VM
    {
        std::vector<char> seen(plans.size(), 0);
        for (std::size_t i = 0; i < trace.size(); ++i)
            if (placement[i].host >= 0 && !seen[static_cast<std::size_t>(vm_flavor[i])]) {
                seen[static_cast<std::size_t>(vm_flavor[i])] = 1;
                alive_flavors.push_back(vm_flavor[i]);
            }
    }
    std::sort(alive_flavors.begin(), alive_flavors.end(), [&](int a, int b) {
        const FlavorPlan& x = plans[static_cast<std::size_t>(a)];
        const FlavorPlan& y = plans[static_cast<std::size_t>(b)];
        return std::tie(x.vcpu, x.ram, x.name) < std::tie(y.vcpu, y.ram, y.name);
    });
    std::vector<int> problem_flavor(plans.size(), -1);
    bool any_multi = false;
    for (int pid : alive_flavors) {
        const FlavorPlan& p = plans[static_cast<std::size_t>(pid)];
        Flavor f;
        f.name = p.name;
        f.demand = {p.vcpu, p.ram};
        f.node_demand = {p.node_vcpu, p.node_ram};
        f.vnuma = p.vnuma;
        if (options.targets == "all")
            f.weight = 1.0;
        else
            f.weight = p.k >= 2 ? 1.0 : 0.0;
        any_multi = any_multi || p.k >= 2;
        problem_flavor[static_cast<std::size_t>(pid)] = static_cast<int>(problem.flavors.size());
        problem.flavors.push_back(std::move(f));
    }
    if (options.targets == "multi-numa" && !any_multi && !problem.flavors.empty())
        problem.flavors.back().weight = 1.0;  // largest by vCPU, then RAM
    for (Flavor& f : problem.flavors)
        if (auto it = options.weights.find(f.name); it != options.weights.end()) f.weight = it->second;

    Amount used_v = 0, used_r = 0;
    for (std::size_t i = 0; i < trace.size(); ++i) {
        if (placement[i].host < 0) continue;
        const FlavorPlan& p = plans[static_cast<std::size_t>(vm_flavor[i])];
        Vm vm;
        vm.id = "vm" + std::to_string(i);
        vm.flavor = problem_flavor[static_cast<std::size_t>(vm_flavor[i])];
        vm.host = placement[i].host;
        const Embedding& emb = p.embeddings[static_cast<std::size_t>(placement[i].embedding)];
        for (int v = 0; v < p.k; ++v) vm.pnuma[static_cast<std::size_t>(v)] = emb.map[static_cast<std::size_t>(v)];
        vm.migratable = true;
        problem.vms.push_back(std::move(vm));
        st.vm_trace_index.push_back(i);
        used_v += p.vcpu;
        used_r += p.ram;
    }
    if (std::pair<Amount, Amount>{used_v, used_r} != state.used())
        throw std::logic_error("replay: placer bookkeeping differs from the alive VMs");  // internal self-check

    const auto nvm = static_cast<std::int64_t>(problem.vms.size());
    problem.constraints.max_migrations = options.max_migrations >= 0 ? options.max_migrations : (nvm + 99) / 100;
    problem.constraints.max_migrated_ram_mib =
        options.max_migrated_ram_mib >= 0 ? options.max_migrated_ram_mib : std::numeric_limits<Amount>::max();

    Amount cap_v = 0, cap_r = 0;
    for (int i = 0; i < type.num_nodes(); ++i) {
        cap_v += type.node_capacity[static_cast<std::size_t>(i * kR + kVcpu)];
        cap_r += type.node_capacity[static_cast<std::size_t>(i * kR + kRamMib)];
    }
    st.used_vcpu_fraction = static_cast<double>(used_v) / (static_cast<double>(cap_v) * H);
    st.used_ram_fraction = static_cast<double>(used_r) / (static_cast<double>(cap_r) * H);

    finalize_problem(problem, "<replay>");
    if (stats) *stats = std::move(st);
    return problem;
}

}  // namespace vmcap
