"""Statistics of a batch, read from its Parquet files only (``docs/schema.md``).

``batch`` opens a RUN_DIR; ``scores``, ``seats``, ``strategies``, ``variance`` and
``convergence`` compute one section each with polars; ``intervals`` and ``distributions`` hold
the formulas; ``analysis`` runs them all; ``synthetic`` writes batches with known true values.
``ratings`` rates strategies from played games (tournament, ladder, league), ``stopping`` holds
an adaptive sweep's stopping rules, ``fields`` judges a finding across fields of players, and
``margins`` declares the fairness margin once.
"""
