"""ELMo explorer from a clone: ``streamlit run app.py`` (installed: ``elmo-keras explore``).

The frame and the pages live in ``elmo_keras/explorer/app/``; this file and ``pages/<name>.py`` only run them.
"""

from elmo_keras.explorer.app import run_script

run_script("app.py")
