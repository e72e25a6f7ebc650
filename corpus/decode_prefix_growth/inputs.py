import numpy as np


def make_args(T):
    rng = np.random.default_rng(0)
    embed = rng.normal(size=(32, 8)).astype(np.float32)
    return embed, np.array([1, 2, 3], np.int32), T
