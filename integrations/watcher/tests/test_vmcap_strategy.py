"""The vmcap Watcher strategy through Watcher's own loaders, faker model and planners.

Run by CTest (`watcher_strategy`) as `/usr/bin/python3 test_vmcap_strategy.py` with $VMCAP naming
the vmcap binary. Without python3-watcher (or without $VMCAP) it prints why and exits 77, which
CTest reports as skipped.

The package is not installed for the test: setUpModule puts integrations/watcher on sys.path and
writes a dist-info whose entry_points.txt is setup.cfg's [options.entry_points], so Watcher's
loaders (stevedore, by entry point) find exactly what an installed package declares.
"""

import configparser
import json
import os
import shutil
import sys
import tempfile
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)
SKIP_CODE = 77

try:
    from watcher.common import utils as watcher_utils
    from watcher.decision_engine.loading import default as loading
    from watcher.decision_engine.model import element
    from watcher.decision_engine.model import model_root
    from watcher.decision_engine.planner import weight as weight_planner
    from watcher.tests.db import base as db_base
    from watcher.tests.db import utils as db_utils
    from watcher.tests.decision_engine.model import faker_cluster_state
    WATCHER_MISSING = None
except ImportError as exc:  # python3-watcher not installed
    WATCHER_MISSING = "python3-watcher is not importable (%s): apt-get install python3-watcher" % exc

VMCAP = os.environ.get("VMCAP")
if WATCHER_MISSING:
    SKIP_REASON = WATCHER_MISSING
elif not VMCAP or not os.access(VMCAP, os.X_OK):
    SKIP_REASON = "VMCAP does not name the vmcap binary (%r)" % VMCAP
else:
    SKIP_REASON = None

_dist_dir = None


def setUpModule():
    """Make the package findable by entry point, as `pip install` would."""
    global _dist_dir
    if SKIP_REASON:
        raise unittest.SkipTest(SKIP_REASON)
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(PACKAGE_ROOT, "setup.cfg"))
    _dist_dir = tempfile.mkdtemp(prefix="vmcap-watcher-dist-")
    info = os.path.join(_dist_dir, "vmcap_watcher-%s.dist-info" % cfg["metadata"]["version"])
    os.mkdir(info)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
                % (cfg["metadata"]["name"], cfg["metadata"]["version"]))
    with open(os.path.join(info, "entry_points.txt"), "w") as f:
        for group, lines in cfg["options.entry_points"].items():
            f.write("[%s]\n%s\n\n" % (group, lines.strip()))
    sys.path.insert(0, PACKAGE_ROOT)
    sys.path.insert(0, _dist_dir)


def tearDownModule():
    if _dist_dir:
        sys.path.remove(_dist_dir)
        sys.path.remove(PACKAGE_ROOT)
        shutil.rmtree(_dist_dir, ignore_errors=True)


def scenario_1():
    """Watcher's faker model: 5 nodes of 40 vCPUs / 132 MB, 8 of its 35 instances (10 vCPUs,
    2 MB) on nodes 0, 0, 1, 2, 2, 2, 3, 4."""
    return faker_cluster_state.FakerModelCollector().build_scenario_1()


def scenario_numa():
    """Written here (the XML scenarios are not in the package): 5 nodes of 16 vCPUs / 32768 MB
    (K2: 8 vCPUs / 16384 MB per pNUMA node), one instance of 2 vCPUs / 12288 MB on each, so a
    pNUMA node holds at most one and no node has room for a 2-cell 16c/32768 flavor. The instance
    on node 2 is locked, the one on node 1 is stopped (neither may move), node 4 is disabled (it
    takes no instance but its own may leave)."""
    model = model_root.ModelRoot()
    for i in range(5):
        model.add_node(element.ComputeNode(
            uuid="NODE_%d" % i, hostname="compute-%d.example.org" % i,
            status="disabled" if i == 4 else "enabled", state="up",
            memory=32768, memory_mb_reserved=0, memory_ratio=1.0,
            disk=500, disk_gb_reserved=0, disk_ratio=1.0, disk_capacity=500,
            vcpus=16, vcpu_reserved=0, vcpu_ratio=1.0))
    for i in range(5):
        inst = element.Instance(
            uuid="00000000-0000-4000-8000-00000000000%d" % i, name="vm-%d" % i,
            state="stopped" if i == 1 else "active", locked=(i == 2),
            memory=12288, disk=20, disk_capacity=20, vcpus=2, metadata={},
            project_id="91FFFE30-78A0-4152-ACD2-8310FF274DC9")
        model.add_instance(inst)
        model.map_instance(inst, model.get_node_by_uuid("NODE_%d" % i))
    return model


NUMA_FLAVORS = [{"name": "c2m12", "vcpus": 2, "memory_mb": 12288},
                {"name": "numa2.c16m32", "vcpus": 16, "memory_mb": 32768, "numa_nodes": 2,
                 "weight": 1}]


@unittest.skipIf(SKIP_REASON, SKIP_REASON)
class VmcapStrategyTest(unittest.TestCase if WATCHER_MISSING else db_base.DbTestCase):

    def setUp(self):
        super().setUp()
        self.work = tempfile.mkdtemp(prefix="vmcap-watcher-test-")
        self.addCleanup(shutil.rmtree, self.work, True)
        goal = db_utils.create_test_goal(name="vmcap_capacity")
        strategy = db_utils.create_test_strategy(name="vmcap", goal_id=goal.id)
        self.audit = db_utils.create_test_audit(
            uuid=watcher_utils.generate_uuid(), goal_id=goal.id, strategy_id=strategy.id)

    def run_strategy(self, model, **params):
        """Loads the strategy by entry point, fills the parameters' defaults as Watcher's
        strategy context does, runs it on the model; returns (strategy, solution, plan file)."""
        strategy = loading.DefaultStrategyLoader().load("vmcap")
        self.assertEqual("vmcap_capacity", strategy.goal.name)
        strategy.config.work_dir = self.work
        watcher_utils.StrictDefaultValidatingDraft4Validator(strategy.get_schema()).validate(params)
        strategy.input_parameters.update(params)
        strategy._compute_model = model
        before = set(os.listdir(self.work))
        solution = strategy.execute()
        (run,) = set(os.listdir(self.work)) - before  # the run's own directory (names are random)
        with open(os.path.join(self.work, run, "plan.json")) as f:
            plan = json.load(f)
        with open(os.path.join(self.work, run, "snapshot.json")) as f:
            self.snapshot = json.load(f)
        return strategy, solution, plan

    def schedule(self, planner_name, solution, parallel_migrations=None):
        """The solution through a planner loaded by entry point; the created actions in a
        topological order of the action graph, and the graph."""
        planner = loading.DefaultPlannerLoader().load(planner_name)
        if parallel_migrations is not None:
            planner.config.parallelization = dict(planner.config.parallelization,
                                                  migrate=parallel_migrations)
        with mock.patch.object(type(planner), "create_scheduled_actions",
                               wraps=planner.create_scheduled_actions) as created:
            action_plan = planner.schedule(self.context, self.audit.id, solution)
        self.assertIsNotNone(action_plan.uuid)
        if not solution.actions:
            return [], None
        graph = created.call_args[0][0]
        import networkx as nx
        return list(nx.topological_sort(graph)), graph

    def assert_plan_actions(self, model_factory, actions, plan):
        """Independent checks: live migrates whose source is where the instance is, the plan's
        destinations in the plan's order, and no node over its vCPUs or memory at any step."""
        self.assertEqual(len(plan["steps"]), len(actions))
        model = model_factory()
        for action, step in zip(actions, plan["steps"]):
            self.assertEqual("migrate", action.action_type)
            params = action.input_parameters
            self.assertEqual("live", params["migration_type"])
            self.assertEqual(step["vm"], action.input_parameters["resource_id"])
            self.assertEqual(step["to_host"], params["destination_node"])
            inst = model.get_instance_by_uuid(action.input_parameters["resource_id"])
            src = model.get_node_by_instance_uuid(inst.uuid)
            self.assertEqual(src.hostname, params["source_node"])
            dst = model.get_node_by_name(params["destination_node"])
            self.assertNotEqual(src.uuid, dst.uuid)
            model.migrate_instance(inst, src, dst)
            for node in model.get_all_compute_nodes().values():
                free = model.get_node_free_resources(node)
                self.assertGreaterEqual(free["vcpu"], 0, node.hostname)
                self.assertGreaterEqual(free["memory"], 0, node.hostname)
        return model

    def test_scenario_1_weight_planner_one_at_a_time(self):
        big = {"name": "full", "vcpus": 40, "memory_mb": 132, "numa_nodes": 2, "weight": 1}
        strategy, solution, plan = self.run_strategy(
            scenario_1(), flavors=[big], max_migrations=3, planner="weight", seed=3,
            max_evaluations=200000)
        self.assertGreater(plan["objective_after"], plan["objective_before"])
        self.assertTrue(solution.actions)
        actions, graph = self.schedule("weight", solution, parallel_migrations=1)
        # One at a time: each action's only parent is the one before it, so Watcher runs them
        # in exactly the plan's order.
        for before, after in zip(actions, actions[1:]):
            self.assertEqual([before.uuid], after.parents)
        self.assertEqual([], actions[0].parents)
        final = self.assert_plan_actions(scenario_1, actions, plan)
        empty = [n for n in final.get_all_compute_nodes().values() if not final.get_node_instances(n)]
        self.assertEqual(plan["capacity_after"]["full"], len(empty))
        indicators = {i.name: i.value for i in solution.efficacy_indicators}
        self.assertEqual(len(plan["steps"]), indicators["instance_migrations_count"])
        self.assertEqual(plan["objective_after"], indicators["weighted_capacity_after"])

    def test_numa_scenario_wave_planner(self):
        # max_concurrent 0: both migrations in one wave; 1: one wave each.
        for max_concurrent, wave_count in ((0, 1), (1, 2)):
            with self.subTest(max_concurrent=max_concurrent):
                shutil.rmtree(self.work)
                os.mkdir(self.work)
                self.check_numa_scenario(max_concurrent, wave_count)

    def check_numa_scenario(self, max_concurrent, wave_count):
        strategy, solution, plan = self.run_strategy(
            scenario_numa(), flavors=NUMA_FLAVORS, max_migrations=4, seed=1,
            max_evaluations=200000, max_concurrent=max_concurrent)
        self.assertEqual("vmcap_waves", strategy.planner)
        # What Watcher knows beyond the listings reached the snapshot vmcap planned on.
        self.assertEqual(["compute-4.example.org"], self.snapshot["constraints"]["no_target_hosts"])
        fixed = sorted(vm["id"] for vm in self.snapshot["vms"] if not vm.get("migratable", True))
        self.assertEqual(["00000000-0000-4000-8000-000000000001",
                          "00000000-0000-4000-8000-000000000002"], fixed)
        self.assertEqual({"c2m12": 0, "numa2.c16m32": 1},
                         {f["name"]: f["weight"] for f in self.snapshot["flavors"]})
        self.assertEqual(0, plan["objective_before"])
        # Two nodes emptied: nodes 1 and 2 (stopped, locked instance) have one free pNUMA node
        # each, node 4 is disabled, so two of the instances of nodes 0, 3 and 4 can go.
        self.assertEqual(2, plan["objective_after"])
        self.assertEqual(wave_count, plan["schedule"]["waves"])
        actions, graph = self.schedule(strategy.planner, solution)

        def key(a):
            return (a.input_parameters["resource_id"], a.input_parameters["destination_node"])
        by_uuid = {a.uuid: a for a in actions}
        wave_of = {(s["vm"], s["to_host"]): s["wave"] for s in plan["steps"]}
        self.assertEqual(sorted(wave_of), sorted(key(a) for a in actions))
        # Every action of wave k has every action of wave k - 1, and only those, as parents.
        for a in actions:
            w = wave_of[key(a)]
            self.assertEqual(sorted(by_uuid[p].uuid for p in a.parents),
                             sorted(b.uuid for b in actions if wave_of[key(b)] == w - 1))
        ordered = sorted(actions, key=lambda a: wave_of[key(a)])
        model = self.assert_plan_actions(scenario_numa, ordered, plan)
        # Neither the locked nor the stopped instance moved, nothing went to the disabled node.
        for a in actions:
            self.assertNotIn(a.input_parameters["resource_id"],
                             ("00000000-0000-4000-8000-000000000001",
                              "00000000-0000-4000-8000-000000000002"))
            self.assertNotEqual("compute-4.example.org", a.input_parameters["destination_node"])
        # In flight, a wave's instances count on their source and destination: within capacity.
        start = scenario_numa()
        for w in range(1, wave_count + 1):
            steps = [s for s in plan["steps"] if s["wave"] == w]
            extra = {}
            for s in steps:
                inst = start.get_instance_by_uuid(s["vm"])
                v, m = extra.get(s["to_host"], (0, 0))
                extra[s["to_host"]] = (v + inst.vcpus, m + inst.memory)
            for host, (v, m) in extra.items():
                free = start.get_node_free_resources(start.get_node_by_name(host))
                self.assertLessEqual(v, free["vcpu"])
                self.assertLessEqual(m, free["memory"])
            for s in steps:
                start.migrate_instance(start.get_instance_by_uuid(s["vm"]),
                                       start.get_node_by_name(s["from_host"]),
                                       start.get_node_by_name(s["to_host"]))
        self.assertEqual(2, sum(1 for n in model.get_all_compute_nodes().values()
                                if not model.get_node_instances(n)))

    def test_nothing_to_do_gives_an_empty_solution(self):
        # One-cell 10-vCPU flavor on nodes whose free vCPUs are multiples of 10 per pNUMA node:
        # the capacity is already the topology-free bound, no migration can raise it.
        same = {"name": "c10", "vcpus": 10, "memory_mb": 2, "weight": 1}
        strategy, solution, plan = self.run_strategy(scenario_1(), flavors=[same])
        self.assertEqual([], plan["steps"])
        self.assertEqual([], list(solution.actions))
        actions, _ = self.schedule("weight", solution)
        self.assertEqual([], actions)

    def test_weight_planner_chunks_must_stay_in_waves(self):
        from vmcap_watcher import strategy as vs
        vs.check_chunks_within_waves([1, 1, 2, 2, 3], 2)
        vs.check_chunks_within_waves([1, 2, 3], 1)
        with self.assertRaisesRegex(vs.VmcapError, "steps 3-4 .* waves 2 and 3"):
            vs.check_chunks_within_waves([1, 1, 2, 3], 2)

    def test_weight_planner_across_waves_is_refused(self):
        # One migration in flight: the two steps are waves 1 and 2, and Watcher's weight planner
        # (parallelization migrate:2 by default, read from its configuration) would run them at once.
        from vmcap_watcher import strategy as vs
        with self.assertRaisesRegex(vs.VmcapError, "steps 1-2 at once .* waves 1 and 2"):
            self.run_strategy(scenario_numa(), flavors=NUMA_FLAVORS, max_migrations=4,
                              max_evaluations=200000, max_concurrent=1, planner="weight")

    def test_vmcap_bad_input_is_reported(self):
        from vmcap_watcher import strategy as vs
        with self.assertRaisesRegex(vs.VmcapError, r"`vmcap import openstack` exited with 2: .*"
                                                   r"host-topology"):
            self.run_strategy(scenario_1(), host_topology="K99")
        with self.assertRaisesRegex(vs.VmcapError, "same size"):
            self.run_strategy(scenario_1(), flavors=[
                {"name": "a", "vcpus": 10, "memory_mb": 2}, {"name": "b", "vcpus": 10, "memory_mb": 2}])

    def test_nova_settings_reach_the_import(self):
        # Nova's cell rule, ratios and reserved memory as Watcher's model has them: the snapshot
        # vmcap plans on carries them, and nodes that disagree are refused by name.
        model = scenario_numa()
        for node in model.get_all_compute_nodes().values():
            node.memory_mb_reserved = 512
        def snapshot_of_the_next_run(model, **params):
            self.run_strategy(model, flavors=NUMA_FLAVORS, max_migrations=2,
                              max_evaluations=200000, **params)
            return self.snapshot

        snap = snapshot_of_the_next_run(model)
        self.assertEqual("nova-spread", snap["node_rule"]["name"])
        self.assertEqual(512, snap["node_rule"]["reserved_host_memory_mb"])
        self.assertNotIn("node_rule", snapshot_of_the_next_run(scenario_numa(), node_rule="free"))
        from vmcap_watcher import strategy as vs
        odd = scenario_numa()
        list(odd.get_all_compute_nodes().values())[3].vcpu_ratio = 4.0
        with self.assertRaisesRegex(vs.VmcapError, "differ from the first node"):
            self.run_strategy(odd, flavors=NUMA_FLAVORS, max_migrations=2)

    def test_missing_binary_is_named(self):
        strategy = loading.DefaultStrategyLoader().load("vmcap")
        strategy.config.vmcap_path = os.path.join(self.work, "no-such-vmcap")
        strategy._compute_model = scenario_1()
        with mock.patch.dict(os.environ, {"VMCAP": ""}), mock.patch("shutil.which",
                                                                    return_value=None):
            with self.assertRaisesRegex(Exception, "no vmcap binary"):
                strategy.execute()


if __name__ == "__main__":
    if SKIP_REASON:
        print("SKIP: " + SKIP_REASON)
        sys.exit(SKIP_CODE)
    unittest.main()
