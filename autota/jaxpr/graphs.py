"""Flax NNX modules among ``transform``'s arguments: their state updates survive the trace.

An NNX module is a mutable object graph. ``fn(model, x)`` may update its Variables (a step
counter, BatchNorm's running statistics, the counts of an ``nnx.Rngs``), and those updates are
effects the traced program must return. ``nnx.jit`` handles this by splitting the graph nodes
among its arguments into a static ``GraphDef`` and a pytree of Variable values before the trace,
merging them back into fresh modules inside it, and splitting those again after ``fn`` ran, so
that the new values are outputs; the caller's modules are then updated with them.

``transform`` does the same here. Shared references (one module passed twice, or a submodule
reachable from two arguments) stay shared, because all graph nodes are split together.
Nothing here imports Flax unless Flax is already imported: a program with NNX modules has.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import jax

from autota.jaxpr.findings import TransformError


@dataclass(frozen=True)
class NodeSlot:
    """Where the ``index``-th graph node sat among the arguments (a static, hashable leaf)."""

    index: int


def _nnx():
    return sys.modules.get("flax.nnx")


def is_graph_node(x) -> bool:
    nnx = _nnx()
    return nnx is not None and nnx.graph.is_graph_node(x)


@dataclass
class SplitArgs:
    """Arguments with their graph nodes replaced by :class:`NodeSlot` leaves."""

    tree: Any  # the arguments, graph nodes replaced by slots
    nodes: tuple  # the caller's graph nodes, in slot order
    graphdef: Any  # static structure of ``nodes`` (hashable; part of the cache key)
    state: Any  # pytree of the Variable values of ``nodes``


def split(tree) -> SplitArgs | None:
    """Split the graph nodes out of ``tree``; ``None`` when it holds none."""
    nnx = _nnx()
    if nnx is None:
        return None
    leaves, treedef = jax.tree_util.tree_flatten(tree, is_leaf=is_graph_node)
    nodes: list = []
    for k, leaf in enumerate(leaves):
        if is_graph_node(leaf):
            leaves[k] = NodeSlot(len(nodes))
            nodes.append(leaf)
    if not nodes:
        return None
    graphdef, state = nnx.split(tuple(nodes))
    return SplitArgs(jax.tree_util.tree_unflatten(treedef, leaves), tuple(nodes), graphdef, state)


def merge(graphdef, state, tree):
    """``(tree with fresh modules in its slots, those modules)``, inside the trace."""
    nodes = _nnx().merge(graphdef, state)
    filled = jax.tree_util.tree_map(
        lambda leaf: nodes[leaf.index] if isinstance(leaf, NodeSlot) else leaf,
        tree, is_leaf=lambda x: isinstance(x, NodeSlot),
    )
    return filled, nodes


def updated_state(graphdef, nodes, name: str):
    """The Variable values of ``nodes`` after ``fn`` ran, as an output pytree of the trace."""
    new_graphdef, state = _nnx().split(tuple(nodes))
    if new_graphdef != graphdef:
        raise TransformError(
            f"{name} changed the structure of an NNX module it was given (added, removed or "
            "replaced an attribute); transform carries Variable updates only"
        )
    return state


def write_back(nodes: tuple, state) -> None:
    """Update the caller's modules with the state the program returned, as ``nnx.jit`` does."""
    _nnx().update(nodes, state)
