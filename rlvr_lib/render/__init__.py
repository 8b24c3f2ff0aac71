"""Rendering: matplotlib figures with one style per method (``plots``) and markdown tables, PNG bytes and training
histories read back (``tables``), shared by the paper reports and the main page. Imports the layers below it."""
