"""Settings, the lowest layer: params.yaml typed to the leaves (``config``), the papers' section (``papers``) and the
building blocks every typed setting uses (``schema``). Imports nothing else of rlvr_lib: where a setting needs a
layer above (a method's hyperparameters), the caller passes the check in (``config.load_params(check_method=...)``)."""
