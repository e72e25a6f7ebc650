"""The command line and the report formats.

``autota check|fix`` lint and rewrite source, ``autota rule`` prints the catalogue, and
``autota verify|bench`` prove rewrites. Exit codes follow Ruff: 0 nothing left, 1 findings
left (or a mismatch), 2 an error; and 130 when interrupted. Nothing here imports JAX until a
command that needs it runs.
"""
