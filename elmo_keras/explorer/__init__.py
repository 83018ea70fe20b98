"""The service layer of the Streamlit explorer (``app.py`` and ``pages/``): plain functions and dataclasses.

Nothing here imports Streamlit; every function takes plain arguments and returns plain data (NumPy arrays,
DataFrames, dataclasses), so it is tested without a browser and the pages stay "read widgets → call one
service → render". The Plotly figure builders live in ``charts`` and ``decoding_charts`` (with ``chart_text``;
they need the ``app`` extra and are imported by the pages only).

Modules, one concept each:

* ``state``: session-state keys and their initial values;
* ``model_store``: the models directory, saved models (list, load, save, name validation);
* ``corpus``, ``uploads``: the working corpus (browse, edit, split) and uploaded-file validation;
* ``training``: training settings, live per-epoch history, the first-launch default model;
* ``occurrences``, ``similarity``, ``projection``: one word's occurrences, similarity matrices, PCA;
* ``probe_tasks``, ``layer_weights``: the POS and sense tasks, ScalarMix + head, probes, slider re-scoring;
* ``decoding``, ``search_views``, ``decoding_examples``: the seq2seq decoding comparison, beam trees, the
  worked examples.
"""
