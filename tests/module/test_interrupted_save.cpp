// A save killed mid-write (SIGKILL, no chance to clean up) leaves the previous file intact.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "module/record_fixtures.h"
#include "scorch/train/checkpoint.h"

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
  EXPECT_TRUE(temporary_larger_than(dir.path(), 0)) << "the killed writer's temporary file should be there";
  NamedMpkFileRecorder<>{}.record(old, file);  // the next save of the file removes what the dead writer left
  EXPECT_FALSE(temporary_larger_than(dir.path(), 0));
}

/// The id of a process that has ended.
pid_t ended_process() {
  pid_t pid;
  char path[] = "/bin/true";
  char* argv[] = {path, nullptr};
  EXPECT_EQ(posix_spawn(&pid, path, nullptr, nullptr, argv, environ), 0);
  waitpid(pid, nullptr, 0);
  return pid;
}

TEST(InterruptedSave, StaleTemporariesOfEndedWritersAloneAreRemoved) {
  TempDir dir("stale-temporaries");
  auto touch = [&](const std::string& name) { std::ofstream(dir.file(name)) << "partial"; };
  std::string dead = std::to_string(ended_process()), alive = std::to_string(getppid());
  touch("model-3.mpk.tmp-" + dead + "-0");   // a writer killed mid-save: removed
  touch("model-3.mpk.tmp-" + alive + "-0");  // a writer still running: kept
  touch("optim-3.mpk.tmp-" + dead + "-1");   // another prefix: kept by a prefixed call
  touch("notes.tmp-draft");                  // not an atomic_write temporary: kept
  EXPECT_EQ(formats::remove_stale_temporaries(dir.path().string(), "model-"), 1u);
  EXPECT_FALSE(std::filesystem::exists(dir.file("model-3.mpk.tmp-" + dead + "-0")));
  EXPECT_TRUE(std::filesystem::exists(dir.file("model-3.mpk.tmp-" + alive + "-0")));
  EXPECT_EQ(formats::remove_stale_temporaries(dir.path().string()), 1u);  // optim's
  EXPECT_TRUE(std::filesystem::exists(dir.file("notes.tmp-draft")));
  // A checkpointer removes its own stale files when it is made (a run resumed after kill -9).
  touch("model-4.mpk.tmp-" + dead + "-2");
  train::FileCheckpointer checkpointer(dir.path().string(), "model",
                                       train::AnyRecorder::from(NamedMpkFileRecorder<>{}));
  EXPECT_FALSE(std::filesystem::exists(dir.file("model-4.mpk.tmp-" + dead + "-2")));
}

}  // namespace
}  // namespace scorch::testing
