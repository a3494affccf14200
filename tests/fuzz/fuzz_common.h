// Shared by the libFuzzer harnesses in tests/fuzz: the fixed snapshot that fuzz_plan and
// fuzz_validate replay plans on, the abort that makes an unexpected exception a libFuzzer crash, and
// the per-process directory holding that snapshot as a file (fuzz_plan, fuzz_place).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <stdlib.h>

namespace vmcap::fuzz {

/** A small valid snapshot: CQ3 hosts (closed forms) and an explicit 4-cycle host (exact fallback,
 *  small capacities), an extra resource, three vNUMA shapes, a pinned VM and a budget. Also
 *  tests/fuzz/corpus/snapshot/fixed.json, on which the seed plans were made. */
inline constexpr const char* kSnapshot = R"({"format": "vmcap-snapshot/1",
 "source": "tests/fuzz fixed snapshot",
 "resources": ["vcpu", "ram_mib", "l3_ways"],
 "host_types": [
  {"name": "cq3", "topology": "CQ3", "node_capacity": {"vcpu": 16, "ram_mib": 65536, "l3_ways": 8}},
  {"name": "ring", "topology": {"nodes": 4, "edges": [[1, 2], [2, 3], [3, 4], [4, 1]]},
   "node_capacity": [{"vcpu": 8, "ram_mib": 32768, "l3_ways": 4}, {"vcpu": 8, "ram_mib": 32768, "l3_ways": 4},
                     {"vcpu": 8, "ram_mib": 32768, "l3_ways": 4}, {"vcpu": 4, "ram_mib": 16384, "l3_ways": 2}]}],
 "hosts": [{"id": "h1", "type": "cq3", "rack": "r1", "pod": "p1"}, {"id": "h2", "type": "cq3", "rack": "r1", "pod": "p1"},
           {"id": "h3", "type": "ring", "rack": "r2", "pod": "p1"}, {"id": "h4", "type": "cq3", "rack": "r2"}],
 "flavors": [{"name": "small", "vcpu": 2, "ram_mib": 4096, "weight": 0},
             {"name": "big", "vcpu": 8, "ram_mib": 32768, "vnuma": "K2", "weight": 1},
             {"name": "quad", "vcpu": 16, "ram_mib": 65536, "l3_ways": 4, "vnuma": "C4", "weight": 0.5}],
 "vms": [{"id": "a", "flavor": "big", "host": "h1", "pnuma": [1, 2]},
         {"id": "b", "flavor": "small", "host": "h2", "pnuma": [4], "migratable": false},
         {"id": "c", "flavor": "small", "host": "h1", "pnuma": [3]},
         {"id": "d", "flavor": "quad", "host": "h2", "pnuma": [1, 2, 3, 4]},
         {"id": "e", "flavor": "big", "host": "h3", "pnuma": [1, 2]},
         {"id": "f", "flavor": "small", "host": "h3", "pnuma": [4]},
         {"id": "g", "flavor": "big", "host": "h4", "pnuma": [7, 8]},
         {"id": "h", "flavor": "small", "host": "h4", "pnuma": [5]},
         {"id": "i", "flavor": "quad", "host": "h4", "pnuma": [1, 2, 3, 4]},
         {"id": "j", "flavor": "small", "host": "h2", "pnuma": [4]}],
 "constraints": {"max_migrations": 3, "max_migrated_ram_gib": 96}}
)";

/** What the CLI reports as "internal error" (exit 1) is a defect: print it and crash. */
[[noreturn]] inline void internal_error(const char* what) {
    std::fprintf(stderr, "vmcap fuzz: internal error (the CLI would exit 1): %s\n", what);
    std::abort();
}

/** A fresh directory (mkdtemp under the temp dir, named from `prefix`) holding cluster.json
 *  (kSnapshot); removed at exit. */
struct SnapshotDir {
    std::string path;
    explicit SnapshotDir(const char* prefix) {
        std::string tmpl = (std::filesystem::temp_directory_path() / (std::string(prefix) + ".XXXXXX")).string();
        if (!mkdtemp(tmpl.data())) internal_error("cannot create a temporary directory");
        path = tmpl;
        std::ofstream(path + "/cluster.json") << kSnapshot;
    }
    ~SnapshotDir() { std::filesystem::remove_all(path); }
};

}  // namespace vmcap::fuzz
