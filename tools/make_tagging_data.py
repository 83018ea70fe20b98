"""Generate the synthetic tagging data shipped in ``elmo_keras/data/`` (deterministic: same bytes every run).

Usage::

    python tools/make_tagging_data.py [--out DIR]     # default: elmo_keras/data

Writes ``pos_tagged.conll``, ``frames_tagged.conll``, ``ner_bioes.conll`` and ``tagging_unlabelled.txt``; what
each holds and why is described in :mod:`elmo_keras.data.tagging`. Everything comes from the templates and word
lists below and one ``random.Random`` per file, seeded with a string (so ``PYTHONHASHSEED`` does not matter);
no set is iterated, so re-running reproduces the files byte for byte
(``tests/tagging/backend_independent/test_tagging_data.py`` checks it).

Shop-domain template notation: space-separated items, each one of

- ``word/UPOS`` — a literal token (frame label ``null``);
- ``word/UPOS/@`` — the word that evokes the template's frame (frame label = the frame's name);
- ``word/UPOS/Label`` — a literal with its own frame label (``yes/INTJ/Agreement``);
- ``{slot}`` or ``{slot:Element}`` — a random phrase from ``SLOTS[slot]`` (itself a template); with an element
  name its tokens form that frame element: ``B_Element#Frame`` then ``I_Element#Frame``.

Every shop sentence is generated with both POS tags and frame labels; the POS file keeps the tags, the frame
file the labels. News templates mark names with ``{SLOT}``; ``NAMES`` gives each slot's entity type, the names
used everywhere and the names used only in held-out sentences (and in unlabelled text).
"""

from __future__ import annotations

import argparse
import functools
import pathlib
import random

from elmo_keras.data.polysemy import POS_TAGS
from elmo_keras.data.tagging import (
    FRAME_ELEMENTS,
    FRAME_LABELS,
    FRAME_NULL,
    FRAMES_FILE,
    NER_FILE,
    POS_FILE,
    UNLABELLED_FILE,
)
from elmo_keras.text.conll import write_conll

DATA_DIR = pathlib.Path(__file__).resolve().parents[1] / "elmo_keras" / "data"
SEED = "elmo_keras tagging data v1"
HELDOUT_FRACTION = 0.2
FRAME_SENTENCES = 130
POS_FROM_FRAME_TEMPLATES, POS_FROM_OTHER_TEMPLATES = 650, 450
NER_SENTENCES = 400
UNLABELLED_SHOP_EXTRA, UNLABELLED_NEWS_EXTRA = 900, 1300
MAX_TRIES = 1000  # draws allowed per new unique sentence before giving up


def tagged(words: str, tag: str) -> list[str]:
    return [f"{word}/{tag}" for word in words.split()]


SLOTS = {
    "place_noun": tagged("bank pharmacy library museum bakery supermarket cinema gallery market shop butcher cafe "
                         "gym clinic restaurant hotel garage laundry", "NOUN")
    + ["post/NOUN office/NOUN", "book/NOUN shop/NOUN", "swimming/NOUN pool/NOUN", "train/NOUN station/NOUN",
       "bus/NOUN station/NOUN", "flower/NOUN shop/NOUN", "shoe/NOUN shop/NOUN", "town/NOUN hall/NOUN",
       "car/NOUN park/NOUN"],
    "adjective": tagged("new old big small local main nearest", "ADJ"),
    "place": ["the/DET {place_noun}"] * 3 + ["the/DET {adjective} {place_noun}", "your/PRON {place_noun}",
                                            "this/DET {place_noun}"],
    "a_place": ["a/DET {place_noun}", "a/DET {adjective} {place_noun}"],
    "pron": ["it/PRON"],
    "they": ["they/PRON"],
    "here": ["here/ADV"],
    "weekday": tagged("monday tuesday wednesday thursday friday saturday sunday", "PROPN"),
    "clock": tagged("five six seven eight nine ten eleven", "NUM") + ["noon/NOUN", "midnight/NOUN"],
    "part_of_day": tagged("morning afternoon evening", "NOUN"),
    "day": ["on/ADP {weekday}", "on/ADP {weekday}", "every/DET {weekday}", "today/NOUN", "tomorrow/NOUN",
            "at/ADP the/DET weekend/NOUN", "on/ADP public/ADJ holidays/NOUN"],
    "when": ["{day}", "{day}", "{day}", "tonight/NOUN", "this/DET {part_of_day}", "tomorrow/NOUN {part_of_day}"],
    "at_clock": ["at/ADP {clock}"],
    "span": ["until/ADP {clock}", "from/ADP {clock} to/ADP {clock}", "all/DET day/NOUN"],
    "yes": ["yes/INTJ/Agreement ,/PUNCT", "yeah/INTJ/Agreement ,/PUNCT", "sure/INTJ/Agreement ,/PUNCT",
            "okay/INTJ/Agreement ,/PUNCT"],
    "no": ["no/INTJ/Disagreement ,/PUNCT"],
    "customer": ["i/PRON", "we/PRON"],
    "someone": ["i/PRON", "we/PRON", "my/PRON {relative}"],
    "relative": tagged("wife husband sister brother friend mother father neighbour", "NOUN"),
    "you": ["you/PRON"],
    "item": ["a/DET table/NOUN", "a/DET table/NOUN", "a/DET room/NOUN", "a/DET {room_kind} room/NOUN",
             "a/DET ticket/NOUN", "two/NUM tickets/NOUN", "a/DET appointment/NOUN", "a/DET taxi/NOUN",
             "a/DET seat/NOUN", "a/DET lesson/NOUN", "a/DET tennis/NOUN court/NOUN", "a/DET haircut/NOUN",
             "a/DET table/NOUN by/ADP the/DET window/NOUN"],
    "room_kind": tagged("double single quiet", "ADJ"),
    "number": tagged("two three four five six", "NUM"),
    "party": ["for/ADP {number}", "for/ADP {number} people/NOUN", "for/ADP my/PRON family/NOUN",
              "for/ADP {number} adults/NOUN"],
    "venue": ["at/ADP the/DET {venue_noun}", "at/ADP your/PRON {venue_noun}"],
    "venue_noun": tagged("restaurant hotel cafe clinic gym cinema hairdresser", "NOUN")
    + ["swimming/NOUN pool/NOUN", "train/NOUN station/NOUN", "tennis/NOUN club/NOUN"],
    # used by the POS-only templates
    "thing": tagged("door window box gate", "NOUN"),
    "goods_noun": tagged("book card bag umbrella key phone coat ticket", "NOUN"),
    "goods": ["fresh/ADJ bread/NOUN", "flowers/NOUN", "shoes/NOUN", "stamps/NOUN", "cakes/NOUN and/CCONJ coffee/NOUN",
              "books/NOUN", "medicine/NOUN", "cheap/ADJ tickets/NOUN"],
    "items_plural": tagged("tables rooms tickets seats", "NOUN"),
    "price": tagged("two five ten twenty", "NUM"),
}

FRAME_TEMPLATES = {
    "Opening": [
        "is/AUX {place:Place} open/ADJ/@ {when:Time} ?/PUNCT",
        "is/AUX {place:Place} still/ADV open/ADJ/@ ?/PUNCT",
        "{yes} {pron:Place} is/AUX open/ADJ/@ ./PUNCT",
        "{yes} {pron:Place} is/AUX open/ADJ/@ {span:Time} ./PUNCT",
        "when/ADV does/AUX {place:Place} open/VERB/@ {when:Time} ?/PUNCT",
        "what/DET time/NOUN does/AUX {place:Place} open/VERB/@ ?/PUNCT",
        "{place:Place} opens/VERB/@ {at_clock:Time} {day:Time} ./PUNCT",
        "{yes} {pron:Place} opens/VERB/@ {at_clock:Time} ./PUNCT",
        "{place:Place} is/AUX open/ADJ/@ {span:Time} {day:Time} ./PUNCT",
        "{yes} {they:Place} open/VERB/@ {at_clock:Time} {day:Time} ./PUNCT",
        "do/AUX you/PRON know/VERB if/SCONJ {place:Place} is/AUX open/ADJ/@ {when:Time} ?/PUNCT",
    ],
    "Closure": [
        "is/AUX {place:Place} closed/ADJ/@ {when:Time} ?/PUNCT",
        "{no} {pron:Place} is/AUX closed/ADJ/@ {when:Time} ./PUNCT",
        "sorry/INTJ ,/PUNCT {place:Place} is/AUX closed/ADJ/@ {when:Time} ./PUNCT",
        "when/ADV does/AUX {place:Place} close/VERB/@ ?/PUNCT",
        "what/DET time/NOUN does/AUX {place:Place} close/VERB/@ {when:Time} ?/PUNCT",
        "{place:Place} closes/VERB/@ {at_clock:Time} {day:Time} ./PUNCT",
        "{no} {they:Place} are/AUX closed/ADJ/@ {when:Time} ./PUNCT",
        "{yes} {pron:Place} closes/VERB/@ {at_clock:Time} ./PUNCT",
        "{place:Place} will/AUX close/VERB/@ early/ADV {when:Time} ./PUNCT",
        "{yes} {pron:Place} is/AUX closed/ADJ/@ ./PUNCT",
    ],
    "Booking": [
        "{customer:Customer} want/VERB to/PART book/VERB/@ {item:Item} {party:Party} {when:Time} ./PUNCT",
        "{someone:Customer} would/AUX like/VERB to/PART book/VERB/@ {item:Item} {venue:Place} ./PUNCT",
        "can/AUX {someone:Customer} book/VERB/@ {item:Item} {when:Time} ?/PUNCT",
        "{customer:Customer} want/VERB to/PART reserve/VERB/@ {item:Item} {party:Party} ./PUNCT",
        "{yes} {you:Customer} can/AUX book/VERB/@ {item:Item} {venue:Place} ./PUNCT",
        "{customer:Customer} need/VERB to/PART book/VERB/@ {item:Item} {venue:Place} {when:Time} ./PUNCT",
        "can/AUX {customer:Customer} book/VERB/@ {item:Item} {party:Party} {at_clock:Time} ?/PUNCT",
    ],
    "Locative_relation": [
        "is/AUX {place:Figure} close/ADJ/@ to/ADP {place:Ground} ?/PUNCT",
        "{place:Figure} is/AUX near/ADP/@ {place:Ground} ./PUNCT",
        "{yes} {pron:Figure} is/AUX close/ADJ/@ to/ADP {place:Ground} ./PUNCT",
        "is/VERB there/PRON {a_place:Figure} near/ADP/@ {place:Ground} ?/PUNCT",
        "{no} {pron:Figure} is/AUX not/PART close/ADJ/@ to/ADP {place:Ground} ./PUNCT",
        "is/AUX {place:Figure} near/ADP/@ {here:Ground} ?/PUNCT",
    ],
    "Agreement": ["{yes} thank/VERB you/PRON ./PUNCT", "yes/INTJ/@ ,/PUNCT please/INTJ ./PUNCT"],
    "Disagreement": ["{no} thanks/NOUN ./PUNCT"],
}
POS_ONLY_TEMPLATES = [
    "i/PRON want/VERB to/PART return/VERB this/DET book/NOUN to/ADP {place} ./PUNCT",
    "she/PRON bought/VERB a/DET {goods_noun} at/ADP {place} {when} ./PUNCT",
    "my/PRON {relative} works/VERB at/ADP {place} ./PUNCT",
    "{place} sells/VERB {goods} ./PUNCT",
    "can/AUX you/PRON open/VERB the/DET {thing} ,/PUNCT please/INTJ ?/PUNCT",
    "please/INTJ close/VERB the/DET {thing} ./PUNCT",
    "there/PRON are/VERB no/DET {items_plural} {when} ./PUNCT",
    "{place} is/AUX very/ADV busy/ADJ {when} ./PUNCT",
    "we/PRON met/VERB at/ADP {place} {when} ./PUNCT",
    "i/PRON lost/VERB my/PRON {goods_noun} at/ADP {place} ./PUNCT",
    "the/DET staff/NOUN at/ADP {place} were/AUX very/ADV kind/ADJ ./PUNCT",
    "the/DET {goods_noun} is/AUX on/ADP the/DET table/NOUN ./PUNCT",
    "i/PRON will/AUX call/VERB {place} {when} ./PUNCT",
    "{place} is/AUX close/ADJ to/ADP my/PRON house/NOUN ./PUNCT",
    "they/PRON close/VERB the/DET road/NOUN {when} ./PUNCT",
    "the/DET open/ADJ market/NOUN is/AUX {when} ./PUNCT",
    "my/PRON {relative} and/CCONJ i/PRON waited/VERB outside/ADP {place} ./PUNCT",
    "the/DET opening/NOUN hours/NOUN of/ADP {place} are/AUX on/ADP the/DET door/NOUN ./PUNCT",
    "did/AUX you/PRON book/VERB {item} {when} ?/PUNCT",
    "{someone} booked/VERB {item} {venue} ./PUNCT",
    "the/DET {goods_noun} costs/VERB {price} pounds/NOUN ./PUNCT",
    "you/PRON can/AUX park/VERB at/ADP {place} {when} ./PUNCT",
    "i/PRON need/VERB to/PART go/VERB to/ADP {place} {when} ./PUNCT",
    "thank/VERB you/PRON for/ADP the/DET {goods_noun} ./PUNCT",
    "thanks/NOUN for/ADP the/DET {goods_noun} ./PUNCT",
]

# news slot -> (entity type, names used everywhere, names used only in held-out and unlabelled sentences)
NAMES = {
    "PER": ("PER", ["John Smith", "Maria Garcia", "Ahmed Hassan", "Li Wei", "Paris Hilton", "Michael Jordan",
                    "George Washington", "Denzel Washington", "Martin Luther King", "Peter Brown", "Emma Wilson",
                    "Jordan", "Washington", "Georgia", "Florence", "Sydney", "Chelsea", "Victoria", "Smith",
                    "Garcia", "Hassan"],
            ["Anna Novak", "Kofi Mensah", "Sofia Rossi", "Lincoln"]),
    "CITY": ("LOC", ["Paris", "London", "Berlin", "Madrid", "Tokyo", "Cairo", "Manchester", "Barcelona", "Sydney",
                     "Florence", "Victoria", "Washington", "Chelsea", "New York", "Los Angeles", "Hong Kong",
                     "Rio de Janeiro", "New Delhi"],
             ["Lisbon", "Nairobi", "Buenos Aires", "Lincoln"]),
    "COUNTRY": ("LOC", ["France", "Germany", "Spain", "Japan", "Egypt", "Kenya", "Brazil", "Canada", "Jordan",
                        "Georgia", "South Africa", "New Zealand", "United States"],
                ["Peru", "Sierra Leone", "Norway"]),
    "RIVER": ("LOC", ["River Thames", "River Seine", "River Nile"], ["River Danube"]),
    "COMPANY": ("ORG", ["Google", "Toyota", "Reuters", "Amazon", "Bank of America", "Washington Post",
                        "New York Times", "General Motors"],
                ["Siemens", "Bank of Georgia"]),
    "CLUB": ("ORG", ["Chelsea", "Arsenal", "Barcelona", "Manchester United", "Real Madrid"], ["Bayern Munich"]),
    "INSTITUTION": ("ORG", ["United Nations", "World Bank", "Red Cross", "Bank of England", "European Union"],
                    ["World Health Organization"]),
}
PLACE_SLOTS = ("CITY", "COUNTRY")  # {PLACE} is a city or a country
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
NEWS_TEMPLATES = [
    "{CITY} is located near the coast .",
    "we flew from {CITY} to {CITY} last week .",
    "she lives in {PLACE} with her family .",
    "it rained heavily in {PLACE} on {DAY} .",
    "the train to {CITY} was late again .",
    "thousands of tourists visit {PLACE} every summer .",
    "prices rose sharply in {PLACE} last year .",
    "the talks will take place in {CITY} next month .",
    "a boat trip on the {RIVER} costs {NUMBER} euros .",
    "the bridge over the {RIVER} was closed on {DAY} .",
    "{PLACE} is famous for its food .",
    "{PER} said on {DAY} that the talks had failed .",
    "{PER} scored {NUMBER} points in the final .",
    "{PER} was born in {PLACE} .",
    "{PER} met {PER} in {CITY} on {DAY} .",
    "according to {PER} , prices will rise again .",
    "the singer {PER} arrived in {CITY} on {DAY} .",
    "{PER} , the new coach of {CLUB} , thanked the fans .",
    "{PER} told reporters in {CITY} that the team was ready .",
    "{PER} signed for {CLUB} last summer .",
    "{COMPANY} shares fell {NUMBER} percent on {DAY} .",
    "{PER} works for {COMPANY} in {CITY} .",
    "{COMPANY} opened a new office in {CITY} .",
    "{CLUB} beat {CLUB} {SCORE} - {SCORE} on {DAY} .",
    "a spokesman for {INSTITUTION} said the report was wrong .",
    "{INSTITUTION} sent aid to {COUNTRY} after the floods .",
    "{COMPANY} reported strong profits last year .",
    "the {INSTITUTION} report was published on {DAY} .",
    "fans of {CLUB} celebrated in {CITY} on {DAY} .",
]


def expand(template: str, rng: random.Random, frame: str | None = None) -> list[tuple[str, str, str]]:
    """``(token, UPOS, frame label)`` triples of one random filling of a shop-domain ``template``."""
    triples = []
    for item in template.split():
        if item.startswith("{"):
            slot, _, element = item[1:-1].partition(":")
            filled = expand(rng.choice(SLOTS[slot]), rng, frame)
            if element:
                if element not in FRAME_ELEMENTS[frame]:
                    raise ValueError(f"template {template!r}: {element!r} is not an element of {frame!r}")
                filled = [(word, tag, f"{'I' if i else 'B'}_{element}#{frame}") for i, (word, tag, _) in
                          enumerate(filled)]
            triples.extend(filled)
        else:
            word, tag, *label = item.split("/")
            label = label[0] if label else FRAME_NULL
            triples.append((word, tag, frame if label == "@" else label))
    return triples


def shop_sentence(rng: random.Random, frame_share: float) -> list[tuple[str, str, str]]:
    """A shop-domain sentence: from a frame template with probability ``frame_share``, else a POS-only one.

    Drawn again while a noun or number occurs twice ("the bank is near the bank", "from nine to nine").
    """
    triples = []
    while not triples or _repeats_a_noun(triples):
        if rng.random() < frame_share:
            frame = rng.choice(list(FRAME_TEMPLATES))
            triples = expand(rng.choice(FRAME_TEMPLATES[frame]), rng, frame)
        else:
            triples = expand(rng.choice(POS_ONLY_TEMPLATES), rng)
    for i in range(len(triples) - 1):  # "a" -> "an" before a vowel
        if triples[i][0] == "a" and triples[i + 1][0][0] in "aeiou":
            triples[i] = ("an", *triples[i][1:])
    for word, tag, label in triples:
        if tag not in POS_TAGS or label not in FRAME_LABELS:
            raise ValueError(f"{word!r}: unknown POS tag {tag!r} or frame label {label!r}")
    return triples


def _repeats_a_noun(triples: list[tuple[str, str, str]]) -> bool:
    words = [word for word, tag, _ in triples if tag in ("NOUN", "NUM", "PROPN")]
    return len(set(words)) < len(words)


def news_sentence(rng: random.Random, heldout_names: bool) -> list[tuple[str, str]]:
    """A news sentence as ``(token, BIOES tag)`` pairs; ``heldout_names`` allows the held-out-only names."""
    pairs, used = [], []
    for item in rng.choice(NEWS_TEMPLATES).split():
        if item == "{DAY}":
            pairs.append((rng.choice(DAYS), "O"))
        elif item in ("{NUMBER}", "{SCORE}"):
            pairs.append((str(rng.randint(2, 40) if item == "{NUMBER}" else rng.randint(0, 4)), "O"))
        elif item.startswith("{"):
            slot = rng.choice(PLACE_SLOTS) if item == "{PLACE}" else item[1:-1]
            kind, common, rare = NAMES[slot]
            name = rng.choice(common + rare if heldout_names else common)
            while name in used:
                name = rng.choice(common + rare if heldout_names else common)
            used.append(name)
            words = name.split()
            tags = [f"S-{kind}"] if len(words) == 1 else [f"B-{kind}", *[f"I-{kind}"] * (len(words) - 2), f"E-{kind}"]
            pairs.extend(zip(words, tags))
        else:
            pairs.append((item, "O"))
    pairs[0] = (pairs[0][0][0].upper() + pairs[0][0][1:], pairs[0][1])
    return pairs


def unique(make, count: int, seen: set[str]) -> list:
    """``count`` results of ``make()`` whose token strings are new to ``seen`` (which records them)."""
    results = []
    for _ in range(count):
        for _ in range(MAX_TRIES):
            result = make()
            text = " ".join(item[0] for item in result)
            if text not in seen:
                seen.add(text)
                results.append(result)
                break
        else:
            raise RuntimeError(f"no new sentence in {MAX_TRIES} draws; the templates are exhausted")
    return results


def splits(count: int, rng: random.Random) -> list[str]:
    heldout = set(rng.sample(range(count), round(count * HELDOUT_FRACTION)))
    return ["heldout" if index in heldout else "train" for index in range(count)]


def generate() -> dict[str, list]:
    """All data: ``{"pos"|"frames"|"ner": [(tokens, tags, split)], "frame_pos": [POS tags], "unlabelled": [tokens]}``.

    ``frame_pos[i]`` holds the POS tags of frame sentence ``i`` (generated with it, not shipped).
    """
    seen: set[str] = set()
    rng = random.Random(f"{SEED}:frames")
    frames = unique(functools.partial(shop_sentence, rng, 1.0), FRAME_SENTENCES, seen)
    data = {"frames": _rows(frames, 2, splits(len(frames), rng)), "frame_pos": [[t for _, t, _ in s] for s in frames]}
    rng = random.Random(f"{SEED}:pos")
    total = POS_FROM_FRAME_TEMPLATES + POS_FROM_OTHER_TEMPLATES
    pos = unique(functools.partial(shop_sentence, rng, POS_FROM_FRAME_TEMPLATES / total), total, seen)
    data["pos"] = _rows(pos, 1, splits(total, rng))
    rng = random.Random(f"{SEED}:ner")
    heldout_count = round(NER_SENTENCES * HELDOUT_FRACTION)
    ner = [(s, "heldout") for s in unique(functools.partial(news_sentence, rng, True), heldout_count, seen)]
    ner += [(s, "train") for s in unique(functools.partial(news_sentence, rng, False), NER_SENTENCES - heldout_count,
                                         seen)]
    rng.shuffle(ner)
    data["ner"] = _rows([s for s, _ in ner], 1, [split for _, split in ner])
    rng = random.Random(f"{SEED}:unlabelled")
    lines = [tokens for name in ("pos", "frames", "ner") for tokens, _, split in data[name] if split == "train"]
    lines += [[item[0] for item in s] for s in (unique(functools.partial(shop_sentence, rng, 0.5),
                                                       UNLABELLED_SHOP_EXTRA, seen)
                                                + unique(functools.partial(news_sentence, rng, True),
                                                         UNLABELLED_NEWS_EXTRA, seen))]
    rng.shuffle(lines)
    data["unlabelled"] = lines
    _check_frame_labels(data["frames"])
    return data


def _rows(sentences: list[list[tuple]], tag_index: int, split_names: list[str]) -> list[tuple]:
    """``(tokens, tags, split)`` rows; the tags are item ``tag_index`` of each token's tuple."""
    return [([item[0] for item in s], [item[tag_index] for item in s], split)
            for s, split in zip(sentences, split_names)]


def _check_frame_labels(frames: list) -> None:
    """Every frame label occurs in the training sentences (so held-out labels are all learnable)."""
    train_labels = [label for _, labels, split in frames if split == "train" for label in labels]
    missing = [label for label in FRAME_LABELS if label not in train_labels]
    if missing:
        raise RuntimeError(f"frame labels missing from the training sentences: {missing}; change SEED")


def write_all(out_dir: pathlib.Path) -> dict[str, pathlib.Path]:
    """Generate and write the four files into ``out_dir``; returns ``{file name: path}``."""
    data, paths = generate(), {}
    for name, file_name in (("pos", POS_FILE), ("frames", FRAMES_FILE), ("ner", NER_FILE)):
        paths[file_name] = out_dir / file_name
        rows = data[name]
        write_conll(paths[file_name], [(tokens, tags) for tokens, tags, _ in rows],
                    metadata=[{"id": str(i), "split": split} for i, (_, _, split) in enumerate(rows, start=1)])
    paths[UNLABELLED_FILE] = out_dir / UNLABELLED_FILE
    paths[UNLABELLED_FILE].write_text("".join(" ".join(tokens) + "\n" for tokens in data["unlabelled"]),
                                      encoding="utf-8", newline="\n")
    return paths


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=pathlib.Path, default=DATA_DIR, help="output directory (default: %(default)s)")
    out_dir = parser.parse_args(argv).out
    out_dir.mkdir(parents=True, exist_ok=True)
    for path in write_all(out_dir).values():
        print(f"{path}: {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
