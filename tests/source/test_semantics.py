"""The file model the rules share (:class:`autota.source.scopes.Semantics`) answers what libcst's
own providers and walks answer: its parents, source order, positions and tree queries are read
from the nodes' fields and one node list, for speed, and must not differ anywhere."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import (
    ExpressionContext,
    ExpressionContextProvider,
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    QualifiedNameProvider,
    ScopeProvider,
)

from autota.source import scopes

ROOT = Path(__file__).parents[2]

EVERY_SHAPE = '''\
import a.b as c, d
from .e import (f as g, h)
# a comment before the first def

@dec(x=1)
@other
async def fn(p, /, q: int = r, *args: s, t=u, **kw: v) -> w:
    global gg
    async with aa as (bb, cc), dd:
        pass
    async for ee in ff:
        await gg
    try:
        yield hh
    except (ii, jj) as kk:
        raise ll from mm
    else:
        oo
    finally:
        pp
    match qq:
        case [rr, *ss] if (tt := rr):  # the guard comes before the body (review 66)
            tt
        case {"k": uu, **vv}:
            pass
        case ww(xx, yy=zz) | aaa as bbb:
            pass
    del ccc, ddd[eee]
    assert fff, ggg
    hhh: iii = jjj
    kkk += lll
    mmm = [nnn for ooo in ppp if qqq for rrr in sss]
    ttt = {uuu: vvv for www in xxx}
    yyy = (zzz := a1) if b1 else c1
    d1 = lambda e1, *f1, g1=h1, **i1: j1
    k1 = f"{l1!r:{m1}} {n1}"
    o1 = p1[q1:r1:s1, t1]
    u1 = not v1 and w1 or x1
    y1 = z1 < a2 <= b2 is not c2
    print(*d2, e2=f2, **g2)
    return (yield from h2)


class K(base, metaclass=M, **kw2):
    x: int

    def m(self): ...

    # a comment between methods
    @staticmethod
    def n(a="""
text""", b=(1,
              2)):
        s = """two
  lines"""; t = s
        def inner(c):
            class Deep:
                def d(self):
                    return c  # deepest
            return Deep
        return inner

    class Nested:
        y = 1; z = (
    2)

        async def o(self):
            pass
    u = 3


def outer(v):
    if v:
        w = v

    def nested_after_if():
        return w
    return nested_after_if


type T[U] = list[U]


def gen[V: int, *W, **X](a: V) -> W: ...


try:
    pass
except* (q9, r9) as s9:
    t9
x = 1; y = (
    2,  # inside
)
(p3, [q3, *r3], s3.t3, u3[v3]) = w3 = x3
for y3.z3, a4[b4] in c4:
    d4[(e4 := 1)] = {f4 for g4, h4 in i4}
'''


def _sources():
    files = [
        *sorted(ROOT.joinpath("tests", "source", "fixtures").glob("*/*.in.py")),
        *sorted(ROOT.joinpath("corpus").glob("**/before.py")),
    ]
    # Without the grammar of Python 3.12 (`type`, generic `def`), which Python 3.11's own parser
    # refuses: positions then take the way through Python's AST there too.
    older = "".join(line for line in EVERY_SHAPE.splitlines(keepends=True) if not line.startswith(("type ", "def gen[")))
    return [pytest.param(EVERY_SHAPE, id="every-shape"), pytest.param(older, id="every-shape-3.11")] + [
        pytest.param(p.read_text(), id=str(p.relative_to(ROOT))) for p in files
    ]


def _libcst_order(tree: cst.CSTNode, into_scopes: bool = True) -> list[cst.CSTNode]:
    """Preorder through libcst's ``children`` (which follows the code generation); without
    ``into_scopes``, nested functions, lambdas and classes are left out, as ``own_nodes`` does."""
    found = []
    stack = list(reversed(tree.children)) if not into_scopes and isinstance(tree, scopes.NESTED_SCOPES) else [tree]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(c for c in reversed(node.children) if into_scopes or not isinstance(c, scopes.NESTED_SCOPES))
    return found


@pytest.mark.parametrize("text", _sources())
def test_the_model_answers_what_libcst_answers(text):
    module = cst.parse_module(text)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    semantics = scopes.Semantics(module, text)

    expected_parents = wrapper.resolve(ParentNodeProvider)
    assert len(semantics.parents) == len(expected_parents)
    assert all(semantics.parents[node] is parent for node, parent in expected_parents.items())

    # names, definitions and calls come in source order (whitespace may come anywhere)
    named = (cst.Name, cst.FunctionDef, cst.ClassDef, cst.Call, cst.Assign)
    assert [n for n in semantics.nodes if isinstance(n, named)] == [
        n for n in _libcst_order(module) if isinstance(n, named)
    ]

    positions = wrapper.resolve(PositionProvider)
    for node in semantics.nodes:
        if node in positions:
            assert semantics.position(node) == positions[node], module.code_for_node(node)

    contexts = wrapper.resolve(ExpressionContextProvider)
    assert scopes.store_contexts(semantics.parents) == {
        n: c for n, c in contexts.items() if isinstance(n, cst.Name) and c == ExpressionContext.STORE
    }
    assert _scope_shape(semantics.scope_of, semantics.nodes) == _scope_shape(wrapper.resolve(ScopeProvider), semantics.nodes)

    qualified = wrapper.resolve(QualifiedNameProvider)
    for node in semantics.nodes:
        names = qualified.get(node, ())
        names = names() if callable(names) else names  # libcst computes them when asked, too
        assert semantics.qualified_names(node) == {q.name for q in names}

    identifiers = sorted({n.value for n in semantics.nodes if isinstance(n, cst.Name)})[::7]
    trees = [n for n in semantics.nodes if isinstance(n, (cst.FunctionDef, cst.For, cst.Assign, cst.Module))][::5]
    is_call = lambda n: isinstance(n, cst.Call)  # noqa: E731
    for tree in trees:
        calls = [n for n in _libcst_order(tree) if is_call(n)]
        assert semantics.find(tree, is_call) == scopes.find(tree, is_call) == calls
        own_calls = [n for n in _libcst_order(tree, into_scopes=False) if is_call(n)]
        assert semantics.own_nodes(tree, is_call) == scopes.own_nodes(tree, is_call) == own_calls
        assert set(scopes.find(tree, lambda n: True)) == set(_libcst_order(tree))
        copy = tree.deep_clone()  # not in the file: answered by walking it
        assert [n.value for n in semantics.variables(tree)] == [n.value for n in semantics.variables(copy)]
        for name in identifiers:
            assert semantics.names_in(tree, name) == scopes.names(tree, name)
            assert semantics.stores(tree, name) == scopes.stores(tree, name)


def _scope_shape(scope_of, nodes) -> list:
    """Each node's scope, as the node the scope belongs to, with every assignment and access
    of that scope, its place in the scope's order of assignments (libcst's ``_index``, which
    decides what an access sees: the walk of :class:`scopes._ScopeWalk` must keep it) and what
    each access refers to: scopes compared across two resolutions."""
    order = {node: place for place, node in enumerate(nodes)}
    shape = []
    for node in nodes:
        scope = scope_of.get(node)
        if scope is None:
            shape.append(None)
            continue
        shape.append((
            type(scope).__name__,
            sorted((a.name, order.get(a.node, -1), a._index) for a in scope.assignments),
            sorted(
                (order.get(a.node, -1), a._index, sorted(order.get(r.node, -1) for r in a.referents if hasattr(r, "node")))
                for a in scope.accesses
            ),
        ))
    return shape


REACHING = '''\
def f(a):
    grid = zeros()
    (grid, k), ys = loop(grid)
    use(grid)
    mask = ones()
    if a:
        mask = other()
    use(mask)
    x = first()
    x = second()
    use(x)
    y = once()
    for i in r:
        use(y)
    use(z)
'''


@pytest.mark.parametrize(
    "read, expected",
    [
        (("loop", "grid"), ((), "zeros()")),  # the binding before the statement, not the one it makes
        (("use", "grid"), ((0, 0), "loop(grid)")),  # the position in the unpacked target
        (("use", "mask"), None),  # an `if` that may rebind it comes between
        (("use", "x"), ((), "second()")),
        (("use", "y"), ((), "once()")),  # a nested block: the one binding of the scope
        (("use", "z"), None),
    ],
)
def test_reaching_value_follows_straight_line_code(read, expected):
    module = cst.parse_module(REACHING)
    semantics = scopes.Semantics(module, REACHING)
    callee, name = read
    calls = [n for n in semantics.nodes if isinstance(n, cst.Call) and isinstance(n.func, cst.Name)]
    call = next(c for c in calls if c.func.value == callee and module.code_for_node(c.args[0].value) == name)
    found = semantics.reaching_value(call.args[0].value)
    assert (found and (found[0], module.code_for_node(found[1]))) == expected


@pytest.mark.parametrize(
    "text, attribute, expected",
    [
        ("class P:\n    shape: tuple\n", "shape", True),  # a field
        ("def make(o):\n    o.shape, n = (v,), 1\n", "shape", True),  # a store in a function, unpacked
        ("import collections\nP = collections.namedtuple('P', 'low shape')\n", "shape", True),
        ("import dataclasses\nP = dataclasses.make_dataclass('P', [('shape', tuple)])\n", "shape", True),
        ("import types\no = types.SimpleNamespace(shape=(v,))\n", "shape", True),
        ("N = type('N', (), {'__index__': lambda s: 5})\n", "__index__", True),
        ("class N:\n    pass\nsetattr(N, '__gt__', f)\n", "__gt__", True),
        ("def deco(c):\n    for k, v in table.items():\n        setattr(c, k, v)\n", "__gt__", True),  # any name
        ("class C:\n    def __getattr__(self, k):\n        return 1\n", "shape", True),
        ("def make(o, f):\n    with f() as o.shape:\n        pass\n", "shape", True),  # review 63: any store
        ("class N:\n    pass\n_ = [0 for N.__gt__ in [f]]\n", "__gt__", True),
        ("import types\no = types.SimpleNamespace(**dict(zip(keys, values)))\n", "shape", True),
        ("import jax, types\no = jax.tree_util.Partial(types.SimpleNamespace, shape=(v,))()\n", "shape", True),
        ("shape = (v,)\n", "shape", True),  # a module's own variable: `sys.modules[__name__].shape`
        ("import collections, functools\nP = functools.partial(collections.namedtuple, 'P')\n", "shape", True),
        ("import argparse\np = argparse.ArgumentParser()\np.add_argument('--shape')\n", "shape", True),
        ("exec(source)\n", "__index__", True),
        ("import types\no = types.SimpleNamespace(**{'sha' + 'pe': v})\n", "shape", True),  # review 64: built names
        ("class C:\n    locals()[f'{name}'] = v\n", "shape", True),
        ("print(f'step {i}: loss {loss}')\n", "shape", False),  # no name asked about can be built from these
        ("def f(x: Float[Array, f'{n}']) -> Float[Array, f'{n}']:\n    y: Float[Array, f'{n}'] = x\n", "shape", False),
        ("import jax.numpy as jnp\nx = jnp.zeros(shape=(3,))\n", "shape", False),  # an option of JAX's
        ("def build(self, n):\n    setattr(self, f'layer_{n}', n)\n", "shape", False),  # not a name asked about
        ("import collections\nP = collections.namedtuple('P', 'low high')\n", "shape", False),
    ],
)
def test_attributes_given_without_a_class_statement(text, attribute, expected):
    semantics = scopes.Semantics(cst.parse_module(text), text)
    assert semantics.defines_attribute(attribute) is expected
