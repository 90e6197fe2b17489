"""``type: sql`` rules: only a single read-only SELECT over the batch is ever run.

A contract's SQL is untrusted input that would run with the Spark session's
rights. Before anything reaches Spark the query is parsed (sqlglot, Spark
dialect) and refused unless it is exactly one query statement that reads no
table but the batch (named ``${object}`` as ODCS writes it, or by the dataset's
name), no file (``parquet.`/path```), no table-valued function, and calls no
JVM reflection. The batch is then passed to ``spark.sql`` as a DataFrame
argument: PySpark registers it under a random temporary name for the duration
of the call and drops it afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable

import sqlglot
from sqlglot import exp

from dqx_gx.errors import ContractValidationError
from dqx_gx.spark.columns import quote_identifier

BATCH = "{batch}"
"""The placeholder ``spark.sql(query, batch=df)`` fills in with the batch."""

_BATCH_MARK = "__dqx_batch__"
_PLACEHOLDERS = ("${object}", "${table}")
_COLUMN_PLACEHOLDERS = ("${property}", "${column}")
_FORBIDDEN_FUNCTIONS = frozenset({"reflect", "java_method", "try_reflect"})
"""Spark functions that call arbitrary static JVM methods."""


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
    except sqlglot.errors.SqlglotError as exc:
        raise _refused(rule, f"it cannot be parsed as Spark SQL ({str(exc).splitlines()[0]})") from None
    if len(statements) != 1:
        raise _refused(rule, f"it holds {len(statements)} statements; give exactly one SELECT")
    (tree,) = statements
    if not isinstance(tree, exp.Query):
        raise _refused(rule, f"it is a {tree.key.upper()} statement; only a read-only SELECT may run")
    for function in tree.find_all(exp.Anonymous):
        if function.name.lower() in _FORBIDDEN_FUNCTIONS:
            raise _refused(rule, f"it calls {function.name}(), which runs arbitrary JVM code")
    allowed = {name.lower() for name in batch_names} | {_BATCH_MARK}
    common_tables = {cte.alias.lower() for cte in tree.find_all(exp.CTE)}
    for table in tree.find_all(exp.Table):
        if not isinstance(table.this, exp.Identifier):
            raise _refused(rule, f"it reads from {table.this.sql(dialect='spark')}; it may read only the batch")
        if table.db or table.catalog:
            raise _refused(rule, f"it reads {table.sql(dialect='spark')}; it may read only the batch")
        name = table.name.lower()
        if name in common_tables:
            continue
        if name not in allowed:
            raise _refused(
                rule,
                f"it reads table {table.name!r}; it may read only the batch (as ${{object}} or by the dataset's name)",
            )
        if table.alias == "":
            table.set("alias", exp.TableAlias(this=exp.to_identifier(table.name)))  # keeps `name.column` valid
        table.set("this", exp.to_identifier(_BATCH_MARK))
    spark_sql = tree.sql(dialect="spark")
    return spark_sql.replace("{", "{{").replace("}", "}}").replace(_BATCH_MARK, BATCH)


def _refused(rule: str, why: str) -> ContractValidationError:
    return ContractValidationError(f"{rule}: the SQL query is refused: {why}")
