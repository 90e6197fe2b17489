"""Rules: engine-neutral statements about a dataset (a metric and a threshold, a type, a query), their
severities and the SPEC §3 bounds that decide pass or fail. Imports neither Spark nor GX."""
