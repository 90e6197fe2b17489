"""A property-based run of the service's own OpenAPI schema (schemathesis): whatever the schema allows the
server to be sent, it answers without a 500 and with one-line errors."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error

from tests.service.conftest import KEY
from tests.service.server import Server


@pytest.mark.slow
def test_no_request_the_schema_allows_gets_a_server_error(served: Server) -> None:
    schema = schemathesis.openapi.from_url(f"http://127.0.0.1:{served.port}/openapi.json")
    operations = {f"{op.ok().method.upper()} {op.ok().path}" for op in schema.get_all_operations()}
    assert {
        "POST /v1/validation/start",
        "GET /v1/validation/{workloadId}",
        "POST /v1/runs",
        "GET /v1/runs",
    } <= operations

    @settings(max_examples=200, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(case=schema.as_strategy())
    def answered(case: Any) -> None:
        response = case.call(headers={"X-API-Key": KEY}, timeout=120)
        case.validate_response(response, checks=[not_a_server_error])
        kind = " ".join(response.headers.get("content-type", []))  # schemathesis keeps each header's values
        if response.status_code >= 400 and "application/json" in kind:
            found = response.json()
            message = str(found.get("detail") or found.get("error") or "")
            assert "Traceback" not in message
            assert "\n" not in message

    answered()
