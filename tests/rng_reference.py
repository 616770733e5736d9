#!/usr/bin/python3
"""The normal sampler's definition (include/attnrank/rng.h) written again apart from the C
code, in plain Python floats (IEEE doubles, nothing fused): Philox4x64-10 seeds the eight
lanes, xoshiro256++ runs them, the ziggurat reads their words. tests/test_rng.c's known
answers come from here; 400 000 normals of stream (12, 34, 56, 7), tails and wedges
included, matched the C variants bit for bit when it was written.

usage: rng_reference.py SEED POINT_KEY TRIAL SUBSTREAM COUNT   (prints the bits in hex)
"""
import math, struct, sys
M64 = (1 << 64) - 1
def philox4x64(ctr, key):
    c = list(ctr); k = list(key)
    for r in range(10):
        p0 = 0xD2E7470EE14C6C93 * c[0]; p1 = 0xCA5A826395121157 * c[2]
        hi0, lo0 = p0 >> 64, p0 & M64; hi1, lo1 = p1 >> 64, p1 & M64
        c = [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0]
        k = [(k[0] + 0x9E3779B97F4A7C15) & M64, (k[1] + 0xBB67AE8584CAA73B) & M64]
    return c
assert philox4x64([0]*4, [0]*2) == [0x16554d9eca36314c, 0xdb20fe9d672d0fdc, 0xd7e772cee186176b, 0x7e68b68aec7ba23b]
def rotl(x, k): return ((x << k) | (x >> (64 - k))) & M64
class Xo:
    def __init__(self, s): self.s = list(s)
    def next(self):
        s = self.s
        r = (rotl((s[0] + s[3]) & M64, 23) + s[0]) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = rotl(s[3], 45)
        return r
def d(u): return struct.unpack('<d', struct.pack('<Q', u))[0]
def q(x): return struct.unpack('<Q', struct.pack('<d', x))[0]
EC = [float.fromhex(h) for h in ['0x1.0000000000000p+0', '0x1.0000000000000p+0', '0x1.0000000000000p-1', '0x1.5555555555555p-3', '0x1.5555555555555p-5', '0x1.1111111111111p-7', '0x1.6c16c16c16c17p-10', '0x1.a01a01a01a01ap-13', '0x1.a01a01a01a01ap-16', '0x1.71de3a556c734p-19', '0x1.27e4fb7789f5cp-22', '0x1.ae64567f544e4p-26', '0x1.1eed8eff8d898p-29', '0x1.6124613a86d09p-33']]
LC = [1/(2*j+1) for j in range(12)]
L2E, SH, LH, LL = float.fromhex('0x1.71547652b82fep0'), float.fromhex('0x1.8p52'), float.fromhex('0x1.62e42fee00000p-1'), float.fromhex('0x1.a39ef35793c76p-33')
def zexp(a):
    kd = a * L2E + SH; k = kd - SH; r = (a - k * LH) - k * LL
    p = r * EC[13] + EC[12]
    for j in range(11, -1, -1): p = p * r + EC[j]
    return p * d(((q(kd) + 1023) << 52) & M64)
def zlog(a):
    b = q(a); e = (b >> 52) - 1023; m = d((b & 0x000FFFFFFFFFFFFF) | 0x3FF0000000000000)
    if m > float.fromhex('0x1.6a09e667f3bcdp+0'): m *= 0.5; e += 1
    s = (m - 1) / (m + 1); z = s * s
    p = z * LC[11] + LC[10]
    for j in range(9, -1, -1): p = p * z + LC[j]
    ke = float(e)
    return ke * LH + (ke * LL + (2 * s) * p)
C = 2048; R = float.fromhex('0x1.0dd903462b3f1p+2'); V = float.fromhex('0x1.412ea7ab08321p-11')
X = [0.0] * (C + 1); F = [0.0] * (C + 1)
f = zexp(-0.5 * (R * R)); X[0] = V / f; X[1] = R; F[1] = f
for i in range(2, C):
    X[i] = math.sqrt(-2 * zlog(V / X[i - 1] + f)); f = zexp(-0.5 * (X[i] * X[i])); F[i] = f
X[C] = 0.0; F[C] = 1.0
OFF = float.fromhex('0x1.fffffffffffffp-1')
def U(w): return d((w >> 12) | 0x3FF0000000000000) - OFF
def signed(x, w): return d(q(x) ^ ((w & 1) << 63))
def tail(g):
    while True:
        a = zlog(U(g.next())) / R; c = zlog(U(g.next()))
        if not (-2 * c < a * a): return R - a
def draw(g):
    w = g.next()
    while True:
        b = (w >> 1) & (C - 1); x = U(w) * X[b]
        if x < X[b + 1]: return signed(x, w)
        if b == 0: return signed(tail(g), w)
        y = F[b] + U(g.next()) * (F[b + 1] - F[b])
        if y < zexp(-0.5 * (x * x)): return signed(x, w)
        w = g.next()
def normals(seed, key, trial, sub, n):
    lanes = []
    for l in range(8):
        s = philox4x64([trial, sub, 1 + l, 0], [seed, key])
        if not any(s): s[0] = 1
        lanes.append(Xo(s))
    out = []
    while len(out) < n:
        out.extend(draw(g) for g in lanes)
    return out[:n]
if __name__ == '__main__':
    seed, key, trial, sub, n = map(int, sys.argv[1:6])
    for x in normals(seed, key, trial, sub, n): print('%016x' % q(x))
