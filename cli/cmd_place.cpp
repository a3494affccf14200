// Subcommand place: admission of a stream of requests (single VMs, VDCs) on a cluster snapshot
// with a placement strategy (placement/admission.h).
#include <cmath>
#include <cstdio>
#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "cli/make_room_flags.h"
#include "cli/presets.h"
#include "evaluators/network/network_load.h"
#include "instances/printable.h"
#include "instances/requests.h"
#include "instances/snapshot_io.h"
#include "placement/admission.h"
#include "placement/placer.h"
#include "optimizer/solvers/make_room.h"

namespace vmcap::cli {

using namespace detail;

namespace {

/** pNUMA nodes as the snapshot numbers them: 1-based (docs/format.md). */
nlohmann::json one_based(const std::vector<int>& nodes) {
    nlohmann::json a = nlohmann::json::array();
    for (const int n : nodes) a.push_back(n + 1);
    return a;
}

/** One line of the per-request log (JSON Lines, docs/format.md "vmcap place --log"): where each VM
 *  was placed when admitted (later requests' migrations may move it; --out has where it ended), or
 *  why not, and the live migrations made to admit it, in order; every event with its step in the
 *  run. */
std::string log_line(const Request& r, const RequestOutcome& o, const Problem& out) {
    nlohmann::json j;
    j["request"] = o.id;
    j["offered"] = o.offered;
    j["accepted"] = o.accepted;
    j["vms"] = o.vms;
    j["placed"] = o.placed;
    nlohmann::json at = nlohmann::json::array();
    for (std::size_t k = 0; k < o.admitted.size(); ++k) {
        nlohmann::json v;
        v["vm"] = r.vdc ? r.vms[k].id : r.id;
        const AdmissionEvent& e = o.admitted[k];
        if (e.to_host >= 0) {
            v["host"] = out.hosts[static_cast<std::size_t>(e.to_host)].id;
            v["pnuma"] = one_based(e.to_pnuma);
            v["step"] = e.step;
        }
        at.push_back(v);
    }
    if (o.offered) j["placements"] = at;
    if (!o.reason.empty()) j["reason"] = o.reason;
    if (o.offered) j["seconds"] = o.seconds;
    if (!o.moves.empty()) {
        nlohmann::json moves = nlohmann::json::array();
        for (const AdmissionEvent& e : o.moves)
            moves.push_back({{"step", e.step},
                             {"vm", e.vm},
                             {"from_host", out.hosts[static_cast<std::size_t>(e.from_host)].id},
                             {"from_pnuma", one_based(e.from_pnuma)},
                             {"to_host", out.hosts[static_cast<std::size_t>(e.to_host)].id},
                             {"to_pnuma", one_based(e.to_pnuma)}});
        j["migrations"] = moves;
    }
    return j.dump() + "\n";
}

/** The link rule re-checked on its own path (the loader checks pNUMA capacity only): every arc's
 *  load of `after`, from scratch over every vlink, within its capacity or at most its load in
 *  `before`. A violation is a defect of admission: std::logic_error, nothing written. */
void check_links_from_scratch(const Problem& before, const Problem& after) {
    if (after.vlinks.empty()) return;
    auto loads = [](const Problem& q, const NetworkRoutes& routes) {
        std::vector<int> host;
        for (const Vm& vm : q.vms) host.push_back(vm.host);
        return link_loads(q, routes, host);
    };
    const NetworkRoutes routes(after);
    const std::vector<std::int64_t> load = loads(after, routes);
    const std::vector<std::int64_t> was =
        before.vlinks.empty() ? std::vector<std::int64_t>(load.size(), 0) : loads(before, NetworkRoutes(before));
    for (int l = 0; l < routes.num_links(); ++l)
        if (load[l] > std::max(routes.capacity(l), was[l]))
            throw std::logic_error("vmcap place: link " + routes.link_name(l) + " over capacity");
}

}  // namespace

int cmd_place(const Args& args) {
    po::options_description desc("vmcap place options");
    std::string cluster, requests_path, out, log, semantics;
    AdmissionOptions o;
    bool stop = false;
    MakeRoomFlags make_room_flags;
    // clang-format off
    desc.add_options()("help,h", "show this help")
        ("cluster", po::value(&cluster)->required(), "cluster snapshot (its flavors name the requests' flavors)")
        ("requests", po::value(&requests_path)->required(), "requests file (docs/format.md \"Requests\"): single VMs and VDCs, in order")
        ("placer", po::value(&o.strategy)->default_value("vmcap-fit"), ("placement strategy: " + placer_names()).c_str())
        ("strategy", po::value<std::string>(), "the former name of --placer (the name snapshot and simulate use), still accepted")
        ("semantics", po::value(&semantics)->default_value("all-or-nothing"), "all-or-nothing (a VDC's VMs all placed or none) or best-effort (each VM on its own)")
        ("stop-at-first-failure", po::bool_switch(&stop), "stop at the first request not placed whole (the published NetSolver table's rule)")
        ("batch", po::value(&o.batch)->default_value(1), "offer up to N consecutive single-VM requests together: the strategy orders or matches them as one batch (deferred-acceptance, exact), then each is placed on its own")
        ("time-limit", po::value(&o.time_limit_s)->default_value(0.0), "offer no request after this many seconds (0: no limit); the rest are reported as not offered, the outputs written")
        ("migrations-per-request", po::value(&o.migrations_per_request)->default_value(0), "when a request does not fit, at most K live migrations that make room for it (the fewest, then least RAM; with links greedy on the flavor of the VM that failed, links kept), then try it once more")
        ("out", po::value(&out), "write the cluster with the placed VMs (a snapshot, atomically)")
        ("log", po::value(&log), "write one JSON line per request: placed where, or why not (atomically)");
    // clang-format on
    add_make_room_flags(desc, make_room_flags);  // simulate's too (make_room_flags.h)
    add_preset_option(desc, command_presets("place"));
    po::variables_map vm;
    std::vector<ResolvedOption> resolved;  // the options --preset names, as resolved
    if (parse_with_preset(args, desc, vm,
                          "usage: vmcap place --cluster C --requests R [--placer S] [--semantics all-or-nothing|best-effort]\n"
                          "                   [--stop-at-first-failure] [--batch N] [--time-limit S] [--migrations-per-request K]\n"
                          "                   [--make-room-copies N] [--make-room-second always|copies] [--preset none|recommended]\n"
                          "                   [--out placed.json] [--log log.jsonl]\n"
                          "SIGINT or SIGTERM: no further request is offered; what was placed is written (exit code 130).\n"
                          "Places a stream of requests (single VMs and VDCs) on the cluster with a placement strategy, in order.",
                          command_presets("place"), &resolved))
        return 0;
    if (vm.count("strategy")) {  // one option name for the placer in every command; the old one kept
        bool placer_given = !vm["placer"].defaulted();
        for (ResolvedOption& r : resolved)
            if (r.option == "placer" && !r.from_command_line) {  // the preset's placer gives way to --strategy
                placer_given = false;
                r = {"placer", vm["strategy"].as<std::string>(), true};
            }
        if (placer_given) throw UsageError("give --placer or its former name --strategy, not both");
        o.strategy = vm["strategy"].as<std::string>();
    }
    const std::string preset = vm["preset"].as<std::string>();
    if (semantics != "all-or-nothing" && semantics != "best-effort")
        throw UsageError("--semantics must be all-or-nothing or best-effort, not '" + semantics + "'");
    o.all_or_nothing = semantics == "all-or-nothing";
    o.stop_at_first_failure = stop;
    if (o.migrations_per_request < 0) throw UsageError("--migrations-per-request must be >= 0");
    const MakeRoomOptions make_room = read_make_room_flags(make_room_flags);
    if (o.batch < 1) throw UsageError("--batch must be >= 1");
    if (!(o.time_limit_s >= 0.0) || !std::isfinite(o.time_limit_s)) throw UsageError("--time-limit must be a number of seconds >= 0");
    if (!out.empty()) check_output_path(out);
    if (!log.empty()) check_output_path(log);
    check_outputs_distinct({{"--out", out}, {"--log", log}}, {{"--cluster", cluster}, {"--requests", requests_path}});
    const Problem p = load_snapshot(cluster);
    const std::vector<Request> requests = parse_requests(read_json(requests_path), requests_path);
    o.stop = stop_on_signals();
    const AdmissionResult res = admit_requests(p, requests, o, requests_path, MakeRoomSearch(make_room));
    // Through the loader's own checks (links included), as any snapshot written.
    const Problem checked = parse_snapshot(nlohmann::json::parse(snapshot_to_json(res.problem).dump()), out.empty() ? cluster : out);
    check_links_from_scratch(p, checked);
    if (!log.empty()) {
        std::string text;
        for (std::size_t i = 0; i < requests.size(); ++i) text += log_line(requests[i], res.outcomes[i], res.problem);
        write_file_atomic(log, text);
    }
    if (!out.empty()) write_file_atomic(out, format_json_lines(snapshot_to_json(checked)));
    double seconds = 0.0;
    int offered = 0;
    for (const RequestOutcome& r : res.outcomes) {
        seconds += r.seconds;
        offered += r.offered ? 1 : 0;
    }
    if (preset != "none") std::printf("preset %s: %s\n", preset.c_str(), resolved_text(resolved).c_str());
    std::printf("placed %d of %d requests offered (%zu in the file) with %s, %s%s%s\n", res.accepted, offered, requests.size(),
                o.strategy.c_str(), semantics.c_str(), res.stopped() ? ", stopped by " : "",
                res.stopped() ? std::string(to_string(res.stopped_by)).c_str() : "");
    std::printf("%lld VMs, %lld vCPU, %.1f GiB, %lld Mbps of vlinks placed; %.1f us per request\n", static_cast<long long>(res.vms_placed),
                static_cast<long long>(res.vcpu_placed), static_cast<double>(res.ram_mib_placed) / 1024.0,
                static_cast<long long>(res.mbps_placed), offered > 0 ? 1e6 * seconds / offered : 0.0);
    if (o.migrations_per_request > 0)
        std::printf("%lld live migrations made room for %d requests (at most %d per request)\n", static_cast<long long>(res.migrations),
                    res.admitted_by_migrations, o.migrations_per_request);
    for (std::size_t i = 0; i < res.outcomes.size(); ++i)
        if (res.outcomes[i].offered && !res.outcomes[i].accepted) {
            std::printf("first not placed whole: %s (%s)\n", printable(res.outcomes[i].id).c_str(), res.outcomes[i].reason.c_str());
            break;
        }
    return res.stopped_by == StopReason::Interrupted ? kExitInterrupted : 0;
}

}  // namespace vmcap::cli
