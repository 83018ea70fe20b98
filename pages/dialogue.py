"""Dialogue: HRED's greedy and beam replies beside VHRED's replies for several z samples, the KL curves, and the
experiment."""

from __future__ import annotations

import streamlit as st

from elmo_keras.explorer.dialogue import charts as dialogue_charts
from elmo_keras.explorer.dialogue.service import (
    DIALOGUE_MODELS,
    example_contexts,
    experiment_kl_curves,
    experiment_table,
    kl_history,
    respond,
    shipped_experiments,
)
from page_common import first_use_models, require_frame

require_frame()

CONTEXT_KEY, TYPED_KEY = "dialogue_context", "dialogue_typed"
SAMPLES_KEY, BEAM_KEY, SEED_KEY = "dialogue_samples", "dialogue_beam", "dialogue_seed"


@st.cache_data(show_spinner="Generating replies…", max_entries=64)
def replies(_hred, _vhred, models_dir, version, text, num_samples, beam_size, seed):
    return respond(_hred, _vhred, text, num_samples=num_samples, beam_size=beam_size, seed=seed)


def show_experiment():
    """The shipped experiment: the table, the KL curves with and without annealing, how to reproduce it."""
    st.subheader("Experiment: diversity, held-out likelihood and KL collapse")
    results = shipped_experiments()
    if results is None:
        st.info("No experiment results are shipped with this installation; run "
                "`python tools/run_dialogue_experiments.py`.")
        return
    st.caption(f"Mean ± standard deviation over {len(results['seeds'])} seeds. Likelihoods on the "
               f"{results['num_contexts']} held-out contexts (per reply token); diversity over N = "
               f"{results['num_samples']} replies for each of {results['num_diversity_contexts']} held-out contexts "
               "(valid: share of replies that are a plausible corpus reply; coverage: share of the plausible replies "
               "produced). Reproduce with `python tools/run_dialogue_experiments.py` (about "
               f"{results['minutes']:.0f} minutes on 2 busy CPU cores).")
    st.dataframe(experiment_table(results), hide_index=True, width="stretch")
    st.plotly_chart(dialogue_charts.experiment_kl_chart(experiment_kl_curves(results)), width="stretch",
                    key="dialogue_experiment_kl")
    st.markdown(results["conclusion"])


st.title("Dialogue: HRED and VHRED")
st.caption("Seed notes §14–15, on synthetic dialogues: the first turn sets a topic (“i had sushi for dinner”), the "
           "later ones are topic-free (“oh really ?”, “any advice ?”), and each context has 3–4 plausible replies.")
with st.expander("How the two models read a dialogue", expanded=False):
    st.markdown(
        "**HRED.** A word-level GRU reads each utterance into a vector $m_t$ (the same GRU for every utterance). "
        "A context GRU reads those vectors: $c_1$ is its initial state and $c_t = f(c_{t-1}, m_{t-1})$, so $c_t$ "
        "summarises utterances $1 … t-1$ and **never the current one**. The reply decoder starts from "
        "$\\tanh(W c_n + b)$ and generates word by word; all its randomness is in picking words.\n\n"
        "**VHRED.** First sample *what to say*: $z \\sim p(z \\mid c) = \\mathcal N(\\mu_p, \\sigma_p^2)$, then "
        "say it: the decoder starts from $[c; z]$. Training uses the posterior $q(z \\mid c, x_n)$, which also "
        "reads the real reply, $z = \\mu + \\sigma \\odot \\varepsilon$, and maximises the ELBO "
        "$\\mathbb E_q \\log p(x_n \\mid c, z) - \\mathrm{KL}(q \\,\\|\\, p)$. When the KL goes to 0 the decoder "
        "ignores $z$ (KL collapse); KL annealing and word dropout are the usual counter-measures.")
interactive = st.container()
show_experiment()

with interactive:
    (models_dir, version), (hred, vhred) = first_use_models(DIALOGUE_MODELS)
    contexts = example_contexts()
    left, right = st.columns([3, 2])
    with left:
        picked = st.selectbox("Held-out context (turns separated by “|”; the models never saw it)", contexts,
                              key=CONTEXT_KEY)
        typed = st.text_input("…or type a context (turns separated by “|”)", key=TYPED_KEY,
                              placeholder="i watched a scary film | tell me more | any advice ?")
    with right:
        c = st.columns(3)
        num_samples = c[0].number_input("z samples", 1, 20, 5, key=SAMPLES_KEY)
        beam_size = c[1].number_input("beam k", 1, 10, 3, key=BEAM_KEY)
        seed = c[2].number_input("seed", 0, 10_000, 0, key=SEED_KEY)
    try:
        view = replies(hred, vhred, models_dir, version, typed.strip() or picked, int(num_samples), int(beam_size),
                       int(seed))
    except ValueError as error:
        st.error(str(error))
        st.stop()

    st.markdown("**Context:** " + "  →  ".join(f"“{turn}”" for turn in view.turns))
    if view.unknown_words:
        st.warning("Not in the vocabulary (read as <unk>): " + ", ".join(view.unknown_words))
    if view.references:
        st.caption("Plausible replies in the corpus: " + " · ".join(f"“{r}”" for r in view.references))
    left, right = st.columns(2)
    with left:
        st.markdown("**HRED**: greedy and beam search (log-probabilities of the whole reply)")
        st.dataframe(view.hred.round({"log_prob": 3}), hide_index=True, width="stretch")
    with right:
        st.markdown("**VHRED**: one reply per $z \\sim p(z \\mid c)$, each decoded greedily")
        st.dataframe(view.vhred.round({"log_prob": 3}), hide_index=True, width="stretch")
    st.markdown("**Diversity of each column** (distinct-n = distinct n-grams / all n-grams; valid = share of "
                "replies that are plausible replies in the corpus)")
    st.dataframe(view.diversity.round(3), hide_index=True, width="stretch")
    st.plotly_chart(dialogue_charts.training_kl_chart(kl_history(vhred)), width="stretch", key="dialogue_training_kl")
