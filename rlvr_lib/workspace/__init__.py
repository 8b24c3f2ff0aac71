"""The workspace: where the pipeline's files live (``layout``: data, base policies, runs, logs, evaluations) and the
checks that a run's recorded settings still match params.yaml. The paper reports and the stages read results
through it. Imports the layers below it."""
