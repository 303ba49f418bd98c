// A save killed mid-write (SIGKILL, no chance to clean up) leaves the previous file intact.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "module/record_fixtures.h"

extern char** environ;

namespace scorch::testing {
namespace {

/// Whether dir holds a temporary save file larger than bytes.
bool temporary_larger_than(const std::filesystem::path& dir, uintmax_t bytes) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().filename().string().find(".tmp-") != std::string::npos && entry.file_size(ec) > bytes && !ec)
      return true;
  return false;
}

TEST(InterruptedSave, KilledWriterLeavesTheOldFile) {
  TempDir dir("killed-save");
  std::string file = dir.file("model.mpk");
  Record old = Record::map().set("version", 1);
  bool interrupted = false;
  for (int attempt = 0; attempt < 5 && !interrupted; ++attempt) {
    NamedMpkFileRecorder<>{}.record(old, file);
    std::string victim = SCORCH_SAVE_VICTIM, floats = "67108864";  // 256 MiB of weights
    char* argv[] = {victim.data(), file.data(), floats.data(), nullptr};
    pid_t pid;
    ASSERT_EQ(posix_spawn(&pid, victim.c_str(), nullptr, nullptr, argv, environ), 0);
    bool writing = false;
    for (int i = 0; i < 30000 && !writing; ++i) {  // up to 30 s for the writer to start
      writing = temporary_larger_than(dir.path(), 1 << 20);
      if (!writing) usleep(1000);
    }
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    Record now = NamedMpkFileRecorder<>{}.load(file);  // never half-written: either file loads
    if (now.find("version")) {
      EXPECT_EQ(now, old);
      interrupted = writing && WIFSIGNALED(status);
    }
  }
  EXPECT_TRUE(interrupted) << "the writer finished before it could be killed in 5 attempts";
}

}  // namespace
}  // namespace scorch::testing
