#pragma once
/**
 * @file requests.h
 * Admission requests (`vmcap place --requests R`, docs/format.md "Requests"): an ordered stream of
 * single VMs and virtual datacenters (VDCs: VMs with vlinks among them), each VM of a flavor the
 * cluster snapshot defines (by name).
 *
 *   {"requests": [
 *     {"id": "r1", "flavor": "8c56g"},
 *     {"id": "vdc7", "vms": [{"id": "web", "flavor": "4c28g"}, {"id": "db", "flavor": "8c56g"}],
 *      "vlinks": [{"a": "web", "b": "db", "bandwidth_mbps": 200}]}
 *   ]}
 *
 * A request has either "flavor" (one VM, whose id is the request's) or "vms" (>= 1), not both;
 * "vlinks" only with "vms", each between two distinct VMs of the same request, bandwidth in Mbps
 * (1..kMaxMbps, instances/network.h). Request ids are unique in the file, VM ids within a request.
 * Units: Mbps.
 */
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vmcap {

/** One VM of a request. */
struct RequestVm {
    std::string id;      ///< unique within its request
    std::string flavor;  ///< a flavor name of the cluster snapshot
};

/** One vlink of a VDC request: indices into Request::vms. */
struct RequestVlink {
    int a = 0, b = 0;       ///< a != b
    std::int64_t mbps = 0;  ///< 1..kMaxMbps
};

/** One request: a single VM (vms.size() == 1, no vlinks, vdc false) or a VDC. */
struct Request {
    std::string id;
    bool vdc = false;  ///< given as "vms" (a VDC, even of one VM) rather than "flavor"
    std::vector<RequestVm> vms;
    std::vector<RequestVlink> vlinks;
};

/**
 * The requests of `doc` in file order. Throws InputError "<path>: requests[i].field: what" on any
 * violation of the format above (flavor names are checked against a snapshot by the caller).
 * O(VMs + vlinks).
 */
std::vector<Request> parse_requests(const nlohmann::json& doc, const std::string& path);

}  // namespace vmcap
