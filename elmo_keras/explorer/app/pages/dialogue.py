"""Dialogue: HRED's greedy and beam replies and those of HRED reading only the last utterance, beside VHRED's replies
for several z samples, each marked valid or not; the KL curves, and the experiment (HRED's context ablation, VHRED's
remedies for KL collapse)."""

from __future__ import annotations

import streamlit as st

from elmo_keras.explorer.app.page_common import first_use_models, require_frame
from elmo_keras.explorer.dialogue import charts as dialogue_charts
from elmo_keras.explorer.dialogue.service import (
    DIALOGUE_MODELS,
    example_contexts,
    experiment_findings,
    experiment_kl_curves,
    experiment_provenance,
    experiment_table,
    kl_history,
    respond,
    shipped_experiments,
)

require_frame()

CONTEXT_KEY, TYPED_KEY = "dialogue_context", "dialogue_typed"
SAMPLES_KEY, BEAM_KEY, SEED_KEY = "dialogue_samples", "dialogue_beam", "dialogue_seed"


VALID_MARKS = {True: "✓ valid", False: "✗ invalid"}
# what each reply table's log_prob is conditioned on (VHRED's is given its sampled z, so far closer to 0 than HRED's)
HRED_LOG_PROB, LAST_TURN_LOG_PROB = "log p(reply | context)", "log p(reply | last turn)"
VHRED_LOG_PROB = "log p(reply | z, context)"


@st.cache_data(show_spinner="Generating replies…", max_entries=64)
def replies(_models, models_dir, version, text, num_samples, beam_size, seed):
    return respond(*_models, text, num_samples=num_samples, beam_size=beam_size, seed=seed)


def marked(frame):
    """A reply table with its ``valid`` column in words (“–”: a context outside the corpus, nothing to judge by)."""
    return frame.round({"log_prob": 3}).assign(valid=[VALID_MARKS.get(v, "–") for v in frame["valid"]])


def log_prob_header(label):
    """The reply tables' ``log_prob`` column under the name of what it is conditioned on."""
    return {"log_prob": st.column_config.NumberColumn(label, format="%.3f")}


def show_experiment():
    """The shipped experiment: what its numbers say, HRED's context ablation, VHRED's remedies and their KL curves."""
    st.subheader("Experiment: does HRED carry the topic, and does VHRED's z give diverse and valid replies?")
    results = shipped_experiments()
    if results is None:
        st.info("No experiment results are shipped with this installation; run "
                "`python tools/run_dialogue_experiments.py`.")
        return
    for paragraph in experiment_findings(results):
        st.markdown(paragraph)
    st.caption(f"Mean ± standard deviation over {len(results['seeds'])} seeds, each seed's score averaged over the "
               f"{results['num_contexts']} held-out contexts (valid: share of replies that are a plausible corpus "
               f"reply of the context; coverage: share of its plausible replies among {results['num_samples']} "
               "replies, VHRED's one greedy decode per z ~ p(z | c)). Reproduce with "
               f"`python tools/run_dialogue_experiments.py` (about {results['minutes']:.0f} minutes on 2 busy CPU "
               "cores).")
    st.markdown("**HRED with and without its context RNN** (NLL per reply token, exact)")
    st.dataframe(experiment_table(results, ["HRED"]), hide_index=True, width="stretch")
    st.caption(f"distinct-1/2 and unique replies measure the diversity among one context's {results['num_samples']} "
               "replies (averaged over contexts); greedy decoding gives one reply per context, so they do not apply "
               "(–).")
    st.markdown("**VHRED: plain, each remedy, the shipped combination.** Its likelihood is a bound: "
                "“exp(ELBO bound / token)” is exp of the per-token negative ELBO, an upper bound on the perplexity, "
                "not the perplexity itself; “NLL / token at z = μ_p” decodes from the prior's mean. The likelihood "
                "columns are measured after training on the held-out dialogues; the KL curves below are epoch means "
                "while training.")
    st.dataframe(experiment_table(results, ["VHRED"]), hide_index=True, width="stretch")
    st.plotly_chart(dialogue_charts.experiment_kl_chart(experiment_kl_curves(results), results.get("shipped_vhred")),
                    width="stretch", key="dialogue_experiment_kl")
    st.caption(experiment_provenance(results))


st.title("Dialogue: HRED and VHRED")
st.caption("HRED (Serban et al. 2016) and VHRED (Serban et al. 2017) on synthetic dialogues: the first turn sets a "
           "topic (“i had sushi for dinner”), the later ones are topic-free (“oh really ?”, “any advice ?”) and fix "
           "only the kind of reply, and each context has 3–4 plausible replies. A reply is *valid* when it is one "
           "of them.")
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
        "ignores $z$ (KL collapse). Remedies measured below: KL annealing with word dropout on the decoder input "
        "(Bowman et al. 2016), a bag-of-words loss that makes $z$ predict the reply's words (Zhao et al. 2017), "
        "and free bits, a KL floor per latent dimension (Kingma et al. 2016).\n\n"
        "**HRED, last utterance only** is the ablation: its context RNN reads only the last history turn, so the "
        "decoder never sees the topic set in turn 1.")
interactive = st.container()
show_experiment()

with interactive:
    (models_dir, version), models = first_use_models(DIALOGUE_MODELS)
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
        view = replies(models, models_dir, version, typed.strip() or picked, int(num_samples), int(beam_size),
                       int(seed))
    except ValueError as error:
        st.error(str(error))
        st.stop()

    st.markdown("**Context:** " + "  →  ".join(f"“{turn}”" for turn in view.turns))
    if view.unknown_words:
        st.warning("Not in the vocabulary (read as <unk>): " + ", ".join(view.unknown_words))
    if view.references:
        st.caption("Plausible replies in the corpus: " + " · ".join(f"“{r}”" for r in view.references))
    else:
        st.caption("This context is not in the corpus: its replies cannot be judged valid or not (“–”).")
    left, right = st.columns(2)
    with left:
        st.markdown("**HRED** (context RNN over every turn): greedy and beam search (log-probabilities of the "
                    "whole reply)")
        st.dataframe(marked(view.hred), hide_index=True, width="stretch", column_config=log_prob_header(HRED_LOG_PROB))
        st.markdown("**HRED, last utterance only** (the same model trained without the earlier turns): greedy")
        st.dataframe(marked(view.hred_last_turn), hide_index=True, width="stretch",
                     column_config=log_prob_header(LAST_TURN_LOG_PROB))
    with right:
        st.markdown("**VHRED**: one reply per $z \\sim p(z \\mid c)$, each decoded greedily")
        st.dataframe(marked(view.vhred), hide_index=True, width="stretch",
                     column_config=log_prob_header(VHRED_LOG_PROB))
        st.caption("VHRED's log-probability is given its sampled z, which already says much of what the reply is: "
                   "it is not comparable with HRED's, which is given the context alone.")
    st.markdown("**Diversity of each column** (distinct-n = distinct n-grams / all n-grams; valid = share of "
                "replies that are plausible replies in the corpus)")
    st.dataframe(view.diversity.round(3), hide_index=True, width="stretch")
    st.plotly_chart(dialogue_charts.training_kl_chart(kl_history(models[-1])), width="stretch",
                    key="dialogue_training_kl")
