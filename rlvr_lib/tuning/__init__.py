"""Issue 41's equal tuning budget, above the papers: the declared search space of params.yaml ``tuning``
(``space``), the health of one tuning seed by the papers' own ``healthy`` gate (``health``) and the selection rule
fixed before any tuning run (``select``)."""
