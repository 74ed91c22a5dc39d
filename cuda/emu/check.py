#!/usr/bin/env python3
"""Check the field and curve templates (emulated on the CPU) against Python integers.

    python3 cuda/emu/check.py [--emu PATH] [--n N]

Builds nothing itself: cuda/emu/run.sh compiles check.cpp and calls this. Every case is
random or an edge case (0, 1, p−1, infinity, P+P, P−P); exit status 1 on any mismatch.
"""
import argparse
import random
import subprocess
import sys

P = 0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB
R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001

# Generators (the BLS12-381 specification); checked on the curve below.
G1 = (0x17F1D3A73197D7942695638C4FA9AC0FC3688C4F9774B905A14E3A3F171BAC586C55E83FF97A1AEFFB3AF00ADB22C6BB,
      0x08B3F481E3AAA0F1A09E30ED741D8AE4FCF5E095D5D00AF600DB18CB2C04B3EDD03CC744A2888AE40CAA232946C5E7E1)
G2 = ((0x024AA2B2F08F0A91260805272DC51051C6E47AD4FA403B02B4510B647AE3D1770BAC0326A805BBEFD48056C8C121BDB8,
       0x13E02B6052719F607DACD3A088274F65596BD0D09920B61AB5DA61BBDC7F5049334CF11213945D57E5AC7D055D042B7E),
      (0x0CE5D527727D6E118CC9CDC6DA2E351AADFD9BAA8CBDD3A76D429A695160D12C923AC9CC3BACA289E193548608B82801,
       0x0606C4A02EA734CC32ACD2B02BC28B99CB3E287E85A763AF267492AB572E99AB3F370D275CEC1DA1AAA9075FF05F79BE))


class Fp2:
    """Fp[u]/(u^2+1) over tuples, enough for the reference."""
    zero = (0, 0)
    one = (1, 0)

    @staticmethod
    def add(a, b): return ((a[0] + b[0]) % P, (a[1] + b[1]) % P)
    @staticmethod
    def sub(a, b): return ((a[0] - b[0]) % P, (a[1] - b[1]) % P)
    @staticmethod
    def mul(a, b): return ((a[0] * b[0] - a[1] * b[1]) % P, (a[0] * b[1] + a[1] * b[0]) % P)
    @staticmethod
    def inv(a):
        t = (a[0] * a[0] + a[1] * a[1]) % P
        ti = pow(t, P - 2, P)
        return (a[0] * ti % P, -a[1] * ti % P)


class Fp1:
    zero = 0
    one = 1
    @staticmethod
    def add(a, b): return (a + b) % P
    @staticmethod
    def sub(a, b): return (a - b) % P
    @staticmethod
    def mul(a, b): return a * b % P
    @staticmethod
    def inv(a): return pow(a, P - 2, P)


def ec_add(F, p, q):
    """Affine addition; None is infinity."""
    if p is None: return q
    if q is None: return p
    if p[0] == q[0]:
        if F.add(p[1], q[1]) == F.zero: return None
        lam = F.mul(F.mul(F.mul(p[0], p[0]), F.add(F.one, F.add(F.one, F.one))), F.inv(F.add(p[1], p[1])))
    else:
        lam = F.mul(F.sub(q[1], p[1]), F.inv(F.sub(q[0], p[0])))
    x = F.sub(F.sub(F.mul(lam, lam), p[0]), q[0])
    return (x, F.sub(F.mul(lam, F.sub(p[0], x)), p[1]))


def ec_mul(F, k, p):
    r = None
    for bit in bin(k)[2:] if k else "":
        r = ec_add(F, r, r)
        if bit == "1": r = ec_add(F, r, p)
    return r


def ec_neg(F, p): return None if p is None else (p[0], F.sub(F.zero, p[1]))


def on_curve(F, p, b):
    return F.mul(p[1], p[1]) == F.add(F.mul(F.mul(p[0], p[0]), p[0]), b)


def h(x): return "%x" % x


def fmt_point(g, p):
    if g == "g1":
        return "0 0" if p is None else "%x %x" % p
    return "0 0 0 0" if p is None else "%x %x %x %x" % (p[0][0], p[0][1], p[1][0], p[1][1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--emu", default="/tmp/filc2-emu")
    ap.add_argument("--n", type=int, default=300)
    args = ap.parse_args()
    rnd = random.Random()
    seed = rnd.randrange(1 << 30)
    rnd.seed(seed)
    assert on_curve(Fp1, G1, 4) and on_curve(Fp2, G2, (4, 4)), "generator constants"

    cases = []  # (input line, expected output line)

    def field_cases(kind, m):
        edge = [0, 1, 2, m - 1, m - 2, (m - 1) // 2, (m + 1) // 2, 1 << 64, (1 << 255) % m, m >> 1]
        vals = edge + [rnd.randrange(m) for _ in range(args.n)]
        for i, a in enumerate(vals):
            b = vals[(i * 7 + 3) % len(vals)] if i >= len(edge) else rnd.choice(edge)
            cases.append(("%s mul %x %x" % (kind, a, b), h(a * b % m)))
            cases.append(("%s wide %x %x" % (kind, a, b), h(a * b % m)))
            cases.append(("%s lohi %x %x" % (kind, a, b), h(a * b % m)))
            cases.append(("%s f64 %x %x" % (kind, a, b), h(a * b % m)))
            cases.append(("%s kara %x %x" % (kind, a, b), h(a * b % m)))
            cases.append(("%s ksqr %x" % (kind, a), h(a * a % m)))
            cases.append(("%s add %x %x" % (kind, a, b), h((a + b) % m)))
            cases.append(("%s sub %x %x" % (kind, a, b), h((a - b) % m)))
            cases.append(("%s sqr %x" % (kind, a), h(a * a % m)))
            cases.append(("%s neg %x" % (kind, a), h(-a % m)))
            if i % 10 == 0 or i < len(edge):
                cases.append(("%s inv %x" % (kind, a), h(pow(a, m - 2, m))))
        # Karatsuba: every pair of values whose Montgomery limbs (x·R mod m, what the product
        # sees) make the halves' differences zero, extreme or of either sign.
        rbits = 256 if m < (1 << 256) else 384
        half = 1 << (rbits // 2)
        rinv = pow(1 << rbits, -1, m)
        mont_edge = [0, 1, m - 1, m - 2, half - 1, half, half + 1, (half - 1) * half, m - half, m - 1 - (m % half),
                     (m // half) * half + (m // half) % half, rnd.randrange(m) % half * (half + 1) % m]
        kvals = [v * rinv % m for v in mont_edge if v < m]
        for a in kvals:
            cases.append(("%s ksqr %x" % (kind, a), h(a * a % m)))
            for b in kvals:
                cases.append(("%s kara %x %x" % (kind, a, b), h(a * b % m)))
            cases.append(("%s vinv %x" % (kind, a), h(pow(a, m - 2, m))))

    field_cases("fr", R)
    field_cases("fp", P)

    fp2_edge = [(0, 0), (1, 0), (0, 1), (P - 1, P - 1), (P - 1, 0), (0, P - 1)]
    fp2_vals = fp2_edge + [(rnd.randrange(P), rnd.randrange(P)) for _ in range(args.n // 2)]
    for i, a in enumerate(fp2_vals):
        b = fp2_vals[(i * 5 + 1) % len(fp2_vals)]
        ab = "%x %x %x %x" % (a + b)
        cases.append(("fp2 mul " + ab, "%x %x" % Fp2.mul(a, b)))
        cases.append(("fp2 add " + ab, "%x %x" % Fp2.add(a, b)))
        cases.append(("fp2 sub " + ab, "%x %x" % Fp2.sub(a, b)))
        cases.append(("fp2 sqr %x %x" % a, "%x %x" % Fp2.mul(a, a)))
        if i % 5 == 0 or i < len(fp2_edge):
            cases.append(("fp2 inv %x %x" % a, "%x %x" % (Fp2.inv(a) if a != (0, 0) else (0, 0))))
        cases.append(("fp2 vinv %x %x" % a, "%x %x" % (Fp2.inv(a) if a != (0, 0) else (0, 0))))
    # every pair of edge values (the product's lazy reduction: a0·b0 − a1·b1 of either sign, the
    # largest cross terms)
    for a in fp2_edge:
        for b in fp2_edge:
            cases.append(("fp2 mul %x %x %x %x" % (a + b), "%x %x" % Fp2.mul(a, b)))

    for g, F, gen in (("g1", Fp1, G1), ("g2", Fp2, G2)):
        pts = [ec_mul(F, rnd.randrange(1, R), gen) for _ in range(12 if g == "g1" else 6)]
        pts.append(gen)
        pairs = [(p, q) for p in pts for q in pts[:3]]
        pairs += [(None, pts[0]), (pts[0], None), (None, None), (pts[1], ec_neg(F, pts[1]))]
        for p, q in pairs:
            ins = fmt_point(g, p) + " " + fmt_point(g, q)
            cases.append(("%s add %s" % (g, ins), fmt_point(g, ec_add(F, p, q))))
            cases.append(("%s madd %s" % (g, ins), fmt_point(g, ec_add(F, p, q))))
        for p in pts + [None]:
            cases.append(("%s dbl %s" % (g, fmt_point(g, p)), fmt_point(g, ec_add(F, p, p))))
            cases.append(("%s neg %s" % (g, fmt_point(g, p)), fmt_point(g, ec_neg(F, p))))
        for k in [0, 1, 2, 3, R - 1, R - 2, rnd.randrange(R), rnd.randrange(R)]:
            p = pts[k % len(pts)]
            cases.append(("%s smul %x %s" % (g, k, fmt_point(g, p)), fmt_point(g, ec_mul(F, k, p))))
        batch = pts + [None, pts[0]]
        cases.append(("%s batch %d %s" % (g, len(batch), " ".join(fmt_point(g, p) for p in batch)),
                      "\n".join(fmt_point(g, ec_add(F, p, p)) for p in batch)))

    # jac: 2P as Jacobian (X, Y, Z) must satisfy x = X/Z^2, y = Y/Z^3.
    jac_inputs = [ec_mul(Fp1, rnd.randrange(1, R), G1) for _ in range(4)]

    inp = "".join(c[0] + "\n" for c in cases) + "".join("g1 jac %s\n" % fmt_point("g1", p) for p in jac_inputs)
    res = subprocess.run([args.emu], input=inp, capture_output=True, text=True, check=True).stdout.split("\n")
    got_lines = iter(res)
    bad = 0
    for line, want in cases:
        want_lines = want.split("\n")
        got = [next(got_lines) for _ in want_lines]
        norm = lambda s: " ".join("%x" % int(t, 16) if t != "OFFCURVE" else t for t in s.split())
        if [norm(g) for g in got] != [norm(w) for w in want_lines]:
            bad += 1
            if bad <= 10:
                print("MISMATCH:", line[:160], "\n   got ", got, "\n   want", want_lines)
    for p in jac_inputs:
        X, Y, Z = (int(t, 16) for t in next(got_lines).split())
        want = ec_add(Fp1, p, p)
        zi = pow(Z, P - 2, P)
        if (X * zi * zi % P, Y * zi * zi * zi % P) != want:
            bad += 1
            print("MISMATCH: g1 jac", fmt_point("g1", p))
    total = len(cases) + len(jac_inputs)
    print("emulated templates: %d cases, %d mismatches (seed %d)" % (total, bad, seed))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
