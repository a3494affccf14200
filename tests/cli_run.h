#pragma once
// Running the vmcap binary from tests: one private temporary directory per test process (CTest
// runs tests in parallel processes), removed when the process's tests are done.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "instances/snapshot_io.h"

namespace vmcap::test {

struct CmdResult {
    int code = -1;
    std::string out, err;
};

/** This process's temporary directory (created on first use). */
inline std::filesystem::path tmp_dir() {
    std::string name = "vmcap_cli_test_";
    name += std::to_string(::getpid());
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / name;
    std::filesystem::create_directories(dir);
    return dir;
}

/** Runs `vmcap <args>` (VMCAP_BINARY), capturing exit code, stdout and stderr. */
inline CmdResult run_vmcap(const std::string& args) {
    const std::string o = (tmp_dir() / "stdout.txt").string(), e = (tmp_dir() / "stderr.txt").string();
    const std::string cmd = std::string(VMCAP_BINARY) + " " + args + " >" + o + " 2>" + e;
    const int status = std::system(cmd.c_str());
    CmdResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_text_file(o);
    r.err = read_text_file(e);
    return r;
}

struct TmpDirCleanup : testing::Environment {
    void TearDown() override {
        std::error_code ec;
        std::filesystem::remove_all(tmp_dir(), ec);
    }
};
// An inline variable: registered once per test binary, whichever files include this header.
inline testing::Environment* const kTmpDirCleanup = testing::AddGlobalTestEnvironment(new TmpDirCleanup);

}  // namespace vmcap::test
