#include "instances/requests.h"

#include <map>
#include <set>

#include "instances/network.h"
#include "instances/printable.h"
#include "instances/problem.h"

namespace vmcap {

namespace {

/** "<path>: <where>: <what>" as an InputError, control characters of an id (a NUL among them)
 *  shown as \xNN (printable.h), so that the CLI prints the whole message on one line. */
[[noreturn]] void fail_request(const std::string& path, const std::string& where, const std::string& what) {
    throw InputError(printable(path + ": " + where + ": " + what));
}

std::string string_field(const nlohmann::json& o, const char* key, const std::string& path, const std::string& where) {
    if (!o.contains(key)) fail_request(path, where, std::string("missing \"") + key + "\"");
    const nlohmann::json& v = o.at(key);
    if (!v.is_string() || v.get<std::string>().empty()) fail_request(path, where + "." + key, "expected a non-empty string");
    return v.get<std::string>();
}

}  // namespace

std::vector<Request> parse_requests(const nlohmann::json& doc, const std::string& path) {
    if (!doc.is_object() || !doc.contains("requests") || !doc.at("requests").is_array())
        throw InputError(path + ": expected an object with an array \"requests\"");
    std::vector<Request> out;
    std::set<std::string> ids;
    const nlohmann::json& all = doc.at("requests");
    for (std::size_t i = 0; i < all.size(); ++i) {
        const std::string where = "requests[" + std::to_string(i) + "]";
        const nlohmann::json& r = all[i];
        if (!r.is_object()) fail_request(path, where, "expected an object");
        for (const auto& [key, value] : r.items())
            if (key != "id" && key != "flavor" && key != "vms" && key != "vlinks") fail_request(path, where + "." + key, "unknown field");
        Request q;
        q.id = string_field(r, "id", path, where);
        if (!ids.insert(q.id).second) fail_request(path, where + ".id", "duplicate request id '" + q.id + "'");
        const bool one = r.contains("flavor"), many = r.contains("vms");
        if (one == many) fail_request(path, where, "expected exactly one of \"flavor\" (one VM) and \"vms\" (a VDC)");
        if (one) {
            if (r.contains("vlinks")) fail_request(path, where + ".vlinks", "vlinks need \"vms\"");
            q.vms.push_back(RequestVm{q.id, string_field(r, "flavor", path, where)});
            out.push_back(std::move(q));
            continue;
        }
        q.vdc = true;
        const nlohmann::json& vms = r.at("vms");
        if (!vms.is_array() || vms.empty()) fail_request(path, where + ".vms", "expected a non-empty array");
        std::map<std::string, int> index;
        for (std::size_t k = 0; k < vms.size(); ++k) {
            const std::string w = where + ".vms[" + std::to_string(k) + "]";
            if (!vms[k].is_object()) fail_request(path, w, "expected an object");
            for (const auto& [key, value] : vms[k].items())
                if (key != "id" && key != "flavor") fail_request(path, w + "." + key, "unknown field");
            RequestVm v{string_field(vms[k], "id", path, w), string_field(vms[k], "flavor", path, w)};
            if (!index.emplace(v.id, static_cast<int>(k)).second)
                fail_request(path, w + ".id", "duplicate VM id '" + v.id + "' in the request");
            q.vms.push_back(std::move(v));
        }
        if (r.contains("vlinks")) {
            const nlohmann::json& ls = r.at("vlinks");
            if (!ls.is_array()) fail_request(path, where + ".vlinks", "expected an array");
            for (std::size_t k = 0; k < ls.size(); ++k) {
                const std::string w = where + ".vlinks[" + std::to_string(k) + "]";
                if (!ls[k].is_object()) fail_request(path, w, "expected an object");
                for (const auto& [key, value] : ls[k].items())
                    if (key != "a" && key != "b" && key != "bandwidth_mbps") fail_request(path, w + "." + key, "unknown field");
                RequestVlink l;
                for (const char* end : {"a", "b"}) {
                    const std::string id = string_field(ls[k], end, path, w);
                    const auto it = index.find(id);
                    if (it == index.end()) fail_request(path, w + "." + end, "no VM '" + id + "' in this request");
                    (std::string(end) == "a" ? l.a : l.b) = it->second;
                }
                if (l.a == l.b) fail_request(path, w, "a vlink joins two distinct VMs");
                if (!ls[k].contains("bandwidth_mbps")) fail_request(path, w, "missing \"bandwidth_mbps\"");
                const nlohmann::json& bw = ls[k].at("bandwidth_mbps");
                if (!bw.is_number_integer() || bw.get<std::int64_t>() < 1 || bw.get<std::int64_t>() > kMaxMbps)
                    fail_request(path, w + ".bandwidth_mbps", "expected an integer in 1.." + std::to_string(kMaxMbps));
                l.mbps = bw.get<std::int64_t>();
                q.vlinks.push_back(l);
            }
        }
        out.push_back(std::move(q));
    }
    return out;
}

}  // namespace vmcap
