#version 460
// Index reads and their adjoints: MODE 0 (gather along dim): out[i] = x at i's coordinates with the dim's replaced by
// indices[i]; MODE 1 (select along dim): out[o, j, r] = x[o, indices[j], r] over x viewed as [outer, n, inner];
// MODE 2 (scatter_add) and MODE 3 (select_add): out = x plus the values whose index lands on each element, gathered
// per element in index order (no atomics: deterministic, O(indices along the dim) per element). Indices are i64,
// negative ones counting from the end.
#include "common.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 0) const int DT = DT_F32;
layout(constant_id = 1) const int MODE = 0;

layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer IndexParams {
  uvec2 x_addr;
  uvec2 index_addr;
  uvec2 out_addr;
  int total;
  int rank;
  int dim;
  int n;       // the dim's size in x
  int inner;   // elements after the dim (select)
  int count;   // indices (select)
  int out_shape[MAX_RANK];
  int x_strides[MAX_RANK];  // x's contiguous strides (gather)
  int index_shape[MAX_RANK];  // scatter_add: the indices' (and values') shape
  uvec2 values_addr;          // scatter_add, select_add
  uvec2 status_addr;          // the context's status words (context.h)
};
layout(push_constant) uniform Push { uvec2 params; } pc;

// Index i, counted from the end when negative. One out of [-n, n) (or beyond 32 bits) is reported through the status
// words and comes back as -1 (its element reads nothing).
int index_at(IndexParams p, int i) {
  ivec2 words = BufI64Words(p.index_addr).v[i];
  int lo = words.x, hi = words.y;
  if (hi != (lo >> 31) || lo < -p.n || lo >= p.n) {
    report_index_error(p.status_addr, uint(MODE), lo, uint(p.n));
    return -1;
  }
  return lo < 0 ? lo + p.n : lo;
}

bool is_float_kind() { return is_float_dtype(DT); }

// x[i] plus the values at value positions first, first + stride, ... (count of them) whose index equals target.
void add_matching(IndexParams p, int i, int first, int stride, int count, int index_first, int index_stride,
                  int target) {
  VF fsum = VF(0);
  VI isum = VI(0);
  for (int j = 0; j < count; ++j) {
    if (index_at(p, index_first + j * index_stride) != target) continue;
    if (is_float_kind()) fsum += load_f(p.values_addr, DT, first + j * stride);
    else isum += load_i(p.values_addr, DT, first + j * stride);
  }
  if (is_float_kind()) store_f(p.out_addr, DT, i, load_f(p.x_addr, DT, i) + fsum);
  else store_i(p.out_addr, DT, i, load_i(p.x_addr, DT, i) + isum);
}

void main() {
  IndexParams p = IndexParams(pc.params);
  int step = int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  for (int i = int(gl_GlobalInvocationID.x); i < p.total; i += step) {
    if (MODE == 2) {
      // The index positions sharing i's coordinates off the dim: i's coordinate along it is the target.
      int rest = i, first = 0, stride = 1, target = 0;
      bool covered = true;
      for (int d = p.rank - 1; d >= 0; --d) {
        int coord = rest % p.out_shape[d];
        rest /= p.out_shape[d];
        if (d == p.dim) {
          target = coord;
          continue;
        }
        covered = covered && coord < p.index_shape[d];
      }
      if (!covered) {
        if (is_float_kind()) store_f(p.out_addr, DT, i, load_f(p.x_addr, DT, i));
        else store_i(p.out_addr, DT, i, load_i(p.x_addr, DT, i));
        continue;
      }
      rest = i;
      int istride = 1;
      for (int d = p.rank - 1; d >= 0; --d) {
        int coord = rest % p.out_shape[d];
        rest /= p.out_shape[d];
        if (d == p.dim) stride = istride;
        else first += coord * istride;
        istride *= p.index_shape[d];
      }
      add_matching(p, i, first, stride, p.index_shape[p.dim], first, stride, target);
      continue;
    }
    if (MODE == 3) {
      int r = i % p.inner, rest = i / p.inner;
      int row = rest % p.n, o = rest / p.n;
      add_matching(p, i, o * p.count * p.inner + r, p.inner, p.count, 0, 1, row);
      continue;
    }
    int src;
    if (MODE == 0) {
      int rest = i, at = index_at(p, i);
      src = at < 0 ? -1 : 0;
      for (int d = p.rank - 1; d >= 0 && at >= 0; --d) {
        int coord = rest % p.out_shape[d];
        rest /= p.out_shape[d];
        src += (d == p.dim ? at : coord) * p.x_strides[d];
      }
    } else {
      int r = i % p.inner, rest = i / p.inner;
      int j = rest % p.count, o = rest / p.count;
      int at = index_at(p, j);
      src = at < 0 ? -1 : (o * p.n + at) * p.inner + r;
    }
    if (src < 0) {
      store_i(p.out_addr, DT, i, VI(0));
      continue;
    }
    if (is_float_dtype(DT)) store_f(p.out_addr, DT, i, load_f(p.x_addr, DT, src));
    else store_i(p.out_addr, DT, i, load_i(p.x_addr, DT, src));
  }
}
