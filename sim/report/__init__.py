"""Balance reports: ``build_report(run_dir)`` turns a batch folder into ``report.html``,
``report.md`` and ``summary.parquet`` (see ``sim.report.build``)."""

from sim.report.build import ReportResult, build_report

__all__ = ["ReportResult", "build_report"]
