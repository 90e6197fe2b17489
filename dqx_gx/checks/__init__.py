"""Hand-written DQX checks (dqlib's ``@check`` functions) beside a contract's rules (docs/semantics.md, 'Hand-written
DQX checks').

Engine-neutral: dqlib's check functions read into rules (``reading``), their formulas stored and evaluated as
dqlib evaluates them (``formula``, ``values``), dqlib's metrics mapped onto the kinds' aggregates
(``measures``), metrics of earlier days (``history``), a contract's rules as dqlib checks
(``from_contract``) and the ``--checks`` modules of the command line (``loading``). Importing this package
imports nothing of dqlib; its modules do.
"""
