"""One module a subcommand: each has ``register(subparsers)`` and ``run(args) -> int``."""
