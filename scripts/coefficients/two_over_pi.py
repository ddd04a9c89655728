"""Prints the table of 2/pi's bits in crates/lower/src/ops/trig.rs (run with the project's
venv python from the repository root; needs mpmath).

Word 0 is zero (padding, so that a window of bits may start before the binary point);
word j >= 1 holds 2/pi's fraction bits with weights 2^-(64 j - 63) down to 2^-(64 j).
Twenty words reach weight 2^-1216, past the last bit that the reduction of an `f64`
argument reads (2^-1161, for the largest finite one).
"""

import mpmath as mp

WORDS = 20
mp.mp.dps = 64 * WORDS // 3 + 40

bits = int(mp.floor(2 / mp.pi * mp.mpf(2) ** (64 * (WORDS - 1))))
words = [(bits >> (64 * (WORDS - 1 - j))) & (2**64 - 1) for j in range(WORDS)]
print("const TWO_OVER_PI: [u64; %d] = [" % WORDS)
for w in words:
    print("    0x%016x," % w)
print("];")
