"""The weather scenario's results computed apart from dqx-gx: DuckDB reads the CSV folder, and the
validator's rule table (docs/service.md) decides each level in plain Python."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb

from tests.conftest import EXAMPLES

WEATHER = EXAMPLES / "weather"
CONFIGURATION: dict[str, Any] = json.loads((WEATHER / "validation.json").read_text())

Expected = dict[tuple[str, str | None], tuple[Any, bool, bool | None]]
"""(rule id, column) → (metric, the fail level's success, the warn level's success or None)."""


def expected(folder: Path) -> Expected:
    con = duckdb.connect()
    con.execute(f"create table t as select * from read_csv('{folder}/*.csv', header = true, all_varchar = true)")
    found: Expected = {}
    for rule in CONFIGURATION["validations"]:
        kind, p, levels = rule["ruleType"], rule.get("parameter"), rule.get("severity") or {"fail": {}}
        for column in rule["columns"]:
            m = _metric(con, kind, f'"{column}"', rule)
            fail = _passes(kind, m, p, (levels["fail"] or {}).get("tolerance")) if "fail" in levels else None
            warn = _passes(kind, m, p, (levels["warn"] or {}).get("tolerance")) if "warn" in levels else None
            assert fail is not None
            found[(rule["id"], column)] = (m, fail, warn)
    return found


def _metric(con: duckdb.DuckDBPyConnection, kind: str, quoted: str, rule: dict[str, Any]) -> Any:
    if kind == "complete":
        return con.execute(f"select count({quoted}) / count(*) from t").fetchone()[0]  # type: ignore[index]
    if kind in ("min", "max"):
        return con.execute(f"select {kind}(try_cast({quoted} as double)) from t").fetchone()[0]  # type: ignore[index]
    distinct = f"select distinct {quoted} from t where {quoted} is not null order by 1"
    if kind == "allowedValues":
        return [row[0] for row in con.execute(distinct).fetchall()]
    fmt = rule["args"]["strftime_format"]  # custom: GX's strftime check, its unexpected count of non-NULL values
    values = [row[0] for row in con.execute(f"select {quoted} from t where {quoted} is not null").fetchall()]
    return sum(not _parses(value, fmt) for value in values)


def _passes(kind: str, m: Any, p: Any, t: float | None) -> bool:
    """The rule table: the tolerance relaxes the parameter by a share of it (complete: by itself)."""
    match kind:
        case "complete":
            return bool(m >= p - (t or 0))
        case "min":
            return bool(m >= p - abs(p) * (t or 0))
        case "max":
            return bool(m <= p + abs(p) * (t or 0))
        case "allowedValues":
            return set(m) <= set(p)
    return bool(m == 0)


def _parses(value: str, fmt: str) -> bool:
    try:
        datetime.strptime(value, fmt)
    except ValueError:
        return False
    return True
