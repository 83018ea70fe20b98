"""The explorer's Streamlit scripts, shipped in the package: the frame ``app.py`` (``st.navigation`` over
``pages/<name>.py``), one script per page in ``pages/``, and ``page_common`` (the Streamlit code the pages share).

These are the only modules of ``elmo_keras.explorer`` that import Streamlit. ``elmo-keras explore`` runs
``streamlit run`` on ``MAIN_SCRIPT``; from a clone, ``streamlit run app.py`` runs the repository's ``app.py`` and
``pages/<name>.py``, which only hand over to these scripts (``run_script``). The frame registers its pages by paths
relative to the script Streamlit runs, so either layout serves the same pages at the same URLs.
"""

from __future__ import annotations

import pathlib

APP_DIRECTORY = pathlib.Path(__file__).resolve().parent
MAIN_SCRIPT = APP_DIRECTORY / "app.py"
PAGES_DIRECTORY = APP_DIRECTORY / "pages"


def run_script(relative_path: str) -> None:
    """Run the packaged script ``relative_path`` (``"app.py"``, ``"pages/pca.py"``) as Streamlit runs a page: its
    code executed afresh, on every rerun, in a new ``__main__`` namespace (``sys.modules`` untouched: sessions
    run in parallel threads)."""
    path = APP_DIRECTORY / relative_path
    if not path.is_file():
        raise FileNotFoundError(f"no explorer script {relative_path!r} in {APP_DIRECTORY}")
    code = compile(path.read_bytes(), str(path), "exec")
    exec(code, {"__name__": "__main__", "__file__": str(path), "__builtins__": __builtins__})
