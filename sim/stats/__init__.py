"""Statistics of a batch, read from its Parquet files only (``docs/schema.md``).

``batch`` opens a RUN_DIR; ``scores``, ``seats``, ``strategies``, ``variance`` and
``convergence`` compute one section each with polars; ``intervals`` and ``distributions`` hold
the formulas; ``analysis`` runs them all; ``synthetic`` writes batches with known true values.
"""
