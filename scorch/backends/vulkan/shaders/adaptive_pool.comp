#version 460
// Adaptive average pooling over [batch·channels, depth, height, width] (1d and 2d padded with unit dims): output
// cell o of a dim of in → out covers [floor(o·in/out), ceil((o+1)·in/out)). MODE 0: out = the window's mean;
// MODE 1: the input gradient, each input position gathering grad / window size from the cells that cover it.
#include "common.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 0) const int DT = DT_F32;
layout(constant_id = 1) const int MODE = 0;

layout(push_constant) uniform Push {
  uvec2 src_addr;  // x (MODE 0) or grad (MODE 1)
  uvec2 dst_addr;  // out (MODE 0) or the input gradient (MODE 1)
  int planes;
  int in0, in1, in2;
  int out0, out1, out2;
} pc;

int start_of(int o, int in_n, int out_n) { return (o * in_n) / out_n; }
int end_of(int o, int in_n, int out_n) { return ((o + 1) * in_n + out_n - 1) / out_n; }

void main() {
  int in_size[3] = int[3](pc.in0, pc.in1, pc.in2);
  int out_size[3] = int[3](pc.out0, pc.out1, pc.out2);
  int in_count = pc.in0 * pc.in1 * pc.in2, out_count = pc.out0 * pc.out1 * pc.out2;
  int total = pc.planes * (MODE == 0 ? out_count : in_count);
  int step = int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  for (int i = int(gl_GlobalInvocationID.x); i < total; i += step) {
    if (MODE == 0) {
      int at = i % out_count, plane = i / out_count;
      int o[3] = int[3](at / (pc.out1 * pc.out2), (at / pc.out2) % pc.out1, at % pc.out2);
      int lo[3], hi[3];
      for (int d = 0; d < 3; ++d) {
        lo[d] = start_of(o[d], in_size[d], out_size[d]);
        hi[d] = end_of(o[d], in_size[d], out_size[d]);
      }
      VF sum = VF(0);
      for (int z = lo[0]; z < hi[0]; ++z)
        for (int y = lo[1]; y < hi[1]; ++y)
          for (int x = lo[2]; x < hi[2]; ++x)
            sum += load_f(pc.src_addr, DT, plane * in_count + (z * pc.in1 + y) * pc.in2 + x);
      int count = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
      store_f(pc.dst_addr, DT, i, sum / VF(count));
    } else {
      int at = i % in_count, plane = i / in_count;
      int pos[3] = int[3](at / (pc.in1 * pc.in2), (at / pc.in2) % pc.in1, at % pc.in2);
      // The cells covering pos along each dim: o with start_of(o) <= pos < end_of(o).
      int lo[3], hi[3];
      for (int d = 0; d < 3; ++d) {
        lo[d] = (pos[d] * out_size[d]) / in_size[d];
        while (lo[d] > 0 && end_of(lo[d] - 1, in_size[d], out_size[d]) > pos[d]) --lo[d];
        hi[d] = lo[d];
        while (hi[d] < out_size[d] && start_of(hi[d], in_size[d], out_size[d]) <= pos[d]) ++hi[d];
      }
      VF sum = VF(0);
      for (int z = lo[0]; z < hi[0]; ++z)
        for (int y = lo[1]; y < hi[1]; ++y)
          for (int x = lo[2]; x < hi[2]; ++x) {
            int cz = end_of(z, pc.in0, pc.out0) - start_of(z, pc.in0, pc.out0);
            int cy = end_of(y, pc.in1, pc.out1) - start_of(y, pc.in1, pc.out1);
            int cx = end_of(x, pc.in2, pc.out2) - start_of(x, pc.in2, pc.out2);
            if (end_of(z, pc.in0, pc.out0) <= pos[0] || end_of(y, pc.in1, pc.out1) <= pos[1] ||
                end_of(x, pc.in2, pc.out2) <= pos[2])
              continue;
            sum += load_f(pc.src_addr, DT, plane * out_count + (z * pc.out1 + y) * pc.out2 + x) / VF(cz * cy * cx);
          }
      store_f(pc.dst_addr, DT, i, sum);
    }
  }
}
