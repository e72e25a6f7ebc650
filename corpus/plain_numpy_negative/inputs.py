import numpy as np


def make_args(T):
    return (np.ones((T, 2), np.float32),)
