"""Run the rules over one file's bytes, and apply fixes until none is left to apply.

The engine never touches the filesystem: the CLI reads and (atomically) writes files. It
decodes with the file's own encoding, keeps its line endings, skips files that cannot match
before parsing them, and refuses a fix whose result would not parse.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst

from autota.catalogue import Finding
from autota.source import growers, prefilter, project, scopes, wrappers
from autota.source.rule import RuleContext
from autota.source.rules import RULE_CLASSES
from autota.source.parsing import ParseError, check_syntax, fix_parse_error, libcst_module, syntax_tree
from autota.source.text import OverlappingEdits, SourceText
from autota.source.project import ProjectFunctions

NOTHING = ProjectFunctions()
SKIP_FILE = re.compile(r"^[ \t]*#[ \t]*autota:[ \t]*skip-file\b", re.MULTILINE)
NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*))?", re.IGNORECASE)
MAX_FIX_ROUNDS = 10


@dataclass
class FileResult:
    """Findings left in a file, and the fixed text where fixes were applied."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    fixed_text: bytes | None = None
    fixes_applied: int = 0


def decode(data: bytes) -> tuple[str, str]:
    """The text and encoding of Python source bytes (PEP 263 cookie or BOM, else UTF-8)."""
    if b"\x00" in data:
        raise ParseError("binary file (contains NUL bytes)")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding), encoding
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        raise ParseError(f"cannot decode: {exc}") from None


def _plan(text: str, tree: ast.Module | None, enabled: frozenset[str], slicing: bool = True,
          own: ProjectFunctions = NOTHING, imported: ProjectFunctions = NOTHING):
    """The rules worth running, and the text libcst should parse for them.

    A substring test, then one walk of Python's own AST (:mod:`autota.source.prefilter`): both
    are an order of magnitude cheaper than libcst's parse and metadata, which only the
    top-level statements holding a candidate pay for; the rest are blanked out, lines kept.
    ``own`` and ``imported``: the loop wrappers and growers of the file and of the other modules
    of the run, whose calls the prefilter takes for loops and growths.
    """
    if not _may_match(text, imported):
        return [], text, None
    rules = [
        cls for cls in RULE_CLASSES if enabled.intersection(cls.codes) and cls.triggered(text, imported)
    ]
    if not rules or tree is None:  # no AST (a grammar newer than this Python): every rule, the whole file
        return rules, text, None
    facts = prefilter.gather(tree)
    facts.loop_wrapper_names = frozenset(own.loop_wrappers) | {n.rpartition(".")[2] for n in imported.loop_wrappers}
    facts.grower_names = frozenset(own.growers) | {n.rpartition(".")[2] for n in imported.growers}
    facts.updater_names = frozenset(n.rpartition(".")[2] for n in imported.updaters)
    facts.undonated_names = frozenset(n.rpartition(".")[2] for n in imported.undonated)
    keep: set[int] | None = set()
    chosen = []
    for cls in rules:
        needed = cls.relevant(facts)
        if needed is None:
            keep = None
            chosen.append(cls)
        elif needed:
            chosen.append(cls)
            if keep is not None:
                keep |= needed
    if not chosen or keep is None or not slicing:
        return chosen, text, None
    return (chosen, *prefilter.slice_module(text, facts, keep))


def _may_match(text: str, imported: ProjectFunctions) -> bool:
    """Whether any rule may find something in ``text``: it names JAX, or uses `.at[i].set`
    (JAX's), or star-imports a module of the run (which may hand it `jnp`), or names a step that
    another module of the run jits (see :attr:`ProjectFunctions.undonated`)."""
    return "jax" in text or ".at[" in text or bool(imported.star_exports and "import *" in text) or any(
        name.rpartition(".")[2] in text for name in imported.undonated
    )


def _findings(text: str, path: str, enabled: frozenset[str], slicing: bool = True,
              traced_elsewhere: frozenset[str] = frozenset(), imported: ProjectFunctions = NOTHING,
              unread: str | None = None) -> list[Finding]:
    """The findings in ``text``; ``slicing=False`` parses the whole file (the tests compare);
    ``unread``: code that runs in the file's namespace unseen (see :attr:`RuleContext.unread`)."""
    if SKIP_FILE.search(text):
        return []
    if not _may_match(text, imported):
        check_syntax(text, path)
        return []
    tree = syntax_tree(text, path)
    own = _file_functions(text, tree, path, imported)
    rules, parsed_text, line_map = _plan(text, tree, enabled, slicing, own, imported)
    if not rules:
        return []
    context = run_rules(
        rules, libcst_module(parsed_text), path, text, enabled, line_map, traced_elsewhere, parsed_text, imported, own,
        unread, tree,
    )
    findings = _unsuppressed(context.findings, text)
    return sorted(findings, key=lambda f: (f.location.line, f.location.column, f.code))


def _file_functions(text: str, tree: ast.Module | None, path: str, imported: ProjectFunctions) -> ProjectFunctions:
    """The loop wrappers and growers the file defines (see :class:`ProjectFunctions`)."""
    if tree is None:
        return NOTHING
    loops = wrappers.may_define(text)
    grows = growers.may_define(text) or any(name.rpartition(".")[2] in text for name in imported.growers)
    if not loops and not grows:
        return NOTHING  # most files: no need to find the module's name (a walk up its folders)
    module = project.module_name(Path(path))
    return ProjectFunctions(
        wrappers.file_wrappers(tree, module) if loops else {},
        growers.file_growers(tree, module, imported.growers) if grows else {},
    )


def _star_names(module: cst.Module, path: str, text: str, imported: ProjectFunctions) -> dict[str, str]:
    """The names the file's star imports of modules of the run bind, and what each names (see
    :attr:`ProjectFunctions.star_exports`). None where the file changes ``sys.path``: which
    file an import reads is then not where its name spells it."""
    found: dict[str, str | None] = {}
    if not imported.star_exports or "sys.path" in text:
        return {}
    for name, conditional in scopes.star_imports(module):
        if name is not None and scopes.jax_or_numpy(name):
            continue
        source = project.star_module(path, name) if name is not None else None
        exports = imported.star_exports.get(source) if source is not None else None
        if exports is None or conditional:
            return {}  # a module of unknown names, or one that may or may not run: it may bind any of them again
        found.update(exports)  # a later star import binds its names again (`jnp = numpy` there: unknown)
    return {local: dotted for local, dotted in found.items() if dotted is not None}


def run_rules(rules, module: cst.Module, path: str, text: str, enabled: frozenset[str], line_map=None,
              traced_elsewhere: frozenset[str] = frozenset(), parsed_text: str | None = None,
              imported: ProjectFunctions = NOTHING, own: ProjectFunctions | None = None,
              unread: str | None = None, tree: ast.Module | None = None) -> RuleContext:
    """Visit ``module`` (libcst's parse of ``text``, or of ``parsed_text``, a slice of it, when
    ``line_map`` says where its lines came from) with each rule class; the rules share one
    :class:`scopes.Semantics`, so its metadata is computed once. ``own``: the file's loop
    wrappers and growers, found from its text where not given. ``tree``: Python's AST of
    ``text`` where the caller has it (a large file's parse is not repeated)."""
    if tree is None:
        tree = syntax_tree(text, path)
    if own is None:
        own = _file_functions(text, tree, path, imported)
    star_names = _star_names(module, path, text, imported)
    context = RuleContext(
        path, SourceText(text, tree), module, enabled, line_map=line_map, traced_elsewhere=traced_elsewhere,
        imported=imported, own=own, unread=unread,
    )
    source = text if parsed_text is None else parsed_text
    context.semantics = scopes.Semantics(
        module, source, star_names, imported.stored_builtins, tree if parsed_text in (None, text) else None
    )
    for cls in rules:
        cls(context).run()
    return context


def _unsuppressed(findings: list[Finding], text: str) -> list[Finding]:
    if not findings or "noqa" not in text.lower():  # the file's tokens read only where a comment may suppress
        return findings
    noqa: dict[int, set[str] | None] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):  # CR-only lines too
            if token.type == tokenize.COMMENT:
                match = NOQA.search(token.string)
                if match:
                    codes = match.group("codes")
                    noqa[token.start[0]] = (
                        None if codes is None else {c.upper() for c in re.split(r"[\s,]+", codes)}
                    )
    except (tokenize.TokenError, SyntaxError):
        return findings

    def suppressed(finding: Finding) -> bool:
        for line in (finding.location.line, finding.location.end_line):
            if line in noqa and (noqa[line] is None or finding.code in noqa[line]):
                return True
        return False

    return [f for f in findings if not suppressed(f)]


def check(data: bytes, path: str, enabled: frozenset[str], traced_elsewhere: frozenset[str] = frozenset(),
          imported: ProjectFunctions = NOTHING, unread: str | None = None) -> FileResult:
    """The findings in one file. Raises :class:`ParseError` for input autota cannot read.
    ``traced_elsewhere``: its module-level functions that other modules call from traced code
    (see :mod:`autota.source.project`); ``imported``: the loop wrappers and growers of the other
    modules of the run (see :class:`autota.source.project.ProjectFunctions`); ``unread``: code
    that runs in the file's namespace and that autota does not read (a notebook's magics)."""
    text, _ = decode(data)
    return FileResult(path, _findings(text, path, enabled, traced_elsewhere=traced_elsewhere, imported=imported, unread=unread))


def fix(data: bytes, path: str, enabled: frozenset[str], unsafe: bool = False,
        traced_elsewhere: frozenset[str] = frozenset(), imported: ProjectFunctions = NOTHING,
        unread: str | None = None) -> FileResult:
    """Apply fixes (safe ones, and unsafe ones if asked) until none applies, as Ruff does.

    Each round applies the fixes that do not overlap an earlier one, then re-checks the new
    text, so fixes that touch the same lines land in later rounds. ``fixed_text`` is ``None``
    when nothing changed.
    """
    text, encoding = decode(data)
    original, applied = text, 0
    for _ in range(MAX_FIX_ROUNDS):
        findings = _findings(text, path, enabled, traced_elsewhere=traced_elsewhere, imported=imported, unread=unread)
        source, chosen, taken = SourceText(text), [], []
        for finding in findings:
            if finding.fix is None or (finding.fix.applicability == "unsafe" and not unsafe):
                continue
            spans = [(source.offset(e.line, e.column), source.offset(e.end_line, e.end_column)) for e in finding.fix.edits]
            if any(s < te and ts < e or s == e == ts == te for s, e in spans for ts, te in taken):
                continue
            taken.extend(spans)
            chosen.extend(finding.fix.edits)
            applied += 1
        if not chosen:
            break
        try:
            new_text = source.apply(chosen)
        except OverlappingEdits as exc:  # pragma: no cover - guarded by the span check above
            raise AssertionError(f"{path}: internal error: {exc}") from None
        error = fix_parse_error(new_text, text, path)  # a fix must never produce code that does not parse
        if error is not None:
            raise AssertionError(f"{path}: internal error: a fix produced code that does not parse ({error})")
        text = new_text
    else:
        findings = _findings(text, path, enabled, traced_elsewhere=traced_elsewhere, imported=imported, unread=unread)
    result = FileResult(path, findings, fixes_applied=applied)
    if text != original:
        result.fixed_text = text.encode(encoding)
    return result
