#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""report.py: turns the raw timings of `make bench` into figures.

The benchmark scripts (tests/bench/*.sh) leave hyperfine's JSON, one file a
round, and peak-memory lines in BENCH_OUT/raw/. This script merges the rounds
of each command, takes medians, computes each figure's ratio to its baseline
and writes, per benchmark, NAME.csv (the figures, machine-readable) and
NAME.adoc (an AsciiDoc table, printed too); `assemble` puts the tables under
one heading, with the machine they were measured on, into results.adoc.

  report.py shell OUT BASELINE STEPS | multi OUT | memory OUT
  report.py assemble OUT RUNS NAME...
"""
import csv
import glob
import json
import os
import platform
import statistics
import sys
import time


def merged_times(out, name):
    """Every run of every round of benchmark NAME, per command, in seconds."""
    times = {}
    for path in sorted(glob.glob(os.path.join(out, "raw", name + ".*.json"))):
        for result in json.load(open(path))["results"]:
            times.setdefault(result["command"], []).extend(result["times"])
    if not times:
        sys.exit("report.py: no timings for %s in %s/raw" % (name, out))
    return times


def merged_cpu(out, name):
    """Per command, the CPU time (user + system, its whole tree) of each
    round: hyperfine gives one mean a round. Unlike the wall time, a loaded
    machine hardly stretches it: it is the figure to compare across runs."""
    cpu = {}
    for path in sorted(glob.glob(os.path.join(out, "raw", name + ".*.json"))):
        for result in json.load(open(path))["results"]:
            cpu.setdefault(result["command"], []).append(result["user"] + result["system"])
    return cpu


def median_ms(times, command):
    return statistics.median(times[command]) * 1000


def write(out, name, header, rows, adoc):
    with open(os.path.join(out, name + ".csv"), "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    text = "\n".join(adoc) + "\n"
    with open(os.path.join(out, name + ".adoc"), "w") as f:
        f.write(text)
    print(text)


def verdict(value, goal, at_most=True):
    met = value <= goal if at_most else value >= goal
    return "met" if met else "*missed*"


def shell(out, baseline, steps):
    steps = int(steps)
    start = merged_times(out, "shell-start")
    quit_ = merged_times(out, "shell-quit")
    step = merged_times(out, "shell-steps")
    rows, adoc = [], [
        "=== The shell",
        "",
        '[cols="4,2,2,1,1,1",options="header"]',
        "|===",
        "| figure | median | against | ratio | goal | ",
    ]
    runs = len(start["pidns-tutor"])
    for label, t, cmd, against in (
            ("start to end of input (stdin /dev/null)", start, "pidns-tutor", baseline),
            ("start to a finished `quit` (`echo quit \\|`)", quit_, "echo quit | pidns-tutor",
             "echo quit | " + baseline)):
        ours, theirs = median_ms(t, cmd), median_ms(t, "baseline")
        ratio = ours / theirs
        rows.append([label, "%.2f" % ours, against, "%.2f" % theirs, "%.2f" % ratio, "2"])
        adoc.append("| %s | %.1f ms | `%s` %.1f ms | %.2fx | at most 2x | %s"
                    % (label, ours, against.replace("|", "\\|"), theirs, ratio,
                       verdict(ratio, 2)))
    cpu = merged_cpu(out, "shell-start")
    ours, theirs = median_ms(cpu, "pidns-tutor"), median_ms(cpu, "baseline")
    rows.append(["start to end of input, CPU time", "%.2f" % ours, baseline, "%.2f" % theirs,
                 "%.2f" % (ours / theirs), ""])
    adoc.append("| start to end of input in CPU time (user + system of the tree: load stretches it less) "
                "| %.1f ms | `%s` %.1f ms | %.2fx | | " % (ours, baseline, theirs, ours / theirs))
    one, more = median_ms(step, "steps-1"), median_ms(step, "steps-more")
    command = median_ms(step, "sh -c true")
    per_step = (more - one) / steps
    overhead = per_step - command
    rows.append(["one guided step (true)", "%.2f" % per_step, "sh -c true", "%.2f" % command,
                 "%.2f" % (per_step / command), ""])
    rows.append(["the shell's own cost per step", "%.2f" % overhead, "", "", "", ""])
    adoc.append("| one guided step whose command is `true` ((%d-step lesson - 1-step lesson) / %d,"
                " `--auto`) | %.1f ms | `sh -c true` %.1f ms | %.2fx | | "
                % (steps + 1, steps, per_step, command, per_step / command))
    adoc.append("| the shell's own cost per step, beyond the command | %.1f ms | | | small | "
                % overhead)
    rss = {}
    for line in open(os.path.join(out, "raw", "shell-rss.txt")):
        what, kib = line.split()
        rss.setdefault(what, []).append(int(kib))
    for what, label in (("quit", "peak memory, `echo quit \\| pidns-tutor`"),
                        ("lesson", "peak memory, lesson 1 with `run`, `ps`, `tree`")):
        kib = statistics.median(rss[what])
        rows.append([label, "%d KiB" % kib, "", "", "", "10240 KiB"])
        adoc.append("| %s | %.1f MiB | | | under 10 MiB | %s"
                    % (label, kib / 1024, verdict(kib, 10240)))
    adoc += ["|===", "", "Medians of %d runs of each timing (hyperfine, alternating rounds);"
             " memory: median of 3 runs of `/usr/bin/time -f %%M`." % runs, ""]
    write(out, "shell", ["figure", "median_ms", "baseline", "baseline_ms", "ratio", "goal"],
          rows, adoc)


def slope(xs, ys):
    """Least-squares slope and intercept of ys over xs."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return b, my - b * mx


def multi(out):
    t = merged_times(out, "multi")
    levels = sorted(int(c.split()[1]) for c in t if c.startswith("multi_pidns "))
    kinds = ("multi_pidns", "unshare-chain", "floor", "floor-copy")
    med = {(k, n): median_ms(t, "%s %d" % (k, n)) for k in kinds for n in levels}
    runs = len(t["multi_pidns %d" % levels[0]])
    rows, adoc = [], [
        "=== `multi_pidns N true`",
        "",
        '[cols="1,2,2,2,2,2,2,2",options="header"]',
        "|===",
        "| N | `multi_pidns` | `unshare -pf --mount-proc` x N | floor | floor, memory copied"
        " | vs unshare (goal \u2264 0.5x) | vs floor (goal \u2264 1.1x) | vs floor, memory copied",
    ]
    for n in levels:
        m, u, f, c = (med[(k, n)] for k in kinds)
        rows.append([n, "%.2f" % m, "%.2f" % u, "%.2f" % f, "%.2f" % c,
                     "%.3f" % (m / u), "%.3f" % (m / f), "%.3f" % (m / c)])
        adoc.append("| %d | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.2fx %s | %.2fx %s | %.2fx"
                    % (n, m, u, f, c, m / u, verdict(m / u, 0.5), m / f, verdict(m / f, 1.1),
                       m / c))
    adoc += ["|===", "", "How the cost grows with N (least-squares line through the medians):",
             "", '[cols="3,2,2,2",options="header"]', "|===",
             "| command | per level | fixed (N = 0) | `multi_pidns` per level against it"]
    names = {"multi_pidns": "`multi_pidns N true`",
             "unshare-chain": "`unshare -pf --mount-proc` nested N deep",
             "floor": "floor (`bench_floor N true`)",
             "floor-copy": "floor, memory copied (`bench_floor --copy-memory N true`)"}
    ours, _ = slope(levels, [med[("multi_pidns", n)] for n in levels])
    for k in kinds:
        per, fixed = slope(levels, [med[(k, n)] for n in levels])
        rows.append(["per-level " + k, "%.3f" % per, "", "", "", "", "", "%.3f" % fixed])
        adoc.append("| %s | %.2f ms | %.1f ms | %.2fx" % (names[k], per, fixed, ours / per))
    adoc += ["|===", "", "Medians of %d runs of each command, all in one hyperfine invocation per"
             " round, in the sandbox." % runs, ""]
    write(out, "multi", ["N", "multi_pidns_ms", "unshare_chain_ms", "floor_ms",
                         "floor_copy_ms", "vs_unshare", "vs_floor", "vs_floor_copy"], rows, adoc)


def memory(out):
    seen = {}
    for line in open(os.path.join(out, "raw", "memory.txt")):
        what, status, kib = line.rstrip("\n").split("\t")
        entry = seen.setdefault(what, {"kib": [], "status": set()})
        entry["kib"].append(int(kib) if kib.isdigit() else 0)
        entry["status"].add(status)
    rows, adoc = [], ["=== Peak memory of the examples", "",
                      '[cols="3,1,1",options="header"]', "|===",
                      "| example, as run | peak resident set | exit status"]
    for what, entry in seen.items():
        kib = statistics.median(entry["kib"])
        status = ",".join(sorted(entry["status"]))
        rows.append([what, "%d" % kib, status])
        adoc.append("| `%s` | %.2f MiB | %s" % (what, kib / 1024, status))
    adoc += ["|===", "", "Maximum resident set of the largest process of each example's tree"
             " (`/usr/bin/time -f %M`), median of 3 runs in the sandbox; `pidns_init_sleep`"
             " ran until SIGTERM, which it cleans up on (exit status 0 here means it ended"
             " as asked).", ""]
    write(out, "memory", ["example", "peak_kib", "exit_status"], rows, adoc)


def assemble(out, runs, names):
    started = os.path.join(out, "raw", "load-start.txt")
    load_start = open(started).read().split()[:3]
    load_end = open(os.path.join(out, "raw", "load-end.txt")).read().split()[:3]
    lines = [
        "// Written by `make bench` (tests/bench/report.py): paste below the Figures heading.",
        "Measured %s on Linux %s, %d CPUs (%s), as %s, BENCH_RUNS=%s. Load average"
        " (1, 5, 15 min) %s at the start, %s at the end."
        % (time.strftime("%Y-%m-%d %H:%M %Z", time.localtime(os.path.getmtime(started))),
           platform.release(), os.cpu_count(),
           platform.machine(), "root" if os.geteuid() == 0 else "an ordinary user", runs,
           " ".join(load_start), " ".join(load_end)),
        "",
    ]
    for name in names:
        path = os.path.join(out, name + ".adoc")
        if os.path.exists(path):
            lines.append(open(path).read())
    with open(os.path.join(out, "results.adoc"), "w") as f:
        f.write("\n".join(lines))
    print("bench: figures in %s/results.adoc, raw timings in %s/raw/" % (out, out))


def main(argv):
    commands = {"shell": shell, "multi": multi, "memory": memory}
    if len(argv) >= 3 and argv[1] in commands:
        commands[argv[1]](*argv[2:])
    elif len(argv) >= 4 and argv[1] == "assemble":
        assemble(argv[2], argv[3], argv[4:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
