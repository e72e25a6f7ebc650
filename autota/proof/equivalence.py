"""``verify``: do two functions compute the same thing on the same inputs, values and gradients?

A rewrite is only worth making if its user can check it. ``verify`` runs both functions,
compares every output leaf (pytree structure, shape, dtype, values within ``rtol``/``atol``)
and, with ``grad=True``, the gradients of a weighted sum of the outputs with respect to every
float argument leaf. The :class:`Report` names the worst leaf so a failure says where to look.

The first function is the reference: if it raises, that is the caller's problem and the error
propagates. If the second raises, the rewrite is wrong and the report fails.

Tolerance. A correct rewrite may sum the same terms in another order (a scan rebuilt, a
gradient accumulated by a custom VJP), and in float32 a sum of N terms reordered moves by
about ``eps * sqrt(N)`` of the terms' size, which can be a large part of a leaf entry that
cancels to nearly zero. So, as JAX's ``check_grads`` scales its tolerance with the array size
and the dtype, an element ``a`` of ``g`` passes against ``b`` of ``f`` when

    |a - b| <= atol + rtol * |b| + min(eps(dtype) * sqrt(N), 1e-4) * max|b over the leaf|

where ``eps`` is the dtype's machine epsilon and N the number of terms the leaf can sum: the
leaf's size for an output, the number of float output elements reduced (or the leaf's size,
if larger) for a gradient. The third term never exceeds 1e-4 of the leaf's largest entry, so
in float32 and float64 a 0.1% change of an output or a gradient still fails;
``reordered_sums=False`` drops it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from autota.proof import gradients
from autota.proof.errors import one_line


@dataclass(frozen=True)
class LeafDiff:
    """How one output (or gradient) leaf of ``g`` differs from that of ``f``.

    ``score`` is the largest ``|a - b| / (atol + rtol * |b|)``: above 1 the leaf fails; it ranks
    leaves so the report can name the worst one.
    """

    name: str
    max_abs: float
    max_rel: float
    score: float
    ok: bool
    why: str = ""

    def __str__(self) -> str:
        if self.why:
            return f"{self.name}: {self.why}"
        return f"{self.name}: max abs {self.max_abs:.3g}, max rel {self.max_rel:.3g}"


@dataclass(frozen=True)
class Report:
    """The outcome of :func:`verify`. Truthy when it passed, so ``assert verify(f, g, x)`` reads."""

    passed: bool
    leaves: tuple[LeafDiff, ...]
    reason: str
    rtol: float
    atol: float
    grad_checked: bool
    reordered_sums: bool = True

    @property
    def worst(self) -> LeafDiff | None:
        """The failing leaf that fails worst, or the closest to failing when all pass."""
        return max(self.leaves, key=lambda d: (not d.ok, d.score), default=None)

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        n_grad = sum(d.name.startswith("grad ") for d in self.leaves)
        what = f"{len(self.leaves) - n_grad} output leaves"
        what += f", {n_grad} gradient leaves" if self.grad_checked else ", gradients not checked"
        sums = ", + reordered sums" if self.reordered_sums else ""
        head = f"{'PASS' if self.passed else 'FAIL'}: {what} (rtol={self.rtol:g}, atol={self.atol:g}{sums})"
        lines = [head]
        if self.reason:
            lines.append(f"  {self.reason}")
        if self.worst is not None:
            lines.append(f"  worst: {self.worst}")
        return "\n".join(lines)


def verify(
    f: Callable,
    *args: Any,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    grad: bool = True,
    grad_argnums: Sequence[int] | None = None,
    static_argnums: Sequence[int] = (),
    reordered_sums: bool = True,
) -> Report:
    """Compare ``f(*args)`` with ``g(*args)``: ``verify(f, g, *args)``.

    ``verify(f, *args)`` (no second callable) compares ``f`` with ``autota.transform(f)``; a
    callable in second position is always taken as ``g``. ``grad_argnums`` limits the
    gradient check to those arguments (default: every non-static argument; only their float
    leaves are differentiated). ``static_argnums`` are passed to ``autota.transform`` and are
    never differentiated. ``reordered_sums`` allows for sums computed in another order (see
    the module docstring for the exact tolerance).
    """
    if args and callable(args[0]) and not hasattr(args[0], "shape"):
        g, args = args[0], args[1:]
    else:
        g = _transformed(f, static_argnums)

    out_f = f(*args)
    try:
        out_g = g(*args)
    except Exception as err:  # the rewrite failed where the reference ran: a failed check
        return _failed(f"g raised {one_line(err)}", rtol, atol, grad)
    leaves, reason = _compare_trees("out", out_f, out_g, rtol, atol, reordered_sums)

    argnums = gradients.selected_argnums(args, grad_argnums, static_argnums)
    grad_checked = grad and gradients.has_float_leaves(args, argnums)
    if grad_checked and not reason:
        names = gradients.float_leaf_names(args, argnums)
        grads_f = gradients.grad_fn(f, argnums, weighted=True)(*args)
        try:
            grads_g = gradients.grad_fn(g, argnums, weighted=True)(*args)
        except Exception as err:
            return _failed(f"gradient of g raised {one_line(err)}", rtol, atol, grad_checked, leaves)
        reduced = _float_size(out_f) if reordered_sums else 0
        leaves += tuple(
            _compare_leaf(f"grad {name}", a, b, rtol, atol, max(reduced, np.size(b)) if reordered_sums else 0)
            for name, a, b in zip(names, grads_f, grads_g)
        )
    if not reason and not all(d.ok for d in leaves):
        bad = [d for d in leaves if not d.ok]
        reason = f"{len(bad)} of {len(leaves)} leaves differ"
    return Report(not reason, leaves, reason, rtol, atol, grad_checked, reordered_sums)


def _float_size(tree: Any) -> int:
    """How many float output elements the gradient check reduces to one scalar."""
    return sum(int(np.size(x)) for x in jax.tree_util.tree_leaves(tree) if gradients.is_float_leaf(x))


def _transformed(f: Callable, static_argnums: Sequence[int]) -> Callable:
    from autota.jaxpr import transform

    return transform(f, static_argnums=tuple(static_argnums))


def _failed(reason: str, rtol: float, atol: float, grad: bool, leaves: tuple = ()) -> Report:
    return Report(False, leaves, reason, rtol, atol, grad)


def _compare_trees(
    prefix: str, a: Any, b: Any, rtol: float, atol: float, reordered_sums: bool = False
) -> tuple[tuple[LeafDiff, ...], str]:
    """Leaf-by-leaf differences, or a reason when the pytree structures differ."""
    flat_a, tree_a = jax.tree_util.tree_flatten_with_path(a)
    flat_b, tree_b = jax.tree_util.tree_flatten(b)
    if tree_a != tree_b:
        return (), f"output structure differs: {tree_a} vs {tree_b}"
    diffs = tuple(
        _compare_leaf(f"{prefix}{jax.tree_util.keystr(path)}", la, lb, rtol, atol, np.size(lb) if reordered_sums else 0)
        for (path, la), lb in zip(flat_a, flat_b)
    )
    return diffs, ""


REORDER_CAP = 1e-4
"""The most the reordered-sums allowance adds, relative to a leaf's largest entry."""


def reorder_allowance(dtype, terms: int) -> float:
    """``min(eps(dtype) * sqrt(terms), REORDER_CAP)``: how far reordering ``terms`` summands can
    move a result, relative to the size of the leaf (0 for exact dtypes or ``terms <= 1``)."""
    if terms <= 1 or not jnp.issubdtype(dtype, jnp.inexact):
        return 0.0
    eps = float(jnp.finfo(dtype).eps)
    return min(eps * float(np.sqrt(terms)), max(REORDER_CAP, 8 * eps))


def _compare_leaf(name: str, a: Any, b: Any, rtol: float, atol: float, terms: int = 0) -> LeafDiff:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return LeafDiff(name, np.inf, np.inf, np.inf, False, f"shape {a.shape} vs {b.shape}")
    if a.dtype != b.dtype:
        return LeafDiff(name, np.inf, np.inf, np.inf, False, f"dtype {a.dtype} vs {b.dtype}")
    if a.size == 0:
        return LeafDiff(name, 0.0, 0.0, 0.0, True)
    if not (np.issubdtype(a.dtype, np.number) or a.dtype == np.bool_):
        ok = bool(np.all(a == b))
        return LeafDiff(name, 0.0 if ok else np.inf, 0.0 if ok else np.inf, 0.0 if ok else np.inf, ok)
    exact = not np.issubdtype(a.dtype, np.inexact)
    a64 = a.astype(np.complex128 if np.iscomplexobj(a) else np.float64)
    b64 = b.astype(a64.dtype)
    same = (a64 == b64) | (np.isnan(a64) & np.isnan(b64))  # equal, equal infinities, or both NaN
    mag = np.abs(b64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        diff = np.where(same, 0.0, np.abs(a64 - b64))
        diff = np.where(np.isnan(diff), np.inf, diff)  # NaN on one side only, or inf vs -inf
        rel = np.where((diff == 0) | (mag == 0), 0.0, diff / mag)  # where b is 0, only abs counts
        finite = np.where(np.isfinite(mag), mag, 0.0)
        scale = reorder_allowance(b.dtype, terms) * float(np.max(finite))
        tol = 0.0 if exact else atol + rtol * finite + scale
        score = np.where(diff == 0, 0.0, diff / tol)
    worst = float(np.max(score))
    return LeafDiff(name, float(np.max(diff)), float(np.max(rel)), worst, worst <= 1.0)
