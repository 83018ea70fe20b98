"""The Layer weights page's service: the POS and sense probe tasks (``probe_tasks``), a ScalarMix + head trained per
task and re-scored for any slider mix (``service``), the report kept on disk by ``store`` (through ``result_cache``),
and its figures (``charts``)."""
