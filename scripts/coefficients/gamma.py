"""Prints the Chebyshev table of crates/lower/src/ops/gamma.rs (run with the project's venv
python from the repository root; needs mpmath).

Gamma(x) on [2, 3] as the Chebyshev expansion sum' c_k T_k(t) (the first term halved, as the
Clenshaw recurrence `chebyshev` in bessel.rs sums it), t = 2 x - 5, computed at 60 digits
by interpolation at 60 Chebyshev points and cut where the terms fall below 1e-18 of the
largest.
"""

import mpmath as mp

mp.mp.dps = 60
NODES = 60

n = NODES
ts = [mp.cos(mp.pi * (k + mp.mpf(1) / 2) / n) for k in range(n)]
fs = [mp.gamma((t + 5) / 2) for t in ts]
coeffs = []
for j in range(n):
    s = mp.fsum(fs[k] * mp.cos(mp.pi * j * (k + mp.mpf(1) / 2) / n) for k in range(n))
    coeffs.append(2 * s / n)
top = max(abs(c) for c in coeffs)
while abs(coeffs[-1]) < top * mp.mpf("1e-18"):
    coeffs.pop()
print("const GAMMA_2_3: [f64; %d] = [" % len(coeffs))
for c in coeffs:
    print("    %s," % repr(float(c)))
print("];")
