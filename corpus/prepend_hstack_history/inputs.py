import numpy as np


def make_args(T):
    return [np.float32(i) * 0.5 for i in range(T)], np.float32(2.0)
