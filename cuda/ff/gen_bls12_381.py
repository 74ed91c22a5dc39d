#!/usr/bin/env python3
"""Derive the BLS12-381 field constants that cuda/ff/bls12_381.cuh holds.

    python3 cuda/ff/gen_bls12_381.py           print the constant block
    python3 cuda/ff/gen_bls12_381.py --check   compare with the header, exit 1 on a mismatch

Limbs are 32-bit, least significant first; R = 2^(32*N). The Go test
ffi/constants_test.go checks the header independently against gnark-crypto.
"""
import re
import sys
from pathlib import Path

# The two primes, as the BLS12-381 specification gives them.
P = 0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB
R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
FIELDS = [("FP", P, 12), ("FR", R, 8)]


def limbs(x, n):
    assert 0 <= x < 1 << (32 * n)
    return [(x >> (32 * i)) & 0xFFFFFFFF for i in range(n)]


def constants():
    out = {}
    for name, m, n in FIELDS:
        assert pow(2, m - 1, m) == 1, "not prime"  # Fermat, enough as a sanity check here
        big_r = pow(2, 32 * n, m)
        out[name + "_MOD"] = limbs(m, n)
        out[name + "_ONE"] = limbs(big_r, n)  # R mod m: Montgomery one
        out[name + "_RR"] = limbs(big_r * big_r % m, n)  # R^2 mod m: to Montgomery form
        out[name + "_M0"] = [(-pow(m, -1, 1 << 32)) % (1 << 32)]  # -m^-1 mod 2^32
        if name == "FP":
            out["FP_B4"] = limbs(4 * big_r % m, n)  # 4 in Montgomery form: b of G1, and both halves of G2's b
        # The top limb leaves a spare bit, which the no-carry CIOS of mont.cuh relies on.
        assert limbs(m, n)[-1] < 0x7FFFFFFE
    return out


def render():
    lines = []
    for name, vals in constants().items():
        body = ", ".join("0x%08x" % v for v in vals)
        lines.append("%s = { %s }" % (name, body))
    return lines


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--check":
        hdr = (Path(__file__).parent / "bls12_381.cuh").read_text()
        bad = 0
        for name, vals in constants().items():
            m = re.search(r"\b%s\b[^{=]*=\s*\{([^}]*)\}" % name, hdr)
            if name.endswith("_M0"):
                m = re.search(r"\b%s\s*=\s*(0x[0-9a-fA-F]+)" % name, hdr)
                got = [int(m.group(1), 16)] if m else None
            else:
                got = [int(v, 16) for v in m.group(1).replace(",", " ").split()] if m else None
            if got != vals:
                print("mismatch:", name, got, "want", vals)
                bad += 1
        print("bls12_381.cuh: %s" % ("ok" if not bad else "%d mismatches" % bad))
        sys.exit(1 if bad else 0)
    for line in render():
        print(line)


if __name__ == "__main__":
    main()
