import numpy as np


def make_args(T):
    rng = np.random.default_rng(T)
    F, H = 8, 16
    params = (
        rng.normal(size=(F, H)).astype(np.float32) * 0.3,
        rng.normal(size=(H, H)).astype(np.float32) * 0.3,
        np.zeros(H, np.float32),
    )
    return params, rng.normal(size=(T, F)).astype(np.float32), np.zeros(H, np.float32)
