"""Greedy decoding into preallocated buffers, stopping at the end-of-sequence token: the token ids
have no gradient and are not reported; their scores, written in the `while_loop`, are (AT202)."""

import jax.numpy as jnp
from jax import lax

EOS = 0


def greedy_decode(embed, W, h0, max_len):
    tokens = jnp.full((max_len,), -1, dtype=jnp.int32)
    scores = jnp.zeros((max_len,))

    def not_done(carry):
        i, h, finished, tokens, scores = carry
        return (i < max_len) & ~finished

    def decode_step(carry):
        i, h, finished, tokens, scores = carry
        h = jnp.tanh(W @ h)
        logits = embed @ h
        token = jnp.argmax(logits).astype(jnp.int32)
        tokens = tokens.at[i].set(token)
        scores = scores.at[i].set(jnp.max(logits))
        return i + 1, h, token == EOS, tokens, scores

    _, h, _, tokens, scores = lax.while_loop(not_done, decode_step, (0, h0, False, tokens, scores))
    return h, tokens, scores
