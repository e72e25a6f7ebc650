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
JIT_NAMES = frozenset({"pjit", "jit", "closed_call", "core_call", "eval_jaxpr"})
"""Calls read inline. jax 0.12 binds the residual program of ``grad(checkpoint(f))`` as
``eval_jaxpr``, where 0.10 used ``closed_call``."""
SCAN = "scan"
WHILE = "while"
COND = "cond"
WRITES = frozenset({"scatter", "dynamic_update_slice"})
"""The primitives that write a slot of a buffer (``.at[].set``, ``lax.dynamic_update_*``)."""
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
    """``"file.py:12"`` for the user's frame of ``eqn`` (see :func:`user_source`), else ``None``."""
    if _siu is None:
        return None
    try:
        users = user_source(eqn.source_info.traceback)
        if users is not None:
            return users
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


# -- layouts -----------------------------------------------------------------------------------


class UnknownLayout(Exception):
    """A primitive's parameters are not laid out as any JAX release autota knows.

    Raised by the readers below instead of guessing; the interpreter catches it, binds the
    equation as it was and reports it (``AT001``), so a new JAX release is never silently
    mistaken for "nothing to rewrite".
    """

    def __init__(self, primitive: str, detail: str):
        super().__init__(f"{primitive}: {detail}")
        self.primitive = primitive
        self.detail = detail


JAX_VERSION = jax.__version__


def _require(primitive: str, params: dict, *names: str):
    missing = [n for n in names if n not in params]
    if missing:
        raise UnknownLayout(primitive, f"no parameter {', '.join(map(repr, missing))} (has {sorted(params)})")
    return [params[n] for n in names]


# -- loop parameters ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ScanParams:
    body: Any  # closed jaxpr
    num_consts: int
    num_carry: int
    length: int
    reverse: bool
    unroll: Any


def scan_params(params: dict) -> ScanParams:
    """Read a ``scan`` equation's parameters in either layout JAX has used.

    jax <= 0.10 splits the inputs with ``num_consts``/``num_carry``. From 0.11 on they are
    ``ft_in`` (a flat tree ``(consts, carry, xs)``) and ``ft_out`` (``(carry, ys)``), whose
    groups count their leaves with ``len``. Anything else raises :class:`UnknownLayout`.
    """
    body, length = _require(SCAN, params, "jaxpr", "length")
    if "num_consts" in params or "num_carry" in params:
        nconsts, ncarry = (int(v) for v in _require(SCAN, params, "num_consts", "num_carry"))
    elif "ft_in" in params or "ft_out" in params:
        ft_in, ft_out = _require(SCAN, params, "ft_in", "ft_out")
        try:
            consts, carry_in, xs = ft_in.unpack()
            carry_out, ys = ft_out.unpack()
            nconsts, ncarry, nxs, nys = len(consts), len(carry_in), len(xs), len(ys)
        except (AttributeError, TypeError, ValueError) as err:
            raise UnknownLayout(SCAN, f"ft_in/ft_out of type {type(ft_in).__name__} not read ({err})") from None
        if len(carry_out) != ncarry:
            raise UnknownLayout(SCAN, f"ft_in has {ncarry} carries, ft_out {len(carry_out)}")
        inner = open_jaxpr(body)[0]
        if len(inner.invars) != nconsts + ncarry + nxs or len(inner.outvars) != ncarry + nys:
            raise UnknownLayout(SCAN, "ft_in/ft_out do not match the body's inputs and outputs")
    else:
        raise UnknownLayout(SCAN, f"neither num_consts/num_carry nor ft_in/ft_out (has {sorted(params)})")
    unroll = params.get("unroll", 1)
    if isinstance(unroll, (bool, np.bool_)):
        unroll = bool(unroll)
    return ScanParams(body, nconsts, ncarry, int(length), bool(params.get("reverse", False)), unroll)


@dataclass(frozen=True)
class WhileParams:
    cond: Any
    body: Any
    cond_nconsts: int
    body_nconsts: int


def while_params(params: dict) -> WhileParams:
    cond, body, ncc, nbc = _require(WHILE, params, "cond_jaxpr", "body_jaxpr", "cond_nconsts", "body_nconsts")
    return WhileParams(cond, body, int(ncc), int(nbc))


def jit_inner(params: dict):
    """The closed jaxpr a ``jit``/``pjit``/``closed_call`` equation calls, or ``None``."""
    return params.get("jaxpr", params.get("call_jaxpr"))


def cond_branches(params: dict) -> list:
    """The branch jaxprs of a ``cond`` equation."""
    (branches,) = _require(COND, params, "branches")
    return list(branches)


def remat_params(params: dict) -> tuple[Any, dict]:
    """``(jaxpr, checkpoint kwargs)`` of a ``checkpoint`` equation."""
    (jaxpr,) = _require("checkpoint", params, "jaxpr")
    kwargs = {}
    if "prevent_cse" in params:
        kwargs["prevent_cse"] = params["prevent_cse"]
    if params.get("policy") is not None:
        kwargs["policy"] = params["policy"]
    return jaxpr, kwargs


# -- nested jaxprs -----------------------------------------------------------------------------

CUSTOM_RULE_NAMES = frozenset(
    {"custom_jvp_call", "custom_jvp_call_jaxpr", "custom_vjp_call", "custom_vjp_call_jaxpr", "custom_lin"}
)
"""Primitives whose nested programs are tied to differentiation rules written for the original:
they are bound untouched, never rewritten."""


def _is_closed(value) -> bool:
    return _ClosedJaxpr is not None and isinstance(value, _ClosedJaxpr) and hasattr(value, "consts")


def _is_open(value) -> bool:
    return isinstance(value, _core.Jaxpr) and not _is_closed(value)


def nested_jaxprs(params: dict) -> list[tuple[str, int | None, Any]]:
    """``(param, position in a tuple or None, jaxpr)`` for every jaxpr among ``params``.

    This is the generic walk of Equinox's ``_finalise_jaxpr``: loop bodies, ``cond`` branches,
    ``checkpoint`` bodies and parameters JAX has not invented yet are found the same way.
    """
    found = []
    for key, value in params.items():
        if _is_closed(value) or _is_open(value):
            found.append((key, None, value))
        elif isinstance(value, (tuple, list)):
            found.extend((key, i, v) for i, v in enumerate(value) if _is_closed(v) or _is_open(v))
    return found


def with_jaxprs(params: dict, replaced: dict) -> dict:
    """``params`` with ``replaced[(param, position)]`` substituted; all other params kept as they are."""
    new = dict(params)
    for (key, pos), jaxpr in replaced.items():
        if pos is None:
            new[key] = jaxpr
        else:
            items = list(new[key])
            items[pos] = jaxpr
            kind = type(params[key])
            new[key] = kind._make(items) if hasattr(kind, "_make") else kind(items)  # namedtuples too
    return new


def retrace_like(fn, jaxpr):
    """``fn`` traced at ``jaxpr``'s input types, as a jaxpr of the same kind, or ``None``.

    A closed jaxpr may come back with constants (JAX's loops accept closed bodies with
    consts); an open one (``checkpoint`` bodies before jax 0.11) must come back without.
    Returns ``None`` where the retraced program's types differ from the original's.
    """
    inner, _ = open_jaxpr(jaxpr)
    in_avals = [aval_of(v) for v in inner.invars]
    out_avals = [aval_of(v) for v in inner.outvars]
    specs = [jax.ShapeDtypeStruct(a.shape, a.dtype, weak_type=getattr(a, "weak_type", False)) for a in in_avals]
    try:
        new = jax.make_jaxpr(fn)(*specs)
    except Exception:  # noqa: BLE001 - the body needs what only its own trace had (a `shard_map`'s axis names)
        return None
    new_inner, consts = open_jaxpr(new)
    same = [_same_type(aval_of(v), a) for v, a in zip(new_inner.invars, in_avals, strict=True)]
    same += [_same_type(aval_of(v), a) for v, a in zip(new_inner.outvars, out_avals, strict=True)]
    if not all(same):
        return None
    if _is_closed(jaxpr):
        return new
    return new_inner if not consts and not new_inner.constvars else None


def _same_type(a, b) -> bool:
    """Shape, dtype, weak type, and what newer JAX types carry beside them: an explicit sharding,
    the manual axes a value varies over (``vma``), which a retrace from plain shapes loses."""
    def kind(x):
        sharding = getattr(x, "sharding", None)
        spec = getattr(sharding, "spec", None)
        return (tuple(x.shape), x.dtype, getattr(x, "weak_type", False), str(spec) if spec is not None else None,
                getattr(x, "vma", None))
    return kind(a) == kind(b)


# -- write primitives --------------------------------------------------------------------------


@dataclass(frozen=True)
class ScatterSet:
    """A ``scatter`` (set) of one slice: ``operand.at[..., i (axis), ...].set(update)``."""

    axis: int


def single_slot_scatter(params: dict, operand_shape, indices_shape, update_shape) -> ScatterSet | None:
    """The axis a ``scatter`` writes one slot of, when it is ``x.at[..., i, ...].set(u)``."""
    (dnums,) = _require("scatter", params, "dimension_numbers")
    if not all(hasattr(dnums, a) for a in ("inserted_window_dims", "scatter_dims_to_operand_dims", "update_window_dims")):
        raise UnknownLayout("scatter", f"dimension_numbers of type {type(dnums).__name__} not read")
    if params.get("update_jaxpr") is not None:
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


def _extended(dtype) -> bool:
    """A JAX extended dtype (a typed PRNG key's ``key<fry>``), which NumPy cannot interpret."""
    return jax.dtypes.issubdtype(dtype, jax.dtypes.extended)


def is_integer_dtype(dtype) -> bool:
    return not _extended(dtype) and np.issubdtype(np.dtype(dtype), np.integer)


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
    (dim,) = _require("concatenate", params, "dimension")
    return int(dim)


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
    """Evaluate a closed jaxpr on ``args`` by binding its equations. An output that is one of
    the jaxpr's literals comes back as JAX holds it (jax 0.10's ``TypedInt``, ``TypedNdArray``):
    it is put on the device as an array, with its dtype and weak type, as the function that was
    traced returned it."""
    return [
        x if isinstance(x, jax.Array) or is_tracer(x) else jax.device_put(x)
        for x in _core.jaxpr_as_fun(jaxpr)(*args)
    ]


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


def is_weak(atom) -> bool:
    """Whether JAX types ``atom`` weakly (an array made from a Python scalar)."""
    return bool(getattr(aval_of(atom), "weak_type", False))


def dynamic_slice(x, starts, sizes):
    """The slice a ``dynamic_update_slice`` at ``starts`` writes, read as its primitive reads it
    (a start out of range clamped), not as ``lax.dynamic_slice`` does (which first adds the
    dimension to a negative start: the jaxpr's starts are normalised already)."""
    return jax.lax.dynamic_slice_p.bind(x, *starts, slice_sizes=tuple(sizes))


def with_weak_type(x, weak: bool):
    """``x`` typed weakly or strongly, as the equation it stands for typed its result (a
    ``.at[].set`` into a weakly typed buffer leaves it weak, ``dynamic_update_slice`` strong);
    public ``lax`` has no spelling for a weak type."""
    from jax._src.lax import lax as _lax

    if bool(getattr(x, "weak_type", False)) == weak:
        return x
    return _lax._convert_element_type(x, x.dtype, weak_type=weak)


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


# -- added for real programs (issue 14) ---------------------------------------------------------


def scatter_index_depth(params: dict, indices_shape) -> int | None:
    """How many operand axes one index of a ``scatter`` addresses (2 for ``x.at[i, j]``)."""
    dnums = params.get("dimension_numbers")
    if dnums is None:
        return None
    return len(tuple(dnums.scatter_dims_to_operand_dims))


LIBRARIES = ("jax", "jaxlib", "flax", "equinox", "numpyro", "optax", "autota")
"""Packages whose frames are never the user's: a finding points past them."""


def _library_roots() -> tuple[str, ...]:
    import importlib.util
    import os
    import sysconfig

    roots = []
    for name in LIBRARIES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        for loc in (spec.submodule_search_locations or ()) if spec is not None else ():
            roots.append(os.path.realpath(loc) + os.sep)
    for key in ("stdlib", "platstdlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            roots.append(os.path.realpath(path) + os.sep)
    return tuple(roots)


_ROOTS: tuple[str, ...] | None = None
_IS_LIBRARY: dict[str, bool] = {}


def _is_library_file(file_name: str) -> bool:
    global _ROOTS
    known = _IS_LIBRARY.get(file_name)
    if known is None:
        import os

        if _ROOTS is None:
            _ROOTS = _library_roots()
        path = os.path.realpath(file_name) if not file_name.startswith("<") else file_name
        parts = path.replace("\\", "/").split("/")
        known = (
            "site-packages" in parts or "dist-packages" in parts or path.startswith(_ROOTS)
            or file_name.startswith("<frozen")
        )
        _IS_LIBRARY[file_name] = known
    return known


def user_source(traceback) -> str | None:
    """``"file.py:12"`` of the innermost frame outside :data:`LIBRARIES`, the standard library
    and site-packages: the user's line that wrote a buffer or called a loop, even when a library
    (Flax's ``nn.scan``, numpyro's ``fori_collect``) made the loop."""
    frames = getattr(traceback, "frames", None) if traceback is not None else None
    for frame in frames or ():
        if not _is_library_file(frame.file_name):
            return f"{frame.file_name}:{frame.line_num}"
    return None


def is_integer_or_bool(dtype) -> bool:
    return not _extended(dtype) and (np.issubdtype(np.dtype(dtype), np.integer) or np.dtype(dtype) == np.bool_)


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
