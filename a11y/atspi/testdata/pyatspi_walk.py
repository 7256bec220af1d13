"""The peer for BenchmarkElements: the accessibility-tree walk OSWorld's harness
does, through libatspi (pyatspi): every application on the bus, depth first,
showing and visible objects only, reading role, name, states, screen extents and
up to 200 characters of text. Usage: pyatspi_walk.py ITERATIONS; prints
"<seconds per walk, median> <objects read>"."""
import statistics
import sys
import time

import pyatspi


def walk(acc, depth, out):
    try:
        states = acc.getState()
        if depth > 0 and not (states.contains(pyatspi.STATE_SHOWING) and states.contains(pyatspi.STATE_VISIBLE)):
            return
        role, name = acc.getRoleName(), acc.name
    except Exception:
        return
    ext, text = None, ""
    try:
        ext = acc.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
    except Exception:
        pass
    if role != "password text":
        try:
            text = acc.queryText().getText(0, 200)
        except Exception:
            pass
    out.append((role, name, text, ext))
    if depth >= 64:
        return
    for i in range(acc.childCount):
        try:
            child = acc.getChildAtIndex(i)
        except Exception:
            continue
        if child is not None:
            walk(child, depth + 1, out)


def main():
    desktop = pyatspi.Registry.getDesktop(0)
    times, out = [], []
    for _ in range(int(sys.argv[1])):
        start, out = time.perf_counter(), []
        for app in desktop:
            if app is not None:
                walk(app, 0, out)
        times.append(time.perf_counter() - start)
    print(statistics.median(times), len(out))


main()
