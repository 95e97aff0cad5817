#!/usr/bin/env python3
"""Rebuild the language model of src/language.rs (rules/lexicon/lang-*.txt).

Source: the 'large' word-frequency lists of wordfreq 3.1.1
(pip install wordfreq==3.1.1; https://github.com/rspeer/wordfreq; its data is
CC BY-SA 4.0, built from Wikipedia, subtitles, news, books, web text, Twitter
and Reddit). Nothing here comes from lingua's test data.

Writes, from the crate root (python3 scripts/lang-build.py en de):

  lang-<code>.txt  per language: [info] the probability mass of the words
                   outside its word list; [ngrams] character 1..ORDER-gram
                   counts over every Latin-letter word of the full list (each
                   word counted once, ^ and $ mark its ends), n-grams (n >= 2)
                   seen in fewer than MIN_COUNT words dropped.
  lang-words.txt   the TOP_WORDS most frequent words of every language, with
                   ln P(word) in every language, in hundredths of a nat: the
                   word's frequency where the language's full list has it
                   (so a loanword or a name that one language borrows from
                   the other is scored by how often it is really used there,
                   not by how foreign it looks), else the language's
                   leftover mass times its character model (the same
                   Witten-Bell model src/language.rs runs on words that are
                   on no list). Precomputed so that loading is cheap.

Run it again for every language whenever one is added or changed.
"""
import collections
import math
import re
import sys

import wordfreq

TOP_WORDS = 50000
ORDER = 4
MIN_COUNT = 5
UNIGRAM_K = 0.5
UNIGRAM_ALPHABET = 60.0
LATIN = re.compile(r"^[a-zà-öø-ÿ]+(?:'[a-zà-öø-ÿ]+)*$")
NAMES = {"en": "English", "de": "German"}
HEADER = (
    "# callint language model{what}. Derived from wordfreq 3.1.1 'large' lists\n"
    "# (data CC BY-SA 4.0, https://github.com/rspeer/wordfreq) by\n"
    "# scripts/lang-build.py; this file is under CC BY-SA 4.0 as well.\n"
)


class Lang:
    def __init__(self, code):
        self.code = code
        freqs = wordfreq.get_frequency_dict(code, wordlist="large")
        self.words = []  # (word, f), most frequent first, Latin letters only
        seen = set()
        for word, f in sorted(freqs.items(), key=lambda x: (-x[1], x[0])):
            word = word.replace("\u2019", "'")
            if LATIN.match(word) and word not in seen:
                seen.add(word)
                self.words.append((word, f))
        self.listed = dict(self.words)
        self.top = dict(self.words[:TOP_WORDS])
        self.oov_mass = max(1e-3, 1.0 - sum(self.top.values()))
        counts = collections.Counter()
        for word, _ in self.words:
            s = "^" + word + "$"
            for n in range(1, ORDER + 1):
                for i in range(len(s) - n + 1):
                    counts[s[i : i + n]] += 1
        self.ngrams = {g: c for g, c in counts.items() if c >= MIN_COUNT or len(g) == 1}
        self.ctx_total = collections.Counter()
        self.ctx_types = collections.Counter()
        for g, c in self.ngrams.items():
            if len(g) >= 2:
                self.ctx_total[g[:-1]] += c
                self.ctx_types[g[:-1]] += 1
        self.unigram_total = sum(c for g, c in self.ngrams.items() if len(g) == 1 and g != "^")

    def char_logp(self, word):
        s = "^" + word + "$"
        lp = 0.0
        for i in range(1, len(s)):
            c = s[i]
            p = (self.ngrams.get(c, 0) + UNIGRAM_K) / (
                self.unigram_total + UNIGRAM_K * UNIGRAM_ALPHABET
            )
            for n in range(2, min(ORDER, i + 1) + 1):
                h = s[i - n + 1 : i]
                total = self.ctx_total.get(h, 0)
                if total <= 0:
                    break
                types = self.ctx_types[h]
                p = (self.ngrams.get(h + c, 0) + types * p) / (total + types)
            lp += math.log(p)
        return lp

    def logp(self, word):
        f = self.listed.get(word)
        if f is not None:
            return math.log(f)
        return math.log(self.oov_mass) + self.char_logp(word)

    def write(self):
        path = f"rules/lexicon/lang-{self.code}.txt"
        with open(path, "w", encoding="utf-8") as out:
            out.write(HEADER.format(what=f": {NAMES.get(self.code, self.code)} ({self.code})"))
            out.write(
                f"# [info] oov_mass: probability of the words outside its {TOP_WORDS} most frequent.\n"
                f"# [ngrams]: character 1..{ORDER}-gram counts over all {len(self.words)} words of\n"
                f"# the list (each word once, ^ and $ mark word ends); seen in fewer than\n"
                f"# {MIN_COUNT} words: dropped.\n"
            )
            out.write(f"[info]\noov_mass\t{self.oov_mass:.6f}\n[ngrams]\n")
            for g in sorted(self.ngrams):
                out.write(f"{g}\t{self.ngrams[g]}\n")
        print(path, len(self.ngrams), "n-grams")


def main(codes):
    langs = [Lang(code) for code in codes]
    for lang in langs:
        lang.write()
    words = sorted(set().union(*(lang.top for lang in langs)))
    path = "rules/lexicon/lang-words.txt"
    with open(path, "w", encoding="utf-8") as out:
        out.write(HEADER.format(what=": word table"))
        out.write(
            f"# The {TOP_WORDS} most frequent words of each language; per language ln P(word)\n"
            "# in hundredths of a nat (the word's frequency where the language's full list\n"
            "# has it, else the character model).\n"
        )
        out.write("[langs]\t" + "\t".join(codes) + "\n")
        for word in words:
            out.write(word + "\t" + "\t".join(str(round(100 * l.logp(word))) for l in langs) + "\n")
    print(path, len(words), "words")


if __name__ == "__main__":
    main(sys.argv[1:] or ["en", "de"])
