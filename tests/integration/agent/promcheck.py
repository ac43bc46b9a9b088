# SPDX-License-Identifier: Apache-2.0
"""Checks a metrics file as node_exporter's textfile collector reads it.

usage: promcheck.py FILE [--not-below PREVIOUS.json] [--dump OUT.json]

Parsed by Debian's prometheus_client (text_string_to_metric_families), then
strictly by us: every line a HELP, a TYPE or a sample; HELP and TYPE once
per family, before its samples; counters named _total; each histogram's
buckets in ascending le, cumulative, +Inf last and equal to _count, _sum
there; no series twice. --not-below: no counter or histogram series of
PREVIOUS went down or went missing. --dump: the samples as
{"name{labels}": value}. Prints what is wrong and exits 1; 0 when nothing is.
"""
import json
import math
import re
import sys

from prometheus_client.parser import text_string_to_metric_families

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE = re.compile(rf"^({NAME})(?:\{{((?:{LABEL})(?:,{LABEL})*)?\}})? (\S+)$")
COMMENT = re.compile(rf"^# (HELP|TYPE) ({NAME})(?: (.*))?$")
TYPES = {"counter", "gauge", "histogram", "summary", "untyped"}


def fail(errors, msg):
    errors.append(msg)


def labels_of(text):
    return dict((k, v) for k, v in re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', text or ""))


def key(name, labels):
    return name + "{" + ",".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}"


def family_of(name, types):
    for suffix in ("_bucket", "_sum", "_count"):
        base = name[: -len(suffix)]
        if name.endswith(suffix) and types.get(base) == "histogram":
            return base
    return name


def strict(text, errors):
    types, helps, samples, seen_family = {}, set(), {}, set()
    hist = {}
    if not text.endswith("\n"):
        fail(errors, "the file does not end with a newline")
    for n, line in enumerate(text.splitlines(), 1):
        m = COMMENT.match(line)
        if m:
            kind, name, rest = m.groups()
            if kind == "TYPE":
                if name in types:
                    fail(errors, f"line {n}: a second TYPE for {name}")
                if rest not in TYPES:
                    fail(errors, f"line {n}: unknown type {rest!r}")
                if name in seen_family:
                    fail(errors, f"line {n}: TYPE of {name} after its samples")
                if rest == "counter" and not name.endswith("_total"):
                    fail(errors, f"line {n}: counter {name} is not named _total")
                types[name] = rest
            else:
                if name in helps:
                    fail(errors, f"line {n}: a second HELP for {name}")
                helps.add(name)
            continue
        m = SAMPLE.match(line)
        if not m:
            fail(errors, f"line {n}: neither a comment nor a sample: {line!r}")
            continue
        name, ltext, value = m.groups()
        fam = family_of(name, types)
        if fam not in types:
            fail(errors, f"line {n}: sample of {name} before (or without) its TYPE")
        if fam not in helps:
            fail(errors, f"line {n}: sample of {name} without a HELP before it")
        seen_family.add(fam)
        try:
            v = float(value)
        except ValueError:
            fail(errors, f"line {n}: value {value!r} is not a number")
            continue
        labels = labels_of(ltext)
        k = key(name, labels)
        if k in samples:
            fail(errors, f"line {n}: series {k} twice")
        samples[k] = v
        if types.get(fam) == "histogram":
            rest = {a: b for a, b in labels.items() if a != "le"}
            h = hist.setdefault(key(fam, rest), {"buckets": [], "sum": None, "count": None})
            if name.endswith("_bucket"):
                le = labels.get("le")
                if le is None:
                    fail(errors, f"line {n}: bucket without le")
                    continue
                h["buckets"].append((float(le), v, n))
            elif name.endswith("_sum"):
                h["sum"] = v
            else:
                h["count"] = v
        elif types.get(fam) == "counter" and (v < 0 or math.isnan(v)):
            fail(errors, f"line {n}: counter {k} is {v}")
    for k, h in hist.items():
        b = h["buckets"]
        if not b or b[-1][0] != math.inf:
            fail(errors, f"histogram {k}: no +Inf bucket last")
            continue
        for (le0, c0, _), (le1, c1, n1) in zip(b, b[1:]):
            if le1 <= le0:
                fail(errors, f"line {n1}: histogram {k}: le {le1} after {le0}")
            if c1 < c0:
                fail(errors, f"line {n1}: histogram {k}: bucket {le1} holds {c1} < {c0}: not cumulative")
        if h["count"] != b[-1][1]:
            fail(errors, f"histogram {k}: _count {h['count']} is not the +Inf bucket's {b[-1][1]}")
        if h["sum"] is None:
            fail(errors, f"histogram {k}: no _sum")
    return types, samples


def main():
    args = sys.argv[1:]
    path = args.pop(0)
    prev = dump = None
    while args:
        opt = args.pop(0)
        if opt == "--not-below":
            prev = args.pop(0)
        elif opt == "--dump":
            dump = args.pop(0)
        else:
            sys.exit(f"unknown option {opt}")
    with open(path) as f:
        text = f.read()
    errors = []
    try:
        families = list(text_string_to_metric_families(text))
        if not families:
            fail(errors, "prometheus_client found no metric family")
    except Exception as e:  # the parser's own verdict, whatever it raises
        fail(errors, f"prometheus_client refuses it: {e}")
    types, samples = strict(text, errors)
    if prev:
        with open(prev) as f:
            before = json.load(f)
        for k, v in before["samples"].items():
            fam = family_of(k.split("{", 1)[0], before["types"])
            if before["types"].get(fam) not in ("counter", "histogram"):
                continue
            if k not in samples:
                fail(errors, f"series {k} went missing (it was {v})")
            elif samples[k] < v:
                fail(errors, f"counter {k} went down: {v} -> {samples[k]}")
    if dump:
        with open(dump, "w") as f:
            json.dump({"types": types, "samples": samples}, f, indent=1, sort_keys=True)
    for e in errors:
        print(e)
    sys.exit(1 if errors else 0)


main()
