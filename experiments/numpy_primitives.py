"""第六篇实验：一条表达式穿过八种 NumPy primitives，Autograd 梯度与手写解析梯度逐项比较。

Run from the resource directory:  python -B experiments/numpy_primitives.py
Exits non-zero when a check fails.
"""

import sys

import numpy as onp

import autograd.numpy as np
from autograd import grad


def f(x):
    terms = np.sin(x) + np.exp(x) * np.log(x) - x / 2.0
    return np.sum(terms)


def analytical_gradient(x):
    # Written by hand from calculus, independently of Autograd's VJP registry.
    return onp.cos(x) + onp.exp(x) * onp.log(x) + onp.exp(x) / x - 0.5


def format_vector(vector):
    return "[" + ", ".join(repr(round(float(value), 8)) for value in vector) + "]"


def main():
    x = onp.array([0.5, 1.5, 2.0])
    autograd_gradient = grad(f)(x)
    expected = analytical_gradient(x)
    print(f"autograd gradient={format_vector(autograd_gradient)}")
    print(f"analytical gradient={format_vector(expected)}")
    if not onp.allclose(autograd_gradient, expected, rtol=1e-12, atol=0.0):
        print(f"mismatch: autograd {autograd_gradient!r} != analytical {expected!r}", file=sys.stderr)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
