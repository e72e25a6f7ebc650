import numpy as np


def make_args(T):
    rng = np.random.default_rng(1)
    xs = rng.normal(size=(16, 4)).astype(np.float32)
    ys = xs @ np.array([1.0, -2.0, 0.5, 3.0], np.float32)
    return np.zeros(4, np.float32), xs, ys, T
