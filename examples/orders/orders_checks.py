"""Hand-written DQX checks for the orders table, run beside orders.odcs.yaml's rules.

    dqx-gx validate examples/orders/orders.odcs.yaml --data examples/orders/data/good.parquet \
        --checks examples/orders/orders_checks.py

The same functions run with dqlib's own VerificationSuite on DuckDB.
"""

from dqx.api import Context, check
from dqx.provider import MetricProvider


@check(name="Orders by hand", datasets=["orders_tbl"])
def order_values(mp: MetricProvider, ctx: Context) -> None:
    ctx.assert_that(mp.num_rows()).config(name="At least 100 orders", severity="P0").is_geq(100)
    ctx.assert_that(mp.null_count("status") / mp.num_rows()).config(name="Status mostly given").is_lt(0.05)
    ctx.assert_that(mp.maximum("total_amount") / mp.average("total_amount")).config(
        name="No order far above the average", severity="P2"
    ).is_leq(50)
    ctx.assert_that(mp.duplicate_count(["order_id"])).config(name="Order ids are unique", severity="P0").is_zero()
