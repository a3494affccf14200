#include "instances/trace.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string_view>
#include <system_error>

#include "instances/printable.h"

namespace vmcap {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/** "<file>:<line>: <what>" as an InputError, control characters of the quoted line (a NUL among
 *  them) shown as \xNN (printable.h), so that the CLI prints the whole message on one line. */
[[noreturn]] void fail(const std::string& file, std::size_t line, const std::string& what) {
    throw InputError(printable(file + ":" + std::to_string(line) + ": " + what));
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open file");
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) throw InputError(path + ": read error");
    return std::move(ss).str();
}

std::string quoted(std::string_view s) {
    std::string out(1, '\'');
    out.append(s);
    out.push_back('\'');
    return out;
}

/** Line-by-line reader over a whole file; strips a trailing '\r'. */
class LineReader {
public:
    explicit LineReader(const std::string& path) : path_(path), text_(slurp(path)) {}

    /** Next line into `out`; false at end of file. A final newline does not make an empty line. */
    bool next(std::string_view& out) {
        if (pos_ >= text_.size()) return false;
        std::size_t end = text_.find('\n', pos_);
        if (end == std::string::npos) end = text_.size();
        out = std::string_view(text_).substr(pos_, end - pos_);
        if (!out.empty() && out.back() == '\r') out.remove_suffix(1);
        pos_ = end + 1;
        ++line_;
        return true;
    }
    std::size_t line() const { return line_; }
    const std::string& path() const { return path_; }
    [[noreturn]] void fail(const std::string& what) const { vmcap::fail(path_, line_, what); }
    /** Reads the first line, which must be `header` exactly; throws InputError naming the file
     *  (and line 1) otherwise. */
    void expect_header(std::string_view header) {
        std::string_view line;
        if (!next(line)) throw InputError(path_ + ":1: empty file, expected header '" + std::string(header) + "'");
        if (line != header) fail("expected header '" + std::string(header) + "', got " + quoted(line));
    }

private:
    std::string path_;
    std::string text_;
    std::size_t pos_ = 0;
    std::size_t line_ = 0;
};

bool parse_i64(std::string_view s, std::int64_t& v) {
    if (s.empty()) return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc{} && p == s.data() + s.size();
}

bool parse_double(std::string_view s, double& v) {
    if (s.empty()) return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc{} && p == s.data() + s.size() && std::isfinite(v);
}

/** Splits `s` at every `sep` (empty fields kept). */
std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    while (true) {
        std::size_t at = s.find(sep, start);
        if (at == std::string_view::npos) {
            out.push_back(s.substr(start));
            return out;
        }
        out.push_back(s.substr(start, at - start));
        start = at + 1;
    }
}

/** `out` sorted by arrival time, ties kept in their order. */
std::vector<TraceVm> by_arrival(std::vector<TraceVm> out) {
    std::stable_sort(out.begin(), out.end(), [](const TraceVm& a, const TraceVm& b) { return a.arrival_s < b.arrival_s; });
    return out;
}

/** Uniform integer in [0, n), n >= 1, by rejection on the raw 64-bit output (library-independent). */
std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t n) {
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    const std::uint64_t excess = (kMax % n + 1) % n;  // 2^64 mod n
    while (true) {
        const std::uint64_t x = rng();
        if (x <= kMax - excess) return x % n;
    }
}

/** Uniform double in [0, 1) from the top 53 bits of one draw. */
double uniform_unit(std::mt19937_64& rng) {
    return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

struct FlavorSize {
    Amount vcpu = 0;
    Amount ram_mib = 0;
    std::string name;
};

std::map<std::string, FlavorSize, std::less<>> read_flavor_map(const std::string& path) {
    LineReader in(path);
    std::map<std::string, FlavorSize, std::less<>> out;
    std::string_view line;
    while (in.next(line)) {
        const auto sp = line.find(' ');
        if (sp == std::string_view::npos) in.fail("expected '<vCPU>,<GB> <letter>', got " + quoted(line));
        const std::string_view size = line.substr(0, sp);
        const std::string_view letter = line.substr(sp + 1);
        const auto comma = size.find(',');
        std::int64_t vcpu = 0;
        double gb = 0.0;
        if (comma == std::string_view::npos || !parse_i64(size.substr(0, comma), vcpu) || !parse_double(size.substr(comma + 1), gb) ||
            letter.empty() || letter.find_first_of(" ,|") != std::string_view::npos)
            in.fail("expected '<vCPU>,<GB> <letter>', got " + quoted(line));
        if (vcpu <= 0 || gb <= 0.0) in.fail("vCPU and GB must be positive in " + quoted(line));
        const Amount ram = std::llround(gb * 1024.0);
        if (ram <= 0) in.fail("RAM rounds to 0 MiB in " + quoted(line));
        if (out.contains(letter)) in.fail("duplicate flavor letter " + quoted(letter));
        out.emplace(std::string(letter), FlavorSize{vcpu, ram, trace_flavor_name(vcpu, ram)});
    }
    if (out.empty()) throw InputError(path + ": no flavors");
    return out;
}

/** Durations (seconds) of each bin of the interval map, and the map's uniform duration step. */
struct IntervalMap {
    std::vector<std::vector<std::int64_t>> bins;  ///< bins[k] = durations mapping to bin k
    double step = 0.0;
};

IntervalMap read_interval_map(const std::string& path) {
    LineReader in(path);
    IntervalMap out;
    std::string_view line;
    std::int64_t prev_d = -1, prev_bin = -1, step = 0;
    while (in.next(line)) {
        const auto parts = split(line, ' ');
        std::int64_t d = 0, bin = 0;
        if (parts.size() != 2 || !parse_i64(parts[0], d) || !parse_i64(parts[1], bin))
            in.fail("expected '<duration_seconds> <bin>', got " + quoted(line));
        if (d < 0 || bin < 0) in.fail("negative duration or bin in " + quoted(line));
        if (bin > 1'000'000) in.fail("bin index too large in " + quoted(line));
        if (prev_d >= 0) {
            if (d <= prev_d) in.fail("durations must increase");
            if (bin < prev_bin) in.fail("bins must not decrease");
            if (step == 0)
                step = d - prev_d;
            else if (d - prev_d != step)
                in.fail("durations must be equally spaced (step " + std::to_string(step) + ")");
        }
        if (static_cast<std::size_t>(bin) >= out.bins.size()) out.bins.resize(static_cast<std::size_t>(bin) + 1);
        out.bins[static_cast<std::size_t>(bin)].push_back(d);
        prev_d = d;
        prev_bin = bin;
    }
    if (step == 0) throw InputError(path + ": need at least two lines to know the duration step");
    out.step = static_cast<double>(step);
    return out;
}

}  // namespace

std::string trace_flavor_name(Amount vcpu, Amount ram_mib) {
    char buf[64];
    const double gib = static_cast<double>(ram_mib) / 1024.0;
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, gib, std::chars_format::fixed);
    if (ec != std::errc{}) return std::to_string(vcpu) + "c" + std::to_string(ram_mib) + "m";
    return std::to_string(vcpu) + "c" + std::string(buf, p) + "g";
}

std::string trace_batch_name(const TraceVm& vm) {
    std::string out;
    if (vm.copy > 0) {
        out += 'c';
        out += std::to_string(vm.copy);
        out += '-';
    }
    char buf[64];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, vm.batch_bin_s, std::chars_format::fixed);
    out += 't';
    out.append(ec == std::errc{} ? std::string(buf, p) : std::to_string(vm.batch_bin_s));
    out += "-b";
    out += std::to_string(vm.batch_in_bin);
    return out;
}

std::vector<TraceVm> read_azure_trace(const std::string& flavor_file, const std::string& duration_file,
                                      const std::string& interval_map_file, const std::string& flavor_map_file, std::uint64_t seed) {
    const auto flavors = read_flavor_map(flavor_map_file);
    const IntervalMap imap = read_interval_map(interval_map_file);
    LineReader fin(flavor_file);
    LineReader din(duration_file);
    std::mt19937_64 rng(seed);
    std::vector<TraceVm> out;

    std::string_view fline, dline;
    double t_prev = 0.0;
    bool first = true;
    std::int64_t next_batch = 0;  // tenant batches seen so far (file order)
    while (true) {
        const bool has_f = fin.next(fline);
        const bool has_d = din.next(dline);
        if (!has_f && !has_d) break;
        if (!has_f) din.fail("duration file has more lines than " + flavor_file + " (" + std::to_string(fin.line()) + ")");
        if (!has_d) fin.fail("flavor file has more lines than " + duration_file + " (" + std::to_string(din.line()) + ")");

        const auto fsp = fline.find(' ');
        const auto dsp = dline.find(' ');
        double t = 0.0, td = 0.0;
        if (!parse_double(fline.substr(0, fsp), t)) fin.fail("expected '<t> <flavor>,...', got a bad timestamp");
        if (!parse_double(dline.substr(0, dsp), td)) din.fail("expected '<t> <duration>,...', got a bad timestamp");
        if (t != td)
            din.fail("timestamp " + std::string(dline.substr(0, dsp)) + " does not match " + std::string(fline.substr(0, fsp)) + " at " +
                     flavor_file + ":" + std::to_string(fin.line()));
        if (first)
            t_prev = t - 300.0;
        else if (t <= t_prev)
            fin.fail("timestamps must increase");

        const std::string_view frest = fsp == std::string_view::npos ? std::string_view{} : fline.substr(fsp + 1);
        const std::string_view drest = dsp == std::string_view::npos ? std::string_view{} : dline.substr(dsp + 1);
        const auto ftok = frest.empty() ? std::vector<std::string_view>{} : split(frest, ',');
        const auto dtok = drest.empty() ? std::vector<std::string_view>{} : split(drest, ',');
        if (ftok.size() != dtok.size())
            din.fail(std::to_string(dtok.size()) + " tokens, but " + flavor_file + ":" + std::to_string(fin.line()) + " has " +
                     std::to_string(ftok.size()));
        std::size_t count = 0;
        for (std::size_t i = 0; i < ftok.size(); ++i) {
            const bool fbar = ftok[i] == "|", dbar = dtok[i] == "|";
            if (fbar != dbar)
                din.fail("token " + std::to_string(i + 1) + " " + quoted(dtok[i]) + " does not align with " + quoted(ftok[i]) + " at " +
                         flavor_file + ":" + std::to_string(fin.line()));
            if (!fbar) ++count;
        }

        std::size_t idx = 0;
        std::int32_t line_batches = 0;  // batches started on this line
        bool in_batch = false;          // a batch is open (has a VM, not yet closed by '|')
        for (std::size_t i = 0; i < ftok.size(); ++i) {
            if (ftok[i] == "|") {
                in_batch = false;
                continue;
            }
            if (!in_batch) {
                in_batch = true;
                ++next_batch;
                ++line_batches;
            }
            const auto fit = flavors.find(ftok[i]);
            if (fit == flavors.end()) fin.fail("unknown flavor " + quoted(ftok[i]) + " (not in " + flavor_map_file + ")");
            const std::string_view d = dtok[i];
            std::int64_t bin = 0;
            if (d.size() < 2 || (d[0] != 'U' && d[0] != 'C') || !parse_i64(d.substr(1), bin) || bin < 0)
                din.fail("bad duration token " + quoted(d) + " (expected U<bin> or C<bin>)");

            TraceVm vm;
            vm.arrival_s = t_prev + (static_cast<double>(idx) + 0.5) / static_cast<double>(count) * (t - t_prev);
            vm.vcpu = fit->second.vcpu;
            vm.ram_mib = fit->second.ram_mib;
            vm.flavor_name = fit->second.name;
            vm.batch = next_batch - 1;
            vm.batch_bin_s = t;
            vm.batch_in_bin = line_batches - 1;
            if (d[0] == 'C' || static_cast<std::size_t>(bin) >= imap.bins.size()) {
                vm.departure_s = kInf;  // censored, or longer than the map covers
            } else {
                const auto& members = imap.bins[static_cast<std::size_t>(bin)];
                if (members.empty()) din.fail("duration bin " + std::to_string(bin) + " has no durations in " + interval_map_file);
                const std::uint64_t pick = uniform_below(rng, members.size());
                const double offset = uniform_unit(rng) * imap.step;
                vm.departure_s = vm.arrival_s + static_cast<double>(members[pick]) + offset;
            }
            out.push_back(std::move(vm));
            ++idx;
        }
        t_prev = t;
        first = false;
    }
    return by_arrival(std::move(out));
}

std::vector<TraceVm> read_huawei_trace(const std::string& csv_file) {
    LineReader in(csv_file);
    in.expect_header("vmid,cpu,mem,at,lt");
    std::string_view line;
    std::vector<TraceVm> out;
    while (in.next(line)) {
        if (line.empty()) in.fail("empty line");
        const auto f = split(line, ',');
        if (f.size() != 5) in.fail("expected 5 fields (vmid,cpu,mem,at,lt), got " + std::to_string(f.size()));
        std::int64_t vmid = 0, cpu = 0, mem = 0;
        double at = 0.0, lt = 0.0;
        if (!parse_i64(f[0], vmid)) in.fail("bad vmid " + quoted(f[0]));
        if (!parse_i64(f[1], cpu) || cpu <= 0) in.fail("bad cpu " + quoted(f[1]) + " (expected a positive integer)");
        if (!parse_i64(f[2], mem) || mem <= 0 || mem > (std::int64_t{1} << 40))
            in.fail("bad mem " + quoted(f[2]) + " (expected a positive integer, GB)");
        if (!parse_double(f[3], at)) in.fail("bad arrival time " + quoted(f[3]));
        if (!parse_double(f[4], lt) || lt < 0.0) in.fail("bad lifetime " + quoted(f[4]) + " (expected >= 0)");
        TraceVm vm;
        vm.arrival_s = at;
        vm.departure_s = at + lt;
        vm.vcpu = cpu;
        vm.ram_mib = mem * 1024;
        vm.flavor_name = trace_flavor_name(cpu, vm.ram_mib);
        out.push_back(std::move(vm));
    }
    return by_arrival(std::move(out));
}

std::vector<TraceVm> merge_traces(std::vector<std::vector<TraceVm>> traces) {
    std::size_t total = 0;
    for (const auto& t : traces) total += t.size();
    std::vector<TraceVm> out;
    out.reserve(total);
    for (auto& t : traces) {
        for (auto& vm : t) out.push_back(std::move(vm));
        std::vector<TraceVm>().swap(t);  // release each input as soon as it is copied
    }
    return by_arrival(std::move(out));
}

std::vector<TraceVm> time_shifted_copy(const std::vector<TraceVm>& trace, double offset_s) {
    std::vector<TraceVm> out = trace;
    if (trace.empty()) return out;
    double first = trace.front().arrival_s, last = trace.front().arrival_s;
    for (const TraceVm& vm : trace) {
        first = std::min(first, vm.arrival_s);
        last = std::max(last, vm.arrival_s);
    }
    const double span = last - first;
    if (!(span > 0)) return out;
    for (TraceVm& vm : out) {
        const double life = vm.departure_s - vm.arrival_s;  // +inf stays +inf
        vm.arrival_s = first + std::fmod(vm.arrival_s - first + std::fmod(offset_s, span) + span, span);
        vm.departure_s = vm.arrival_s + life;
    }
    return by_arrival(std::move(out));
}

std::vector<FlavorRequest> read_request_log(const std::string& file) {
    LineReader in(file);
    in.expect_header("time_s,flavor");
    std::string_view line;
    std::vector<FlavorRequest> out;
    while (in.next(line)) {
        const auto f = split(line, ',');
        if (f.size() != 2) in.fail("expected 2 fields (time_s,flavor), got " + std::to_string(f.size()));
        FlavorRequest r;
        if (!parse_double(f[0], r.time_s)) in.fail("bad time " + quoted(f[0]) + " (expected a finite number of seconds)");
        if (f[1].empty()) in.fail("empty flavor name");
        r.flavor = std::string(f[1]);
        r.line = in.line();
        out.push_back(std::move(r));
    }
    return out;
}

std::map<std::string, double> demand_weights(const std::vector<FlavorRequest>& requests, double until_s, double window_s,
                                             std::int64_t& requests_in_window) {
    std::map<std::string, std::int64_t> count;
    std::int64_t total = 0;
    for (const FlavorRequest& r : requests)
        if (r.time_s > until_s - window_s && r.time_s <= until_s) {
            ++count[r.flavor];
            ++total;
        }
    requests_in_window = total;
    std::map<std::string, double> out;
    for (const auto& [name, n] : count) {
        const std::int64_t milli = (1000000 * n + total / 2) / total;  // thousandths of a weight, rounded half up
        out.emplace(name, static_cast<double>(std::max<std::int64_t>(1, milli)) / 1000.0);
    }
    return out;
}

}  // namespace vmcap
