#include "placement/online_cluster.h"

#include <algorithm>
#include <atomic>
#include <stdexcept>

#include "evaluators/rules/feasibility.h"
#include "evaluators/state/capacity_model.h"
#include "evaluators/state/fit.h"

namespace vmcap {

namespace {
std::atomic<std::uint64_t> clusters_made{0};
}  // namespace

OnlineCluster::OnlineCluster(const CapacityModel& model, Placer& placer)
    : serial_(++clusters_made),
      state_(model),
      placer_(placer),
      blocked_(model.problem().flavors.size(), 0),
      room_failed_at_(model.problem().flavors.size(), -1) {
    on_host_.resize(model.problem().hosts.size());
    slot_.assign(model.problem().vms.size(), -1);
    for (int v = 0; v < static_cast<int>(model.problem().vms.size()); ++v)
        if (state_.is_placed(v)) {
            ++live_;
            list_vm(v);
        }
    placer_.reset(state_);
}

void OnlineCluster::set_make_room(int k, MakeRoom make_room) {
    k_ = k;
    make_room_ = std::move(make_room);
}

OnlineCluster::Arrival OnlineCluster::arrive(int vm, double departure_s) {
    flush();  // room gained since the last event (e.g. a migrate() call) goes to the reservations first
    Arrival out;
    const auto f = static_cast<std::size_t>(state_.flavor_of(vm));
    out.placed = !blocked_[f] && place(vm).found();
    if (!out.placed && !blocked_[f]) {
        blocked_[f] = 1;
        ++blocked_count_;
    }
    if (!out.placed && k_ > 0 && make_room_) out.placed = admit_with_migrations(vm, out);
    if (out.placed && departure_s != kNever) departures_.emplace(departure_s, vm);
    flush();
    return out;
}

PlaceChoice OnlineCluster::place(int vm) {
    const PlaceChoice c = place_vm(state_, placer_, vm);
    if (c.found()) {
        ++live_;
        list_vm(vm);
    }
    return c;
}

GroupPlacement OnlineCluster::place_group(std::span<const int> group) {
    GroupPlacement g = vmcap::place_group(state_, placer_, group);
    if (g.placed()) {
        live_ += static_cast<std::int64_t>(group.size());
        for (const int v : group) list_vm(v);
    }
    return g;
}

std::vector<int> OnlineCluster::batch_order(std::span<const int> vms) {
    return placer_.batch_order(state_, vms);
}

void OnlineCluster::advance_to(double t, const StepEnded& on_step) {
    while (!departures_.empty() || !step_events_.empty()) {
        const double td = next_departure();
        const double ts = step_events_.empty() ? kNever : std::get<0>(step_events_.top());
        if (std::min(td, ts) > t) return;
        if (td <= ts)
            depart_next();
        else
            next_step_event(on_step);
    }
}

void OnlineCluster::finish_steps(const StepEnded& on_step) {
    while (!step_events_.empty()) next_step_event(on_step);
}

bool OnlineCluster::migrate(int vm, int host, const std::array<std::uint8_t, kMaxVNuma>& pnuma) {
    if (!step_fits(state_, vm, host, pnuma)) return false;
    const int from = state_.host_of(vm);
    state_.move(vm, host, embedding(vm, pnuma));
    unlist_vm(vm, from);  // a remap too: its node set changed
    list_vm(vm);
    placer_.host_changed(state_, from);
    placer_.host_changed(state_, host);
    ++changes_;
    unblock(from);
    gained(from);
    return true;
}

std::vector<OnlineCluster::Migration> OnlineCluster::migrate_all(std::span<const Placement> steps) {
    std::vector<Migration> done;
    for (const Placement& m : steps) {
        Migration step;
        step.vm = m.vm;
        step.from_host = state_.host_of(m.vm);
        const int k = state_.problem().flavors[static_cast<std::size_t>(state_.flavor_of(m.vm))].num_vnuma();
        std::copy(state_.pnuma_of(m.vm), state_.pnuma_of(m.vm) + k, step.from_pnuma.begin());
        if (!migrate(m.vm, m.host, m.pnuma)) {
            undo(done);
            return {};
        }
        step.to_host = m.host;
        step.to_pnuma = m.pnuma;
        done.push_back(step);
    }
    return done;
}

void OnlineCluster::undo(std::vector<Migration>& done) {
    for (auto it = done.rbegin(); it != done.rend(); ++it)
        if (!migrate(it->vm, it->from_host, it->from_pnuma)) throw std::logic_error("online cluster: a migration could not be undone");
    done.clear();
}

void OnlineCluster::launch(int vm, int host, const std::array<std::uint8_t, kMaxVNuma>& pnuma, double start, double end, std::size_t tag,
                           double reserve_until) {
    steps_.push_back(Step{vm, host, pnuma, end, tag, false});
    const int i = static_cast<int>(steps_.size() - 1);
    step_events_.emplace(start, 1, i);
    if (!reserve_ || !state_.is_placed(vm)) return;
    reserve(i);
    if (steps_[static_cast<std::size_t>(i)].waiting && reserve_until < start) step_events_.emplace(reserve_until, 2, i);
}

std::vector<Amount> OnlineCluster::reserved_on(int host) const {
    std::vector<Amount> out(static_cast<std::size_t>(state_.nodes_of(host) * state_.problem().num_resources()), 0);
    if (const auto it = waiting_.find(host); it != waiting_.end())
        for (int i : it->second)
            for (std::size_t k = 0; k < out.size(); ++k) out[k] += steps_[static_cast<std::size_t>(i)].got[k];
    return out;
}

void OnlineCluster::reserve(int i) {
    Step& s = steps_[static_cast<std::size_t>(i)];
    const Problem& p = state_.problem();
    const int R = p.num_resources();
    const Flavor& fl = p.flavors[static_cast<std::size_t>(state_.flavor_of(s.vm))];
    s.want.assign(static_cast<std::size_t>(state_.nodes_of(s.host) * R), 0);
    s.got.assign(s.want.size(), 0);
    for (int v = 0; v < fl.num_vnuma(); ++v)
        for (int r = 0; r < R; ++r) s.want[static_cast<std::size_t>(s.pnuma[static_cast<std::size_t>(v)] * R + r)] += fl.node_demand[r];
    if (state_.host_of(s.vm) == s.host)  // a remap: its present nodes hold their share already
        for (int v = 0; v < fl.num_vnuma(); ++v)
            for (int r = 0; r < R; ++r) {
                Amount& w = s.want[static_cast<std::size_t>(state_.pnuma_of(s.vm)[v] * R + r)];
                w = std::max<Amount>(0, w - fl.node_demand[r]);
            }
    if (std::all_of(s.want.begin(), s.want.end(), [](Amount a) { return a == 0; })) return;
    s.waiting = true;
    waiting_[s.host].push_back(i);
    waiting_vm_[s.vm].push_back(i);
    top_up(s.host);
}

bool OnlineCluster::release(int i) {
    Step& s = steps_[static_cast<std::size_t>(i)];
    if (!s.waiting) return false;
    s.waiting = false;
    const auto drop = [i](std::map<int, std::vector<int>>& m, int key) {
        auto it = m.find(key);
        std::erase(it->second, i);
        if (it->second.empty()) m.erase(it);
    };
    drop(waiting_, s.host);
    drop(waiting_vm_, s.vm);
    if (std::all_of(s.got.begin(), s.got.end(), [](Amount a) { return a == 0; })) return false;
    state_.hold_amounts(s.host, s.got, -1);
    placer_.host_changed(state_, s.host);
    ++changes_;  // room grew: make_room may try again
    return true;
}

void OnlineCluster::top_up(int host) {
    const auto it = waiting_.find(host);
    if (it == waiting_.end()) return;
    const Amount* f = state_.free_of(host);
    std::vector<Amount> left(f, f + state_.nodes_of(host) * state_.problem().num_resources()), add(left.size(), 0);
    bool any = false;
    for (int i : it->second) {
        Step& s = steps_[static_cast<std::size_t>(i)];
        for (std::size_t k = 0; k < left.size(); ++k) {
            const Amount take = std::min(left[k], s.want[k] - s.got[k]);
            if (take <= 0) continue;
            s.got[k] += take;
            left[k] -= take;
            add[k] += take;
            any = true;
        }
    }
    if (!any) return;
    state_.hold_amounts(host, add, +1);
    placer_.host_changed(state_, host);
}

void OnlineCluster::gained(int host) {
    if (waiting_.contains(host)) dirty_.push_back(host);
}

void OnlineCluster::flush() {
    while (!dirty_.empty()) {
        const int h = dirty_.back();
        dirty_.pop_back();
        top_up(h);
    }
}

void OnlineCluster::depart_next() {
    const int vm = departures_.top().second;
    departures_.pop();
    const int h = state_.host_of(vm);
    unlist_vm(vm, h);
    remove_vm(state_, placer_, vm);
    --live_;
    ++departed_;
    ++changes_;
    unblock(h);
    gained(h);
    if (const auto it = waiting_vm_.find(vm); it != waiting_vm_.end())
        for (const int i : std::vector<int>(it->second)) {  // its steps will be dropped: their room is given back now
            const int to = steps_[static_cast<std::size_t>(i)].host;
            if (release(i)) {
                unblock(to);
                gained(to);
            }
        }
    flush();
}

void OnlineCluster::next_step_event(const StepEnded& on_step) {
    const auto [time, kind, i] = step_events_.top();
    step_events_.pop();
    Step& s = steps_[static_cast<std::size_t>(i)];
    const auto ended = [&](bool moved) {
        if (on_step) on_step(s.tag, moved);
    };
    const int flavor = state_.flavor_of(s.vm);
    if (kind == 2) {  // the plan's window ended before the step started: its reservation ends
        if (release(i)) {
            unblock(s.host);
            gained(s.host);
        }
        flush();
        return;
    }
    if (kind == 1) {                       // start: hold the destination, or drop the step
        const bool reserved = release(i);  // checked as without its reservation, then held in flight
        if (!state_.is_placed(s.vm) || !step_fits(state_, s.vm, s.host, s.pnuma)) {
            ended(false);
            if (reserved) {
                unblock(s.host);
                gained(s.host);
            }
            flush();
            return;
        }
        if (state_.host_of(s.vm) != s.host) {  // the hold covers what was reserved (its share of every node)
            state_.hold(s.host, embedding(s.vm, s.pnuma), flavor, +1);
            placer_.host_changed(state_, s.host);
            s.held = true;
        } else if (reserved) {  // a remap holds nothing in flight: it keeps its reservation until its end
            state_.hold_amounts(s.host, s.got, +1);
            placer_.host_changed(state_, s.host);
            s.kept = true;
        }
        step_events_.emplace(std::max(time, s.end), 0, i);
        return;
    }
    if (s.held) {  // end: the hold given back, then the VM moves
        state_.hold(s.host, embedding(s.vm, s.pnuma), flavor, -1);
        placer_.host_changed(state_, s.host);
        s.held = false;
        unblock(s.host);
    }
    if (s.kept) {
        state_.hold_amounts(s.host, s.got, -1);
        placer_.host_changed(state_, s.host);
        s.kept = false;
        unblock(s.host);
    }
    ended(state_.is_placed(s.vm) && migrate(s.vm, s.host, s.pnuma));
    gained(s.host);  // a step dropped at its end gives its hold to the waiting steps there
    flush();
}

void OnlineCluster::unblock(int host) {
    if (blocked_count_ == 0) return;
    for (std::size_t g = 0; g < blocked_.size(); ++g)
        if (blocked_[g] && first_fitting_placement(state_, static_cast<int>(g), host) >= 0) {
            blocked_[g] = 0;
            --blocked_count_;
        }
}

bool OnlineCluster::admit_with_migrations(int vm, Arrival& out) {
    const auto f = static_cast<std::size_t>(state_.flavor_of(vm));
    if (room_failed_at_[f] == changes_) return false;  // nothing departed or moved since it failed
    const std::vector<Placement> steps = make_room_(*this, vm, k_);
    if (!steps.empty()) {
        // make_room's fallback engine plans on the VMs' placement alone (cluster_now.h): room held
        // by steps in flight or reserved for them is not in its view, so a step of its plan may
        // find none: then none runs. Without holds that is a bug.
        if (migrate_all(steps).empty()) {
            if (!steps_in_flight()) throw std::logic_error("online cluster: a migration make_room planned has no room");
            room_failed_at_[f] = changes_;
            return false;
        }
        out.migrations += static_cast<int>(steps.size());
    }
    if (!steps.empty() && place(vm).found()) return true;
    room_failed_at_[f] = changes_;
    return false;
}

void OnlineCluster::list_vm(int vm) {
    std::vector<Resident>& on = on_host_[static_cast<std::size_t>(state_.host_of(vm))];
    slot_[static_cast<std::size_t>(vm)] = static_cast<int>(on.size());
    on.push_back(Resident{vm, state_.flavor_of(vm), state_.mask_of(vm), state_.migratable(vm)});
}

void OnlineCluster::unlist_vm(int vm, int host) {
    std::vector<Resident>& on = on_host_[static_cast<std::size_t>(host)];
    const int i = slot_[static_cast<std::size_t>(vm)];
    on[static_cast<std::size_t>(i)] = on.back();
    slot_[static_cast<std::size_t>(on.back().vm)] = i;
    on.pop_back();
    slot_[static_cast<std::size_t>(vm)] = -1;
}

Embedding OnlineCluster::embedding(int vm, const std::array<std::uint8_t, kMaxVNuma>& pnuma) const {
    return embedding_of(pnuma, state_.problem().flavors[static_cast<std::size_t>(state_.flavor_of(vm))].num_vnuma());
}

}  // namespace vmcap
