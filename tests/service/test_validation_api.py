"""The thesis's Validator API over real HTTP: the weather scenario's 45 checks against numbers computed apart
(DuckDB), and every refusal docs/semantics.md, 'The validator service and the thesis's rules' lists, each with nothing stored."""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest

from tests.service.server import Server
from tests.service.weather import CONFIGURATION, WEATHER, expected

OK_LEVEL = {"raised_exception": False, "exception_message": None, "exception_traceback": None}


def configuration(workload_id: str, path: str = "weather/raw", **changes: Any) -> dict[str, Any]:
    body = copy.deepcopy(CONFIGURATION)
    body["workloadId"] = workload_id
    body["access"] = {"path": path}
    body.update(changes)
    return body


@pytest.mark.parametrize(
    ("folder", "successes", "warnings", "failures"),
    [("raw", 33, 0, 12), ("corrected", 41, 2, 2)],
)
def test_the_weather_scenario_gives_the_results_the_rule_table_computes(
    served: Server, folder: str, successes: int, warnings: int, failures: int
) -> None:
    answer = served.post("/v1/validation/start", configuration(f"weather-{folder}", f"weather/{folder}"))
    assert answer.status == 200, answer.body
    assert answer.json() == {"workloadId": f"weather-{folder}", "status": "OK", "result": []}
    done = served.wait_done(f"/v1/validation/weather-{folder}")
    assert done["status"] == "OK", done
    items = done["result"]
    want = expected(WEATHER / "data" / folder)
    assert [(i["id"], i["column"]) for i in items] == list(want)  # one item per (rule, column), in order: 45
    for item in items:
        metric, fail, warn = want[(item["id"], item["column"])]
        if isinstance(metric, float):
            assert math.isclose(item["metric"], metric, rel_tol=1e-9), item
        else:
            assert item["metric"] == metric, item
        assert item["severity"]["fail"] == {"success": fail, "exception_info": OK_LEVEL}, item
        assert item["severity"]["warn"] == (None if warn is None else {"success": warn, "exception_info": OK_LEVEL})
    fails = [not i["severity"]["fail"]["success"] for i in items]
    warns = [not f and (i["severity"]["warn"] or {}).get("success") is False for f, i in zip(fails, items, strict=True)]
    assert (len(items) - sum(fails) - sum(warns), sum(warns), sum(fails)) == (successes, warnings, failures)


def test_a_workload_id_is_started_once_and_its_results_stay(served: Server) -> None:
    body = configuration("weather-twice", validations=CONFIGURATION["validations"][:1])
    assert served.post("/v1/validation/start", body).status == 200
    first = served.wait_done("/v1/validation/weather-twice")
    again = served.post("/v1/validation/start", configuration("weather-twice", "weather/corrected"))
    assert again.status == 409
    assert "weather-twice" in again.json()["detail"]
    assert served.get("/v1/validation/weather-twice").json() == first


def test_an_unknown_workload_is_404(served: Server) -> None:
    answer = served.get("/v1/validation/no-such-workload")
    assert answer.status == 404
    assert "no-such-workload" in answer.json()["detail"]


def _rule(**fields: Any) -> dict[str, Any]:
    return {"id": "r", "ruleType": "min", "columns": ["temp_c"], "parameter": 0, **fields}


@pytest.mark.parametrize(
    ("validations", "access", "named"),
    [
        ([_rule(ruleType="median")], None, "validations[0].ruleType"),
        ([_rule(parameter=None)], None, "validations[0].parameter: min needs a parameter"),
        ([_rule(ruleType="complete", parameter=1.5)], None, "validations[0].parameter: complete needs"),
        (
            [_rule(ruleType="allowedValues", parameter=["SP"], severity={"warn": {"tolerance": 0.1}})],
            None,
            "validations[0].severity.warn.tolerance: allowedValues takes no tolerance",
        ),
        ([_rule(severity={"fail": {}})], None, "validations[0].severity.fail.tolerance: is required"),
        ([_rule(columns=[])], None, "validations[0].columns"),
        (
            [_rule(ruleType="custom", technology="GreatExpectations", call="expect_no_such_thing", parameter=None)],
            None,
            "GX has no expectation 'expect_no_such_thing'",
        ),
        ([_rule()], {"path": "../outside"}, "access.path: '../outside': '..' is not allowed"),
        ([_rule()], {"path": "/etc"}, "access.path: '/etc': give a path relative to the data root"),
        ([_rule()], {"path": "escape"}, "access.path: 'escape': leads out of the data root"),
        ([_rule()], {"path": "weather/nowhere"}, "access.path: 'weather/nowhere': no such file or folder"),
    ],
)
def test_a_configuration_that_cannot_become_checks_is_400_naming_the_field_and_stores_nothing(
    served: Server, validations: list[Any], access: dict[str, str] | None, named: str
) -> None:
    body = {"workloadId": "refused", "validations": validations, "access": access or {"path": "weather/raw"}}
    answer = served.post("/v1/validation/start", body)
    assert answer.status == 400, answer.body
    found = answer.json()
    assert found["workloadId"] == "refused"
    assert found["status"] == "NOK"
    assert named in found["error"]
    assert "\n" not in found["error"]
    assert "Traceback" not in found["error"]
    assert served.get("/v1/validation/refused").status == 404


def test_a_column_the_data_lacks_raises_on_its_levels_naming_it(served: Server) -> None:
    body = configuration(
        "weather-missing-column",
        validations=[
            {"id": "no_such", "ruleType": "max", "columns": ["snow_cm"], "parameter": 10},
            {"id": "states", "ruleType": "allowedValues", "columns": ["state"], "parameter": ["SP", "RJ"]},
        ],
    )
    assert served.post("/v1/validation/start", body).status == 200
    done = served.wait_done("/v1/validation/weather-missing-column")
    missing, states = done["result"]
    level = missing["severity"]["fail"]
    assert level["success"] is False
    assert level["exception_info"]["raised_exception"] is True
    assert "snow_cm" in level["exception_info"]["exception_message"]
    assert states["metric"] == ["ES", "MG", "RJ", "SP"]
    assert states["severity"]["fail"]["success"] is False  # ES and MG are not allowed
    assert states["severity"]["fail"]["exception_info"]["raised_exception"] is False


def test_unreadable_data_makes_the_workload_nok_with_the_reason(served: Server) -> None:
    body = configuration("weather-empty", "empty", validations=CONFIGURATION["validations"][3:4])  # reads numbers
    assert served.post("/v1/validation/start", body).status == 200
    done = served.wait_done("/v1/validation/weather-empty")
    assert done["status"] == "NOK"
    assert done["result"] == []
    assert "the csv data is empty" in done["error"]


def test_data_of_another_format_than_asked_is_refused_before_it_is_read(served: Server) -> None:
    body = configuration("weather-as-parquet", validations=CONFIGURATION["validations"][:1])
    body["access"] = {"path": "weather/raw", "format": "parquet"}
    answer = served.post("/v1/validation/start", body)
    assert answer.status == 400
    assert "access.path weather/raw: cannot read it as parquet" in answer.json()["error"]
