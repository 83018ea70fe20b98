"""The service layer of the Streamlit explorer (its scripts: ``app/``): plain functions and dataclasses.

Nothing here but ``app/`` (the frame, the pages and their shared Streamlit code) imports Streamlit; every function
takes plain arguments and returns plain data (NumPy arrays, DataFrames, dataclasses), so it is tested without a
browser and the pages stay "read widgets → call one service → render". Each page's service is a package,
``explorer/<page>/`` (``similarity``, ``projection``, ``layer_weights``, ``decoding``, ``tagging``,
``classification``, ``dialogue``, ``gradients``), holding its ``service``, its Plotly figures (``charts``: they need
the ``app`` extra and are imported by the pages only) and, where it has them, a ``store`` of results kept on disk
and its views.

The common core, one concept per module:

* ``state``: session-state keys and their initial values;
* ``model_store``, ``shipped_models``: the models directory, saved models (list, load, save, name validation) and
  the models shipped with the package;
* ``first_use``, ``background``: the first-use-model jobs every page that needs a trained model goes through;
* ``corpus``, ``uploads``: the working corpus (browse, edit, split) and uploaded-file validation;
* ``training``: training settings, live per-epoch history, the first-launch default model;
* ``occurrences``: one word's occurrences, shared by the Context similarity and PCA pages;
* ``result_cache``: results kept on disk beside the models, keyed by the model's files and the inputs;
* ``charts``, ``chart_text``: what the pages' figures share (sense colours, log ticks, escaping), the training
  curves;
* ``warm_up``: the background import of the heavy modules while the first page renders.
"""
