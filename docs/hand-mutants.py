#!/usr/bin/env python3
"""Hand-made mutants of the flushlist library: apply one, run the build, restore.

Usage, from the repository root (needs python3 and mvn):

    python3 docs/hand-mutants.py --list
    python3 docs/hand-mutants.py [NAME ...] [--goal "mvn -B -pl flushlist verify"]

For each mutant: checks that every text it replaces occurs exactly once, applies it,
runs the goal, restores the file (also on Ctrl-C), and prints one line: whether the
build failed, the seconds from the start of the test phase (surefire's first execution)
to the end of the build, and the first failing test with its message. The results go
into docs/verification-efficacy.md. Nothing is committed: the library files are written
back byte for byte.
"""

import argparse
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

LIB = Path("flushlist/src/main/java/io/github/dmarflush/flushlist")
Q = LIB / "qi/QiSequencer.java"
T = LIB / "qi/QiTask.java"
Z = LIB / "ZombieHeadFlushList.java"
F = LIB / "FlushEntry.java"
L = LIB / "LockedFlushList.java"

# name: (what is broken, file, [(old, new), ...])
MUTANTS = {
    "H01-seq-lt": ("processed() compares seq < seqHw instead of <=", Q, [
        ("Integer.compareUnsigned(GenSeq.seq(gseq), seqHw) <= 0",
         "Integer.compareUnsigned(GenSeq.seq(gseq), seqHw) < 0")]),
    "H02-wake-early": ("QiTask wakes the waiters right after the first drain", T, [
        ("long first = flushList.drain(sequencer);\n",
         "long first = flushList.drain(sequencer);\n        sequencer.wakeupWaiters();\n"),
        ("        sequencer.wakeupWaiters();\n        runs++;", "        runs++;")]),
    "H03-gen-signed": ("processed() compares the generation signed", Q, [
        ("int cmp = Integer.compareUnsigned(eg, g);", "int cmp = Integer.compare(eg, g);")]),
    "H04-sleep-first": ("waitForSeq sleeps once before its first processed check", Q, [
        ("            while (!processed(gseq)) {\n                if (nowait) {",
         "            do {\n                if (nowait) {"),
        ("                }\n            }\n        } finally {\n            waiters = waiters - 1;",
         "                }\n            } while (!processed(gseq));\n        } finally {\n"
         "            waiters = waiters - 1;")]),
    "H05-enqueue-plain": ("enqueue links with tail.spNext (plain) instead of soNext (release)", Z, [
        ("tail.soNext(entry);", "tail.spNext(entry);")]),
    "H06-drain-plain": ("drain reads the link with nextPlain (plain) instead of laNext (acquire)", Z, [
        ("FlushEntry next = zombie.laNext();", "FlushEntry next = zombie.nextPlain();")]),
    "H07-soNext-plain": ("FlushEntry.soNext is NEXT.set (plain) instead of setRelease", F, [
        ("NEXT.setRelease(this, e);", "NEXT.set(this, e);")]),
    "H08-laNext-plain": ("FlushEntry.laNext is NEXT.get (plain) instead of getAcquire", F, [
        ("return (FlushEntry) NEXT.getAcquire(this);", "return (FlushEntry) NEXT.get(this);")]),
    "H09-no-second-drain": ("QiTask does not drain again after clearing IWC (M8)", T, [
        ("second = flushList.drain(sequencer);", "second = 0;")]),
    "H10-wrap-no-wait": ("the wrap starts the next generation without waiting for 0xFFFFFFFF (M5)", Q, [
        ("            while (!processed(last)) {\n                Thread.onSpinWait();\n            }\n", "")]),
    "H11-freebsd-wrap": ("the wrap leaves seqHw at 0xFFFFFFFF (FreeBSD's code)", Q, [
        ("            seqHw = 0; // see", "            // seqHw = 0; // see")]),
    "H12-retire-new-zombie": ("drain retires the new zombie instead of the old one (M1)", Z, [
        ("reclaimer.retireElement(zombie);", "reclaimer.retireElement(entry);")]),
    "H13-quiesce-register-late": ("quiesce registers its waiter after advancing the tail (M6's order)", Q, [
        ("        registerWaiter();\n        queue.advanceTail();",
         "        queue.advanceTail();\n        registerWaiter();")]),
    "H14-processed-seqhw-first": ("processed() loads seqHw before gen", Q, [
        ("        int g = gen; // volatile load first", "        int hw = seqHw;\n        int g = gen; //"),
        ("Integer.compareUnsigned(GenSeq.seq(gseq), seqHw) <= 0",
         "Integer.compareUnsigned(GenSeq.seq(gseq), hw) <= 0")]),
    "H15-wrap-gen-first": ("the wrap advances gen before it resets seqHw", Q, [
        ("            seqHw = 0; // see \"Departure from FreeBSD\" in the class notes; before gen++\n"
         "            gen = gen + 1;\n",
         "            gen = gen + 1;\n            seqHw = 0;\n")]),
    "H16-waiter-not-deregistered": ("waitForSeq does not decrement inv_seq_waiters on return", Q, [
        ("            waiters = waiters - 1;\n            if (interrupted) {", "            if (interrupted) {")]),
    "H17-locked-stale-last": ("LockedFlushList.drain leaves last set when it empties the list", L, [
        ("                if (first == null) {\n                    last = null;\n                }\n", "")]),
    "H18-zombie-link-kept": ("drain retires the old zombie with its link still set", Z, [
        ("                zombie.spNext(null);\n                zombie.linkState", "                zombie.linkState")]),
    "H19-drainer-kept": ("drain never clears the drainer slot", Z, [
        ("            DRAINER.setRelease(this, (Thread) null);\n", "")]),
    "H20-no-interrupt-bit": ("emitWaitSeq writes its wait descriptor without the IF bit", Q, [
        ("queue.emitWaitDescriptor(seq, true, true, false);", "queue.emitWaitDescriptor(seq, false, true, false);")]),
}


def apply(path, edits):
    text = path.read_text()
    for old, new in edits:
        n = text.count(old)
        if n != 1:
            raise SystemExit(f"{path}: expected one occurrence of {old!r}, found {n}")
        text = text.replace(old, new)
    return text


def run(name, goal, timeout):
    what, path, edits = MUTANTS[name]
    original = path.read_bytes()
    mutated = apply(path, edits)
    path.write_text(mutated)
    try:
        start = time.monotonic()
        marks = {}
        lines = []
        proc = subprocess.Popen(goal, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

        def read():
            for line in proc.stdout:
                if "test" not in marks and "maven-surefire-plugin" in line and "(default-test)" in line:
                    marks["test"] = time.monotonic()
                lines.append(line.rstrip("\n"))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        hung = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            hung = True
        finally:
            if proc.poll() is None:
                kill_tree(proc)
            proc.wait()
        reader.join(10)
        end = time.monotonic()
        test_start = marks.get("test")
    finally:
        path.write_bytes(original)
    log = Path("target") / "hand-mutants" / f"{name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("\n".join(lines) + "\n")
    failed = proc.returncode != 0
    since_tests = f"{end - test_start:.1f} s after the test phase began" if test_start else "no test phase"
    first = first_failure(lines)
    verdict = f"HUNG (killed at {timeout} s)" if hung else "CAUGHT" if failed else "SURVIVED"
    print(f"{name} | {what} | {verdict} | {since_tests} | {first}", flush=True)
    return failed and not hung


def kill_tree(proc):
    """Ends the build and the test JVMs it forked (they are its descendants)."""
    children = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
    for child in children:
        grandchildren = subprocess.run(["pgrep", "-P", child], capture_output=True, text=True).stdout.split()
        for pid in grandchildren + [child]:
            subprocess.run(["kill", "-9", pid], capture_output=True)
    proc.kill()


def first_failure(lines):
    """The first entry of surefire's summary, or the first compile error."""
    for i, line in enumerate(lines):
        if re.match(r"\[ERROR\] (Failures|Errors):\s*$", line) and i + 1 < len(lines):
            return re.sub(r"^\[ERROR\]\s+", "", lines[i + 1])
        if "COMPILATION ERROR" in line and i + 1 < len(lines):
            return "compilation error: " + lines[i + 1]
    return "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--goal", default="mvn -B -pl flushlist verify")
    ap.add_argument("--timeout", type=int, default=900, help="seconds before the build is killed")
    args = ap.parse_args()
    if args.list:
        for name, (what, path, _) in MUTANTS.items():
            print(f"{name}: {what} ({path.name})")
        return 0
    names = args.names or list(MUTANTS)
    for name in names:
        if name not in MUTANTS:
            raise SystemExit(f"unknown mutant {name}")
    for name in names:  # check all apply before running any
        apply(MUTANTS[name][1], MUTANTS[name][2])
    survived = [n for n in names if not run(n, args.goal, args.timeout)]
    print(f"{len(names) - len(survived)} of {len(names)} caught" + (f"; survived: {survived}" if survived else ""))
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
