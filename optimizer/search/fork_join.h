#pragma once
/**
 * @file fork_join.h
 * The search drivers' one parallel construct: run one task per worker on a task arena and wait
 * for all of them (oneTBB fork-join). Everything written before the call is visible to every
 * worker, and everything a worker wrote is visible after it returns -- oneTBB guarantees this,
 * but its synchronisation happens inside libtbb, which Debian does not build with
 * ThreadSanitizer; under TSan (scripts/tsan.sh) the same fork and join edges are declared with
 * __tsan_release / __tsan_acquire so that only real races among the workers are reported.
 */
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define VMCAP_TSAN_RELEASE(addr) __tsan_release(addr)
#define VMCAP_TSAN_ACQUIRE(addr) __tsan_acquire(addr)
#else
#define VMCAP_TSAN_RELEASE(addr) ((void)(addr))
#define VMCAP_TSAN_ACQUIRE(addr) ((void)(addr))
#endif

namespace vmcap {

/**
 * Calls body(w) once for each w in [0, workers) on `arena` (tasks may run concurrently) and
 * returns when all have returned. An exception from a body is rethrown here (oneTBB).
 * Thread-safety: `body` must touch only its worker's state plus shared read-only data.
 */
template <class Body>
void run_workers(tbb::task_arena& arena, int workers, Body&& body) {
    char fork = 0, join = 0;  // their addresses name the two synchronisation edges for TSan
    VMCAP_TSAN_RELEASE(&fork);
    arena.execute([&] {
        tbb::parallel_for(0, workers, 1, [&](int w) {
            VMCAP_TSAN_ACQUIRE(&fork);
            body(w);
            VMCAP_TSAN_RELEASE(&join);
        });
    });
    VMCAP_TSAN_ACQUIRE(&join);
}

}  // namespace vmcap
