"""Training: the TRL trainer every method plugs into (``trainer``), one run from settings to files (``train``),
rollout chunking, length buckets and sharding, memory estimates and probes, progress bars. Imports the layers
below (``settings`` to ``testbed``), never the workspace, papers or pipeline."""
