"""Recursion into nested programs that are neither loops nor ``jit`` calls (those are inlined).

``cond`` branches are rebuilt with ``lax.switch`` and ``checkpoint`` (remat) bodies with
``jax.checkpoint``, both on Python functions that evaluate the branch or body with the
interpreter. ``custom_jvp``/``custom_vjp`` calls and anything else are bound untouched: their
differentiation rules refer to the original program.
"""

from __future__ import annotations

import jax
from jax import lax

from autota.jaxpr import jaxcompat as jc
from autota.jaxpr.interpreter import Context, evaluate, handles
from autota.jaxpr.ir import Body, Eqn


@handles(jc.COND)
def cond_rule(ctx: Context, eqn: Eqn, invals: list, outer: Body):
    branches = jc.cond_branches(eqn.params)
    if not branches:
        return None
    bodies = [ctx.ir(b) for b in branches]
    index, operands = invals[0], invals[1:]
    fns = [lambda *ops, _b=b: evaluate(ctx, _b, ops) for b in bodies]
    return list(lax.switch(index, fns, *operands))


@handles(*jc.REMAT_NAMES)
def remat_rule(ctx: Context, eqn: Eqn, invals: list, outer: Body):
    params = jc.remat_params(eqn.params)
    if params is None:
        return None
    jaxpr, kwargs = params
    body = ctx.ir(jaxpr)
    return list(jax.checkpoint(lambda *args: evaluate(ctx, body, args), **kwargs)(*invals))
