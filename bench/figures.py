#!/usr/bin/env python3
"""The benchmarks' last accepted figures, and a run's figures beside them.

Every benchmark of the repository reports what it measured as lines of the form

    figure <id> <value> <unit>

(the Node, Python, C, JVM and shell benchmarks print them), Go's `go test -bench` lines are read as they are,
and criterion's results are read from its own files (`--criterion DIR`). Piped through this script, a run's
other output passes through unchanged and a table ends it: each figure beside the one recorded in
`bench/figures.json`, with the ratio, so a regression shows at the stop that made it. A figure with a ceiling
(the server's cost against a bare server) says whether it is under it. Nothing here fails on a time: a shared
machine's figures move by 10-20% from one run to the next, and the table is read, not asserted.

    node bench/bench.mjs --quick | python3 bench/figures.py
    python3 bench/figures.py --criterion target/criterion < /dev/null
    ... | python3 bench/figures.py --record     # accept this run's figures as the new recorded ones
"""
import argparse
import datetime
import json
import pathlib
import re
import sys

FIGURES = pathlib.Path(__file__).with_name("figures.json")
FIGURE_LINE = re.compile(r"^figure (\S+) (\S+) (\S+)\s*$")
GO_LINE = re.compile(r"^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op")
# How far a figure may move before the table marks it: the spread of repeated runs on this kind of machine.
NOISE = 1.25
# Figures computed from two others of the same run: `id: (numerator, denominator)`, a ratio in `x`. A 15 MB
# recording's load against its format's parser alone (into a JSON value) says what cuecard adds to reading the
# file; the parsers are not ours.
DERIVED = {
    f"criterion/recording/load_15MB_{form}/over-parser": (
        f"criterion/recording/load_15MB_{form}",
        f"criterion/recording/parse_15MB_{form}_to_value",
    )
    for form in ("yaml", "json")
}


def criterion_figures(root):
    """Each criterion benchmark's median, in microseconds, from `<root>/**/new/{benchmark,estimates}.json`."""
    figures = {}
    for estimates in sorted(pathlib.Path(root).glob("**/new/estimates.json")):
        benchmark = json.loads(estimates.with_name("benchmark.json").read_text())
        median_ns = json.loads(estimates.read_text())["median"]["point_estimate"]
        figures[f"criterion/{benchmark['full_id']}"] = (median_ns / 1000, "us")
    return figures


def read_figures(lines, out):
    """The figures among `lines`, every other line written to `out` as it comes."""
    figures = {}
    for line in lines:
        if match := FIGURE_LINE.match(line):
            try:
                figures[match[1]] = (float(match[2]), match[3])
                continue
            except ValueError:  # not a number: say so, and keep the line
                print(f"bench/figures.py: {match[1]} has no number ({match[2]!r})", file=sys.stderr)
        out.write(line)
        out.flush()
        if match := GO_LINE.match(line):
            figures[f"go/{match[1]}"] = (float(match[2]) / 1000, "us")
    return figures


def with_derived(figures):
    """`figures` and the ratios of `DERIVED` whose two figures are both in it."""
    derived = dict(figures)
    for name, (numerator, denominator) in DERIVED.items():
        if numerator in figures and denominator in figures and figures[denominator][0] > 0:
            derived[name] = (figures[numerator][0] / figures[denominator][0], "x")
    return derived


def higher_is_better(unit):
    """A rate (`req/s`, `k events/s`) is better higher; a time, a count of instructions or a ratio lower."""
    return unit.endswith("/s")


def verdict(figure, recorded):
    """What the table says of a figure beside its recorded entry."""
    value, _ = figure
    ceiling = recorded.get("ceiling")
    if ceiling is not None:
        return "under its ceiling" if value <= ceiling else f"OVER its ceiling {ceiling}"
    ratio = value / recorded["value"]
    if higher_is_better(recorded["unit"]):
        ratio = 1 / ratio
    worse, improved = ratio > NOISE, ratio < 1 / NOISE
    return "slower than recorded" if worse else "faster than recorded" if improved else ""


def shown(value, unit):
    """`value unit` at a width the table lines up on: whole numbers past 1,000, else three significant digits."""
    number = f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"
    return f"{number:>10} {unit:<9}"


def table(figures, recorded):
    lines = [f"{'figure':<56} {'now':>10} {'':<9} {'recorded':>10} {'':<9} {'ratio':>6}"]
    for name, (value, unit) in sorted(figures.items()):
        entry = recorded.get(name)
        if entry is None:
            lines.append(f"{name:<56} {shown(value, unit)} (none recorded: --record accepts it)")
            continue
        ratio = value / entry["value"]
        lines.append(
            f"{name:<56} {shown(value, unit)} {shown(entry['value'], entry['unit'])} {ratio:>5.2f}x  "
            f"{verdict((value, unit), entry)}".rstrip()
        )
    return "\n".join(lines)


def write_figures(recorded):
    """`bench/figures.json`, one figure a line, sorted: a new figure is a one-line diff."""
    lines = [f" {json.dumps(name)}: {json.dumps(entry, ensure_ascii=False)}" for name, entry in sorted(recorded.items())]
    FIGURES.write_text("{\n" + ",\n".join(lines) + "\n}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--criterion", metavar="DIR", help="also read criterion's results under DIR")
    parser.add_argument("--record", action="store_true", help="write this run's figures into bench/figures.json")
    args = parser.parse_args()
    recorded = json.loads(FIGURES.read_text())
    figures = read_figures(sys.stdin, sys.stdout)
    if args.criterion:
        figures.update(criterion_figures(args.criterion))
    figures = with_derived(figures)
    if not figures:
        print("bench/figures.py: no figure in this run", file=sys.stderr)
        return 1
    print(f"\n=== {len(figures)} figures beside the recorded ones (bench/figures.json; marked past {NOISE}x) ===")
    print(table(figures, recorded))
    if args.record:
        today = datetime.date.today().isoformat()
        for name, (value, unit) in figures.items():
            entry = recorded.setdefault(name, {})
            entry.update(value=float(f"{value:.4g}"), unit=unit, recorded=today)
        write_figures(recorded)
        print(f"recorded {len(figures)} figures in {FIGURES}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
