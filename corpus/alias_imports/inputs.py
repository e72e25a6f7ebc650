import numpy as np


def make_args(T):
    return (np.linspace(0.0, 1.0, T * 3, dtype=np.float32).reshape(T, 3),)
