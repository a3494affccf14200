#pragma once
/**
 * @file make_room_flags.h
 * The admission-migration flags shared by `vmcap simulate` and `vmcap place` (--make-room-copies,
 * --make-room-second), read into optimizer/solvers/make_room.h's MakeRoomOptions, so that both
 * commands declare, check and apply them alike. Not part of the public API.
 */
#include <string>

#include <boost/program_options.hpp>

#include "optimizer/solvers/make_room.h"

namespace vmcap::cli {

/** The flags' values as the command line (or a preset) gave them. */
struct MakeRoomFlags {
    int copies = 0;                 ///< --make-room-copies N (default 0)
    std::string second = "always";  ///< --make-room-second always|copies (default always)
};

/** Adds --make-room-copies and --make-room-second to `desc`, bound to `flags` (which must outlive
 *  the parse). */
void add_make_room_flags(boost::program_options::options_description& desc, MakeRoomFlags& flags);

/** MakeRoomOptions from the flags: second_for_copies = copies, second_only_for_copies = (second ==
 *  "copies"). Throws UsageError "--make-room-copies: expected a count >= 0, got N" or
 *  "--make-room-second: expected always or copies, got 'x'". */
MakeRoomOptions read_make_room_flags(const MakeRoomFlags& flags);

}  // namespace vmcap::cli
