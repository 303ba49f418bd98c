// The fused kernels' disk cache: what is stored loads back in another cache object (another process), a
// corrupt or truncated file reads as missing and is rewritten, and a folder that cannot be written is no error.
#include <gtest/gtest.h>

#include <fstream>

#include <scorch/fusion/kernel_disk_cache.h>

#include "support/temp_dir.h"

namespace scorch::testing {
namespace {

using fusion::KernelDiskCache;

TEST(KernelDiskCache, StoredCodeLoadsBackUnderItsKeyOnly) {
  TempDir dir("kernel-cache");
  const std::string code(
      "\x7f"
      "ELF code with \0 bytes",
      22);
  ASSERT_TRUE(KernelDiskCache(dir.path()).store("source A // sm_90", code));
  EXPECT_EQ(KernelDiskCache(dir.path()).load("source A // sm_90"), code);
  EXPECT_FALSE(KernelDiskCache(dir.path()).load("source A // sm_80").has_value());
  EXPECT_FALSE(KernelDiskCache(dir.path() / "missing").load("source A // sm_90").has_value());
}

TEST(KernelDiskCache, CorruptOrTruncatedFilesReadAsMissingAndAreRewritten) {
  TempDir dir("kernel-cache-corrupt");
  KernelDiskCache cache(dir.path());
  ASSERT_TRUE(cache.store("k", std::string(1000, 'x')));
  auto file = cache.file_for("k");
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(500);
    f.put('y');  // one flipped byte in the code
  }
  EXPECT_FALSE(cache.load("k").has_value());
  std::filesystem::resize_file(file, 20);  // truncated inside the header
  EXPECT_FALSE(cache.load("k").has_value());
  ASSERT_TRUE(cache.store("k", "fresh"));
  EXPECT_EQ(cache.load("k"), "fresh");
  EXPECT_FALSE(KernelDiskCache("/proc/scorch-no-such-folder").store("k", "code"));
}

}  // namespace
}  // namespace scorch::testing
