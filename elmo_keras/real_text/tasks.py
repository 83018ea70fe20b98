"""The names of the probe tasks (``real_text.probing``), in a module without Keras so that the pages that only show
stored results (``real_text.probe_findings``) load at once."""

TREEBANK_TASKS = {"upos": "UPOS", "xpos": "Penn XPOS", "deprel": "dependency relation"}
SENSE_TASK = "sense"
TASK_TITLES = {**TREEBANK_TASKS, SENSE_TASK: "word sense (toy corpus)"}
TASK_KINDS = {"upos": "syntactic", "xpos": "syntactic", "deprel": "syntactic", SENSE_TASK: "semantic"}
