"""ELMo explorer: see contextual embeddings, ELMo's layer weights and decoding strategies at work.

Run with ``elmo-keras explore`` (from a clone also ``streamlit run app.py``, whose ``app.py`` and ``pages/`` hand
over to this frame and its ``pages/``). This frame runs before every page: it initialises the session state, makes
sure a trained biLM exists (on first launch it installs the shipped ``toy`` model in the models directory, or,
where the package holds none, trains the ``toy`` preset on the built-in corpus and saves it as ``toy``), shows
the active model in the sidebar with a picker over the models saved on disk, and runs the page chosen in the
navigation. All computation lives in ``elmo_keras.explorer``; pages read widgets, call one service function and
render.
"""

from __future__ import annotations

import streamlit as st

from elmo_keras.explorer import state
from elmo_keras.explorer.app.page_common import first_use_handle, watch_training
from elmo_keras.explorer.contextualizers.models import DEFAULT_BILMS, DEFAULT_NAMES, LABELS
from elmo_keras.explorer.corpus import builtin_corpus, describe
from elmo_keras.explorer.model_store import DEFAULT_MODEL_NAME, DEFAULT_PRESET, list_models, models_directory
from elmo_keras.explorer.shipped_models import install_shipped_model
from elmo_keras.explorer.training import FIRST_LAUNCH, TrainingSettings, epoch_count
from elmo_keras.explorer.warm_up import import_in_background

PAGES = [
    st.Page("pages/context_similarity.py", title="Context similarity", icon=":material/grid_on:", default=True),
    st.Page("pages/pca.py", title="PCA per layer", icon=":material/scatter_plot:"),
    st.Page("pages/layer_weights.py", title="Layer weights", icon=":material/tune:"),
    st.Page("pages/contextualizers.py", title="LSTM vs transformer", icon=":material/compare:"),
    st.Page("pages/probing.py", title="Probing", icon=":material/science:"),
    st.Page("pages/decoding.py", title="Decoding", icon=":material/account_tree:"),
    st.Page("pages/tagging.py", title="Tagging", icon=":material/label:"),
    st.Page("pages/classification.py", title="Classification", icon=":material/category:"),
    st.Page("pages/dialogue.py", title="Dialogue", icon=":material/forum:"),
    st.Page("pages/gradients.py", title="Gradients", icon=":material/trending_down:"),
    st.Page("pages/corpus_training.py", title="Corpus & training", icon=":material/edit_note:"),
]


def first_launch(models_dir) -> None:
    """No model on disk yet: train the default one in the background, show its progress, then start again.

    The training runs in its own thread (shared by every session: ``page_common.watch_training``); this run only
    watches it. A click or a second tab interrupts or repeats the watching, never the training.
    """
    st.title("ELMo explorer")
    st.info(f"First launch: training the `{DEFAULT_PRESET}` biLM on the built-in polysemy corpus "
            f"({epoch_count(TrainingSettings.for_preset(DEFAULT_PRESET).epochs)}, about a minute on 2 CPU cores). "
            f"It is saved as **{DEFAULT_MODEL_NAME}** in `{models_dir}`, so later launches start at once.")
    watch_training(FIRST_LAUNCH, models_dir)
    st.session_state[state.REQUESTED_MODEL] = DEFAULT_MODEL_NAME
    st.rerun()


def contextualizer_models(infos, models_dir):
    """The contextualizer chosen in the sidebar and the saved biLMs of that kind; where there is none, its default
    biLM is installed from the package (or trained) first (``contextualizers.models.DEFAULT_BILMS``)."""
    requested = {info.name: info.contextualizer for info in infos}.get(st.session_state[state.REQUESTED_MODEL])
    if requested is not None:  # a page asked for a model: show its kind (allowed: the radio is not drawn yet)
        st.session_state[state.CONTEXTUALIZER_PICKER] = requested
    with st.sidebar:
        kind = st.radio("Contextualizer", list(DEFAULT_BILMS), format_func=LABELS.get, horizontal=True,
                        key=state.CONTEXTUALIZER_PICKER, help="The biLM's layers above the token vectors: LSTMs "
                        "(Peters et al. 2018a) or transformer blocks (Peters et al. 2018b).")
    if not any(info.contextualizer == kind for info in infos):
        first_use_handle(DEFAULT_BILMS[kind])
        infos = list_models(models_dir)
    return kind, [info for info in infos if info.contextualizer == kind]


def model_sidebar(infos) -> None:
    """The contextualizer choice, the model picker over its biLMs and the active model's numbers."""
    kind, infos = contextualizer_models(infos, models_dir)
    names = [info.name for info in infos]
    default = DEFAULT_NAMES[kind]
    requested = st.session_state[state.REQUESTED_MODEL]
    if requested in names:
        st.session_state[state.ACTIVE_MODEL] = requested
        st.session_state[state.MODEL_PICKER] = requested  # allowed: the picker is not drawn yet in this run
    st.session_state[state.REQUESTED_MODEL] = None
    if st.session_state[state.ACTIVE_MODEL] not in names:
        st.session_state[state.ACTIVE_MODEL] = default if default in names else names[0]
    if st.session_state.get(state.MODEL_PICKER) not in names:  # widget state is dropped when a run skips it
        st.session_state[state.MODEL_PICKER] = st.session_state[state.ACTIVE_MODEL]
    with st.sidebar:
        name = st.selectbox("Active biLM", names, key=state.MODEL_PICKER,
                            help="Trained models saved in the models directory.")
        st.session_state[state.ACTIVE_MODEL] = name
        info = infos[names.index(name)]
        st.session_state[state.ACTIVE_REF] = info.ref
        lines = [f"preset **{info.preset}** ({info.token_input}-level), {epoch_count(info.epochs)}"]
        if info.num_sentences is not None:
            lines.append(f"trained on {info.num_sentences:,} sentences, {info.num_tokens or 0:,} tokens "
                         f"(vocabulary {info.vocab_size or '?'})")
        for label, pair in (("train", info.train_perplexity), ("held-out", info.heldout_perplexity)):
            if pair:
                lines.append(f"{label} perplexity: forward {pair[0]:.1f} · backward {pair[1]:.1f}")
        st.markdown("\n".join(f"- {line}" for line in lines))
        st.caption(f"Corpus on the pages: {st.session_state[state.CORPUS_SOURCE]} — "
                   f"{describe(st.session_state[state.CORPUS])}.")
        st.caption(f"Models directory: `{models_dir}`")


st.set_page_config(page_title="ELMo explorer", page_icon=":material/layers:", layout="wide")
for key, value in state.initial_state().items():
    st.session_state.setdefault(key, value)
if st.session_state[state.CORPUS] is None:
    st.session_state[state.CORPUS] = builtin_corpus()

page = st.navigation(PAGES)
models_dir = models_directory()
models = list_models(models_dir)
if not models and install_shipped_model(models_dir, DEFAULT_MODEL_NAME):  # the shipped toy biLM: nothing to train
    models = list_models(models_dir)
    st.session_state[state.MESSAGE] = (
        "info", f"Installed the shipped `{DEFAULT_MODEL_NAME}` biLM in `{models_dir}` (built by "
                "`tools/build_shipped_models.py`); train your own on the Corpus & training page.")
if not models:
    first_launch(models_dir)
model_sidebar(models)
message = st.session_state[state.MESSAGE]
if message:
    kind, text = message
    getattr(st, kind)(text)
    st.session_state[state.MESSAGE] = None
page.run()
import_in_background()  # Keras and the other pages' modules load while the first page is read
