/**
 * @file presets.cpp
 * The presets' values and their resolution against the command line (presets.h). The values of
 * `recommended` are the measured choices of docs/performance.md, "The recommended configuration";
 * docs/cli.md "Presets" tabulates them with the figures.
 */
#include "cli/presets.h"

#include <iostream>
#include <optional>

namespace vmcap::cli::detail {

namespace po = boost::program_options;

namespace {

// The admission rule `simulate` and `place` share (one search, MakeRoomSearch, behind both): the
// placer, vmcap-fit with admission migrations (docs/performance.md, "Admission migrations only
// where one makes room"), and at most one admission migration per request where make_room_direct
// applies (a plan of two only as --make-room-copies takes it, and that 0).
const PresetValue kPlacer = {"placer", "vmcap-rack-fit", "migrations-per-request", "vmcap-fit"};
const PresetValue kMigrations = {"migrations-per-request", "0"};
const PresetValue kMakeRoomCopies = {"make-room-copies", "0"};
const PresetValue kMakeRoomSecond = {"make-room-second", "copies"};
// simulate only (place weighs as its cluster file says): the placer keeps room for the largest
// one-node flavor without admission migrations, not with them (docs/performance.md, "The placer
// keeps room for the largest one-node flavor": 1,529.7 hosts instead of 1,563.7; with two
// migrations per request at 1,500 hosts 1,150 rejected instead of 459).
const PresetValue kPlacerOneNode = {"placer-one-node", "on", "migrations-per-request", "off"};

}  // namespace

std::vector<Preset> command_presets(const std::string& command) {
    std::vector<Preset> out = {{"none", {}}};
    if (command == "simulate")
        out.push_back({"recommended",
                       {kPlacer,
                        kPlacerOneNode,
                        {"compare", "sa"},
                        {"weights", "forecast"},
                        {"defrag-when", "both"},
                        {"forecast-room", "triggers"},
                        {"defrag-budget", "0.5%"},
                        {"daily-budget", "1%"},
                        kMigrations,
                        kMakeRoomCopies,
                        kMakeRoomSecond}});
    else if (command == "place")
        out.push_back({"recommended", {kPlacer, kMigrations, kMakeRoomCopies, kMakeRoomSecond}});
    else if (command == "plan")
        out.push_back({"recommended", {{"algorithm", "sa"}}});
    return out;
}

namespace {

std::string names(const std::vector<Preset>& presets) {
    std::string s;
    for (std::size_t i = 0; i < presets.size(); ++i) s += (i == 0 ? "" : i + 1 == presets.size() ? " or " : ", ") + presets[i].name;
    return s;
}

std::string values_text(const Preset& p) {
    std::string s;
    for (const PresetValue& v : p.values) {
        s += (s.empty() ? "--" : " --") + v.option + " " + v.value;
        if (!v.when.empty()) s += " (" + v.value_when + " with --" + v.when + " other than 0)";
    }
    return s;
}

}  // namespace

void add_preset_option(po::options_description& desc, const std::vector<Preset>& presets) {
    std::string help =
        "option values chosen by the measurements (docs/cli.md \"Presets\"); an option given on the command line keeps its value:";
    for (const Preset& p : presets) help += " " + p.name + (p.values.empty() ? " (sets nothing)" : " (" + values_text(p) + ")");
    desc.add_options()("preset", po::value<std::string>()->default_value("none"), help.c_str());
}

bool parse_with_preset(const Args& args, const po::options_description& desc, po::variables_map& vm, const char* usage,
                       const std::vector<Preset>& presets, std::vector<ResolvedOption>* resolved) {
    const po::parsed_options given = po::command_line_parser(args).options(desc).run();
    po::store(given, vm);
    if (vm.count("help")) {
        std::cout << usage << "\n" << desc << "\n";
        return true;
    }
    const std::string name = vm["preset"].as<std::string>();
    const Preset* preset = nullptr;
    for (const Preset& p : presets)
        if (p.name == name) preset = &p;
    if (preset == nullptr) throw UsageError("--preset: expected " + names(presets) + ", got '" + name + "'");
    std::vector<std::string> tokens;
    if (resolved) resolved->clear();
    // An option's value as the command line gave it (its last occurrence), if it did.
    const auto given_value = [&](const std::string& option) -> std::optional<std::string> {
        if (vm.count(option) == 0 || vm[option].defaulted()) return std::nullopt;
        std::optional<std::string> out;
        for (const po::option& o : given.options)
            if (o.string_key == option) {
                out.emplace();
                for (const std::string& t : o.value) *out += (out->empty() ? "" : " ") + t;
            }
        return out;
    };
    // PresetValue::when: the option in force is the command line's, else this preset's.
    const auto in_force = [&](const std::string& option) -> std::optional<std::string> {
        if (auto g = given_value(option)) return g;
        for (const PresetValue& w : preset->values)
            if (w.option == option) return w.value;
        return std::nullopt;
    };
    for (const PresetValue& v : preset->values) {
        const bool explicit_value = vm.count(v.option) > 0 && !vm[v.option].defaulted();
        std::string value = v.value;
        if (!v.when.empty())
            if (const auto w = in_force(v.when); w && *w != "0") value = v.value_when;
        ResolvedOption r{v.option, value, explicit_value};
        if (explicit_value) {  // the command line's value, as it gave it (the last occurrence)
            for (const po::option& o : given.options)
                if (o.string_key == v.option) {
                    r.value.clear();
                    for (const std::string& t : o.value) r.value += (r.value.empty() ? "" : " ") + t;
                }
        } else {
            tokens.push_back("--" + v.option);
            tokens.push_back(value);
        }
        if (resolved) resolved->push_back(std::move(r));
    }
    // po::store keeps what the command line stored (its options are final in vm) and replaces defaults.
    if (!tokens.empty()) po::store(po::command_line_parser(tokens).options(desc).run(), vm);
    po::notify(vm);
    return false;
}

std::string resolved_text(const std::vector<ResolvedOption>& resolved) {
    std::string s, own;
    for (const ResolvedOption& r : resolved) {
        const std::string item = "--" + r.option + " " + r.value;
        (r.from_command_line ? own : s) += ((r.from_command_line ? own : s).empty() ? "" : " ") + item;
    }
    if (!own.empty()) s += (s.empty() ? "" : "; ") + std::string("from the command line: ") + own;
    return s;
}

}  // namespace vmcap::cli::detail
