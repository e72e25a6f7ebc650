import numpy as np


def make_args(T):
    rng = np.random.default_rng(3)
    xs = rng.normal(size=(12, 3)).astype(np.float32)
    return np.zeros(3, np.float32), xs, xs @ np.array([0.5, -1.0, 2.0], np.float32), T
