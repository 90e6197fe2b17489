"""Write the example datasets (parquet): for each example contract, data that passes and data that fails.

Every example is measured at the same moment, ``NOW`` (pass ``--now 2026-11-22T12:00:00Z``
to ``dqx-gx validate``), so freshness results do not depend on the day you run them.
Run from the repository root: ``python examples/make_data.py``.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

NOW = dt.datetime(2026, 11, 22, 12, 0, tzinfo=dt.UTC)
HERE = Path(__file__).resolve().parent
STATUSES = ["pending", "processing", "shipped", "delivered", "cancelled"]


def write(path: Path, schema: pa.Schema, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    print(f"wrote {path.relative_to(HERE.parent)} ({len(rows)} rows)")


def orders() -> None:
    """The DQX ODCS spec §6.7 orders contract: 120 good orders, and a batch breaking several rules."""
    schema = pa.schema(
        [
            ("order_id", pa.int64()),
            ("status", pa.string()),
            ("total_amount", pa.float64()),
            ("product_name", pa.string()),
            ("order_date", pa.date32()),
        ]
    )
    today = NOW.date()
    good = [
        {
            "order_id": i,
            "status": STATUSES[i % 5],
            "total_amount": 20.0 + i,
            "product_name": f"product {i}",
            "order_date": today,
        }
        for i in range(1, 121)
    ]
    write(HERE / "orders" / "data" / "good.parquet", schema, good)
    stale = today - dt.timedelta(days=3)
    bad = [{**row, "order_date": stale} for row in good]
    bad[1]["status"] = "returned"  # status_valid_values (P0)
    bad[2]["total_amount"] = None  # total_amount_complete (P0) and the required column
    bad.append(dict(bad[0]))  # composite_key_unique (P0)
    write(HERE / "orders" / "data" / "bad.parquet", schema, bad)


def daily_orders() -> None:
    address = pa.struct([(f, pa.string()) for f in ("street", "city", "postal_code", "country")])
    item = pa.struct([("item_id", pa.int32()), ("quantity", pa.int32()), ("unit_price", pa.decimal128(10, 2))])
    schema = pa.schema(
        [
            ("order_date", pa.date32()),
            ("order_id", pa.int32()),
            ("customer_id", pa.int32()),
            ("total_amount", pa.decimal128(10, 2)),
            ("status", pa.string()),
            ("created_at", pa.timestamp("us", tz="UTC")),
            ("updated_at", pa.timestamp("us", tz="UTC")),
            ("tags", pa.list_(pa.string())),
            ("shipping_address", address),
            ("line_items", pa.list_(item)),
        ]
    )

    def rows(order_date: dt.date, first_id: int = 1) -> list[dict[str, Any]]:
        created = dt.datetime.combine(order_date, dt.time(9), tzinfo=dt.UTC)
        return [
            {
                "order_date": order_date,
                "order_id": first_id + i - 1,
                "customer_id": 1000 + i % 7,
                "total_amount": Decimal(f"{10 * i}.50"),
                "status": STATUSES[i % 5],
                "created_at": created,
                "updated_at": None if i % 2 else created + dt.timedelta(hours=2),
                "tags": ["web"] if i % 3 else [],
                "shipping_address": {
                    "street": f"{i} Main St",
                    "city": "Springfield",
                    "postal_code": "12345",
                    "country": "US",
                },
                "line_items": [{"item_id": 7, "quantity": 1 + i % 3, "unit_price": Decimal("10.50")}],
            }
            for i in range(1, 31)
        ]

    def days(*day_numbers: int) -> list[dict[str, Any]]:
        """30 orders on each of these November days, order ids unique across them."""
        return [row for n, day in enumerate(day_numbers) for row in rows(dt.date(2026, 11, day), 1 + 30 * n)]

    # newest 21 Nov: 36 h ≤ 49 h; the 7-day completeness window expects 16–21 Nov
    write(HERE / "sla" / "data" / "daily_orders-good.parquet", schema, days(15, 16, 17, 18, 19, 20, 21))
    write(HERE / "sla" / "data" / "daily_orders-gaps.parquet", schema, days(15, 16, 18, 19, 21))  # 17, 20 missing
    write(HERE / "sla" / "data" / "daily_orders-late.parquet", schema, days(19))  # 84 h


def hourly_events() -> None:
    schema = pa.schema(
        [
            ("event_hour", pa.timestamp("us", tz="UTC")),
            ("event_id", pa.int64()),
            ("user_id", pa.int64()),
            ("event_type", pa.string()),
        ]
    )

    def rows(newest: dt.datetime) -> list[dict[str, Any]]:
        return [
            {
                "event_hour": newest - dt.timedelta(hours=i % 5),
                "event_id": i,
                "user_id": i % 11,
                "event_type": ["click", "view"][i % 2],
            }
            for i in range(50)
        ]

    write(HERE / "sla" / "data" / "hourly_events-good.parquet", schema, rows(NOW - dt.timedelta(hours=3)))  # 3 h ≤ 4 h
    write(HERE / "sla" / "data" / "hourly_events-late.parquet", schema, rows(NOW - dt.timedelta(hours=6)))


def business_day_reports() -> None:
    schema = pa.schema([("report_date", pa.date32()), ("total_revenue", pa.decimal128(12, 2))])

    def rows(newest: dt.date) -> list[dict[str, Any]]:
        return [
            {"report_date": newest - dt.timedelta(days=i), "total_revenue": Decimal(f"{1000 + i}.00")} for i in range(5)
        ]

    write(
        HERE / "sla" / "data" / "business_day_reports-good.parquet", schema, rows(dt.date(2026, 11, 21))
    )  # 36 h ≤ 49 h
    write(HERE / "sla" / "data" / "business_day_reports-late.parquet", schema, rows(dt.date(2026, 11, 18)))


def customer_aggregates() -> None:
    schema = pa.schema(
        [("customer_id", pa.int32()), ("last_updated", pa.timestamp("us", tz="UTC")), ("total_orders", pa.int32())]
    )

    def rows(refreshed: dt.datetime) -> list[dict[str, Any]]:
        return [{"customer_id": i, "last_updated": refreshed, "total_orders": 3 * i} for i in range(1, 21)]

    write(
        HERE / "sla" / "data" / "customer_aggregates-good.parquet", schema, rows(NOW - dt.timedelta(minutes=30))
    )  # ≤ 1 h
    write(HERE / "sla" / "data" / "customer_aggregates-late.parquet", schema, rows(NOW - dt.timedelta(hours=6)))


if __name__ == "__main__":
    orders()
    daily_orders()
    hourly_events()
    business_day_reports()
    customer_aggregates()
