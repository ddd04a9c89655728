"""PyMC models in mode PTL: each model's logp, its gradient (dlogp) and the sampler's joint
logp+gradient function against PyMC's default backend at several points, the ops that still
run with PyTensor (fallback islands), and a short `pm.sample` on two cores."""

from __future__ import annotations

import numpy as np
import pytest

pm = pytest.importorskip("pymc", reason="PyMC needs Python 3.12 or newer (see scripts/setup.sh)")

from pymc_models import MODELS  # noqa: E402

from pytensor_ptl import Program  # noqa: E402
from pytensor_ptl.islands import Fallback, IslandGraph  # noqa: E402
from pytensor_ptl.linker import _PerShape  # noqa: E402

# The ops that still run with PyTensor's own implementation, per model, and why. None does:
# the Gaussian process's Cholesky factor, triangular solves and diagonal matrices, the
# softmax regression's `p[arange(n), y]` and the LKJ prior's packed triangle all run as ptl.
FALLBACKS: dict[str, set[str]] = {}


def _points(model, n=3):
    """The initial point, then points around it (in the sampler's unconstrained space)."""
    rng = np.random.default_rng(0)
    ip = model.initial_point()
    points = [ip]
    for _ in range(n - 1):
        points.append({k: v + 0.3 * rng.standard_normal(np.shape(v)) for k, v in ip.items()})
    return points


def _fallback_ops(fn) -> set[str]:
    """The op types a compiled PyMC function runs with PyTensor."""
    fn = getattr(fn, "_pytensor_function", None) or getattr(fn, "f", fn)
    graph = getattr(fn.vm, "jit_fn", None)
    # Mode PTL made it: one ptl program, one per input shape, or islands.
    assert isinstance(graph, (Program, _PerShape, IslandGraph)), type(graph)
    if not isinstance(graph, IslandGraph):
        return set()
    return {type(s.node.op).__name__ for s in graph.steps if isinstance(s, Fallback)}


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-9, atol=1e-10)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", list(MODELS))
def test_model_logp_and_gradient_match_the_default_backend(name):
    model = MODELS[name]()
    points = _points(model)
    fallen = set()

    logp, logp_ref = model.compile_logp(mode="PTL"), model.compile_logp()
    dlogp, dlogp_ref = model.compile_dlogp(mode="PTL"), model.compile_dlogp()
    for p in points:
        _close(logp(p), logp_ref(p))
        _close(dlogp(p), dlogp_ref(p))
    fallen |= _fallback_ops(logp) | _fallback_ops(dlogp)

    # The function the samplers call: logp and its gradient of the raveled free variables.
    both = model.logp_dlogp_function(mode="PTL", ravel_inputs=True)
    both_ref = model.logp_dlogp_function(ravel_inputs=True)
    both.set_extra_values({})
    both_ref.set_extra_values({})
    for p in points:
        x = pm.blocking.DictToArrayBijection.map({v.name: p[v.name] for v in model.continuous_value_vars})
        (v, g), (v_ref, g_ref) = both(x), both_ref(x)
        _close(v, v_ref)
        _close(g, g_ref)
    fallen |= _fallback_ops(both)

    assert fallen <= FALLBACKS.get(name, set()), f"{name}: ops ran with PyTensor: {sorted(fallen)}"


def test_at_least_four_in_five_models_run_without_fallback():
    assert len(MODELS) >= 12
    assert len(MODELS) - len(FALLBACKS) >= 0.8 * len(MODELS)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_sampling_on_two_cores_agrees_with_the_default_backend():
    model = MODELS["linreg"]()
    kwargs = dict(draws=300, tune=300, chains=2, cores=2, random_seed=3, progressbar=False)
    with model:
        ours = pm.sample(compile_kwargs={"mode": "PTL"}, **kwargs)
        ref = pm.sample(**kwargs)
    for var in ["b", "s"]:
        a = ours.posterior[var].mean(("chain", "draw")).values
        b = ref.posterior[var].mean(("chain", "draw")).values
        sd = ref.posterior[var].std(("chain", "draw")).values
        # Within Monte-Carlo error: 600 draws give a standard error near sd / 15.
        assert np.all(np.abs(a - b) < 0.3 * sd), (var, a, b, sd)
