"""The JAX vocabulary the source rules recognise: qualified names of loops, writes, growth
functions and tracing transforms, in one place.

The prefilter reads the last segment of each name (it runs on Python's ``ast``, before any name
is resolved); the rules and :mod:`autota.source.tracing` match the qualified names through
libcst's ``QualifiedNameProvider``. A new spelling of a JAX API is added here once.
"""

from __future__ import annotations

import re

LAX = "jax.lax"
JNP = "jax.numpy"

# -- loops -------------------------------------------------------------------------------------
FORI, SCAN, WHILE, MAP = f"{LAX}.fori_loop", f"{LAX}.scan", f"{LAX}.while_loop", f"{LAX}.map"
COND = f"{LAX}.cond"
FLAX_SCAN = "flax.linen.scan"
FLAX_WHILE = "flax.linen.while_loop"
LOOPS = {
    FORI: "fori",
    SCAN: "scan",
    WHILE: "while",
    FLAX_SCAN: "nn.scan",
    "flax.linen.transforms.scan": "nn.scan",
    FLAX_WHILE: "nn.while",
    "flax.linen.transforms.while_loop": "nn.while",
}
"""Loop callables and the kind of loop each one is."""
LIFTED_LOOPS = {
    "flax.nnx.fori_loop": "fori",
    "flax.nnx.while_loop": "while",
    "haiku.fori_loop": "fori",
    "haiku.scan": "scan",
    "haiku.while_loop": "while",
}
"""Flax NNX's and Haiku's lifted loops: ``lax``'s signatures, over bodies that may hold modules
(an NNX graph node in the carry, a Haiku module called in the body, which needs Haiku's own
loop for its state), so they are reported with no fix."""
LOOP_PARAMS = {
    "fori": ("lower", "upper", "body_fun", "init_val"),
    "scan": ("f", "init", "xs", "length", "reverse", "unroll"),
    "while": ("cond_fun", "body_fun", "init_val"),
}
BODY_ARG = {"fori": "body_fun", "scan": "f", "while": "body_fun"}
INIT_ARG = {"fori": "init_val", "scan": "init", "while": "init_val"}
TRACED_ARGUMENTS = {
    FORI: ((2, "body_fun"),),
    SCAN: ((0, "f"),),
    WHILE: ((0, "cond_fun"), (1, "body_fun")),
    MAP: ((0, "f"),),
    FLAX_SCAN: ((0, "target"),),
    f"{LAX}.cond": ((1, "true_fun"), (2, "false_fun")),
    f"{LAX}.switch": ((1, "branches"),),
    f"{LAX}.associative_scan": ((0, "fn"),),
    "flax.linen.while_loop": ((0, "cond_fn"), (1, "body_fn")),
    "flax.linen.cond": ((1, "true_fun"), (2, "false_fun")),
    "flax.linen.switch": ((1, "branches"),),
    "flax.nnx.fori_loop": ((2, "body_fun"),),
    "flax.nnx.while_loop": ((0, "cond_fun"), (1, "body_fun")),
    "flax.nnx.cond": ((1, "true_fun"), (2, "false_fun")),
    "flax.nnx.switch": ((1, "branches"),),
    "haiku.fori_loop": ((2, "body_fun"),),
    "haiku.scan": ((0, "f"),),
    "haiku.while_loop": ((0, "cond_fun"), (1, "body_fun")),
    "haiku.cond": ((1, "true_fun"), (2, "false_fun")),
    "haiku.switch": ((1, "branches"),),
}
"""The arguments of each loop or control-flow call, by position and by keyword, that are
functions (or, for ``switch``, a list of them) that it traces: ``lax.cond`` traces both
branches even with a concrete predicate."""

CHOICE_PARAMS = {
    f"{JNP}.where": ("condition", "x", "y"),
    f"{LAX}.select": ("pred", "on_true", "on_false"),
    COND: ("pred", "true_fun", "false_fun"),
}
"""The leading parameters of the calls that choose between two values or two branches, by
which their arguments are read whether passed by position or by keyword (``lax.cond``'s
operands follow them, or come as its old ``operand=``)."""

# -- writes ------------------------------------------------------------------------------------
UPDATE_METHODS = ("set", "add", "subtract", "multiply", "mul", "divide", "power", "min", "max", "apply")
"""Methods of ``x.at[...]``."""
SLOT_WRITES = ("set", "add")
BOOLEAN_DTYPES = frozenset({"builtins.bool", f"{JNP}.bool_", f"{JNP}.bool", "numpy.bool_", "numpy.bool"})
"""The names of the boolean dtype."""
UPDATE_OPTIONS = frozenset({"mode", "indices_are_sorted", "unique_indices"})
"""Keywords of ``x.at[i].set``/``add`` that say how to treat the index, not what is written."""
"""The ``x.at[i]`` methods whose one-slot write a loop can turn into a stacked row. ``add``
combines the row with the slot's old value, which a loop that writes each slot once finds still
holding the initial buffer's. The other combining methods are left alone until each has its own
proof (``min``/``max`` split their gradient at ties, for one)."""
DUS = f"{LAX}.dynamic_update_slice"
DUS_IN_DIM = f"{LAX}.dynamic_update_slice_in_dim"
DUI_IN_DIM = f"{LAX}.dynamic_update_index_in_dim"
DYNAMIC_WRITES = frozenset({DUS, DUS_IN_DIM, DUI_IN_DIM})
CLAMPS = {f"{JNP}.clip": 0, f"{JNP}.minimum": None, f"{LAX}.clamp": 1}
"""Calls that hold a value inside bounds, by the position of the value held (``None``: either
of two): ``jnp.clip(it, 0, n - 1)``, ``jnp.minimum(i, n - 1)``, ``lax.clamp(0, i, n - 1)``. A
counter held so moves one slot a step until it reaches the bound."""
CONSTRUCTORS = frozenset(
    f"{JNP}.{name}" for name in ("zeros", "ones", "empty", "full", "zeros_like", "ones_like", "full_like", "empty_like")
)
SHAPED_CONSTRUCTORS = frozenset(f"{m}.{f}" for m in (JNP, "numpy") for f in ("zeros", "ones", "empty", "full"))
"""Constructors whose first argument is the array's shape."""
CONSTANT_LIKE = frozenset(f"{JNP}.{name}" for name in ("zeros_like", "ones_like"))
"""Constants shaped like their argument: no gradient goes through them."""
OUTER_PRODUCTS = frozenset({f"{JNP}.outer", f"{JNP}.kron", f"{JNP}.multiply.outer", f"{JNP}.polymul"})
"""Products whose result has the sizes (or ranks) of both factors together."""
CONVOLUTIONS = frozenset({f"{JNP}.convolve", f"{JNP}.correlate"})
"""Their ``"full"`` and ``"valid"`` modes give another length than their first factor's; ``"same"`` keeps the longer."""
_EXACT_DTYPES = ("bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
EXACT_DTYPES = frozenset(
    {"builtins.bool", "builtins.int"} | {f"{module}.{name}" for module in (JNP, "numpy") for name in _EXACT_DTYPES}
)
"""Integer and boolean dtypes: an array of one has no gradient, so under ``grad`` it is neither
differentiated nor saved per step (its values are known in the forward pass)."""
EXACT_DTYPE_STRINGS = frozenset({*_EXACT_DTYPES, "bool"})
_INEXACT_DTYPES = ("float16", "bfloat16", "float32", "float64", "complex64", "complex128")
INEXACT_DTYPES = frozenset(
    {"builtins.float", "builtins.complex"} | {f"{module}.{name}" for module in (JNP, "numpy") for name in _INEXACT_DTYPES}
)
"""Floating and complex dtypes. A strongly typed buffer of one promoted with any row goes to an
inexact dtype at least as wide, and back unchanged."""
INEXACT_DTYPE_STRINGS = frozenset({*_INEXACT_DTYPES, "float", "complex"})
_NARROW_INTEGER_DTYPES = ("bool_", "int8", "int16", "int32", "uint8", "uint16")
NARROW_DTYPES = INEXACT_DTYPES | frozenset(
    {"builtins.bool"} | {f"{module}.{name}" for module in (JNP, "numpy") for name in _NARROW_INTEGER_DTYPES}
)
"""Dtypes but the integers wider than int32 (``uint32``, ``uint64``, ``int64``, and ``int``,
which is int64 under x64). Only into those does ``.at[].set`` convert a Python int beyond int32
straight to the buffer's dtype (JAX's scatter skips ``jnp.asarray`` for an int that fits);
into any other it makes an int32 first, and raises ``OverflowError``."""
NARROW_DTYPE_STRINGS = frozenset({*_INEXACT_DTYPES, *_NARROW_INTEGER_DTYPES, "float", "complex", "bool"})
WHERE = frozenset({f"{JNP}.where", f"{LAX}.select"})
TREE_MAP = frozenset({"jax.tree_util.tree_map", "jax.tree.map", "jax.tree_map"})
COMPILE_TIME_EVAL = "jax.ensure_compile_time_eval"
"""A context under which JAX computes on concrete values at once, while it traces."""
REPLACE = frozenset({"dataclasses.replace"})
"""Functions that rebuild a dataclass with some fields changed (``x._replace``/``x.replace`` are methods)."""
REPLACE_METHODS = frozenset({"_replace", "replace", "set"})
"""Methods that rebuild a record with the fields given by keyword changed: a NamedTuple's
``_replace``, ``replace`` of Flax's and chex's dataclasses, ``set`` of jax-md's (``.at[i].set(v)``
is called on no record, and gives its value by position)."""
TREE_AT = "equinox.tree_at"
"""Rebuilds a pytree with the leaves a ``where`` function picks replaced: ``tree_at(lambda s:
(s.x, s.traj), state, (x, traj))``, an Equinox module's ``replace``."""

# -- growth ------------------------------------------------------------------------------------
ARRAY_METADATA = frozenset({"shape", "dtype", "ndim", "size"})
"""Attributes of an array known at trace time: reading one reads no values, so under ``grad``
nothing is saved for it."""
METADATA_FUNCTIONS = frozenset(
    {"builtins.len", *(f"{JNP}.{name}" for name in ("shape", "ndim", "size", "zeros_like", "ones_like", "empty_like"))}
)
PART_READERS = frozenset(
    {f"{LAX}.{name}" for name in ("dynamic_slice", "dynamic_slice_in_dim", "dynamic_index_in_dim", "index_in_dim",
                                 "slice", "slice_in_dim")}
)
"""Functions that read a part of their first argument (a slot, a band), not the whole array."""
ROW_READERS = {
    f"{JNP}.take": ("a", "indices", "axis"),
    f"{LAX}.dynamic_index_in_dim": ("operand", "index", "axis"),
    f"{LAX}.dynamic_slice_in_dim": ("operand", "start_index", "slice_size", "axis"),
}
"""Calls that read one row of their first argument along axis 0 at a traced index, given so
(``jnp.take(buf, i, axis=0)``, ``lax.dynamic_slice_in_dim(buf, i, 1)``): their parameters in order."""
INDEX_REDUCTIONS = frozenset({f"{JNP}.{name}" for name in ("argmin", "argmax", "nanargmin", "nanargmax")})
"""Functions whose result is an integer position: `grad` goes through no array they read, so
it saves none of it."""
_BOOLEAN_RESULTS = (
    "isnan", "isinf", "isfinite", "isclose", "logical_and", "logical_or", "logical_not", "logical_xor",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "signbit",
)
INTEGER_RESULTS = INDEX_REDUCTIONS | {"jax.random.categorical", "jax.random.randint"} | {
    f"{JNP}.{name}" for name in _BOOLEAN_RESULTS
}
"""Functions whose result is always an integer or boolean array, so it has no gradient: a row
of one (a decoder's next token, a convergence flag) gives `grad` nothing to go through."""
INTEGER_ELEMENTS = {f"{LAX}.top_k": 1, f"{LAX}.approx_max_k": 1, f"{LAX}.approx_min_k": 1}
"""Functions that return a tuple one element of which, at this position, is always an integer
array: ``vals, idx = lax.top_k(logits, k)`` (a sampler's candidate tokens)."""
GATHERS = frozenset({f"{JNP}.take_along_axis", f"{JNP}.take"})
"""Functions whose result holds elements of their first argument, of its dtype: a gather from an
integer array (``jnp.take_along_axis(idx, choice[..., None], axis=-1)``) is an integer array."""
_KEEPING_REDUCTIONS = ("sum", "prod", "max", "min", "amax", "amin", "cumsum", "cumprod", "count_nonzero", "any", "all")
KEEPING_REDUCTIONS = frozenset({f"{JNP}.{name}" for name in _KEEPING_REDUCTIONS})
"""Reductions of one array whose result has no gradient where that array has none (a count of a
mask, ``jnp.sum(valid.astype(jnp.int32))``); as methods too, :data:`KEEPING_REDUCTION_METHODS`."""
KEEPING_REDUCTION_METHODS = frozenset(_KEEPING_REDUCTIONS) - {"amax", "amin", "count_nonzero"}
MASK_FUNCTIONS = frozenset({f"{JNP}.{name}" for name in (*_BOOLEAN_RESULTS, "any", "all")})
"""Functions whose result is a boolean array: indexing with one picks the slots it marks."""
MASK_POSITIONS = frozenset(
    f"{module}.{name}" for module in (JNP, "numpy") for name in ("where", "nonzero", "flatnonzero", "argwhere")
)
"""Functions that, given only a mask, give the positions it marks (``jnp.where(mask)[0]``)."""
INDEX_EXPRESSIONS = frozenset({f"{JNP}.index_exp", "numpy.index_exp", f"{JNP}.s_", "numpy.s_"})
"""Objects whose subscript is its index itself (``jnp.index_exp[where]`` is ``where``)."""
INDEX_SAMPLERS = {"jax.random.categorical": (1, "logits"), "jax.random.choice": (4, "p")}
"""Random functions and the argument (position, keyword) that only weighs which position they
pick: the result is an index, or an element of another argument, so `grad` goes through none of
what that argument reads."""
SEPARATE_RUNNERS = frozenset({
    "jax.pure_callback", "jax.debug.callback", "jax.experimental.io_callback", "jax.experimental.pure_callback",
    "jax.experimental.host_callback.call", "jax.experimental.host_callback.id_tap",
    "jax.experimental.host_callback.id_print",
    "jax.experimental.pallas.pallas_call", "jax_triton.triton_call",
})
"""Calls that run the function given them apart from the trace that calls them: a host callback
eagerly, with NumPy arrays; a Pallas or Triton kernel in a program of its own, where a Python
loop is the kernel's business. Any other function handed to a call in traced code runs traced."""
KERNEL_CALLS = frozenset({"jax.experimental.pallas.pallas_call", "jax_triton.triton_call"})
"""Calls that compile the function given them as a kernel of its own (Pallas, Triton), whose
Python loops, and those of the ``lax`` loops inside it, unroll tiles as the kernel's author meant."""
REACH_BY_NAME = frozenset({
    "eval", "exec", "globals", "vars", "getattr", "__globals__", "__dict__",
    # the module object (`sys.modules[__name__]._step`, `__import__(__name__)`), an attribute by a
    # computed name, a frame's globals
    "modules", "__import__", "import_module", "__getattribute__", "attrgetter", "methodcaller", "getmembers",
    "f_globals",
})
"""Names through which code reaches a function by a computed name: a file that spells one may
call a body that a fix rewrites where no use of its name shows."""
DYNAMIC_ACCESS = REACH_BY_NAME | {
    "locals", "dir", "inspect", "currentframe", "_getframe", "signature", "__code__", "__defaults__",
    "setattr", "__setattr__",
    # frames however reached (a traceback's, a generator's, a caller's)
    "f_locals", "f_back", "tb_frame", "gi_frame", "cr_frame", "ag_frame",
}
"""Names through which code reaches a function or a frame without naming it: a file that spells
one may call a body by a computed name or read its parameters, which a rewrite of the body's
signature would change."""
KEY_FUNCTIONS = frozenset({
    "jax.random.split", "jax.random.PRNGKey", "jax.random.key", "jax.random.fold_in", "jax.random.wrap_key_data",
    "jax.random.clone",
})
"""Functions that make PRNG keys, which hold no floats; typed ones (``jax.random.key``) have a
dtype that ``jnp.result_type`` refuses to promote with anything else."""
GROWTH_FUNCTIONS = ("concatenate", "concat", "append", "vstack", "row_stack", "hstack", "dstack", "column_stack", "stack")

PYTHON_RESULTS = frozenset(
    f"{JNP}.{name}"
    for name in ("shape", "ndim", "size", "result_type", "dtype", "iscomplexobj", "isrealobj", "isscalar",
                 "issubdtype", "promote_types", "can_cast", "finfo", "iinfo", "isdtype", "get_printoptions", "iterable")
)
"""Functions of ``jax.numpy`` whose result is a Python value (an int, a tuple, a dtype), not an array."""
FLOAT_CONSTANTS = frozenset(
    [f"{module}.{name}" for module in (JNP, "numpy") for name in ("inf", "nan", "pi", "e", "euler_gamma")]
    + [f"math.{name}" for name in ("inf", "nan", "pi", "e", "tau")]
)
"""Module constants that are Python floats (``jnp.inf``, ``np.pi``, ``math.e``)."""
SHARED_MEMORY = frozenset({f"{JNP}.from_dlpack", "jax.dlpack.from_dlpack", f"{JNP}.reshape"})
"""JAX functions whose result may share memory with a NumPy array they are given: ``from_dlpack``
on the CPU, and ``jnp.reshape``, which hands a NumPy array to its own ``reshape`` method and
returns NumPy's view. Writes into the NumPy array change it."""
SCALAR_TYPES = frozenset(
    f"{JNP}.{name}"
    for name in (
        "bool_", "int4", "int8", "int16", "int32", "int64", "uint4", "uint8", "uint16", "uint32", "uint64",
        "float16", "bfloat16", "float32", "float64", "complex64", "complex128", "half", "single", "double",
        "csingle", "cdouble", "int_", "uint", "float_", "complex_", "float8_e4m3fn", "float8_e5m2",
    )
)
"""``jnp.float32(x)`` and the like: each is ``jnp.asarray(x, dtype=...)`` for an array argument."""
UNCOPIED = frozenset({f"{JNP}.asarray"}) | SCALAR_TYPES
"""JAX functions that make a JAX array but may leave a NumPy array they are given uncopied: on
the CPU, ``jnp.asarray`` of an aligned NumPy array of the requested dtype shares its memory (so
do ``jnp.array(..., copy=False)`` and the scalar types, ``jnp.float32(np_array)``). Writes into
the NumPy array change the JAX array."""
PYTHON_METHODS = frozenset({"item", "tolist", "tobytes", "__len__", "__index__", "__int__", "__float__", "__bool__"})
"""Methods of a JAX array whose result is a Python value."""
ARRAY_METHODS = frozenset({
    "all", "any", "sum", "prod", "max", "min", "mean", "std", "var", "argmax", "argmin", "cumsum", "astype", "reshape",
    "ravel", "flatten", "squeeze", "transpose", "round", "clip", "dot", "conj",
})
"""Methods of a JAX array that give a JAX array."""
STOP_GRADIENT = "jax.lax.stop_gradient"
"""A value ``grad`` does not go through."""
TYPE_QUESTIONS = frozenset(f"builtins.{name}" for name in ("hasattr", "isinstance", "type", "id", "callable"))
"""Builtins that ask what an object is, not what its arrays hold."""
ARRAYS_OF_DISPLAYS = frozenset({f"{JNP}.array", f"{JNP}.asarray", "numpy.array", "numpy.asarray"})
"""Array constructors whose first axis is as long as the display they are given."""
LIFETIME_OBSERVERS = re.compile(
    r"\b(?:weakref|getrefcount|live_arrays|live_buffers|get_referrers|get_referents|get_objects|__del__)\b"
)
"""What sees when an object is freed (a weak reference, a finalizer, a reference count, JAX's
list of live arrays, the garbage collector's view): the fixes keep the array the loop started
from, its pieces or rows, and each step's value alive until after the loop, where the loop freed
each as it rebound the name."""
FIX_HAZARD_TRANSFORMS = ("checkify", "shard_map", "dtype_promotion", "simplefilter", "filterwarnings")
"""Transformations that see what the fixes change: ``checkify``'s index checks raise ``ValueError``
on a scatter with an empty index (``row.at[...].set(v)``, the fixes' way of converting a row as a
write would), and ``shard_map`` checks that a loop's carry keeps its varying mesh axes (a buffer
made unvarying and written with varying rows fails ``fori_loop``, not the fix's stacked outputs).
So does strict dtype promotion (``jax.numpy_dtype_promotion("strict")``, the
``jax_numpy_dtype_promotion`` option), under which the fixes' ``jnp.result_type`` of a row refuses
what a write converted (a Python bool into an int buffer) or raises before the write's own error.
So do warnings made errors (``warnings.simplefilter("error")``, ``filterwarnings``): the write's
``FutureWarning`` for a row it cannot cast safely came before a zero-length buffer's
``IndexError``, which the fixes' read of the slot raises first. A file or run that mentions one
makes those fixes unsafe. (Values committed to devices, ``jax.device_put(x, device)`` or
``device=`` given to a constructor, which a loop refused at the first step that mixed them and a
fix only where it joins the rows, count where the file itself spells them.)"""
DEVICE_COMMITMENT = re.compile(r"\bdevice_put\b|\bdevice\s*=(?!=)")
"""A value committed to a device: ``jax.device_put(x, d)``, ``jnp.asarray(x, device=d)``."""
VALUE_CHECKS = ("debug_nans", "debug_infs")
CONFIG_UPDATE_BY_VALUE = re.compile(
    r"(?<![\w.])jax[ \t]*\.[ \t]*config\b(?![ \t]*\.[ \t]*(?:update[ \t]*\((?=\s*[rbuRBU]?(?:\"[^\"\n]*\"|'[^'\n]*')\s*[,)])"
    r"|jax_\w+\b(?![ \t]*=(?!=))|read\b))|\bjax\._src\.config\b|\bjax\._src[ \t]+import[^\n]*\bconfig\b|\b_value_holders\b"
)
"""JAX's configuration reached otherwise than to read an option or to update one named by a
string literal (``jax.config.update(OPT, True)`` with ``OPT = "jax_debug_" + "nans"``, an alias
``upd = jax.config.update``, ``getattr(jax.config, "update")``, ``partial(jax.config.update, OPT)``,
``jax._src.config``): it may switch any option on, a value check among them. Spelled ``jax.config``
(a module's own check also reads the qualified name of any spelling of the call)."""
"""JAX options (``jax_debug_nans``, ``JAX_DEBUG_INFS``, ``jax.debug_nans(True)``) under which every
operation whose output holds a NaN or inf raises: a fix that moves where an array is written
moves where that error is raised."""
CONCRETE_CONVERSIONS = frozenset(
    {f"builtins.{name}" for name in ("int", "float", "bool", "complex", "range")} | {"operator.index"}
)
"""Calls that turn a JAX array they are given into a Python value (under ``jit``, an error)."""
ARRAY_MODULES = (f"{JNP}.", f"{LAX}.", "jax.random.")
"""Modules whose functions return JAX arrays and do nothing else (but :data:`PYTHON_RESULTS`,
and :data:`NOT_ARRAY_RESULTS`, which return several)."""
NOT_ARRAY_RESULTS = frozenset(
    {
        f"{JNP}.{name}"
        for name in (
            "split", "array_split", "hsplit", "vsplit", "dsplit", "meshgrid", "broadcast_arrays", "nonzero",
            "unravel_index", "divmod", "frexp", "modf", "histogram", "histogram2d", "histogramdd", "unique",
            "unique_all", "unique_counts", "unique_inverse", "tril_indices", "triu_indices", "diag_indices",
            "mask_indices", "linalg.eig", "linalg.eigh",
            "linalg.svd", "linalg.qr", "linalg.slogdet", "linalg.lstsq", "unstack", "atleast_1d", "atleast_2d",
            "atleast_3d", "indices", "ix_", "gradient", "polyfit", "vectorize", "frompyfunc",
        )
    }
    | {
        f"{LAX}.{name}"
        for name in (
            "scan", "fori_loop", "while_loop", "cond", "switch", "map", "associative_scan", "top_k",
            "sort_key_val", "reduce", "optimization_barrier", "linalg.eigh", "linalg.svd", "linalg.qr", "linalg.lu",
            "sort", "split", "stop_gradient", "reduce_window", "custom_root", "custom_linear_solve", "psum", "pmean",
            "pmax", "pmin", "all_gather", "all_to_all", "ppermute", "pshuffle", "psum_scatter", "approx_max_k",
            "approx_min_k", "linalg.schur", "linalg.tridiagonal", "linalg.qdwh", "with_sharding_constraint",
        )
    }
)
"""JAX functions whose result may be a list, a tuple or a NamedTuple of arrays, whatever a loop
or branch returns, or the pytree given (``jnp.split``, ``jnp.unstack``, ``jnp.atleast_1d(a, b)``,
``lax.scan``, ``lax.stop_gradient``), or a function (``jnp.vectorize``), not one array."""

# -- in-place changes --------------------------------------------------------------------------
PURE_BUILTINS = frozenset(
    f"builtins.{name}"
    for name in ("len", "range", "int", "float", "bool", "complex", "abs", "round", "isinstance", "type", "id",
                 "hash", "repr", "str", "divmod", "pow", "slice", "format", "print")
)
"""Builtins that change none of their arguments and run no function they are given (``map``,
``sorted(key=...)``, ``list`` of a generator run the user's code)."""
NUMPY_READERS = frozenset(
    f"numpy.{name}"
    for name in ("asarray", "array", "zeros", "ones", "full", "arange", "linspace", "zeros_like", "ones_like",
                 "full_like", "shape", "ndim", "size", "stack", "concatenate", "copy", "isscalar", "result_type",
                 "dtype", "iinfo", "finfo")
)
"""NumPy functions that write into nothing they are given (a ufunc takes its ``out`` by position
too: ``np.add(a, 1, a)``)."""
READING_METHODS = frozenset(
    {"reshape", "astype", "sum", "mean", "max", "min", "ravel", "flatten", "copy", "transpose", "squeeze", "item",
     "tolist", "std", "var", "prod", "cumsum", "cumprod", "dot", "clip", "round", "conj", "any", "all", "argmax",
     "argmin", "swapaxes", "take", "repeat", "tobytes", "block_until_ready", "get", "keys", "values", "items",
     "format", "split", "join", "startswith", "endswith", "strip", "lower", "upper", "count", "index"}
)
"""Methods of arrays (and of str and dict) that read their object and write nothing."""

# -- Python introspection ----------------------------------------------------------------------
CALLER_FRAME_READERS = frozenset(
    {"sys._getframe", "inspect.currentframe", "inspect.stack", "inspect.getouterframes", "inspect.trace",
     "builtins.breakpoint", "pdb.set_trace", "traceback.walk_stack", "inspect.getargvalues",
     "sys.setprofile", "sys.settrace", "threading.setprofile", "threading.settrace", "sys.breakpointhook",
     "IPython.embed", "IPython.terminal.embed.embed", "signal.signal", "logging.currentframe"}
)
"""Calls that reach the frames of the functions that called the one they run in (``f_back``,
``inspect.stack()``, a debugger), or of every function that runs after them (a profiler or tracer
hook is handed each frame; a signal handler, the frame the signal interrupts): a helper of the
module that calls one can read its caller's locals."""
DEBUGGER_MODULES = frozenset({"pdb", "bdb", "ipdb", "pudb", "cgitb", "debugpy", "pydevd", "remote_pdb", "web_pdb", "wdb"})
"""Modules whose debuggers and reports read the locals of the frames they stop in or are handed
(``pdb.Pdb().set_trace()``, ``from pdb import set_trace as st``, ``cgitb.text(sys.exc_info())``), and
``IPython``'s ``core.debugger``: a module that imports one, however it then spells the call, can
read a loop's locals while it runs or after it raised."""
FRAME_LOCAL_CAPTURE = "capture_locals"
"""The keyword by which :mod:`traceback` reads the locals of the frames it is given
(``StackSummary.extract(frames, capture_locals=True)``), spelling no ``f_locals``."""
FRAME_SOURCES = frozenset({"f_back", "tb_frame", "gi_frame", "cr_frame", "ag_frame", "_current_frames", "walk_tb", "pythonapi"})
"""Attributes and functions that hand out a frame object (a caller's, a traceback's, a generator's,
every thread's; ``ctypes.pythonapi``'s ``PyFrame_GetBack``): once a module holds one, its locals are a
reflective call away (``inspect.getmembers(frame)``, ``frame.__getattribute__("f_locals")``), spelled or not."""
FRAME_LOCALS = "f_locals"
"""The attribute through which any frame, however it was reached (``from sys import _getframe as
gf``, ``exc.__traceback__.tb_frame``, a ``sys.setprofile`` tracer), gives its locals by name."""
COMPUTED_ATTRIBUTE_READERS = frozenset({"builtins.getattr", "operator.attrgetter"})
"""Calls that read an attribute named by a value: given one computed at run time, they may reach a
frame (``getattr(sys, "_get" + "frame")(1)``) and its locals."""
FRAME_READERS = CALLER_FRAME_READERS | {
    "builtins.locals", "builtins.vars", "builtins.globals", "builtins.eval", "builtins.exec", "builtins.dir"
}
"""Calls that can read a function's locals by name, so that a deferred write, or a name a fix
renames or adds, could be seen."""

GLOBALS_ROUTES = ("__globals__", "f_globals", "modules", "__dict__", "globals")
"""Attribute and function names through which code reaches a module's globals: a name built at
run time that may spell one of them (``"__glo" + "bals__"``) may rebind any module variable."""
MODULE_REBINDERS = (
    "sys.modules", "from sys import", "import sys as", "getattr(sys", "vars(sys", "modules[", "'modules'", '"modules"',
    "sys .", "globals", "eval(", "get_objects", "__globals__", "f_globals", "importlib", "__import__", "globals(", "exec(", "getmodule", "get_referrers",
    "resolve_name", "locate(", "vars(", "__dict__", "mock", "monkeypatch",
)
"""What code can bind a module's name again through, with no statement of the module that binds
it (``setattr(sys.modules[__name__], "jnp", numpy)``, ``from sys import modules``, ``sys`` under
another name,
``f.__globals__["jnp"] = ...``, ``gc.get_referrers``, ``pydoc.locate``, ``mock.patch``): a fix
that reads the name where the loop did not may reach something else. Words of the file's text,
comments and strings included: a mention makes the fix unsafe, which costs nothing of a program."""

# -- tracing -----------------------------------------------------------------------------------
JIT = frozenset(
    {
        "jax.jit",
        "jax.pmap",
        "jax.experimental.pjit.pjit",
        "equinox.filter_jit",
        "equinox.filter_pmap",
        "flax.linen.jit",
        "flax.nnx.jit",
        "flax.nnx.pmap",
    }
)
CUSTOM_DERIVATIVES = frozenset(
    {"jax.custom_vjp", "jax.custom_jvp", "jax.custom_derivatives.custom_vjp", "jax.custom_derivatives.custom_jvp"}
)
"""Functions whose derivative is given by rules: ``grad`` runs the rules, not their own body."""
REVERSE_TRANSFORMS = frozenset(
    {"jax.grad", "jax.value_and_grad", "jax.vjp", "jax.jacrev", "jax.hessian", "jax.linearize",
     "equinox.filter_grad", "equinox.filter_value_and_grad", "equinox.filter_vjp", "flax.linen.grad",
     "flax.linen.value_and_grad", "flax.linen.vjp", "flax.nnx.grad", "flax.nnx.value_and_grad"}
)
"""Transforms that differentiate the function they are given in reverse mode."""
SHALLOW_COPIES = frozenset({"builtins.dict", "builtins.list", "builtins.tuple", "copy.copy"})
"""Calls that copy a container's entries as they are (``state = dict(state)`` before writing
one): the arrays inside are the same, nothing of them is read."""
IMPLICIT_SOLVES = {
    "jax.lax.custom_linear_solve": (("solve", 2), ("transpose_solve", 3)),
    "jax.lax.custom_root": (("solve", 2), ("tangent_solve", 3)),
}
"""Solvers whose derivative is implicit: ``grad`` goes through the linear system they solve,
never through the solving functions given (by keyword, and at that position)."""
DEFINE_VJP = "defvjp"
"""The method of a ``jax.custom_vjp`` function that takes its forward and backward rules."""
TRACES_ARGUMENTS = frozenset({"jax.jit", "jax.pmap", "jax.experimental.pjit.pjit"})
"""The jits that trace every argument their static options do not name: Equinox's
``filter_jit`` keeps every argument that is not an array static (a Python int bound included)."""
REMATS = frozenset({"jax.checkpoint", "jax.remat"})
"""Wrappers that run the function they are given as it is, recomputing it under ``grad``."""
TRACING_TRANSFORMS = frozenset(
    {
        "jax.vmap",
        "jax.grad",
        "jax.value_and_grad",
        "jax.jacfwd",
        "jax.jacrev",
        "jax.hessian",
        "jax.checkpoint",
        "jax.remat",
        "jax.jvp",
        "jax.vjp",
        "jax.linearize",
        "jax.linear_transpose",
        "jax.eval_shape",
        "jax.make_jaxpr",
        "equinox.filter_vmap",
        "equinox.filter_grad",
        "equinox.filter_value_and_grad",
        "flax.linen.vmap",
        "flax.linen.remat",
        "flax.linen.checkpoint",
        "jax.experimental.shard_map.shard_map",
        "jax.shard_map",
        "jax.experimental.checkify.checkify",
        "flax.nnx.vmap",
        "flax.nnx.grad",
        "flax.nnx.value_and_grad",
        "flax.nnx.remat",
        "flax.nnx.shard_map",
        "flax.nnx.eval_shape",
        "flax.nnx.scan",
    }
)
"""Transforms that trace the function they are given (its Python loop runs on tracers)."""
COLLECTIVES = frozenset(
    f"{LAX}.{name}"
    for name in (
        "psum", "pmean", "pmax", "pmin", "ppermute", "pshuffle", "pswapaxes", "all_gather", "all_to_all",
        "psum_scatter", "axis_index", "axis_size", "pbroadcast",
    )
)
"""Collectives over a named axis: they fail outside ``pmap``/``shard_map``/``vmap(axis_name=...)``,
so a function that calls one runs traced wherever it runs at all."""
ARRAY_TRANSFORMS = JIT | {
    f"jax.{name}" for name in ("vmap", "grad", "value_and_grad", "jacfwd", "jacrev", "hessian", "checkpoint", "remat")
}
"""Transforms whose function returns JAX arrays only (``eval_shape`` and ``make_jaxpr`` do not)."""
MODEL_CLASSES = frozenset(
    {
        "flax.linen.Module",
        "flax.linen.module.Module",
        "flax.nnx.Module",
        "flax.nnx.module.Module",
        "haiku.Module",
        "haiku.RNNCore",
        "flax.linen.RNNCellBase",
        "flax.linen.recurrent.RNNCellBase",
        "equinox.Module",
        "jumanji.env.Environment",
        "gymnax.environments.environment.Environment",
        "brax.envs.base.Env",
        "brax.envs.base.PipelineEnv",
        "mujoco_playground._src.mjx_env.MjxEnv",
        "mujoco_playground.MjxEnv",
        "praxis.base_layer.BaseLayer",
        "jaxmarl.environments.multi_agent_env.MultiAgentEnv",
        "xminigrid.environment.Environment",
        "sepes.TreeClass",
        "serket.TreeClass",
        "pytreeclass.TreeClass",
        "evox.Algorithm",
        "evox.Problem",
    }
)
"""Base classes whose methods (but ``__init__``) run traced by the framework's design: models
(Praxis layers are Flax modules; Serket's layers are ``sepes.TreeClass`` pytrees),
inside their ``init``/``apply`` or a filtered ``jit``, which trainers usually jit; JAX
environments (Jumanji, Gymnax, Brax, MuJoCo Playground, JaxMARL, XLand-MiniGrid), whose ``step``/``reset`` their
callers jit or ``vmap``; EvoX's algorithms and problems, whose ``ask``/``tell``/``evaluate`` its workflows jit."""
LAYER_PACKAGES = ("flax.linen.", "flax.nnx.", "haiku.", "equinox.nn.")
"""Where a model's layers live: ``nn.Dense(16)`` made in a loop is a layer of its own each step."""
PARAMETER_CALLS = frozenset({"haiku.get_parameter", "haiku.get_state", "haiku.set_state"})
MODEL_ENTRIES = frozenset({"apply", "init", "init_with_output"})
"""What a Flax module object's caller calls to run its ``__call__`` (``model.apply(params, x)``)."""
MODEL_TRANSFORMS = frozenset({"haiku.transform", "haiku.transform_with_state", "haiku.multi_transform"})
"""Haiku's transforms: the function given runs inside the ``init``/``apply`` they return."""
PARTIAL = frozenset({"functools.partial", "jax.tree_util.Partial"})
INITIALIZER_METHODS = {"param": 1, "variable": 2}
"""Methods that run the function at that position as a parameter initializer: Flax's
``self.param(name, init_fn, ...)`` and ``self.variable(collection, name, init_fn, ...)``. They are
matched by method name, since ``self`` has no qualified name."""
INITIALIZER_KEYWORDS = frozenset(
    {"kernel_init", "bias_init", "embedding_init", "scale_init", "recurrent_kernel_init", "w_init", "b_init"}
)
"""Keyword arguments of Flax and Haiku layers that take a parameter initializer."""


UNMODELLED_METHODS = frozenset({
    "builtins.staticmethod", "builtins.classmethod", "builtins.property", "functools.cached_property",
})
"""Decorators of a model's methods that the model's transforms do not run: a factory that builds
the model eagerly (``from_image``), a property that runs wherever it is read."""


def runs_as_model(method: str) -> bool:
    """Whether a model class's method of this name runs as the model does, under its framework's
    transforms: not a special method but ``__call__`` (``__init__``, ``__add__``, ``__getitem__``:
    Python calls it to build the object or for an operator, wherever the object is used, eagerly
    too: an Equinox module that is a data structure)."""
    return method == "__call__" or not (method.startswith("__") and method.endswith("__"))


def terminal(qualified: str) -> str:
    """The last segment of a qualified name: what the prefilter can see before resolution."""
    return qualified.rsplit(".", 1)[-1]


MODULE_READERS = frozenset({
    "builtins.getattr", "builtins.hasattr", "builtins.isinstance", "builtins.print", "builtins.repr", "builtins.str",
    "builtins.type", "builtins.id", "builtins.dir", "builtins.callable",
})
"""Calls that only read a module handed to them: any other call given ``jnp`` itself may assign
its attributes (``f = setattr`` then ``f(jnp, "stack", g)``)."""
EAGER_RUNNERS = frozenset({
    "builtins", "numpy", "scipy", "math", "itertools", "functools", "operator", "timeit", "threading",
    "multiprocessing", "concurrent", "asyncio", "contextlib", "atexit", "unittest", "pytest", "doctest",
})
"""Packages whose functions call a function they are given in Python, eagerly (``map(f, xs)``,
``scipy.optimize.minimize(f, x0)``): handing a function to one is not
handing it to code that may jit it (see ``"handed"`` in :class:`tracing.Traced`)."""
OTHER_COMPILERS = frozenset({"numba", "torch", "tensorflow", "taichi", "cupyx", "mlx", "pythran", "triton"})
"""Packages whose ``jit``/``njit`` compile for another runtime: a function they decorate is not
traced by JAX, whatever its name says."""


def says_jit(name: str) -> bool:
    """Whether a decorator's own name says it jits (``jit_method``, ``jit_class``, ``my_jit``,
    ``filter_jit``; not ``no_jit``): a project's wrapper of ``jax.jit``, whose functions run traced."""
    lowered = name.lower()
    return re.search(r"(^|_)jit(_|$)|jit$", lowered) is not None and not re.search(r"(^|_)(no|non|un|disable)_?jit", lowered)


LOOP_TERMINALS = frozenset(terminal(name) for name in (*LOOPS, *LIFTED_LOOPS, MAP))
TRACED_ARGUMENT_TERMINALS = frozenset(terminal(name) for name in TRACED_ARGUMENTS)
JIT_TERMINALS = frozenset(terminal(name) for name in JIT)
DYNAMIC_WRITE_TERMINALS = frozenset(terminal(name) for name in DYNAMIC_WRITES)
PARTIAL_TERMINALS = frozenset(terminal(name) for name in PARTIAL)
SEPARATE_RUNNER_TERMINALS = frozenset(terminal(name) for name in SEPARATE_RUNNERS)
KERNEL_CALL_TERMINALS = frozenset(terminal(name) for name in KERNEL_CALLS)


STATIC_KEYWORDS = frozenset(
    {
        "axis", "axes", "axis1", "axis2", "source", "destination", "shape", "newshape", "new_sizes",
        "dimensions", "dimension", "keepdims", "num", "ord", "repeats", "total_repeat_length", "k",
    }
)
"""Keyword arguments that JAX's array functions need as Python values (an axis, a shape, a count):
given a tracer they raise, so a loop index passed through one cannot become a ``lax`` loop's."""
STATIC_POSITIONALS = {
    **{f"{JNP}.{name}": None for name in ("arange", "eye", "identity", "tri", "tril_indices", "triu_indices")},
    **{f"{JNP}.{name}": 1 for name in ("zeros", "ones", "empty", "full")},
}
"""JAX array functions whose positional arguments (all, or the first ``n``) are a shape or a
count, which they need as Python values (``jnp.arange(-el, el + 1)``: its length changes with
``el``, and a tracer is refused)."""


CONFIG_UPDATE = "jax.config.update"
"""Changes JAX's configuration (dtype promotion, x64) for everything that runs after it."""

COMPARISONS = ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__")
"""The methods that define a class's own comparisons (whose results may be anything)."""
ASKED_ATTRIBUTES = ("shape", "__len__", "__getitem__", "__index__", "__jax_array__", *COMPARISONS)
"""Attributes whose definition anywhere in a file changes what the rules may assume of a value
(``Semantics.defines_attribute``): slicing keeps the classes that define them, and the code that
gives them otherwise (:mod:`autota.source.attributes`)."""
SCALAR_CONSTRUCTORS = frozenset(
    {f"jax.numpy.{name}" for name in ("asarray", "array", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")}
)
"""Calls that make a 0-d integer array of an int literal (``jnp.asarray(1, jnp.int32)``): the loop
model takes the constant for what it steps a counter by (where it only reports)."""
ATTRIBUTE_FACTORIES = frozenset({
    "builtins.setattr", "builtins.type", "collections.namedtuple", "typing.NamedTuple",
    "typing_extensions.NamedTuple", "dataclasses.make_dataclass", "builtins.vars", "types.SimpleNamespace",
    "argparse.Namespace", "types.new_class",
})
"""Calls that give objects attributes named by strings (``setattr(N, "__gt__", f)``,
``namedtuple("P", "shape")``) or find them by a key (``vars(o)``)."""
ARRAY_NAMESPACES = ("jax.numpy.", "jax.lax.", "jax.random.", "jax.nn.", "jax.scipy.", "numpy.")
"""Modules of array functions, whose keyword arguments are options (``shape=``, ``axis=``)."""
ANY_ATTRIBUTE_NAMES = ("__getattr__", "__getattribute__", "__dict__")
"""Names whose use lets objects have any attribute: a ``__getattr__`` answers every name, a
``__dict__`` sets one by a computed key (``__setattr__`` is judged by the name it is given)."""
