"""Greedy decoding into a preallocated token buffer, stopping at the end-of-sequence token."""

import jax.numpy as jnp
from jax import lax

EOS = 0


def greedy_decode(embed, W, h0, max_len):
    tokens = jnp.full((max_len,), -1, dtype=jnp.int32)

    def not_done(carry):
        i, h, finished, tokens = carry
        return (i < max_len) & ~finished

    def decode_step(carry):
        i, h, finished, tokens = carry
        h = jnp.tanh(W @ h)
        token = jnp.argmax(embed @ h).astype(jnp.int32)
        tokens = tokens.at[i].set(token)
        return i + 1, h, token == EOS, tokens

    _, h, _, tokens = lax.while_loop(not_done, decode_step, (0, h0, False, tokens))
    return h, tokens
