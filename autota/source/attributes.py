"""Which attributes a file gives objects other than through a class statement.

The rules take ``x.shape[k]`` for a Python int and a static bound's ``i < n`` for int comparison
unless the file gives objects of its own such an attribute. A class statement is one way
(:meth:`autota.source.scopes.Semantics.defines_attribute`); these are the others, which name
the attribute in a string or a keyword rather than a ``def``:

- ``type("N", (), {"__index__": f})``, ``setattr(N, "__gt__", f)``, ``namedtuple("P", "shape")``,
  ``make_dataclass("P", ["shape"])``, ``SimpleNamespace(**{"shape": v})``: the name as a string;
- ``SimpleNamespace(shape=v)``, ``dict(__gt__=f)`` handed to ``type``: a keyword of a call that
  is not JAX's or NumPy's own (``jnp.zeros(shape=...)`` gives nothing an attribute);
- a string built at run time (``"sha" + "pe"``, ``f"{key}"``: a ``**`` key, an argparse ``dest``,
  a class body's ``locals()[...]``) unless a literal part of it rules the asked names out
  (``f"layer_{i}"``); ``setattr``/``object.__setattr__`` with a computed name, ``vars(o)`` kept rather than handed to a call, ``__dict__``,
  a class's own ``__setattr__``, a ``__getattr__``/``__getattribute__``, ``type`` or a record
  factory given its names at run time: any attribute at all.

An object made in another module is not seen (a known gap the rule docs name)."""

from __future__ import annotations

import re

import libcst as cst

from autota.source import vocabulary

ANY = None
"""What :func:`given` returns where the file may give objects any attribute."""

_FIELD_SPEC = re.compile(r"[\s,]+")


def given(semantics) -> frozenset[str] | None:
    """The attributes of :data:`vocabulary.ASKED_ATTRIBUTES` that the file gives objects by a
    string or a keyword (see the module's doc), or :data:`ANY`. One pass over the file's nodes;
    only the calls spelled like a factory or given such a keyword are resolved."""
    if any(semantics.by_value.get(name) for name in vocabulary.ANY_ATTRIBUTE_NAMES):
        return ANY
    for node in semantics.by_value.get("__setattr__", ()):
        if isinstance(semantics.parents.get(node), cst.FunctionDef):
            return ANY  # a class's own `__setattr__` may store under any name
    for name in _RECORD_FACTORIES | _CODE_RUNNERS:
        for node in semantics.by_value.get(name, ()):
            expr, parent = node, semantics.parents.get(node)
            if isinstance(parent, cst.Attribute) and parent.attr is node:  # `types.SimpleNamespace`
                expr, parent = parent, semantics.parents.get(parent)
            if isinstance(parent, cst.Call) and parent.func is expr:
                if name in _CODE_RUNNERS and semantics.resolved_names(expr) & _CODE_RUNNERS_QUALIFIED:
                    return ANY  # `exec("class P: shape = ...")`: code the file does not spell
            elif name in _RECORD_FACTORIES and _handed_on(semantics, expr, parent):
                return ANY  # `partial(namedtuple, "P")`, `make = SimpleNamespace`: the names come where it is called
    if may_build(semantics, vocabulary.ASKED_ATTRIBUTES) is not None:
        return ANY  # `SimpleNamespace(**{"sha" + "pe": v})`, `locals()["sha" + "pe"] = v` in a class body
    asked = frozenset(vocabulary.ASKED_ATTRIBUTES)
    found: set[str] = set()
    for node in semantics.nodes:
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
            text = _text(node)
            if text in _RECORD_FACTORIES:
                return ANY  # `getattr(collections, "namedtuple")`
            if text is not None and text.startswith("-"):
                text = text.lstrip("-").replace("-", "_")  # argparse's `"--shape"` gives `args.shape`
            if text in asked:
                found.add(text)
            continue
        if not isinstance(node, cst.Call):
            continue
        keywords = {a.keyword.value for a in node.args if a.keyword is not None} & asked
        spelled = _spelled(node.func)
        if spelled == "__setattr__":  # `object.__setattr__(self, "shape", v)`, `self.__setattr__(name, v)`
            positional = [a.value for a in node.args if a.keyword is None and not a.star]
            named = _spec_names(positional[-2], split=False) if len(positional) >= 2 else ANY
            if named is ANY:
                return ANY
            found |= named & asked
            continue
        if not keywords and spelled not in _FACTORY_TERMINALS:
            continue
        names = semantics.resolved_names(node.func)
        if "builtins.vars" in names and node.args and not isinstance(semantics.parents.get(node), cst.Arg):
            return ANY  # `d = vars(o)`, `vars(o).update(...)`: any attribute by a key (not `print(vars(args))`)
        if not names.isdisjoint(vocabulary.ATTRIBUTE_FACTORIES) or not names and spelled in _FACTORY_TERMINALS:
            spelled_names = _factory_names(node, names)
            if spelled_names is ANY:
                return ANY
            found |= spelled_names & asked
        if keywords and not _array_function(names):
            found |= keywords
    return frozenset(found)


_FACTORY_TERMINALS = frozenset(q.rpartition(".")[2] for q in vocabulary.ATTRIBUTE_FACTORIES)
_CODE_RUNNERS_QUALIFIED = frozenset({"builtins.exec", "builtins.eval", "builtins.compile"})
_CODE_RUNNERS = frozenset(q.rpartition(".")[2] for q in _CODE_RUNNERS_QUALIFIED)


_RECORD_FACTORIES = frozenset({"namedtuple", "NamedTuple", "make_dataclass", "SimpleNamespace", "Namespace", "new_class"})


def _handed_on(semantics, expr: cst.BaseExpression, parent: cst.CSTNode | None) -> bool:
    """Whether a record factory is handed to a call or bound to another name, to be called
    elsewhere with names this file does not spell (not an ``isinstance`` test, not a base)."""
    if isinstance(parent, cst.Arg) and parent.value is expr:
        call = semantics.parents.get(parent)
        return isinstance(call, cst.Call) and not semantics.resolved_names(call.func) & {"builtins.isinstance", "builtins.issubclass"}
    return isinstance(parent, cst.Assign) and parent.value is expr


def _spelled(func: cst.BaseExpression) -> str | None:
    return func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None


def _array_function(names: set[str]) -> bool:
    """Whether the callee is one of JAX's or NumPy's array functions, whose keywords are options
    (not ``jax.tree_util.Partial``, which hands them on)."""
    return bool(names) and all(q.startswith(vocabulary.ARRAY_NAMESPACES) for q in names)


def _text(node: cst.BaseExpression) -> str | None:
    """The value of a string literal (``"x"``, ``"sha" "pe"``), else ``None`` (bytes, f-strings)."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _factory_names(call: cst.Call, names: set[str]) -> frozenset[str] | None:
    """The attribute names a call of a factory (``setattr``, ``type``, a record factory) spells,
    or :data:`ANY` where one is computed (a name, an f-string, ``**`` of a mapping)."""
    if any(a.star for a in call.args):
        return ANY
    positional = [a.value for a in call.args if a.keyword is None]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    terminal = next(iter(sorted(names)), None) or _spelled(call.func) or ""
    terminal = terminal.rpartition(".")[2]
    if terminal == "setattr":
        spec = positional[1] if len(positional) > 1 else None
        return frozenset() if spec is None else _spec_names(spec, split=False)
    if terminal == "type":
        if len(positional) < 3:
            return frozenset()  # `type(x)`: the object's class
        return _spec_names(positional[2], split=False)
    if terminal == "new_class":
        return ANY  # `types.new_class(name, bases, kwds, exec_body)`: the body fills the namespace
    if terminal in ("namedtuple", "NamedTuple", "make_dataclass"):
        spec = positional[1] if len(positional) > 1 else keywords.get("field_names", keywords.get("fields"))
        if spec is None:
            return frozenset(keywords) if terminal == "NamedTuple" else frozenset()
        return _spec_names(spec, split=terminal == "namedtuple")
    return frozenset()  # `SimpleNamespace(shape=v)`, `dict(...)`: its keywords are counted as keywords


def _spec_names(spec: cst.BaseExpression, split: bool) -> frozenset[str] | None:
    """The names a field spec spells: a string (``"x shape"`` for ``namedtuple``), a list or
    tuple of strings or of ``(name, type)`` pairs, a dict of string keys; else :data:`ANY`."""
    text = _text(spec)
    if text is not None:
        return frozenset(_FIELD_SPEC.split(text.strip()) if split else [text])
    if not split and not _may_spell(spec):
        return frozenset()  # `f"layer_{i}"`, `"w" + str(k)`: no name the rules ask about
    if isinstance(spec, (cst.List, cst.Tuple)):
        found: set[str] = set()
        for element in spec.elements:
            value = element.value
            if isinstance(element, cst.StarredElement):
                return ANY
            if isinstance(value, (cst.Tuple, cst.List)) and value.elements:
                value = value.elements[0].value  # `("shape", jax.Array)`
            text = _text(value)
            if text is None:
                return ANY
            found.add(text)
        return frozenset(found)
    if isinstance(spec, cst.Dict):
        found = set()
        for element in spec.elements:
            text = _text(element.key) if isinstance(element, cst.DictElement) else None
            if text is None:
                return ANY  # `**other`, a computed key
            found.add(text)
        return frozenset(found)
    return ANY


def _may_spell(expr: cst.BaseExpression, names=vocabulary.ASKED_ATTRIBUTES) -> bool:
    """Whether a name computed at run time may be one of ``names``: not where a literal part of
    it (``layer_`` of ``f"layer_{i}"`` or of ``"layer_" + str(i)``) is in none of them."""
    literals = []
    if isinstance(expr, cst.FormattedString):
        literals = [part.value for part in expr.parts if isinstance(part, cst.FormattedStringText)]
    elif isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        work = [expr]
        while work:
            node = work.pop()
            if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
                work += [node.left, node.right]
            elif _text(node) is not None:
                literals.append(_text(node))
    return may_spell_from(literals, names)


def may_spell_from(literals: list[str], names) -> bool:
    """Whether a string built from ``literals`` and parts computed at run time may be one of
    ``names``: no literal part is in none of them."""
    return not any(text and all(text not in name for name in names) for text in literals)


def built_string(node: cst.CSTNode) -> bool:
    """Whether ``node`` builds a string at run time: an f-string, or ``+`` with a string literal."""
    if isinstance(node, cst.FormattedString):
        return True
    return isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add) and (
        _text(node.left) is not None or _text(node.right) is not None
    )


def may_build(semantics, names) -> cst.CSTNode | None:
    """The first string the file builds at run time that may spell one of ``names``
    (``"sha" + "pe"``, ``f"{key}"``): a key, an option's ``dest``, a field or an attribute that no
    literal names. The file's built strings are found once (asked for each bound a rule judges)."""
    if semantics.built_strings is None:
        semantics.built_strings = [
            node for node in semantics.nodes if built_string(node) and not built_string(semantics.parents.get(node))
            and not any(isinstance(a, cst.Annotation) for a in semantics.ancestors(node))  # `Float[Array, f"{n}"]`
        ]
    return next((node for node in semantics.built_strings if _may_spell(node, names)), None)
