#!/usr/bin/python3
"""A peer's observation the Python way (pyautogui and pyscreeze grab the
Linux screen with Pillow): grab, scale to 1366x768 with Lanczos, PNG, base64.

usage: pillow_observe.py [N]   prints one line with the median of N timings, ms
"""
import base64
import io
import statistics
import sys
import time

from PIL import Image, ImageGrab


def observe():
    shot = ImageGrab.grab()
    small = shot.resize((1366, 768), Image.LANCZOS)
    png = io.BytesIO()
    small.save(png, format="PNG")
    return base64.b64encode(png.getvalue())


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    took = []
    for _ in range(runs):
        start = time.perf_counter()
        observe()
        took.append((time.perf_counter() - start) * 1000)
    print(f"pillow_observe_ms min={min(took):.1f} median={statistics.median_low(took):.1f} max={max(took):.1f} n={runs}")


main()
