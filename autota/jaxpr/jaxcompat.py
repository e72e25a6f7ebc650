"""The one place that reads JAX internals.

Everything else in :mod:`autota.jaxpr` works on the small IR of :mod:`autota.jaxpr.ir`
and calls the helpers here to read a jaxpr, to read an equation's parameters and to bind a
primitive. JAX moves these names between releases (``jax.core`` -> ``jax.extend.core``,
``ClosedJaxpr`` becoming an alias of ``Jaxpr``, ``scan``'s ``num_consts``/``num_carry`` becoming
``ft_in``/``ft_out``), so each lookup is written defensively and kept together: a new JAX release
should mean editing this module only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import jax
import numpy as np

try:  # jax >= 0.4.30 exposes the stable names here.
    import jax.extend.core as _core
except ImportError:  # pragma: no cover
    import jax.core as _core

try:
    from jax._src import source_info_util as _siu
except ImportError:  # pragma: no cover
    _siu = None

_Literal = getattr(_core, "Literal")
_ClosedJaxpr = getattr(_core, "ClosedJaxpr", None)
_DropVar = getattr(_core, "DropVar", None)

# Primitive names. Tests of primitive identity go through names, which survive renames of the
# Python objects better than identity does.
JIT_NAMES = frozenset({"pjit", "jit", "closed_call", "core_call"})
SCAN = "scan"
WHILE = "while"
COND = "cond"
REMAT_NAMES = frozenset({"checkpoint", "remat", "remat2"})
CUSTOM_JVP_NAMES = frozenset({"custom_jvp_call", "custom_jvp_call_jaxpr"})


def make_jaxpr(fun, *args):
    """``jax.make_jaxpr(fun, return_shape=True)``: the closed jaxpr and the output shapes."""
    return jax.make_jaxpr(fun, return_shape=True)(*args)


def open_jaxpr(jaxpr) -> tuple[Any, list]:
    """``(jaxpr, consts)`` of a closed or open jaxpr (``ClosedJaxpr`` may alias ``Jaxpr``)."""
    inner = getattr(jaxpr, "jaxpr", None)
    if inner is not None and inner is not jaxpr and hasattr(inner, "eqns"):
        return inner, list(getattr(jaxpr, "consts", ()))
    return jaxpr, list(getattr(jaxpr, "consts", ()))


def jaxpr_parts(jaxpr):
    """``(constvars, invars, eqns, outvars)`` of an open jaxpr."""
    return list(jaxpr.constvars), list(jaxpr.invars), list(jaxpr.eqns), list(jaxpr.outvars)


def is_literal(atom) -> bool:
    return isinstance(atom, _Literal)


def is_dropvar(var) -> bool:
    return _DropVar is not None and isinstance(var, _DropVar)


def literal_value(atom):
    return atom.val


def aval_of(atom):
    return atom.aval


def eqn_name(eqn) -> str:
    return eqn.primitive.name


def eqn_primitive(eqn):
    return eqn.primitive


def eqn_params(eqn) -> dict:
    return dict(eqn.params)


def eqn_io(eqn) -> tuple[list, list]:
    return list(eqn.invars), list(eqn.outvars)


def eqn_source(eqn) -> str | None:
    """``"file.py:12"`` for the user frame JAX recorded for ``eqn``, else ``None``."""
    if _siu is None:
        return None
    try:
        frame = _siu.user_frame(eqn.source_info.traceback)
    except Exception:  # source info is best effort: never fail a rewrite over it
        return None
    if frame is None:
        return None
    return f"{frame.file_name}:{frame.start_line}"


def bind(primitive, params: dict, invals: Sequence[Any]) -> list:
    """Apply ``primitive`` as ``jax.core.eval_jaxpr`` does; always returns a list."""
    get_bind_params = getattr(primitive, "get_bind_params", None)
    bound = get_bind_params(params) if get_bind_params is not None else params
    if isinstance(bound, tuple):  # jax < 0.5 returns (subfuns, params)
        subfuns, bind_params = bound
    else:
        subfuns, bind_params = [], bound
    out = primitive.bind(*subfuns, *invals, **bind_params)
    return list(out) if primitive.multiple_results else [out]


# -- loop parameters ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ScanParams:
    body: Any  # closed jaxpr
    num_consts: int
    num_carry: int
    length: int
    reverse: bool
    unroll: Any


def scan_params(params: dict) -> ScanParams | None:
    """Read a ``scan`` equation's parameters, or ``None`` when their layout is unknown.

    jax <= 0.10 names the split of the inputs ``num_consts``/``num_carry``; later releases
    call them ``ft_in``/``ft_out`` (and may give tuples). Anything else means "leave it alone".
    """
    body = params.get("jaxpr")
    length = params.get("length")
    nconsts = _count(params.get("num_consts", params.get("ft_in")))
    ncarry = _count(params.get("num_carry", params.get("ft_out")))
    if body is None or length is None or nconsts is None or ncarry is None:
        return None
    unroll = params.get("unroll", 1)
    if isinstance(unroll, (bool, np.bool_)):
        unroll = bool(unroll)
    return ScanParams(body, nconsts, ncarry, int(length), bool(params.get("reverse", False)), unroll)


def _count(value) -> int | None:
    if value is None:
        return None
    if isinstance(value, (tuple, list)):
        return len(value)
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True)
class WhileParams:
    cond: Any
    body: Any
    cond_nconsts: int
    body_nconsts: int


def while_params(params: dict) -> WhileParams | None:
    try:
        return WhileParams(
            params["cond_jaxpr"],
            params["body_jaxpr"],
            int(params["cond_nconsts"]),
            int(params["body_nconsts"]),
        )
    except (KeyError, TypeError, ValueError):
        return None


def cond_branches(params: dict) -> list | None:
    branches = params.get("branches")
    return list(branches) if branches is not None else None


def jit_inner(params: dict):
    """The closed jaxpr a ``jit``/``pjit``/``closed_call`` equation calls."""
    return params.get("jaxpr", params.get("call_jaxpr"))


def remat_params(params: dict) -> tuple[Any, dict] | None:
    """``(jaxpr, checkpoint kwargs)`` of a ``checkpoint`` equation."""
    jaxpr = params.get("jaxpr")
    if jaxpr is None:
        return None
    kwargs = {}
    if "prevent_cse" in params:
        kwargs["prevent_cse"] = params["prevent_cse"]
    if params.get("policy") is not None:
        kwargs["policy"] = params["policy"]
    return jaxpr, kwargs


# -- write primitives --------------------------------------------------------------------------


@dataclass(frozen=True)
class ScatterSet:
    """A ``scatter`` (set) of one slice: ``operand.at[..., i (axis), ...].set(update)``."""

    axis: int


def single_slot_scatter(params: dict, operand_shape, indices_shape, update_shape) -> ScatterSet | None:
    """The axis a ``scatter`` writes one slot of, when it is ``x.at[..., i, ...].set(u)``."""
    dnums = params.get("dimension_numbers")
    if dnums is None or params.get("update_jaxpr") is not None:
        return None
    if tuple(getattr(dnums, "operand_batching_dims", ())) or tuple(
        getattr(dnums, "scatter_indices_batching_dims", ())
    ):
        return None
    inserted = tuple(int(d) for d in dnums.inserted_window_dims)
    to_operand = tuple(int(d) for d in dnums.scatter_dims_to_operand_dims)
    window = tuple(int(d) for d in dnums.update_window_dims)
    rank = len(operand_shape)
    if tuple(indices_shape) != (1,) or len(inserted) != 1 or to_operand != inserted:
        return None
    axis = inserted[0]
    expected = tuple(s for d, s in enumerate(operand_shape) if d != axis)
    if window != tuple(range(rank - 1)) or tuple(update_shape) != expected:
        return None
    return ScatterSet(axis)


def is_integer_dtype(dtype) -> bool:
    return np.issubdtype(np.dtype(dtype), np.integer)


def is_inexact_dtype(dtype) -> bool:
    """Floating or complex: the dtypes that carry (non-``float0``) cotangents."""
    import jax.numpy as jnp

    return bool(jnp.issubdtype(dtype, jnp.inexact))


def has_effects(jaxpr) -> bool:
    """Whether ``jaxpr`` declares side effects (callbacks, prints, ordered I/O)."""
    inner, _ = open_jaxpr(jaxpr)
    return bool(getattr(inner, "effects", None) or getattr(jaxpr, "effects", None))


def iota_params(params: dict) -> tuple[int, tuple] | None:
    """``(dimension, shape)`` of an ``iota`` equation."""
    try:
        return int(params["dimension"]), tuple(params["shape"])
    except (KeyError, TypeError):
        return None


def concat_dimension(params: dict) -> int:
    return int(params["dimension"])


def broadcast_shape(params: dict) -> tuple:
    return tuple(params.get("shape", ()))


def convert_dtype(params: dict):
    return params.get("new_dtype")


# -- values ------------------------------------------------------------------------------------


def is_tracer(x) -> bool:
    return isinstance(x, jax.core.Tracer)


def abstract(x):
    """The abstract value (shape, dtype, weak type) JAX would trace ``x`` at."""
    typeof = getattr(jax, "typeof", None)
    if typeof is not None:
        return typeof(x)
    return jax.core.get_aval(x)  # pragma: no cover


def eval_closed(jaxpr, args) -> list:
    """Evaluate a closed jaxpr on ``args`` by binding its equations."""
    return list(_core.jaxpr_as_fun(jaxpr)(*args))


def scatter_to_gather(params: dict, operand, indices, update_shape):
    """Read ``operand`` where the ``scatter`` with ``params`` writes: a result of ``update_shape``.

    Built from the scatter's dimension numbers the way its transpose rule reads cotangents:
    window dims become offset dims, inserted dims collapsed dims.
    """
    from jax import lax

    dnums = params["dimension_numbers"]
    inserted = tuple(int(d) for d in dnums.inserted_window_dims)
    batching = tuple(int(d) for d in getattr(dnums, "operand_batching_dims", ()))
    window = [int(d) for d in dnums.update_window_dims]
    sizes, pos = [], 0
    for d in range(np.ndim(operand)):
        if d in inserted or d in batching:
            sizes.append(1)
        else:
            sizes.append(int(update_shape[window[pos]]))
            pos += 1
    gdnums = lax.GatherDimensionNumbers(
        offset_dims=tuple(window),
        collapsed_slice_dims=inserted,
        start_index_map=tuple(int(d) for d in dnums.scatter_dims_to_operand_dims),
        operand_batching_dims=batching,
        start_indices_batching_dims=tuple(int(d) for d in getattr(dnums, "scatter_indices_batching_dims", ())),
    )
    return lax.gather(
        operand, indices, gdnums, tuple(sizes),
        mode=params.get("mode"), unique_indices=bool(params.get("unique_indices", False)),
        indices_are_sorted=bool(params.get("indices_are_sorted", False)),
    )


def scatter_is_unique_set(params: dict) -> bool:
    """A plain ``scatter`` (set) whose indices JAX knows to be unique."""
    return params.get("update_jaxpr") is None and bool(params.get("unique_indices", False))


def widening_is_exact(narrow, wide) -> bool:
    """Whether every ``narrow`` value converts to ``wide`` and back unchanged."""
    import jax.numpy as jnp

    narrow, wide = np.dtype(narrow), np.dtype(wide)
    same_kind = jnp.issubdtype(narrow, jnp.floating) == jnp.issubdtype(wide, jnp.floating)
    return same_kind and jnp.promote_types(narrow, wide) == wide


def count_equations(jaxpr) -> int:
    """Equations of an open jaxpr, counting those inside loops, conditionals and nested calls."""
    subs = getattr(_core, "jaxprs_in_params")
    return sum(1 + sum(count_equations(sub) for sub in subs(eqn.params)) for eqn in jaxpr.eqns)


# ==============================================================================================
# -- residuals: what reverse mode saves (used by autota.proof.residuals) ------------------------
# ==============================================================================================
# Kept apart from the helpers above so that the two can change independently.


def source_info(eqn):
    """The raw source information JAX recorded for ``eqn`` (traceback and name stack)."""
    return getattr(eqn, "source_info", None)


def at_source(info):
    """A context in which equations bound get ``info`` as their source, as
    ``jax.core.eval_jaxpr`` does when it re-binds a program: a rewritten program then keeps
    the user's source lines instead of pointing into autota."""
    import contextlib

    traceback = getattr(info, "traceback", None)
    if _siu is None or traceback is None:
        return contextlib.nullcontext()
    return _siu.user_context(traceback)


def vjp_forward(fun, *args):
    """The forward pass of ``jax.vjp(fun, *args)`` as ``(closed jaxpr, n_outputs, n_residuals)``.

    The jaxpr's outputs are ``fun``'s flat outputs followed by the residuals the pullback
    closes over (the leaves of the ``Partial`` that ``jax.vjp`` returns), which is how
    ``jax.ad_checkpoint.saved_residuals`` reads them too.
    """
    closed, shapes = jax.make_jaxpr(lambda *a: jax.vjp(fun, *a), return_shape=True)(*args)
    n_out = len(jax.tree_util.tree_leaves(shapes[0]))
    n_res = len(jax.tree_util.tree_leaves(shapes[1]))
    return closed, n_out, n_res


@dataclass(frozen=True)
class ScanLayout:
    """How a ``scan`` equation's operands and results split: ``consts, carry, xs`` in,
    ``carry, ys`` out."""

    body: Any  # closed jaxpr
    num_consts: int
    num_carry: int
    length: int


def scan_layout(params: dict) -> ScanLayout | None:
    """A ``scan``'s layout on jax <= 0.10 (``num_consts``/``num_carry``) and on later releases
    (``ft_in``/``ft_out`` flat trees whose ``unpack()`` gives ``consts, carry, xs`` and
    ``carry, ys``, each of ``len`` its leaf count); ``None`` when neither is there."""
    body, length = params.get("jaxpr"), params.get("length")
    if body is None or length is None:
        return None
    if "num_consts" in params and "num_carry" in params:
        return ScanLayout(body, int(params["num_consts"]), int(params["num_carry"]), int(length))
    ft_in = params.get("ft_in")
    if ft_in is not None and hasattr(ft_in, "unpack"):
        try:
            consts, carry, _ = ft_in.unpack()
            return ScanLayout(body, len(consts), len(carry), int(length))
        except (TypeError, ValueError):
            return None
    return None


_CALL_PARAMS = ("jaxpr", "call_jaxpr", "fun_jaxpr")


def call_body(name: str, params: dict):
    """The closed jaxpr a call-like equation runs, whose outputs are the equation's outputs
    (``jit``, ``closed_call``, ``custom_jvp_call``, ``custom_vjp_call``, ``checkpoint``);
    ``None`` for anything else."""
    if name in (SCAN, WHILE, COND):
        return None
    if not (name in JIT_NAMES or name in REMAT_NAMES or name.startswith("custom_")):
        return None
    for key in _CALL_PARAMS:
        sub = params.get(key)
        if sub is not None and hasattr(open_jaxpr(sub)[0], "eqns"):
            return sub
    return None
