"""``type: sql`` rules: a contract's query may read its own dataset and nothing else (docs/semantics.md, 'SQL rules').

A contract's SQL is untrusted input that would run with the Spark session's
rights. It is parsed (sqlglot, Spark dialect) and refused unless it is exactly
one query, then rewritten so that Spark runs only what was checked:

* Every table reference is resolved through sqlglot's scopes. A name bound to a
  CTE of an enclosing ``WITH``, defined before the reference, reads that CTE; a
  CTE's own name inside its body and the name of a later CTE are not bound (Spark
  reads the catalog there: ``WITH payroll AS (SELECT * FROM payroll)`` reads the
  session's ``payroll``). Every other reference must be the batch, as
  ``${object}`` or by the dataset's name, quoted or not, in any case.
* CTEs are renamed ``__dqx_cte_<n>__`` and batch references become ``{batch}``,
  so the text Spark runs names no table the guard did not resolve: Spark's own
  CTE rules (precedence policy, case sensitivity) cannot bind a name elsewhere.
* The text is generated from the checked tree without comments and hints, every
  identifier quoted, so nothing the parser skipped reaches Spark and Spark cannot
  read a name as a keyword (sqlglot parses ``(TABLE t)`` as a column ``TABLE``
  aliased ``t``; Spark, as a subquery reading ``t``).

Refused besides: any statement but a query, ``SELECT … INTO``, ``WITH
RECURSIVE``, ``TRANSFORM … USING`` (runs a shell command), table-valued
functions in FROM (``range``, ``read_files``, even ``explode``: use LATERAL
VIEW), qualified and path tables (``db.t``, ``parquet.`/x```), LATERAL VIEW of
anything but the row generators, ``IDENTIFIER(…)`` and the functions in
:data:`FORBIDDEN_FUNCTIONS`. Functions the application registered in its session
stay callable: they are its code, not the contract's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.scope import Scope, traverse_scope

from dqx_gx.errors import ContractValidationError, first_line

BATCH = "{batch}"
"""The placeholder ``spark.sql(query, batch=df)`` fills in with the batch."""

_BATCH_MARK = "__dqx_batch__"
_CTE_NAME = "__dqx_cte_{}__"
_PLACEHOLDERS = ("${object}", "${table}", "${model}")  # ${model}: datacontract-cli's name for the table
_COLUMN_PLACEHOLDERS = ("${property}", "${column}")

_JVM = "which runs arbitrary JVM code"
_FILES = "which reads files"
_OUTSIDE = "which reaches outside the data (Databricks)"
FORBIDDEN_FUNCTIONS: Mapping[str, str] = MappingProxyType(
    {
        "reflect": _JVM,
        "java_method": _JVM,
        "try_reflect": _JVM,
        "read_files": _FILES,
        "from_protobuf": _FILES,  # its descriptor-file argument
        "to_protobuf": _FILES,
        "identifier": "which names a table or function only when it runs",
        "secret": _OUTSIDE,
        "try_secret": _OUTSIDE,
        "http_request": _OUTSIDE,
        "ai_query": _OUTSIDE,
    }
)
"""Function name -> why a contract may not call it."""

GENERATORS = frozenset(
    {"explode", "explode_outer", "posexplode", "posexplode_outer", "inline", "inline_outer", "stack", "json_tuple"}
)
"""What LATERAL VIEW may apply: functions that expand a row's own values into rows."""

_TABLE_PARTS = frozenset({"this", "db", "catalog", "alias", "joins", "laterals", "pivots", "sample"})
"""What a table reference may carry; time travel, options and the like are refused."""


_SOURCES = (exp.Table, exp.Subquery, exp.Values, exp.Lateral)
"""What FROM and JOIN may name; a table-valued function sqlglot does not wrap in a table (UNNEST) is none of them."""


def quote_identifier(name: str) -> str:
    """``name`` as a Spark SQL identifier in backticks: survives dots, spaces and backticks."""
    return "`" + name.replace("`", "``") + "`"


def unfilled_placeholder(query: str, column: str | None) -> str | None:
    """The first ``${NAME}`` template placeholder of ``query`` that dqx-gx does not fill, if any: run as it is,
    it would be compared as literal text (or fail to parse) and say nothing about the data. The column
    placeholders are filled only for a rule on a property (``column``)."""
    filled = {*_PLACEHOLDERS, *(_COLUMN_PLACEHOLDERS if column is not None else ())}
    return next((found for found in re.findall(r"\$\{[^}]*\}", query) if found not in filled), None)


def unfilled_reason(placeholder: str) -> str:
    return (
        f"its query holds the placeholder {placeholder}, which dqx-gx cannot fill (it fills "
        f"{', '.join(_PLACEHOLDERS)} with the batch and, on a property, {', '.join(_COLUMN_PLACEHOLDERS)} with its "
        "column)"
    )


def checked_query(query: str, *, rule: str, batch_names: Iterable[str], column: str | None) -> str:
    """The query ready for ``spark.sql(query, batch=df)``, or ContractValidationError saying why it is refused.

    ``batch_names`` are the names the query may use for the batch (the dataset's
    physical and logical names); ``column`` fills ``${property}``.
    """
    text = query
    for placeholder in _PLACEHOLDERS:
        text = text.replace(placeholder, _BATCH_MARK)
    if column is not None:
        for placeholder in _COLUMN_PLACEHOLDERS:
            text = text.replace(placeholder, quote_identifier(column))
    try:
        statements = [s for s in sqlglot.parse(text, read="spark") if s is not None]
    except Exception as exc:  # sqlglot also fails with AssertionError, RecursionError… on malformed text
        raise _refused(rule, f"it cannot be parsed as Spark SQL ({first_line(exc)})") from None
    if len(statements) != 1:
        raise _refused(rule, f"it holds {len(statements)} statements; give exactly one SELECT")
    (tree,) = statements
    if not isinstance(tree, exp.Query):
        raise _refused(rule, f"it is a {tree.key.upper()} statement; only a read-only SELECT may run")
    for select in tree.find_all(exp.Select):
        select.set("hint", None)  # planner hints name tables without reading them; results do not depend on them
    for node in tree.walk():
        why = _forbidden(node)
        if why:
            raise _refused(rule, why)
    allowed = {name.lower() for name in batch_names} | {_BATCH_MARK}
    _rewrite(tree, _bindings(tree, rule), allowed, rule)
    spark_sql = tree.sql(dialect="spark", comments=False, identify=True)
    return spark_sql.replace("{", "{{").replace("}", "}}").replace(_BATCH_MARK, BATCH)


def _forbidden(node: exp.Expr) -> str | None:
    """Why ``node`` alone makes the query unsafe, or None."""
    if isinstance(node, exp.DDL | exp.DML | exp.Command):
        return f"it holds a {node.key.upper()} statement; only a read-only SELECT may run"
    if isinstance(node, exp.Into):
        return "it writes its result into a table (SELECT … INTO); only a read-only SELECT may run"
    if isinstance(node, exp.QueryTransform):
        return "it pipes rows through a command (TRANSFORM … USING), which runs a program on the cluster"
    if isinstance(node, exp.Placeholder):
        filled = ", ".join(_PLACEHOLDERS + _COLUMN_PLACEHOLDERS)
        return f"it holds the placeholder {node.sql(dialect='spark')}; only {filled} are filled in"
    if isinstance(node, exp.With) and node.recursive:
        return "it uses WITH RECURSIVE; only plain CTEs may be used"
    if isinstance(node, exp.Func):
        for name in _function_names(node):
            if name in FORBIDDEN_FUNCTIONS:
                return f"it calls {name}(), {FORBIDDEN_FUNCTIONS[name]}"
    if isinstance(node, exp.Lateral) and not isinstance(node.this, exp.Subquery):
        names = _function_names(node.this) if isinstance(node.this, exp.Func) else set()
        if not names & GENERATORS:
            shown = node.this.sql(dialect="spark")
            return f"its LATERAL VIEW applies {shown}; only {', '.join(sorted(GENERATORS))} may expand a row"
    if isinstance(node, exp.From | exp.Join) and not isinstance(node.this, _SOURCES):
        return f"it reads from {node.this.sql(dialect='spark')}; it may read only the batch"
    if isinstance(node, exp.Table):
        if not isinstance(node.this, exp.Identifier):
            return f"it reads from {node.this.sql(dialect='spark')}; it may read only the batch"
        extra = sorted(key for key, value in node.args.items() if value and key not in _TABLE_PARTS)
        if extra:
            return f"it reads {node.sql(dialect='spark')}: a table reference may not carry {', '.join(extra)}"
        if node.alias and not isinstance(node.args["alias"].this, exp.Identifier):
            return f"it reads {node.sql(dialect='spark')}: a table alias must be a name"
    return None


def _function_names(function: exp.Func) -> set[str]:
    """The lower-case names ``function`` is called by in Spark SQL."""
    if isinstance(function, exp.Anonymous):
        return {function.name.lower()}
    return {name.lower() for name in function.sql_names()}


def _bindings(tree: exp.Query, rule: str) -> list[int | None]:
    """For each table reference of ``tree`` (in ``find_all`` order), the CTE it reads (its index), or None.

    Scopes are built on a copy whose table and CTE names are lower-cased, as
    Spark compares them, since sqlglot's scopes compare names as written. Only
    CTE bindings count: sqlglot also lets a LATERAL subquery see earlier FROM
    items by alias, which Spark does not for table names.
    """
    probe = tree.copy()
    ctes = {id(cte): number for number, cte in enumerate(probe.find_all(exp.CTE))}
    for cte in probe.find_all(exp.CTE):
        name = cte.args["alias"].this
        name.set("this", name.name.lower())
    tables = list(probe.find_all(exp.Table))
    for table in tables:
        table.this.set("this", table.name.lower())
    try:
        scopes = traverse_scope(probe)
    except Exception as exc:  # as for parsing: whatever sqlglot cannot place is refused
        raise _refused(rule, f"its table references cannot be resolved ({first_line(exc)})") from None
    found: dict[int, int | None] = {}
    for scope in scopes:
        for table in scope.tables:
            source = scope.cte_sources.get(table.name)
            body = source.expression.find_ancestor(exp.CTE) if isinstance(source, Scope) else None
            binding = None if body is None or table.db or table.catalog else ctes[id(body)]
            if found.setdefault(id(table), binding) != binding:
                raise _refused(rule, f"table {table.name!r} resolves differently in two scopes")
    unplaced = [table for table in tables if id(table) not in found]
    if unplaced:
        raise _refused(rule, f"table {unplaced[0].name!r} is in a place the guard cannot resolve")
    return [found[id(table)] for table in tables]


def _rewrite(tree: exp.Query, bindings: list[int | None], allowed: set[str], rule: str) -> None:
    """Point every table reference at ``{batch}`` or its renamed CTE; refuse any other table."""
    for table, binding in zip(list(tree.find_all(exp.Table)), bindings, strict=True):
        if binding is not None:
            target = _CTE_NAME.format(binding)
        elif ".".join(part.name.lower() for part in table.parts) in allowed:
            target = _BATCH_MARK
        elif table.db or table.catalog:
            shown = ".".join(part.sql(dialect="spark") for part in table.parts)
            raise _refused(rule, f"it reads {shown}; it may read only the batch")
        else:
            raise _refused(
                rule,
                f"it reads table {table.name!r}; it may read only the batch (as ${{object}} or by the dataset's name)",
            )
        if not table.alias and table.name != _BATCH_MARK:
            table.set("alias", exp.TableAlias(this=table.this.copy()))  # keeps `name.column` valid
        table.set("this", exp.to_identifier(target))
        table.set("db", None)
        table.set("catalog", None)
    for number, cte in enumerate(tree.find_all(exp.CTE)):
        cte.args["alias"].set("this", exp.to_identifier(_CTE_NAME.format(number)))


def _refused(rule: str, why: str) -> ContractValidationError:
    return ContractValidationError(f"{rule}: the SQL query is refused: {why}")
