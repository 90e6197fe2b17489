"""The SQL guard (docs/semantics.md, 'SQL rules'): a contract's query reads its own dataset and nothing else.

A generated corpus of queries, each with its verdict: refused, or allowed and then run in Spark
against the batch while a temporary view ``payroll`` of the same columns holds a secret. An
allowed query must run and its result must not hold the secret; its rewritten text must name no
table but ``{batch}`` and the guard's renamed CTEs. The query templates put the table under test
in every place a table can stand (FROM, JOIN, subqueries in FROM/WHERE/SELECT, set operations,
LATERAL, CTE bodies, nested CTEs); the names under test are the batch's (quoted, case-varied,
placeholders) or another table's (the view, qualified, paths, table-valued functions).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import sqlglot
from pyspark.errors import ParseException
from pyspark.sql import DataFrame, SparkSession
from sqlglot import exp

from dqx_gx import ContractValidationError, run_contract
from dqx_gx.rules.sql_guard import checked_query
from tests.documents import one_table

SECRET = 987654321
BATCH_NAMES = ("orders_tbl", "orders")
REFUSED = "r: the SQL query is refused: "


@dataclass(frozen=True)
class Case:
    query: str
    allowed: bool
    runs: bool = True
    """An allowed query that does not run is one Spark cannot parse once the guard has rewritten it."""

    def __str__(self) -> str:
        return ("allowed: " if self.allowed else "refused: ") + self.query


BATCH_REFS = ("orders_tbl", "ORDERS_TBL", "`orders_tbl`", "`Orders_Tbl`", "${object}", "${table}", "orders")
"""How a query may name the batch: the dataset's physical and logical names, quoted or not, any case."""

FOREIGN_REFS = (
    "payroll",
    "PAYROLL",
    "`payroll`",
    "`PayRoll`",
    "`pay``roll`",
    "default.payroll",
    "spark_catalog.default.payroll",
    "global_temp.payroll",
    "orders_tbl.payroll",
    "orders_tbl2",
    "parquet.`/tmp/payroll.parquet`",
    "`parquet`.`/tmp/payroll.parquet`",
    "json.`/etc/passwd`",
    "csv.`file:/etc/passwd`",
    "text.`/etc/passwd`",
    "delta.`/tmp/payroll`",
    "`file:/etc/passwd`",
    "read_files('/etc/passwd')",
    "range(10)",
    "IDENTIFIER('payroll')",
    "TABLE(payroll)",
    "(TABLE payroll)",
    "{batch}",
)
"""Names of anything but the batch."""

TEMPLATES = (
    "SELECT MAX(amount) FROM {t}",
    "SELECT MAX(${{property}}) FROM {t}",
    "SELECT COUNT(*) FROM {t} AS x WHERE x.amount > 0",
    "SELECT MAX(amount) FROM (SELECT * FROM {t}) AS sub",
    "SELECT MAX(amount) FROM (SELECT * FROM (SELECT amount FROM {t}) AS s1) AS s2",
    "SELECT COUNT(*) FROM {b} WHERE amount IN (SELECT amount FROM {t})",
    "SELECT COUNT(*) FROM {b} AS o WHERE EXISTS (SELECT 1 FROM {t} AS p WHERE p.id = o.id)",
    "SELECT (SELECT MAX(amount) FROM {t})",
    "SELECT MAX(amount) + (SELECT MIN(amount) FROM {t}) FROM {b}",
    "SELECT MAX(amount) FROM {b} HAVING MAX(amount) > (SELECT MIN(amount) FROM {t})",
    "SELECT MAX(amount) FROM (SELECT amount FROM {b} UNION ALL SELECT amount FROM {t}) AS u",
    "SELECT COUNT(*) FROM (SELECT id FROM {b} INTERSECT SELECT id FROM {t}) AS i",
    "SELECT COUNT(*) FROM (SELECT id FROM {t} EXCEPT SELECT id FROM {b}) AS e",
    "SELECT MAX(amount) FROM {b} UNION SELECT MAX(amount) FROM {t}",
    "SELECT MAX(p.amount) FROM {b} AS o JOIN {t} AS p ON o.id = p.id",
    "SELECT MAX(p.amount) FROM {b} AS o LEFT JOIN {t} AS p ON o.id = p.id AND p.amount > 0",
    "SELECT COUNT(*) FROM {b} AS o, {t} AS p",
    "SELECT COUNT(*) FROM {b} AS o CROSS JOIN {t} AS p",
    "SELECT COUNT(*) FROM {b} AS o LEFT SEMI JOIN {t} AS p ON o.id = p.id",
    "SELECT COUNT(*) FROM {b} AS o JOIN {b} AS q ON o.id IN (SELECT id FROM {t})",
    "SELECT MAX(v) FROM {t} LATERAL VIEW explode(tags) e AS v",
    "SELECT MAX(v) FROM {t} LATERAL VIEW OUTER posexplode(tags) e AS p, v",
    "SELECT MAX(v) FROM {b} LATERAL VIEW explode(array((SELECT MAX(amount) FROM {t}))) e AS v",
    "SELECT MAX(p.amount) FROM {b} AS o, LATERAL (SELECT * FROM {t} AS q WHERE q.id = o.id) AS p",
    "SELECT MAX(a) FROM VALUES (1), (2) AS v(a) WHERE a < (SELECT MAX(amount) FROM {t})",
    "WITH c AS (SELECT * FROM {t}) SELECT MAX(amount) FROM c",
    "WITH c AS (SELECT * FROM {b}), d AS (SELECT * FROM {t}) SELECT MAX(amount) FROM d",
    "WITH c AS (SELECT * FROM {b}) SELECT MAX(amount) FROM c WHERE id IN (SELECT id FROM {t})",
    "WITH c AS (WITH d AS (SELECT * FROM {t}) SELECT * FROM d) SELECT MAX(amount) FROM c",
    "SELECT (WITH c AS (SELECT * FROM {t}) SELECT MAX(amount) FROM c)",
    "SELECT MAX(amount) FROM (WITH c AS (SELECT * FROM {t}) SELECT * FROM c) AS s",
    "SELECT MAX(amount) FROM {t} -- , payroll",
    "SELECT MAX(amount) /* FROM payroll */ FROM {t}",
    "SELECT /*+ BROADCAST(payroll) */ MAX(amount) FROM {t}",
    "SELECT MAX(amount) FROM {t} TABLESAMPLE (100 PERCENT)",
    "SELECT COUNT(*) FROM {t} PIVOT (SUM(amount) FOR id IN (1, 2))",
    "SELECT MAX(amount) FROM {t} GROUP BY id HAVING COUNT(*) > 0 ORDER BY 1 DESC LIMIT 1",
    "FROM {t} |> SELECT MAX(amount)",
)
"""Queries over the batch ``{b}`` with one table under test ``{t}``; each gives one number over the batch."""

CTE_CASES = (
    # A CTE named like another view reads what its body reads; its own name inside the body is the catalog's.
    Case("WITH payroll AS (SELECT * FROM payroll) SELECT MAX(secret) FROM payroll", allowed=False),
    Case("WITH payroll AS (SELECT * FROM orders_tbl) SELECT MAX(amount) FROM payroll", allowed=True),
    Case("WITH Payroll AS (SELECT * FROM orders_tbl) SELECT MAX(amount) FROM PAYROLL", allowed=True),
    Case("WITH `payroll` AS (SELECT * FROM orders_tbl) SELECT MAX(amount) FROM `PAYROLL`", allowed=True),
    Case("WITH orders_tbl AS (SELECT * FROM orders_tbl WHERE amount > 10) SELECT MAX(amount) FROM orders_tbl", True),
    Case("WITH payroll AS (SELECT * FROM orders_tbl) SELECT (SELECT MAX(amount) FROM payroll)", allowed=True),
    Case(
        "WITH payroll AS (SELECT * FROM orders_tbl) "
        "SELECT MAX(amount) FROM (WITH payroll AS (SELECT * FROM payroll) SELECT * FROM payroll) AS s",
        allowed=True,
    ),
    # A forward reference is not to the later CTE: Spark reads the catalog there.
    Case("WITH a AS (SELECT * FROM payroll), payroll AS (SELECT * FROM orders_tbl) SELECT MAX(secret) FROM a", False),
    Case("WITH a AS (SELECT * FROM b), b AS (SELECT * FROM orders_tbl) SELECT MAX(amount) FROM a", allowed=False),
    Case(
        "WITH a AS (SELECT * FROM orders_tbl), orders_tbl AS (SELECT amount + 1 AS amount FROM a) "
        "SELECT MAX(amount) FROM a",
        allowed=True,
    ),
    Case("WITH a AS (SELECT * FROM orders_tbl), b AS (SELECT * FROM a) SELECT MAX(amount) FROM b", allowed=True),
    # A CTE is visible only inside the query that defines it.
    Case(
        "SELECT MAX(amount) FROM (WITH payroll AS (SELECT * FROM orders_tbl) SELECT * FROM payroll) AS s, payroll",
        allowed=False,
    ),
    Case(
        "WITH a AS (WITH payroll AS (SELECT * FROM orders_tbl) SELECT * FROM payroll), "
        "c AS (SELECT * FROM payroll) SELECT MAX(amount) FROM c",
        allowed=False,
    ),
    Case(
        "SELECT (WITH payroll AS (SELECT * FROM orders_tbl) SELECT MIN(amount) FROM payroll) "
        "+ (SELECT MAX(amount) FROM payroll)",
        allowed=False,
    ),
    Case("SELECT MAX(amount) FROM orders_tbl AS payroll, LATERAL (SELECT * FROM payroll) AS p", allowed=False),
    Case("WITH c AS (SELECT * FROM orders_tbl) SELECT MAX(amount) FROM c UNION ALL SELECT MIN(amount) FROM c", True),
    Case("SELECT 1 UNION ALL (WITH c AS (SELECT * FROM orders_tbl) SELECT MAX(amount) FROM c)", allowed=True),
    Case("WITH c(x) AS (SELECT amount FROM orders_tbl) SELECT MAX(c.x) FROM c", allowed=True),
    Case("WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT MAX(n) FROM r", False),
)

COMMENT_CASES = (
    Case("SELECT MAX(amount) FROM orders_tbl --\n, payroll", allowed=False),
    Case("SELECT MAX(amount) FROM orders_tbl /* */, payroll", allowed=False),
    Case("SELECT MAX(amount) FROM orders_tbl /* /* */ , payroll */", allowed=True),  # comments nest in Spark
    Case("SELECT MAX(amount) FROM orders_tbl -- */ , payroll", allowed=True),
    Case("/* payroll */ SELECT MAX(amount) FROM orders_tbl", allowed=True),
    Case("SELECT '{batch}', '__dqx_cte_0__' FROM orders_tbl", allowed=True),
    Case("SELECT MAX(amount) FROM __dqx_cte_0__", allowed=False),
    Case("SELECT MAX(amount) FROM orders_tbl WHERE id = :id", allowed=False),
    Case("SELECT MAX(amount) FROM orders_tbl WHERE id = ?", allowed=False),
    Case("SELECT MAX(amount) FROM orders_tbl WHERE name = {'payroll'}", allowed=False),
    Case("SELECT MAX(amount) FROM orders_tbl; SELECT 1", allowed=False),
    Case("", allowed=False),
    Case("-- nothing", allowed=False),
)

STRING_CASES = (
    # Spark runs text generated from the parsed tree: each literal must come back as one literal.
    Case(r"SELECT 'a\' , (SELECT MAX(secret) FROM payroll) , ' FROM orders_tbl", allowed=True),
    Case("SELECT 'a'' , (SELECT MAX(secret) FROM payroll) , ''' FROM orders_tbl", allowed=True),
    Case(r"SELECT '\u0027, (SELECT MAX(secret) FROM payroll), \u0027' FROM orders_tbl", allowed=True),
    Case(r'SELECT "a\" , (SELECT MAX(secret) FROM payroll) , " FROM orders_tbl', allowed=True),
    Case("SELECT 1 AS `a``, (SELECT MAX(secret) FROM payroll), ``b` FROM orders_tbl", allowed=True),
    Case(r"SELECT 'x\\', (SELECT MAX(secret) FROM payroll), '\\' FROM orders_tbl", allowed=False),
    Case(r"SELECT r'\' , (SELECT MAX(secret) FROM payroll) , ' FROM orders_tbl", allowed=False),  # raw string
    Case(r"SELECT R'\', (SELECT MAX(secret) FROM payroll) AS x, '' FROM orders_tbl", allowed=False),
    Case("SELECT 'a' -- \\\n, (SELECT MAX(secret) FROM payroll) FROM orders_tbl", allowed=False),
    # Spark reads (TABLE payroll) as a subquery, sqlglot as a column TABLE: it must come back quoted.
    Case("SELECT (TABLE payroll)", allowed=True, runs=False),
)

FUNCTION_CASES = (
    Case("SELECT reflect('java.lang.System', 'exit', 0)", allowed=False),
    Case("SELECT REFLECT('java.lang.System', 'getProperty', 'user.name')", allowed=False),
    Case("SELECT `java_method`('java.lang.System', 'getProperty', 'user.name')", allowed=False),
    Case("SELECT try_reflect('java.lang.System', 'getProperty', 'user.name')", allowed=False),
    Case("SELECT system.builtin.java_method('java.lang.System', 'getProperty', 'user.name')", allowed=False),
    Case("SELECT IDENTIFIER('java_method')('java.lang.System', 'getProperty', 'user.name')", allowed=False),
    Case("SELECT MAX(IDENTIFIER('amount')) FROM orders_tbl", allowed=False),
    Case("SELECT COUNT(*) FROM (SELECT TRANSFORM(amount) USING 'cat' AS (b) FROM orders_tbl)", allowed=False),
    Case("SELECT COUNT(read_files('/etc/passwd')) FROM orders_tbl", allowed=False),
    Case("SELECT from_protobuf(CAST(name AS BINARY), 'M', '/etc/passwd') FROM orders_tbl", allowed=False),
    Case("SELECT secret('scope', 'key')", allowed=False),
    Case("SELECT http_request('GET', 'http://example.com')", allowed=False),
    Case("SELECT ai_query('endpoint', 'text')", allowed=False),
    Case("SELECT MAX(v) FROM orders_tbl LATERAL VIEW read_files('/etc/passwd') e AS v", allowed=False),
    Case("SELECT MAX(v) FROM orders_tbl LATERAL VIEW range(3) e AS v", allowed=False),
    Case("SELECT MAX(v) FROM orders_tbl LATERAL VIEW explode_outer(tags) e AS v", allowed=True),
    Case("SELECT MAX(v) FROM orders_tbl LATERAL VIEW inline(array(struct(amount))) e AS v", allowed=True),
    Case("SELECT MAX(v) FROM orders_tbl LATERAL VIEW stack(2, id, amount) e AS v", allowed=True),
    Case("SELECT MAX(v) FROM orders_tbl LATERAL VIEW json_tuple(j, 'k') e AS v", allowed=True),
    Case("SELECT MAX(aggregate(tags, 0, (acc, x) -> acc + x)) FROM orders_tbl", allowed=True),
    Case("SELECT COUNT(*) FROM orders_tbl WHERE name RLIKE '^[a-z]{1,}$'", allowed=True),
    Case("SELECT MAX(a) FROM VALUES (1), (2) AS v(a)", allowed=True),
    Case("SELECT MAX(a) FROM VALUES ((SELECT MAX(amount) FROM payroll)) AS v(a)", allowed=False),
    Case("SELECT MAX(v) FROM orders_tbl AS o, LATERAL explode(o.tags) AS e(v)", allowed=True),
    Case("SELECT COUNT(*) FROM explode(array(1, 2))", allowed=False),
    Case("SELECT COUNT(*) FROM orders_tbl, unnest(array(1))", allowed=False),
    Case("SELECT COUNT(*) FROM stack(2, 1, 2)", allowed=False),
    Case("SELECT COUNT(*) FROM inline(array(struct(1)))", allowed=False),
    Case("SELECT COUNT(*) FROM json_tuple('{}', 'a')", allowed=False),
    Case("SELECT COUNT(*) FROM sql_keywords()", allowed=False),
    Case("SELECT COUNT(*) FROM range(10)", allowed=False),
    Case("SELECT MAX(amount) FROM orders_tbl VERSION AS OF 1", allowed=False),
    Case("SELECT MAX(amount) FROM orders_tbl TIMESTAMP AS OF '2020-01-01'", allowed=False),
    Case("SELECT MAX(amount) FROM orders_tbl WITH ('path' = '/etc')", allowed=False),
    Case("SELECT * INTO payroll FROM orders_tbl", allowed=False),
    Case("SELECT * FROM (TABLE orders_tbl)", allowed=False),  # sqlglot reads TABLE as a table name: refused
)

STATEMENTS = (
    "DROP TABLE orders_tbl",
    "DROP VIEW payroll",
    "CREATE TABLE x AS SELECT * FROM orders_tbl",
    "CREATE OR REPLACE TEMPORARY VIEW orders_tbl AS SELECT * FROM payroll",
    "CREATE TEMPORARY FUNCTION f AS 'com.example.F' USING JAR '/tmp/f.jar'",
    "CREATE FUNCTION f(x INT) RETURNS INT RETURN x",
    "INSERT INTO orders_tbl SELECT * FROM payroll",
    "INSERT OVERWRITE DIRECTORY '/tmp/out' SELECT * FROM payroll",
    "MERGE INTO orders_tbl USING payroll ON orders_tbl.id = payroll.id WHEN MATCHED THEN DELETE",
    "UPDATE orders_tbl SET amount = 0",
    "DELETE FROM orders_tbl",
    "TRUNCATE TABLE orders_tbl",
    "ALTER TABLE orders_tbl RENAME TO x",
    "CACHE TABLE payroll",
    "UNCACHE TABLE payroll",
    "REFRESH TABLE payroll",
    "ADD JAR '/tmp/f.jar'",
    "ADD FILE '/etc/passwd'",
    "USE default",
    "SET spark.sql.ansi.enabled=false",
    "RESET",
    "EXPLAIN SELECT * FROM payroll",
    "SHOW TABLES",
    "DESCRIBE payroll",
    "EXECUTE IMMEDIATE 'SELECT * FROM payroll'",
    "DECLARE x INT DEFAULT 1",
    "CALL sys.f()",
    "TABLE payroll",
    "VALUES (1)",
    "ANALYZE TABLE payroll COMPUTE STATISTICS",
)


def generated() -> Iterator[Case]:
    """Every template with batch references (three each, in turn) and with every foreign reference."""
    batch_refs = iter(BATCH_REFS * len(TEMPLATES))
    for number, template in enumerate(TEMPLATES):
        other = BATCH_REFS[number % len(BATCH_REFS)]
        for _ in range(3):
            yield Case(template.format(t=next(batch_refs), b=other), allowed=True)
        for foreign in FOREIGN_REFS:
            yield Case(template.format(t=foreign, b=other), allowed=False)
    yield from CTE_CASES
    yield from COMMENT_CASES
    yield from STRING_CASES
    yield from FUNCTION_CASES
    for statement in STATEMENTS:
        yield Case(statement, allowed=False)


CORPUS = tuple(generated())
ALLOWED = [case for case in CORPUS if case.allowed]
REFUSED_CASES = [case for case in CORPUS if not case.allowed]


def guarded(query: str) -> str:
    return checked_query(query, rule="r", batch_names=BATCH_NAMES, column="amount")


@pytest.fixture(scope="module")
def batch(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame(
        [(1, 10, "a", [1, 2], '{"k": 1}'), (2, 20, "b", [3], '{"k": 2}')],
        "id INT, amount INT, name STRING, tags ARRAY<INT>, j STRING",
    )


@pytest.fixture(scope="module")
def payroll(spark: SparkSession) -> Iterator[None]:
    """Another temporary view of the session with the batch's columns, holding a value no contract may read."""
    spark.createDataFrame(
        [(1, SECRET, "s", [SECRET], f'{{"k": {SECRET}}}', SECRET)],
        "id INT, amount INT, name STRING, tags ARRAY<INT>, j STRING, secret INT",
    ).createOrReplaceTempView("payroll")
    yield
    spark.catalog.dropTempView("payroll")


@pytest.mark.parametrize("case", REFUSED_CASES, ids=str)
def test_refused(case: Case) -> None:
    with pytest.raises(ContractValidationError, match="^" + re.escape(REFUSED)):
        guarded(case.query)


def _tables(spark_sql: str) -> set[str]:
    """The tables ``spark_sql`` names once formatted as ``spark.sql(spark_sql, batch=…)`` does."""
    tree = sqlglot.parse_one(spark_sql.format(batch="__batch__"), "spark")
    return {".".join(part.name for part in table.parts) for table in tree.find_all(exp.Table)}


@pytest.mark.parametrize("case", ALLOWED, ids=str)
def test_allowed_names_only_the_batch(case: Case) -> None:
    query = guarded(case.query)
    assert {name for name in _tables(query) if not re.fullmatch(r"__dqx_cte_\d+__", name)} <= {"__batch__"}


@pytest.mark.slow  # every allowed query run on Spark
@pytest.mark.parametrize("case", ALLOWED, ids=str)
def test_allowed_reads_only_the_batch(spark: SparkSession, batch: DataFrame, payroll: None, case: Case) -> None:
    query = guarded(case.query)
    if not case.runs:
        with pytest.raises(ParseException):
            spark.sql(query, batch=batch)
        return
    rows = spark.sql(query, batch=batch).collect()
    assert rows
    assert str(SECRET) not in str(rows)


@pytest.mark.parametrize(
    ("query", "why"),
    [
        # a CTE named like the view
        ("WITH payroll AS (SELECT * FROM payroll) SELECT MAX(secret) FROM payroll", "it reads table 'payroll'"),
        # a CTE that refers forward
        (
            "WITH a AS (SELECT * FROM payroll), payroll AS (SELECT * FROM t) SELECT MAX(secret) FROM a",
            "it reads table 'payroll'",
        ),
        # a shell command through script transformation
        (
            "SELECT COUNT(*) FROM (SELECT TRANSFORM(amount) USING 'cat' AS (b) FROM t)",
            "it pipes rows through a command (TRANSFORM … USING)",
        ),
    ],
)
def test_reported_attacks_are_refused(batch: DataFrame, payroll: None, query: str, why: str) -> None:
    """Each of these ran under the guard before scope resolution (the first two returned the secret)."""
    rule = {"name": "leak", "type": "sql", "query": query, "mustBeLessThan": 1}
    contract = one_table([{"name": "amount", "logicalType": "integer"}], quality=[rule])
    refused = re.escape(f"Quality rule 'leak': the SQL query is refused: {why}")
    with pytest.raises(ContractValidationError, match="^" + refused):
        run_contract(contract, batch, allow_sql=True)
