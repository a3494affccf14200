"""A Nova cloud in one process, served to the real `openstack` CLI.

Built from Nova's own functional-test fixtures (Debian's python3-nova, Zed): fake-libvirt compute
hosts with NUMA cells, the Placement fixture, the conductor and the scheduler with
NUMATopologyFilter, all RPC casts made synchronous calls (CastAsCallFixture). On top of them:

- the Nova API is served on 127.0.0.1:<free port> by eventlet.wsgi, behind a small middleware that
  sets the headers the fixture's stubbed auth reads (an admin of the fixture's project), so
  `openstack --os-auth-type none --os-endpoint http://127.0.0.1:PORT/v2.1 ...` (or
  OS_AUTH_TYPE=none OS_ENDPOINT=...) talks to it;
- live migration completes: fake libvirt's migrateToURI3 creates the domain on the destination
  host (parsed from the migration URI) and completes the source's job, as Nova's
  LibvirtMigrationMixin does for its two-host tests;
- the ids of servers, compute nodes, server groups and flavors count up (COUNTED_UUIDS): every
  run lists the same ids, and with PYTHONHASHSEED=0 (test_openstack_ci.py) the scheduler takes
  the same host among equally weighed ones, so every run builds the same cloud and vmcap, whose
  plan may depend on the ids' order, gets the same input;
- two corrections of the fake for hosts beyond Nova's own tests: the online CPUs are the host's
  own (the base class mocks 16 for every host) and the host's total memory is reported in MiB
  (fake libvirt's getInfo() returns the kB_mem it was given where real libvirt returns MiB).

`import nova.monkey_patch` must come before any other nova import (it is this module's first
import); the whole cloud lives in one unittest TestCase (CloudTestCase), torn down with it.
"""
import nova.monkey_patch  # noqa: F401  (first: eventlet's monkey patching)

import itertools
import os
import time
import uuid

import eventlet
import eventlet.wsgi
from eventlet.green import subprocess
import fixtures

from oslo_utils import uuidutils

from nova import context as nova_context
from nova import objects
from nova.tests.fixtures import libvirt as fakelibvirt
from nova.tests.functional import integrated_helpers
from nova.tests.functional.libvirt import base

API_PASTE_INI = '/etc/nova/api-paste.ini'  # from Debian's nova-common
OPENSTACK = os.environ.get('OPENSTACK', '/usr/bin/openstack')
# One cell: 8 pCPUs, 16 GiB (libvirt reports a cell's memory in KiB).
CELL_PCPUS = 8
CELL_MEM_MB = 16384


class _CountingUuids:
    """uuidutils with generate_uuid() counting up in its own namespace (namespace 1: 00000000-
    0000-0001-0000-000000000001, ...), so every run creates the same ids in the same order."""

    def __init__(self, namespace):
        self._namespace = namespace << 64
        self._next = itertools.count(1)

    def generate_uuid(self, dashed=True):
        u = uuid.UUID(int=self._namespace | next(self._next))
        return str(u) if dashed else u.hex

    def __getattr__(self, name):
        return getattr(uuidutils, name)


# Where Nova draws the ids of what the scenario creates: servers, compute nodes (= resource
# providers), server groups, flavors.
COUNTED_UUIDS = ('nova.compute.api', 'nova.objects.compute_node', 'nova.objects.instance_group',
                 'nova.compute.flavors')


class NoValidHost(Exception):
    """A boot the scheduler refused (the server went to ERROR with Nova's NoValidHost fault)."""


class CloudTestCase(base.ServersTestBase, integrated_helpers.InstanceHelperMixin):
    """A TestCase whose setUp starts the controller services; start_cloud() adds the hosts and
    serves the API. Nova's allocation ratios are 1.0 and reserved_host_memory_mb is 0, so a cell's
    room is exactly its pCPUs and memory (vmcap's import is given the same numbers)."""

    ADDITIONAL_FILTERS = ['NUMATopologyFilter']
    ADMIN_API = True
    microversion = 'latest'
    CPU_ALLOCATION_RATIO = 1.0
    RAM_ALLOCATION_RATIO = 1.0
    RESERVED_HOST_MEMORY_MB = 0

    def setUp(self):
        super().setUp()
        # A new compute node record takes the initial_* ratios (Zed: 16.0 and 1.5), not the
        # *_allocation_ratio options: those reach it only at the resource tracker's next
        # update_available_resource, which the fixtures run only where a live migration leaves a
        # host. Placement's inventory takes the options at once. Without the initial_* ones the
        # NUMATopologyFilter would allow 16 vCPUs and 1.5x memory per pCPU and MiB of a cell
        # while Placement allows 1.0: a cloud other than the one vmcap's import is told.
        self.flags(cpu_allocation_ratio=self.CPU_ALLOCATION_RATIO,
                   initial_cpu_allocation_ratio=self.CPU_ALLOCATION_RATIO,
                   ram_allocation_ratio=self.RAM_ALLOCATION_RATIO,
                   initial_ram_allocation_ratio=self.RAM_ALLOCATION_RATIO,
                   reserved_host_memory_mb=self.RESERVED_HOST_MEMORY_MB)
        self.flags(instances=-1, cores=-1, ram=-1, group='quota')
        self.useFixture(fixtures.MonkeyPatch(
            'nova.virt.libvirt.host.Host.get_online_cpus',
            lambda host: set(range(host.get_connection().host_info.cpus))))
        self.useFixture(fixtures.MonkeyPatch(
            'nova.virt.libvirt.host.Host.get_memory_mb_total',
            lambda host: host.get_connection().getInfo()[1] // 1024))
        self.useFixture(fixtures.MonkeyPatch(
            'nova.tests.fixtures.libvirt.Domain.migrateToURI3', self._migrate_stub))
        # Nova's test_numa_live_migration does the same: the cleanup path that saves the
        # instance after the move must not clobber its new NUMA topology.
        self.useFixture(fixtures.MonkeyPatch(
            'nova.compute.manager.ComputeManager._live_migration_cleanup_flags',
            lambda *args, **kwargs: (True, True)))
        for namespace, module in enumerate(COUNTED_UUIDS):
            self.useFixture(fixtures.MonkeyPatch(module + '.uuidutils', _CountingUuids(namespace)))
        self.migrations_completed = 0
        self.endpoint = None

    def _setup_services(self):
        self.flags(api_paste_config=API_PASTE_INI, group='wsgi')
        super()._setup_services()

    def _get_connection(self, host_info=None, pci_info=None, mdev_info=None, vdpa_info=None,
                        libvirt_version=None, qemu_version=None, hostname=None):
        # The base class refuses hosts of 16 CPUs or more (its online-CPU mock); ours follows the host.
        return fakelibvirt.Connection(
            'qemu:///system', version=fakelibvirt.FAKE_LIBVIRT_VERSION,
            hv_version=fakelibvirt.FAKE_QEMU_VERSION, host_info=host_info, hostname=hostname)

    def _migrate_stub(self, domain, destination, params, flags):
        # destination: qemu+tcp://<host>/system (the libvirt driver's live_migration_uri).
        dest = destination.split('//', 1)[1].split('/', 1)[0]
        self.computes[dest].driver._host.get_connection().createXML(
            params['destination_xml'], 'fake-createXML-doesnt-care-about-flags')
        domain.complete_job()
        self.migrations_completed += 1

    # -- the cloud ---------------------------------------------------------------------------

    def start_cloud(self, cells_per_host, log_path=None):
        """Start one compute host per entry of `cells_per_host` (its NUMA cell count), named
        compute1..N, drop the fixture's default flavors and serve the API. Returns the endpoint."""
        for i, cells in enumerate(cells_per_host):
            self.start_compute(
                'compute%d' % (i + 1),
                fakelibvirt.HostInfo(cpu_nodes=cells, cpu_sockets=1, cpu_cores=CELL_PCPUS,
                                     cpu_threads=1, kB_mem=cells * CELL_MEM_MB * 1024))
        for flavor in self.admin_api.get_flavors():
            self.admin_api.delete_flavor(flavor['id'])
        return self.serve_api(log_path)

    def serve_api(self, log_path=None):
        app = self.api_fixture.app()
        project = self.api_fixture.project_id

        def with_auth(environ, start_response):
            environ['HTTP_X_AUTH_USER'] = 'admin'
            environ['HTTP_X_USER_ID'] = 'admin'
            environ['HTTP_X_AUTH_PROJECT_ID'] = project
            environ['HTTP_X_ROLES'] = 'reader,member,admin'
            return app(environ, start_response)

        sock = eventlet.listen(('127.0.0.1', 0))
        log = open(log_path, 'a') if log_path else open(os.devnull, 'w')
        self.addCleanup(log.close)
        server = eventlet.spawn(eventlet.wsgi.server, sock, with_auth, log=log)
        self.addCleanup(sock.close)
        self.addCleanup(server.kill)
        self.endpoint = 'http://127.0.0.1:%d/v2.1' % sock.getsockname()[1]
        return self.endpoint

    def cli_env(self):
        """The environment for the real CLI: auth type none and the endpoint; no microversion."""
        env = dict(os.environ)
        for k in list(env):
            if k.startswith('OS_'):
                del env[k]
        env.update({'OS_AUTH_TYPE': 'none', 'OS_ENDPOINT': self.endpoint, 'OPENSTACK': OPENSTACK})
        return env

    def sh(self, argv, timeout=600, cwd=None):
        """Run a command (green: the API keeps serving meanwhile). Returns (rc, stdout, stderr)."""
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=self.cli_env(), cwd=cwd)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
            err += '\n(timed out after %d s)' % timeout
            return 124, out, err
        return p.returncode, out, err

    def openstack(self, *args):
        return self.sh([OPENSTACK] + list(args))

    # -- fixtures' API, for the scenario (not the CLI) ----------------------------------------

    def create_flavor(self, name, vcpus, ram_mb, numa_nodes):
        return self._create_flavor(name=name, vcpu=vcpus, memory_mb=ram_mb, disk=0, ephemeral=0,
                                   extra_spec={'hw:numa_nodes': str(numa_nodes)})

    def boot(self, name, flavor_id, group=None):
        """Boot one server; returns it ACTIVE, or raises NoValidHost (the ERROR server deleted)."""
        body = {'server': self._build_server(name=name, flavor_id=flavor_id, networks='none')}
        if group:
            body['os:scheduler_hints'] = {'group': group}
        server = self.api.post_server(body)
        for _ in range(200):
            server = self.api.get_server(server['id'])
            if server['status'] in ('ACTIVE', 'ERROR'):
                break
            time.sleep(0.05)
        if server['status'] == 'ERROR':
            fault = server.get('fault', {}).get('message', '')
            self.delete(server['id'])
            if 'No valid host' in fault:
                raise NoValidHost(fault)
            raise AssertionError('server %s went to ERROR: %s' % (name, fault))
        self.assertEqual('ACTIVE', server['status'], name)
        return server

    def delete(self, server_id):
        self.api.delete_server(server_id)
        self._wait_until_deleted({'id': server_id})

    def admitted(self, flavor_id, prefix, limit=500):
        """Boot servers of one flavor until NoValidHost; delete them again. Returns how many."""
        booted = []
        try:
            for i in range(limit):
                try:
                    booted.append(self.boot('%s-%d' % (prefix, i + 1), flavor_id)['id'])
                except NoValidHost:
                    break
        finally:
            for sid in booted:
                self.delete(sid)
        return len(booted)

    def host_resources(self):
        """Host name -> the limits Nova applies to it, read from its database and Placement:
        its NUMA cells' pCPUs and memory (what the NUMATopologyFilter and the compute's claim
        fit cells into), the compute node record's allocation ratios (their per-cell limits) and
        Placement's VCPU and MEMORY_MB inventory (the host-level limits)."""
        ctx = nova_context.get_admin_context()
        hosts = {}
        for host in sorted(self.computes):
            cn = objects.ComputeNode.get_by_host_and_nodename(ctx, host, host)
            topology = objects.NUMATopology.obj_from_db_obj(cn.numa_topology)
            inventory = self._get_provider_inventory(cn.uuid)
            hosts[host] = {
                'cells': [{'pcpus': len(c.cpuset), 'memory_mb': c.memory} for c in topology.cells],
                'cpu_allocation_ratio': cn.cpu_allocation_ratio,
                'ram_allocation_ratio': cn.ram_allocation_ratio,
                'placement': {rc: {k: inventory[rc][k] for k in ('total', 'reserved', 'allocation_ratio')}
                              for rc in ('VCPU', 'MEMORY_MB')},
            }
        return hosts

    def host_of(self, server_id):
        return self.api.get_server(server_id)['OS-EXT-SRV-ATTR:host']

    def cells_of(self, server_id):
        """Nova's host NUMA cells of each guest cell (guest cell order), from its database."""
        topo = objects.InstanceNUMATopology.get_by_instance_uuid(
            nova_context.get_admin_context(), server_id)
        return [cell.id for cell in topo.cells]
