#!/usr/bin/env python3
"""Peak memory of one large call: how much the process's peak RSS grows during a mode-PTL call of
`2*x + 3*y - z` on three 1e7 float64 arrays (240 MB in, 80 MB out), beside PyTensor NUMBA.

    python bench/peak_rss.py            # each mode in a fresh process

The function is compiled (or found in the compile cache) on tiny inputs first, so the compiler's
memory is not counted; the peak is read from getrusage before and after the call.
"""

from __future__ import annotations

import resource
import subprocess
import sys

N = 10_000_000


def measure(mode: str) -> None:
    import numpy as np
    import pytensor
    import pytensor.tensor as pt

    import pytensor_ptl  # noqa: F401

    x, y, z = pt.dvector("x"), pt.dvector("y"), pt.dvector("z")
    f = pytensor.function([x, y, z], 2.0 * x + 3.0 * y - z, mode=mode)
    f(np.ones(3), np.ones(3), np.ones(3))
    xs = [np.random.default_rng(k).random(N) for k in range(3)]
    peak0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    f(*xs)
    peak1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    mb = 1024
    print(f"{mode:6} peak RSS grew {(peak1 - peak0) / mb:6.1f} MiB during the call "
          f"(inputs {3 * 8 * N / 2**20:.0f} MiB already held, output {8 * N / 2**20:.0f} MiB)")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        measure(sys.argv[1])
    else:
        for mode in ("PTL", "NUMBA"):
            subprocess.run([sys.executable, __file__, mode], check=True)
