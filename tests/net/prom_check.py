#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""prom_check.py FILE: a strict check of the Prometheus text exposition format
(version 0.0.4), for srv6ctl stats --format prometheus (promtool is not
packaged in Debian 12).

Every line is "# HELP NAME TEXT", "# TYPE NAME TYPE" or a sample
"NAME[{LABEL="VALUE",...}] VALUE"; names and label names are valid, label
values escaped, values floats; a family's TYPE comes once, before its
samples, and its samples are contiguous; no series appears twice; counters
end in _total.  Prints the first error and exits 1, else prints
"ok N families M samples"."""
import re
import sys

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LNAME = r"[a-zA-Z_][a-zA-Z0-9_]*"
LVALUE = r'"(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE = re.compile(r"^(?P<name>%s)(\{(?P<labels>%s=%s(?:,%s=%s)*)?\})? (?P<value>\S+)$"
                    % (NAME, LNAME, LVALUE, LNAME, LVALUE))
TYPES = {"counter", "gauge", "histogram", "summary", "untyped"}


def main():
    types, helps, seen, done = {}, set(), set(), set()
    current = None
    nsamples = 0
    text = open(sys.argv[1], encoding="utf-8").read()
    if not text.endswith("\n"):
        sys.exit("no newline at the end")
    for no, line in enumerate(text.split("\n")[:-1], 1):
        def bad(why):
            print("line %d: %s: %r" % (no, why, line))
            sys.exit(1)
        if line.startswith("#"):
            m = re.match(r"^# (HELP|TYPE) (%s) (.+)$" % NAME, line)
            if not m:
                bad("bad comment line")
            kind, name, rest = m.groups()
            if kind == "TYPE":
                if name in types:
                    bad("second TYPE")
                if rest not in TYPES:
                    bad("unknown type")
                if rest == "counter" and not name.endswith("_total"):
                    bad("counter without _total")
                types[name] = rest
            else:
                if name in helps:
                    bad("second HELP")
                helps.add(name)
            continue
        m = SAMPLE.match(line)
        if not m:
            bad("bad sample line")
        name, value = m.group("name"), m.group("value")
        try:
            float(value)
        except ValueError:
            bad("bad value")
        if name not in types:
            bad("sample before its TYPE")
        if name != current:
            if name in done:
                bad("samples of a family not contiguous")
            if current:
                done.add(current)
            current = name
        labels = m.group("labels") or ""
        keys = re.findall(r"(%s)=%s" % (LNAME, LVALUE), labels)
        if len(keys) != len(set(keys)):
            bad("label given twice")
        series = (name, labels)
        if series in seen:
            bad("series given twice")
        seen.add(series)
        nsamples += 1
    print("ok %d families %d samples" % (len(types), nsamples))


main()
