"""``dqx-gx serve``: the validator service, a face over the same core as the command line.

``app`` answers HTTP (the thesis's Validator API and a native one), ``workloads`` turns requests into runs
and runs them in a bounded pool beside the request loop, ``store`` keeps workloads in SQL, ``paths`` keeps
every read under the data root, ``validations`` maps the thesis's rules and results, ``command`` starts it.
"""
