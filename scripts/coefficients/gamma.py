"""Prints the Chebyshev table of crates/lower/src/ops/gamma.rs (run with the project's venv
python from the repository root; needs mpmath).

Gamma(x) on [2, 3] as the Chebyshev expansion sum' c_k T_k(t), t = 2 x - 5, computed as
bessel.py computes its tables (60 digits, interpolation at Chebyshev points, cut where the
terms fall below 1e-18 of the largest).
"""

import mpmath as mp
from bessel import chebyshev, print_table

print_table("GAMMA_2_3", chebyshev(lambda t: mp.gamma((t + 5) / 2)))
