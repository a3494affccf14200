// The forecast of each flavor's need (instances/forecast.h) on hand-made histories with exact
// expected values, and the objective term that values capacity up to it
// (evaluators/objective/uncovered_need_term.h): exact deltas under the search's --check, its
// value against capacities recomputed the slow way, and a search that raises the scarce flavors.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "evaluators/closed_forms/score.h"
#include "evaluators/objective/uncovered_need_term.h"
#include "evaluators/state/capacity_model.h"
#include "evaluators/state/search_state.h"
#include "instances/forecast.h"
#include "instances/generator.h"
#include "optimizer/search/annealing.h"
#include "tests/fixtures.h"

namespace vmcap {
namespace {

constexpr double kDay = 86400.0;

/** Two flavors over three days; now = 3 days; windows of one hour. */
std::vector<FlavorEvent> history() {
    return {
        {kDay, 1, +1},        // at the start of day 2's window: excluded (the window is (s, s + H])
        {kDay + 100, 0, +1},  // day 2: flavor 0 rises to 3
        {kDay + 200, 0, +1},     {kDay + 300, 0, +1},     {kDay + 3600, 1, +1},  // day 2: flavor 1 at the window's end: included
        {kDay + 3601, 1, +1},                                                    // just after: excluded
        {2 * kDay + 100, 0, +1},  // day 1: flavor 0: 1, 2, 1, 2, then a departure first at 700: 1, 2
        {2 * kDay + 200, 1, -1},  // flavor 1 only departs: its peak is 0, not negative
        {2 * kDay + 300, 0, +1}, {2 * kDay + 400, 0, -1}, {2 * kDay + 500, 0, +1},
        {2 * kDay + 700, 0, -1}, {2 * kDay + 700, 0, +1}, {2 * kDay + 4000, 0, +1},  // after the window
    };
}

TEST(Forecast, PeakOfNetArrivalsOverTheSameHoursOfThePastDays) {
    const std::vector<FlavorEvent> e = history();
    ForecastOptions o;
    o.horizon_s = 3600;
    o.days = 2;
    const auto need = forecast_need(e, 2, 0.0, 3 * kDay, o);
    ASSERT_TRUE(need.has_value());
    EXPECT_EQ(*need, (std::vector<std::int64_t>{3, 1}));  // the max over days 1 (2, 0) and 2 (3, 1)
    o.quantile = 0.5;                                     // the ceil(0.5 x 2) = 1st smallest
    EXPECT_EQ(*forecast_need(e, 2, 0.0, 3 * kDay, o), (std::vector<std::int64_t>{2, 0}));
    o.quantile = 1.0;
    o.days = 1;
    EXPECT_EQ(*forecast_need(e, 2, 0.0, 3 * kDay, o), (std::vector<std::int64_t>{2, 0}));
    // Only days whose window starts within the history count: day 2 starts at 1 day < 1.5 days.
    o.days = 3;
    EXPECT_EQ(*forecast_need(e, 2, 1.5 * kDay, 3 * kDay, o), (std::vector<std::int64_t>{2, 0}));
    EXPECT_FALSE(forecast_need(e, 2, 2.5 * kDay, 3 * kDay, o).has_value()) << "no full day of history";
    // A longer horizon takes the arrival after the hour in: day 1 peaks at 3 then.
    o.horizon_s = 4000;
    EXPECT_EQ(*forecast_need(e, 2, 0.0, 3 * kDay, o), (std::vector<std::int64_t>{3, 2}));
}

TEST(Forecast, TheBurstFloorSeesAFlavorThatArrivesAndDepartsInBursts) {
    // Day 1 (now = 2 days, windows of 6 h). Flavor 0: six VMs 2,000 s apart, each gone 600 s after
    // it came, so never two at once (net peak 1). Flavor 1: three VMs 4,000 s apart that stay.
    std::vector<FlavorEvent> e;
    for (int i = 0; i < 6; ++i) {
        e.push_back({kDay + 1000.0 + 2000.0 * i, 0, +1});
        e.push_back({kDay + 1600.0 + 2000.0 * i, 0, -1});
    }
    for (int i = 0; i < 3; ++i) e.push_back({kDay + 1000.0 + 4000.0 * i, 1, +1});
    std::stable_sort(e.begin(), e.end(), [](const FlavorEvent& x, const FlavorEvent& y) { return x.time_s < y.time_s; });
    ForecastOptions o;
    o.horizon_s = 6 * 3600;
    o.days = 1;
    EXPECT_EQ(*forecast_need(e, 2, 0.0, 2 * kDay, o), (std::vector<std::int64_t>{1, 3})) << "net arrivals only";
    o.burst_s = 3600;  // flavor 0: 1,000 and 3,000 within an hour; flavor 1 keeps its net peak
    EXPECT_EQ(*forecast_need(e, 2, 0.0, 2 * kDay, o), (std::vector<std::int64_t>{2, 3}));
    o.burst_s = 4000;  // (t - 4000, t] leaves t - 4000 out: 1,000 and 5,000 are not together
    EXPECT_EQ(*forecast_need(e, 2, 0.0, 2 * kDay, o), (std::vector<std::int64_t>{2, 3}));
    o.burst_s = 4001;
    EXPECT_EQ(*forecast_need(e, 2, 0.0, 2 * kDay, o), (std::vector<std::int64_t>{3, 3}));
    o.burst_s = 86400;  // the window's gross arrivals
    EXPECT_EQ(*forecast_need(e, 2, 0.0, 2 * kDay, o), (std::vector<std::int64_t>{6, 3}));
    o.horizon_s = 4000;  // only the window's arrivals count: flavor 0 at 1,000 and 3,000
    EXPECT_EQ(*forecast_need(e, 2, 0.0, 2 * kDay, o), (std::vector<std::int64_t>{2, 1}));
    o.burst_s = -1;
    EXPECT_THROW(forecast_need(e, 2, 0.0, 2 * kDay, o), std::invalid_argument);
}

TEST(Forecast, NeedsTheRoomHoldsServeTheSmallerFlavorsFirst) {
    // Flavors: 0 = 8c16g, 1 = 1c2g, 2 = 2c4g, 3 = 1c8g (1 vCPU, more RAM than 1c2g).
    const std::vector<FlavorSize> size = {{8, 16384}, {1, 2048}, {2, 4096}, {1, 8192}};
    const std::vector<std::int64_t> need = {5, 10, 4, 2};
    // Room for everything: the needs as they are.
    EXPECT_EQ(needs_the_room_holds(need, size, 1000, 1 << 30), need);
    // 40 vCPU, 64 GiB: 1c2g 10 (10 vCPU, 20 GiB), 1c8g 2 (2, 16), 2c4g 4 (8, 16): 20 vCPU, 12 GiB
    // left: one 8c16g would need 16 GiB, so none.
    EXPECT_EQ(needs_the_room_holds(need, size, 40, 64 * 1024), (std::vector<std::int64_t>{0, 10, 4, 2}));
    // 16 vCPU: 1c2g 10, 1c8g 2, 2c4g 2 (4 vCPU left: 2 of them), 8c16g 0.
    EXPECT_EQ(needs_the_room_holds(need, size, 16, 1 << 30), (std::vector<std::int64_t>{0, 10, 2, 2}));
    // Negative needs count as 0 and take no room.
    EXPECT_EQ(needs_the_room_holds(std::vector<std::int64_t>{1, -3, 0, 0}, size, 8, 16384), (std::vector<std::int64_t>{1, 0, 0, 0}));
    EXPECT_THROW(needs_the_room_holds(need, std::vector<FlavorSize>(3), 1, 1), std::invalid_argument);
    EXPECT_THROW(needs_the_room_holds(need, size, -1, 1), std::invalid_argument);
}

TEST(Forecast, RefusesOptionsOutOfRange) {
    const std::vector<FlavorEvent> e = history();
    ForecastOptions o;
    o.horizon_s = 86401;
    EXPECT_THROW(forecast_need(e, 2, 0, 3 * kDay, o), std::invalid_argument);
    o = {};
    o.days = 0;
    EXPECT_THROW(forecast_need(e, 2, 0, 3 * kDay, o), std::invalid_argument);
    o = {};
    o.quantile = 0;
    EXPECT_THROW(forecast_need(e, 2, 0, 3 * kDay, o), std::invalid_argument);
    EXPECT_THROW(forecast_need(e, 1, 0, 3 * kDay, ForecastOptions{3600, 2, 1.0}), std::invalid_argument) << "flavor 1 of 1";
}

/** A fragmented generated cluster with needs above capacity for the two largest flavors and below
 *  it for the rest; every flavor weighted 0.01 (the saturating objective of --weights forecast). */
Problem needy_cluster(std::vector<Count>& capacity) {
    GenerateOptions go;
    go.hosts = 40;
    go.vms = 260;
    go.churn = 0.5;
    go.migration_budget = 0.15;
    go.seed = 11;
    Problem p = generate_cluster(go);
    const CapacityModel m(p);
    capacity = test::capacity_by_flavor(m, compute_node_usage(p));
    for (std::size_t f = 0; f < p.flavors.size(); ++f) {
        p.flavors[f].weight = 0.01;
        p.flavors[f].need = f + 2 >= p.flavors.size() ? capacity[f] + 5 : capacity[f] / 2;
    }
    p.objective_terms.emplace_back(std::string(UncoveredNeedTerm::kName), 1.0);
    return p;
}

/** The term's value the slow way: capacities per flavor recomputed from the placement. */
Score slow_uncovered(const CapacityModel& m, const SearchState& s) {
    Problem copy = m.problem();
    for (std::size_t v = 0; v < copy.vms.size(); ++v) {
        copy.vms[v].host = s.host_of(static_cast<int>(v));
        std::copy_n(s.pnuma_of(static_cast<int>(v)), kMaxVNuma, copy.vms[v].pnuma.begin());
    }
    const std::vector<Count> cap = test::capacity_by_flavor(m, compute_node_usage(copy));
    Score out = 0;
    for (std::size_t f = 0; f < copy.flavors.size(); ++f)
        if (copy.flavors[f].need >= 0) out -= weight_units(1.0) * std::max<Count>(0, copy.flavors[f].need - cap[f]);
    return out;
}

TEST(UncoveredNeed, ExactUnderCheckAndTheSearchCoversTheScarceFlavors) {
    std::vector<Count> before;
    const Problem p = needy_cluster(before);
    const CapacityModel m(p);
    ASSERT_NE(m.find<UncoveredNeedTerm>(), nullptr) << "made from objective_terms by the registry";
    const SearchState start(m);
    EXPECT_EQ(start.terms_value(), slow_uncovered(m, start));
    EXPECT_EQ(start.terms_value(), -weight_units(1.0) * 10) << "5 VMs short for each of the two largest flavors";

    SearchParams sp;
    sp.threads = 1;
    sp.max_evaluations = 100000;
    sp.time_limit_s = 1e9;
    sp.quiet = true;
    sp.check_every = 25;  // every applied move's delta against the objective; from scratch every 25 moves
    const SearchResult r = anneal(m, sp);
    SearchState end(m);
    end.set_placements(r.best);
    EXPECT_EQ(end.terms_value(), slow_uncovered(m, end));
    EXPECT_EQ(r.score_best, test::full_objective(m, end) + slow_uncovered(m, end));
    EXPECT_GT(end.terms_value(), start.terms_value()) << "the search covers part of the scarce flavors' need";
}

TEST(UncoveredNeed, CapacityBeyondTheNeedIsWorthOnlyTheFlavorWeight) {
    std::vector<Count> cap;
    Problem p = needy_cluster(cap);
    for (Flavor& f : p.flavors) f.need = 0;  // every need covered: the term is 0 in every state
    const CapacityModel m(p);
    const SearchState s(m);
    EXPECT_EQ(s.terms_value(), 0);
    EXPECT_EQ(s.objective(), test::full_objective(m, s));
}

}  // namespace
}  // namespace vmcap
