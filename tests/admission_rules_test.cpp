// The simple admission rules `worst-fit` and `vmagent-best-fit` (placement/placer.h): exact
// placements on hand-made clusters, and VMAgent's rule against a line-by-line transcription of
// VMAgent's own Python (github.com/mail-ecnu/VMAgent at 1ffabd6, vmagent/schedgym/sched_env.py:
// Server lines 33-136, Cluster.best_fit_action lines 173-196) on random streams, placement by
// placement. Worst fit's random-stream oracle is the brute-force replay in trace_replay_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "instances/trace.h"
#include "instances/vnuma_rule.h"
#include "placement/replay.h"
#include "tests/test_constants.h"

namespace vmcap {
namespace {

using test::kInf;

TraceVm vm_at(double arrival, double departure, Amount vcpu, Amount gib) {
    return TraceVm{arrival, departure, vcpu, gib * 1024, trace_flavor_name(vcpu, gib * 1024)};
}

/** Trace index -> (host, pNUMA node of each vNUMA node) of the VMs of a replayed snapshot. */
std::map<std::size_t, std::pair<int, std::vector<int>>> placements_of(const Problem& p) {
    std::map<std::size_t, std::pair<int, std::vector<int>>> out;
    for (const Vm& vm : p.vms) {
        const int k = p.flavors[static_cast<std::size_t>(vm.flavor)].num_vnuma();
        out[std::stoul(vm.id.substr(2))] = {vm.host, std::vector<int>(vm.pnuma.begin(), vm.pnuma.begin() + k)};
    }
    return out;
}

using Expected = std::map<std::size_t, std::pair<int, std::vector<int>>>;

/** Three K2 hosts of two 16 vCPU / 16 GiB nodes; the VMs of 16 GiB or less per node on one node
 *  (the vNUMA rule's half-node share), 12c12g on both. The expectations below were worked out by
 *  hand and, for VMAgent's rule, also by running VMAgent's own Server and Cluster classes. */
const std::vector<TraceVm>& hand_trace() {
    static const std::vector<TraceVm> t = {
        vm_at(0, kInf, 8, 8),    // 0
        vm_at(1, kInf, 8, 8),    // 1
        vm_at(2, 7, 8, 8),       // 2: departs at 7
        vm_at(3, kInf, 8, 8),    // 3
        vm_at(4, kInf, 4, 4),    // 4
        vm_at(5, kInf, 4, 4),    // 5
        vm_at(8, kInf, 12, 12),  // 6: two vNUMA nodes of 6c6g
        vm_at(9, kInf, 1, 8),    // 7
        vm_at(10, kInf, 6, 1),   // 8
        vm_at(11, kInf, 1, 1),   // 9
    };
    return t;
}

Problem replay_hand(const std::string& placer) {
    SnapshotOptions o;
    o.host_type = uniform_host_type("K2", 16, 16 * 1024);
    o.num_hosts = 3;
    o.time_s = 20.0;
    o.placer = placer;
    return replay_snapshot(hand_trace(), o);
}

TEST(AdmissionRules, VmagentBestFitHandMade) {
    // Score of a (host, node): min(free vCPU / 16, free GiB / 16) of the node after the VM; the
    // largest wins, the first (host, then node) of equals. 0: all nodes score 0.5, h0 n0 first.
    // 1: h0 n0 would keep 0, h0 n1 0.5 (first of the 0.5s). 2, 3: h1 n0, h1 n1 likewise. 4: h2 n0
    // keeps 0.75 (the others 0.25); 5: h2 n1 0.75. Departure of 2 frees h1 n0. 6 (both nodes,
    // scored by node 0 alone as VMAgent's line 182 does): h0 0.125, h1 10/16 = 0.625, h2 6/16 =
    // 0.375: h1, though its node 1 keeps 2/16 (min over both nodes would choose h2). 7 (1c8g):
    // RAM is the scarcer share: h2 n0 keeps min(11/16, 4/16) = 0.25, h1 n0 min(9/16, 2/16).
    // 8 (6c1g): h2 n1 keeps 6/16. 9 (1c1g): h1 n0 keeps 9/16 (h2 n0 only 3/16 of RAM), where
    // worst fit by free vCPU would take h2.
    const Expected want = {{0, {0, {0}}},    {1, {0, {1}}}, {3, {1, {1}}}, {4, {2, {0}}}, {5, {2, {1}}},
                           {6, {1, {0, 1}}}, {7, {2, {0}}}, {8, {2, {1}}}, {9, {1, {0}}}};
    EXPECT_EQ(placements_of(replay_hand("vmagent-best-fit")), want);
}

TEST(AdmissionRules, WorstFitHandMade) {
    // The host with the most free vCPU (ties: lowest index), on it the placement leaving the most
    // free vCPU on its nodes (ties: lowest). 0: h0 n0. 1: h1 (32) n0. 2: h2 n0. 3: all 24: h0, n1
    // (16 free). 4: h1 (24; h0 16) n1. 5: h2 n1. Departure of 2. 6: h2 (28) on both nodes. 7: h1
    // (20) n1 (12 free against 8). 8: h1 (19) n1 (11 against 8). 9: h0 and h2 have 16: h0, n0.
    const Expected want = {{0, {0, {0}}},    {1, {1, {0}}}, {3, {0, {1}}}, {4, {1, {1}}}, {5, {2, {1}}},
                           {6, {2, {0, 1}}}, {7, {1, {1}}}, {8, {1, {1}}}, {9, {0, {0}}}};
    EXPECT_EQ(placements_of(replay_hand("worst-fit")), want);
}

TEST(AdmissionRules, BestAndWorstFitOnHostsOfAbsurdSizeChooseAsOnNormalOnes) {
    // Best and worst fit keep a bucket per free vCPU count up to the largest host's, and past
    // 2^16 a bucket per count present (a fuzzed NetSolver file with a 12,222,226-vCPU server took
    // 2 GiB and 11 s before). Their choices depend only on the order of the free vCPU counts and
    // on what fits, so the same random stream with every amount times 8,192 (nodes of 131,072
    // vCPU: the sparse buckets) must be placed exactly as on 16-vCPU nodes (the dense ones).
    std::mt19937_64 rng(5);
    std::vector<TraceVm> small, huge;
    for (int i = 0; i < 300; ++i) {
        const double at = i, until = rng() % 3 == 0 ? kInf : at + 1.0 + static_cast<double>(rng() % 60);
        // (even amounts: a VM splits over two nodes only when its demand divides, which scaling
        // must not change)
        const Amount vcpu = 2 + 2 * static_cast<Amount>(rng() % 6), gib = 2 + 2 * static_cast<Amount>(rng() % 6);
        small.push_back(vm_at(at, until, vcpu, gib));
        huge.push_back(vm_at(at, until, vcpu * 8192, gib * 8192));
    }
    for (const char* placer : {"best-fit", "worst-fit"}) {
        SCOPED_TRACE(placer);
        SnapshotOptions o;
        o.host_type = uniform_host_type("K2", 16, 16 * 1024);
        o.num_hosts = 6;
        o.time_s = 300.0;
        o.placer = placer;
        const Problem a = replay_snapshot(small, o);
        o.host_type = uniform_host_type("K2", 16 * 8192, 16 * 1024 * 8192);
        const Problem b = replay_snapshot(huge, o);
        const auto pa = placements_of(a);
        EXPECT_GT(pa.size(), 20U);
        EXPECT_LT(pa.size(), 290U) << "some arrivals must be refused for the stream to say something";
        EXPECT_EQ(pa, placements_of(b));
    }
}

/** VMAgent's Server (sched_env.py lines 33-136): two NUMA nodes, floats as Python's. */
struct VmagentServer {
    double tot_cpu[2], tot_mem[2], remain_cpu[2], remain_mem[2];
    VmagentServer(double cpu, double mem) : tot_cpu{cpu, cpu}, tot_mem{mem, mem}, remain_cpu{cpu, cpu}, remain_mem{mem, mem} {}
    struct Request {
        double cpu, mem;
        bool is_double;
    };
    void allocate_one(double cpu, double mem, int numa) {  // _allocate
        remain_cpu[numa] -= cpu;
        remain_mem[numa] -= mem;
    }
    void handle(const Request& r, int numa = 0) {  // allocate: a double request takes half on each node
        if (r.is_double) {
            allocate_one(r.cpu / 2, r.mem / 2, 0);
            allocate_one(r.cpu / 2, r.mem / 2, 1);
        } else {
            allocate_one(r.cpu, r.mem, numa);
        }
    }
    void remove(const Request& r, int numa) {  // delete
        if (r.is_double) {
            for (int i = 0; i < 2; ++i) remain_cpu[i] += r.cpu / 2, remain_mem[i] += r.mem / 2;
        } else {
            remain_cpu[numa] += r.cpu;
            remain_mem[numa] += r.mem;
        }
    }
    double allo_rate(int numa) const { return std::min(remain_cpu[numa] / tot_cpu[numa], remain_mem[numa] / tot_mem[numa]); }
    bool usable_one(double cpu, double mem, int numa) const { return remain_mem[numa] >= mem && remain_cpu[numa] >= cpu; }
    std::array<int, 2> usable(const Request& r) const {
        if (r.is_double) {
            const bool u = usable_one(r.cpu / 2, r.mem / 2, 0) && usable_one(r.cpu / 2, r.mem / 2, 1);
            return {u, u};
        }
        return {usable_one(r.cpu, r.mem, 0), usable_one(r.cpu, r.mem, 1)};
    }
};

/** Cluster.best_fit_action (lines 173-196), line by line: server * 2 + numa, or -1. */
int best_fit_action(std::vector<VmagentServer>& servers, const VmagentServer::Request& request) {
    int i = -1, bst_action = -1;
    double bst_allo_rate = -1;
    for (VmagentServer& server : servers) {
        i += 1;
        const auto usable = server.usable(request);
        if (request.is_double && usable[0] == 1) {
            server.handle(request);
            const double allo_rate = std::min(server.allo_rate(0), server.allo_rate(0));
            if (allo_rate > bst_allo_rate) {
                bst_allo_rate = allo_rate;
                bst_action = i * 2;
            }
            server.remove(request, 0);
        } else {
            for (int numa = 0; numa < 2; ++numa)
                if (usable[static_cast<std::size_t>(numa)] == 1) {
                    server.handle(request, numa);
                    const double allo_rate = std::max(bst_allo_rate, server.allo_rate(numa));
                    if (allo_rate > bst_allo_rate) {
                        bst_allo_rate = allo_rate;
                        bst_action = i * 2 + numa;
                    }
                    server.remove(request, numa);
                }
        }
    }
    return bst_action;
}

/** The stream replayed with VMAgent's rule under the replay's conventions (departures up to an
 *  arrival's time first, by time then arrival order; a request no server takes is rejected and the
 *  stream goes on, where VMAgent's environment would end the episode): the VMs alive at the stop. */
Expected vmagent_replay(const std::vector<TraceVm>& trace, const SnapshotOptions& o) {
    const HostType& ht = o.host_type;
    const double cpu = static_cast<double>(ht.node_capacity[kVcpu]), mem = static_cast<double>(ht.node_capacity[kRamMib]);
    std::vector<VmagentServer> servers(static_cast<std::size_t>(o.num_hosts), VmagentServer(cpu, mem));
    std::map<std::size_t, std::pair<VmagentServer::Request, int>> alive;  // trace index -> (request, action)
    std::multimap<double, std::size_t> departures;
    const auto depart = [&](double t) {
        while (!departures.empty() && departures.begin()->first <= t) {
            const auto [req, action] = alive.at(departures.begin()->second);
            servers[static_cast<std::size_t>(action / 2)].remove(req, action % 2);
            alive.erase(departures.begin()->second);
            departures.erase(departures.begin());
        }
    };
    const double stop = trace.front().arrival_s + o.time_s;
    for (std::size_t i = 0; i < trace.size() && trace[i].arrival_s <= stop; ++i) {
        depart(trace[i].arrival_s);
        const TraceVm& vm = trace[i];
        const int k = vnuma_topology_for(ht, {vm.vcpu, vm.ram_mib}, vm.flavor_name, o.rule).size();
        const VmagentServer::Request req{static_cast<double>(vm.vcpu), static_cast<double>(vm.ram_mib), k == 2};
        const int action = best_fit_action(servers, req);
        if (action < 0) continue;
        servers[static_cast<std::size_t>(action / 2)].handle(req, action % 2);
        alive[i] = {req, action};
        if (vm.departure_s != kInf) departures.emplace(vm.departure_s, i);
    }
    depart(stop);
    Expected out;
    for (const auto& [i, ra] : alive)
        out[i] = {ra.second / 2, ra.first.is_double ? std::vector<int>{0, 1} : std::vector<int>{ra.second % 2}};
    return out;
}

TEST(AdmissionRules, VmagentBestFitMatchesATranscriptionOfVmagentsCode) {
    // Huawei-like shapes on VMAgent's two-node servers, RAM and vCPU each the scarcer at times,
    // doubles among them; ties are frequent (equal shapes on equal nodes). Compared at several
    // stop times, every VM alive there on the same host and nodes.
    struct Case {
        Amount node_vcpu, node_gib;
        int hosts;
        std::uint64_t seed;
    };
    for (const Case& c : {Case{40, 90, 6, 1}, Case{16, 16, 8, 2}, Case{32, 64, 5, 3}}) {
        std::mt19937_64 g(c.seed);
        const std::vector<std::pair<Amount, Amount>> sizes = {{1, 2},   {2, 4},   {4, 8},  {8, 16},  {16, 32}, {2, 8},
                                                              {4, 16},  {8, 4},   {1, 1},  {12, 12}, {16, 64}, {24, 48},
                                                              {32, 64}, {30, 40}, {6, 24}, {20, 10}, {48, 96}, {64, 128}};
        std::vector<TraceVm> trace;
        double now = 0.0;
        while (trace.size() < 3000) {
            now += static_cast<double>(g() % 100) / 10.0;
            const auto [v, r] = sizes[g() % sizes.size()];
            if (v > 2 * c.node_vcpu || r > 2 * c.node_gib || (v > c.node_vcpu && v % 2) || (r > c.node_gib && r % 2)) continue;
            trace.push_back(vm_at(now, g() % 10 == 0 ? kInf : now + static_cast<double>(g() % 3000), v, r));
        }
        int compared = 0, doubles = 0;
        for (double stop : {500.0, 2000.0, 5000.0, 9000.0, 14000.0}) {
            SCOPED_TRACE("seed " + std::to_string(c.seed) + " stop " + std::to_string(stop));
            SnapshotOptions o;
            o.host_type = uniform_host_type("K2", c.node_vcpu, c.node_gib * 1024);
            o.num_hosts = c.hosts;
            o.time_s = stop;
            o.placer = "vmagent-best-fit";
            ReplayStats st;
            const Expected got = placements_of(replay_snapshot(trace, o, &st));
            const Expected want = vmagent_replay(trace, o);
            ASSERT_EQ(got, want);
            compared += static_cast<int>(got.size());
            for (const auto& [i, p] : got) doubles += p.second.size() == 2;
            if (stop > 2000.0) EXPECT_GT(st.rejected, 0);  // the cluster is full: rejections exercised
        }
        EXPECT_GT(compared, 200);
        EXPECT_GT(doubles, 5) << "seed " << c.seed;  // alive at a stop, of many more placed
    }
}

}  // namespace
}  // namespace vmcap
