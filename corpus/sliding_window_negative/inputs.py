import numpy as np


def make_args(T):
    return np.arange(T * 2, dtype=np.float32).reshape(T, 2), 3
