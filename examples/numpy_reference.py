"""NumPy versions of the scripts in examples/: writes examples/NAME.out, the output each
script must print (`ptl run` and `ptl run --interp`; checked by crates/rt/tests/it/book.rs).

Run from the repository root: .venv/bin/python examples/numpy_reference.py examples
"""
import numpy as np
out = {}
def P(name, *vals):
    out.setdefault(name, []).extend(str(v) for v in vals)
A = np.array
# axpy
P("axpy", A([1.,2,3]) + A([4.,5,6])*2.0)
# affine
x = A([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]])
w1 = A([[0.1, -0.2, 0.3, 0.0], [0.5, 0.4, -0.1, 0.2], [-0.3, 0.1, 0.2, -0.5]])
b1 = A([0.0, 0.1, -0.1, 0.2]); w2 = A([[1.0, -1.0], [0.5, 0.5], [-0.5, 1.5], [2.0, 0.0]]); b2 = A([0.01, -0.02])
aff = lambda x, w, b: x @ w + b
relu = lambda x: np.maximum(x, 0.0)
P("affine", aff(x,w1,b1), relu(aff(x,w1,b1)), aff(relu(aff(x,w1,b1)),w2,b2))
# logistic
f = np.float32
x = A([[0.5, 1.5], [2.0, -1.0], [-1.0, -0.5], [1.0, 1.0]], f); w = A([1.25, -0.75], f); b = f(0.1); y = A([0,1,0,1], f)
p = (f(1) / (f(1) + np.exp(-(x @ w + b)))).astype(f)
P("logistic_regression", p, p > 0.5, -np.mean(y*np.log(p) + (f(1)-y)*np.log(f(1)-p)))
# softmax
x = A([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5]]); w = A([[2.0, -1.0, 0.0], [0.0, 1.5, -0.5]]); b = A([0.1, 0.0, -0.1])
lab = A([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
lg = x @ w + b
sm = np.exp(lg - lg.max(1, keepdims=True)); sm /= sm.sum(1, keepdims=True)
lsm = lg - lg.max(1, keepdims=True); lsm = lsm - np.log(np.exp(lsm).sum(1, keepdims=True))
P("softmax_classifier", sm, (lg == lg.max(1, keepdims=True)).astype(float), -np.mean(np.sum(lab*lsm, 1)))
# standardize
x = A([[1.0, 200.0, -3.0], [2.0, 180.0, -1.0], [3.0, 260.0, 0.0], [6.0, 220.0, 4.0]])
z = (x - x.mean(0)) / x.std(0)
P("standardize", x.mean(0), x.std(0), z, z.std(0), x / np.sqrt((x*x).sum(1))[:, None])
# pairwise
a = A([[0.0, 0.0], [3.0, 4.0], [1.0, 1.0]]); bb = A([[0.0, 0.0], [6.0, 8.0]])
d = lambda a, b: np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1))
g = np.sqrt(np.maximum((a*a).sum(1)[:, None] + (bb*bb).sum(1)[None] - 2.0 * (a @ bb.T), 0.0))
P("pairwise_distances", d(a, bb), g, d(a, bb).min(1), d(a, a))
# polynomial
c = A([-5.0, -2.0, 0.0, 1.0]); xs = A([-1.0, 0.0, 0.5, 2.0, 3.0])
cub = lambda x: (x[:, None] ** A([0.0, 1, 2, 3])) @ c
der = lambda x: (x[:, None] ** A([0.0, 0, 1, 2]) * A([0.0, 1, 2, 3])) @ c
step = lambda x: x - cub(x) / der(x)
x3 = step(step(step(A([2.0]))))
P("polynomial", cub(xs), der(xs), x3, np.abs(cub(x3)) < 1e-6)
# batch
x = A([[[1.0, -2.0], [3.0, 0.5], [0.0, 4.0]], [[-1.0, -1.0], [2.0, 2.0], [0.5, -3.0]]])
def lse(x):
    m = x.max(1); return m + np.log(np.exp(x - m[:, None]).sum(1))
P("batch_reduction", x.mean(1), x.max(1), lse(x.mean(1)), lse(A([[1000.0, 1000.0], [-1000.0, 0.0]])), np.sqrt((x*x).sum((1, 2))), x.sum((0, 1)))
# train_logreg: the same gradient descent, with the gradient written out by hand
i = np.arange(400.0)
x = np.stack([2.0 * np.sin(0.37 * i), np.cos(0.91 * i) + 0.5 * np.sin(0.13 * i)], 1)
y = ((x @ A([1.5, -2.0]) + 0.3 + 0.8 * np.sin(7.1 * i)) > 0.0).astype(float)
w = np.zeros(2); b = 0.0
sig = lambda z: 1.0 / (1.0 + np.exp(-z))
for _ in range(300):
    r = (sig(x @ w + b) - y) / len(y)
    w, b = w - 0.5 * (x.T @ r), b - 0.5 * np.sum(r)
z = x @ w + b
P("train_logreg", w, A([b]), A([np.mean(np.logaddexp(0.0, z) - y * z)]), A([np.mean(((z > 0) == (y > 0.5)).astype(float))]))
import sys
for k, v in out.items():
    open(f"{sys.argv[1]}/{k}.out", "w").write("\n".join(v) + "\n")
