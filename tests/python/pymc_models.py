"""PyMC models of the kinds mode PTL must run: regressions, hierarchical and mixture models,
time series, a Gaussian process and count models. Each function builds one model on synthetic
data of its own seed."""

from __future__ import annotations

import numpy as np
import pymc as pm


def linreg():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((50, 3))
    y = X @ [1.0, -2.0, 0.5] + rng.standard_normal(50)
    with pm.Model() as m:
        b = pm.Normal("b", 0, 1, shape=3)
        s = pm.HalfNormal("s", 1)
        pm.Normal("y", X @ b, s, observed=y)
    return m


def logistic():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((60, 2))
    y = (X[:, 0] + 0.5 * rng.standard_normal(60) > 0).astype(int)
    with pm.Model() as m:
        b = pm.Normal("b", 0, 2, shape=2)
        a = pm.Normal("a", 0, 2)
        pm.Bernoulli("y", logit_p=a + X @ b, observed=y)
    return m


def eight_schools():
    y = np.array([28.0, 8, -3, 7, -1, 1, 18, 12])
    sigma = np.array([15.0, 10, 16, 11, 9, 11, 10, 18])
    with pm.Model() as m:
        mu = pm.Normal("mu", 0, 5)
        tau = pm.HalfCauchy("tau", 5)
        theta = pm.Normal("theta", 0, 1, shape=8)
        pm.Normal("y", mu + tau * theta, sigma, observed=y)
    return m


def hierarchical():
    rng = np.random.default_rng(4)
    group = rng.integers(0, 4, 40)
    y = rng.standard_normal(40) + group
    with pm.Model() as m:
        mu = pm.Normal("mu", 0, 5)
        sd = pm.HalfNormal("sd", 2)
        a = pm.Normal("a", mu, sd, shape=4)
        s = pm.HalfNormal("s", 1)
        pm.Normal("y", a[group], s, observed=y)
    return m


def poisson():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((30, 2))
    y = rng.poisson(2, 30)
    with pm.Model() as m:
        b = pm.Normal("b", 0, 1, shape=2)
        pm.Poisson("y", pm.math.exp(X @ b), observed=y)
    return m


def negative_binomial():
    rng = np.random.default_rng(6)
    y = rng.poisson(3, 30)
    with pm.Model() as m:
        mu = pm.LogNormal("mu", 0, 1)
        alpha = pm.Gamma("alpha", 2, 1)
        pm.NegativeBinomial("y", mu=mu, alpha=alpha, observed=y)
    return m


def student_t():
    rng = np.random.default_rng(7)
    y = rng.standard_t(3, 40)
    with pm.Model() as m:
        mu = pm.Normal("mu", 0, 1)
        s = pm.HalfNormal("s", 1)
        nu = pm.Gamma("nu", 2, 0.1)
        pm.StudentT("y", nu=nu, mu=mu, sigma=s, observed=y)
    return m


def mixture():
    rng = np.random.default_rng(8)
    y = np.concatenate([rng.normal(-2, 1, 20), rng.normal(2, 1, 20)])
    with pm.Model() as m:
        w = pm.Dirichlet("w", np.ones(2))
        mu = pm.Normal("mu", 0, 5, shape=2)
        pm.NormalMixture("y", w=w, mu=mu, sigma=1.0, observed=y)
    return m


def ar1():
    rng = np.random.default_rng(9)
    y = np.cumsum(rng.standard_normal(30))
    with pm.Model() as m:
        rho = pm.Uniform("rho", -1, 1)
        s = pm.HalfNormal("s", 1)
        pm.Normal("y", rho * y[:-1], s, observed=y[1:])
    return m


def stochastic_volatility():
    rng = np.random.default_rng(10)
    r = rng.standard_normal(20) * 0.1
    with pm.Model() as m:
        s = pm.Exponential("s", 10.0)
        v = pm.GaussianRandomWalk("v", sigma=s, init_dist=pm.Normal.dist(0, 1), shape=20)
        pm.Normal("r", 0, pm.math.exp(v), observed=r)
    return m


def softmax_regression():
    rng = np.random.default_rng(11)
    X = rng.standard_normal((30, 3))
    y = rng.integers(0, 3, 30)
    with pm.Model() as m:
        W = pm.Normal("W", 0, 1, shape=(3, 3))
        pm.Categorical("y", p=pm.math.softmax(X @ W, axis=1), observed=y)
    return m


def beta_binomial():
    rng = np.random.default_rng(12)
    k = rng.integers(0, 20, 10)
    with pm.Model() as m:
        a = pm.HalfNormal("a", 5)
        b = pm.HalfNormal("b", 5)
        pm.BetaBinomial("k", alpha=a, beta=b, n=np.full(10, 20), observed=k)
    return m


def gamma():
    rng = np.random.default_rng(13)
    y = rng.gamma(2, 1, 30)
    with pm.Model() as m:
        a = pm.HalfNormal("a", 5)
        b = pm.HalfNormal("b", 5)
        pm.Gamma("y", alpha=a, beta=b, observed=y)
    return m


def gaussian_process():
    x = np.linspace(0, 1, 10)[:, None]
    y = np.sin(6 * x[:, 0])
    with pm.Model() as m:
        ls = pm.Gamma("ls", 2, 4)
        eta = pm.HalfNormal("eta", 1)
        gp = pm.gp.Marginal(cov_func=eta**2 * pm.gp.cov.ExpQuad(1, ls))
        gp.marginal_likelihood("y", X=x, y=y, sigma=0.1)
    return m


def dirichlet_multinomial():
    rng = np.random.default_rng(15)
    y = rng.multinomial(20, [0.2, 0.3, 0.5], size=8)
    with pm.Model() as m:
        a = pm.HalfNormal("a", 5, shape=3)
        pm.DirichletMultinomial("y", n=20, a=a, observed=y)
    return m


def mvnormal_lkj():
    rng = np.random.default_rng(16)
    y = rng.multivariate_normal([0.0, 1.0, 2.0], [[1.0, 0.3, 0.0], [0.3, 1.0, 0.2], [0.0, 0.2, 1.0]], size=20)
    with pm.Model() as m:
        chol, _, _ = pm.LKJCholeskyCov("c", n=3, eta=2.0, sd_dist=pm.Exponential.dist(1.0), compute_corr=True)
        mu = pm.Normal("mu", 0, 1, shape=3)
        pm.MvNormal("y", mu=mu, chol=chol, observed=y)
    return m


def censored_normal():
    # A censored likelihood: the normal's log-CDF and log-survival (through `erfcx` far out).
    rng = np.random.default_rng(17)
    y = np.clip(rng.normal(0.5, 1.2, 40), -1.0, 1.5)
    with pm.Model() as m:
        mu = pm.Normal("mu", 0, 2)
        s = pm.HalfNormal("s", 2)
        pm.Censored("y", pm.Normal.dist(mu, s), lower=-1.0, upper=1.5, observed=y)
    return m


def censored_gamma():
    # Waiting times censored at 3: the gamma's log-survival (`gammaincc`) and, for the rate,
    # its derivative in x.
    rng = np.random.default_rng(19)
    y = np.minimum(rng.gamma(2.5, 1 / 1.3, 40), 3.0)
    with pm.Model() as m:
        rate = pm.HalfNormal("rate", 2)
        pm.Censored("y", pm.Gamma.dist(alpha=2.5, beta=rate), lower=None, upper=3.0, observed=y)
    return m


def censored_student_t():
    # A Student-t censored on both sides: its CDF is `betainc`.
    rng = np.random.default_rng(23)
    y = np.clip(0.3 + 0.8 * rng.standard_t(4, 40), -1.0, 1.2)
    with pm.Model() as m:
        mu = pm.Normal("mu", 0, 2)
        s = pm.HalfNormal("s", 2)
        pm.Censored("y", pm.StudentT.dist(nu=4, mu=mu, sigma=s), lower=-1.0, upper=1.2, observed=y)
    return m


MODELS = {
    f.__name__: f
    for f in [
        linreg,
        logistic,
        eight_schools,
        hierarchical,
        poisson,
        negative_binomial,
        student_t,
        mixture,
        ar1,
        stochastic_volatility,
        softmax_regression,
        beta_binomial,
        gamma,
        gaussian_process,
        dirichlet_multinomial,
        mvnormal_lkj,
        censored_normal,
        censored_gamma,
        censored_student_t,
    ]
}
