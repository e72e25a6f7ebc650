"""``path:line:col: CODE [*] message`` lines and a summary, as Ruff prints them."""

from __future__ import annotations

from autota.cli.formats import Report, where


def render(report: Report) -> str:
    lines = []
    for f in report.findings:
        mark = " [*]" if report.offers_fix(f) else ""
        lines.append(f"{where(f)}: {f.code}{mark} {f.text}")
    if report.color:
        lines = [_paint(line, f) for line, f in zip(lines, report.findings)]
    if not report.summary:
        return "".join(f"{line}\n" for line in lines)
    total = len(report.findings)
    fixable = sum(report.offers_fix(f) for f in report.findings)
    hidden = sum(f.fix is not None and not report.offers_fix(f) for f in report.findings)
    if report.command == "fix" and report.fixed:
        lines.append(f"Fixed {_plural(report.fixed, 'finding')}, {total} remaining.")
    elif total:
        summary = f"{_plural(total, 'finding')}, {fixable} fixable with autota fix"
        if hidden:
            summary += f" ({hidden} more with --unsafe-fixes)"
        lines.append(summary + ".")
    elif not report.errors:
        lines.append("All checks passed.")
    return "\n".join(lines) + "\n"


BOLD, RED, CYAN, RESET = "\x1b[1m", "\x1b[31m", "\x1b[36m", "\x1b[0m"


def _paint(line: str, finding) -> str:
    """``line`` with its place in bold, its code in red and a ``[*]`` mark in cyan."""
    place = where(finding)
    rest = line[len(place) + 2 + len(finding.code):]
    mark = " [*]" if rest.startswith(" [*]") else ""
    rest = rest[len(mark):]
    return f"{BOLD}{place}{RESET}: {BOLD}{RED}{finding.code}{RESET}{CYAN}{mark}{RESET}{rest}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
