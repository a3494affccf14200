#include "optimizer/plan/ordering.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "evaluators/rules/feasibility.h"

namespace vmcap {

namespace {

class OrderSearch {
public:
    OrderSearch(const CapacityModel& model, const std::vector<Placement>& target, std::int64_t max_expansions,
                std::chrono::steady_clock::time_point deadline)
        : m_(model), p_(model.problem()), s_(model), max_(max_expansions), deadline_(deadline) {
        const int V = static_cast<int>(p_.vms.size());
        goal_host_.resize(V);
        goal_map_.resize(V);
        for (int v = 0; v < V; ++v) {
            goal_host_[v] = p_.vms[v].host;
            goal_map_[v] = p_.vms[v].pnuma;
            if (p_.vms[v].migratable) movable_.push_back(v);
        }
        std::vector<char> seen(V, 0);
        for (const Placement& pl : target) {
            if (pl.vm < 0 || pl.vm >= V || seen[pl.vm]) throw std::invalid_argument("find_order: a VM is placed twice or does not exist");
            if (!p_.vms[pl.vm].migratable) throw std::invalid_argument("find_order: VM " + p_.vms[pl.vm].id + " is not migratable");
            seen[pl.vm] = 1;
            goal_host_[pl.vm] = pl.host;
            goal_map_[pl.vm] = pl.pnuma;
        }
        steps_left_ = p_.constraints.max_migrations;
        ram_left_ = p_.constraints.max_migrated_ram_mib;
    }

    OrderResult run() {
        OrderResult res;
        const bool found = dfs();
        res.expansions = expansions_;
        if (found) {
            res.status = OrderStatus::Found;
            res.steps = path_;
        } else {
            res.status = stopped_ ? OrderStatus::Unknown : OrderStatus::None;
        }
        return res;
    }

private:
    int k_of(int vm) const { return p_.flavors[p_.vms[vm].flavor].num_vnuma(); }
    Amount ram_of(int vm) const { return p_.flavors[p_.vms[vm].flavor].demand[kRamMib]; }
    bool counts(int from, int to) const { return step_uses_budget(p_, from, to); }
    bool at(int vm, int host, const std::array<std::uint8_t, kMaxVNuma>& map) const {
        return s_.host_of(vm) == host && std::equal(map.begin(), map.begin() + k_of(vm), s_.pnuma_of(vm));
    }
    bool at_goal(int vm) const { return at(vm, goal_host_[vm], goal_map_[vm]); }
    /** Steps and RAM the VM still needs at least: one counted step unless at its goal (or only
     *  remapped on its goal host with free remaps). */
    void need(int vm, std::int64_t& steps, Amount& ram) const {
        if (at_goal(vm) || !counts(s_.host_of(vm), goal_host_[vm])) return;
        ++steps;
        ram += ram_of(vm);
    }
    std::string key() const {
        std::string k;
        k.reserve(movable_.size() * (2 + kMaxVNuma));
        for (int v : movable_) {
            const int h = s_.host_of(v);
            k.push_back(static_cast<char>(h & 0xff));
            k.push_back(static_cast<char>((h >> 8) & 0xff));
            k.push_back(static_cast<char>((h >> 16) & 0xff));
            k.append(reinterpret_cast<const char*>(s_.pnuma_of(v)), static_cast<std::size_t>(k_of(v)));
        }
        return k;
    }

    bool step(int vm, int host, const std::array<std::uint8_t, kMaxVNuma>& map) {
        const int from = s_.host_of(vm);
        const bool c = counts(from, host);
        PlanStep st;
        st.vm = vm;
        st.from_host = from;
        std::copy_n(s_.pnuma_of(vm), kMaxVNuma, st.from_pnuma.begin());
        st.to_host = host;
        st.to_pnuma = map;
        Embedding e;
        e.map = map;
        e.mask = node_mask(map.data(), k_of(vm));
        s_.move(vm, host, e);
        if (c) {
            --steps_left_;
            ram_left_ -= ram_of(vm);
        }
        path_.push_back(st);
        if (dfs()) return true;
        path_.pop_back();
        if (c) {
            ++steps_left_;
            ram_left_ += ram_of(vm);
        }
        Embedding back;
        back.map = st.from_pnuma;
        back.mask = node_mask(st.from_pnuma.data(), k_of(vm));
        s_.move(vm, from, back);
        return false;
    }

    bool dfs() {
        std::int64_t need_steps = 0;
        Amount need_ram = 0;
        bool done = true;
        for (int v : movable_) {
            if (!at_goal(v)) done = false;
            need(v, need_steps, need_ram);
        }
        if (done) return true;
        if (need_steps > steps_left_ || need_ram > ram_left_) return false;
        if (stopped_) return false;
        if (++expansions_ > max_ || ((expansions_ & 255) == 0 && deadline_ != std::chrono::steady_clock::time_point::max() &&
                                     std::chrono::steady_clock::now() > deadline_)) {
            stopped_ = true;
            return false;
        }
        auto [it, fresh] = memo_.try_emplace(key(), std::make_pair(steps_left_, ram_left_));
        if (!fresh) {
            if (it->second.first >= steps_left_ && it->second.second >= ram_left_) return false;  // explored with more budget
            it->second = {std::max(it->second.first, steps_left_), std::max(it->second.second, ram_left_)};
        }
        // Goal moves first.
        for (int v : movable_) {
            if (at_goal(v)) continue;
            const int gh = goal_host_[v];
            std::int64_t st = need_steps - (counts(s_.host_of(v), gh) ? 1 : 0);
            Amount ram = need_ram - (counts(s_.host_of(v), gh) ? ram_of(v) : 0);
            if (counts(s_.host_of(v), gh)) {
                ++st;
                ram += ram_of(v);
            }
            if (st > steps_left_ || ram > ram_left_) continue;
            if (!step_fits(s_, v, gh, goal_map_[v])) continue;
            if (step(v, gh, goal_map_[v])) return true;
            if (stopped_) return false;
        }
        // Detours: any VM to any other placement with room, while the budget covers them.
        for (int v : movable_) {
            const int from = s_.host_of(v);
            for (std::size_t h = 0; h < p_.hosts.size(); ++h) {
                const int host = static_cast<int>(h);
                // Budget after the detour: its own cost plus v's need from there.
                std::int64_t st = need_steps;
                Amount ram = need_ram;
                if (!at_goal(v) && counts(from, goal_host_[v])) {
                    --st;
                    ram -= ram_of(v);
                }
                if (counts(from, host)) {
                    ++st;
                    ram += ram_of(v);
                }
                if (counts(host, goal_host_[v])) {  // v is then off its goal (goal moves are tried above)
                    ++st;
                    ram += ram_of(v);
                }
                if (st > steps_left_ || ram > ram_left_) continue;
                for (const Embedding& e : m_.evaluator(p_.hosts[h].type, p_.vms[v].flavor).placements()) {
                    if (at(v, host, e.map)) continue;
                    if (host == goal_host_[v] && std::equal(e.map.begin(), e.map.begin() + k_of(v), goal_map_[v].begin())) continue;
                    if (!step_fits(s_, v, host, e.map)) continue;
                    if (step(v, host, e.map)) return true;
                    if (stopped_) return false;
                }
            }
        }
        return false;
    }

    const CapacityModel& m_;
    const Problem& p_;
    SearchState s_;
    std::int64_t max_;
    std::vector<int> goal_host_;
    std::vector<std::array<std::uint8_t, kMaxVNuma>> goal_map_;
    std::vector<int> movable_;
    std::int64_t steps_left_ = 0;
    Amount ram_left_ = 0;
    std::vector<PlanStep> path_;
    std::unordered_map<std::string, std::pair<std::int64_t, Amount>> memo_;
    std::int64_t expansions_ = 0;
    std::chrono::steady_clock::time_point deadline_;
    bool stopped_ = false;
};

}  // namespace

OrderResult find_order(const CapacityModel& model, const std::vector<Placement>& target, std::int64_t max_expansions,
                       std::chrono::steady_clock::time_point deadline) {
    OrderSearch search(model, target, max_expansions, deadline);
    return search.run();
}

}  // namespace vmcap
