"""Prints the tables of crates/lower/src/ops/incgamma.rs and crates/interp/src/ops/incgamma.rs
(run with the project's venv python from the repository root; needs mpmath).

- TEMME_D: d[k][n], the Taylor coefficients in eta of the functions C_k(eta) of Temme's
  uniform asymptotic expansion of the regularised incomplete gamma functions (DLMF 8.12.8 to
  8.12.13), 25 x 25 as SciPy's `igam.h` uses them. Computed from the expansion of eta's
  inverse (Lagrange inversion) and the Stirling coefficients g_k (DLMF 5.11.3 to 5.11.6).
- LGAM1P_TAYLOR: log Gamma(1 + a) = -euler a + sum_{k >= 2} (-1)^k zeta(k) / k a^k, cut where
  0.5^k zeta(k) / k falls below 1e-18 (the series is used for |a| <= 0.5).
"""

import mpmath as mp

mp.mp.dps = 60
K = N = 25


def series_mul(a, b, n):
    return [mp.fsum(a[i] * b[k - i] for i in range(k + 1)) for k in range(n)]


def reversion(a, n):
    """b with f(g(x)) = x mod x^n, for f = sum a[i] x^i, a[0] = 0 and a[1] != 0."""
    b = [mp.mpf(0), 1 / a[1]]
    for m in range(2, n):
        b.append(mp.mpf(0))
        # The coefficient of x^m in f(g(x)) must be 0; it is a[1] b[m] + (terms of known b).
        power = [mp.mpf(0)] * n
        power[0] = mp.mpf(1)
        total = mp.mpf(0)
        for i in range(1, m + 1):
            power = series_mul(power, b, m + 1)
            if i > 1:
                total += a[i] * power[m]
        b[m] = -total / a[1]
    return b


def eta(lam):
    """DLMF 8.12.1 with lambda = 1 + lam, centred at 0."""
    if lam == 0:
        return mp.mpf(0)
    s = mp.sqrt(2 * (lam - mp.log(lam + 1)))
    return s if lam > 0 else -s


def temme_d():
    m = N + 2 * K
    alpha = reversion(mp.taylor(eta, 0, m + 2), m + 3)
    # Stirling's g_k from the a_k of DLMF 5.11.6.
    a = [mp.sqrt(2) / 2]
    for k in range(1, 2 * K):
        ak = a[-1] / k
        for j in range(1, len(a)):
            ak -= a[j] * a[-j] / (j + 1)
        ak /= a[0] * (1 + mp.mpf(1) / (k + 1))
        a.append(ak)
    g = [mp.sqrt(2) * mp.rf(mp.mpf(1) / 2, k) * a[2 * k] for k in range(K)]
    d0 = [-mp.mpf(1) / 3] + [(n + 2) * alpha[n + 2] for n in range(1, m)]
    d = [d0]
    for k in range(1, K):
        d.append([(-1) ** k * g[k] * d[0][n] + (n + 2) * d[k - 1][n + 2] for n in range(m - 2 * k)])
    return [row[:N] for row in d]


def lgam1p_taylor():
    coeffs = [mp.mpf(0), -mp.euler]
    k = 2
    while mp.zeta(k) / k * mp.mpf(0.5) ** k >= mp.mpf("1e-18"):
        coeffs.append((-1) ** k * mp.zeta(k) / k)
        k += 1
    return coeffs


if __name__ == "__main__":
    d = temme_d()
    print(f"const TEMME_D: [[f64; {N}]; {K}] = [")
    for row in d:
        print("    [" + ", ".join(repr(float(c)) for c in row) + "],")
    print("];")
    coeffs = lgam1p_taylor()
    print(f"const LGAM1P_TAYLOR: [f64; {len(coeffs)}] = [")
    for c in coeffs:
        print(f"    {float(c)!r},")
    print("];")
