"""Tasks: math problems as records (``records``, ``data``: the benchmark and training files), answer grading with
math-verify (``rewards``) and the Qwen tokenizer built from the shared vocabulary (``qwen_tokenizer``). Imports
``settings``, ``files`` and ``methods`` at most."""
