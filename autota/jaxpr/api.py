"""``transform``, ``analyze`` and ``explain``: the public face of the jaxpr front end.

``transform(fn)`` traces ``fn`` once per input signature (pytree structure, abstract values of
the array leaves, values of static arguments, the graph structure of NNX modules), rewrites the traced program with the interpreter
and caches the rewritten jaxpr, exactly as ``jax.jit`` caches its traces. Calling the result
evaluates that jaxpr with the caller's values, so it composes with ``jit``, ``grad`` and
``vmap`` applied outside it, and any transform applied inside ``fn`` is part of what is traced.
"""

from __future__ import annotations

import functools
import inspect
import os
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

import jax
import numpy as np

from autota.catalogue import get as _rule
from autota.catalogue import resolve_selection
from autota.jaxpr import batched_select, concat, loops  # noqa: F401  (registers rules)
from autota.jaxpr import graphs
from autota.jaxpr import jaxcompat as jc
from autota.jaxpr.findings import UNKNOWN_LAYOUT, LoopFinding, TransformError
from autota.jaxpr.interpreter import Context, evaluate
from autota.jaxpr.ir import from_jaxpr

SUPPORTED = frozenset({"AT101", "AT201", "AT202", "AT203", "AT204"})
"""Rules ``transform`` can apply when selected."""

DEFAULT = SUPPORTED - {"AT203"}
"""Rules applied unless ``rules`` says otherwise. AT203 (write-once read-back buffers) is opt-in:
its custom VJP rules out forward-mode ``jvp``. Read-back buffers are still reported by
``analyze`` whenever AT201 is enabled, with whether they are provably write-once."""


@dataclass(frozen=True)
class _Outputs:
    """How the flat outputs of the rewritten program become ``fn``'s result.

    Array leaves are outputs of the program; any other leaf (a Python float, a string) is a
    constant of the trace and comes back as it was returned. ``state_tree`` is the pytree of
    the NNX Variable values that follow the outputs, when NNX modules were arguments.
    """

    tree: Any
    is_array: tuple
    constants: tuple
    state_tree: Any = None

    def build(self, flat: list):
        values, consts = iter(flat), iter(self.constants)
        leaves = [next(values) if d else next(consts) for d in self.is_array]
        out = jax.tree_util.tree_unflatten(self.tree, leaves)
        state = jax.tree_util.tree_unflatten(self.state_tree, list(values)) if self.state_tree is not None else None
        return out, state


@dataclass(frozen=True)
class _Program:
    jaxpr: Any
    outputs: _Outputs
    findings: tuple


def _enabled(rules: Iterable[str] | str | None) -> frozenset:
    """The rules ``transform`` applies: the default ones for ``None``, none for an empty
    selection, one code or prefix given as a string (``"AT201"``)."""
    if isinstance(rules, str):
        rules = (rules,)
    if rules is not None and not list(rules):
        return frozenset()
    try:
        chosen = resolve_selection(rules, None) if rules is not None else DEFAULT
    except ValueError as err:
        raise TransformError(str(err)) from None
    return frozenset(chosen) & SUPPORTED


def _is_array_leaf(x) -> bool:
    return isinstance(x, (jax.Array, np.ndarray, np.generic, bool, int, float, complex)) or jc.is_tracer(x)


def _is_array_output(x) -> bool:
    """A traced output. A NumPy array returned by ``fn`` is a constant of the trace: it comes
    back as returned, like any other non-JAX leaf."""
    return isinstance(x, jax.Array) or jc.is_tracer(x)


def _strict_default() -> bool:
    """``AUTOTA_STRICT=1`` makes ``strict=True`` the default (autota's test suite runs so)."""
    return os.environ.get("AUTOTA_STRICT", "").strip().lower() in ("1", "true", "yes", "on")


class _Traced:
    """``fn`` with its static arguments split off, ready to trace per signature."""

    def __init__(
        self, fn: Callable, enabled: frozenset, static_argnums: Sequence[int], static_argnames,
        strict: bool | None = None,
    ):
        self.fn = fn
        self.enabled = enabled
        self.strict = _strict_default() if strict is None else strict
        self.static_argnums, self.static_argnames = _static_arguments(fn, tuple(static_argnums), tuple(static_argnames))
        self.cache: dict = {}

    def split(self, args: tuple, kwargs: dict):
        n = len(args)  # as `jax.jit`: a negative index counts from the last argument passed
        statics = {i + n if i < 0 else i for i in self.static_argnums} & set(range(n))
        dyn_args = [None if i in statics else a for i, a in enumerate(args)]
        static_args = tuple((i, args[i]) for i in sorted(statics))
        dyn_kwargs = {k: v for k, v in kwargs.items() if k not in self.static_argnames}
        static_kwargs = tuple(sorted((k, v) for k, v in kwargs.items() if k in self.static_argnames))
        graph = graphs.split((dyn_args, dyn_kwargs))
        if graph is None:
            tree, graphdef, nodes = (dyn_args, dyn_kwargs), None, ()
        else:
            tree, graphdef, nodes = (graph.tree, graph.state), graph.graphdef, graph.nodes
        leaves, treedef = jax.tree_util.tree_flatten(tree)
        is_dyn = tuple(_is_array_leaf(x) for x in leaves)
        dynamic = [x for x, d in zip(leaves, is_dyn) if d]
        static_leaves = tuple(x for x, d in zip(leaves, is_dyn) if not d)
        layout = (treedef, is_dyn, static_args, static_kwargs, static_leaves, graphdef)
        # static values keyed with their types, as `jax.jit` keys them: `1`, `True` and `1.0` are
        # equal and hash alike, but trace to different programs (`jnp.arange(n)`'s dtype)
        types = tuple(type(v) for v in (*(v for _, v in static_args), *(v for _, v in static_kwargs), *static_leaves))
        key = (*layout, types, tuple(jc.abstract(x) for x in dynamic))
        try:
            hash(key)
        except TypeError:
            raise TransformError(
                f"{_name(self.fn)}: a non-array argument is not hashable; pass arrays, or "
                "hashable static values"
            ) from None
        return key, dynamic, layout, nodes

    def program(self, args: tuple, kwargs: dict) -> tuple[_Program, list, tuple]:
        """The rewritten program for these arguments, its array inputs and the NNX graph nodes
        among them (whose state the program returns after its outputs)."""
        key, dynamic, layout, nodes = self.split(args, kwargs)
        program = self.cache.get(key)
        if program is None:
            program = self._build(dynamic, layout)
            self.cache[key] = program
        return program, dynamic, nodes

    def _build(self, dynamic: list, layout) -> _Program:
        treedef, is_dyn, static_args, static_kwargs, static_leaves, graphdef = layout
        outputs = []

        def flat_fn(*dyn):
            dyn_iter, static_iter = iter(dyn), iter(static_leaves)
            leaves = [next(dyn_iter) if d else next(static_iter) for d in is_dyn]
            tree = jax.tree_util.tree_unflatten(treedef, leaves)
            if graphdef is not None:
                tree, state = tree
                tree, nodes = graphs.merge(graphdef, state, tree)
            call_args, call_kwargs = tree
            for i, value in static_args:
                call_args[i] = value
            out = self.fn(*call_args, **call_kwargs, **dict(static_kwargs))
            flat, tree = jax.tree_util.tree_flatten(out)
            is_array = tuple(_is_array_output(x) for x in flat)
            constants = tuple(x for x, d in zip(flat, is_array) if not d)
            results = [x for x, d in zip(flat, is_array) if d]
            state_tree = None
            if graphdef is not None:
                state_leaves, state_tree = jax.tree_util.tree_flatten(
                    graphs.updated_state(graphdef, nodes, _name(self.fn))
                )
                results += state_leaves
            outputs.append(_Outputs(tree, is_array, constants, state_tree))
            return results

        try:
            original, _ = jc.make_jaxpr(flat_fn, *dynamic)
        except TransformError:
            raise
        except Exception as err:  # the user's function failed to trace: its own error, as `jax.jit` raises it
            if hasattr(err, "add_note"):  # Python 3.11+
                err.add_note(f"(raised while autota.transform traced {_name(self.fn)})")
            raise
        ctx = Context(self.enabled)
        body = from_jaxpr(original)
        rewritten, _ = jc.make_jaxpr(lambda *a: evaluate(ctx, body, a), *dynamic)
        findings = tuple(ctx.findings)
        unknown = [f for f in findings if f.code == UNKNOWN_LAYOUT]
        if self.strict and unknown:
            more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
            raise TransformError(f"{_name(self.fn)}: strict: {unknown[0]}{more}")
        return _Program(rewritten, outputs[0], findings)


def _static_arguments(fn: Callable, argnums: tuple, argnames: tuple) -> tuple[tuple, tuple]:
    """``static_argnums`` and ``static_argnames`` completed from each other as ``jax.jit`` does
    it, through ``fn``'s signature: a parameter that may be passed by position or by keyword is
    static however it is passed (``static_argnums=1`` with ``f(x, n=2)``)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # a builtin or a callable without a signature: as given
        return argnums, argnames
    either = inspect.Parameter.POSITIONAL_OR_KEYWORD
    names = [p.name for p in params]
    more_names = tuple(params[i].name for i in argnums if 0 <= i < len(params) and params[i].kind is either)
    more_nums = tuple(names.index(n) for n in argnames if n in names and params[names.index(n)].kind is either)
    return tuple(dict.fromkeys(argnums + more_nums)), tuple(dict.fromkeys(argnames + more_names))


def _name(fn) -> str:
    return getattr(fn, "__qualname__", getattr(fn, "__name__", repr(fn)))


def transform(
    fn: Callable,
    *,
    rules: Iterable[str] | None = None,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
    strict: bool | None = None,
) -> Callable:
    """``fn`` with its loop-accumulation anti-patterns rewritten; computes the same values.

    ``rules`` selects catalogue codes or prefixes (default: AT101, AT201, AT202, AT204; add
    AT203 to rewrite provably write-once read-back buffers, at the price of forward-mode ``jvp``;
    an empty selection rewrites nothing). ``static_argnums``/``static_argnames`` mark arguments kept as
    Python values, as for ``jax.jit`` (each completed from the other through ``fn``'s
    signature); any other non-array leaf is static too. An error ``fn`` raises while it is
    traced is raised as it is, as ``jax.jit`` raises it. Apply ``vmap``
    inside (``transform(jax.vmap(f))``) for AT204 to see the batched select it rewrites.

    Flax NNX modules among the arguments keep the Variable updates ``fn`` makes (see
    :mod:`autota.jaxpr.graphs`); output leaves that are not arrays come back as returned.

    An equation ``transform`` cannot read (a JAX release that moved a primitive's parameters)
    is bound as it was and reported as AT001 by :func:`analyze`; ``strict=True`` (the default
    where ``AUTOTA_STRICT=1``) raises :class:`TransformError` instead.
    """
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)
    if isinstance(static_argnames, str):
        static_argnames = (static_argnames,)
    return _wrap(_Traced(fn, _enabled(rules), static_argnums, static_argnames, strict))


def with_static_argnums(fn: Callable, static_argnums: Sequence[int]) -> Callable:
    """``fn`` as is, or, when it is a ``transform`` result, with ``static_argnums`` also static.

    A caller that jits ``fn`` with static arguments (``measure``, ``compare``) passes them as
    Python values, which ``transform`` would otherwise trace like ``jit`` traces Python numbers.
    """
    traced = getattr(fn, "__autota_traced__", None)
    if traced is None or not static_argnums or set(static_argnums) <= set(traced.static_argnums):
        return fn
    merged = tuple(dict.fromkeys((*traced.static_argnums, *static_argnums)))
    return _wrap(_Traced(traced.fn, traced.enabled, merged, traced.static_argnames, traced.strict))


def _wrap(traced: _Traced) -> Callable:
    fn = traced.fn

    @functools.wraps(fn)
    def transformed(*args, **kwargs):
        program, dynamic, nodes = traced.program(args, kwargs)
        out, state = program.outputs.build(jc.eval_closed(program.jaxpr, dynamic))
        if nodes:
            graphs.write_back(nodes, state)
        return out

    transformed.__autota_traced__ = traced
    return transformed


def analyze(fn: Callable, *args, **kwargs) -> list[LoopFinding]:
    """What ``transform(fn)`` changes for these arguments, and what it leaves alone and why.

    ``fn`` may itself be ``transform(f, ...)`` to carry its rules and static arguments.
    """
    traced = getattr(fn, "__autota_traced__", None)
    if traced is None:
        traced = _Traced(fn, DEFAULT, (), ())
    program, _, _ = traced.program(args, kwargs)
    return list(program.findings)


def explain(fn: Callable, *args, **kwargs) -> str:
    """:func:`analyze` as readable text, one paragraph per finding."""
    findings = analyze(fn, *args, **kwargs)
    if not findings:
        return f"{_name(getattr(fn, '__wrapped__', fn))}: no loop-accumulation patterns found."
    lines = []
    for f in findings:
        lines.append(str(f))
        lines.append(f"    {_rule(f.code).summary}")
    if any(f.code == "AT201" and f.reason and "a cond whose branches" in f.reason for f in findings):
        lines.append(
            "Note: under a vmap with a per-example condition a cond becomes a batched select, which "
            "AT204 narrows when the vmap is inside transform: write transform(jax.vmap(f))."
        )
    return "\n".join(lines)
