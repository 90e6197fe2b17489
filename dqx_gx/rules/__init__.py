"""Rules: engine-neutral statements about a dataset (a metric and a threshold, a type, a query), their
severities and the bounds of docs/semantics.md, 'Operators' that decide pass or fail. Imports neither Spark nor GX."""
