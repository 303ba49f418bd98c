#version 460
// Convolution's sliding windows over [batch, channels, depth, height, width] (1d and 2d inputs padded with unit dims):
// MODE 0 (im2col) writes cols[n, g, (c, kz, ky, kx), (oz, oy, ox)] = x at the window's tap, 0 in the padding;
// MODE 1 (col2im) writes each x position the sum of the cols entries whose tap it is (the input gradient), gathered
// per position so no two invocations write one element.
#include "common.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 0) const int DT = DT_F32;
layout(constant_id = 1) const int MODE = 0;

layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer WindowParams {
  uvec2 x_addr;
  uvec2 cols_addr;
  int batch, channels, groups, total;
  int in_size[3];
  int out_size[3];
  int kernel[3];
  int stride[3];
  int padding[3];
  int dilation[3];
};
layout(push_constant) uniform Push { uvec2 params; } pc;

void main() {
  WindowParams p = WindowParams(pc.params);
  int k_count = p.kernel[0] * p.kernel[1] * p.kernel[2];
  int l_count = p.out_size[0] * p.out_size[1] * p.out_size[2];
  int in_count = p.in_size[0] * p.in_size[1] * p.in_size[2];
  int step = int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  for (int i = int(gl_GlobalInvocationID.x); i < p.total; i += step) {
    if (MODE == 0) {
      // i over cols: [n, c (all groups' channels in order), k, l]
      int l = i % l_count, rest = i / l_count;
      int k = rest % k_count, nc = rest / k_count;
      int o[3] = int[3](l / (p.out_size[1] * p.out_size[2]), (l / p.out_size[2]) % p.out_size[1], l % p.out_size[2]);
      int kk[3] = int[3](k / (p.kernel[1] * p.kernel[2]), (k / p.kernel[2]) % p.kernel[1], k % p.kernel[2]);
      bool inside = true;
      int at = 0;
      for (int d = 0; d < 3; ++d) {
        int pos = o[d] * p.stride[d] - p.padding[d] + kk[d] * p.dilation[d];
        inside = inside && pos >= 0 && pos < p.in_size[d];
        at = at * p.in_size[d] + pos;
      }
      VF v = inside ? load_f(p.x_addr, DT, nc * in_count + at) : VF(0);
      store_f(p.cols_addr, DT, i, v);
    } else {
      // i over x: [n, c, z, y, x]
      int at = i % in_count, nc = i / in_count;
      int pos[3] = int[3](at / (p.in_size[1] * p.in_size[2]), (at / p.in_size[2]) % p.in_size[1], at % p.in_size[2]);
      VF sum = VF(0);
      for (int kz = 0; kz < p.kernel[0]; ++kz) {
        int tz = pos[0] + p.padding[0] - kz * p.dilation[0];
        if (tz < 0 || tz % p.stride[0] != 0 || tz / p.stride[0] >= p.out_size[0]) continue;
        for (int ky = 0; ky < p.kernel[1]; ++ky) {
          int ty = pos[1] + p.padding[1] - ky * p.dilation[1];
          if (ty < 0 || ty % p.stride[1] != 0 || ty / p.stride[1] >= p.out_size[1]) continue;
          for (int kx = 0; kx < p.kernel[2]; ++kx) {
            int tx = pos[2] + p.padding[2] - kx * p.dilation[2];
            if (tx < 0 || tx % p.stride[2] != 0 || tx / p.stride[2] >= p.out_size[2]) continue;
            int l = ((tz / p.stride[0]) * p.out_size[1] + ty / p.stride[1]) * p.out_size[2] + tx / p.stride[2];
            int k = (kz * p.kernel[1] + ky) * p.kernel[2] + kx;
            sum += load_f(p.cols_addr, DT, (nc * k_count + k) * l_count + l);
          }
        }
      }
      store_f(p.x_addr, DT, i, sum);
    }
  }
}
