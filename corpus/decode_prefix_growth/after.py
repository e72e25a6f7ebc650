"""Greedy decoding that feeds the whole growing prefix back into the model each step."""

import jax
import jax.numpy as jnp


def logits_fn(embed, tokens):
    h = embed[tokens].mean(axis=0)
    return h @ embed.T


def greedy_decode(embed, prompt, steps):
    tokens = prompt
    for _ in range(steps):
        logits = logits_fn(embed, tokens)  # reads the prefix grown so far
        next_token = jnp.argmax(logits)
        tokens = jnp.append(tokens, next_token)
    return tokens


decode_jit = jax.jit(greedy_decode, static_argnums=2)
