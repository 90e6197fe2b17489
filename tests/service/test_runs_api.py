"""The native API over real HTTP: a run's report is exactly ``validate --output json``, runs are listed, data
docs served; bad input is one line naming the field; eight workloads at once all finish right, and a ninth
finds the queue full."""

from __future__ import annotations

import json
from concurrent import futures
from pathlib import Path
from typing import Any

import pytest

from dqx_gx import report
from dqx_gx.contract import load_contracts
from dqx_gx.run import run_contract
from dqx_gx.sources.reader import read_data
from tests.conftest import EXAMPLES
from tests.service.conftest import QUEUE, WORKERS
from tests.service.server import Server

ORDERS = (EXAMPLES / "orders" / "orders.odcs.yaml").read_text()
NOW = "2026-11-22T12:00:00Z"


def run(served: Server, body: dict[str, Any]) -> dict[str, Any]:
    started = served.post("/v1/runs", body)
    assert started.status == 202, started.body
    assert started.headers["location"] == f"/v1/runs/{started.json()['id']}"
    found: dict[str, Any] = served.wait_done(f"/v1/runs/{started.json()['id']}")
    return found


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_runs_report_is_exactly_what_validate_writes(served: Server, spark: Any) -> None:
    done = run(served, {"contract": ORDERS, "data": "orders/bad.parquet", "now": NOW})
    (contract,) = load_contracts(EXAMPLES / "orders" / "orders.odcs.yaml")
    frame = read_data(spark, contract, path=str(EXAMPLES / "orders" / "data" / "bad.parquet"))  # type: ignore[arg-type]
    local = json.loads(report.to_json(run_contract(contract, frame, now=NOW)))
    assert done["status"] == "OK"
    assert done["outcome"] == local["outcome"] == "rejected"
    assert done["report"] == local
    assert done["error"] is None


def test_runs_are_listed_newest_first_and_by_contract(served: Server) -> None:
    first = run(served, {"contract": ORDERS, "data": "orders/good.parquet", "now": NOW})
    second = run(served, {"contract": ORDERS, "data": "orders/good.parquet", "now": NOW})
    listed = served.get("/v1/runs?contract=orders_contract").json()["runs"]
    assert [r["id"] for r in listed[:2]] == [second["id"], first["id"]]
    assert {r["contract"] for r in listed} == {"orders_contract"}
    assert served.get("/v1/runs?contract=no_such_contract").json() == {"runs": []}


def test_a_runs_data_docs_are_served_with_what_they_load(served: Server) -> None:
    done = run(served, {"contract": ORDERS, "data": "orders/bad.parquet", "now": NOW})
    moved = served.get(f"/v1/runs/{done['id']}/docs")
    assert moved.status == 307
    page = served.get(moved.headers["location"])
    assert page.status == 200
    html = page.body.decode()
    assert "orders_contract" in html
    assert "Rejected" in html
    css = next(part.split('"')[0] for part in html.split('href="')[1:] if "bootstrap" in part.split('"')[0])
    asset = served.get(str(Path(moved.headers["location"]).parent / css).replace("\\", "/"))
    assert asset.status == 200  # the page's relative links resolve in the run's site
    assert served.get(f"/v1/runs/{done['id']}/docs/../../../etc/passwd").status == 404


def test_the_thesis_contract_format_runs_through_the_native_api(served: Server) -> None:
    text = (EXAMPLES / "weather" / "weather.contract.yaml").read_text()
    done = run(served, {"contract": text, "data": "weather/corrected"})
    assert done["status"] == "OK", done
    results = {r["assertion"]: r for r in done["report"]["results"]}
    assert results["max_degrees_measurements_rule (wind_direct_grad, fail)"]["status"] == "FAILED"
    assert results["max_degrees_measurements_rule (wind_direct_grad, fail)"]["severity"] == "P0"
    assert results["not_null_measurements_rule (gust_max_m_s, warn)"]["status"] == "FAILED"
    assert results["not_null_measurements_rule (gust_max_m_s, warn)"]["severity"] == "P1"
    assert results["not_null_measurements_rule (gust_max_m_s, fail)"]["status"] == "PASSED"
    assert results["unique_index_rule (index, fail)"]["status"] == "PASSED"
    assert done["outcome"] == "rejected"


@pytest.mark.parametrize(
    ("body", "status", "named"),
    [
        ({"contract": ORDERS, "data": "orders/good.parquet", "allow_sql": True}, 400, "allow_sql: this server runs no"),
        (
            {"contract": "apiVersion: v3.1.0\nkind: DataContract\n", "data": "orders/good.parquet"},
            400,
            "<text>: 3 problems: 'id' is a required property: add it; 'version' is a required property",
        ),
        ({"contract": ORDERS, "data": "../outside/secret.parquet"}, 400, "data: '../outside/secret.parquet': '..'"),
        ({"contract": ORDERS, "data": "orders/linked.parquet"}, 400, "data: 'orders/linked.parquet': leads out"),
        ({"contract": ORDERS, "data": "escape/secret.parquet"}, 400, "leads out of the data root"),
        ({"contract": ORDERS, "data": "orders/good.parquet", "now": "yesterday"}, 400, "now: 'yesterday'"),
        ({"contract": ORDERS, "data": "orders/good.parquet", "schema": "nope"}, 400, "schema: 'nope'"),
        ({"contract": ORDERS}, 400, "data:"),
        ({"data": "orders/good.parquet"}, 422, "contract: Field required"),
        ({"contract": ORDERS, "data": 7}, 422, "data: Input should be a valid string"),
    ],
)
def test_bad_input_is_one_line_naming_the_field_and_stores_nothing(
    served: Server, body: dict[str, Any], status: int, named: str
) -> None:
    before = served.get("/v1/runs?limit=1000").json()["runs"]
    answer = served.post("/v1/runs", body)
    assert answer.status == status, answer.body
    detail = answer.json()["detail"]
    assert named in detail
    assert "\n" not in detail  # a contract's every problem, on one line
    assert "Traceback" not in detail
    assert served.get("/v1/runs?limit=1000").json()["runs"] == before


def test_a_body_larger_than_the_limit_is_413(served: Server) -> None:
    answer = served.post("/v1/runs", raw=b'{"contract": "' + b"x" * (11 * 1024 * 1024) + b'"}')
    assert answer.status == 413
    assert "body" in answer.json()["detail"]


@pytest.mark.slow
def test_eight_workloads_at_once_all_finish_right_and_a_full_queue_is_503(served: Server) -> None:
    assert WORKERS + QUEUE == 8
    bodies = [
        {"contract": ORDERS, "data": f"orders/{'bad' if i % 2 else 'good'}.parquet", "now": NOW} for i in range(8)
    ]
    with futures.ThreadPoolExecutor(8) as pool:
        started = list(pool.map(lambda body: served.post("/v1/runs", body), bodies))
    assert [s.status for s in started] == [202] * 8
    full = served.post("/v1/runs", bodies[0])
    assert full.status == 503
    assert full.headers["retry-after"].isdigit()
    assert served.get("/health").status == 200  # polls answer while checks run
    done = [served.wait_done(f"/v1/runs/{s.json()['id']}") for s in started]
    assert [d["outcome"] for d in done] == ["passed_with_warnings" if i % 2 == 0 else "rejected" for i in range(8)]
    assert len({json.dumps(d["report"]["results"][0]) for d in done[::2]}) == 1  # the same data, the same result
