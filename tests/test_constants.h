#pragma once
// Constants several test files share. One definition here instead of one per file: the test
// sources are compiled in batches (CMake's unity build, CMakeLists.txt), where two files' equal
// definitions in their anonymous namespaces would be redefinitions in one translation unit.
#include <limits>

namespace vmcap::test {

/** +infinity: a trace VM's departure_s when it never departs (instances/trace.h), or no bound. */
inline constexpr double kInf = std::numeric_limits<double>::infinity();

/** A small Azure V1 interval map (5-minute intervals -> trace index) and flavor map (vCPU,GiB ->
 *  flavor name) in the files' own text formats (read_azure_trace). */
inline constexpr const char* kIntervalMap = "0 0\n300 1\n600 2\n900 2\n1200 2\n1500 3\n";
inline constexpr const char* kFlavorMap = "1,0.75 a\n16,112 b\n2,3.5 c\n";

}  // namespace vmcap::test
