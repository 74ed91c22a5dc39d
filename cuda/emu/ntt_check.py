#!/usr/bin/env python3
"""Check the NTT kernels and driver (emulated on the CPU by ntt_check.cpp) against
Python integers: forward, inverse, coset, all orders, compact and default tables,
several plans per size (forcing 1–4 passes and every round shape), and the H pipeline.

    python3 cuda/emu/ntt_check.py --emu PATH [--quick]

ntt_run.sh builds the emulator and calls this. Fresh random inputs every run; exit
status 1 on any mismatch (or on any race or bad access the emulator reports).
"""
import argparse
import random
import subprocess
import sys

R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
G = 7


def bitrev(x, bits):
    return int(format(x, "0%db" % bits)[::-1], 2) if bits else 0


def omega(n):
    return pow(G, (R - 1) >> n, R)


def ntt(x, w):
    """Natural-order DFT X_k = Σ x_i w^(ik), iterative radix-2."""
    n = len(x)
    bits = n.bit_length() - 1
    a = [x[bitrev(i, bits)] for i in range(n)]
    m = 1
    while m < n:
        wm = pow(w, n // (2 * m), R)
        for k in range(0, n, 2 * m):
            t = 1
            for j in range(m):
                u, v = a[k + j], a[k + j + m] * t % R
                a[k + j], a[k + j + m] = (u + v) % R, (u - v) % R
                t = t * wm % R
        m *= 2
    return a


def transform(x, n, inverse, coset):
    N = 1 << n
    w = omega(n)
    if not inverse:
        if coset:
            x = [v * pow(G, i, R) % R for i, v in enumerate(x)]
        return ntt(x, w)
    y = ntt(x, pow(w, R - 2, R))
    ninv = pow(N, R - 2, R)
    ginv = pow(G, R - 2, R)
    return [v * ninv * (pow(ginv, i, R) if coset else 1) % R for i, v in enumerate(y)]


def reference_h(a, b, c, n):
    """proofs/groth16 computeH (bellperson): all N coefficients, natural order."""
    N = 1 << n
    ev = [transform(transform(v, n, True, False), n, False, True) for v in (a, b, c)]
    zinv = pow((pow(G, N, R) - 1) % R, R - 2, R)
    p = [(ev[0][i] * ev[1][i] - ev[2][i]) * zinv % R for i in range(N)]
    return transform(p, n, True, True)


class Emu:
    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, lines):
        self.p.stdin.write("".join(l + "\n" for l in lines))
        self.p.stdin.flush()
        out = self.p.stdout.readline()
        if not out or out.startswith("ERROR"):
            print("emulator:", out.strip() or "died", "on", lines[0])
            sys.exit(1)
        return out.split()


def vals(v):
    return " ".join("%064x" % x for x in v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--emu", required=True)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    emu = Emu(args.emu)
    rnd = random.Random()
    fails = 0
    cases = 0

    # (n, max_pass, tile, greedy, le): single passes of every shape, 2–3 passes, several lines per
    # block (4 passes need n ≥ 20: the GPU test TestNTTPlans covers them), for le = 3 (8 elements
    # a thread: 3-bit and 2-bit rounds) and le = 2 (4 a thread, the default: 2-bit and 1-bit
    # rounds, every pass size 5–10 and the 2^10-element cap).
    plans = [(1, 0, 0, 0, 3), (2, 0, 0, 0, 3), (3, 0, 0, 0, 3), (4, 0, 0, 0, 3), (5, 0, 0, 0, 3), (6, 0, 0, 0, 3),
             (7, 0, 0, 0, 3), (8, 0, 0, 0, 3), (9, 0, 0, 0, 3), (10, 0, 0, 0, 3), (11, 0, 0, 0, 3), (10, 5, 5, 0, 3),
             (10, 5, 7, 0, 3), (11, 5, 6, 0, 3), (12, 6, 8, 0, 3), (12, 7, 7, 1, 3), (13, 6, 6, 0, 3), (14, 7, 9, 0, 3),
             (15, 5, 7, 0, 3), (15, 7, 8, 1, 3), (16, 8, 10, 0, 3), (16, 6, 8, 1, 3), (12, 0, 0, 0, 3), (13, 5, 9, 0, 3),
             (17, 6, 8, 0, 3),
             (5, 0, 0, 0, 2), (6, 0, 0, 0, 2), (7, 0, 0, 0, 2), (8, 0, 0, 0, 2), (9, 0, 0, 0, 2), (10, 0, 0, 0, 2),
             (11, 0, 0, 0, 2), (11, 11, 11, 0, 2), (10, 5, 5, 0, 2), (10, 5, 7, 0, 2), (11, 5, 6, 0, 2),
             (12, 6, 8, 0, 2), (12, 7, 7, 1, 2), (13, 6, 6, 0, 2), (14, 7, 9, 0, 2), (15, 5, 7, 0, 2),
             (16, 8, 10, 0, 2), (16, 6, 8, 1, 2), (17, 9, 11, 0, 2), (11, 0, 0, 0, 0), (12, 0, 0, 0, 0)]
    if args.quick:
        plans = [p for p in plans if p[0] <= 12]
    for n, mp, tile, greedy, le in plans:
        print(" ".join(emu.ask(["plan %d %d %d %d %d" % (n, mp, tile, greedy, le)])), flush=True)
        N = 1 << n
        heavy = n >= 15
        combos = [(inv, cos, order) for inv in (0, 1) for cos in (0, 1) for order in (0, 1, 2)]
        if heavy:
            combos = rnd.sample(combos, 4)
        for inv, cos, order in combos:
            for compact in ((0, 1) if not heavy else (rnd.randint(0, 1),)):
                x = [rnd.randrange(R) for _ in range(N)]
                # input order: RN takes bit-reversed input
                xin = [x[bitrev(p, n)] for p in range(N)] if order == 2 else x
                want = transform(x, n, inv, cos)
                if order == 1:
                    want = [want[bitrev(p, n)] for p in range(N)]
                got = [int(h, 16) for h in emu.ask(["ntt %d %d %d %d %d %d %d %d %d" % (n, mp, tile, compact, inv, cos,
                                                                                            order, greedy, le), vals(xin)])]
                cases += 1
                if got != want:
                    fails += 1
                    bad = [i for i in range(N) if got[i] != want[i]]
                    print("FAIL ntt n=%d plan=(%d,%d,le=%d) compact=%d inverse=%d coset=%d order=%d: %d of %d differ (first %d)"
                          % (n, mp, tile, le, compact, inv, cos, order, len(bad), N, bad[0]))
        a, b, c = ([rnd.randrange(R) for _ in range(N)] for _ in range(3))
        want = reference_h(a, b, c, n)
        got = [int(h, 16) for h in emu.ask(["h %d %d %d %d %d %d" % (n, mp, tile, rnd.randint(0, 1), greedy, le),
                                            vals(a), vals(b), vals(c)])]
        cases += 1
        if got != want:
            fails += 1
            bad = [i for i in range(N) if got[i] != want[i]]
            print("FAIL h n=%d plan=(%d,%d,le=%d): %d of %d differ (first %d)" % (n, mp, tile, le, len(bad), N, bad[0]))
    print("ntt emulation: %d cases, %d failed" % (cases, fails))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
