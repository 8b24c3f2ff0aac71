"""The pipeline, the top layer: one function per DVC stage (``stages``), the generated per-run and paper stages
(``dvc_stages``, ``paper_stages``), the lane driver (``repro_lanes``), lock upkeep (``dvc_lock``), dry runs
(``dvc_dry``), the smoke run (``smoke``), the golden runs that prove a training-code change result-neutral
(``golden``), the experiments table (``exp_table``), the numbers the docs quote (``doc_numbers``; the budgets among
them: ``budgets``) and the Jupyter kernel the notebooks name (``kernelspec``). It may import every layer."""
