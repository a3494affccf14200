// libFuzzer harness of `vmcap import netsolver` (instances/netsolver.h, cli/cmd_import.cpp): the
// .pn parser and conversion (netsolver_cluster), the .vn parser (parse_netsolver_vn), the instance
// list reader (read_netsolver_instance_list, through files in a private temp directory) and the
// placer (place_netsolver_vdcs, placement/netsolver_place.h: the link-fit placer under the
// engine's link-capacity rule with the ECMP routes of NetworkRoutes), then the snapshot through
// the loader, as cmd_import runs them. An InputError (invalid JSON included, as read_json makes
// it) before the snapshot is written is the documented rejection (exit 2). Then, as the CLI writes it: the
// imported snapshot must load (parse_snapshot) and every link load, recomputed from scratch over
// all vlinks, must be within its capacity. Any other exception, a crash or a broken check is a
// defect: abort.
//
// Input (a text file; seeds in tests/fuzz/corpus/netsolver):
//   [#<numa-nodes> <mbps-per-unit> <max-vdcs>]   optional first line: options (defaults 2 1000 -1)
//   <the .pn JSON>
//   --vn                                         a line; the .vn JSON after it is VDC file a<i>.vn
//   <a .vn JSON>                                 (i = 0, 1, ... in order); repeatable
//   --list                                       a line; optional: the instance list text after it
//   <list text>                                  (list.txt, beside the a<i>.vn files) gives the order
// Without --list the VDCs are offered in the order given (as `vmcap import netsolver a.vn b.vn`).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluators/network/network_load.h"
#include "instances/netsolver.h"
#include "placement/netsolver_place.h"
#include "instances/snapshot_io.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

using namespace vmcap;
namespace fs = std::filesystem;

/** A private directory for one input's list and .vn files, removed when the input is done
 *  (also on an exception: a clean-up at exit left one directory per run behind). */
struct WorkDir {
    fs::path path;
    WorkDir() {
        std::string tmpl = (fs::temp_directory_path() / "vmcap-fuzz-netsolver-XXXXXX").string();
        if (::mkdtemp(tmpl.data()) == nullptr) fuzz::internal_error("cannot make a temp directory");
        path = fs::canonical(tmpl);
    }
    WorkDir(const WorkDir&) = delete;
    WorkDir& operator=(const WorkDir&) = delete;
    ~WorkDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

struct Input {
    NetsolverOptions options;
    std::string pn;
    std::vector<std::string> vns;
    std::optional<std::string> list;
};

Input split(const std::string& text) {
    Input in;
    std::size_t at = 0;
    if (text.rfind("#", 0) == 0) {
        const std::size_t eol = text.find('\n');
        const std::string line = text.substr(1, eol == std::string::npos ? std::string::npos : eol - 1);
        int numa = 0;
        long long mbps = 0, max_vdcs = 0;
        if (std::sscanf(line.c_str(), "%d %lld %lld", &numa, &mbps, &max_vdcs) == 3) {
            in.options.numa_nodes = numa;
            in.options.mbps_per_unit = mbps;
            in.options.max_vdcs = max_vdcs;
        }
        at = eol == std::string::npos ? text.size() : eol + 1;
    }
    // Sections start at a line "--vn" or "--list".
    std::string* current = &in.pn;
    while (at < text.size()) {
        std::size_t eol = text.find('\n', at);
        if (eol == std::string::npos) eol = text.size();
        const std::string line = text.substr(at, eol - at);
        if (line == "--vn") {
            in.vns.emplace_back();
            current = &in.vns.back();
        } else if (line == "--list") {
            in.list.emplace();
            current = &*in.list;
        } else {
            current->append(line);
            current->push_back('\n');
        }
        at = eol + 1;
    }
    return in;
}

void write(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) fuzz::internal_error("cannot write a temp file");
}

/** The .vn paths in offer order, as cmd_import gets them, the files written to `dir`; nullopt if
 *  the list names a file outside `dir` (the harness reads no other files). */
std::optional<std::vector<std::string>> vn_paths(const Input& in, const fs::path& dir) {
    std::error_code ec;
    std::vector<std::string> paths;
    for (std::size_t i = 0; i < in.vns.size(); ++i) {
        paths.push_back((dir / ("a" + std::to_string(i) + ".vn")).string());
        write(paths.back(), in.vns[i]);
    }
    if (!in.list) return paths;
    const std::string list = (dir / "list.txt").string();
    write(list, *in.list);
    paths = read_netsolver_instance_list(list);  // InputError: exit 2
    for (const std::string& p : paths) {
        const fs::path c = fs::weakly_canonical(p, ec);
        if (ec || c.parent_path() != dir) return std::nullopt;
    }
    return paths;
}

/** As cmd_import's read_json: invalid JSON is an InputError (exit 2). A json::exception anywhere
 *  else (a wrongly typed value read unchecked) would be an internal error (exit 1): a defect. */
nlohmann::json parse_json(const std::string& text) {
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw InputError(std::string("invalid JSON: ") + e.what());
    }
}

/** VMCAP_FUZZ_VERBOSE=1: one line per input on stderr, what the CLI would have done (to check
 *  that seeds reach the placer: `fuzz_netsolver` with the seed files as arguments). */
bool verbose() {
    static const bool v = std::getenv("VMCAP_FUZZ_VERBOSE") != nullptr;
    return v;
}

void import(const Input& in) {
    Problem p = netsolver_cluster(parse_json(in.pn), "fuzz.pn", in.options);
    const WorkDir dir;
    const std::optional<std::vector<std::string>> paths = vn_paths(in, dir.path);
    if (!paths) return;
    std::map<std::string, NetsolverVdc> cache;
    std::vector<NetsolverVdc> vdcs;
    for (const std::string& path : *paths) {
        auto it = cache.find(path);
        if (it == cache.end()) it = cache.emplace(path, parse_netsolver_vn(parse_json(read_text_file(path)), path)).first;
        vdcs.push_back(it->second);
    }
    NetsolverPlacementStats st;
    st = place_netsolver_vdcs(p, vdcs, in.options);
    if (st.allocated != static_cast<int>(p.vdcs.size()) || st.offered > static_cast<int>(vdcs.size()))
        fuzz::internal_error("placement statistics do not match the snapshot");

    // From here on the CLI has accepted the input: a failure is a defect (it would name --out).
    Problem q;
    try {
        q = parse_snapshot(nlohmann::json::parse(snapshot_to_json(p).dump()), "out.json");
    } catch (const std::exception& e) {
        fuzz::internal_error((std::string("the imported snapshot does not load: ") + e.what()).c_str());
    }
    const NetworkRoutes routes(q);
    std::vector<int> vm_host(q.vms.size());
    for (std::size_t v = 0; v < q.vms.size(); ++v) vm_host[v] = q.vms[v].host;
    const std::vector<std::int64_t> loads = link_loads(q, routes, vm_host);
    for (int l = 0; l < routes.num_links(); ++l)
        if (loads[l] < 0 || loads[l] > routes.capacity(l))
            fuzz::internal_error(("link load beyond capacity after the import: " + routes.link_name(l)).c_str());
    (void)format_json_lines(snapshot_to_json(q));
    if (verbose())
        std::fprintf(stderr, "fuzz_netsolver: imported %zu hosts, %zu switches, %d of %d VDCs offered, %zu VMs, %zu vlinks\n",
                     q.hosts.size(), q.network.switches.size(), st.allocated, st.offered, q.vms.size(), q.vlinks.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        import(split(std::string(reinterpret_cast<const char*>(data), size)));
    } catch (const InputError& e) {
        if (verbose()) std::fprintf(stderr, "fuzz_netsolver: exit 2: %s\n", e.what());
        return 0;  // exit 2
    } catch (const std::exception& e) {
        fuzz::internal_error(e.what());
    }
    return 0;
}
