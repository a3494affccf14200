#include "instances/forecast.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace vmcap {

std::optional<std::vector<std::int64_t>> forecast_need(std::span<const FlavorEvent> events, int flavors, double history_start_s,
                                                       double now_s, const ForecastOptions& o) {
    if (!(o.horizon_s > 0.0 && o.horizon_s <= 86400.0)) throw std::invalid_argument("forecast: the horizon must be in (0, 86400] s");
    if (o.days < 1) throw std::invalid_argument("forecast: the days looked back must be >= 1");
    if (!(o.quantile > 0.0 && o.quantile <= 1.0)) throw std::invalid_argument("forecast: the quantile must be in (0, 1]");
    if (!(o.burst_s >= 0.0)) throw std::invalid_argument("forecast: the burst interval must be >= 0 s");
    if (flavors < 0) throw std::invalid_argument("forecast: negative flavor count");
    const auto F = static_cast<std::size_t>(flavors);
    std::vector<std::vector<std::int64_t>> peaks(F);  // [f] the daily peaks
    std::vector<std::int64_t> net(F), peak(F);
    std::vector<std::vector<double>> arrived(F);  // [f] the day's arrival times in its window (burst floor)
    int used = 0;                                 // D'
    const auto by_time = [](const FlavorEvent& e, double t) { return e.time_s <= t; };  // first event after t
    for (int d = 1; d <= o.days; ++d) {
        const double start = now_s - d * 86400.0;
        if (start < history_start_s) break;  // this day and the older ones lie before the history
        std::fill(net.begin(), net.end(), 0);
        std::fill(peak.begin(), peak.end(), 0);
        const double end = start + o.horizon_s;
        for (auto it = std::lower_bound(events.begin(), events.end(), start, by_time); it != events.end() && it->time_s <= end; ++it) {
            if (it->flavor < 0 || it->flavor >= flavors) throw std::invalid_argument("forecast: an event's flavor is out of range");
            const auto f = static_cast<std::size_t>(it->flavor);
            net[f] += it->delta;
            peak[f] = std::max(peak[f], net[f]);
            if (o.burst_s > 0.0 && it->delta > 0) arrived[f].push_back(it->time_s);
        }
        if (o.burst_s > 0.0)
            for (std::size_t f = 0; f < F; ++f) {  // the most arrivals in (t - B, t], t an arrival time: two pointers
                std::size_t first = 0;
                for (std::size_t i = 0; i < arrived[f].size(); ++i) {
                    while (arrived[f][first] <= arrived[f][i] - o.burst_s) ++first;
                    peak[f] = std::max(peak[f], static_cast<std::int64_t>(i - first + 1));
                }
                arrived[f].clear();
            }
        for (std::size_t f = 0; f < F; ++f) peaks[f].push_back(peak[f]);
        ++used;
    }
    if (used == 0) return std::nullopt;
    std::vector<std::int64_t> need(F);
    for (std::size_t f = 0; f < F; ++f) {
        std::vector<std::int64_t>& p = peaks[f];
        std::sort(p.begin(), p.end());
        const auto k = static_cast<std::size_t>(std::ceil(o.quantile * static_cast<double>(p.size())));
        need[f] = p[std::clamp<std::size_t>(k, 1, p.size()) - 1];
    }
    return need;
}

std::vector<std::int64_t> needs_the_room_holds(std::span<const std::int64_t> need, std::span<const FlavorSize> size, Amount free_vcpu,
                                               Amount free_ram_mib) {
    if (need.size() != size.size()) throw std::invalid_argument("needs_the_room_holds: one size per need");
    if (free_vcpu < 0 || free_ram_mib < 0) throw std::invalid_argument("needs_the_room_holds: negative free room");
    std::vector<std::size_t> order(need.size());
    for (std::size_t f = 0; f < order.size(); ++f) {
        if (size[f].vcpu < 0 || size[f].ram_mib < 0) throw std::invalid_argument("needs_the_room_holds: negative flavor size");
        order[f] = f;
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
        return size[x].vcpu < size[y].vcpu || (size[x].vcpu == size[y].vcpu && size[x].ram_mib < size[y].ram_mib);
    });
    std::vector<std::int64_t> held(need.size(), 0);
    for (const std::size_t f : order) {
        std::int64_t fits = std::numeric_limits<std::int64_t>::max();
        if (size[f].vcpu > 0) fits = std::min(fits, free_vcpu / size[f].vcpu);
        if (size[f].ram_mib > 0) fits = std::min(fits, free_ram_mib / size[f].ram_mib);
        held[f] = std::min(std::max<std::int64_t>(0, need[f]), fits);
        free_vcpu -= held[f] * size[f].vcpu;
        free_ram_mib -= held[f] * size[f].ram_mib;
    }
    return held;
}

}  // namespace vmcap
