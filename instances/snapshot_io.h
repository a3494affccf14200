#pragma once
/**
 * @file snapshot_io.h
 * Cluster snapshot JSON (format "vmcap-snapshot/1", documented in docs/format.md): read with full
 * validation, write in canonical form. Node numbers are 1-based in JSON.
 */
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "instances/problem.h"

namespace vmcap {

/** Format tag written to and accepted from the "format" key. */
inline constexpr const char* kSnapshotFormat = "vmcap-snapshot/1";

/**
 * Reads and validates a snapshot file. Throws InputError with one line naming `path` and the JSON
 * path or id at fault (unreadable file, malformed JSON, unknown key types, unknown host type /
 * flavor / host, duplicate id, invalid mapping, pNUMA node over capacity, ...).
 * O(size of the file).
 */
Problem load_snapshot(const std::string& path);

/** As load_snapshot, from an already parsed document; `file` is used in messages only. */
Problem parse_snapshot(const nlohmann::json& doc, const std::string& file);

/** The server-group policy Nova calls `name` (the inverse of to_string(GroupPolicy)), for the
 *  readers of snapshots and of OpenStack exports; nullopt for any other name (e.g.
 *  "soft-affinity"), which the reader reports. O(1). */
std::optional<GroupPolicy> group_policy_named(std::string_view name);

/** Canonical JSON of a problem (keys in document order); parse_snapshot(snapshot_to_json(p)) reproduces p. */
nlohmann::ordered_json snapshot_to_json(const Problem& problem);

/**
 * Compact but readable text of a JSON document: top-level keys one per line, every element of a
 * top-level array of objects on its own line (one host, flavor, VM or plan step per line).
 */
std::string format_json_lines(const nlohmann::ordered_json& doc);

/** Reads a whole file (or pipe); throws InputError naming the path if it cannot be read or is a
 *  directory or device. */
std::string read_text_file(const std::string& path);

/** A RAM budget in GiB (>= 0, finite) as whole MiB, rounded down; budgets beyond 2^52 MiB mean
 *  "unlimited" (std::numeric_limits<Amount>::max()) instead of overflowing. */
Amount gib_to_mib_budget(double gib);

/**
 * Writes `content` to `path` atomically: a temporary file in the same directory, flushed, then
 * renamed over `path`. The temporary file is unnamed (O_TMPFILE) until complete, so a process
 * killed while writing, even by SIGKILL, leaves nothing behind; on file systems without O_TMPFILE
 * a named one (".<name>.tmpXXXXXX") is used and removed on every exit path but SIGKILL. A symbolic link at `path` is followed (the file it points to is replaced,
 * or created if it does not exist yet, in the link's target directory; the link kept, also through
 * a chain of links); an existing file keeps its permissions, a new one gets 0666 less the umask.
 * Throws InputError if the target is not a regular file or no temporary file can be made there,
 * std::runtime_error if writing fails; either way nothing is left at `path`.
 */
void write_file_atomic(const std::string& path, const std::string& content);

/**
 * Checks, before any work, that write_file_atomic(path, ...) can succeed: the directory exists and
 * a file can be created there (tried, not just asked of access(), which says yes to root), and the target (through a symbolic link, which is kept) is absent or a writable
 * regular file. Throws InputError naming the path otherwise (exit 2, nothing written).
 */
void check_output_path(const std::string& path);

}  // namespace vmcap
