// OpenStack in and out: `vmcap import openstack` on fixtures in the exact JSON
// the clients print (tests/openstack/), and the import -> plan -> export round trip, the exported
// script run against a stand-in `openstack` client that keeps every server's host in a file: the
// servers end where the plan puts them, a re-run changes nothing, and a server found elsewhere
// stops the script.
#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <map>
#include <set>

#include "evaluators/state/capacity_model.h"
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
 *  host; `server migrate` rewrites it and appends "server destination" to dir/migrations.log, or
 *  fails (exit 1, nothing moved) while a file dir/fail-<server>-<destination> exists. */
void write_stand_in_client(const std::string& dir) {
    {
        std::ofstream fake(dir + "/openstack");
        fake << "#!/usr/bin/env bash\n"
                "set -eu\n"
                "state="
             << dir
             << "/cloud\n"
                "if [ \"$1 $2\" = \"server show\" ]; then cat \"$state/$3\"; exit 0; fi\n"
                "if [ \"$1 $2 $3 $4\" = \"server migrate --live-migration --host\" ] && [ \"$6\" = \"--wait\" ]; then\n"
                "  if [ -e \"$state/../fail-$7-$5\" ]; then echo \"migration of $7 to $5 failed\" >&2; exit 1; fi\n"
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
    auto r = run_vmcap("import openstack --hypervisors " + kDir + "hypervisors.json --servers " + kDir + "servers.json --flavors " + kDir +
                       "flavors.json --server-groups " + kDir +
                       "server_groups.json --reserved-host-memory-mb 4096 --node-rule free --out " + snap);
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
    auto r = run_vmcap("import openstack --hypervisors " + kDir + "hypervisors.json --servers " + kDir + "servers.json --flavors " + kDir +
                       "flavors.json --server-groups " + kDir +
                       "server_groups.json --reserved-host-memory-mb 4096 --node-rule free --out " + snap);
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
