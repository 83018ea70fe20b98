"""Write ``elmo_keras/data/dialogues.tsv``: the synthetic multi-turn dialogues of the Dialogue page (seeded).

Every dialogue opens on a topic ("i had sushi for dinner" → food). The later history turns are topic-free
("oh really ?", "what should i do next ?"), yet the reply depends on the topic *and* on the last turn's kind:
after an opener or an acknowledgement it talks about the topic, after "any advice ?" it gives topic advice,
after "what do you think ?" a topic opinion. So the last utterance alone does not decide the reply (the topic
sits two or three turns back: the hierarchy matters), and each context has several plausible replies (so
diversity can be measured). Dialogues have 2–4 turns (1–3 history turns plus the reply).

The held-out split is fixed: one context in five (chosen with ``SEED``), all of its replies with it. Held-out
contexts are new combinations of turns that all occur in training.

Run ``python tools/make_dialogue_data.py`` (no arguments) to rewrite the file; the output is deterministic.
"""

from __future__ import annotations

import pathlib
import random

SEED = 16
HELDOUT_SHARE = 0.2
OUT = pathlib.Path(__file__).resolve().parents[1] / "elmo_keras" / "data" / "dialogues.tsv"

OPENERS = {
    "food": ["i had sushi for dinner", "we tried a new pizza place"],
    "music": ["i went to a jazz concert", "i am learning the guitar"],
    "hiking": ["we climbed a big mountain", "i walked in the forest all day"],
    "football": ["my team won the match", "i played football in the park"],
    "movies": ["i watched a scary film", "we saw a funny movie last night"],
    "travel": ["i just came back from rome", "we took a train to the coast"],
}
ACKS = ["oh really ?", "tell me more", "nice , go on", "and then ?"]
QUESTIONS = {"advice": ["any advice ?", "what should i do next ?"],
             "opinion": ["what do you think ?", "do you like that ?"]}
REPLIES = {  # topic → reply kind → several plausible replies
    "food": {"chat": ["was it tasty ?", "i love trying new food", "now i am hungry", "what did you eat ?"],
             "advice": ["try the thai place next", "cook it at home next time", "bring a friend to share"],
             "opinion": ["good food makes me happy", "i prefer home cooking", "i could eat that every day"]},
    "music": {"chat": ["was the music loud ?", "i love live music", "which songs did you play ?",
                       "music is my favourite thing"],
              "advice": ["practise a little every day", "join a small band", "listen to the old records"],
              "opinion": ["jazz is so relaxing", "i prefer quiet songs", "music always cheers me up"]},
    "hiking": {"chat": ["was the view nice ?", "your legs must be tired", "i love fresh air",
                        "how long did it take ?"],
               "advice": ["bring more water next time", "start early in the morning", "buy good boots"],
               "opinion": ["nature is the best gym", "i prefer short walks", "mountains are beautiful"]},
    "football": {"chat": ["what was the score ?", "who scored the goal ?", "i love a good match",
                          "was the crowd loud ?"],
                 "advice": ["train twice a week", "watch the pros play", "stretch before you play"],
                 "opinion": ["football is a great sport", "i prefer watching to playing", "teams need good coaches"]},
    "movies": {"chat": ["who was in it ?", "i love a good film", "was it long ?", "did you like the ending ?"],
               "advice": ["watch the sequel next", "read the book first", "go to the cinema on monday"],
               "opinion": ["films are better with friends", "i prefer old movies", "popcorn makes it better"]},
    "travel": {"chat": ["how was the weather ?", "i love new places", "did you take photos ?",
                        "was it expensive ?"],
               "advice": ["book the hotel early", "pack light next time", "learn a few local words"],
               "opinion": ["travel opens the mind", "i prefer quiet beaches", "trains are the best way to go"]},
}
TURN_SEPARATOR = " | "
HEADER = ["context", "response", "split"]


def contexts() -> list[tuple[str, list[str], str]]:
    """Every ``(topic, history turns, reply kind)``: 1 turn (opener), 2 (+ acknowledgement), 3 (+ question)."""
    result = []
    for topic, openers in OPENERS.items():
        for opener in openers:
            result.append((topic, [opener], "chat"))
            for ack in ACKS:
                result.append((topic, [opener, ack], "chat"))
                for kind, questions in QUESTIONS.items():
                    result.extend((topic, [opener, ack, question], kind) for question in questions)
    return result


def rows(seed: int = SEED) -> list[tuple[str, str, str]]:
    """``(context, response, split)`` rows; the context's turns joined by ``TURN_SEPARATOR``."""
    all_contexts = contexts()
    rng = random.Random(seed)
    heldout = set(rng.sample(range(len(all_contexts)), round(HELDOUT_SHARE * len(all_contexts))))
    out = []
    for index, (topic, history, kind) in enumerate(all_contexts):
        split = "heldout" if index in heldout else "train"
        out.extend((TURN_SEPARATOR.join(history), reply, split) for reply in REPLIES[topic][kind])
    return out


def main() -> None:
    lines = ["\t".join(HEADER)] + ["\t".join(row) for row in rows()]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines) - 1} dialogues to {OUT}")


if __name__ == "__main__":
    main()
