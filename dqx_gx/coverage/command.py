"""``dqx-gx coverage``: the table (or JSON) of what a contract enforces, and its exit code."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from dqx_gx.inputs import check_references, chosen_with_checks, parse_references, reported_warnings

EXIT_OK, EXIT_FOUND = 0, 1


def add_command(commands: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Register ``coverage`` on the ``dqx-gx`` subcommands."""
    command = commands.add_parser(
        "coverage",
        parents=parents,
        help="list every element of a contract and what becomes of it: enforced, applied, documented, skipped "
        "(no Spark)",
        description="List every element of the contract document by its JSON pointer, and what becomes of it in "
        "a run: enforced (with the expectations that check it), applied (shapes the run, checks nothing), "
        "documented (nothing can check it) or skipped (with the reason). Exits 1 with --fail-on when an element "
        "has that status, 2 on a contract error.",
    )
    command.add_argument("contract", metavar="CONTRACT", help="an ODCS, DQX native or thesis-format contract (YAML)")
    command.add_argument("--schema", metavar="NAME", help="only this schema object (default: all of them)")
    command.add_argument("--output", choices=("table", "json"), default="table", help="format (default: table)")
    command.add_argument(
        "--fail-on",
        action="append",
        choices=("skipped", "documented"),  # Status.SKIPPED, Status.DOCUMENTED, without loading the model
        help="exit 1 when any element has this status (repeatable)",
    )
    command.add_argument(
        "--allow-sql", action="store_true", help="as validate --allow-sql: type: sql rules count as enforced"
    )
    command.add_argument(
        "--checks",
        action="append",
        metavar="MODULE_OR_FILE[:NAME]",
        help="as validate --checks: list the hand-written assertions too (loading them imports dqlib; repeatable)",
    )
    command.add_argument(
        "--reference",
        action="append",
        metavar="NAME[=PATH]",
        help="as validate --reference: foreign keys to NAME count as enforced (the path is not read; repeatable)",
    )
    command.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # Imported when run, as cli.py does: registering the command must not slow every other one.
    from dqx_gx.contract import load_contracts, read_document  # noqa: PLC0415
    from dqx_gx.coverage import contract_coverage  # noqa: PLC0415

    given = parse_references(args.reference, paths=False)
    with reported_warnings(args.verbose):
        document = read_document(args.contract)
        contracts = load_contracts(document)
    with reported_warnings(args.verbose):
        chosen = chosen_with_checks(contracts, args.schema, args.checks)
    check_references([contract for _, contract in chosen], given)
    report = contract_coverage(document, chosen, allow_sql=args.allow_sql, references=set(given), not_built={})
    if args.output == "json":
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        print(table(report))
    failing = [status for status in args.fail_on or [] if report.counts[status]]
    if failing:
        found = ", ".join(f"{report.counts[status]} {status}" for status in failing)
        print(f"coverage: {found} (--fail-on {' '.join(args.fail_on)})", file=sys.stderr)
    return EXIT_FOUND if failing else EXIT_OK


def table(report: Any) -> str:
    """One line per element (status, pointer, element, then the expectations or the reason), then the counts."""
    rows = [
        (
            e.status.value,
            e.path,
            e.element,
            ", ".join(f"{c.type} ({c.rule})" for c in e.expectations)
            + (f"; {e.reason}" if e.expectations and e.reason else "")
            if e.expectations
            else e.reason or "",
        )
        for e in report.elements
    ]
    status_width = max((len(r[0]) for r in rows), default=0)
    path_width = min(max((len(r[1]) for r in rows), default=0), 48)
    lines = [f"{report.contract}: {len(rows)} elements"]
    lines += [
        f"  {s:<{status_width}}  {p:<{path_width}}  {e} — {d}"
        if d
        else f"  {s:<{status_width}}  {p:<{path_width}}  {e}"
        for s, p, e, d in rows
    ]
    lines.append(", ".join(f"{n} {status}" for status, n in report.counts.items()))
    return "\n".join(lines)
