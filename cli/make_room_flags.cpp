#include "cli/make_room_flags.h"

#include "cli/cli.h"

namespace vmcap::cli {

namespace po = boost::program_options;

void add_make_room_flags(po::options_description& desc, MakeRoomFlags& flags) {
    // clang-format off
    desc.add_options()
        ("make-room-copies", po::value(&flags.copies)->default_value(0),
         "admission migrations under a placer that values capacity, K >= 2: take a plan of two migrations over the best of one when it leaves room for N more VMs of the request's flavor (0: fewest migrations)")
        ("make-room-second", po::value(&flags.second)->default_value("always"),
         "admission migrations: always (a plan of two migrations when none of one makes room) or copies (two only as --make-room-copies takes them over a plan of one: a request no single migration makes room for is turned away)");
    // clang-format on
}

MakeRoomOptions read_make_room_flags(const MakeRoomFlags& flags) {
    if (flags.copies < 0) throw UsageError("--make-room-copies: expected a count >= 0, got " + std::to_string(flags.copies));
    if (flags.second != "always" && flags.second != "copies")
        throw UsageError("--make-room-second: expected always or copies, got '" + flags.second + "'");
    MakeRoomOptions o;
    o.second_for_copies = flags.copies;
    o.second_only_for_copies = flags.second == "copies";
    return o;
}

}  // namespace vmcap::cli
