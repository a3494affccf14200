// libFuzzer harness of the snapshot loader (vmcap-snapshot/1, docs/format.md). The bytes take
// load_snapshot's path without the file: json::parse, then parse_snapshot; an InputError, or a
// json::exception from either step (load_snapshot turns those into InputError), is the documented
// rejection (exit 2). A snapshot that loads is then written and reloaded as `vmcap generate`
// writes it (format_json_lines of snapshot_to_json), which must give the same document, and, when
// that is cheap, used as `vmcap capacity` uses it (the CapacityModel, whose std::invalid_argument
// cli::model_for turns into InputError, then cluster_capacity; VMCAP never above the topology-free
// bound). Any other exception, or a broken check, is a defect: abort.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "evaluators/state/cluster_capacity.h"
#include "instances/snapshot_io.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

using namespace vmcap;

/** The loaded problem, or nullopt where load_snapshot would throw InputError. */
std::optional<Problem> load(const std::string& text) {
    try {
        return parse_snapshot(nlohmann::json::parse(text), "fuzz.json");
    } catch (const InputError&) {
        return std::nullopt;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

/** Placement enumeration (CapacityModel) costs O(C(n, k)) searches per (host type, flavor): keep
 *  the sum small so that one input stays well under a millisecond. */
bool enumeration_is_cheap(const Problem& p) {
    long subsets = 0;
    for (const HostType& ht : p.host_types)
        for (const Flavor& f : p.flavors) {
            long c = 1;
            for (int i = 0; i < f.num_vnuma() && i < ht.num_nodes(); ++i) c = c * (ht.num_nodes() - i) / (i + 1);
            subsets += c;
        }
    return subsets <= 4096;
}

/** The exact fallback (no closed form) is exponential in the worst case and grows with the
 *  capacities (evaluators/closed_forms/vmcap.h): only on hosts of <= 8 nodes that take <= 16 vNUMA nodes each. */
bool exact_is_cheap(const CapacityModel& m) {
    const Problem& p = m.problem();
    for (std::size_t t = 0; t < p.host_types.size(); ++t)
        for (std::size_t f = 0; f < p.flavors.size(); ++f) {
            if (m.evaluator(static_cast<int>(t), static_cast<int>(f)).is_closed_form()) continue;
            const HostType& ht = p.host_types[t];
            if (ht.num_nodes() > 8) return false;
            for (int i = 0; i < ht.num_nodes(); ++i)
                if (m.node_b(static_cast<int>(f), &ht.node_capacity[static_cast<std::size_t>(i) * p.num_resources()]) > 16) return false;
        }
    return true;
}

void round_trip(const Problem& p) {
    const nlohmann::ordered_json doc = snapshot_to_json(p);
    const std::string written = format_json_lines(doc);
    std::optional<Problem> q;
    try {
        q = parse_snapshot(nlohmann::json::parse(written), "written.json");
    } catch (const std::exception& e) {
        fuzz::internal_error((std::string("a written snapshot does not load: ") + e.what()).c_str());
    }
    if (snapshot_to_json(*q) != doc) fuzz::internal_error("write -> reload changed the snapshot");
}

void capacity(const Problem& p) {
    if (!enumeration_is_cheap(p)) return;
    std::unique_ptr<CapacityModel> model;
    try {
        model = std::make_unique<CapacityModel>(p);
    } catch (const std::invalid_argument&) {
        return;  // weights or the objective's range: InputError (exit 2) in cli::model_for
    }
    if (!exact_is_cheap(*model)) return;
    ClusterCapacity cc;
    try {
        cc = cluster_capacity(*model, compute_node_usage(p));
    } catch (const InputError&) {
        return;  // exit 2 in the CLI
    }
    for (std::size_t i = 0; i < cc.cap.size(); ++i)
        if (cc.cap[i] < 0 || cc.cap[i] > cc.bound[i]) fuzz::internal_error("capacity negative or above its topology-free bound");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const std::optional<Problem> p = load(std::string(reinterpret_cast<const char*>(data), size));
        if (!p) return 0;
        round_trip(*p);
        capacity(*p);
    } catch (const std::exception& e) {
        fuzz::internal_error(e.what());
    }
    return 0;
}
