"""A stand-in Nova + Placement API for make.sh: answers the requests `openstack` 6.0 makes for the
documents here, with the response body of the microversion asked for (Nova's API reference):
a server's flavor as {"id"} below 2.47, embedded with "original_name" from 2.47; "host_status"
from 2.16; hypervisor ids integers below 2.53, UUIDs from 2.53; no "vcpus" / "memory_mb" (and the
other usage fields) from 2.88; flavor "extra_specs" in the body from 2.61. Servers are listed as
Nova lists them: newest first (created_at, then the internal id, descending)."""
import json, re, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import urlparse, parse_qs
BASE = 'http://127.0.0.1:18774'
HYP = [  # id, uuid, hostname, vcpus, mem, state
    (1, 'c0a8f0e2-3f6b-4a0e-9d4c-2b7a5e1d9f01', 'compute1.cloud.test', 16, 33792, 'up'),
    (2, 'c0a8f0e2-3f6b-4a0e-9d4c-2b7a5e1d9f02', 'compute2.cloud.test', 16, 33792, 'up'),
]
FLAVORS = [  # id, name, vcpus, ram, extra specs
    ('10', 'c4m8', 4, 8192, {'hw:cpu_policy': 'dedicated'}),
    ('20', 'numa2.c8m16', 8, 16384, {'hw:cpu_policy': 'dedicated', 'hw:numa_nodes': '2'}),
]
SERVERS = [  # uuid, name, flavor id, host, created   (Nova lists newest first)
    ('3f1c5a9e-0b7d-4e2a-8c6f-1d2e3f4a5b01', 'numa-a', '20', 'compute1', '2026-11-20T10:00:01Z'),
    ('3f1c5a9e-0b7d-4e2a-8c6f-1d2e3f4a5b02', 'small-b', '10', 'compute1', '2026-11-20T10:05:00Z'),
    ('3f1c5a9e-0b7d-4e2a-8c6f-1d2e3f4a5b03', 'small-c', '10', 'compute1', '2026-11-20T10:07:30Z'),
    ('3f1c5a9e-0b7d-4e2a-8c6f-1d2e3f4a5b04', 'small-d', '10', 'compute2', '2026-11-20T10:07:30Z'),
]
def ver(h):
    v = h.get('X-OpenStack-Nova-API-Version') or '2.1'
    a, b = v.split('.'); return (int(a), int(b))
def server(s, v):
    uuid, name, fid, host, created = s
    f = [x for x in FLAVORS if x[0] == fid][0]
    d = {'id': uuid, 'name': name, 'status': 'ACTIVE', 'tenant_id': '6a1f0c2e9b8d4c7a8e5f4d3c2b1a0f9e',
         'user_id': 'a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5', 'created': created, 'updated': created,
         'hostId': 'h' + host, 'addresses': {'private': [{'addr': '10.0.0.%d' % (SERVERS.index(s) + 5), 'version': 4}]},
         'image': {'id': '0d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a', 'links': []}, 'metadata': {},
         'OS-EXT-SRV-ATTR:host': host, 'OS-EXT-SRV-ATTR:hypervisor_hostname': host + '.cloud.test',
         'OS-EXT-SRV-ATTR:instance_name': 'instance-%08x' % (SERVERS.index(s) + 1),
         'OS-EXT-AZ:availability_zone': 'nova', 'OS-EXT-STS:task_state': None, 'OS-EXT-STS:vm_state': 'active',
         'OS-EXT-STS:power_state': 1, 'links': [], 'security_groups': [{'name': 'default'}]}
    if v >= (2, 47):
        d['flavor'] = {'vcpus': f[2], 'ram': f[3], 'disk': 20, 'ephemeral': 0, 'swap': 0, 'original_name': f[1], 'extra_specs': f[4]}
    else:
        d['flavor'] = {'id': fid, 'links': []}
    if v >= (2, 16): d['host_status'] = 'UP'
    return d
def hyp(h, v):
    i, uuid, name, vc, mem, state = h
    d = {'id': uuid if v >= (2, 53) else i, 'hypervisor_hostname': name, 'hypervisor_type': 'QEMU', 'host_ip': '192.0.2.%d' % i,
         'state': state, 'status': 'enabled', 'service': {'host': name.split('.')[0], 'id': i, 'disabled_reason': None}}
    if v < (2, 88):
        d.update({'vcpus': vc, 'vcpus_used': 0, 'memory_mb': mem, 'memory_mb_used': 512, 'local_gb': 100, 'local_gb_used': 0,
                  'free_ram_mb': mem - 512, 'free_disk_gb': 100, 'current_workload': 0, 'running_vms': 0,
                  'disk_available_least': 100, 'cpu_info': '{}'})
    return d
def flavor(f, v):
    d = {'id': f[0], 'name': f[1], 'vcpus': f[2], 'ram': f[3], 'disk': 20, 'OS-FLV-EXT-DATA:ephemeral': 0, 'swap': '',
         'rxtx_factor': 1.0, 'os-flavor-access:is_public': True, 'OS-FLV-DISABLED:disabled': False, 'links': []}
    if v >= (2, 55): d['description'] = None
    if v >= (2, 61): d['extra_specs'] = f[4]
    return d
class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def reply(self, obj, code=200):
        body = json.dumps(obj).encode()
        self.send_response(code); self.send_header('Content-Type', 'application/json')
        v = self.headers.get('X-OpenStack-Nova-API-Version')
        if v: self.send_header('X-OpenStack-Nova-API-Version', v); self.send_header('OpenStack-API-Version', 'compute ' + v)
        self.send_header('Content-Length', str(len(body))); self.end_headers(); self.wfile.write(body)
    def do_GET(self):
        u = urlparse(self.path); p = u.path.rstrip('/'); q = parse_qs(u.query); v = ver(self.headers)
        sys.stderr.write('GET %s %s\n' % (self.path, v))
        if p in ('/v2.1', ''):
            return self.reply({'version': {'id': 'v2.1', 'status': 'CURRENT', 'version': '2.93', 'min_version': '2.1',
                                           'links': [{'rel': 'self', 'href': BASE + '/v2.1/'}]}})
        if p == '/placement':
            return self.reply({'versions': [{'id': 'v1.0', 'max_version': '1.39', 'min_version': '1.0', 'status': 'CURRENT',
                                             'links': [{'rel': 'self', 'href': BASE + '/placement/'}]}]})
        if 'marker' in q: return self.reply({'servers': [], 'hypervisors': [], 'flavors': []})
        if p == '/v2.1/images' or p == '/v2/images':
            return self.reply({'images': [{'id': '0d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a', 'name': 'debian-12', 'status': 'active'}]})
        if p == '/v2.1/servers/detail':
            return self.reply({'servers': [server(s, v) for s in sorted(SERVERS, key=lambda s: (s[4], SERVERS.index(s)), reverse=True)]})
        m = re.fullmatch(r'/v2.1/servers/([^/]+)', p)
        if m:
            for s in SERVERS:
                if s[0] == m.group(1): return self.reply({'server': server(s, v)})
            return self.reply({'itemNotFound': {'code': 404, 'message': 'no'}}, 404)
        if p == '/v2.1/os-hypervisors/detail': return self.reply({'hypervisors': [hyp(h, v) for h in HYP]})
        if p == '/v2.1/flavors/detail': return self.reply({'flavors': [flavor(f, v) for f in FLAVORS]})
        m = re.fullmatch(r'/v2.1/flavors/([^/]+)/os-extra_specs', p)
        if m: return self.reply({'extra_specs': [f for f in FLAVORS if f[0] == m.group(1)][0][4]})
        m = re.fullmatch(r'/v2.1/flavors/([^/]+)', p)
        if m:
            for f in FLAVORS:
                if f[0] == m.group(1): return self.reply({'flavor': flavor(f, v)})
            return self.reply({'itemNotFound': {'code': 404, 'message': 'no'}}, 404)
        m = re.fullmatch(r'/placement/resource_providers/([^/]+)/(inventories|usages)', p)
        if m:
            h = [x for x in HYP if x[1] == m.group(1)][0]
            if m.group(2) == 'usages': return self.reply({'usages': {'VCPU': 16, 'MEMORY_MB': 40960, 'DISK_GB': 0}})
            return self.reply({'resource_provider_generation': 7, 'inventories': {
                'VCPU': {'total': h[3], 'reserved': 0, 'min_unit': 1, 'max_unit': h[3], 'step_size': 1, 'allocation_ratio': 1.0},
                'MEMORY_MB': {'total': h[4], 'reserved': 512, 'min_unit': 1, 'max_unit': h[4], 'step_size': 1, 'allocation_ratio': 1.0},
                'DISK_GB': {'total': 100, 'reserved': 0, 'min_unit': 1, 'max_unit': 100, 'step_size': 1, 'allocation_ratio': 1.0}}})
        self.reply({'itemNotFound': {'code': 404, 'message': p}}, 404)
HTTPServer(('127.0.0.1', 18774), H).serve_forever()
