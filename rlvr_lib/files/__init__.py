"""Files: atomic writes and staged folders (``atomic``), JSON readers that name the bad file (``readers``) and
training checkpoints (``checkpoints``). Imports only ``settings``."""
