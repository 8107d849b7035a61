"""``python -m sim`` runs the CLI."""

from sim.cli import app

app()
