#!/usr/bin/env python3
"""Rebuild rules/lexicon/lang-<code>.txt, the language model of src/language.rs.

Source: the 'large' word-frequency lists of wordfreq 3.1.1 (pip install
wordfreq==3.1.1; https://github.com/rspeer/wordfreq, data CC BY-SA 4.0: built
from Wikipedia, subtitles, news, books, web text, Twitter and Reddit). Nothing
in these files comes from lingua's test data.

Per language the file holds
  [words]   the TOP_WORDS most frequent words written in Latin letters, with
            their frequency in centibels (100 * log10 f), wordfreq's own unit;
  [ngrams]  character 1..4-gram counts over every Latin-letter word of the
            full list (each word counted once, ^ and $ mark its ends),
            dropping n-grams (n >= 2) seen in fewer than MIN_COUNT words.

Usage: python3 rules/lexicon/lang-build.py en de   (from the crate root)
"""
import collections
import math
import re
import sys

import wordfreq

TOP_WORDS = 20000
ORDER = 4
MIN_COUNT = 5
LATIN = re.compile(r"^[a-zà-öø-ÿß]+(?:'[a-zà-öø-ÿß]+)*$")
NAMES = {"en": "English", "de": "German"}


def build(code):
    freqs = wordfreq.get_frequency_dict(code, wordlist="large")
    words = []
    for word, f in sorted(freqs.items(), key=lambda x: (-x[1], x[0])):
        word = word.replace("\u2019", "'")
        if LATIN.match(word):
            words.append((word, f))
    counts = collections.Counter()
    for word, _ in words:
        s = "^" + word + "$"
        for n in range(1, ORDER + 1):
            for i in range(len(s) - n + 1):
                counts[s[i : i + n]] += 1
    ngrams = sorted(
        (g, c) for g, c in counts.items() if c >= MIN_COUNT or len(g) == 1
    )
    path = f"rules/lexicon/lang-{code}.txt"
    with open(path, "w", encoding="utf-8") as out:
        out.write(
            f"# callint language model: {NAMES.get(code, code)} ({code}).\n"
            f"# Derived from wordfreq {wordfreq.__version__ if hasattr(wordfreq, '__version__') else '3.1.1'} "
            "'large' list (data CC BY-SA 4.0, https://github.com/rspeer/wordfreq)\n"
            "# by rules/lexicon/lang-build.py; this file is under CC BY-SA 4.0 as well.\n"
            f"# [words]: the {TOP_WORDS} most frequent words, frequency in centibels (100*log10 f).\n"
            f"# [ngrams]: character 1..{ORDER}-gram counts over all {len(words)} words of the list\n"
            f"# (each word once, ^ and $ mark word ends), n-grams seen in fewer than {MIN_COUNT} words dropped.\n"
        )
        out.write("[words]\n")
        seen = set()
        for word, f in words:
            if word in seen:
                continue
            seen.add(word)
            out.write(f"{word}\t{round(100 * math.log10(f))}\n")
            if len(seen) >= TOP_WORDS:
                break
        out.write("[ngrams]\n")
        for g, c in ngrams:
            out.write(f"{g}\t{c}\n")
    print(path, len(seen), "words,", len(ngrams), "n-grams")


if __name__ == "__main__":
    for code in sys.argv[1:] or ["en", "de"]:
        build(code)
