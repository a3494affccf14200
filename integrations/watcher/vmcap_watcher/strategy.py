"""A Watcher strategy whose live migrations come from ``vmcap plan``.

``execute`` (Watcher's ``BaseStrategy`` phases) turns Watcher's compute data model into the three
listings ``vmcap import openstack`` reads (the shapes ``openstack hypervisor / server / flavor list
--long -f json`` print), lets that import build the vmcap snapshot (so the pNUMA placement of the
instances is the import's, the same as for a cloud listed with the CLI), adds what Watcher knows
and the listings cannot say (locked or excluded instances, disabled or down nodes, flavor
weights), runs ``vmcap plan`` and returns one ``migrate`` action (live) per plan step, in the plan's
order. The waves of the plan's schedule are kept in ``vmcap_waves`` for the ``vmcap_waves``
planner (planner.py), which makes them the action plan's ordering.

Watcher's model has no NUMA cells and no flavor names or extra specs (its Nova collector keeps a
server's vCPUs, RAM and disk only), so:

* every node gets the pNUMA graph of the ``host_topology`` parameter (as ``vmcap import openstack
  --host-topology``), its capacity ((vcpus - vcpu_reserved) x vcpu_ratio, (memory -
  memory_mb_reserved) x memory_ratio, Watcher's own figures, rounded down) split evenly over it;
* an instance's flavor is found by its (vCPUs, RAM MB) in the ``flavors`` parameter, which gives
  the vNUMA node count (``hw:numa_nodes``) and the weight; an instance of another size gets a
  flavor named ``<vcpus>c<ram>m`` of one vNUMA node and weight 0.
"""

import json
import math
import os
import shutil
import subprocess
import tempfile

from oslo_config import cfg
from oslo_log import log

from watcher.common import exception
from watcher.decision_engine.model import element
from watcher.decision_engine.strategy.strategies import base

LOG = log.getLogger(__name__)

PLANNERS = ("vmcap_waves", "weight")


class VmcapError(exception.WatcherException):
    msg_fmt = "vmcap strategy: %(reason)s"


def _flavor_key(vcpus, memory_mb):
    return (int(vcpus), int(memory_mb))


def flavor_table(instances, flavors_param):
    """Flavors by (vCPUs, RAM MB): those of the parameter, then one per other instance size.

    :returns: dict (vcpus, ram) -> {"name", "vcpus", "memory_mb", "numa_nodes", "weight"}
    :raises VmcapError: two parameter flavors of one size, or a repeated name
    """
    table = {}
    names = set()
    for f in flavors_param:
        key = _flavor_key(f["vcpus"], f["memory_mb"])
        if key in table:
            raise VmcapError(reason="flavors %r and %r have the same size (%d vCPUs, %d MB): "
                             "Watcher's model cannot tell their instances apart"
                             % (table[key]["name"], f["name"], key[0], key[1]))
        if f["name"] in names:
            raise VmcapError(reason="flavor name %r given twice" % f["name"])
        names.add(f["name"])
        table[key] = {"name": f["name"], "vcpus": key[0], "memory_mb": key[1],
                      "numa_nodes": int(f.get("numa_nodes", 1)),
                      "weight": float(f.get("weight", 0))}
    for inst in instances:
        key = _flavor_key(inst.vcpus, inst.memory)
        if key not in table:
            name = "%dc%dm" % key
            if name in names:
                raise VmcapError(reason="flavor name %r is taken by another size" % name)
            names.add(name)
            table[key] = {"name": name, "vcpus": key[0], "memory_mb": key[1],
                          "numa_nodes": 1, "weight": 0.0}
    return table


def listings(model, flavors):
    """The three ``openstack ... list --long -f json`` documents of the model.

    Hypervisor names are ``node<i>`` (one label, so the import keeps them whole); the returned
    ``names`` maps them back to the nodes' hostnames. Servers are listed node by node, on each the
    instances with more vNUMA nodes, then larger, first (the import places them in listed order by
    first fit; big ones first leaves it the most room). Instances mapped to no node are left out.

    :returns: (hypervisors, servers, flavors, names {node<i>: hostname}, nodes [ComputeNode])
    """
    nodes = sorted(model.get_all_compute_nodes().values(), key=lambda n: n.hostname)
    names = {}
    hypervisors, servers = [], []
    for i, node in enumerate(nodes):
        hid = "node%d" % i
        names[hid] = node.hostname
        hypervisors.append({"ID": i, "Hypervisor Hostname": hid, "State": "up",
                            "vCPUs": int(math.floor(node.vcpu_capacity)),
                            "Memory MB": int(math.floor(node.memory_mb_capacity))})
        insts = model.get_node_instances(node)
        insts.sort(key=lambda s: (-flavors[_flavor_key(s.vcpus, s.memory)]["numa_nodes"],
                                  -s.vcpus, -s.memory, s.uuid))
        for inst in insts:
            active = inst.state == element.InstanceState.ACTIVE.value
            row = {"ID": inst.uuid, "Status": "ACTIVE" if active else str(inst.state).upper(),
                   "Host": hid, "Flavor Name": flavors[_flavor_key(inst.vcpus, inst.memory)]["name"]}
            if inst.obj_attr_is_set("project_id") and inst.project_id:
                row["Project ID"] = inst.project_id
            servers.append(row)
    flavor_rows = [{"ID": str(i), "Name": f["name"], "VCPUs": f["vcpus"], "RAM": f["memory_mb"],
                    "Properties": {"hw:numa_nodes": str(f["numa_nodes"])}}
                   for i, f in enumerate(sorted(flavors.values(), key=lambda f: f["name"]))]
    return hypervisors, servers, flavor_rows, names, nodes


def patch_snapshot(snap, model, names, nodes, flavors, weights_given):
    """What Watcher knows beyond the listings, written into the imported snapshot (in place).

    Host ids become the nodes' hostnames (what Watcher's migrate action names); locked instances
    and those the audit scope excludes are not migratable; disabled or down nodes take no VM
    (``no_target_hosts``) and the instances of a down node are not migratable; with weights given
    in ``flavors``, they replace the import's default (weight 1 for flavors of two or more vNUMA
    nodes).
    """
    for h in snap["hosts"]:
        h["id"] = names[h["id"]]
    closed = [n.hostname for n in nodes
              if n.status == element.ServiceState.DISABLED.value
              or n.state == element.ServiceState.OFFLINE.value]
    down = {n.hostname for n in nodes if n.state == element.ServiceState.OFFLINE.value}
    for vm in snap["vms"]:
        vm["host"] = names[vm["host"]]
        inst = model.get_instance_by_uuid(vm["id"])
        if inst.locked or inst.watcher_exclude or vm["host"] in down:
            vm["migratable"] = False
    if closed:
        snap.setdefault("constraints", {})["no_target_hosts"] = closed
    if weights_given:
        by_name = {f["name"]: f["weight"] for f in flavors.values()}
        for f in snap["flavors"]:
            f["weight"] = by_name[f["name"]]
    return snap


def _write_json(path, doc):
    with open(path, "w") as out:
        json.dump(doc, out, indent=1)


def run_vmcap(vmcap, args):
    """Runs vmcap; its one-line error becomes a VmcapError (exit code 2: bad input, 4: time)."""
    proc = subprocess.run([vmcap] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    if proc.returncode != 0:
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        raise VmcapError(reason="`vmcap %s` exited with %d: %s"
                         % (args[0] + (" " + args[1] if args[0] == "import" else ""),
                            proc.returncode, lines[-1] if lines else "(no message)"))
    return proc.stdout


def weight_planner_parallelization():
    """How many migrate actions Watcher's weight planner runs at once (its configuration)."""
    from watcher.decision_engine.planner import weight
    group = "watcher_planners.weight"
    cfg.CONF.register_opts(weight.WeightPlanner.get_config_opts(), group=group)
    return max(1, int(cfg.CONF[group].parallelization.get("migrate", 1)))


def check_chunks_within_waves(waves, parallel):
    """The weight planner runs actions in consecutive chunks of ``parallel``, a chunk after the
    previous one has finished. That is safe when each chunk lies within one vmcap wave (a subset
    of a wave in flight fits wherever the whole wave does); otherwise two steps vmcap ordered
    would run at once.

    :raises VmcapError: naming the first chunk that spans two waves
    """
    for start in range(0, len(waves), parallel):
        chunk = waves[start:start + parallel]
        if len(set(chunk)) > 1:
            raise VmcapError(reason=(
                "Watcher's weight planner would run plan steps %d-%d at once "
                "([watcher_planners.weight] parallelization migrate:%d) but they are in vmcap's "
                "waves %d and %d; set migrate:1 there, or use the audit parameter "
                "planner=vmcap_waves" % (start + 1, start + len(chunk), parallel,
                                         chunk[0], chunk[-1])))


class VmcapStrategy(base.BaseStrategy):
    """Live migrations that raise the capacity of target flavors, planned by vmcap."""

    def __init__(self, config, osc=None):
        super().__init__(config, osc)
        self.vmcap_waves = []
        self.plan = None

    @classmethod
    def get_name(cls):
        return "vmcap"

    @classmethod
    def get_display_name(cls):
        return "vmcap: NUMA-aware capacity by live migration"

    @classmethod
    def get_translatable_display_name(cls):
        return "vmcap: NUMA-aware capacity by live migration"

    @classmethod
    def get_goal_name(cls):
        return "vmcap_capacity"

    @classmethod
    def get_config_opts(cls):
        # The binary and the work directory are the operator's (watcher.conf), not an audit
        # parameter: whoever may create an audit must not choose what the decision engine runs
        # or where it writes.
        return [
            cfg.StrOpt("vmcap_path", default="",
                       help="The vmcap binary. Empty: $VMCAP, else `vmcap` on PATH."),
            cfg.StrOpt("work_dir", default="",
                       help="Directory where each audit's listings, snapshot and plan are kept "
                            "(a subdirectory per run). Empty: a temporary directory, removed."),
        ]

    @classmethod
    def get_schema(cls):
        flavor = {
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "vcpus": {"type": "integer", "minimum": 1},
                "memory_mb": {"type": "integer", "minimum": 1},
                "numa_nodes": {"type": "integer", "minimum": 1, "maximum": 8, "default": 1},
                "weight": {"type": "number", "minimum": 0, "maximum": 100000, "default": 0},
            },
            "required": ["name", "vcpus", "memory_mb"],
            "additionalProperties": False,
        }
        return {
            "properties": {
                "flavors": {
                    "description": "Flavors by size: vNUMA nodes (hw:numa_nodes) and weight; "
                                   "weight > 0 makes a capacity target. None with a weight: "
                                   "flavors of two or more vNUMA nodes weigh 1.",
                    "type": "array", "items": flavor, "default": []},
                "host_topology": {
                    "description": "pNUMA graph of every node (vmcap's names: K2, K4, CQ3, "
                                   "2xK2, ...); capacity is split evenly over its nodes.",
                    "type": "string", "default": "K2"},
                "max_migrations": {"description": "Live-migration budget.",
                                   "type": "integer", "minimum": 0, "default": 10},
                "max_migrated_gib": {"description": "RAM budget in GiB (absent: unlimited).",
                                     "type": "number", "minimum": 0},
                "time_limit": {"description": "Seconds vmcap plan may run.",
                               "type": "number", "exclusiveMinimum": 0, "default": 30},
                "max_evaluations": {"description": "Candidate moves vmcap evaluates "
                                                   "(absent: vmcap's default). A run stopped by "
                                                   "it, not by time_limit, is reproducible.",
                                    "type": "integer", "minimum": 1},
                "seed": {"type": "integer", "minimum": 0, "default": 1},
                "algorithm": {"type": "string", "enum": ["sa", "tabu", "greedy"],
                              "default": "sa"},
                "max_concurrent": {"description": "Live migrations in flight in the cluster "
                                                  "(0: no limit; one per host either way).",
                                   "type": "integer", "minimum": 0, "default": 0},
                "planner": {"description": "vmcap_waves: the plan's waves become the action "
                                           "plan's order; weight: Watcher's weight planner.",
                            "type": "string", "enum": list(PLANNERS),
                            "default": "vmcap_waves"},
            },
        }

    def _param(self, name):
        value = self.input_parameters.get(name)
        if value is None:
            value = self.get_schema()["properties"][name].get("default")
        return value

    def _vmcap_binary(self):
        path = self.config.get("vmcap_path") or os.environ.get("VMCAP") or shutil.which("vmcap")
        if not path or not os.access(path, os.X_OK):
            raise VmcapError(reason="no vmcap binary: set [watcher_strategies.vmcap] vmcap_path "
                             "or $VMCAP (found %r)" % path)
        return path

    def pre_execute(self):
        self._pre_execute()
        planner = self._param("planner")
        if planner not in PLANNERS:
            raise VmcapError(reason="planner must be one of %s" % ", ".join(PLANNERS))
        self.planner = planner

    def do_execute(self, audit=None):
        vmcap = self._vmcap_binary()
        base_dir = self.config.get("work_dir") or None
        if base_dir:
            os.makedirs(base_dir, exist_ok=True)
        work = tempfile.mkdtemp(prefix="vmcap-watcher-", dir=base_dir)
        try:
            self._plan_in(work, vmcap)
        finally:
            if not base_dir:
                shutil.rmtree(work, ignore_errors=True)

    def _plan_in(self, work, vmcap):
        model = self.compute_model
        flavors_param = self._param("flavors")
        instances = [i for i in model.get_all_instances().values()]
        flavors = flavor_table(instances, flavors_param)
        hyps, servers, flavor_rows, names, nodes = listings(model, flavors)
        paths = {k: os.path.join(work, k + ".json")
                 for k in ("hypervisors", "servers", "flavors", "imported", "snapshot", "plan")}
        _write_json(paths["hypervisors"], hyps)
        _write_json(paths["servers"], servers)
        _write_json(paths["flavors"], flavor_rows)
        run_vmcap(vmcap, ["import", "openstack", "--hypervisors", paths["hypervisors"],
                          "--servers", paths["servers"], "--flavors", paths["flavors"],
                          "--host-topology", self._param("host_topology"),
                          "--out", paths["imported"]])
        with open(paths["imported"]) as f:
            snap = json.load(f)
        weights_given = any(f.get("weight", 0) > 0 for f in flavors_param)
        _write_json(paths["snapshot"],
                    patch_snapshot(snap, model, names, nodes, flavors, weights_given))

        args = ["plan", "--cluster", paths["snapshot"], "--out", paths["plan"], "--quiet",
                "--algorithm", self._param("algorithm"),
                "--max-migrations", str(self._param("max_migrations")),
                "--time-limit", str(self._param("time_limit")),
                "--seed", str(self._param("seed")), "--threads", "1",
                "--max-concurrent", str(self._param("max_concurrent"))]
        if self._param("max_migrated_gib") is not None:
            args += ["--max-migrated-gib", str(self._param("max_migrated_gib"))]
        if self._param("max_evaluations") is not None:
            args += ["--max-evaluations", str(self._param("max_evaluations"))]
        LOG.info("vmcap strategy: %s", " ".join([vmcap] + args))
        run_vmcap(vmcap, args)
        with open(paths["plan"]) as f:
            self.plan = json.load(f)
        self._add_actions(model)

    def _add_actions(self, model):
        where = {}  # instance uuid -> hostname, as the earlier steps leave it
        for step in self.plan["steps"]:
            uuid = step["vm"]
            inst = model.get_instance_by_uuid(uuid)
            here = where.get(uuid) or model.get_node_by_instance_uuid(uuid).hostname
            if step["from_host"] != here or step["to_host"] == here:
                raise VmcapError(reason="plan step %d moves %s from %s to %s, but it is on %s"
                                 % (step["step"], uuid, step["from_host"], step["to_host"], here))
            self.add_action_migrate(inst, "live", model.get_node_by_name(here),
                                    model.get_node_by_name(step["to_host"]))
            where[uuid] = step["to_host"]
            self.vmcap_waves.append(int(step["wave"]))
        if self.planner == "weight":
            check_chunks_within_waves(self.vmcap_waves, weight_planner_parallelization())

    def post_execute(self):
        plan = self.plan or {}
        self.solution.set_efficacy_indicators(
            instance_migrations_count=len(plan.get("steps", [])),
            weighted_capacity_before=plan.get("objective_before", 0),
            weighted_capacity_after=plan.get("objective_after", 0))
        LOG.info("vmcap strategy: %d live migration(s) in %d wave(s), weighted capacity %s -> %s",
                 len(plan.get("steps", [])), plan.get("schedule", {}).get("waves", 0),
                 plan.get("objective_before"), plan.get("objective_after"))
