// Float functions with the accuracy the conformance suite asks of f32 (rtol 1e-5), where GLSL's built-ins give less
// or have none: exp and erf as scorch/backends/common/fast_math.h computes them, log1p, the hyperbolic functions and
// their inverses without cancellation near 0, and C's pow. Narrow (float) forms; the wide variant calls them through
// float (f64 tensors run these ops on the host: kernels/elementwise.cpp).

float exp_f32(float x) {
  const float hi = 88.72283935546875, lo = -103.972084045410;
  float xc = clamp(x, lo, hi);
  float n = roundEven(xc * 1.44269504088896341);
  float r = xc - n * 0.693359375 + n * 2.12194440e-4;
  float p = 1.9875691500e-4;
  p = p * r + 1.3981999507e-3;
  p = p * r + 8.3334519073e-3;
  p = p * r + 4.1665795894e-2;
  p = p * r + 1.6666665459e-1;
  p = p * r + 5.0000001201e-1;
  float y = p * r * r + r + 1.0;
  int ni = int(n);
  int half_n = ni >> 1;
  float out_v = y * intBitsToFloat((half_n + 127) << 23) * intBitsToFloat((ni - half_n + 127) << 23);
  if (x > hi) out_v = uintBitsToFloat(0x7f800000u);
  return isnan(x) ? x : out_v;
}

float erf_f32(float x) {
  float c = clamp(x, -4.0, 4.0), z = c * c;
  float p = -2.72614225801306e-10;
  p = p * z + 2.77068142495902e-08;
  p = p * z - 2.10102402082508e-06;
  p = p * z - 5.69250639462346e-05;
  p = p * z - 7.34990630326855e-04;
  p = p * z - 2.95459980854025e-03;
  p = p * z - 1.60960333262415e-02;
  float q = -1.45660718464996e-05;
  q = q * z - 2.13374055278905e-04;
  q = q * z - 1.68282697438203e-03;
  q = q * z - 7.37332916720468e-03;
  q = q * z - 1.42647390514189e-02;
  return isnan(x) ? x : c * (p / q);
}

float log1p_f32(float x) {
  float u = 1.0 + x;
  if (isinf(x) && x > 0.0) return x;
  return u == 1.0 ? x : log(u) * (x / (u - 1.0));
}

float tanh_f32(float x) {
  float a = abs(x);
  if (a < 0.625) {
    float z = x * x;
    return ((((-5.70498872745e-3 * z + 2.06390887954e-2) * z - 5.37397155531e-2) * z + 1.33314422036e-1) * z -
            3.33332819422e-1) * z * x + x;
  }
  if (isnan(x)) return x;
  float t = a > 44.0 ? 1.0 : 1.0 - 2.0 / (exp_f32(2.0 * a) + 1.0);
  return x < 0.0 ? -t : t;
}

float sinh_f32(float x) {
  float a = abs(x);
  if (a <= 1.0) {
    float z = x * x;
    return ((2.03721912945e-4 * z + 8.33028376239e-3) * z + 1.66667160211e-1) * z * x + x;
  }
  float e = exp_f32(a > 88.0 ? a - 0.69314718055994531 : a);
  float s = a > 88.0 ? e : 0.5 * (e - 1.0 / e);
  return x < 0.0 ? -s : s;
}

float cosh_f32(float x) {
  float a = abs(x);
  if (a > 88.0) return exp_f32(a - 0.69314718055994531);
  float e = exp_f32(a);
  return 0.5 * (e + 1.0 / e);
}

float asinh_f32(float x) {
  float a = abs(x);
  float r;
  if (a > 1e18) r = log(a) + 0.69314718055994531;
  else if (a < 0.5) r = log1p_f32(a + a * a / (1.0 + sqrt(1.0 + a * a)));
  else r = log(a + sqrt(a * a + 1.0));
  return x < 0.0 ? -r : (isnan(x) ? x : r);
}

float acosh_f32(float x) {
  if (x < 1.0) return uintBitsToFloat(0x7fc00000u);
  if (x > 1e18) return log(x) + 0.69314718055994531;
  float t = x - 1.0;
  return log1p_f32(t + sqrt(2.0 * t + t * t));
}

float atanh_f32(float x) { return 0.5 * log1p_f32(2.0 * x / (1.0 - x)); }

bool is_odd_integer(float y) { return trunc(y) == y && abs(y) < 16777216.0 && (int(y) & 1) == 1; }

// C's pow: every special case of ISO C Annex F.
float pow_f32(float x, float y) {
  const float inf = uintBitsToFloat(0x7f800000u);
  if (y == 0.0 || x == 1.0) return 1.0;
  if (isnan(x) || isnan(y)) return x + y;
  float ax = abs(x);
  if (isinf(y)) {
    if (ax == 1.0) return 1.0;
    return (ax > 1.0) == (y > 0.0) ? inf : 0.0;
  }
  bool odd = is_odd_integer(y);
  if (x == 0.0) {
    float z = y > 0.0 ? 0.0 : inf;
    return odd ? (sign(x) < 0.0 || floatBitsToUint(x) == 0x80000000u ? -z : z) : z;
  }
  if (isinf(x)) {
    float z = y > 0.0 ? inf : 0.0;
    return (x < 0.0 && odd) ? -z : z;
  }
  if (x < 0.0 && trunc(y) != y) return uintBitsToFloat(0x7fc00000u);
  float m = exp2(y * log2(ax));
  return (x < 0.0 && odd) ? -m : m;
}


// asin, acos and atan after Cephes' single-precision forms (a few ulp), where drivers' built-ins may be coarse.
float asin_f32(float x) {
  float a = abs(x);
  if (a > 1.0) return uintBitsToFloat(0x7fc00000u);
  bool big = a > 0.5;
  float z = big ? 0.5 * (1.0 - a) : a * a;
  float s = big ? sqrt(z) : a;
  float r = a < 1e-4 ? a
                     : ((((4.2163199048e-2 * z + 2.4181311049e-2) * z + 4.5470025998e-2) * z + 7.4953002686e-2) * z +
                        1.6666752422e-1) * z * s + s;
  if (big) r = 1.5707963267948966 - (r + r);
  return isnan(x) ? x : (x < 0.0 ? -r : r);
}

float acos_f32(float x) {
  if (isnan(x) || abs(x) > 1.0) return uintBitsToFloat(0x7fc00000u);
  if (x < -0.5) return 3.14159265358979323846 - 2.0 * asin_f32(sqrt(0.5 * (1.0 + x)));
  if (x > 0.5) return 2.0 * asin_f32(sqrt(0.5 * (1.0 - x)));
  return 1.5707963267948966 - asin_f32(x);
}

float atan_f32(float x) {
  if (isnan(x)) return x;
  float a = abs(x), base = 0.0;
  if (a > 2.414213562373095) {
    base = 1.5707963267948966;
    a = -1.0 / a;
  } else if (a > 0.4142135623730950) {
    base = 0.7853981633974483;
    a = (a - 1.0) / (a + 1.0);
  }
  float z = a * a;
  float r = base + ((((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z - 3.33329491539e-1) * z *
                    a + a);
  return x < 0.0 ? -r : r;
}

float atan2_f32(float y, float x) {
  if (isnan(x) || isnan(y)) return x + y;
  const float pi = 3.14159265358979323846;
  bool ny = floatBitsToUint(y) >= 0x80000000u;
  if (y == 0.0) {
    bool nx = floatBitsToUint(x) >= 0x80000000u;
    float r = nx ? pi : 0.0;
    return ny ? -r : r;
  }
  if (isinf(x)) {
    float r = isinf(y) ? (x > 0.0 ? pi / 4.0 : 3.0 * pi / 4.0) : (x > 0.0 ? 0.0 : pi);
    return ny ? -r : r;
  }
  if (x == 0.0 || isinf(y)) return ny ? -pi / 2.0 : pi / 2.0;
  float r = atan_f32(y / x);
  return x > 0.0 ? r : (ny ? r - pi : r + pi);
}

// C's fmodf, exact for every quotient (the remainder of the mantissas, one exponent step at a time), after musl.
float fmod_f32(float x, float y) {
  uint ux = floatBitsToUint(x), uy = floatBitsToUint(y);
  int ex = int(ux >> 23 & 0xffu), ey = int(uy >> 23 & 0xffu);
  uint sx = ux & 0x80000000u;
  // NaN spelled out: drivers fold (x·y)/(x·y) to 1.
  if ((uy << 1) == 0u || isnan(y) || ex == 0xff) return isnan(x) ? x : uintBitsToFloat(0x7fc00000u);
  if ((ux << 1) <= (uy << 1)) return (ux << 1) == (uy << 1) ? uintBitsToFloat(sx) : x;
  uint mx, my;
  if (ex == 0) {
    for (uint i = ux << 9; (i >> 31) == 0u; i <<= 1) --ex;
    mx = ux << uint(-ex + 1);
  } else {
    mx = (ux & 0x7fffffu) | 0x800000u;
  }
  if (ey == 0) {
    for (uint i = uy << 9; (i >> 31) == 0u; i <<= 1) --ey;
    my = uy << uint(-ey + 1);
  } else {
    my = (uy & 0x7fffffu) | 0x800000u;
  }
  for (; ex > ey; --ex) {
    if (mx >= my) {
      if (mx == my) return uintBitsToFloat(sx);  // a zero of x's sign
      mx -= my;
    }
    mx <<= 1;
  }
  if (mx >= my) {
    if (mx == my) return uintBitsToFloat(sx);  // a zero of x's sign
    mx -= my;
  }
  for (; (mx >> 23) == 0u; mx <<= 1) --ex;
  if (ex > 0) mx = (mx - 0x800000u) | (uint(ex) << 23);
  else mx >>= uint(-ex + 1);
  return uintBitsToFloat(mx | sx);
}

// The bits of 2/π (fdlibm's ipio2), as 32-bit windows one byte apart.
const uint kInvPio4[24] = uint[24](0xa2u, 0xa2f9u, 0xa2f983u, 0xa2f9836eu, 0xf9836e4eu, 0x836e4e44u, 0x6e4e4415u,
                                   0x4e441529u, 0x441529fcu, 0x1529fc27u, 0x29fc2757u, 0xfc2757d1u, 0x2757d1f5u,
                                   0x57d1f534u, 0xd1f534ddu, 0xf534ddc0u, 0x34ddc0dbu, 0xddc0db62u, 0xc0db6295u,
                                   0xdb629599u, 0x6295993cu, 0x95993c43u, 0x993c4390u, 0x3c439041u);

// |x| reduced by multiples of π/2: the remainder r in [-π/4, π/4] and the quadrant (multiples mod 4). Small |x|: a
// three-part π/4 (Cephes); large: the 2/π bits by 32×32→64 products (Payne-Hanek, as ARM's optimized sinf).
float reduce_pio2(float ax, out int quadrant) {
  if (ax < 8192.0) {
    int j = int(ax * 1.27323954473516);
    j += j & 1;
    float y = float(j);
    quadrant = (j >> 1) & 3;
    return ((ax - y * 0.78515625) - y * 2.4187564849853515625e-4) - y * 3.77489497744594108e-8;
  }
  uint xi = floatBitsToUint(ax);
  int at = int((xi >> 26) & 15u);
  uint shift = (xi >> 23) & 7u;
  uint m = ((xi & 0xffffffu) | 0x800000u) << shift;
  uint hi1, lo1, hi2, lo2;
  umulExtended(m, kInvPio4[at + 4], hi1, lo1);
  umulExtended(m, kInvPio4[at + 8], hi2, lo2);
  uint top = m * kInvPio4[at];  // res0 = (top << 32 | hi2) + (hi1 << 32 | lo1)
  uint carry;
  uint lo = uaddCarry(hi2, lo1, carry);
  uint hi = top + hi1 + carry;
  uint n = (hi + 0x20000000u) >> 30;
  hi -= n << 30;
  quadrant = int(n & 3u);
  float turns = float(int(hi)) * 4294967296.0 + float(lo);
  return turns * 3.4061215800865545e-19;  // π/2 · 2^-62
}

float sin_f32(float x) {
  if (isinf(x) || isnan(x)) return isnan(x) ? x : uintBitsToFloat(0x7fc00000u);  // x - x may fold to 0
  int q;
  float r = reduce_pio2(abs(x), q);
  float s = sin(r), c = cos(r);
  float v = q == 0 ? s : (q == 1 ? c : (q == 2 ? -s : -c));
  return x < 0.0 ? -v : v;
}

float cos_f32(float x) {
  if (isinf(x) || isnan(x)) return isnan(x) ? x : uintBitsToFloat(0x7fc00000u);  // x - x may fold to 0
  int q;
  float r = reduce_pio2(abs(x), q);
  float s = sin(r), c = cos(r);
  return q == 0 ? c : (q == 1 ? -s : (q == 2 ? -c : s));
}

float tan_f32(float x) {
  if (isinf(x) || isnan(x)) return isnan(x) ? x : uintBitsToFloat(0x7fc00000u);  // x - x may fold to 0
  int q;
  float r = reduce_pio2(abs(x), q);
  float t = sin(r) / cos(r);
  float v = (q & 1) == 0 ? t : -1.0 / t;
  return x < 0.0 ? -v : v;
}
