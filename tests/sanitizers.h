#pragma once
// Which sanitizer a test binary is built with, for the few comparisons that hold only at Release
// speed (what a fixed number of seconds buys). GCC defines __SANITIZE_ADDRESS__ and
// __SANITIZE_THREAD__; Clang 14 (scripts/sanitize.sh's tree) defines neither and answers only
// through __has_feature, so a test must not test the GCC macros alone.
//   VMCAP_TEST_UNDER_ASAN  defined under AddressSanitizer
//   VMCAP_TEST_UNDER_TSAN  defined under ThreadSanitizer
#if defined(__SANITIZE_ADDRESS__)
#define VMCAP_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VMCAP_TEST_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define VMCAP_TEST_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define VMCAP_TEST_UNDER_TSAN 1
#endif
#endif
