"""``dqx-gx draft``: an ODCS contract drafted from the data itself.

``profile.py`` measures a Spark DataFrame (one aggregation, plus a narrow exact one), ``document.py``
turns the plain statistics into the ODCS document (no Spark), ``drafting.py`` joins them, and
``command.py`` is the command. This package imports neither Spark nor GX: the command's parser is
built at start-up.
"""
