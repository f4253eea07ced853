#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""man_check.py: is every word the code knows documented in the man pages?

  man_check.py keywords CONF_C... PAGE  conf keywords: the first string of every
                                        row of the grammar's keyword tables
                                        (*_kws[]) and every word it compares a
                                        token with (strcmp(x, "word")), over
                                        all the CONF_C files (src/conf/*.c)
  man_check.py names SEG6_C HEADEND_C PAGE
                                        behavior (.name = "..."), flavor and
                                        mode names (*_names[] tables)
  man_check.py options MAIN_C PAGE      every long option of main.c's opt_rows[]
                                        and its short letter
  man_check.py commands CTL_C PAGE      every "OBJECT COMMAND" of srv6ctl's
                                        command table (cmds[] of ctl.c) set in
                                        bold at the start of a .TP tag

A word counts as documented when it appears in bold (\\fB...\\fR, .B, .BR,
.BI, .IB, .TP tags) in PAGE, or, for names, in a tbl table row.  Prints the
missing words one per line; exit 1 if any, 2 if the code yields no words at
all (the extraction broke)."""
import re
import sys

WORD = re.compile(r"^[A-Za-z][A-Za-z0-9.+-]*$")


def unescape(s):
    s = s.replace("\\-", "-").replace("\\e", "\\").replace("\\(aq", "'")
    return re.sub(r"\\\(..|\\\*.|\\[&~|^]", " ", s)


def macro_args(rest):
    return [a.strip('"') for a in re.findall(r'"[^"]*"|\S+', rest)]


def bold_words(page):
    """Words set in bold anywhere in the page source."""
    words = set()
    intable = False
    for line in open(page, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith(".TS"):
            intable = True
            continue
        if line.startswith(".TE"):
            intable = False
            continue
        spans = []
        if intable:
            spans.append(line.split("\t")[0])   # first column: the names
        m = re.match(r"^\.(B|BR|BI|IB|RB|IR|RI|I)\s+(.*)$", line)
        if m:
            args = macro_args(m.group(2))
            first_bold = {"B": 0, "BR": 0, "BI": 0, "IB": 1, "RB": 1}.get(m.group(1))
            if m.group(1) == "B":
                spans.append(" ".join(args))
            elif first_bold is not None:
                spans.extend(args[first_bold::2])
        spans.extend(re.findall(r"\\fB(.*?)(?=\\f[RPI]|$)", line))
        for s in spans:
            for w in re.split(r"[\s|,\[\]{}()=:;]+", unescape(s)):
                w = w.strip(".")
                if w:
                    words.add(w)
                    # "psp" out of "psp ," and "End.X" kept whole
    return words


def table_rows(src, table):
    """First string literal of each row of `table` (a C array initialiser)."""
    text = open(src, encoding="utf-8").read()
    m = re.search(re.escape(table) + r"[^=]*=\s*\{(.*?)\n\};", text, re.S)
    if not m:
        return None
    out = []
    for row in m.group(1).split("\n"):
        s = re.search(r'"([^"]*)"', row)
        if s and WORD.match(s.group(1)):
            out.append(s.group(1))
    return out


def conf_keywords(conf_c):
    text = open(conf_c, encoding="utf-8").read()
    words = set()
    for t in re.findall(r"static const struct \w+\s*\{[^}]*\}\s*(\w+_kws)\b", text, re.S) + \
            re.findall(r"static const struct \w+\s+(\w+_kws)\s*\[", text):
        rows = table_rows(conf_c, t)
        if rows:
            words.update(rows)
    for w in re.findall(r'strcmp\([^,()]+(?:\([^()]*\))?,\s*"([^"]*)"\)', text):
        if WORD.match(w):
            words.add(w)
    return words


def main():
    mode = sys.argv[1]
    if mode == "keywords":
        want = set()
        for src in sys.argv[2:-1]:
            want |= conf_keywords(src)
        page = sys.argv[-1]
    elif mode == "names":
        want = set(re.findall(r'\.name = "([^"]+)"', open(sys.argv[2]).read()))
        for src, t in ((sys.argv[2], "flavor_names"), (sys.argv[3], "mode_names")):
            want.update(table_rows(src, t) or [])
        page = sys.argv[4]
    elif mode == "options":
        text = open(sys.argv[2], encoding="utf-8").read()
        rows = re.findall(r"\{\s*'(\w)',\s*\"([\w-]+)\"", text)
        want = set()
        for short, long in rows:
            want.update(["-" + short, "--" + long])
        page = sys.argv[3]
    elif mode == "commands":
        text = open(sys.argv[2], encoding="utf-8").read()
        rows = re.findall(r'\{\s*SRV6_CTL_\w+,\s*"([\w-]+)",\s*(?:"([\w-]+)"|NULL)', text)
        want = set((o + " " + c) if c else o for o, c in rows)
        page = sys.argv[3]
        if not want:
            print("(no words extracted from the code)")
            sys.exit(2)
        tags = set()
        lines = open(page, encoding="utf-8").read().split("\n")
        for i, line in enumerate(lines[:-1]):
            if line.startswith(".TP"):
                m = re.match(r'^\.B\s+(.*)$', lines[i + 1])
                if m:
                    words = unescape(re.sub(r"\\f[BIRP]", " ", m.group(1))).split()
                    tags.add(" ".join(words[:2]))
                    tags.add(words[0] if words else "")
        missing = sorted(w for w in want if w not in tags)
        for w in missing:
            print(w)
        print("# %d commands checked" % len(want), file=sys.stderr)
        sys.exit(1 if missing else 0)
    else:
        sys.exit("usage: man_check.py keywords|names|options|commands ...")
    if not want:
        print("(no words extracted from the code)")
        sys.exit(2)
    have = bold_words(page)
    missing = sorted(w for w in want if w not in have)
    for w in missing:
        print(w)
    print("# %d words checked" % len(want), file=sys.stderr)
    sys.exit(1 if missing else 0)


main()
