// OpenStack in and out: `vmcap import openstack` on fixtures in the exact JSON
// the clients print (tests/openstack/), and the import -> plan -> export round trip, the exported
// script run against a stand-in `openstack` client that keeps every server's host in a file: the
// servers end where the plan puts them, a re-run changes nothing, and a server found elsewhere
// stops the script.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "evaluators/state/capacity_model.h"
#include "evaluators/state/cluster_capacity.h"
#include "instances/openstack.h"
#include "instances/snapshot_io.h"
#include "tests/cli_run.h"

using namespace vmcap;
using vmcap::test::run_vmcap;
using vmcap::test::tmp_dir;

namespace {

const std::string kDir = VMCAP_SOURCE_DIR "/tests/openstack/";

OpenStackInput input(const std::string& name) {
    return OpenStackInput{nlohmann::json::parse(read_text_file(kDir + name)), name};
}

/** `vmcap import openstack` of the fixture cloud (with its server groups) into `snap`, under the free
 *  rule: the export tests pin first-fit cells and plans of at least two steps. */
test::CmdResult import_fixture(const std::string& snap) {
    return run_vmcap("import openstack --hypervisors " + kDir + "hypervisors.json --servers " + kDir + "servers.json --flavors " + kDir +
                     "flavors.json --server-groups " + kDir + "server_groups.json --reserved-host-memory-mb 4096 --node-rule free --out " +
                     snap);
}

std::string import_error(nlohmann::json& doc, const char* which) {
    OpenStackInput h = input("hypervisors.json"), s = input("servers.json"), f = input("flavors.json");
    OpenStackInput& target = std::string(which) == "servers" ? s : std::string(which) == "flavors" ? f : h;
    target.doc = doc;
    try {
        import_openstack(h, s, f, nullptr, OpenStackOptions{"K2", 1.0, 1.0, 4096, "free"});
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

/** The stand-in `openstack` client at dir/openstack: one file per server in dir/cloud holding its
 *  host. `server show ID -f value -c OS-EXT-SRV-ATTR:host` prints it. `[--os-compute-api-version
 *  V] server migrate --live-migration --host DEST --wait ID` fails as the real client 6.0 does
 *  below microversion 2.30 (its default is 2.1); else it rewrites the host and appends "server
 *  destination" to dir/migrations.log, or fails (exit 1, nothing moved) while a file
 *  dir/fail-<server>-<destination> exists, or succeeds leaving the server where it was (what
 *  `--wait` reports from 2.34 when Nova rolls the migration back) while dir/stay-<server>-<destination> exists. */
void write_stand_in_client(const std::string& dir) {
    {
        std::ofstream fake(dir + "/openstack");
        fake << "#!/usr/bin/env bash\n"
                "set -eu\n"
                "state="
             << dir
             << "/cloud\n"
                "ver=2.1\n"
                "if [ \"$1\" = --os-compute-api-version ]; then ver=$2; shift 2; fi\n"
                "if [ \"$1 $2\" = \"server show\" ] && [ \"$4 $5 $6 $7\" = \"-f value -c OS-EXT-SRV-ATTR:host\" ]; then cat \"$state/$3\"; "
                "exit 0; fi\n"
                "if [ \"$1 $2 $3 $4\" = \"server migrate --live-migration --host\" ] && [ \"$6\" = \"--wait\" ]; then\n"
                "  if [ \"${ver%%.*}\" != 2 ] || [ \"${ver#2.}\" -lt 30 ]; then\n"
                "    echo \"--os-compute-api-version 2.30 or greater is required when using --host\" >&2; exit 1\n"
                "  fi\n"
                "  if [ -e \"$state/../fail-$7-$5\" ]; then echo \"migration of $7 to $5 failed\" >&2; exit 1; fi\n"
                "  if [ -e \"$state/../stay-$7-$5\" ]; then echo Complete; exit 0; fi\n"
                "  echo \"$5\" > \"$state/$7.tmp\" && mv \"$state/$7.tmp\" \"$state/$7\"; echo \"$7 $5\" >> \"$state/../migrations.log\"; "
                "exit 0\n"
                "fi\n"
                "echo \"unexpected: $*\" >&2; exit 9\n";
    }
    std::filesystem::permissions(dir + "/openstack", std::filesystem::perms::owner_all);
}

std::string host_in_cloud(const std::string& dir, const std::string& server) {
    std::string now = read_text_file(dir + "/cloud/" + server);
    now.erase(now.find_last_not_of('\n') + 1);
    return now;
}

}  // namespace

TEST(OpenStack, ImportReadsTheClientsJson) {
    int skipped = 0;
    const OpenStackInput h = input("hypervisors.json"), s = input("servers.json"), f = input("flavors.json"),
                         g = input("server_groups.json");
    const Problem p = import_openstack(h, s, f, &g, OpenStackOptions{"K2", 1.0, 1.0, 4096, "free"}, &skipped);
    // Hypervisors: the one "down" is left out; ids are the compute service names the servers use.
    ASSERT_EQ(p.hosts.size(), 5U);
    EXPECT_EQ(p.hosts[0].id, "compute-01");
    ASSERT_EQ(p.host_types.size(), 1U);
    EXPECT_EQ(p.host_types[0].node_capacity, (std::vector<Amount>{32, 131072, 32, 131072}));  // 64 vCPU, 262144 MB over 2 nodes
    // Flavors: hw:numa_nodes from an object and from an older client's string.
    std::map<std::string, int> k;
    for (const Flavor& fl : p.flavors) k[fl.name] = fl.num_vnuma();
    EXPECT_EQ(k["m1.small"], 1);
    EXPECT_EQ(k["numa2.xlarge"], 2);
    EXPECT_EQ(k["numa2.2xlarge"], 2);
    EXPECT_FALSE(p.constraints.remaps_allowed);
    // Servers: the one without a host skipped; ACTIVE migratable, others pinned; project as tenant.
    const nlohmann::json servers = s.doc;
    EXPECT_EQ(skipped, 1);
    EXPECT_EQ(p.vms.size(), servers.size() - 1);
    std::map<std::string, const nlohmann::json*> by_id;
    for (const auto& row : servers) by_id[row["ID"].get<std::string>()] = &row;
    for (const Vm& vm : p.vms) {
        const auto& row = *by_id.at(vm.id);
        EXPECT_EQ(vm.migratable, row["Status"] == "ACTIVE") << vm.id;
        EXPECT_EQ(p.hosts[vm.host].id, row["Host"].get<std::string>());
        EXPECT_EQ(p.flavors[vm.flavor].name, row["Flavor Name"].get<std::string>());
        EXPECT_EQ(vm.tenant, row["Project ID"].get<std::string>());
    }
    // Server groups: "Policy" (new clients) and "Policies" with a comma-separated "Members" (old).
    ASSERT_EQ(p.server_groups.size(), 2U);
    EXPECT_EQ(p.server_groups[0].policy, GroupPolicy::AntiAffinity);
    EXPECT_EQ(p.server_groups[0].members.size(), 4U);
    EXPECT_EQ(p.server_groups[1].policy, GroupPolicy::SoftAntiAffinity);
    EXPECT_EQ(p.server_groups[1].members.size(), 3U);
    // The snapshot passes the loader's checks (every VM fits its pNUMA nodes).
    EXPECT_NO_THROW(parse_snapshot(nlohmann::json::parse(snapshot_to_json(p).dump()), "x.json"));
}

TEST(OpenStack, ImportErrorsNameTheFileAndRow) {
    auto servers = input("servers.json").doc;
    servers[3]["Flavor Name"] = "m9.huge";
    EXPECT_NE(import_error(servers, "servers").find("servers.json: [3] (ID \""), std::string::npos);
    EXPECT_NE(import_error(servers, "servers").find("unknown flavor \"m9.huge\""), std::string::npos);
    servers = input("servers.json").doc;
    servers[2]["Host"] = "compute-77";
    EXPECT_NE(import_error(servers, "servers").find("unknown or down hypervisor \"compute-77\""), std::string::npos);
    auto flavors = input("flavors.json").doc;
    flavors[2]["Properties"]["hw:numa_cpus.0"] = "0-3";
    EXPECT_NE(import_error(flavors, "flavors").find("asymmetric vNUMA nodes are not supported"), std::string::npos);
    flavors = input("flavors.json").doc;
    flavors[1]["VCPUs"] = "eight";
    EXPECT_NE(import_error(flavors, "flavors").find("flavors.json: [1] (Name \"m1.large\").VCPUs: expected an integer"), std::string::npos);
    auto hyps = nlohmann::json::object();
    EXPECT_NE(import_error(hyps, "hypervisors").find("expected the JSON array that `openstack hypervisor list --long -f json` prints"),
              std::string::npos);
}

// What the snapshot loader used to refuse after the import, naming the --out file, or what was not
// refused at all: each is now refused naming the input file and row.
TEST(OpenStack, ImportRefusesWhatTheCloudListsWithoutTheAdminRole) {
    // A non-admin user's server list: no "Host" column (it was read as 0 VMs, exit 0), or an
    // ACTIVE server without a host.
    auto servers = input("servers.json").doc;
    for (auto& row : servers) row.erase("Host");
    EXPECT_NE(import_error(servers, "servers")
                  .find("servers.json: [0] (ID \"" + servers[0]["ID"].get<std::string>() +
                        "\"): no \"Host\" column: Nova shows the server's host to the admin role only"),
              std::string::npos)
        << import_error(servers, "servers");
    servers = input("servers.json").doc;
    servers[4]["Host"] = "";
    servers[4]["Status"] = "ACTIVE";
    EXPECT_NE(import_error(servers, "servers").find("[4] (ID \""), std::string::npos);
    EXPECT_NE(import_error(servers, "servers").find("ACTIVE server without a \"Host\""), std::string::npos);
    // Duplicate and empty server IDs.
    servers = input("servers.json").doc;
    servers[5]["ID"] = servers[1]["ID"];
    EXPECT_NE(import_error(servers, "servers")
                  .find("servers.json: [5] (ID \"" + servers[1]["ID"].get<std::string>() + "\").ID: duplicate server ID (also at [1])"),
              std::string::npos)
        << import_error(servers, "servers");
    servers = input("servers.json").doc;
    servers[2]["ID"] = "";
    EXPECT_EQ(import_error(servers, "servers"), "servers.json: [2].ID: must not be empty");
    // A hypervisor list of microversion >= 2.88: no vCPUs and no memory.
    auto hyps = input("hypervisors.json").doc;
    for (auto& row : hyps) {
        row.erase("vCPUs");
        row.erase("Memory MB");
    }
    EXPECT_NE(import_error(hyps, "hypervisors").find("Nova API microversion 2.88 and later no longer report"), std::string::npos);
    EXPECT_NE(import_error(hyps, "hypervisors").find("--os-compute-api-version 2.87"), std::string::npos);
    // Ratios: infinity, NaN, 1e300 and 0 name the option; so does an empty host after the reserve.
    for (const double bad : {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(), 1e300, 0.0}) {
        try {
            import_openstack(input("hypervisors.json"), input("servers.json"), input("flavors.json"), nullptr,
                             OpenStackOptions{"K2", bad, 1.0, 0});
            ADD_FAILURE() << bad << " accepted";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("cpu_allocation_ratio must be a number in (0, 1000]"), std::string::npos) << e.what();
        }
    }
    try {
        import_openstack(input("hypervisors.json"), input("servers.json"), input("flavors.json"), nullptr,
                         OpenStackOptions{"K2", 1.0, 1.0, 300000, "free"});
        ADD_FAILURE() << "reserved memory above the hypervisors' accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("no RAM left per pNUMA node"), std::string::npos) << e.what();
    }
}

TEST(OpenStack, ImportPlanExportRunsAgainstAStandInClient) {
    const std::string dir = (tmp_dir() / "openstack-roundtrip").string();
    std::filesystem::create_directories(dir + "/cloud");
    const std::string snap = dir + "/snap.json", plan = dir + "/plan.json", script = dir + "/migrate.sh";
    auto r = import_fixture(snap);
    ASSERT_EQ(r.code, 0) << r.err;
    r = run_vmcap("plan --cluster " + snap + " --quiet --max-migrations 12 --max-evaluations 200000 --out " + plan);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto doc = nlohmann::json::parse(read_text_file(plan));
    ASSERT_GE(doc["steps"].size(), 2U);
    r = run_vmcap("export --plan " + plan + " --cluster " + snap + " --format openstack --out " + script);
    ASSERT_EQ(r.code, 0) << r.err;
    for (const char* fmt : {"csv", "json"}) {
        const auto e = run_vmcap("export --plan " + plan + " --cluster " + snap + " --format " + fmt + " --out " + dir + "/export." + fmt);
        EXPECT_EQ(e.code, 0) << e.err;
    }
    const std::string csv = read_text_file(dir + "/export.csv");
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), static_cast<long>(doc["steps"].size()) + 1);
    EXPECT_EQ(nlohmann::json::parse(read_text_file(dir + "/export.json"))["actions"].size(), doc["steps"].size());

    // The stand-in client: one file per server holding its host.
    const Problem p = load_snapshot(snap);
    for (const Vm& vm : p.vms) std::ofstream(dir + "/cloud/" + vm.id) << p.hosts[vm.host].id << "\n";
    write_stand_in_client(dir);
    const std::string run = "OPENSTACK=" + dir + "/openstack bash " + script + " >" + dir + "/run.out 2>" + dir + "/run.err";
    ASSERT_EQ(std::system(run.c_str()), 0) << read_text_file(dir + "/run.err");
    std::map<std::string, std::string> expect;
    for (const Vm& vm : p.vms) expect[vm.id] = p.hosts[vm.host].id;
    for (const auto& st : doc["steps"]) expect[st["vm"].get<std::string>()] = st["to_host"].get<std::string>();
    for (const auto& [id, host] : expect) {
        std::string now = read_text_file(dir + "/cloud/" + id);
        now.erase(now.find_last_not_of('\n') + 1);
        EXPECT_EQ(now, host) << id;
    }
    const std::string log = read_text_file(dir + "/migrations.log");
    EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), static_cast<long>(doc["steps"].size()));
    // A re-run is idempotent: every step skipped, no migration.
    ASSERT_EQ(std::system(run.c_str()), 0) << read_text_file(dir + "/run.err");
    EXPECT_EQ(read_text_file(dir + "/migrations.log"), log);
    // A server that is not where the plan expects it stops the script (a fresh run: the cloud back
    // as in the snapshot, no progress recorded).
    for (const Vm& vm : p.vms) std::ofstream(dir + "/cloud/" + vm.id) << p.hosts[vm.host].id << "\n";
    std::filesystem::remove(script + ".progress");
    const std::string first = doc["steps"][0]["vm"].get<std::string>();
    std::string elsewhere;
    for (const Host& h : p.hosts)
        if (elsewhere.empty() && h.id != doc["steps"][0]["from_host"] && h.id != doc["steps"][0]["to_host"] && h.id != expect[first])
            elsewhere = h.id;
    std::ofstream(dir + "/cloud/" + first) << elsewhere << "\n";
    EXPECT_NE(std::system(run.c_str()), 0);
    EXPECT_NE(read_text_file(dir + "/run.err").find("the plan expects"), std::string::npos) << read_text_file(dir + "/run.err");
}

TEST(OpenStack, ExportRefusesAnInvalidPlanAndRemaps) {
    const std::string dir = (tmp_dir() / "openstack-refuse").string();
    std::filesystem::create_directories(dir);
    const std::string snap = dir + "/snap.json", plan = dir + "/plan.json";
    ASSERT_EQ(run_vmcap("generate --hosts 12 --vms 60 --seed 3 --out " + snap).code, 0);
    // Free remaps: the search makes many (seed 3: 35 of 36 steps).
    ASSERT_EQ(run_vmcap("plan --cluster " + snap + " --quiet --max-evaluations 100000 --free-remaps --out " + plan).code, 0);
    auto doc = nlohmann::json::parse(read_text_file(plan));
    bool remap = false;
    for (const auto& st : doc["steps"]) remap = remap || st["from_host"] == st["to_host"];
    ASSERT_TRUE(remap);
    {
        const auto r =
            run_vmcap("export --plan " + plan + " --cluster " + snap + " --free-remaps --format openstack --out " + dir + "/m.sh");
        EXPECT_EQ(r.code, 2);
        EXPECT_NE(r.err.find("which Nova cannot run"), std::string::npos) << r.err;
        EXPECT_FALSE(std::filesystem::exists(dir + "/m.sh"));
    }
    ASSERT_FALSE(doc["steps"].empty());
    const Problem p = load_snapshot(snap);  // a step onto a host without room or from the wrong host
    doc["steps"][0]["from_host"] = doc["steps"][0]["from_host"] == p.hosts[0].id ? p.hosts[1].id : p.hosts[0].id;
    write_file_atomic(plan, doc.dump());
    const auto r = run_vmcap("export --plan " + plan + " --cluster " + snap + " --format csv --free-remaps --out " + dir + "/p.csv");
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir + "/p.csv"));
}

TEST(OpenStack, ExportedScriptRunsAServersAwayAndBackSteps) {
    // Snapshots of `vmcap import openstack` forbid remaps; the plan builder may still move a
    // server off its host (a detour that makes room) and later back onto other pNUMA nodes. On
    // the fixture, seed 4 with 12 migrations does so (steps 4 and 5). Such a plan is valid (two
    // live migrations, no remap), and the exported script runs both steps on its first run (it
    // used to skip them: the server was "already where its last step puts it").
    const std::string dir = (tmp_dir() / "openstack-away-and-back").string();
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir + "/cloud");
    const std::string snap = dir + "/snap.json", plan = dir + "/plan.json", script = dir + "/migrate.sh";
    auto r = import_fixture(snap);
    ASSERT_EQ(r.code, 0) << r.err;
    r = run_vmcap("plan --cluster " + snap + " --quiet --seed 4 --max-migrations 12 --max-evaluations 100000 --out " + plan);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto doc = nlohmann::json::parse(read_text_file(plan));
    const Problem p = load_snapshot(snap);
    std::map<std::string, std::vector<const nlohmann::json*>> by_vm;
    for (const auto& st : doc["steps"]) by_vm[st["vm"].get<std::string>()].push_back(&st);
    std::string back;  // a server whose last step returns it to its snapshot host
    for (const auto& [vm, steps] : by_vm)
        if (steps.size() >= 2 && (*steps.back())["to_host"] == (*steps.front())["from_host"]) back = vm;
    ASSERT_FALSE(back.empty()) << "no server leaves its host and comes back in this plan: the case is not exercised";
    for (const auto& st : doc["steps"]) ASSERT_NE(st["from_host"], st["to_host"]);
    r = run_vmcap("validate --cluster " + snap + " --plan " + plan);
    EXPECT_EQ(r.code, 0) << r.err;
    r = run_vmcap("export --plan " + plan + " --cluster " + snap + " --format openstack --out " + script);
    ASSERT_EQ(r.code, 0) << r.err;

    for (const Vm& vm : p.vms) std::ofstream(dir + "/cloud/" + vm.id) << p.hosts[vm.host].id << "\n";
    write_stand_in_client(dir);
    const std::string run = "OPENSTACK=" + dir + "/openstack bash " + script + " >" + dir + "/run.out 2>" + dir + "/run.err";
    // First run, with the server's return step failing: it stops there, the server away.
    const std::string home = (*by_vm[back].front())["from_host"].get<std::string>();
    const std::string away = (*by_vm[back].back())["from_host"].get<std::string>();
    const std::string fail = dir + "/fail-" + back + "-" + home;
    std::ofstream(fail) << "\n";
    EXPECT_NE(std::system(run.c_str()), 0);
    EXPECT_EQ(host_in_cloud(dir, back), away);
    // The re-run resumes: the steps done are skipped, the return step runs.
    std::filesystem::remove(fail);
    ASSERT_EQ(std::system(run.c_str()), 0) << read_text_file(dir + "/run.err");
    std::map<std::string, std::string> expect;
    for (const Vm& vm : p.vms) expect[vm.id] = p.hosts[vm.host].id;
    for (const auto& st : doc["steps"]) expect[st["vm"].get<std::string>()] = st["to_host"].get<std::string>();
    for (const auto& [id, host] : expect) EXPECT_EQ(host_in_cloud(dir, id), host) << id;
    // Every step ran exactly once, in the plan's order for each server.
    std::string expect_log;
    for (const auto& st : doc["steps"]) expect_log += st["vm"].get<std::string>() + " " + st["to_host"].get<std::string>() + "\n";
    const std::string log = read_text_file(dir + "/migrations.log");
    std::multiset<std::string> ran, planned;
    for (std::size_t a = 0, b; (b = log.find('\n', a)) != std::string::npos; a = b + 1) ran.insert(log.substr(a, b - a));
    for (std::size_t a = 0, b; (b = expect_log.find('\n', a)) != std::string::npos; a = b + 1) planned.insert(expect_log.substr(a, b - a));
    EXPECT_EQ(ran, planned) << log;
    EXPECT_NE(log.find(back + " " + away + "\n"), std::string::npos) << log;
    EXPECT_LT(log.find(back + " " + away + "\n"), log.find(back + " " + home + "\n")) << log;
    // Another re-run changes nothing: every step is recorded.
    ASSERT_EQ(std::system(run.c_str()), 0) << read_text_file(dir + "/run.err");
    EXPECT_EQ(read_text_file(dir + "/migrations.log"), log);
}

// The documents of tests/openstack/osc6/, printed by the real client (openstackclient 6.0,
// osc-placement 4.0; make.sh there): two hypervisors of 16 vCPUs and 33792 MB, servers numa-a
// (2 cells, created first), small-b, then small-c and small-d in the same second; Placement
// reserves 512 MB.
namespace {

const std::string kOsc = kDir + "osc6/";

OpenStackInput osc(const std::string& name) {
    return OpenStackInput{nlohmann::json::parse(read_text_file(kOsc + name)), name};
}

OpenStackInventories osc_inventories() {
    OpenStackInventories inv;
    inv.dir = "inventory";
    for (const auto& e : std::filesystem::directory_iterator(kOsc + "inventory"))
        inv.by_id.emplace(e.path().stem().string(), OpenStackInput{nlohmann::json::parse(read_text_file(e.path().string())),
                                                                   "inventory/" + e.path().filename().string()});
    return inv;
}

/** The shape and order tests pin vmcap's first fit (free), where the replay order decides the
 *  cells; kOscNova imports the same documents under Nova's default cell rule. */
const OpenStackOptions kOscOptions{"K2", 1.0, 1.0, 512, "free"};
const OpenStackOptions kOscNova{"K2", 1.0, 1.0, 512, "nova-spread"};

/** Server name suffix ("b01") -> "host [pNUMA nodes]". */
std::map<std::string, std::string> cells(const Problem& p) {
    std::map<std::string, std::string> out;
    for (const Vm& vm : p.vms) {
        std::string c = p.hosts[vm.host].id + " [";
        for (std::size_t k = 0; k < static_cast<std::size_t>(p.flavors[vm.flavor].num_vnuma()); ++k)
            c += (k ? "," : "") + std::to_string(vm.pnuma[k]);
        out[vm.id.substr(vm.id.size() - 3)] = c + "]";
    }
    return out;
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

// Every shape the client prints: hypervisor ids as integers (< 2.53) or UUIDs (>= 2.53); servers
// with "Flavor Name" / "Flavor ID" (< 2.47) or "Flavor" (>= 2.47), newest first as Nova lists them
// or with "Created At" in any order. Replayed oldest first, the 2-cell server created first takes
// a cell on each node before the 1-cell servers: in the listed (newest first) order vmcap's first
// fit found no node with room left and the import failed. Under nova-spread the same replay gives
// Nova's cells (here the same ones) on cells of the whole Memory MB / 2 (the reserve is host-level).
TEST(OpenStack, ImportReadsEveryMicroversionShapeOldestFirst) {
    const std::map<std::string, std::string> expect = {
        {"b01", "compute1 [0,1]"}, {"b02", "compute1 [0]"}, {"b03", "compute1 [1]"}, {"b04", "compute2 [0]"}};
    for (const char* hyp : {"hypervisors_2.1.json", "hypervisors_2.53.json"})
        for (const char* srv :
             {"servers_2.1_long.json", "servers_2.47_long.json", "servers_2.1_created.json", "servers_2.88_created_asc.json"}) {
            SCOPED_TRACE(std::string(hyp) + " " + srv);
            const OpenStackInput s = osc(srv);
            const Problem p = import_openstack(osc(hyp), s, osc("flavors.json"), nullptr, kOscOptions);
            ASSERT_EQ(p.hosts.size(), 2U);
            EXPECT_EQ(p.hosts[1].id, "compute2");
            EXPECT_EQ(p.host_types[0].node_capacity, (std::vector<Amount>{8, 16640, 8, 16640}));  // (33792 - 512) / 2
            EXPECT_EQ(cells(p), expect);
            ASSERT_EQ(p.vms.size(), 4U);  // in the listed order
            for (std::size_t v = 0; v < 4; ++v) EXPECT_EQ(p.vms[v].id, s.doc[v]["ID"]);
            EXPECT_EQ(p.vms[0].tenant, s.doc[0].contains("Project ID") ? "6a1f0c2e9b8d4c7a8e5f4d3c2b1a0f9e" : "");
            const Problem nova = import_openstack(osc(hyp), s, osc("flavors.json"), nullptr, kOscNova);
            EXPECT_EQ(nova.node_rule.name, "nova-spread");
            EXPECT_EQ(nova.node_rule.reserved_host_memory_mb, 512);
            EXPECT_EQ(nova.host_types[0].node_capacity, (std::vector<Amount>{8, 16896, 8, 16896}));  // 33792 / 2
            EXPECT_EQ(cells(nova), expect);
        }
    // "Created At" in any order: the listing reversed gives the same cells.
    OpenStackInput s = osc("servers_2.1_created.json");
    std::reverse(s.doc.begin(), s.doc.end());
    EXPECT_EQ(cells(import_openstack(osc("hypervisors_2.1.json"), s, osc("flavors.json"), nullptr, kOscOptions)), expect);
    // < 2.47 with a flavor name the client could not look up: its "Flavor ID".
    s = osc("servers_2.1_long.json");
    s.doc[0]["Flavor Name"] = "";
    EXPECT_EQ(cells(import_openstack(osc("hypervisors_2.1.json"), s, osc("flavors.json"), nullptr, kOscOptions)), expect);
    s.doc[0]["Flavor ID"] = "99";
    EXPECT_NE(error_of([&] {
                  import_openstack(osc("hypervisors_2.1.json"), s, osc("flavors.json"), nullptr, kOscOptions);
              }).find("servers_2.1_long.json: [0] (ID \"3f1c5a9e-0b7d-4e2a-8c6f-1d2e3f4a5b04\").Flavor ID: unknown flavor \"99\""),
              std::string::npos);
}

// small-c and small-d were created in the same second; Nova lists the later one (small-d) first,
// and the client's --sort-column keeps that order among equal times. With small-b, small-c and
// small-d on one host, the cells come out as if small-c had been created a second before small-d,
// whatever the listing's order, and not as in the other order: under vmcap's first fit and under
// Nova's spread, which take the same replay order.
TEST(OpenStack, ImportReplaysServersOfOneSecondInNovasOrder) {
    const auto on_compute2 = [](OpenStackInput s) {
        for (auto& row : s.doc)
            if (row["Name"] != "numa-a") row["Host"] = "compute2";
        return s;
    };
    for (const OpenStackOptions& options : {kOscOptions, kOscNova}) {
        SCOPED_TRACE(options.node_rule);
        const auto import = [&](const OpenStackInput& s) {
            return cells(import_openstack(osc("hypervisors_2.53.json"), s, osc("flavors.json"), nullptr, options));
        };
        const auto with_d_at = [&](const char* time) {
            OpenStackInput s = on_compute2(osc("servers_2.1_created.json"));
            for (auto& row : s.doc)
                if (row["Name"] == "small-d") row["Created At"] = time;
            return import(s);
        };
        const auto c_then_d = with_d_at("2026-11-20T10:07:31Z"), d_then_c = with_d_at("2026-11-20T10:07:29Z");
        ASSERT_NE(c_then_d, d_then_c) << "the order of small-c and small-d does not matter here: the case is not exercised";
        for (const char* srv : {"servers_2.1_long.json", "servers_2.1_created.json", "servers_2.88_created_asc.json"}) {
            SCOPED_TRACE(srv);
            EXPECT_EQ(import(on_compute2(osc(srv))), c_then_d);
        }
    }
}

TEST(OpenStack, ImportRefusesABadCreationTime) {
    const auto err = [](const OpenStackInput& s) {
        return error_of([&] { import_openstack(osc("hypervisors_2.1.json"), s, osc("flavors.json"), nullptr, kOscOptions); });
    };
    OpenStackInput s = osc("servers_2.1_created.json");
    s.doc[2].erase("Created At");
    EXPECT_EQ(err(s),
              "servers_2.1_created.json: [2] (ID \"3f1c5a9e-0b7d-4e2a-8c6f-1d2e3f4a5b02\"): \"Created At\" on some servers only: "
              "list every server with -c \"Created At\", or none");
    s = osc("servers_2.1_created.json");
    s.doc[1]["Created At"] = "20 Nov 2026";
    EXPECT_NE(
        err(s).find("servers_2.1_created.json: [1] (ID \"3f1c5a9e-0b7d-4e2a-8c6f-1d2e3f4a5b03\").Created At: expected an ISO 8601 time"),
        std::string::npos)
        << err(s);
    // An offset and fractional seconds are honoured: small-b at 10:30+01:00 is small-b at 09:30Z,
    // before numa-a, not at 10:30Z, after small-d.
    const auto b_at = [&](const char* time) {
        OpenStackInput t = osc("servers_2.1_created.json");
        for (auto& row : t.doc)
            if (row["Name"] == "small-b") row["Created At"] = time;
        return cells(import_openstack(osc("hypervisors_2.1.json"), t, osc("flavors.json"), nullptr, kOscOptions));
    };
    ASSERT_NE(b_at("2026-11-20T09:30:00Z"), b_at("2026-11-20T10:30:00Z")) << "small-b's time does not matter: the case is not exercised";
    EXPECT_EQ(b_at("2026-11-20T10:30:00+01:00"), b_at("2026-11-20T09:30:00Z"));
    // small-c was created at 10:07:30: half a second either side puts small-b after or before it.
    EXPECT_EQ(b_at("2026-11-20T10:07:30.5Z"), b_at("2026-11-20T10:30:00Z"));
    EXPECT_NE(b_at("2026-11-20T10:07:29.5Z"), b_at("2026-11-20T10:07:30.5Z"));
}

// Microversion >= 2.88: the client prints "vCPUs" and "Memory MB" empty. Without inventories the
// import says what to run; with Placement's inventories it reads the same capacity as at 2.87,
// once the allocation ratios and reserved memory it models are Placement's.
TEST(OpenStack, ImportTakesCapacityFromPlacementFrom288) {
    const OpenStackInput h = osc("hypervisors_2.88.json"), s = osc("servers_2.1_created.json"), f = osc("flavors.json");
    const std::string none = error_of([&] { import_openstack(h, s, f, nullptr, kOscOptions); });
    EXPECT_EQ(
        none,
        "hypervisors_2.88.json: [0] (Hypervisor Hostname \"compute1.cloud.test\"): no \"vCPUs\" or \"Memory MB\": Nova API "
        "microversion 2.88 and later no longer report a hypervisor's vCPUs and memory; run `openstack --os-compute-api-version 2.87 "
        "hypervisor list --long -f json`, or give --inventory DIR holding DIR/<ID>.json = `openstack resource provider inventory list "
        "<ID> -f json` for each hypervisor ID (Placement's capacity)");
    const OpenStackInventories inv = osc_inventories();
    const Problem p = import_openstack(h, s, f, nullptr, kOscOptions, nullptr, &inv);
    const Problem at_287 = import_openstack(osc("hypervisors_2.53.json"), s, f, nullptr, kOscOptions);
    EXPECT_EQ(p.host_types[0].node_capacity, at_287.host_types[0].node_capacity);
    EXPECT_EQ(cells(p), cells(at_287));
    const Problem nova = import_openstack(h, s, f, nullptr, kOscNova, nullptr, &inv);
    const Problem nova_287 = import_openstack(osc("hypervisors_2.53.json"), s, f, nullptr, kOscNova);
    EXPECT_EQ(nova.host_types[0].node_capacity, nova_287.host_types[0].node_capacity);
    EXPECT_EQ(nova.node_rule.reserved_host_memory_mb, 512);
    EXPECT_EQ(cells(nova), cells(nova_287));
    EXPECT_EQ(error_of([&] {
                  import_openstack(h, s, f, nullptr, OpenStackOptions{"K2", 16.0, 1.0, 512}, nullptr, &inv);
              }),
              "inventory/c0a8f0e2-3f6b-4a0e-9d4c-2b7a5e1d9f01.json: [0] (resource_class \"VCPU\").allocation_ratio: 1.0 in Placement, but "
              "the import models 16.0: pass --cpu-allocation-ratio 1.0");
    EXPECT_EQ(error_of([&] {
                  import_openstack(h, s, f, nullptr, OpenStackOptions{"K2", 1.0, 1.0, 0, "nova-spread"}, nullptr, &inv);
              }),
              "inventory/c0a8f0e2-3f6b-4a0e-9d4c-2b7a5e1d9f01.json: [1] (resource_class \"MEMORY_MB\").reserved: 512 MB in Placement, but "
              "the import models 0: pass --reserved-host-memory-mb 512");
    OpenStackInventories missing = inv;
    missing.by_id.erase("c0a8f0e2-3f6b-4a0e-9d4c-2b7a5e1d9f02");
    EXPECT_NE(error_of([&] { import_openstack(h, s, f, nullptr, kOscOptions, nullptr, &missing); })
                  .find("hypervisors_2.88.json: [1] (Hypervisor Hostname \"compute2.cloud.test\").ID: no inventory "
                        "inventory/c0a8f0e2-3f6b-4a0e-9d4c-2b7a5e1d9f02.json"),
              std::string::npos);
    OpenStackInventories both = inv;
    auto& rows = both.by_id.begin()->second.doc;
    rows.push_back(rows[0]);
    rows.back()["resource_class"] = "PCPU";
    EXPECT_NE(error_of([&] { import_openstack(h, s, f, nullptr, kOscOptions, nullptr, &both); }).find("both VCPU and PCPU"),
              std::string::npos);
    // The command line: --inventory DIR, the default node rule (nova-spread) and reserved memory (512).
    const std::string out = (tmp_dir() / "osc6-288.json").string();
    const auto r =
        run_vmcap("import openstack --hypervisors " + kOsc + "hypervisors_2.88.json --servers " + kOsc +
                  "servers_2.88_created_asc.json --flavors " + kOsc + "flavors.json --inventory " + kOsc + "inventory --out " + out);
    ASSERT_EQ(r.code, 0) << r.err;
    const Problem cli = load_snapshot(out);
    EXPECT_EQ(cli.node_rule.name, "nova-spread");
    EXPECT_EQ(cli.host_types[0].node_capacity, nova_287.host_types[0].node_capacity);
    EXPECT_EQ(cells(cli), cells(nova_287));
}

// From microversion 2.34 a live migration is asynchronous: `--wait` may report success while Nova
// rolled it back and the server stayed on its source. The script checks the host after each step
// and stops there, naming the step, the server, the planned host and the host it is on; the step is
// not recorded, and a re-run once the cause is gone resumes.
TEST(OpenStack, ExportedScriptStopsWhenAServerStaysOnItsSource) {
    const std::string dir = (tmp_dir() / "openstack-stays").string();
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir + "/cloud");
    const std::string snap = dir + "/snap.json", plan = dir + "/plan.json", script = dir + "/migrate.sh";
    auto r = import_fixture(snap);
    ASSERT_EQ(r.code, 0) << r.err;
    r = run_vmcap("plan --cluster " + snap + " --quiet --max-migrations 12 --max-evaluations 200000 --out " + plan);
    ASSERT_EQ(r.code, 0) << r.err;
    r = run_vmcap("export --plan " + plan + " --cluster " + snap + " --format openstack --out " + script);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto doc = nlohmann::json::parse(read_text_file(plan));
    const std::size_t steps = doc["steps"].size();
    ASSERT_GE(steps, 2U);
    const Problem p = load_snapshot(snap);
    for (const Vm& vm : p.vms) std::ofstream(dir + "/cloud/" + vm.id) << p.hosts[vm.host].id << "\n";
    write_stand_in_client(dir);
    const auto& first = doc["steps"][0];
    const std::string vm = first["vm"], from = first["from_host"], to = first["to_host"];
    const std::string stay = dir + "/stay-" + vm + "-" + to;
    std::ofstream(stay) << "\n";
    const std::string run = "OPENSTACK=" + dir + "/openstack bash " + script + " >" + dir + "/run.out 2>" + dir + "/run.err";
    EXPECT_NE(std::system(run.c_str()), 0);
    const std::string err = read_text_file(dir + "/run.err");
    EXPECT_NE(err.find("step 1 of " + std::to_string(steps) + ": server " + vm + " is on host " + from +
                       " after its live migration, not on the planned host " + to),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("wave 1 failed: stopping"), std::string::npos) << err;
    EXPECT_EQ(host_in_cloud(dir, vm), from);
    if (std::filesystem::exists(script + ".progress"))  // written once a step of wave 1 is done
        EXPECT_EQ(read_text_file(script + ".progress").find(" step 1\n"), std::string::npos);
    EXPECT_EQ(read_text_file(dir + "/run.out").find("wave 2 of"), std::string::npos) << "a later wave ran";
    // The cause gone, the re-run resumes and ends with every server on its planned host.
    std::filesystem::remove(stay);
    ASSERT_EQ(std::system(run.c_str()), 0) << read_text_file(dir + "/run.err");
    EXPECT_NE(read_text_file(dir + "/run.out").find("step 1 of " + std::to_string(steps) + ": " + vm + " " + from + " -> " + to + ": done"),
              std::string::npos)
        << read_text_file(dir + "/run.out");
    std::map<std::string, std::string> expect;
    for (const Vm& v : p.vms) expect[v.id] = p.hosts[v.host].id;
    for (const auto& st : doc["steps"]) expect[st["vm"].get<std::string>()] = st["to_host"].get<std::string>();
    for (const auto& [id, host] : expect) EXPECT_EQ(host_in_cloud(dir, id), host) << id;
}

// A cloud of two-cell and four-cell hypervisors (cells of 8 pCPUs and 16 GiB): the default pNUMA
// graph for some, HOST=GRAPH for others (by host id or by the listed hostname). Each host type
// is one graph and node capacity; the 4-cell server lands on a K4 host's cells; Nova's count of
// each flavor follows each host's cells. With K2 for every hypervisor the 4-cell flavor cannot
// be imported at all.
TEST(OpenStack, ImportMixesPNumaGraphsPerHypervisor) {
    using nlohmann::json;
    const auto hypervisor = [](int i, int vcpus, int mem, const char* state) {
        return json{{"ID", i},
                    {"Hypervisor Hostname", "compute" + std::to_string(i) + ".cloud.test"},
                    {"State", state},
                    {"vCPUs", vcpus},
                    {"Memory MB", mem}};
    };
    const OpenStackInput h{json::array({hypervisor(1, 16, 32768, "up"), hypervisor(2, 16, 32768, "up"), hypervisor(3, 32, 65536, "up"),
                                        hypervisor(4, 32, 65536, "up"), hypervisor(5, 24, 32768, "up"), hypervisor(6, 32, 65536, "down")}),
                           "hypervisors.json"};
    const auto flavor = [](const char* name, int vcpus, int ram, int cells) {
        return json{
            {"ID", name}, {"Name", name}, {"VCPUs", vcpus}, {"RAM", ram}, {"Properties", {{"hw:numa_nodes", std::to_string(cells)}}}};
    };
    const OpenStackInput f{json::array({flavor("c4m8", 4, 8192, 1), flavor("c8m16", 8, 16384, 2), flavor("c16m32", 16, 32768, 4)}),
                           "flavors.json"};
    json rows = json::array();
    int n = 0;
    for (const auto& [host, fl] : std::vector<std::pair<const char*, const char*>>{{"compute3", "c16m32"},
                                                                                   {"compute1", "c8m16"},
                                                                                   {"compute4", "c8m16"},
                                                                                   {"compute3", "c4m8"},
                                                                                   {"compute1", "c4m8"},
                                                                                   {"compute4", "c8m16"}}) {
        ++n;
        rows.push_back({{"ID", "server-s0" + std::to_string(n)},
                        {"Status", "ACTIVE"},
                        {"Flavor", fl},
                        {"Host", host},
                        {"Created At", "2026-11-20T10:00:0" + std::to_string(n) + "Z"}});
    }
    std::reverse(rows.begin(), rows.end());  // newest first, as Nova lists them
    const OpenStackInput s{rows, "servers.json"};
    OpenStackOptions o{"K2", 1.0, 1.0, 0, "nova-spread"};
    EXPECT_EQ(error_of([&] { import_openstack(h, s, f, nullptr, o); }),
              "flavors.json: [2] (Name \"c16m32\"): hw:numa_nodes=4 exceeds the hosts' pNUMA nodes");
    o.host_topology_of = {{"compute3", "K4"}, {"compute4.cloud.test", "K4"}, {"compute6", "K4"}};  // compute6 is down: ignored
    const Problem p = import_openstack(h, s, f, nullptr, o);
    ASSERT_EQ(p.hosts.size(), 5U);
    std::vector<std::string> types;
    for (const Host& host : p.hosts) types.push_back(p.host_types[host.type].name);
    EXPECT_EQ(types, (std::vector<std::string>{"K2-8c-16384m", "K2-8c-16384m", "K4-8c-16384m", "K4-8c-16384m", "K2-12c-16384m"}));
    ASSERT_EQ(p.host_types.size(), 3U);
    EXPECT_EQ(p.host_types[1].node_capacity, (std::vector<Amount>{8, 16384, 8, 16384, 8, 16384, 8, 16384}));
    EXPECT_EQ(p.flavors[2].vnuma.name, "K4");
    // Nova's spread: the 2-cell server after another on compute4 takes the two emptier cells.
    EXPECT_EQ(cells(p), (std::map<std::string, std::string>{{"s01", "compute3 [0,1,2,3]"},
                                                            {"s02", "compute1 [0,1]"},
                                                            {"s03", "compute4 [0,1]"},
                                                            {"s04", "compute3 [0]"},
                                                            {"s05", "compute1 [0]"},
                                                            {"s06", "compute4 [2,3]"}}));
    // Nova's count per host (rows) of c4m8, c8m16, c16m32: 2-cell hosts take no 4-cell server.
    const ClusterCapacity cc = cluster_capacity(CapacityModel(p), compute_node_usage(p));
    std::vector<std::vector<int>> count(p.hosts.size());
    for (std::size_t i = 0; i < p.hosts.size(); ++i)
        for (std::size_t k = 0; k < 3; ++k) count[i].push_back(static_cast<int>(cc.cap[i * cc.F + k]));
    EXPECT_EQ(count, (std::vector<std::vector<int>>{{1, 0, 0}, {4, 2, 0}, {3, 1, 0}, {4, 2, 1}, {4, 2, 0}}));
    // The snapshot round-trips with its three host types.
    EXPECT_EQ(parse_snapshot(snapshot_to_json(p), "mixed.json").host_types.size(), 3U);

    // Names that match no hypervisor, two names of one, a graph Nova's rule cannot model.
    const auto err = [&](std::map<std::string, std::string> of, const char* rule = "nova-spread") {
        OpenStackOptions bad{"K2", 1.0, 1.0, 0, rule};
        bad.host_topology_of = std::move(of);
        return error_of([&] { import_openstack(h, s, f, nullptr, bad); });
    };
    EXPECT_EQ(err({{"compute3", "K4"}, {"compute4", "K4"}, {"compute9", "K4"}}),
              "--host-topology compute9=K4: no hypervisor \"compute9\" in hypervisors.json (name one by its \"Hypervisor Hostname\" or "
              "its host id, the first label where unambiguous)");
    EXPECT_EQ(err({{"compute3", "K4"}, {"compute3.cloud.test", "K4"}, {"compute4", "K4"}}),
              "--host-topology compute3=... and compute3.cloud.test=K4 both name hypervisor \"compute3.cloud.test\"");
    EXPECT_NE(err({{"compute3", "K4"}, {"compute4", "C4"}})
                  .find("--host-topology of hypervisor \"compute4.cloud.test\": C4: the node rule "
                        "nova-spread needs a complete pNUMA graph (K<n>)"),
              std::string::npos);
    EXPECT_NE(err({{"compute3", "K4"}, {"compute4", "K99"}}).find("--host-topology compute4=K99: "), std::string::npos);
    // Under vmcap's own rule a C4 host is fine, and a 4-cell flavor is then C4 (K4 does not embed).
    OpenStackOptions free{"K2", 1.0, 1.0, 0, "free"};
    free.host_topology_of = {{"compute3", "K4"}, {"compute4", "C4"}};
    const Problem q = import_openstack(h, s, f, nullptr, free);
    EXPECT_EQ(q.host_types.size(), 4U);
    EXPECT_EQ(q.flavors[2].vnuma.name, "C4");
}
