#include "instances/forecast.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace vmcap {

std::optional<std::vector<std::int64_t>> forecast_need(std::span<const FlavorEvent> events, int flavors, double history_start_s,
                                                       double now_s, const ForecastOptions& o) {
    if (!(o.horizon_s > 0.0 && o.horizon_s <= 86400.0)) throw std::invalid_argument("forecast: the horizon must be in (0, 86400] s");
    if (o.days < 1) throw std::invalid_argument("forecast: the days looked back must be >= 1");
    if (!(o.quantile > 0.0 && o.quantile <= 1.0)) throw std::invalid_argument("forecast: the quantile must be in (0, 1]");
    if (flavors < 0) throw std::invalid_argument("forecast: negative flavor count");
    const auto F = static_cast<std::size_t>(flavors);
    std::vector<std::vector<std::int64_t>> peaks(F);  // [f] the daily peaks
    std::vector<std::int64_t> net(F), peak(F);
    int used = 0;                                                                       // D'
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

}  // namespace vmcap
