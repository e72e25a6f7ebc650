"""The lazily exported names of ``autota`` stay the functions they are, however often used."""

import autota
import autota.jaxpr  # noqa: F401  (importing the subpackage must not shadow ``autota.transform``)
import autota.proof  # noqa: F401


def test_lazy_names_are_functions_on_every_access():
    for name in ("transform", "analyze", "explain", "verify", "measure", "compare"):
        first, second = getattr(autota, name), getattr(autota, name)
        assert callable(first) and first is second, name
        assert first.__name__ == name
