"""The ``dqx-gx`` command: validate data against a contract, translate a contract into a GX project, lint,
draft a contract from data.

Exit codes: 0 success (for ``validate``: no P0 rule failed), 1 the run is critical
(a P0 rule failed), 2 a contract, input or usage error (a message, no traceback
unless ``--verbose``).
"""

from __future__ import annotations

import argparse
import difflib
import gc
import re
import sys
import traceback
from collections.abc import Sequence
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from dqx_gx.inputs import (
    InputError,
    check_references,
    chosen_with_checks,
    parse_references,
    reported_warnings,
    with_checks,
)
from dqx_gx.notify import DATAHUB_OPTIONS, NOTIFY_ON, Target, parse_target, require_plugins
from dqx_gx.rows.choices import WRITE_FORMATS, OutputError, RowGateError
from dqx_gx.rules.details import DEFAULT_SAMPLES
from dqx_gx.rules.timestamps import run_moment
from dqx_gx.service.command import ServeError, add_serve, run_serve
from dqx_gx.session import SparkStartError, Starting, configure_logging, target
from dqx_gx.sources.choices import FORMATS, SourceError
from dqx_gx.stopwatch import Stopwatch

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from dqx_gx.contract import Contract
    from dqx_gx.rows.choices import Output
    from dqx_gx.run import ContractRun
    from dqx_gx.sources.locate import Located

# Imports of GX, Spark and dqlib are made by the commands that need them: `--help` and `lint`
# start in a fraction of the time (tests/remote/test_startup.py).

EXIT_OK, EXIT_CRITICAL, EXIT_ERROR = 0, 1, 2


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dqx-gx`` command; returns the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    configure_logging(args.verbose)
    from dqx_gx.errors import ChecksError, ContractValidationError, SchemaValidationError

    try:
        code: int = args.handler(args)
        return code
    except (
        ChecksError,
        ContractValidationError,
        SchemaValidationError,
        InputError,
        OutputError,
        RowGateError,
        SparkStartError,
        SourceError,
        ServeError,
    ) as exc:
        if args.verbose:
            traceback.print_exc()
        _error(str(exc))
    except KeyboardInterrupt:
        _error("interrupted")
    except Exception as exc:  # the last line of defence: a message, the traceback only on request
        if args.verbose:
            traceback.print_exc()
        _error(f"{type(exc).__name__}: {exc}" + ("" if args.verbose else " (run with -v for the traceback)"))


def command() -> NoReturn:
    """The ``dqx-gx`` executable: :func:`main`, and an exit that does not collect what the command leaves.

    Python's exit clears every module and collects garbage cycles among everything they held: after a
    validate (GX, pandas, scipy, PySpark) about a second of CPU spent on memory the process is giving back
    anyway. Frozen, those objects are left out of the collections; the exit still runs the atexit handlers,
    flushes the outputs and frees what reference counts free.
    """
    try:
        sys.exit(main())
    finally:
        gc.freeze()


def _error(message: str) -> NoReturn:
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(EXIT_ERROR)


# --- commands -----------------------------------------------------------------------------------------


def _validate(args: argparse.Namespace) -> int:
    if args.data_docs and not args.gx_dir:
        raise InputError("--data-docs needs --gx-dir: data docs are built into a GX file project")
    moment = run_moment(_parse_now(args.now) if args.now else None)
    result_date = _parse_date(args.date) if args.date else None
    tags = _parse_pairs(args.tag, "--tag")
    if args.samples < 0:
        raise InputError(f"--samples {args.samples}: give a number of rows, 0 or more")
    _check_output_file(args.output_file)
    _check_gx_dir(args.gx_dir)
    _check_notify(args.notify)
    clock = Stopwatch()
    where = target(args.master, args.remote)
    from dqx_gx.contract import load_contracts

    notes: list[str] | None = None if args.verbose else []  # the contracts' warnings, summed up in one line
    with reported_warnings(args.verbose, into=notes):
        documents = [load_contracts(path) for path in args.contracts]
        contracts = with_checks([_one_contract(document, args.schema) for document in documents], args.checks)
    given = parse_references(args.reference)
    check_references(contracts, given)
    sources = _locate_inputs(contracts, documents, given, args)
    outputs = _outputs(args, len(contracts))
    # Input refused so far stopped before any JVM (whose start prints to stderr). Now Spark starts
    # on a thread of its own while GX and dqlib load on this one.
    starting = Starting(where, _parse_pairs(args.conf, "--conf"), args.verbose)
    from dqx.common import ResultKey

    import dqx_gx.run  # noqa: F401  GX's import turns on logging.captureWarnings: not inside _reported_warnings
    from dqx_gx.sources.reader import read_located, read_references

    configure_logging(args.verbose)  # again: GX's import pins one of its loggers at INFO
    context = _file_context(args.gx_dir) if args.gx_dir else None
    spark = starting.session()  # joined only now: the JVM starts while GX imports (seconds each)
    clock.lap("start")
    key = ResultKey(result_date or moment.date(), tags)
    options: dict[str, Any] = {
        "now": moment,
        "key": key,
        "context": context,
        "strict_schema": args.strict_schema,
        "data_docs": args.data_docs,
        "allow_sql": args.allow_sql,
        "samples": args.samples,
        "notify": args.notify or [],
        "notify_on": args.notify_on,
    }
    runs: list[ContractRun] = []
    for contract, document, source in zip(contracts, documents, sources, strict=True):  # in turn, one session
        on_server = args.data is None and args.table is None  # the data on a server: its neighbours too
        with reported_warnings(args.verbose):  # about the data: said at once
            references = read_references(
                spark, contract, document, given=given, server=args.server, on_server=on_server
            )
        frame = read_located(spark, source, contract, args.merge_schema)
        clock.lap("read")
        with reported_warnings(args.verbose, into=notes):
            runs.append(_run(contract, frame, {**options, "references": references}, outputs, args))
        clock.lap("run")
    from dqx_gx import report

    rendered = {"table": report.to_table, "json": report.to_json, "junit": report.to_junit}[args.output](*runs)
    _write(rendered, args.output_file)
    if context is not None and args.data_docs:
        _print_data_docs(context, runs)
    _sum_up(notes)
    clock.lap("report")
    if args.verbose:
        print(clock.summary(), file=sys.stderr)
    return EXIT_CRITICAL if any(run.is_critical() for run in runs) else EXIT_OK


def _print_data_docs(context: Any, runs: list[ContractRun]) -> None:
    """Where the data docs are: each site's index, then each run's own page."""
    from dqx_gx.run.docs import run_pages

    for site in context.get_docs_sites_urls():
        print(f"data docs: {site['site_url']}", file=sys.stderr)
    for run in runs:
        for page in run_pages(context, run.checkpoint_result.run_results):
            print(f"data docs page: {page}", file=sys.stderr)


def _run(
    contract: Contract, frame: DataFrame, options: dict[str, Any], outputs: list[tuple[Output, str]], args: Any
) -> ContractRun:
    """One contract's run; with outputs, the rules are built once for the verdict and both. The input is
    read again by each output rather than cached: a file source reads again for less than a cache costs."""
    from dqx_gx.rows.gate import gated, split_annotated, warn_without_row_rules
    from dqx_gx.rows.outputs import write_outputs
    from dqx_gx.run import run_contract

    if not outputs:
        return run_contract(contract, frame, **options)
    with gated(contract, frame, options["references"], now=options["now"], cache=False) as gate:
        run = run_contract(contract, gate.batch, **options)
        warn_without_row_rules(contract, frame, options["references"])
        valid, quarantine = split_annotated(gate.annotated(run))
        chosen = {"--valid": valid, "--quarantine": quarantine}
        written = write_outputs(
            [(chosen[option], output) for output, option in outputs],
            args.write_format or "parquet",
            overwrite=args.overwrite,
        )
    for (_, option), done in zip(outputs, written, strict=True):
        print(
            f"{option.removeprefix('--')}: {done.rows} row{'s' * (done.rows != 1)} → {done.output.path}",
            file=sys.stderr,
        )
    return run


def _translate(args: argparse.Namespace) -> int:
    from dqx_gx.contract import load_contracts, read_document
    from dqx_gx.coverage import contract_coverage
    from dqx_gx.expectations import build_suite
    from dqx_gx.run.artifacts import install

    context = _file_context(args.gx_dir)
    try:
        require_plugins(args.notify or [])
    except ValueError as missing:  # stored all the same: the workers that run the checkpoint may have it
        print(f"warning: {missing}; the workers that run the checkpoint need it", file=sys.stderr)
    for source in args.contracts:
        with reported_warnings(args.verbose):
            document = read_document(source)
            chosen = chosen_with_checks(load_contracts(document), args.schema, args.checks)
            if not chosen:
                raise InputError(f"{source}: the contract declares no schema objects; nothing to translate")
            for index, contract in chosen:
                build = build_suite(contract, allow_sql=args.allow_sql)
                covered = contract_coverage(
                    document, [(index, contract)], allow_sql=args.allow_sql, references=(), not_built=build.skipped
                )
                build.suite.meta["dqx"]["coverage"] = covered.compact()  # what the data docs show beside the suite
                artifacts = install(
                    context,
                    contract,
                    build,
                    data_docs=True,
                    notify=args.notify or [],
                    notify_on=args.notify_on,
                    rewrite_own_actions=True,  # the project's checkpoints as this command line says
                )
                print(
                    f"{contract.check_name}: suite {artifacts.suite.name!r} "
                    f"({len(artifacts.suite.expectations)} expectations), checkpoint {artifacts.checkpoint.name!r}"
                )
    print(f"GX project: {Path(args.gx_dir).resolve() / 'gx'}")
    return EXIT_OK


def _serve(args: argparse.Namespace) -> int:
    return run_serve(args, _parse_pairs(args.conf, "--conf"))


def _draft(args: argparse.Namespace) -> int:
    from dqx_gx.draft.command import run_draft

    return run_draft(args, _parse_pairs(args.conf, "--conf"))


def _lint(args: argparse.Namespace) -> int:
    from dqx_gx.contract import load_contracts
    from dqx_gx.rules.rule import MetricRule, SqlRule

    with reported_warnings(args.verbose):
        contracts = load_contracts(args.contract)
    for contract in contracts:
        sql = sum(isinstance(rule, SqlRule) for rule in contract.rules)
        runnable = len(contract.executable_rules) - sql
        print(
            f"{contract.check_name} ({contract.dataset}): {len(contract.rules)} rules, {runnable} runnable, "
            f"{sql} sql (run only with --allow-sql), {len(contract.skipped_rules)} skipped, "
            f"{len(contract.text_rules)} text"
        )
        for rule in contract.rules:
            if isinstance(rule, SqlRule):
                print(
                    f"  sql      {rule.name}: runs only with --allow-sql, as a single read-only SELECT over the batch"
                )
        for rule in contract.skipped_rules:
            print(f"  skipped  {rule.name}: {rule.reason}")
        for rule in contract.rules:
            if isinstance(rule, MetricRule) and rule.threshold is None:
                print(f"  note     {rule.name}: no operator: recorded, never fails (its rows are marked as warnings)")
        for note in contract.lint_notes:
            print(f"  note     {note}")
    if not contracts:
        print(f"{args.contract}: valid, but it declares no schema objects")
    return EXIT_OK


# --- helpers ------------------------------------------------------------------------------------------


def _one_contract(contracts: list[Contract], schema: str | None) -> Contract:
    """The one contract ``validate`` runs of a document: the one ``--schema`` names, or its only one."""
    from dqx_gx.contract import chosen_contracts

    chosen = [contract for _, contract in chosen_contracts(contracts, schema)]
    if len(chosen) == 1:
        return chosen[0]
    if not chosen:
        raise InputError("the contract declares no schema objects; there is nothing to validate")
    raise InputError(
        f"the contract has {len(chosen)} schema objects ({', '.join(c.dataset for c in chosen)}); "
        "choose one with --schema"
    )


def _locate_inputs(
    contracts: list[Contract], documents: list[list[Contract]], given: dict[str, str], args: argparse.Namespace
) -> list[Located]:
    """Find every source the run will read (paths, formats, servers, references) before Spark starts, so a
    wrong one is one line in a fraction of a second (docs/semantics.md, 'Data in'); each contract's data is then read
    from it."""
    from dqx_gx.sources.locate import declared_datasets, locate, reference_source

    found: list[Located] = []
    for contract, document in zip(contracts, documents, strict=True):
        found.append(
            locate(
                contract,
                server=args.server,
                table=args.table,
                path=args.data,
                data_format=args.format,
                delimiter=args.delimiter,
            )
        )
        declared = declared_datasets(document)
        for name in contract.referenced_datasets & set(given):
            reference_source(name, given[name], declared.get(name))
    return found


def _outputs(args: argparse.Namespace, contracts: int) -> list[tuple[Output, str]]:
    """``--valid`` and ``--quarantine``, checked before the run (an existing output, a file in the way)."""
    from dqx_gx.rows.choices import Output

    outputs = [
        (Output(path), option) for path, option in ((args.valid, "--valid"), (args.quarantine, "--quarantine")) if path
    ]
    if outputs and contracts > 1:
        raise InputError("--valid and --quarantine gate one contract's rows; give one contract")
    unused = [flag for flag, given in (("--write-format", args.write_format), ("--overwrite", args.overwrite)) if given]
    if unused and not outputs:
        verb = "apply" if len(unused) > 1 else "applies"
        raise InputError(f"{' and '.join(unused)} {verb} to --valid and --quarantine, and neither is given")
    if len(outputs) == 2 and outputs[0][0].overlaps(outputs[1][0].path):
        raise InputError(
            f"--valid {args.valid} and --quarantine {args.quarantine}: one would overwrite the other; "
            "give each output a place of its own"
        )
    for output, option in outputs:
        if args.data and output.overlaps(args.data):
            raise InputError(f"{option} {output.path}: overlaps the input, --data {args.data}; write it elsewhere")
        output.check(overwrite=args.overwrite, option=option)
    return outputs


def _sum_up(notes: list[str] | None) -> None:
    """One line for the contract's warnings (lint notes, rules skipped): -v shows each."""
    if notes:
        count = f"{len(notes)} warning{'s' * (len(notes) != 1)}"
        print(f"note: {count} about the contract (-v shows them; dqx-gx lint lists its notes)", file=sys.stderr)


def _check_notify(targets: list[Target] | None) -> None:
    """Refuse before the run a target whose sender is not installed (DataHub's plugin)."""
    try:
        require_plugins(targets or [])
    except ValueError as missing:
        raise InputError(str(missing)) from None


def _check_gx_dir(directory: str | None) -> None:
    if directory and Path(directory).exists() and not Path(directory).is_dir():
        raise InputError(f"--gx-dir {directory}: is a file; give a folder (it is created if needed)")


def _check_output_file(destination: str | None) -> None:
    """Refuse before the run a results file that cannot be written, so its verdict is not lost."""
    if not destination:
        return
    path = Path(destination)
    if path.is_dir():
        raise InputError(f"--output-file {destination}: is a folder; give a file name")
    existing = next(parent for parent in path.resolve().parents if parent.exists())
    if not existing.is_dir():
        raise InputError(f"--output-file {destination}: {existing} is a file, not a folder")


def _file_context(directory: str) -> Any:
    import great_expectations as gx

    from dqx_gx.run.artifacts import quiet_context

    _check_gx_dir(directory)
    root = Path(directory)
    new = not (root / "gx" / "great_expectations.yml").exists()
    root.mkdir(parents=True, exist_ok=True)
    context = quiet_context(gx.get_context(mode="file", project_root_dir=str(root)))
    if new:
        context.variables.save()  # a project dqx-gx creates keeps its progress bars off
    return context


def _write(text: str, destination: str | None) -> None:
    if destination:
        Path(destination).parent.mkdir(parents=True, exist_ok=True)
        Path(destination).write_text(text + "\n", encoding="utf-8")
    else:
        print(text)


def _parse_now(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise InputError(f"--now {text!r} is not an ISO date-time (e.g. 2026-11-22T06:00:00Z)") from None


def _parse_date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise InputError(f"--date {text!r} is not an ISO date (e.g. 2026-11-22)") from None


def _parse_pairs(items: list[str] | None, option: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputError(f"{option} {item!r} is not KEY=VALUE")
        pairs[key.strip()] = value
    return pairs


class _Parser(argparse.ArgumentParser):
    """argparse with the nearest flag or command named in a usage error (``--dta`` → ``--data``)."""

    def error(self, message: str) -> NoReturn:
        words: list[str] = []
        if message.startswith("unrecognized arguments: "):
            words = [w.split("=", 1)[0] for w in message.removeprefix("unrecognized arguments: ").split()]
            known = sorted(self._every_option())
        elif match := re.match(r"argument (\S+): invalid choice: '([^']*)'", message):
            words, known = [match.group(2)], sorted(self._choices(match.group(1)))
        hints = [close[0] for word in words if (close := difflib.get_close_matches(word, known, n=1))]
        super().error(message + (f"; did you mean {', '.join(hints)}?" if hints else ""))

    def _every_option(self) -> set[str]:
        """Every option string of this parser and of its commands' parsers."""
        options = set(self._option_string_actions)
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                for command in action.choices.values():
                    options |= command._every_option() if isinstance(command, _Parser) else set()
        return {option for option in options if option.startswith("--")}

    def _choices(self, dest: str) -> set[str]:
        return {
            str(choice)
            for action in self._actions
            if dest in (action.dest, action.metavar, "/".join(action.option_strings)) and action.choices
            for choice in action.choices
        }


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="dqx-gx",
        description="Run DQX data contracts (ODCS v3.0–v3.2, the DQX native format or the thesis's format) "
        "on Great Expectations over Spark.",
        epilog="Exit codes: 0 ok, 1 a P0 rule failed (validate), 2 contract, input or usage error. "
        "DQX_GX_CLASS_ARCHIVE=off|DIR: where the JVM's class archive is kept (default "
        "$XDG_CACHE_HOME/dqx-gx/jvm, or ~/.cache/dqx-gx/jvm), or none.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    verbosity = _Parser(add_help=False)
    verbosity.add_argument(
        "-v", "--verbose", action="count", default=0, help="show logs and tracebacks (repeat for more)"
    )

    validate = commands.add_parser(
        "validate",
        parents=[verbosity],
        help="check a dataset against a contract through a GX checkpoint on Spark",
        description="Check a dataset against each contract: one line per assertion and a summary. The data is "
        "--data, --table, --server or the contract's only ODCS server; several contracts share one Spark "
        "session and one report. Exits 1 when a P0 rule failed, 2 on a contract or input error.",
    )
    validate.add_argument(
        "contracts",
        nargs="+",
        metavar="CONTRACT",
        help="one or more contracts (ODCS, DQX native or the thesis's format, YAML), run in one Spark session "
        "with one report",
    )
    validate.add_argument("--schema", metavar="NAME", help="the schema object to use when a contract has several")
    where = validate.add_mutually_exclusive_group()
    where.add_argument(
        "--data",
        metavar="PATH",
        help="the dataset: a file, folder or glob Spark can read (default: the contract's only server)",
    )
    where.add_argument("--table", metavar="NAME", help="read this catalog table or view (spark.table)")
    where.add_argument("--server", metavar="NAME", help="read what the contract's ODCS server NAME describes")
    validate.add_argument(
        "--format",
        metavar="FORMAT",
        help=f"data format: {', '.join(FORMATS)}, or any other Spark source (delta, iceberg, ...) "
        "(default: the server's format, else from the file names); CSV has a header; CSV and JSON "
        "are read as text and cast to the declared types",
    )
    validate.add_argument(
        "--delimiter",
        metavar="CHAR",
        help="the field separator of CSV data (default: the server's delimiter, else a comma)",
    )
    validate.add_argument(
        "--merge-schema",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="merge the columns of parquet/ORC files that disagree (default: on for a folder or glob, "
        "off for one file)",
    )
    validate.add_argument(
        "--reference",
        action="append",
        metavar="NAME=PATH",
        help="the dataset a foreign key refers to (relationships 'to: NAME.column'), read like --data; "
        "table:TABLE reads a catalog table (repeatable; a foreign key without it is SKIPPED)",
    )
    validate.add_argument(
        "--now",
        metavar="ISO",
        help="the run's moment, which freshness, completeness and is_not_in_future measure from (default: now; "
        "no zone = UTC)",
    )
    validate.add_argument("--date", metavar="YYYY-MM-DD", help="the date of the results (default: the date of --now)")
    validate.add_argument("--tag", action="append", metavar="KEY=VALUE", help="a tag on every result (repeatable)")
    validate.add_argument(
        "--output", choices=("table", "json", "junit"), default="table", help="result format (default: table)"
    )
    validate.add_argument("--output-file", metavar="PATH", help="write the results here instead of standard output")
    validate.add_argument("--gx-dir", metavar="DIR", help="run in the GX file project at DIR (created if needed)")
    validate.add_argument("--data-docs", action="store_true", help="build GX data docs (needs --gx-dir)")
    validate.add_argument(
        "--strict-schema",
        action="store_true",
        help="stop with an error on a missing column, a type mismatch or NULLs in a required column",
    )
    _allow_sql(validate, "run")
    _notify(validate)
    validate.add_argument(
        "--samples",
        type=int,
        default=DEFAULT_SAMPLES,
        metavar="N",
        help=f"failed rows to show per failing row-level rule, sensitive values as *** "
        f"(default {DEFAULT_SAMPLES}; 0: none)",
    )
    validate.add_argument(
        "--valid",
        metavar="PATH",
        help="write the rows that break no failing P0 rule here (their warnings in _dqx_warnings); "
        "apart from the input and --quarantine",
    )
    validate.add_argument(
        "--quarantine",
        metavar="PATH",
        help="write the rows that break a P0 rule that fails on the batch here, with the _dqx_errors and "
        "_dqx_warnings columns",
    )
    validate.add_argument(
        "--write-format",
        choices=WRITE_FORMATS,
        help="format of --valid and --quarantine (default parquet; csv writes nested columns as JSON text)",
    )
    validate.add_argument("--overwrite", action="store_true", help="replace an existing --valid or --quarantine output")
    _spark_options(validate)
    validate.set_defaults(handler=_validate)

    translate = commands.add_parser(
        "translate",
        parents=[verbosity],
        help="write the contract's suites, validation definitions and checkpoints into a GX file project",
        description="Write one suite, validation definition and checkpoint (with an UpdateDataDocsAction) per "
        "schema object into the GX project at --gx-dir, creating it if needed. Running it twice changes nothing.",
    )
    translate.add_argument("contracts", nargs="+", metavar="CONTRACT", help="one or more contracts (YAML)")
    translate.add_argument("--schema", metavar="NAME", help="only this schema object (of a contract with several)")
    translate.add_argument("--gx-dir", required=True, metavar="DIR", help="the GX project's root directory")
    _allow_sql(translate, "write")
    _notify(translate)
    translate.set_defaults(handler=_translate)

    lint = commands.add_parser(
        "lint",
        parents=[verbosity],
        help="validate a contract and list its warnings, skipped rules and portability notes (no Spark)",
        description="Validate a contract without running it: errors exit 2; warnings, skipped rules and notes "
        "on non-portable forms are printed.",
    )
    lint.add_argument("contract", metavar="CONTRACT", help="an ODCS, DQX native or thesis-format contract (YAML)")
    lint.set_defaults(handler=_lint)

    from dqx_gx.coverage.command import add_command as add_coverage

    add_coverage(commands, [verbosity])

    from dqx_gx.draft.command import add_draft

    draft = add_draft(commands, [verbosity])
    _spark_options(draft)
    draft.set_defaults(handler=_draft)
    _spark_options(add_serve(commands, [verbosity])).set_defaults(handler=_serve)
    return parser


class _Version(argparse.Action):
    """``--version``, reading the installed version only when asked (importlib.metadata is slow to import)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from importlib.metadata import version

        print(f"{parser.prog} {version('dqx-gx')}")
        parser.exit()


def _spark_options(command: argparse.ArgumentParser) -> argparse.ArgumentParser:
    command.add_argument(
        "--master",
        metavar="URL",
        help="Spark master: local[N], spark://host:port, yarn, k8s://... (default: local[*])",
    )
    command.add_argument(
        "--remote",
        metavar="sc://HOST:PORT",
        help="run on a Spark Connect server (default: $SPARK_REMOTE when set; needs the dqx-gx[connect] extra)",
    )
    command.add_argument(
        "--conf", action="append", metavar="KEY=VALUE", help="a Spark configuration setting (repeatable)"
    )
    return command


def _notify(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--notify",
        action="append",
        type=_notify_target,
        metavar="KIND:TARGET",
        help="send one alert per run through GX's actions: slack:URL, teams:URL, webhook:URL or email:ADDRESS; "
        "or publish every run's results to DataHub: datahub:GMS_URL[,KEY=VALUE...] with "
        f"{', '.join(DATAHUB_OPTIONS)} (needs dqx-gx[datahub]); a target may be env:NAME, read when the "
        "checkpoint runs (repeatable)",
    )
    command.add_argument(
        "--notify-on",
        choices=NOTIFY_ON,
        default="rejected",
        help="which verdicts alert: rejected (default), warnings (also passed_with_warnings), always "
        "(DataHub gets every run)",
    )


def _notify_target(text: str) -> Target:
    try:
        return parse_target(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _allow_sql(command: argparse.ArgumentParser, verb: str) -> None:
    """``--allow-sql`` and ``--checks``: what a run or a suite adds to the contract's rules when asked."""
    command.add_argument(
        "--allow-sql",
        action="store_true",
        help=f"{verb} the contract's type: sql rules (each must be a single read-only SELECT over the batch) and "
        "the checks' custom_sql metrics; off by default",
    )
    command.add_argument(
        "--checks",
        action="append",
        metavar="MODULE_OR_FILE[:NAME]",
        help=f"{verb} the hand-written DQX checks (dqlib @check functions) of a Python file or module beside "
        "the contract's rules: every @check it defines, or the one (or list) NAME names; each goes to the "
        "contract of the dataset its datasets= names (repeatable)",
    )


if __name__ == "__main__":
    command()
