"""Prints the Chebyshev tables of crates/lower/src/ops/bessel.rs (run with the project's venv
python from the repository root; needs mpmath).

Each table is the Chebyshev expansion sum' c_k T_k(t) (the first term halved, as Clenshaw's
recurrence in `F::chebyshev` sums it) of a smooth function on [-1, 1], computed at 60
digits by interpolation at 80 Chebyshev points and cut where the terms fall below 1e-18 of
the largest:

- i0, i1 on [0, 8]: exp(-x) I0(x) and exp(-x) I1(x) / x, with t = x / 4 - 1;
- i0, i1 from 8 on: sqrt(x) exp(-x) I0(x) and sqrt(x) exp(-x) I1(x), with t = 16 / x - 1;
- j0, j1 on [0, 8]: J0(x) and J1(x) / x, with t = x^2 / 32 - 1;
- j0, j1 from 8 on: the Hankel amplitudes P and Q/u (u = 8 / x) of
  J(x) = sqrt(2 / (pi x)) (P cos(x - phase) - Q sin(x - phase)), with t = 2 u^2 - 1.
"""

import mpmath as mp

mp.mp.dps = 60
NODES = 80


def chebyshev(fn):
    n = NODES
    ts = [mp.cos(mp.pi * (k + mp.mpf(1) / 2) / n) for k in range(n)]
    fs = [fn(t) for t in ts]
    coeffs = []
    for j in range(n):
        s = mp.fsum(fs[k] * mp.cos(mp.pi * j * (k + mp.mpf(1) / 2) / n) for k in range(n))
        coeffs.append(2 * s / n)
    top = max(abs(c) for c in coeffs)
    while abs(coeffs[-1]) < top * mp.mpf("1e-18"):
        coeffs.pop()
    return coeffs


def hankel(order, x):
    j, y = mp.besselj(order, x), mp.bessely(order, x)
    chi = x - (2 * order + 1) * mp.pi / 4
    a = mp.sqrt(2 / (mp.pi * x))
    p = (j * mp.cos(chi) + y * mp.sin(chi)) / a
    q = (y * mp.cos(chi) - j * mp.sin(chi)) / a
    return p, q


def from_t_small(t):
    return 4 * (t + 1)


def from_t_large(t):
    return 16 / (t + 1)


def j_x(t):
    return mp.sqrt(32 * (t + 1))


def u_x(t):
    u = mp.sqrt((t + 1) / 2)
    return u, 8 / u


TABLES = {
    "I0_SMALL": lambda t: mp.exp(-from_t_small(t)) * mp.besseli(0, from_t_small(t)),
    "I1_SMALL": lambda t: mp.exp(-from_t_small(t)) * (mp.besseli(1, from_t_small(t)) / from_t_small(t) if t > -1 else mp.mpf(1) / 2),
    "I0_LARGE": lambda t: mp.sqrt(from_t_large(t)) * mp.exp(-from_t_large(t)) * mp.besseli(0, from_t_large(t)),
    "I1_LARGE": lambda t: mp.sqrt(from_t_large(t)) * mp.exp(-from_t_large(t)) * mp.besseli(1, from_t_large(t)),
    "J0_SMALL": lambda t: mp.besselj(0, j_x(t)),
    "J1_SMALL": lambda t: mp.besselj(1, j_x(t)) / j_x(t),
    "P0_LARGE": lambda t: hankel(0, u_x(t)[1])[0],
    "Q0_LARGE": lambda t: hankel(0, u_x(t)[1])[1] / u_x(t)[0],
    "P1_LARGE": lambda t: hankel(1, u_x(t)[1])[0],
    "Q1_LARGE": lambda t: hankel(1, u_x(t)[1])[1] / u_x(t)[0],
}


def print_table(name, coeffs):
    print(f"const {name}: [f64; {len(coeffs)}] = [")
    for c in coeffs:
        print(f"    {float(c)!r},")
    print("];")


if __name__ == "__main__":
    for name, fn in TABLES.items():
        print_table(name, chebyshev(fn))
