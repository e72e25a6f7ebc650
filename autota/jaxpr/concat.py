"""AT101: a chain of ``concatenate`` equations, each extending the last, becomes one.

An unrolled Python loop that grows an array with ``jnp.concatenate`` copies everything written
so far at every step: O(T^2) bytes moved. When an intermediate result is used only by the next
``concatenate`` along the same axis, its pieces can be spliced into that one; the values are
identical, element for element.
"""

from __future__ import annotations

from autota.jaxpr import jaxcompat as jc
from autota.jaxpr.findings import LoopFinding
from autota.jaxpr.interpreter import Context, prepass
from autota.jaxpr.ir import Body, Eqn, Var


@prepass
def merge_concatenations(ctx: Context, body: Body, eqns: list) -> list:
    if "AT101" not in ctx.enabled:
        return eqns
    merged: dict[Var, tuple] = {}  # result of a concatenate -> (its pieces, dimension, links)
    absorbed: set = set()
    result = []
    for eqn in eqns:
        if eqn.name != "concatenate" or eqn.outs[0] is None:
            result.append(eqn)
            continue
        dim = jc.concat_dimension(eqn.params)
        pieces, links = [], 1
        for atom in eqn.ins:
            inner = merged.get(atom) if isinstance(atom, Var) else None
            if inner is not None and inner[1] == dim and body.uses[atom] == 1:
                pieces.extend(inner[0])
                links += inner[2]
                absorbed.add(atom)
            else:
                pieces.append(atom)
        merged[eqn.outs[0]] = (tuple(pieces), dim, links)
        result.append(Eqn(eqn.name, eqn.primitive, eqn.params, tuple(pieces), eqn.outs, eqn.source, eqn.info)
                      if links > 1 else eqn)
    final = [e for e in result if not (e.name == "concatenate" and e.outs[0] in absorbed)]
    for e in final:
        if e.name == "concatenate" and e.outs[0] is not None and e.outs[0] not in absorbed:
            links = merged[e.outs[0]][2]
            if links > 1:
                ctx.record(
                    (id(e), "AT101"),
                    LoopFinding(
                        "AT101", f"{links} concatenations grow one array; merged into one",
                        True, None, e.source, e.outs[0].shape, "O(T^2)", "O(T)",
                    ),
                )
    return final
