"""A property-based run of the service's own OpenAPI schema (schemathesis): whatever it is sent, the server
answers without a 500 and with one-line errors."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from tests.service.conftest import KEY
from tests.service.server import Server


@pytest.fixture
def api_schema(served: Server) -> Any:
    return schemathesis.openapi.from_url(f"http://127.0.0.1:{served.port}/openapi.json")


schema = schemathesis.pytest.from_fixture("api_schema")


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_request_the_schema_allows_gets_a_server_error(case: Any) -> None:
    response = case.call(headers={"X-API-Key": KEY}, timeout=120)
    case.validate_response(response, checks=[not_a_server_error])
    if response.status_code >= 400 and response.headers.get("content-type", "").startswith("application/json"):
        found = response.json()
        message = found.get("detail") or found.get("error") or ""
        assert "Traceback" not in message
        assert "\n" not in message
