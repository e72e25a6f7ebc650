"""The differential generator's long run: thousands of generated programs, fixed and run before and after.

::

    python benchmarks/differential.py --examples 2000              # every rule with a fix
    python benchmarks/differential.py --rules AT101 AT102 --examples 2000 --seed 7 --show 3

``--examples`` is per rule. Each program is fixed with autota's real ``fix`` (only its rule
enabled; ``--unsafe-fixes`` for AT401, whose differences must be the ones its doc names) and run
in fresh processes before and after (see ``tests/differential/harness.py``). Prints, per rule,
how many programs were drawn, fixed and changed, the changes counted by twist, and the first
``--show`` changed programs in full; exits 1 where a safe fix changed a result.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.differential.generate import draw_programs  # noqa: E402
from tests.differential.harness import judge  # noqa: E402
from tests.differential.report import census, undocumented  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2000, help="programs per rule")
    parser.add_argument("--rules", nargs="*", default=["AT101", "AT102", "AT201", "AT202", "AT204", "AT401"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=2, help="changed programs to print in full, per rule")
    parser.add_argument("--save", help="append the changed programs to this file, one JSON object a line")
    parser.add_argument("--chunk", type=int, default=100, help="programs judged per pair of processes")
    args = parser.parse_args(argv)
    bad = 0
    for rule in args.rules:
        start = time.perf_counter()
        programs = draw_programs(rule, args.examples, args.seed)
        verdicts = []
        for k in range(0, len(programs), args.chunk):
            verdicts += judge(programs[k : k + args.chunk])
            so_far = [v for v in verdicts if v.fixed is not None]
            bad_so_far = sum(1 for v in so_far if (undocumented(v) if v.program.unsafe else v.changes))
            print(f"  {rule}: {len(verdicts)} judged, {len(so_far)} fixed, {bad_so_far} changed, "
                  f"{time.perf_counter() - start:.0f} s", flush=True)
        elapsed = time.perf_counter() - start
        fixed = [v for v in verdicts if v.fixed is not None]
        changed = [v for v in fixed if (undocumented(v) if v.program.unsafe else v.changes)]
        bad += len(changed)
        print(f"{rule}: {len(programs)} programs, {len(fixed)} fixed, {len(changed)} changed "
              f"{'beyond the unsafe fix doc ' if rule == 'AT401' else ''}in {elapsed:.0f} s")
        for line in census(changed, fixed):
            print("   ", line)
        if args.save:
            with open(args.save, "a") as out:
                for v in changed:
                    p = v.program
                    out.write(json.dumps({"rule": p.rule, "family": p.family, "twists": p.twists, "source": p.source,
                                          "calls": p.calls, "unsafe": p.unsafe, "changes": v.changes}) + "\n")
        for v in changed[: args.show]:
            print(v.report())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
