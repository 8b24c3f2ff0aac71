"""Reporting, above the papers: the main page ``reports/README.md`` (``main_page``), the report stage that writes it
(``report_stage``) and the files ``dvc metrics show`` and ``dvc plots show`` read (``dvc_views``)."""
