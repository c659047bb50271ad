"""第十三篇实验：square 声明为 primitive；先观察缺失 VJP，再登记 staged rule 并检查到二阶。

Run from the resource directory:  python -B experiments/custom_primitive.py
Exits non-zero when a check fails.
"""

import sys

from autograd import grad
from autograd.extend import defvjp, primitive
from autograd.test_util import check_grads


@primitive
def square(x):
    return x * x


def expect_missing_vjp():
    # A float input: an int would fail earlier, when Autograd cannot box it.
    if square(3.0) != 9.0:
        raise AssertionError("forward square(3.0) should be 9.0 before any VJP exists")
    try:
        grad(square)(3.0)
    except NotImplementedError as error:
        return str(error)
    raise AssertionError("grad(square) succeeded although no VJP was registered")


def main():
    print(f"before defvjp: {expect_missing_vjp()}")
    defvjp(square, lambda ans, x: lambda g: g * 2.0 * x)
    derivative = grad(square)(3.0)
    assert derivative == 6.0
    check_grads(square, modes=["rev"], order=2)(3.0)
    print(f"after defvjp: grad(square)(3.0)={derivative}")
    print("reverse-mode gradient check through order 2 passed")
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
