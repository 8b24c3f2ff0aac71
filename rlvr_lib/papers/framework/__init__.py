"""The papers framework: what every paper report shares, below the paper folders.

- ``claims``: a claim, the verdict rule and its categories, paired differences with Student-t intervals over seeds;
- ``declare``: a claim's measure as a declaration (``measure(fn, *args)``) and the shared measures;
- ``measures``: one definition per window, scale and quantity; ``gates``: per-seed run health; ``engine``: how one
  claim is judged (gates, immovable measures, nulls, declared alternatives); ``guard``: that two compared runs
  differ only in what the claim is about;
- ``results``: the runs' evaluations and histories, per seed; ``sampling``: the sampling studies' stages;
- ``base``: ``PaperBase`` and ``@experiment``; ``output``: a paper's report folder, written atomically; ``setup``,
  ``writeup``, ``captions``, ``method_text``, ``references``, ``quotes``, ``external``: the report's sections.
"""
