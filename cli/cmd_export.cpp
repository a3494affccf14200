/**
 * @file cmd_export.cpp
 * `vmcap export --plan P --cluster C --format openstack|csv|json --out F`: a plan that `vmcap
 * validate` accepts, as something to run or read elsewhere (docs/cli.md "vmcap export"):
 *  - openstack: a bash script, one `openstack server migrate --live-migration --host DEST --wait`
 *    per step, the steps of a wave in parallel, waves one after another; resumable (each step done
 *    is recorded in a progress file; a recorded step is skipped, and so is one whose server is
 *    already where it puts it once its earlier steps are recorded) and stopping at the first surprise;
 *  - csv: one row per step (spreadsheets);
 *  - json: OpenStack Watcher-style actions ("migrate", live) with waves and times.
 */
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include <boost/program_options.hpp>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "instances/snapshot_io.h"
#include "optimizer/plan/validate.h"

namespace vmcap::cli {

namespace po = boost::program_options;
using namespace detail;

namespace {

/** `s` as one single-quoted shell word. */
std::string sh_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

/** A pNUMA list "[1, 2]" as "1 2" (CSV). */
std::string nodes(const nlohmann::json& a) {
    std::string out;
    for (const auto& n : a) {
        if (!out.empty()) out += ' ';
        out += std::to_string(n.get<int>());  // appended: "x" + to_string trips GCC 12's -Wrestrict
    }
    return out;
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string num(double x) {
    return nlohmann::json(x).dump();
}

std::string to_csv(const nlohmann::json& plan) {
    std::ostringstream o;
    o << "step,wave,start_s,end_s,vm,flavor,from_host,from_pnuma,to_host,to_pnuma,ram_gib,temporary,objective_after\n";
    for (const auto& st : plan["steps"]) {
        o << st["step"].get<long long>() << ',' << (st.contains("wave") ? std::to_string(st["wave"].get<int>()) : "") << ','
          << (st.contains("start_s") ? num(st["start_s"].get<double>()) : "") << ','
          << (st.contains("end_s") ? num(st["end_s"].get<double>()) : "") << ',' << csv_field(st["vm"].get<std::string>()) << ','
          << csv_field(st.value("flavor", "")) << ',' << csv_field(st["from_host"].get<std::string>()) << ',' << nodes(st["from_pnuma"])
          << ',' << csv_field(st["to_host"].get<std::string>()) << ',' << nodes(st["to_pnuma"]) << ','
          << (st.contains("ram_gib") ? num(st["ram_gib"].get<double>()) : "") << ',' << (st.value("temporary", false) ? "yes" : "no") << ','
          << (st.contains("objective_after") ? num(st["objective_after"].get<double>()) : "") << '\n';
    }
    return o.str();
}

nlohmann::ordered_json to_actions(const nlohmann::json& plan, const std::string& plan_file) {
    using oj = nlohmann::ordered_json;
    oj actions = oj::array();
    for (const auto& st : plan["steps"]) {
        oj a;
        a["action_type"] = "migrate";
        a["input_parameters"] = {
            {"migration_type", "live"}, {"resource_id", st["vm"]}, {"source_node", st["from_host"]}, {"destination_node", st["to_host"]}};
        a["step"] = st["step"];
        if (st.contains("wave")) a["wave"] = st["wave"];
        if (st.contains("start_s")) a["start_s"] = st["start_s"];
        if (st.contains("end_s")) a["end_s"] = st["end_s"];
        a["destination_pnuma"] = st["to_pnuma"];
        actions.push_back(a);
    }
    oj doc;
    doc["format"] = "vmcap-actions/1";
    doc["plan"] = plan_file;
    if (plan.contains("schedule")) doc["schedule"] = plan["schedule"];
    doc["actions"] = actions;
    return doc;
}

/** FNV-1a (64 bits) of `text` as 16 hex digits: the plan's id in the script's progress file. */
std::string fnv1a_hex(const std::string& text) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : text) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

/** The bash script (file comment). Throws InputError on a remap step: Nova cannot run one. */
std::string to_script(const nlohmann::json& plan, const std::string& plan_file, const std::string& cluster) {
    std::ostringstream o;
    const std::size_t n = plan["steps"].size();
    const int waves = plan.contains("schedule") ? plan["schedule"]["waves"].get<int>() : static_cast<int>(n);
    // The plan's id: progress recorded for another plan (another export to the same path) never
    // counts for this one.
    const std::string plan_id = fnv1a_hex(plan["steps"].dump());
    o << "#!/usr/bin/env bash\n"
      << "# Generated by vmcap export from " << plan_file << " (cluster " << cluster << "): " << n << " live migration(s) in " << waves
      << " wave(s).\n"
      << "# Each step, once done, is recorded in the progress file (VMCAP_PROGRESS, default: this script's path\n"
      << "# + .progress), so a re-run resumes: a recorded step is skipped, and so is a step whose server is\n"
      << "# already where the step puts it once every earlier step of that server is recorded (a server that\n"
      << "# leaves its host and comes back later moves both times); else `openstack --os-compute-api-version 2.30\n"
      << "# server migrate --live-migration --host DEST --wait`, then `openstack server show` must put the server\n"
      << "# on DEST. The microversion is pinned on the command: --host needs 2.30 or later; at 2.30 to 2.33 Nova\n"
      << "# refuses a destination that does not fit at once (HTTP 400: the command fails), from 2.34 the request\n"
      << "# is asynchronous and --wait may report success while the server stayed on its source, hence the check.\n"
      << "# The steps of one wave run in parallel (the plan's waves keep its concurrency limits and rules with\n"
      << "# every migration in flight); the waves one after another. The script stops at the first surprise (a\n"
      << "# server not where the plan expects it, a failed migration), naming the step. Nova chooses the\n"
      << "# destination's NUMA cells itself, by its own rule: vmcap's to_pnuma may differ from the cells Nova takes.\n"
      << "# Needs the openstack client with admin credentials (OS_CLOUD or OS_* variables); OPENSTACK=... overrides it.\n"
      << "set -euo pipefail\n"
      << "OPENSTACK=${OPENSTACK:-openstack}\n"
      << "PROGRESS=${VMCAP_PROGRESS:-${BASH_SOURCE[0]:-$0}.progress}\n"
      << "PLAN_ID=" << plan_id << "\n"
      << "STEPS=" << n << "\n"
      << "host_of() { \"$OPENSTACK\" server show \"$1\" -f value -c OS-EXT-SRV-ATTR:host; }\n"
      << "ran() { [ -f \"$PROGRESS\" ] && grep -qxF \"$PLAN_ID step $1\" \"$PROGRESS\"; }\n"
      << "record() { echo \"$PLAN_ID step $1\" >>\"$PROGRESS\"; }\n"
      << "step() {  # step, server, from, to, the server's earlier steps (\"\" or \"3 7\")\n"
      << "  local n=$1 id=$2 from=$3 to=$4 earlier=$5 now e\n"
      << "  if ran \"$n\"; then echo \"step $n: $id: done before (recorded in $PROGRESS): skipped\"; return 0; fi\n"
      << "  now=$(host_of \"$id\")\n"
      << "  if [ \"$now\" = \"$to\" ]; then\n"
      << "    for e in $earlier; do ran \"$e\" || now=\"$now (step $e of it not done yet)\"; done\n"
      << "    if [ \"$now\" = \"$to\" ]; then echo \"step $n: $id already on $now: skipped\"; record \"$n\"; return 0; fi\n"
      << "  fi\n"
      << "  if [ \"$now\" != \"$from\" ]; then echo \"step $n of $STEPS: server $id is on host $now, the plan expects it on $from: "
         "stopping\" >&2; return 1; fi\n"
      << "  if ! \"$OPENSTACK\" --os-compute-api-version 2.30 server migrate --live-migration --host \"$to\" --wait \"$id\"; then\n"
      << "    echo \"step $n of $STEPS: the live migration of server $id from $from to $to failed: stopping\" >&2; return 1\n"
      << "  fi\n"
      << "  now=$(host_of \"$id\")\n"
      << "  if [ \"$now\" != \"$to\" ]; then\n"
      << "    echo \"step $n of $STEPS: server $id is on host $now after its live migration, not on the planned host $to\" \\\n"
      << "      \"(Nova reported success; \\`openstack server event list $id\\` says why it stayed): stopping\" >&2\n"
      << "    return 1\n"
      << "  fi\n"
      << "  record \"$n\"\n"
      << "  echo \"step $n of $STEPS: $id $from -> $to: done\"\n"
      << "}\n"
      << "wave() {  # wave, then its steps' arguments, five each: in parallel; fails if any fails\n"
      << "  local w=$1 pids=() rc=0; shift\n"
      << "  while [ $# -gt 0 ]; do step \"$1\" \"$2\" \"$3\" \"$4\" \"$5\" & pids+=($!); shift 5; done\n"
      << "  for p in \"${pids[@]}\"; do wait \"$p\" || rc=1; done\n"
      << "  if [ $rc -ne 0 ]; then echo \"wave $w failed: stopping\" >&2; exit 1; fi\n"
      << "}\n";
    int current = -1;
    std::size_t i = 0;
    std::map<std::string, std::string> earlier;  // server -> its steps so far ("3 7")
    for (const auto& st : plan["steps"]) {
        const std::string from = st["from_host"].get<std::string>(), to = st["to_host"].get<std::string>();
        if (from == to)
            throw InputError(plan_file + ": steps[" + std::to_string(i) + "]: a remap (other pNUMA nodes of host \"" + from +
                             "\"), which Nova cannot run: plan with --no-remaps (snapshots of vmcap import openstack forbid them)");
        const int w = st.contains("wave") ? st["wave"].get<int>() : static_cast<int>(i) + 1;
        if (w != current) {
            if (current >= 0) o << "\n";
            current = w;
            o << "echo \"wave " << w << " of " << waves << "\"\nwave " << w;
        }
        const std::string vm = st["vm"].get<std::string>();
        const std::string number = std::to_string(st["step"].get<long long>());
        std::string& before = earlier[vm];
        o << " \\\n  " << number << ' ' << sh_quote(vm) << ' ' << sh_quote(from) << ' ' << sh_quote(to) << ' ' << sh_quote(before);
        before += (before.empty() ? "" : " ") + number;
        ++i;
    }
    if (current >= 0) o << "\n";
    o << "echo \"plan done: " << n << " live migration(s)\"\n";
    return o.str();
}

}  // namespace

int cmd_export(const Args& args) {
    po::options_description desc("vmcap export options");
    std::string cluster, plan_file, format, out;
    // clang-format off
    desc.add_options()("help,h", "show this help")
        ("plan", po::value(&plan_file)->required(), "migration plan JSON (vmcap plan or vmcap exact)")
        ("cluster", po::value(&cluster), "the snapshot the plan was made for (default: the bundled example); the plan is validated on it first")
        ("free-remaps", "remaps use no budget, as with vmcap plan --free-remaps (for the validation)")
        ("format", po::value(&format)->default_value("openstack"), "openstack (a bash script of openstack server migrate commands), csv, or json (Watcher-style actions)")
        ("out", po::value(&out)->required(), "file to write (atomically)");
    // clang-format on
    po::variables_map vm;
    if (parse(args, desc, vm,
              "usage: vmcap export --plan P [--cluster C] [--format openstack|csv|json] --out F\n"
              "Writes a valid plan as a runnable OpenStack script, CSV or JSON actions."))
        return 0;
    if (format != "openstack" && format != "csv" && format != "json") throw UsageError("--format must be openstack, csv or json");
    check_output_path(out);
    if (cluster.empty()) cluster = default_cluster_path();
    check_outputs_distinct({{"--out", out}}, {{"--plan", plan_file}, {"--cluster", cluster}});
    nlohmann::json doc;
    Problem p;
    PlanCheck r;
    if (!load_valid_plan("export", cluster, plan_file, vm, doc, p, r)) return 3;
    std::string text;
    if (format == "csv")
        text = to_csv(doc);
    else if (format == "json")
        text = format_json_lines(to_actions(doc, plan_file));
    else
        text = to_script(doc, plan_file, cluster);
    write_file_atomic(out, text);
    if (format == "openstack") std::filesystem::permissions(out, std::filesystem::perms::owner_exec, std::filesystem::perm_options::add);
    std::printf("exported %s: %d step(s) as %s\n", out.c_str(), r.steps, format.c_str());
    return 0;
}

}  // namespace vmcap::cli
