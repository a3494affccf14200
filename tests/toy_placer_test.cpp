// What a newcomer's placer costs (newcomer counts): "the host with the most free RAM", written
// here in one file against the Placer seam alone (placement/placer.h) and used with no registry
// entry — the drivers (place_vm, trace replay) untouched. A registered placer takes its own
// .cpp plus, in placement/placer.cpp, the factory's declaration and one line in
// registered_placers (two files), and `vmcap snapshot --placer <name>` then offers it.
// Oracles: the placement contract against exhaustive search over all (host, placement) pairs,
// the same check every registered placer passes (tests/placer_contract.h); the test's own reading
// of "most free RAM" over every host that fits; and the contract check refusing a placer that
// tries only that host.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "evaluators/state/fit.h"
#include "instances/vnuma_rule.h"
#include "placement/placer.h"
#include "placement/replay.h"
#include "tests/placer_contract.h"

namespace vmcap {
namespace {

/** The host with the most free RAM (sum over its pNUMA nodes; ties: lowest index) among those
 *  where the VM's flavor fits and every rule admits it, and there its first such placement: the
 *  seam's first_admitted with the strategy's own key. No index over hosts, so reset and
 *  host_changed are the defaults. Complete. With `only_the_roomiest`, it tries the roomiest host
 *  alone and refuses when the flavor does not fit there: a placer that breaks the contract's
 *  completeness. */
class MostFreeRamPlacer final : public Placer {
public:
    explicit MostFreeRamPlacer(bool only_the_roomiest = false) : only_the_roomiest_(only_the_roomiest) {}

    PlaceChoice choose(const SearchState& s, int vm) override {
        if (!only_the_roomiest_)
            return first_admitted(s, vm, [&](int h, int e) { return CandidateKey{-host_free(s, h).ram_mib, h, e, 0}; });
        int roomiest = 0;
        for (int h = 1; h < static_cast<int>(s.problem().hosts.size()); ++h)
            if (host_free(s, h).ram_mib > host_free(s, roomiest).ram_mib) roomiest = h;
        const int e = first_fitting_placement(s, s.flavor_of(vm), roomiest);
        return e < 0 ? PlaceChoice{} : PlaceChoice{roomiest, e};
    }

private:
    bool only_the_roomiest_;
};

TEST(ToyPlacer, MostFreeRamKeepsThePlacementContract) {
    for (std::uint64_t seed : {4, 5}) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        MostFreeRamPlacer placer;
        test::expect_placer_contract(placer, seed);
    }
}

TEST(ToyPlacer, TheContractCheckRefusesAPlacerThatTriesOneHost) {
    ::testing::TestPartResultArray failures;
    {
        const ::testing::ScopedFakeTestPartResultReporter intercept(
            ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
        MostFreeRamPlacer one_host(true);
        test::expect_placer_contract(one_host, 4);
    }
    ASSERT_GT(failures.size(), 0);
    int incomplete = 0;
    for (int i = 0; i < failures.size(); ++i)
        incomplete += std::string(failures.GetTestPartResult(i).message()).find("rejected although") != std::string::npos ? 1 : 0;
    EXPECT_GT(incomplete, 0) << "the check names the refusal while placements fit";
}

TEST(ToyPlacer, ChoosesTheFittingHostWithTheMostFreeRam) {
    const Problem p = test::with_arrivals(6, 8, 30, 60);
    const CapacityModel model(p);
    SearchState s(model);
    MostFreeRamPlacer placer;
    placer.reset(s);
    int placed = 0;
    for (int v = 30; v < static_cast<int>(p.vms.size()); ++v) {
        // The test's own reading: free RAM per host from the state's free amounts, node by node.
        std::set<int> fitting;
        for (const auto& [h, e] : test::all_fits(s, s.flavor_of(v))) fitting.insert(h);
        int want = -1;
        Amount most = -1;
        for (int h : fitting) {
            Amount ram = 0;
            for (int i = 0; i < s.nodes_of(h); ++i) ram += s.free_of(h)[i * p.num_resources() + kRamMib];
            if (ram > most) most = ram, want = h;
        }
        const PlaceChoice c = place_vm(s, placer, v);
        EXPECT_EQ(c.host, want) << "vm " << v;
        placed += c.found() ? 1 : 0;
    }
    EXPECT_GT(placed, 10);
    s.check_consistency();
}

TEST(ToyPlacer, RunsThroughTraceReplaySpreadingWhereBestFitPacks) {
    MostFreeRamPlacer roomiest;
    test::expect_spreads_more_than_best_fit(roomiest, 12);
}

}  // namespace
}  // namespace vmcap
