// Admission (placement/admission.h, `vmcap place`): every strategy's placements pass the
// snapshot loader's from-scratch checks and an independent recount of every pNUMA node; a request
// is placed whole or not at all (all or nothing); a single VM is refused only when its flavor fits
// on no host at the end (the placers are complete and placements only take room); the stream stops
// at the first failure when asked; bad request files name the field.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>
#include <random>
#include <string>
#include <tuple>

#include "evaluators/network/network_load.h"
#include "instances/generator.h"
#include "instances/requests.h"
#include "instances/snapshot_io.h"
#include "optimizer/solvers/make_room.h"
#include "placement/admission.h"
#include "placement/placer.h"
#include "tests/cli_run.h"

namespace vmcap {
namespace {

Problem small_cluster() {
    GenerateOptions o;
    o.hosts = 30;
    o.vms = 200;
    o.seed = 4;
    return generate_cluster(o);
}

/** prefix + i (built in place: GCC 12 warns falsely about operator+ on a temporary here). */
std::string named(const char* prefix, int i) {
    std::string s = prefix;
    s += std::to_string(i);
    return s;
}

/** `count` requests of the cluster's flavors, every 7th a VDC of 2-3 VMs. */
nlohmann::json random_requests(const Problem& p, int count, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    nlohmann::json reqs = nlohmann::json::array();
    auto flavor = [&] { return p.flavors[rng() % p.flavors.size()].name; };
    for (int i = 0; i < count; ++i) {
        if (i % 7 == 6) {
            nlohmann::json vms = nlohmann::json::array();
            const int n = 2 + static_cast<int>(rng() % 2);
            for (int k = 0; k < n; ++k) vms.push_back({{"id", named("v", k)}, {"flavor", flavor()}});
            reqs.push_back({{"id", named("vdc", i)}, {"vms", vms}});
        } else {
            reqs.push_back({{"id", named("r", i)}, {"flavor", flavor()}});
        }
    }
    return {{"requests", reqs}};
}

/** Does flavor f fit on some host of p (free amounts recounted from the VMs)? */
bool fits_somewhere(const Problem& p, int f) {
    const int R = p.num_resources();
    const Flavor& fl = p.flavors[static_cast<std::size_t>(f)];
    for (std::size_t h = 0; h < p.hosts.size(); ++h) {
        const HostType& ht = p.host_types[static_cast<std::size_t>(p.hosts[h].type)];
        std::vector<Amount> free = ht.node_capacity;
        for (const Vm& vm : p.vms)
            if (vm.host == static_cast<int>(h))
                for (int i = 0; i < p.flavors[static_cast<std::size_t>(vm.flavor)].num_vnuma(); ++i)
                    for (int r = 0; r < R; ++r) free[static_cast<std::size_t>(vm.pnuma[i] * R + r)] -= p.flavors[vm.flavor].node_demand[r];
        // Any set of distinct nodes joined as the vNUMA topology needs: enumerate injective maps.
        const int n = ht.num_nodes(), k = fl.num_vnuma();
        std::vector<int> map(static_cast<std::size_t>(k), 0);
        std::function<bool(int)> go = [&](int d) -> bool {
            if (d == k) {
                for (int a = 0; a < k; ++a)
                    for (int b = a + 1; b < k; ++b)
                        if (fl.vnuma.graph.has_edge(a, b) && !ht.topology.graph.has_edge(map[a], map[b])) return false;
                return true;
            }
            for (int i = 0; i < n; ++i) {
                bool used = false;
                for (int e = 0; e < d; ++e) used = used || map[e] == i;
                bool room = true;
                for (int r = 0; r < R; ++r) room = room && free[static_cast<std::size_t>(i * R + r)] >= fl.node_demand[r];
                if (used || !room) continue;
                map[d] = i;
                if (go(d + 1)) return true;
            }
            return false;
        };
        if (go(0)) return true;
    }
    return false;
}

TEST(Admission, EveryStrategyPlacesFeasiblyWholeOrNotAndRefusesOnlyWhatFitsNowhere) {
    const Problem cluster = small_cluster();
    const nlohmann::json doc = random_requests(cluster, 600, 9);
    const std::vector<Request> requests = parse_requests(doc, "<requests>");
    for (const PlacerInfo& info : registered_placers()) {
        for (int batch : {1, 16}) {                 // single-VM requests alone, or ordered 16 at a time (Placer::order)
            if (info.name == "link-fit") continue;  // a VDC placer: its rule is tested with links below
            const std::string strategy = std::string(info.name) + " batch " + std::to_string(batch);
            SCOPED_TRACE(strategy);
            AdmissionOptions o;
            o.strategy = std::string(info.name);
            o.batch = batch;
            const AdmissionResult res = admit_requests(cluster, requests, o, "<requests>");
            // The loader's from-scratch checks (capacity, embeddings) on the written form.
            const Problem back = parse_snapshot(nlohmann::json::parse(snapshot_to_json(res.problem).dump()), "<placed>");
            ASSERT_EQ(back.vms.size(), res.problem.vms.size()) << strategy;
            // An independent recount of every pNUMA node.
            const int R = back.num_resources();
            for (std::size_t h = 0; h < back.hosts.size(); ++h) {
                std::vector<Amount> used(back.host_types[static_cast<std::size_t>(back.hosts[h].type)].node_capacity.size(), 0);
                for (const Vm& vm : back.vms)
                    if (vm.host == static_cast<int>(h))
                        for (int i = 0; i < back.flavors[vm.flavor].num_vnuma(); ++i)
                            for (int r = 0; r < R; ++r)
                                used[static_cast<std::size_t>(vm.pnuma[i] * R + r)] += back.flavors[vm.flavor].node_demand[r];
                for (std::size_t a = 0; a < used.size(); ++a)
                    ASSERT_LE(used[a], back.host_types[back.hosts[h].type].node_capacity[a]) << strategy << " host " << h;
            }
            int accepted = 0, rejected = 0;
            std::int64_t vms = 0;
            for (std::size_t i = 0; i < requests.size(); ++i) {
                const RequestOutcome& out = res.outcomes[i];
                ASSERT_TRUE(out.offered);
                ASSERT_TRUE(out.placed == 0 || out.placed == out.vms) << strategy << " " << out.id << ": all or nothing";
                (out.accepted ? accepted : rejected) += 1;
                vms += out.placed;
                if (!out.accepted) {
                    EXPECT_FALSE(out.reason.empty());
                    if (!requests[i].vdc) {
                        int f = 0;
                        while (back.flavors[static_cast<std::size_t>(f)].name != requests[i].vms[0].flavor) ++f;
                        EXPECT_FALSE(fits_somewhere(back, f)) << strategy << " refused " << out.id << " though its flavor fits at the end";
                    }
                }
            }
            EXPECT_EQ(accepted, res.accepted);
            EXPECT_EQ(rejected, res.rejected);
            EXPECT_GT(accepted, 0) << strategy;
            EXPECT_GT(rejected, 0) << strategy << ": the stream should fill the cluster";
            EXPECT_EQ(vms, res.vms_placed);
            EXPECT_EQ(res.problem.vms.size(), cluster.vms.size() + static_cast<std::size_t>(vms));
        }
    }
}

TEST(Admission, StopsAtTheFirstFailureAndBestEffortPlacesVdcsInPart) {
    const Problem cluster = small_cluster();
    const std::vector<Request> requests = parse_requests(random_requests(cluster, 600, 10), "<requests>");
    AdmissionOptions stop;
    stop.stop_at_first_failure = true;
    const AdmissionResult a = admit_requests(cluster, requests, stop, "<requests>");
    ASSERT_TRUE(a.stopped());
    EXPECT_EQ(a.rejected, 1);
    std::size_t first = 0;
    while (a.outcomes[first].accepted) ++first;
    for (std::size_t i = first + 1; i < requests.size(); ++i) EXPECT_FALSE(a.outcomes[i].offered) << i;
    AdmissionOptions partial;
    partial.all_or_nothing = false;
    const AdmissionResult b = admit_requests(cluster, requests, partial, "<requests>");
    bool some_partial = false;
    for (const RequestOutcome& o : b.outcomes) some_partial = some_partial || (o.placed > 0 && o.placed < o.vms);
    EXPECT_TRUE(some_partial) << "best effort should place some VDC in part on a full cluster";
}

// An interrupt (the stop flag) or the time limit ends the stream before the next request: those
// after it are not offered, the result says why, and what was placed stays (checked by the loader).
TEST(Admission, AnInterruptOrTheTimeLimitStopsOfferingAndSaysWhy) {
    const Problem cluster = small_cluster();
    const std::vector<Request> requests = parse_requests(random_requests(cluster, 200, 11), "<requests>");
    AdmissionOptions o;
    std::atomic<bool> stop{true};
    o.stop = &stop;
    const AdmissionResult a = admit_requests(cluster, requests, o, "<requests>");
    EXPECT_TRUE(a.stopped());
    EXPECT_EQ(a.stopped_by, StopReason::Interrupted);
    for (const RequestOutcome& r : a.outcomes) EXPECT_FALSE(r.offered);
    EXPECT_EQ(a.problem.vms.size(), cluster.vms.size());
    stop = false;
    const AdmissionResult all = admit_requests(cluster, requests, o, "<requests>");
    EXPECT_FALSE(all.stopped());
    EXPECT_EQ(all.stopped_by, StopReason::Complete);
    o.time_limit_s = 1e-12;  // over before the first request
    const AdmissionResult t = admit_requests(cluster, requests, o, "<requests>");
    EXPECT_EQ(t.stopped_by, StopReason::TimeLimit);
    EXPECT_EQ(t.accepted + t.rejected, 0);
    AdmissionOptions first;
    first.stop_at_first_failure = true;
    const AdmissionResult f = admit_requests(cluster, parse_requests(random_requests(cluster, 600, 10), "<requests>"), first, "<requests>");
    EXPECT_EQ(f.stopped_by, StopReason::FirstFailure);
}

/** Every arc's load (micro-units) of p's VMs where they stand, from scratch over every vlink. */
std::vector<std::int64_t> loads_of(const Problem& p) {
    std::vector<int> host;
    for (const Vm& vm : p.vms) host.push_back(vm.host);
    return link_loads(p, NetworkRoutes(p), host);
}

/** `result` through the loader, then every arc's load from scratch: within its capacity or at most
 *  `before` (the cluster's own load there). Returns the highest load / capacity. */
double within_links(const Problem& result, const std::vector<std::int64_t>& before, const std::string& what) {
    const Problem back = parse_snapshot(nlohmann::json::parse(snapshot_to_json(result).dump()), "<placed>");
    const NetworkRoutes routes(back);
    const std::vector<std::int64_t> load = loads_of(back);
    double most = 0.0;
    for (int l = 0; l < routes.num_links(); ++l) {
        EXPECT_LE(load[l], std::max(routes.capacity(l), before[l])) << what << " " << routes.link_name(l);
        most = std::max(most, static_cast<double>(load[l]) / static_cast<double>(routes.capacity(l)));
    }
    return most;
}

// VDCs with vlinks on a leaf-spine cluster: every strategy places them all or nothing, and every
// link's load, recomputed from scratch over every vlink (the path of `vmcap validate`), stays within
// its capacity or at most the cluster's own load on it.
TEST(Admission, LinkFitKeepsEveryLinkWithinCapacity) {
    const std::string snap = (test::tmp_dir() / "admission-net.json").string();
    ASSERT_EQ(test::run_vmcap("generate --hosts 40 --vms 300 --seed 3 --network leaf-spine --vdc-size 3 --out " + snap).code, 0);
    const Problem cluster = load_snapshot(snap);
    std::mt19937_64 rng(5);
    nlohmann::json reqs = nlohmann::json::array();
    for (int i = 0; i < 300; ++i) {
        auto flavor = [&] { return cluster.flavors[rng() % cluster.flavors.size()].name; };
        if (i % 3 != 0) {
            reqs.push_back({{"id", named("t", i)}, {"flavor", flavor()}});
            continue;
        }
        nlohmann::json vms = nlohmann::json::array();
        for (int k = 0; k < 3; ++k) vms.push_back({{"id", named("v", k)}, {"flavor", flavor()}});
        const std::int64_t bw[] = {100, 2000, 20000};
        reqs.push_back({{"id", named("t", i)},
                        {"vms", vms},
                        {"vlinks", nlohmann::json::array({{{"a", "v0"}, {"b", "v1"}, {"bandwidth_mbps", bw[rng() % 3]}},
                                                          {{"a", "v1"}, {"b", "v2"}, {"bandwidth_mbps", bw[rng() % 3]}}})}});
    }
    const std::vector<Request> requests = parse_requests({{"requests", reqs}}, "<requests>");
    const std::vector<std::int64_t> before = loads_of(cluster);
    // The capacity strategies rank every candidate and take the first every rule admits.
    for (const char* strategy : {"first-fit", "best-fit", "vmcap-fit"}) {
        AdmissionOptions c;
        c.strategy = strategy;
        const AdmissionResult r = admit_requests(cluster, requests, c, "<requests>");
        EXPECT_GT(r.accepted, 0) << strategy;
        within_links(r.problem, before, strategy);
        std::printf("%s with links: %d of %zu requests placed\n", strategy, r.accepted, requests.size());
    }
    AdmissionOptions o;
    o.strategy = "link-fit";
    const AdmissionResult res = admit_requests(cluster, requests, o, "<requests>");
    EXPECT_GT(res.accepted, 0);
    EXPECT_GT(res.rejected, 0);
    EXPECT_GT(res.mbps_placed, 0);
    for (const RequestOutcome& out : res.outcomes) ASSERT_TRUE(out.placed == 0 || out.placed == out.vms) << out.id;
    const double most = within_links(res.problem, before, "link-fit");
    std::printf("link-fit: %d of %zu requests placed, most utilised link %.0f%%\n", res.accepted, requests.size(), 100.0 * most);
    EXPECT_GT(most, 0.9) << "the requests should load some link close to its capacity (else the check is idle)";
    // With room-making: the migrations keep every link within capacity too.
    o.migrations_per_request = 2;
    const AdmissionResult mig = admit_requests(cluster, requests, o, "<requests>", make_room);
    within_links(mig.problem, before, "link-fit after migrations");
    std::printf("with at most 2 migrations per request: %d placed, %lld migrations\n", mig.accepted,
                static_cast<long long>(mig.migrations));
    EXPECT_GT(mig.migrations, 0);
}

// --migrations-per-request: four dual-node hosts, each with a 4-vCPU VM on node 1, and three
// requests for a flavor that needs a whole host (16 vCPU over both nodes). None fits as the
// cluster is; one live migration each (a small VM onto another host's free node) makes room for
// all three. With a budget of 0 nothing moves. The result passes the loader's checks.
TEST(Admission, MigrationsMakeRoomWithinTheBudget) {
    const Problem cluster = load_snapshot(VMCAP_SOURCE_DIR "/tests/bad_inputs/valid_snapshot.json");
    const std::vector<Request> requests =
        parse_requests(nlohmann::json::parse(R"({"requests": [{"id": "n1", "flavor": "big"}, {"id": "n2", "flavor": "big"},
                                                               {"id": "n3", "flavor": "big"}]})"),
                       "<requests>");
    AdmissionOptions o;
    EXPECT_EQ(admit_requests(cluster, requests, o, "<requests>", make_room).accepted, 0) << "no room-making without a budget";
    o.migrations_per_request = 1;
    EXPECT_EQ(admit_requests(cluster, requests, o, "<requests>").accepted, 0) << "no room-making without a MakeRoom";
    const AdmissionResult r = admit_requests(cluster, requests, o, "<requests>", make_room);
    EXPECT_EQ(r.accepted, 3);
    EXPECT_EQ(r.admitted_by_migrations, 3);
    EXPECT_EQ(r.migrations, 3);
    for (const RequestOutcome& out : r.outcomes) EXPECT_LE(out.migrations, 1) << out.id;
    const Problem back = parse_snapshot(nlohmann::json::parse(snapshot_to_json(r.problem).dump()), "<placed>");
    int moved = 0;
    for (std::size_t v = 0; v < cluster.vms.size(); ++v) moved += back.vms[v].host != cluster.vms[v].host ? 1 : 0;
    EXPECT_EQ(moved, 3) << "the cluster's VMs stand where the migrations took them";
}

// On a filled random cluster: never more migrations per request than asked, some requests admitted
// only by them, and every placement still passes the loader.
TEST(Admission, MigrationsPerRequestStayWithinKOnAFullCluster) {
    const Problem cluster = small_cluster();
    const std::vector<Request> requests = parse_requests(random_requests(cluster, 400, 12), "<requests>");
    AdmissionOptions o;
    o.migrations_per_request = 2;
    const AdmissionResult r = admit_requests(cluster, requests, o, "<requests>", make_room);
    EXPECT_GT(r.admitted_by_migrations, 0);
    for (const RequestOutcome& out : r.outcomes) ASSERT_LE(out.migrations, 2) << out.id;
    EXPECT_NO_THROW(parse_snapshot(nlohmann::json::parse(snapshot_to_json(r.problem).dump()), "<placed>"));
    const AdmissionResult without = admit_requests(cluster, requests, AdmissionOptions{}, "<requests>");
    std::printf(
        "400 requests on 30 hosts: %d placed without migrations, %d with at most 2 per request (%lld migrations, %d admitted by them)\n",
        without.accepted, r.accepted, static_cast<long long>(r.migrations), r.admitted_by_migrations);
}

// All or nothing with room-making: a VDC of two whole-host VMs on the 4-host snapshot needs two
// hosts emptied; with a budget of 1 it stays out and the one migration tried is taken back (the
// cluster unchanged); with 2 it is admitted.
TEST(Admission, VdcRoomIsMadeOrTheMigrationsAreTakenBack) {
    const Problem cluster = load_snapshot(VMCAP_SOURCE_DIR "/tests/bad_inputs/valid_snapshot.json");
    const std::vector<Request> requests = parse_requests(
        nlohmann::json::parse(R"({"requests": [{"id": "d", "vms": [{"id": "x", "flavor": "big"}, {"id": "y", "flavor": "big"}]}]})"),
        "<requests>");
    AdmissionOptions o;
    o.migrations_per_request = 1;
    const AdmissionResult one = admit_requests(cluster, requests, o, "<requests>", make_room);
    EXPECT_EQ(one.accepted, 0);
    EXPECT_EQ(one.migrations, 0);
    for (std::size_t v = 0; v < cluster.vms.size(); ++v) EXPECT_EQ(one.problem.vms[v].host, cluster.vms[v].host) << "taken back";
    o.migrations_per_request = 2;
    const AdmissionResult two = admit_requests(cluster, requests, o, "<requests>", make_room);
    EXPECT_EQ(two.accepted, 1);
    EXPECT_EQ(two.migrations, 2);
    EXPECT_NO_THROW(parse_snapshot(nlohmann::json::parse(snapshot_to_json(two.problem).dump()), "<placed>"));
}

/** Free vCPU and RAM per host of a cluster of single-node hosts, recounted from its VMs. */
std::vector<std::pair<Amount, Amount>> free_single_node(const Problem& p, const std::vector<int>& host_of) {
    std::vector<std::pair<Amount, Amount>> free;
    for (const Host& h : p.hosts) {
        const HostType& ht = p.host_types[static_cast<std::size_t>(h.type)];
        free.emplace_back(ht.node_capacity[kVcpu], ht.node_capacity[kRamMib]);
    }
    for (std::size_t v = 0; v < p.vms.size(); ++v) {
        const Flavor& f = p.flavors[static_cast<std::size_t>(p.vms[v].flavor)];
        free[static_cast<std::size_t>(host_of[v])].first -= f.node_demand[kVcpu];
        free[static_cast<std::size_t>(host_of[v])].second -= f.node_demand[kRamMib];
    }
    return free;
}

// `vmcap place --make-room-second copies` (MakeRoomOptions::second_only_for_copies, the preset's
// value): a request that only two live migrations make room for is turned away, the cluster
// unchanged; with `always` (the default) the same request is admitted by two. Three single-node
// hosts of 8 vCPU and 32 GiB: 6c on h1, 4c and 2c on h2, 4c on h3; the request 8c (make_room's
// TwoStepsOffOneHostOrAChain). The brute-force oracle: no single migration (any VM, any host it
// fits on) leaves a host with 8 free vCPU and 32 GiB.
TEST(Admission, PlaceTurnsAwayWhatOnlyTwoMigrationsAdmitWithMakeRoomSecondCopies) {
    const std::string c = (test::tmp_dir() / "second-cluster.json").string(), r = (test::tmp_dir() / "second-requests.json").string();
    write_file_atomic(c, R"({"format": "vmcap-snapshot/1",
 "host_types": [{"name": "k1", "topology": "K1", "node_capacity": {"vcpu": 8, "ram_mib": 32768}}],
 "hosts": [{"id": "h1", "type": "k1"}, {"id": "h2", "type": "k1"}, {"id": "h3", "type": "k1"}],
 "flavors": [{"name": "2c", "vcpu": 2, "ram_mib": 8192}, {"name": "4c", "vcpu": 4, "ram_mib": 16384},
             {"name": "6c", "vcpu": 6, "ram_mib": 24576}, {"name": "8c", "vcpu": 8, "ram_mib": 32768}],
 "vms": [{"id": "a", "flavor": "6c", "host": "h1", "pnuma": [1]}, {"id": "b", "flavor": "4c", "host": "h2", "pnuma": [1]},
         {"id": "c", "flavor": "2c", "host": "h2", "pnuma": [1]}, {"id": "d", "flavor": "4c", "host": "h3", "pnuma": [1]}]})");
    write_file_atomic(r, R"({"requests": [{"id": "r", "flavor": "8c"}]})");
    const Problem cluster = load_snapshot(c);
    const Flavor& want = cluster.flavors[3];
    std::vector<int> host_of;
    for (const Vm& vm : cluster.vms) host_of.push_back(vm.host);
    const auto room = [&](const std::vector<int>& at) {
        for (const auto& [vcpu, ram] : free_single_node(cluster, at))
            if (vcpu >= want.node_demand[kVcpu] && ram >= want.node_demand[kRamMib]) return true;
        return false;
    };
    ASSERT_FALSE(room(host_of)) << "the request fits as the cluster is: the case says nothing";
    for (std::size_t v = 0; v < cluster.vms.size(); ++v)
        for (int d = 0; d < static_cast<int>(cluster.hosts.size()); ++d) {
            if (d == host_of[v]) continue;
            const Flavor& f = cluster.flavors[static_cast<std::size_t>(cluster.vms[v].flavor)];
            const auto free = free_single_node(cluster, host_of)[static_cast<std::size_t>(d)];
            if (free.first < f.node_demand[kVcpu] || free.second < f.node_demand[kRamMib]) continue;
            std::vector<int> at = host_of;
            at[v] = d;
            ASSERT_FALSE(room(at)) << "one migration makes room: VM " << cluster.vms[v].id << " to " << cluster.hosts[d].id;
        }
    const auto place = [&](const std::string& extra, const std::string& name) {
        const std::string out = (test::tmp_dir() / (name + ".json")).string(), log = (test::tmp_dir() / (name + ".jsonl")).string();
        const test::CmdResult res =
            test::run_vmcap("place --cluster " + c + " --requests " + r + " --out " + out + " --log " + log + " " + extra);
        EXPECT_EQ(res.code, 0) << extra << ": " << res.err;
        return std::make_tuple(res, nlohmann::json::parse(read_text_file(log)), res.code == 0 ? load_snapshot(out) : Problem{});
    };
    {  // always: two migrations admit it
        const auto [res, line, out] = place("--migrations-per-request 2", "second-always");
        EXPECT_EQ(line["accepted"], true) << res.out;
        ASSERT_TRUE(line.contains("migrations")) << line.dump();
        EXPECT_EQ(line["migrations"].size(), 2u) << line.dump();
        EXPECT_NE(res.out.find("2 live migrations made room for 1 requests"), std::string::npos) << res.out;
    }
    for (const std::string& extra : {std::string("--make-room-second copies"),
                                     std::string("--make-room-second copies --make-room-copies 1"), std::string("--preset recommended")}) {
        const auto [res, line, out] = place("--migrations-per-request 2 " + extra, "second-copies");
        EXPECT_EQ(line["accepted"], false) << extra << ": " << res.out;
        EXPECT_FALSE(line.contains("migrations")) << extra << ": " << line.dump();
        EXPECT_NE(res.out.find("placed 0 of 1 requests offered"), std::string::npos) << extra << ": " << res.out;
        EXPECT_NE(res.out.find("0 live migrations made room for 0 requests"), std::string::npos) << extra << ": " << res.out;
        ASSERT_EQ(out.vms.size(), cluster.vms.size()) << extra;
        for (std::size_t v = 0; v < cluster.vms.size(); ++v) EXPECT_EQ(out.vms[v].host, cluster.vms[v].host) << extra << ": unchanged";
    }
}

/** Where every VM stands: id -> (host id, 1-based pNUMA nodes). */
using Where = std::map<std::string, std::pair<std::string, std::vector<int>>>;

/**
 * The `vmcap place --log` lines replayed on `cluster` by step, on their own (no vmcap code but the
 * snapshot loader for the input): a placement adds its VM, a migration must find its VM at its
 * `from` and moves it to its `to`; after every step each pNUMA node holds at most its capacity.
 * Returns the placement reached; a failed check is a test failure.
 */
Where replay_place_log(const Problem& cluster, const std::vector<nlohmann::json>& lines, const std::vector<Request>& requests) {
    Where at;
    for (const Vm& vm : cluster.vms) {
        std::vector<int> nodes;
        for (int i = 0; i < cluster.flavors[static_cast<std::size_t>(vm.flavor)].num_vnuma(); ++i) nodes.push_back(vm.pnuma[i] + 1);
        at[vm.id] = {cluster.hosts[static_cast<std::size_t>(vm.host)].id, nodes};
    }
    std::map<std::string, std::string> flavor_of;  // VM id -> flavor name
    for (const Vm& vm : cluster.vms) flavor_of[vm.id] = cluster.flavors[static_cast<std::size_t>(vm.flavor)].name;
    struct Event {
        std::string vm;
        bool migration;
        std::string from_host, to_host;
        std::vector<int> from, to;
    };
    std::map<std::int64_t, Event> events;
    EXPECT_EQ(lines.size(), requests.size());
    for (std::size_t i = 0; i < lines.size() && i < requests.size(); ++i) {
        const nlohmann::json& l = lines[i];
        const Request& r = requests[i];
        EXPECT_EQ(l["request"], r.id);
        if (l.contains("placements"))
            for (std::size_t k = 0; k < l["placements"].size(); ++k) {
                const nlohmann::json& pl = l["placements"][k];
                const std::string id = r.vdc ? r.id + "/" + r.vms[k].id : r.id;
                flavor_of[id] = r.vms[k].flavor;
                if (!pl.contains("host")) continue;
                EXPECT_TRUE(events.emplace(pl["step"].get<std::int64_t>(), Event{id, false, "", pl["host"], {}, pl["pnuma"]}).second)
                    << "step " << pl["step"] << " twice";
            }
        std::int64_t last = 0;
        if (l.contains("migrations"))
            for (const nlohmann::json& m : l["migrations"]) {
                EXPECT_GT(m["step"].get<std::int64_t>(), last) << "a request's migrations in the order they were made";
                last = m["step"].get<std::int64_t>();
                EXPECT_TRUE(events
                                .emplace(m["step"].get<std::int64_t>(),
                                         Event{m["vm"], true, m["from_host"], m["to_host"], m["from_pnuma"], m["to_pnuma"]})
                                .second)
                    << "step " << m["step"] << " twice";
            }
    }
    std::int64_t expected_step = 1;
    std::map<std::string, int> host_type, flavor_index;
    for (const Host& h : cluster.hosts) host_type[h.id] = h.type;
    for (std::size_t f = 0; f < cluster.flavors.size(); ++f) flavor_index[cluster.flavors[f].name] = static_cast<int>(f);
    const int R = cluster.num_resources();
    for (const auto& [step, e] : events) {
        EXPECT_EQ(step, expected_step++) << "steps are 1, 2, ... without a gap";
        if (e.migration) {
            EXPECT_EQ(at.count(e.vm), 1U) << e.vm << " migrated before it was placed";
            EXPECT_EQ(at[e.vm].first, e.from_host) << "step " << step << ": " << e.vm;
            EXPECT_EQ(at[e.vm].second, e.from) << "step " << step << ": " << e.vm;
        } else {
            EXPECT_EQ(at.count(e.vm), 0U) << e.vm << " placed twice";
        }
        at[e.vm] = {e.to_host, e.to};
        // Every pNUMA node of the destination within capacity, recounted from scratch.
        const HostType& ht = cluster.host_types[static_cast<std::size_t>(host_type.at(e.to_host))];
        std::vector<Amount> used(ht.node_capacity.size(), 0);
        for (const auto& [id, w] : at) {
            if (w.first != e.to_host) continue;
            const Flavor& fl = cluster.flavors[static_cast<std::size_t>(flavor_index.at(flavor_of.at(id)))];
            for (const int n : w.second)
                for (int r = 0; r < R; ++r) used[static_cast<std::size_t>((n - 1) * R + r)] += fl.node_demand[r];
        }
        for (std::size_t x = 0; x < used.size(); ++x)
            EXPECT_LE(used[x], ht.node_capacity[x]) << "step " << step << ": host " << e.to_host << " over capacity";
    }
    return at;
}

// `vmcap place --migrations-per-request --log`: each line says where its VMs were placed when
// admitted and which VMs moved for it, from where to where, in order (1-based pNUMA nodes, as the
// snapshot). An independent check: the logged placements and migrations, replayed by step on the
// input cluster, reach exactly the --out snapshot's placement, and every state on the way fits.
// Alone, batched (steps interleave) and best effort (a VDC's VMs each with their own migrations).
TEST(Admission, PlaceLogReplaysToTheOutSnapshot) {
    const Problem cluster = small_cluster();
    const std::string c = (test::tmp_dir() / "log-cluster.json").string(), r = (test::tmp_dir() / "log-requests.json").string();
    const std::string out = (test::tmp_dir() / "log-out.json").string(), log = (test::tmp_dir() / "log.jsonl").string();
    write_file_atomic(c, format_json_lines(snapshot_to_json(cluster)));
    const nlohmann::json reqs = random_requests(cluster, 400, 12);
    write_file_atomic(r, reqs.dump());
    const std::vector<Request> requests = parse_requests(reqs, r);
    for (const std::string& extra : {std::string(), std::string(" --batch 4"), std::string(" --semantics best-effort")}) {
        const test::CmdResult res = test::run_vmcap("place --cluster " + c + " --requests " + r + " --migrations-per-request 2 --out " +
                                                    out + " --log " + log + extra);
        ASSERT_EQ(res.code, 0) << extra << ": " << res.err;
        std::vector<nlohmann::json> lines;
        std::istringstream in(read_text_file(log));
        int migrations = 0, moved_twice = 0;
        std::map<std::string, int> moves_of;
        for (std::string line; std::getline(in, line);) {
            lines.push_back(nlohmann::json::parse(line));
            if (lines.back().contains("migrations"))
                for (const auto& m : lines.back()["migrations"]) {
                    ++migrations;
                    moved_twice += ++moves_of[m["vm"].get<std::string>()] == 2 ? 1 : 0;
                }
        }
        EXPECT_GT(migrations, 0) << extra << ": the requests should need migrations (else the check is idle)";
        const Where replayed = replay_place_log(cluster, lines, requests);
        const Problem placed = load_snapshot(out);
        Where expected;
        for (const Vm& vm : placed.vms) {
            std::vector<int> nodes;
            for (int i = 0; i < placed.flavors[static_cast<std::size_t>(vm.flavor)].num_vnuma(); ++i) nodes.push_back(vm.pnuma[i] + 1);
            expected[vm.id] = {placed.hosts[static_cast<std::size_t>(vm.host)].id, nodes};
        }
        EXPECT_EQ(replayed, expected) << extra;
        std::printf("place%s --migrations-per-request 2: %d migrations logged (%d VMs moved twice or more), the replay gives --out\n",
                    extra.c_str(), migrations, moved_twice);
    }
}

// `vmcap place --log` numbers pNUMA nodes from 1, as the --out snapshot and docs/format.md do: on
// valid_snapshot.json (K2 hosts, one small VM on node 1 of each) a whole-host VM, admitted after one
// migration, logs [1,2]; a small VM placed after it logs the nodes --out has for it.
TEST(Admission, PlaceLogNumbersPnumaNodesFromOne) {
    const std::string r = (test::tmp_dir() / "one-based.json").string(), out = (test::tmp_dir() / "one-based-out.json").string(),
                      log = (test::tmp_dir() / "one-based.jsonl").string();
    write_file_atomic(r, R"({"requests": [{"id": "w1", "flavor": "big"}, {"id": "s1", "flavor": "small"}]})");
    const test::CmdResult res = test::run_vmcap("place --cluster " VMCAP_SOURCE_DIR "/tests/bad_inputs/valid_snapshot.json --requests " +
                                                r + " --migrations-per-request 1 --strategy first-fit --out " + out + " --log " + log);
    ASSERT_EQ(res.code, 0) << res.err;
    std::istringstream in(read_text_file(log));
    std::string line;
    std::map<std::string, nlohmann::json> logged;
    while (std::getline(in, line)) {
        const nlohmann::json j = nlohmann::json::parse(line);
        ASSERT_TRUE(j["accepted"].get<bool>()) << line;
        logged[j["request"]] = j["placements"][0]["pnuma"];
    }
    const nlohmann::json snap = nlohmann::json::parse(read_text_file(out));
    std::map<std::string, nlohmann::json> written;
    for (const auto& v : snap["vms"]) written[v["id"]] = v["pnuma"];
    EXPECT_EQ(logged["w1"], nlohmann::json::array({1, 2}));
    EXPECT_EQ(written["w1"], nlohmann::json::array({1, 2}));
    EXPECT_EQ(logged["s1"], written["s1"]) << "the log and --out number the nodes alike";
}

// `vmcap place` refuses an output path that names an input (or the other output): exit 2, the
// input unchanged.
TEST(Admission, OutputsNeverOverwriteInputs) {
    const std::string c = (test::tmp_dir() / "place-cluster.json").string(), r = (test::tmp_dir() / "place-requests.json").string();
    std::filesystem::copy_file(VMCAP_SOURCE_DIR "/tests/bad_inputs/valid_snapshot.json", c,
                               std::filesystem::copy_options::overwrite_existing);
    std::filesystem::copy_file(VMCAP_SOURCE_DIR "/tests/bad_inputs/place_ok.json", r, std::filesystem::copy_options::overwrite_existing);
    const std::string before = read_text_file(c), requests_before = read_text_file(r);
    for (const std::string& tail : {" --out " + c, " --log " + c, " --out " + r, " --log " + r, " --out " + c + ".x --log " + c + ".x"}) {
        const test::CmdResult res = test::run_vmcap("place --cluster " + c + " --requests " + r + tail);
        EXPECT_EQ(res.code, 2) << tail << ": " << res.err;
    }
    EXPECT_EQ(read_text_file(c), before);
    EXPECT_EQ(read_text_file(r), requests_before);
    EXPECT_FALSE(std::filesystem::exists(c + ".x"));
}

TEST(Admission, BadRequestsNameTheField) {
    const Problem cluster = small_cluster();
    auto error_of = [&](const std::string& text) {
        try {
            admit_requests(cluster, parse_requests(nlohmann::json::parse(text), "req.json"), AdmissionOptions{}, "req.json");
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(error_of(R"({"requests": [{"id": "a", "flavor": "1c2g"}, {"id": "b", "flavor": "nope"}]})"),
              "req.json: requests[1].flavor: no flavor 'nope' in the cluster");
    EXPECT_EQ(error_of(R"({"requests": [{"id": "a", "flavor": "1c2g"}, {"id": "a", "flavor": "1c2g"}]})"),
              "req.json: requests[1].id: duplicate request id 'a'");
    EXPECT_EQ(error_of(R"({"requests": [{"id": "a", "vms": [{"id": "x", "flavor": "1c2g"}, {"id": "y", "flavor": "1c2g"}],
                           "vlinks": [{"a": "x", "b": "y", "bandwidth_mbps": 10}]}]})"),
              "req.json: requests[0].vlinks: the cluster has no network (vlinks need one)");
    EXPECT_EQ(error_of(R"({"requests": [{"id": "a", "flavor": "1c2g", "count": 2}]})"), "req.json: requests[0].count: unknown field");
    EXPECT_EQ(
        error_of(
            R"({"requests": [{"id": "a", "vms": [{"id": "x", "flavor": "1c2g"}], "vlinks": [{"a": "x", "b": "z", "bandwidth_mbps": 1}]}]})"),
        "req.json: requests[0].vlinks[0].b: no VM 'z' in this request");
    const std::string taken = cluster.vms[0].id;
    EXPECT_EQ(error_of(R"({"requests": [{"id": ")" + taken + R"(", "flavor": "1c2g"}]})"),
              "req.json: requests[0]: VM id '" + taken + "' is already in the cluster");
}

}  // namespace
}  // namespace vmcap
