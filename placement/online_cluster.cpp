#include "placement/online_cluster.h"

#include <algorithm>
#include <stdexcept>

#include "evaluators/rules/feasibility.h"
#include "evaluators/state/capacity_model.h"
#include "evaluators/state/fit.h"

namespace vmcap {

OnlineCluster::OnlineCluster(const CapacityModel& model, Placer& placer)
    : state_(model), placer_(placer), blocked_(model.problem().flavors.size(), 0), room_failed_at_(model.problem().flavors.size(), -1) {
    for (int v = 0; v < static_cast<int>(model.problem().vms.size()); ++v) live_ += state_.is_placed(v) ? 1 : 0;
    placer_.reset(state_);
}

void OnlineCluster::set_make_room(int k, MakeRoom make_room) {
    k_ = k;
    make_room_ = std::move(make_room);
}

OnlineCluster::Arrival OnlineCluster::arrive(int vm, double departure_s) {
    Arrival out;
    const auto f = static_cast<std::size_t>(state_.flavor_of(vm));
    out.placed = !blocked_[f] && place(vm).found();
    if (!out.placed && !blocked_[f]) {
        blocked_[f] = 1;
        ++blocked_count_;
    }
    if (!out.placed && k_ > 0 && make_room_) out.placed = admit_with_migrations(vm, out);
    if (out.placed && departure_s != kNever) departures_.emplace(departure_s, vm);
    return out;
}

PlaceChoice OnlineCluster::place(int vm) {
    const PlaceChoice c = place_vm(state_, placer_, vm);
    if (c.found()) ++live_;
    return c;
}

GroupPlacement OnlineCluster::place_group(std::span<const int> group) {
    GroupPlacement g = vmcap::place_group(state_, placer_, group);
    if (g.placed()) live_ += static_cast<std::int64_t>(group.size());
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
    placer_.host_changed(state_, from);
    placer_.host_changed(state_, host);
    ++changes_;
    unblock(from);
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

void OnlineCluster::launch(int vm, int host, const std::array<std::uint8_t, kMaxVNuma>& pnuma, double start, double end, std::size_t tag) {
    steps_.push_back(Step{vm, host, pnuma, end, tag, false});
    step_events_.emplace(start, 1, static_cast<int>(steps_.size() - 1));
}

void OnlineCluster::depart_next() {
    const int vm = departures_.top().second;
    departures_.pop();
    const int h = state_.host_of(vm);
    remove_vm(state_, placer_, vm);
    --live_;
    ++departed_;
    ++changes_;
    unblock(h);
}

void OnlineCluster::next_step_event(const StepEnded& on_step) {
    const auto [time, kind, i] = step_events_.top();
    step_events_.pop();
    Step& s = steps_[static_cast<std::size_t>(i)];
    const auto ended = [&](bool moved) {
        if (on_step) on_step(s.tag, moved);
    };
    const int flavor = state_.flavor_of(s.vm);
    if (kind == 1) {  // start: hold the destination, or drop the step
        if (!state_.is_placed(s.vm) || !step_fits(state_, s.vm, s.host, s.pnuma)) {
            ended(false);
            return;
        }
        if (state_.host_of(s.vm) != s.host) {
            state_.hold(s.host, embedding(s.vm, s.pnuma), flavor, +1);
            placer_.host_changed(state_, s.host);
            s.held = true;
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
    ended(state_.is_placed(s.vm) && migrate(s.vm, s.host, s.pnuma));
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
    const std::vector<Placement> steps = make_room_(state_, vm, k_);
    for (const Placement& m : steps) {
        if (!migrate(m.vm, m.host, m.pnuma)) throw std::logic_error("online cluster: a migration make_room planned has no room");
        ++out.migrations;
    }
    if (!steps.empty() && place(vm).found()) return true;
    room_failed_at_[f] = changes_;
    return false;
}

Embedding OnlineCluster::embedding(int vm, const std::array<std::uint8_t, kMaxVNuma>& pnuma) const {
    return embedding_of(pnuma, state_.problem().flavors[static_cast<std::size_t>(state_.flavor_of(vm))].num_vnuma());
}

}  // namespace vmcap
