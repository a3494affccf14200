#include "instances/snapshot_io.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>
#include <sstream>
#include <unordered_map>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "instances/nova_numa.h"

namespace vmcap {

using nlohmann::json;

Amount gib_to_mib_budget(double gib) {
    // Beyond 2^52 MiB (4 EiB) nothing is limited: saturate instead of overflowing the cast.
    const double mib = std::floor(gib * 1024.0 + 1e-9);
    if (!(mib < 4503599627370496.0)) return std::numeric_limits<Amount>::max();
    return static_cast<Amount>(mib);
}

std::string read_text_file(const std::string& path) {
    // A directory or a device (/dev/zero never ends) is not a file to read; pipes are allowed.
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) throw InputError(path + ": not a regular file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open file for reading");
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) throw InputError(path + ": read error");
    return ss.str();
}

namespace {

/** Where the bytes for `path` go: the file itself, or, for a symlink, the file it points to (the
 *  link is kept), followed link by link, so a link to a file that does not exist yet names where
 *  that file is created (weakly_canonical would stop at the dangling link, and the rename would
 *  then replace the link). Throws InputError if that exists and is not a regular file. */
std::filesystem::path output_target(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path target(path);
    for (int hops = 0; fs::is_symlink(fs::symlink_status(target, ec)); ++hops) {
        const fs::path next = fs::read_symlink(target, ec);
        if (ec || hops == 40) throw InputError(path + ": cannot resolve the symbolic link");
        target = next.is_absolute() ? next : target.parent_path() / next;  // relative to the link's directory, as the kernel does
    }
    const fs::file_status st = fs::status(target, ec);
    if (fs::exists(st) && !fs::is_regular_file(st)) throw InputError(path + ": exists and is not a regular file; not replaced");
    return target;
}

}  // namespace

namespace {

/** An unnamed file in `dir` (O_TMPFILE): it has no name until linked, so a process killed
 *  before the rename (even by SIGKILL) leaves nothing behind. -1 where the file system lacks
 *  O_TMPFILE (errno EOPNOTSUPP or EISDIR); the caller then falls back to a named temp file. */
int open_unnamed(const std::filesystem::path& dir) {
#ifdef O_TMPFILE
    if (::access("/proc/self/fd", X_OK) != 0) {  // linked through /proc/self/fd/N later
        errno = EOPNOTSUPP;
        return -1;
    }
    return ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
#else
    (void)dir;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

bool tmpfile_unsupported(int err) {
    return err == EOPNOTSUPP || err == EISDIR || err == EINVAL;
}

}  // namespace

void check_output_path(const std::string& path) {
    namespace fs = std::filesystem;
    if (path.empty()) throw InputError("output path is empty");
    const fs::path target = output_target(path);
    fs::path dir = target.parent_path();
    if (dir.empty()) dir = ".";
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw InputError(path + ": directory " + dir.string() + " does not exist");
    if (fs::exists(target, ec) && ::access(target.c_str(), W_OK) != 0) throw InputError(path + ": file is not writable");
    // access() says yes to root everywhere (also in /proc or on a read-only mount): create the
    // temporary file write_file_atomic will need, and drop it.
    int fd = open_unnamed(dir);
    if (fd < 0 && tmpfile_unsupported(errno)) {
        std::string tmpl = (dir / ".vmcap-probe.tmpXXXXXX").string();
        fd = mkstemp(tmpl.data());
        if (fd >= 0) ::unlink(tmpl.c_str());
    }
    if (fd < 0) throw InputError(path + ": cannot create a file in directory " + dir.string());
    ::close(fd);
}

void write_file_atomic(const std::string& path, const std::string& content) {
    namespace fs = std::filesystem;
    const fs::path target = output_target(path);
    fs::path dir = target.parent_path();
    if (dir.empty()) dir = ".";
    std::string name = ".";  // built by appending: "." + string trips a GCC 12 -Wrestrict false positive
    name += target.filename().string();
    name += ".tmpXXXXXX";
    std::string tmpl = (dir / name).string();
    // Preferred: an unnamed file, linked under a temporary name only once complete, then renamed
    // over the target; a kill at any point leaves no partial file. Fallback: mkstemp, removed on
    // every exit path this process controls.
    int fd = open_unnamed(dir);
    const bool unnamed = fd >= 0;
    if (!unnamed) {
        if (!tmpfile_unsupported(errno)) throw InputError(path + ": cannot create a temporary file in " + dir.string());
        fd = mkstemp(tmpl.data());
        if (fd < 0) throw InputError(path + ": cannot create a temporary file in " + dir.string());
    }
    auto discard = [&] {
        ::close(fd);
        if (!unnamed) ::unlink(tmpl.c_str());
    };
    // An existing file keeps its permissions; a new one gets the usual 0666 less the umask.
    struct stat old {};
    mode_t mode;
    if (::stat(target.c_str(), &old) == 0) {
        mode = old.st_mode & 07777;
    } else {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        mode = 0666 & ~mask;
    }
    std::size_t off = 0;
    while (off < content.size()) {
        ssize_t w = ::write(fd, content.data() + off, content.size() - off);
        if (w <= 0) {
            discard();
            throw std::runtime_error(path + ": write failed");
        }
        off += static_cast<std::size_t>(w);
    }
    if (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0) {
        discard();
        throw std::runtime_error(path + ": write failed");
    }
    if (unnamed) {
        // Give the complete file a temporary name (linkat cannot replace), then rename over the target.
        for (int attempt = 0;; ++attempt) {
            tmpl = (dir / name).string();
            const int probe = mkstemp(tmpl.data());  // picks a free unique name
            if (probe >= 0) {
                ::close(probe);
                ::unlink(tmpl.c_str());
            }
            const std::string self = "/proc/self/fd/" + std::to_string(fd);
            if (probe >= 0 && ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, tmpl.c_str(), AT_SYMLINK_FOLLOW) == 0) break;
            if (attempt == 8 || (probe >= 0 && errno != EEXIST)) {
                ::close(fd);
                throw std::runtime_error(path + ": cannot link the temporary file into " + dir.string());
            }
        }
    }
    if (::close(fd) != 0) {
        ::unlink(tmpl.c_str());
        throw std::runtime_error(path + ": write failed");
    }
    if (std::rename(tmpl.c_str(), target.c_str()) != 0) {
        ::unlink(tmpl.c_str());
        throw std::runtime_error(path + ": cannot rename temporary file into place");
    }
}

namespace {

/** Parse context: the file name and a JSON path for messages. */
/**
 * Vlinks `[vm_a, vm_b, mbps]` taken out of the JSON document while it is parsed (load_snapshot):
 * a vlink as a DOM array costs about 230 bytes (an array, two string objects, a number), its
 * compact form 16 bytes plus a 16-byte placeholder (a JSON binary value, which no JSON text can
 * produce) that keeps its place, so paths in messages stay right. 1.1 M vlinks: ~180 MB less peak.
 */
struct CompactEdges {
    struct Edge {
        std::uint32_t a = 0, b = 0;  ///< into names
        std::int64_t mbps = 0;
    };
    std::vector<std::string> names;
    std::unordered_map<std::string, std::uint32_t> id;
    std::vector<Edge> edges;

    std::uint32_t intern(const std::string& s) {
        auto [it, fresh] = id.emplace(s, static_cast<std::uint32_t>(names.size()));
        if (fresh) names.push_back(s);
        return it->second;
    }
};

/**
 * SAX handler of load_snapshot: builds the same document as json::parse, except that every vlink
 * `[string, string, integer]` at (root).vlinks[i] or (root).vdcs[j].vlinks[i] goes to `edges`
 * and leaves a binary placeholder (CompactEdges). Anything else, malformed vlinks included, is
 * built as parsed, so the loader reports it as before.
 */
class SnapshotSax {
public:
    SnapshotSax(json& root, CompactEdges& edges) : root_(root), edges_(edges) {}

    bool null() { return value(nullptr); }
    bool boolean(bool v) { return value(v); }
    bool number_integer(json::number_integer_t v) { return value(v); }
    bool number_unsigned(json::number_unsigned_t v) { return value(v); }
    bool number_float(json::number_float_t v, const std::string&) { return value(v); }
    bool string(json::string_t& v) { return value(std::move(v)); }
    bool binary(json::binary_t& v) { return value(std::move(v)); }
    bool start_object(std::size_t = 0) {
        flush();
        stack_.push_back(put(json(json::value_t::object)));
        keys_.emplace_back();
        return true;
    }
    bool key(json::string_t& k) {
        keys_.back() = k;
        slot_ = &(*stack_.back())[k];
        return true;
    }
    bool end_object() {
        stack_.pop_back();
        keys_.pop_back();
        return true;
    }
    bool start_array(std::size_t = 0) {
        flush();
        if (at_edge()) {  // buffer its elements; decided at end_array
            buffering_ = true;
            buffer_.clear();
            return true;
        }
        stack_.push_back(put(json(json::value_t::array)));
        keys_.emplace_back();
        return true;
    }
    bool end_array() {
        if (buffering_) {
            buffering_ = false;
            if (buffer_.size() == 3 && buffer_[0].is_string() && buffer_[1].is_string() && buffer_[2].is_number_integer() &&
                (!buffer_[2].is_number_unsigned() || buffer_[2].get<std::uint64_t>() <= std::uint64_t{1} << 62)) {
                CompactEdges::Edge x;
                x.a = edges_.intern(buffer_[0].get_ref<const std::string&>());
                x.b = edges_.intern(buffer_[1].get_ref<const std::string&>());
                x.mbps = buffer_[2].get<std::int64_t>();
                put(json::binary({}, edges_.edges.size()));
                edges_.edges.push_back(x);
            } else {
                put(json(std::move(buffer_)));
            }
            buffer_.clear();
            return true;
        }
        stack_.pop_back();
        keys_.pop_back();
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const json::exception& e) {
        // json::parse throws the same exception (a parse_error or out_of_range).
        if (const auto* pe = dynamic_cast<const json::parse_error*>(&e)) throw *pe;
        if (const auto* oe = dynamic_cast<const json::out_of_range*>(&e)) throw *oe;
        throw std::runtime_error(e.what());
    }

private:
    /** Is an array starting now a vlink entry? (root).vlinks[i]: stack = [root, vlinks array]; (root).vdcs[j].vlinks[i]:
     *  stack = [root, vdcs array, vdc object, vlinks array]. */
    bool at_edge() const {
        if (stack_.size() == 2) return keys_[0] == "vlinks" && stack_[1]->is_array();
        if (stack_.size() == 4) return keys_[0] == "vdcs" && keys_[2] == "vlinks" && stack_[3]->is_array() && stack_[2]->is_object();
        return false;
    }
    /** A nested value inside a buffered entry: build the entry as parsed after all. */
    void flush() {
        if (!buffering_) return;
        buffering_ = false;
        json* arr = put(json(std::move(buffer_)));
        buffer_.clear();
        stack_.push_back(arr);
        keys_.emplace_back();
    }
    template <class V>
    bool value(V&& v) {
        if (buffering_) {
            buffer_.emplace_back(std::forward<V>(v));
            return true;
        }
        put(json(std::forward<V>(v)));
        return true;
    }
    json* put(json&& v) {
        if (stack_.empty()) {
            root_ = std::move(v);
            return &root_;
        }
        if (stack_.back()->is_array()) {
            stack_.back()->push_back(std::move(v));
            return &stack_.back()->back();
        }
        *slot_ = std::move(v);
        return slot_;
    }

    json& root_;
    CompactEdges& edges_;
    std::vector<json*> stack_;
    std::vector<std::string> keys_;  ///< [depth] the current key of the object at stack_[depth]
    json* slot_ = nullptr;
    bool buffering_ = false;
    json::array_t buffer_;
};

struct Ctx {
    const std::string& file;
    const CompactEdges* edges = nullptr;  ///< vlinks compacted while parsing, or null
    [[noreturn]] void fail(const std::string& path, const std::string& what) const { throw InputError(file + ": " + path + ": " + what); }
};

const json& need(const Ctx& c, const json& obj, const std::string& path, const char* key) {
    auto it = obj.find(key);
    if (it == obj.end()) c.fail(path, std::string("missing required key \"") + key + "\"");
    return *it;
}

void only_keys(const Ctx& c, const json& obj, const std::string& path, std::initializer_list<const char*> allowed,
               const std::set<std::string>& extra = {}) {
    if (!obj.is_object()) c.fail(path, "expected an object");
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        bool ok = extra.count(it.key()) > 0;
        for (const char* a : allowed) ok = ok || it.key() == a;
        if (!ok) c.fail(path, "unknown key \"" + it.key() + "\"");
    }
}

std::string get_string(const Ctx& c, const json& v, const std::string& path) {
    if (!v.is_string()) c.fail(path, "expected a string");
    std::string s = v.get<std::string>();
    if (s.empty()) c.fail(path, "must not be empty");
    return s;
}

std::int64_t get_int(const Ctx& c, const json& v, const std::string& path, std::int64_t lo = 0,
                     std::int64_t hi = std::numeric_limits<std::int64_t>::max()) {
    if (!v.is_number_integer()) c.fail(path, "expected an integer");
    // An unsigned value above int64 (or a huge one) must not wrap when read.
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi)) c.fail(path, "must be <= " + std::to_string(hi));
    std::int64_t x = v.get<std::int64_t>();
    if (x < lo) c.fail(path, "must be >= " + std::to_string(lo));
    if (x > hi) c.fail(path, "must be <= " + std::to_string(hi));
    return x;
}

double get_number(const Ctx& c, const json& v, const std::string& path) {
    if (!v.is_number()) c.fail(path, "expected a number");
    double x = v.get<double>();
    if (!std::isfinite(x) || x < 0) c.fail(path, "must be a finite number >= 0");
    return x;
}

const json& get_array(const Ctx& c, const json& obj, const std::string& path, const char* key) {
    const json& a = need(c, obj, path, key);
    if (!a.is_array()) c.fail(path.empty() ? key : path + "." + key, "expected an array");
    return a;
}

std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
}

Topology parse_topology_value(const Ctx& c, const json& v, const std::string& path) {
    if (v.is_string()) {
        try {
            return parse_topology(v.get<std::string>());
        } catch (const std::invalid_argument& e) {
            c.fail(path, e.what());
        }
    }
    if (!v.is_object()) c.fail(path, "expected a topology name or {\"nodes\": n, \"edges\": [[a,b],...]}");
    only_keys(c, v, path, {"nodes", "edges"});
    const int n = static_cast<int>(get_int(c, need(c, v, path, "nodes"), join(path, "nodes"), 1, kMaxPNuma));
    std::vector<std::pair<int, int>> edges;
    const json& e = get_array(c, v, path, "edges");
    for (std::size_t i = 0; i < e.size(); ++i) {
        const std::string ep = join(path, "edges") + "[" + std::to_string(i) + "]";
        if (!e[i].is_array() || e[i].size() != 2) c.fail(ep, "expected a pair [a, b] of 1-based node numbers");
        edges.emplace_back(static_cast<int>(get_int(c, e[i][0], ep + "[0]", 1, n)),
                           static_cast<int>(get_int(c, e[i][1], ep + "[1]", 1, n)));
    }
    try {
        return topology_from_edges(n, edges);
    } catch (const std::invalid_argument& ex) {
        c.fail(path, ex.what());
    }
}

nlohmann::ordered_json topology_to_json(const Topology& t) {
    using oj = nlohmann::ordered_json;
    if (t.kind != TopologyKind::Explicit) return t.name;
    oj edges = oj::array();
    for (auto [a, b] : t.graph.edges()) edges.push_back({a + 1, b + 1});
    oj o;
    o["nodes"] = t.graph.n;
    o["edges"] = edges;
    return o;
}

std::vector<Amount> parse_amounts(const Ctx& c, const json& obj, const std::string& path, const std::vector<std::string>& resources,
                                  bool all_required) {
    std::vector<Amount> out(resources.size(), 0);
    for (std::size_t r = 0; r < resources.size(); ++r) {
        auto it = obj.find(resources[r]);
        if (it == obj.end()) {
            if (all_required || r < 2) c.fail(path, "missing required key \"" + resources[r] + "\"");
            continue;
        }
        out[r] = get_int(c, *it, join(path, resources[r]), 0, kMaxAmount);
    }
    return out;
}

/** A `[a, b, mbps]` edge at `path` (a vlink between VMs, a link between switches): both ends
 *  looked up by id in `index`, distinct, and an integer bandwidth in 1..kMaxMbps. */
std::tuple<int, int, std::int64_t> parse_edge(const Ctx& c, const json& e, const std::string& path,
                                              const std::unordered_map<std::string, int>& index, const std::string& end, const char* noun) {
    if (e.is_binary() && c.edges != nullptr && e.get_binary().has_subtype()) {  // compacted while parsing: the same checks
        const CompactEdges::Edge& x = c.edges->edges[e.get_binary().subtype()];
        int ends[2];
        const std::uint32_t names[2] = {x.a, x.b};
        for (int k = 0; k < 2; ++k) {
            const std::string& id = c.edges->names[names[k]];
            auto it = index.find(id);
            if (it == index.end()) c.fail(path + "[" + std::to_string(k) + "]", std::string("unknown ") + noun + " \"" + id + "\"");
            ends[k] = it->second;
        }
        if (ends[0] == ends[1]) c.fail(path, std::string("joins ") + noun + " \"" + c.edges->names[x.a] + "\" to itself");
        return {ends[0], ends[1], get_int(c, json(x.mbps), path + "[2]", 1, kMaxMbps)};
    }
    if (!e.is_array() || e.size() != 3) c.fail(path, "expected [" + end + "_a, " + end + "_b, mbps]");
    int ends[2];
    for (int k = 0; k < 2; ++k) {
        const std::string kp = path + "[" + std::to_string(k) + "]";
        const std::string id = get_string(c, e[k], kp);
        auto it = index.find(id);
        if (it == index.end()) c.fail(kp, std::string("unknown ") + noun + " \"" + id + "\"");
        ends[k] = it->second;
    }
    if (ends[0] == ends[1]) c.fail(path, std::string("joins ") + noun + " \"" + e[0].get<std::string>() + "\" to itself");
    return {ends[0], ends[1], get_int(c, e[2], path + "[2]", 1, kMaxMbps)};
}

/** [vm_a, vm_b, mbps] at `path` into p.vlinks (vdc index or -1). */
void parse_vlinks(const Ctx& c, const json& arr, const std::string& path, int vdc, Problem& p,
                  const std::unordered_map<std::string, int>& vm_index) {
    if (!arr.is_array()) c.fail(path, "expected an array of [vm_a, vm_b, mbps]");
    for (std::size_t i = 0; i < arr.size(); ++i) {
        const std::string ip = path + "[" + std::to_string(i) + "]";
        Vlink v;
        std::tie(v.a, v.b, v.mbps) = parse_edge(c, arr[i], ip, vm_index, "vm", "VM");
        v.vdc = vdc;
        p.vlinks.push_back(v);
    }
}

/** The optional "network", "vlinks" and "vdcs" sections (docs/format.md "Network and vlinks"). */
void parse_network(const Ctx& c, const json& doc, Problem& p, const std::unordered_map<std::string, int>& vm_index) {
    const auto net = doc.find("network");
    if (net == doc.end()) {
        if (doc.contains("vlinks") || doc.contains("vdcs"))
            c.fail(doc.contains("vlinks") ? "vlinks" : "vdcs", "vlinks need a \"network\" section");
        for (std::size_t h = 0; h < p.hosts.size(); ++h)
            if (!p.hosts[h].uplink.empty())
                c.fail("hosts[" + std::to_string(h) + "].uplink", "names a switch, but the snapshot has no \"network\"");
        return;
    }
    only_keys(c, *net, "network", {"switches", "links"});
    Network& n = p.network;
    std::unordered_map<std::string, int> sw;
    const json& ss = get_array(c, *net, "network", "switches");
    if (ss.empty()) c.fail("network.switches", "is empty: a network needs at least one switch");
    for (std::size_t i = 0; i < ss.size(); ++i) {
        const std::string id = get_string(c, ss[i], "network.switches[" + std::to_string(i) + "]");
        if (!sw.emplace(id, static_cast<int>(i)).second)
            c.fail("network.switches[" + std::to_string(i) + "]", "duplicate switch \"" + id + "\"");
        n.switches.push_back(id);
    }
    if (net->contains("links")) {
        const json& ls = get_array(c, *net, "network", "links");
        for (std::size_t i = 0; i < ls.size(); ++i) {
            const std::string ip = "network.links[" + std::to_string(i) + "]";
            NetLink l;
            std::tie(l.a, l.b, l.mbps) = parse_edge(c, ls[i], ip, sw, "switch", "switch");
            n.links.push_back(l);
        }
    }
    // Every host attaches to one switch: its "uplink", else the switch its "rack" names.
    n.host_switch.resize(p.hosts.size());
    for (std::size_t h = 0; h < p.hosts.size(); ++h) {
        const Host& host = p.hosts[h];
        const std::string path = "hosts[" + std::to_string(h) + "]";
        const std::string& name = host.uplink.empty() ? host.rack : host.uplink;
        auto it = sw.find(name);
        if (it == sw.end())
            c.fail(host.uplink.empty() ? path : path + ".uplink",
                   host.uplink.empty() ? "host \"" + host.id + "\" attaches to no switch: give \"uplink\" or a \"rack\" that names a switch"
                                       : "unknown switch \"" + name + "\"");
        n.host_switch[h] = it->second;
        if (p.host_types[host.type].nic_mbps == 0)
            c.fail("host_types[" + std::to_string(host.type) + "].nic_mbps",
                   "required when the snapshot has a network (the host uplink capacity, Mbps)");
    }
    // The switches hosts attach to must reach each other (else some vlink could have no route).
    if (const int h = first_unreachable(static_cast<int>(n.switches.size()), n.links, n.host_switch); h >= 0)
        c.fail("network", "switch \"" + n.switches[n.host_switch[h]] + "\" (host \"" + p.hosts[h].id + "\") cannot reach switch \"" +
                              n.switches[n.host_switch[0]] + "\" (host \"" + p.hosts[0].id + "\")");

    if (auto it = doc.find("vlinks"); it != doc.end()) parse_vlinks(c, *it, "vlinks", -1, p, vm_index);
    if (auto it = doc.find("vdcs"); it != doc.end()) {
        if (!it->is_array()) c.fail("vdcs", "expected an array of {\"id\", \"vlinks\"}");
        std::unordered_map<std::string, int> vdc_index;
        for (std::size_t d = 0; d < it->size(); ++d) {
            const std::string path = "vdcs[" + std::to_string(d) + "]";
            const json& o = (*it)[d];
            only_keys(c, o, path, {"id", "vlinks"});
            const std::string id = get_string(c, need(c, o, path, "id"), join(path, "id"));
            if (!vdc_index.emplace(id, static_cast<int>(d)).second) c.fail(join(path, "id"), "duplicate VDC \"" + id + "\"");
            p.vdcs.push_back(id);
            parse_vlinks(c, need(c, o, path, "vlinks"), join(path, "vlinks"), static_cast<int>(d), p, vm_index);
        }
    }
}

/** The header: "format" and "source" where given, and "resources" (default vcpu, ram_mib), which must
 *  start with vcpu and ram_mib: every later section reads its amounts against p.resources. */
void parse_header(const Ctx& c, const json& doc, Problem& p) {
    if (auto it = doc.find("format"); it != doc.end()) {
        if (!it->is_string() || it->get<std::string>() != kSnapshotFormat)
            c.fail("format", std::string("expected \"") + kSnapshotFormat + "\"");
    }
    if (auto it = doc.find("source"); it != doc.end()) {
        if (!it->is_string()) c.fail("source", "expected a string");
        p.source = it->get<std::string>();
    }
    p.resources = {"vcpu", "ram_mib"};
    if (auto it = doc.find("resources"); it != doc.end()) {
        if (!it->is_array()) c.fail("resources", "expected an array of resource names");
        p.resources.clear();
        for (std::size_t r = 0; r < it->size(); ++r) p.resources.push_back(get_string(c, (*it)[r], "resources[" + std::to_string(r) + "]"));
    }
    const int R = p.num_resources();
    if (R < 2 || p.resources[kVcpu] != "vcpu" || p.resources[kRamMib] != "ram_mib")
        c.fail("resources", "must start with \"vcpu\", \"ram_mib\"");
}

/** "host_types" into p.host_types; node capacities take exactly the keys in `resource_keys`. Returns
 *  name -> index (a duplicate name is refused), read before "hosts", which name their type. */
std::unordered_map<std::string, int> parse_host_types(const Ctx& c, const json& doc, Problem& p,
                                                      const std::set<std::string>& resource_keys) {
    std::unordered_map<std::string, int> type_index;
    const json& hts = get_array(c, doc, "", "host_types");
    for (std::size_t t = 0; t < hts.size(); ++t) {
        const std::string path = "host_types[" + std::to_string(t) + "]";
        const json& o = hts[t];
        only_keys(c, o, path, {"name", "topology", "node_capacity", "nic_mbps"});
        HostType ht;
        ht.name = get_string(c, need(c, o, path, "name"), join(path, "name"));
        ht.topology = parse_topology_value(c, need(c, o, path, "topology"), join(path, "topology"));
        const json& cap = need(c, o, path, "node_capacity");
        const std::string cp = join(path, "node_capacity");
        if (cap.is_object()) {
            only_keys(c, cap, cp, {}, resource_keys);
            auto one = parse_amounts(c, cap, cp, p.resources, true);
            for (int i = 0; i < ht.num_nodes(); ++i) ht.node_capacity.insert(ht.node_capacity.end(), one.begin(), one.end());
        } else if (cap.is_array()) {
            if (static_cast<int>(cap.size()) != ht.num_nodes())
                c.fail(cp, "has " + std::to_string(cap.size()) + " entries; the topology has " + std::to_string(ht.num_nodes()) +
                               " pNUMA nodes");
            for (std::size_t i = 0; i < cap.size(); ++i) {
                const std::string ip = cp + "[" + std::to_string(i) + "]";
                only_keys(c, cap[i], ip, {}, resource_keys);
                auto one = parse_amounts(c, cap[i], ip, p.resources, true);
                ht.node_capacity.insert(ht.node_capacity.end(), one.begin(), one.end());
            }
        } else {
            c.fail(cp, "expected an object (same capacity on every pNUMA node) or an array with one object per pNUMA node");
        }
        if (o.contains("nic_mbps")) ht.nic_mbps = get_int(c, o["nic_mbps"], join(path, "nic_mbps"), 1, kMaxMbps);
        if (!type_index.emplace(ht.name, static_cast<int>(t)).second) c.fail(join(path, "name"), "duplicate host type \"" + ht.name + "\"");
        p.host_types.push_back(std::move(ht));
    }
    return type_index;
}

/** "hosts" (at least one) into p.hosts, each type looked up in `type_index`. Returns id -> index
 *  (a duplicate id is refused), read before "vms", which name their host. */
std::unordered_map<std::string, int> parse_hosts(const Ctx& c, const json& doc, Problem& p,
                                                 const std::unordered_map<std::string, int>& type_index) {
    std::unordered_map<std::string, int> host_index;
    const json& hs = get_array(c, doc, "", "hosts");
    if (hs.empty()) c.fail("hosts", "is empty: a snapshot needs at least one host");
    p.hosts.reserve(hs.size());
    for (std::size_t h = 0; h < hs.size(); ++h) {
        const std::string path = "hosts[" + std::to_string(h) + "]";
        const json& o = hs[h];
        only_keys(c, o, path, {"id", "type", "rack", "pod", "uplink"});
        Host host;
        host.id = get_string(c, need(c, o, path, "id"), join(path, "id"));
        const std::string tn = get_string(c, need(c, o, path, "type"), join(path, "type"));
        auto it = type_index.find(tn);
        if (it == type_index.end()) c.fail(join(path, "type"), "unknown host type \"" + tn + "\"");
        host.type = it->second;
        if (o.contains("rack")) host.rack = get_string(c, o["rack"], join(path, "rack"));
        if (o.contains("pod")) host.pod = get_string(c, o["pod"], join(path, "pod"));
        if (o.contains("uplink")) host.uplink = get_string(c, o["uplink"], join(path, "uplink"));
        if (!host_index.emplace(host.id, static_cast<int>(h)).second) c.fail(join(path, "id"), "duplicate host id \"" + host.id + "\"");
        p.hosts.push_back(std::move(host));
    }
    return host_index;
}

/** "flavors" (at least one) into p.flavors; demands take the keys in `resource_keys`. Returns
 *  name -> index (a duplicate name is refused), read before "vms", which name their flavor. */
std::unordered_map<std::string, int> parse_flavors(const Ctx& c, const json& doc, Problem& p, const std::set<std::string>& resource_keys) {
    std::unordered_map<std::string, int> flavor_index;
    const json& fs = get_array(c, doc, "", "flavors");
    if (fs.empty()) c.fail("flavors", "is empty: a snapshot needs at least one flavor");
    for (std::size_t f = 0; f < fs.size(); ++f) {
        const std::string path = "flavors[" + std::to_string(f) + "]";
        const json& o = fs[f];
        only_keys(c, o, path, {"name", "vnuma", "weight", "bandwidth_mbps"}, resource_keys);
        Flavor fl;
        fl.name = get_string(c, need(c, o, path, "name"), join(path, "name"));
        fl.demand = parse_amounts(c, o, path, p.resources, false);
        fl.vnuma = o.contains("vnuma") ? parse_topology_value(c, o["vnuma"], join(path, "vnuma")) : parse_topology("K1");
        // Checked here, before any VM's pNUMA array (kMaxVNuma entries) is filled from it.
        if (fl.num_vnuma() > kMaxVNuma)
            c.fail(join(path, "vnuma"),
                   "has " + std::to_string(fl.num_vnuma()) + " nodes; at most " + std::to_string(kMaxVNuma) + " are supported");
        fl.weight = o.contains("weight") ? get_number(c, o["weight"], join(path, "weight")) : 0.0;
        if (o.contains("bandwidth_mbps")) fl.bandwidth_mbps = get_int(c, o["bandwidth_mbps"], join(path, "bandwidth_mbps"), 0, kMaxMbps);
        if (!flavor_index.emplace(fl.name, static_cast<int>(f)).second) c.fail(join(path, "name"), "duplicate flavor \"" + fl.name + "\"");
        p.flavors.push_back(std::move(fl));
    }
    return flavor_index;
}

/** "vms" into p.vms: flavor and host looked up by name, pNUMA nodes checked against the flavor's
 *  vNUMA count and the host's topology (so after flavors and hosts). Returns id -> index (a
 *  duplicate id is refused), which the vlinks name their VMs by. */
std::unordered_map<std::string, int> parse_vms(const Ctx& c, const json& doc, Problem& p,
                                               const std::unordered_map<std::string, int>& flavor_index,
                                               const std::unordered_map<std::string, int>& host_index) {
    const json& vs = get_array(c, doc, "", "vms");
    p.vms.reserve(vs.size());
    std::unordered_map<std::string, int> vm_index;
    vm_index.reserve(vs.size());
    for (std::size_t i = 0; i < vs.size(); ++i) {
        const std::string path = "vms[" + std::to_string(i) + "]";
        const json& o = vs[i];
        only_keys(c, o, path, {"id", "flavor", "host", "pnuma", "migratable", "tenant"});
        Vm vm;
        vm.id = get_string(c, need(c, o, path, "id"), join(path, "id"));
        const std::string where = path + " (id \"" + vm.id + "\")";
        const std::string fn = get_string(c, need(c, o, path, "flavor"), join(path, "flavor"));
        auto fi = flavor_index.find(fn);
        if (fi == flavor_index.end()) c.fail(where + ".flavor", "unknown flavor \"" + fn + "\"");
        vm.flavor = fi->second;
        const std::string hn = get_string(c, need(c, o, path, "host"), join(path, "host"));
        auto hi = host_index.find(hn);
        if (hi == host_index.end()) c.fail(where + ".host", "unknown host \"" + hn + "\"");
        vm.host = hi->second;
        const json& pn = need(c, o, path, "pnuma");
        const int k = p.flavors[vm.flavor].num_vnuma();
        if (!pn.is_array() || static_cast<int>(pn.size()) != k)
            c.fail(where + ".pnuma", "expected an array of " + std::to_string(k) +
                                         " pNUMA node numbers (1-based), one per vNUMA node of flavor \"" + fn + "\"");
        const int nodes = p.host_type_of(vm.host).num_nodes();
        for (int v = 0; v < k; ++v) {
            const std::int64_t x = get_int(c, pn[v], where + ".pnuma[" + std::to_string(v) + "]", 1);
            if (x > nodes)
                c.fail(where + ".pnuma[" + std::to_string(v) + "]",
                       "pNUMA node " + std::to_string(x) + " does not exist on host \"" + hn + "\" (1.." + std::to_string(nodes) + ")");
            vm.pnuma[v] = static_cast<std::uint8_t>(x - 1);
        }
        if (o.contains("migratable")) {
            if (!o["migratable"].is_boolean()) c.fail(where + ".migratable", "expected true or false");
            vm.migratable = o["migratable"].get<bool>();
        }
        if (o.contains("tenant")) vm.tenant = get_string(c, o["tenant"], where + ".tenant");
        if (!vm_index.emplace(vm.id, static_cast<int>(i)).second) c.fail(join(path, "id"), "duplicate VM id \"" + vm.id + "\"");
        p.vms.push_back(std::move(vm));
    }
    return vm_index;
}

/** A list of host ids at `path` into sorted, distinct host indices (unknown or repeated: refused). */
std::vector<int> parse_host_list(const Ctx& c, const json& v, const std::string& path,
                                 const std::unordered_map<std::string, int>& host_index) {
    if (!v.is_array()) c.fail(path, "expected an array of host ids");
    std::vector<int> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string id = get_string(c, v[i], path + "[" + std::to_string(i) + "]");
        const auto it = host_index.find(id);
        if (it == host_index.end()) c.fail(path + "[" + std::to_string(i) + "]", "unknown host \"" + id + "\"");
        out.push_back(it->second);
    }
    std::sort(out.begin(), out.end());
    if (std::adjacent_find(out.begin(), out.end()) != out.end()) c.fail(path, "a host is listed twice");
    return out;
}

/** The optional "server_groups" section (OpenStack server groups) into p.server_groups. */
void parse_server_groups(const Ctx& c, const json& doc, Problem& p, const std::unordered_map<std::string, int>& vm_index) {
    const auto it = doc.find("server_groups");
    if (it == doc.end()) return;
    if (!it->is_array()) c.fail("server_groups", "expected an array of {\"id\", \"policy\", \"members\"}");
    std::unordered_map<int, std::string> group_of;
    std::set<std::string> ids;
    for (std::size_t g = 0; g < it->size(); ++g) {
        const std::string path = "server_groups[" + std::to_string(g) + "]";
        const json& o = (*it)[g];
        only_keys(c, o, path, {"id", "policy", "members"});
        ServerGroup sg;
        sg.id = get_string(c, need(c, o, path, "id"), join(path, "id"));
        if (!ids.insert(sg.id).second) c.fail(join(path, "id"), "duplicate server group id \"" + sg.id + "\"");
        const std::string where = path + " (id \"" + sg.id + "\")";
        const std::string policy = get_string(c, need(c, o, path, "policy"), join(path, "policy"));
        const std::optional<GroupPolicy> named = group_policy_named(policy);
        if (!named) c.fail(where + ".policy", "expected \"anti-affinity\", \"affinity\" or \"soft-anti-affinity\", got \"" + policy + "\"");
        sg.policy = *named;
        const json& ms = need(c, o, path, "members");
        if (!ms.is_array()) c.fail(where + ".members", "expected an array of VM ids");
        for (std::size_t i = 0; i < ms.size(); ++i) {
            const std::string mp = where + ".members[" + std::to_string(i) + "]";
            const std::string id = get_string(c, ms[i], mp);
            const auto vi = vm_index.find(id);
            if (vi == vm_index.end()) c.fail(mp, "unknown VM \"" + id + "\"");
            if (const auto [gi, fresh] = group_of.emplace(vi->second, sg.id); !fresh)
                c.fail(mp, "VM \"" + id + "\" is already in server group \"" + gi->second + "\" (a VM is in at most one)");
            sg.members.push_back(vi->second);
        }
        p.server_groups.push_back(std::move(sg));
    }
}

/** The optional "constraints" section into p.constraints (defaults kept where a key is absent). */
void parse_constraints(const Ctx& c, const json& doc, Problem& p, const std::unordered_map<std::string, int>& host_index) {
    if (auto it = doc.find("constraints"); it != doc.end()) {
        only_keys(
            c, *it, "constraints",
            {"max_migrations", "max_migrated_ram_gib", "remap_counts_as_migration", "remaps_allowed", "drain_hosts", "no_target_hosts"});
        if (it->contains("remaps_allowed")) {
            const json& r = (*it)["remaps_allowed"];
            if (!r.is_boolean()) c.fail("constraints.remaps_allowed", "expected true or false");
            p.constraints.remaps_allowed = r.get<bool>();
        }
        if (it->contains("drain_hosts"))
            p.constraints.drain_hosts = parse_host_list(c, (*it)["drain_hosts"], "constraints.drain_hosts", host_index);
        if (it->contains("no_target_hosts"))
            p.constraints.no_target_hosts = parse_host_list(c, (*it)["no_target_hosts"], "constraints.no_target_hosts", host_index);
        if (it->contains("remap_counts_as_migration")) {
            const json& r = (*it)["remap_counts_as_migration"];
            if (!r.is_boolean()) c.fail("constraints.remap_counts_as_migration", "expected true or false");
            p.constraints.remap_counts_as_migration = r.get<bool>();
        }
        if (it->contains("max_migrations"))
            p.constraints.max_migrations = get_int(c, (*it)["max_migrations"], "constraints.max_migrations", 0);
        if (it->contains("max_migrated_ram_gib"))
            p.constraints.max_migrated_ram_mib =
                gib_to_mib_budget(get_number(c, (*it)["max_migrated_ram_gib"], "constraints.max_migrated_ram_gib"));
    }
}

/** The optional "node_rule" section into p.node_rule ("free" when absent); its consistency with
 *  the host types is checked once the problem is complete (node_rule_problem_error). */
void parse_node_rule(const Ctx& c, const json& doc, Problem& p) {
    const auto it = doc.find("node_rule");
    if (it == doc.end()) return;
    only_keys(c, *it, "node_rule", {"name", "cpu_allocation_ratio", "ram_allocation_ratio", "reserved_host_memory_mb"});
    NodeRuleSpec& r = p.node_rule;
    r.name = get_string(c, need(c, *it, "node_rule", "name"), "node_rule.name");
    if (r.name == kFreeNodeRule && it->size() > 1) c.fail("node_rule", "the rule \"free\" takes no parameters");
    if (it->contains("cpu_allocation_ratio"))
        r.cpu_allocation_ratio = get_number(c, (*it)["cpu_allocation_ratio"], "node_rule.cpu_allocation_ratio");
    if (it->contains("ram_allocation_ratio"))
        r.ram_allocation_ratio = get_number(c, (*it)["ram_allocation_ratio"], "node_rule.ram_allocation_ratio");
    if (it->contains("reserved_host_memory_mb"))
        r.reserved_host_memory_mb = get_int(c, (*it)["reserved_host_memory_mb"], "node_rule.reserved_host_memory_mb", 0, kMaxAmount);
}

}  // namespace

namespace {
Problem parse_snapshot_with(const json& doc, const std::string& file, const CompactEdges* edges);
}

Problem parse_snapshot(const json& doc, const std::string& file) {
    return parse_snapshot_with(doc, file, nullptr);
}

namespace {
Problem parse_snapshot_with(const json& doc, const std::string& file, const CompactEdges* edges) {
    const Ctx c{file, edges};
    Problem p;
    only_keys(c, doc, "(root)",
              {"format", "source", "resources", "host_types", "hosts", "flavors", "vms", "constraints", "network", "vlinks", "vdcs",
               "server_groups", "node_rule"});
    parse_header(c, doc, p);
    const std::set<std::string> resource_keys(p.resources.begin(), p.resources.end());
    const auto type_index = parse_host_types(c, doc, p, resource_keys);
    const auto host_index = parse_hosts(c, doc, p, type_index);
    const auto flavor_index = parse_flavors(c, doc, p, resource_keys);
    const auto vm_index = parse_vms(c, doc, p, flavor_index, host_index);
    parse_constraints(c, doc, p, host_index);
    parse_server_groups(c, doc, p, vm_index);
    parse_network(c, doc, p, vm_index);
    parse_node_rule(c, doc, p);
    finalize_problem(p, file);
    if (const std::string why = node_rule_problem_error(p); !why.empty()) throw InputError(file + ": " + why);
    return p;
}
}  // namespace

Problem load_snapshot(const std::string& path) {
    json doc;
    CompactEdges edges;
    try {
        const std::string text = read_text_file(path);
        SnapshotSax sax(doc, edges);
        json::sax_parse(text, &sax);
    } catch (const json::exception& e) {  // syntax, and numbers beyond double range (out_of_range)
        std::string what = e.what();
        throw InputError(path + ": invalid JSON (" + what.substr(what.find(']') + 2) + ")");
    }
    try {
        return parse_snapshot_with(doc, path, &edges);
    } catch (const json::exception& e) {  // a type the checks above did not expect: still bad input
        std::string what = e.what();
        throw InputError(path + ": " + what.substr(what.find(']') + 2));
    }
}

namespace {

using oj = nlohmann::ordered_json;

/** The JSON array of row(x) for each x of `xs`, in order. */
template <class Range, class Row>
oj array_of(const Range& xs, Row&& row) {
    oj a = oj::array();
    for (const auto& x : xs) a.push_back(row(x));
    return a;
}

oj host_ids_json(const Problem& p, const std::vector<int>& hosts) {
    return array_of(hosts, [&](int h) { return p.hosts[h].id; });
}

/** host_types[i]: node_capacity one object when every pNUMA node has the same, else one per node. */
oj host_type_json(const Problem& p, const HostType& ht) {
    const int R = p.num_resources();
    oj o;
    o["name"] = ht.name;
    o["topology"] = topology_to_json(ht.topology);
    bool uniform = true;
    for (int i = 1; i < ht.num_nodes(); ++i)
        for (int r = 0; r < R; ++r) uniform = uniform && ht.node_capacity[i * R + r] == ht.node_capacity[r];
    auto node = [&](int i) {
        oj cap;
        for (int r = 0; r < R; ++r) cap[p.resources[r]] = ht.node_capacity[i * R + r];
        return cap;
    };
    if (uniform) {
        o["node_capacity"] = node(0);
    } else {
        oj arr = oj::array();
        for (int i = 0; i < ht.num_nodes(); ++i) arr.push_back(node(i));
        o["node_capacity"] = arr;
    }
    if (ht.nic_mbps > 0) o["nic_mbps"] = ht.nic_mbps;
    return o;
}

oj host_json(const Problem& p, const Host& h) {
    oj o = {{"id", h.id}, {"type", p.host_types[h.type].name}};
    if (!h.rack.empty()) o["rack"] = h.rack;
    if (!h.pod.empty()) o["pod"] = h.pod;
    if (!h.uplink.empty()) o["uplink"] = h.uplink;
    return o;
}

/** flavors[i]: vCPU and RAM always, other resources when demanded. */
oj flavor_json(const Problem& p, const Flavor& f) {
    oj o;
    o["name"] = f.name;
    for (int r = 0; r < p.num_resources(); ++r)
        if (r < 2 || f.demand[r] != 0) o[p.resources[r]] = f.demand[r];
    o["vnuma"] = topology_to_json(f.vnuma);
    o["weight"] = f.weight;
    if (f.bandwidth_mbps > 0) o["bandwidth_mbps"] = f.bandwidth_mbps;
    return o;
}

/** vms[i]: pNUMA nodes 1-based, as the format counts them. */
oj vm_json(const Problem& p, const Vm& vm) {
    oj pn = oj::array();
    for (int v = 0; v < p.flavors[vm.flavor].num_vnuma(); ++v) pn.push_back(vm.pnuma[v] + 1);
    oj o = {{"id", vm.id}, {"flavor", p.flavors[vm.flavor].name}, {"host", p.hosts[vm.host].id}, {"pnuma", pn}};
    if (!vm.migratable) o["migratable"] = false;
    if (!vm.tenant.empty()) o["tenant"] = vm.tenant;
    return o;
}

nlohmann::ordered_json server_groups_json(const Problem& p) {
    oj gs = oj::array();
    for (const ServerGroup& g : p.server_groups) {
        oj m = oj::array();
        for (int v : g.members) m.push_back(p.vms[v].id);
        gs.push_back(oj{{"id", g.id}, {"policy", to_string(g.policy)}, {"members", m}});
    }
    return gs;
}

}  // namespace

std::optional<GroupPolicy> group_policy_named(std::string_view name) {
    for (const GroupPolicy p : {GroupPolicy::AntiAffinity, GroupPolicy::Affinity, GroupPolicy::SoftAntiAffinity})
        if (name == to_string(p)) return p;
    return std::nullopt;
}

nlohmann::ordered_json snapshot_to_json(const Problem& p) {
    oj doc;
    doc["format"] = kSnapshotFormat;
    if (!p.source.empty()) doc["source"] = p.source;
    doc["resources"] = p.resources;
    doc["host_types"] = array_of(p.host_types, [&](const HostType& ht) { return host_type_json(p, ht); });
    doc["hosts"] = array_of(p.hosts, [&](const Host& h) { return host_json(p, h); });
    doc["flavors"] = array_of(p.flavors, [&](const Flavor& f) { return flavor_json(p, f); });
    doc["vms"] = array_of(p.vms, [&](const Vm& vm) { return vm_json(p, vm); });
    oj cons = oj::object();
    if (p.constraints.max_migrations != std::numeric_limits<std::int64_t>::max()) cons["max_migrations"] = p.constraints.max_migrations;
    if (p.constraints.max_migrated_ram_mib != std::numeric_limits<Amount>::max())
        cons["max_migrated_ram_gib"] = static_cast<double>(p.constraints.max_migrated_ram_mib) / 1024.0;
    if (!p.constraints.remap_counts_as_migration) cons["remap_counts_as_migration"] = false;
    if (!p.constraints.remaps_allowed) cons["remaps_allowed"] = false;
    if (!p.constraints.drain_hosts.empty()) cons["drain_hosts"] = host_ids_json(p, p.constraints.drain_hosts);
    if (!p.constraints.no_target_hosts.empty()) cons["no_target_hosts"] = host_ids_json(p, p.constraints.no_target_hosts);
    doc["constraints"] = cons;
    if (p.node_rule.name != kFreeNodeRule)
        doc["node_rule"] = oj{{"name", p.node_rule.name},
                              {"cpu_allocation_ratio", p.node_rule.cpu_allocation_ratio},
                              {"ram_allocation_ratio", p.node_rule.ram_allocation_ratio},
                              {"reserved_host_memory_mb", p.node_rule.reserved_host_memory_mb}};
    if (!p.server_groups.empty()) doc["server_groups"] = server_groups_json(p);
    if (p.network.present()) {
        oj net;
        net["switches"] = p.network.switches;
        oj ls = oj::array();
        for (const NetLink& l : p.network.links) ls.push_back(oj::array({p.network.switches[l.a], p.network.switches[l.b], l.mbps}));
        net["links"] = ls;
        doc["network"] = net;
        auto vlink_json = [&](const Vlink& v) { return oj::array({p.vms[v.a].id, p.vms[v.b].id, v.mbps}); };
        oj loose = oj::array();
        std::vector<oj> grouped(p.vdcs.size(), oj::array());
        for (const Vlink& v : p.vlinks) (v.vdc < 0 ? loose : grouped[v.vdc]).push_back(vlink_json(v));
        if (!loose.empty()) doc["vlinks"] = loose;
        if (!p.vdcs.empty()) {
            oj ds = oj::array();
            for (std::size_t d = 0; d < p.vdcs.size(); ++d) ds.push_back(oj{{"id", p.vdcs[d]}, {"vlinks", grouped[d]}});
            doc["vdcs"] = ds;
        }
    }
    return doc;
}

}  // namespace vmcap

namespace vmcap {

std::string format_json_lines(const nlohmann::ordered_json& doc) {
    if (!doc.is_object()) return doc.dump(1) + "\n";
    std::string out = "{\n";
    bool first = true;
    for (auto it = doc.begin(); it != doc.end(); ++it) {
        if (!first) out += ",\n";
        first = false;
        out += ' ';
        out += nlohmann::ordered_json(it.key()).dump();
        out += ": ";
        if (it->is_array() && !it->empty() && (it->front().is_object() || it->front().is_array())) {
            out += "[\n";
            for (std::size_t i = 0; i < it->size(); ++i) {
                out += "  " + (*it)[i].dump();
                out += (i + 1 < it->size()) ? ",\n" : "\n";
            }
            out += " ]";
        } else {
            out += it->dump();
        }
    }
    out += "\n}\n";
    return out;
}

}  // namespace vmcap
