#pragma once
// Constants several test files share. One definition here instead of one per file: the test
// sources are compiled in batches (CMake's unity build, CMakeLists.txt), where two files' equal
// definitions in their anonymous namespaces would be redefinitions in one translation unit.
#include <limits>

namespace vmcap::test {

/** +infinity: a trace VM's departure_s when it never departs (instances/trace.h), or no bound. */
inline constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace vmcap::test
