#!/usr/bin/env python3
"""Rebuild the table of other languages (rules/lexicon/lang-others.txt).

src/text/others.rs uses it to tell a say in a third language (French,
Spanish, Polish, ...) from one in the call language, and to name the
language of a say in Cyrillic or Arabic script. Source: wordfreq 3.1.1
(pip install wordfreq==3.1.1; https://github.com/rspeer/wordfreq; its data
is CC BY-SA 4.0), its 'large' list where it has one, else its 'small' list.
Nothing here comes from any language identifier's test data.

For every language below, the TOP_WORDS (TOP_WORDS_SCRIPT outside Latin
script) most frequent words written in its script (Latin, Cyrillic or
Arabic letters), with ln P(word) in hundredths of a nat; and per language the
floor: ln P of its TOP_WORDS-th word, the most a word outside its list can
be worth. English and German are not in it: the call-language model of
src/text/language.rs scores those.

Run from the crate root: python3 scripts/lang-others-build.py
"""
import math

import wordfreq

TOP_WORDS = 20000
# Languages of another script only need naming, since the script itself
# tells them from the call languages: fewer words do.
TOP_WORDS_SCRIPT = 10000
# ISO 639-1 codes (wordfreq's `fil` and `sh` as it names them) and scripts,
# in the order of src/text/others.rs's score arrays.
LANGS = [(code, "latin") for code in (
    "ca cs da es fi fil fr hu id is it lt lv ms nb nl pl pt ro sh sk sl sv tr vi"
).split()] + [(code, "cyrillic") for code in "ru uk bg mk".split()] + [
    (code, "arabic") for code in "ar fa ur".split()
]


def letter(c, script):
    if script == "latin":
        return "a" <= c <= "z" or "\u00c0" <= c <= "\u024f" or "\u1e00" <= c <= "\u1eff"
    if script == "cyrillic":
        return "\u0400" <= c <= "\u04ff" or "\u0500" <= c <= "\u052f"
    return "\u0620" <= c <= "\u064a" or "\u066e" <= c <= "\u06d3" or "\u06fa" <= c <= "\u06ff"


def of_script(word, script):
    """Letters of the script only (with the apostrophe inside a word)."""
    return (
        all(letter(c, script) or c == "'" for c in word)
        and not word.startswith("'")
        and not word.endswith("'")
    )


def top_words(code, script):
    wordlist = "large" if code in wordfreq.available_languages("large") else "small"
    freqs = wordfreq.get_frequency_dict(code, wordlist=wordlist)
    out, seen = [], set()
    for word, f in sorted(freqs.items(), key=lambda x: (-x[1], x[0])):
        word = word.replace("\u2019", "'")
        if of_script(word, script) and word not in seen:
            seen.add(word)
            out.append((word, f))
            if len(out) == (TOP_WORDS if script == "latin" else TOP_WORDS_SCRIPT):
                break
    return wordlist, out


def main():
    table = {}
    floors = []
    sources = []
    for li, (code, script) in enumerate(LANGS):
        wordlist, words = top_words(code, script)
        sources.append(f"{code}:{wordlist}")
        floors.append(round(100 * math.log(words[-1][1])))
        for word, f in words:
            table.setdefault(word, []).append((li, round(100 * math.log(f))))
    path = "rules/lexicon/lang-others.txt"
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write(
            "# callint language model: languages other than the call languages. Derived from\n"
            "# wordfreq 3.1.1 word lists (data CC BY-SA 4.0,\n"
            "# https://github.com/rspeer/wordfreq) by scripts/lang-others-build.py;\n"
            "# this file is under CC BY-SA 4.0 as well.\n"
            f"# The {TOP_WORDS} most frequent words of each Latin-script language,\n"
            f"# {TOP_WORDS_SCRIPT} of the others; per word the\n"
            "# languages whose list has it, as `index:ln P` in hundredths of a nat.\n"
            f"# Lists: {' '.join(sources)}\n"
        )
        out.write("[langs]\t" + "\t".join(code for code, _ in LANGS) + "\n")
        out.write("[floors]\t" + "\t".join(map(str, floors)) + "\n")
        for word in sorted(table):
            out.write(word + "\t" + " ".join(f"{li}:{lp}" for li, lp in table[word]) + "\n")
    print(path, len(table), "words")


if __name__ == "__main__":
    main()
