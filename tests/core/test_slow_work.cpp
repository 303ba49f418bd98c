// SlowWorkNotice: silent below its threshold, one line when the total crosses it, one more per interval after.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scorch/core/slow_work.h"

namespace scorch {
namespace {

TEST(SlowWorkNotice, SaysNothingUntilTheTotalCrossesTheThresholdThenOncePerInterval) {
  std::vector<std::string> lines;
  SlowWorkNotice notice("vulkan", "compute pipelines compiled", 2.0, 30.0,
                        [&](const std::string& line) { lines.push_back(line); });
  notice.add(0.5);
  notice.add(1.0);
  EXPECT_TRUE(lines.empty());
  notice.add(0.6);  // 2.1 s
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "[vulkan] 3 compute pipelines compiled in 2.1 s (first use of each kernel; later iterations reuse them)");
  notice.add(20.0);  // 22.1 s: below the next line at 32 s
  EXPECT_EQ(lines.size(), 1u);
  notice.add(10.0);  // 32.1 s
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1], "[vulkan] 5 compute pipelines compiled in 32.1 s");
  notice.add(100.0);  // several intervals at once: still one line
  EXPECT_EQ(lines.size(), 3u);
  EXPECT_EQ(notice.count(), 6u);
  EXPECT_DOUBLE_EQ(notice.total_seconds(), 132.1);
}

TEST(SlowWorkNotice, FastWorkStaysSilent) {
  std::vector<std::string> lines;
  SlowWorkNotice notice("cuda", "fused kernels compiled by NVRTC", 2.0, 30.0,
                        [&](const std::string& line) { lines.push_back(line); });
  for (int i = 0; i < 100; ++i) notice.add(0.01);
  EXPECT_TRUE(lines.empty());
  EXPECT_EQ(notice.count(), 100u);
}

}  // namespace
}  // namespace scorch
