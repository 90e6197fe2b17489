"""GX's own expectations store, as a dqx-gx project names it: ``module_name: dqx_gx.expectations.store``.

GX builds a project's stores when the project is opened, importing each store's ``module_name``. A
project that holds dqx-gx suites names this module there, so whatever opens it — plain GX in a new
interpreter, an Airflow worker, any GX platform — imports dqx-gx's expectations and checkpoint actions
before a suite or checkpoint is read. Nothing else changes: the class is GX's.
"""

from great_expectations.data_context.store import ExpectationsStore

__all__ = ["ExpectationsStore"]
