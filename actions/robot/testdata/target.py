#!/usr/bin/python3
"""Target application for the deskpilot/actions/robot tests.

Usage: target.py LOG TITLE

A Tk window with three buttons, a canvas and a text box. Every input event is
appended to LOG as one JSON object per line, so tests can check what really
arrived:

  {"ev": "geometry", "widgets": {"btn_a": [rootx, rooty, w, h], ...}}
      whenever a widget's position on the root window changes
  {"ev": "press"|"release", "w": "canvas", "b": 1, "x": rootx, "y": rooty, "state": 4}
  {"ev": "double"|"triple", "w": ..., "b": 1, "x": ..., "y": ...}
  {"ev": "motion", "w": ..., "x": ..., "y": ..., "state": ...}
  {"ev": "key"|"keyup", "w": ..., "keysym": "A", "char": "A", "state": 5}
  {"ev": "dump", "text": "..."}      on Ctrl+D: the text box's content
  {"ev": "copy"}                     on Ctrl+C in the text box
"""
import json
import sys
import tkinter as tk

log = open(sys.argv[1], "a", buffering=1, encoding="utf-8")


def emit(**kw):
    log.write(json.dumps(kw) + "\n")


def name(widget):
    return str(widget).rsplit(".", 1)[-1] or "root"


root = tk.Tk()
root.title(sys.argv[2])
root.geometry("900x620+40+40")

bar = tk.Frame(root, name="bar")
bar.pack(side="top", fill="x")
for n in "abc":
    tk.Button(bar, name="btn_" + n, text=n.upper(), width=12).pack(side="left", padx=20, pady=10)
canvas = tk.Canvas(root, name="canvas", width=880, height=300, bg="white")
canvas.pack(side="top", padx=10, pady=5)
text = tk.Text(root, name="text", width=100, height=10, undo=False)
text.pack(side="top", padx=10, pady=5)
widgets = {"root": root, "btn_a": bar.nametowidget("btn_a"), "btn_b": bar.nametowidget("btn_b"),
           "btn_c": bar.nametowidget("btn_c"), "canvas": canvas, "text": text}


def on_button(kind):
    def handler(e):
        emit(ev=kind, w=name(e.widget), b=e.num, x=e.x_root, y=e.y_root, state=e.state)
    return handler


def on_motion(e):
    emit(ev="motion", w=name(e.widget), x=e.x_root, y=e.y_root, state=e.state)


def on_key(kind):
    def handler(e):
        emit(ev=kind, w=name(e.widget), keysym=e.keysym, char=e.char, state=e.state)
    return handler


def on_dump(e):
    emit(ev="dump", text=text.get("1.0", "end-1c"))
    return "break"  # the Text's own Ctrl+D deletes a character


def on_copy(e):
    emit(ev="copy")
    return "break"


# Every widget gets the "Log" tag first, so its catch-all bindings see each
# event before any other binding (Tk's own <Alt-Key> on "all" would hide
# alt+x from a bind_all handler).
for w in widgets.values():
    w.bindtags(("Log",) + w.bindtags())
root.bind_class("Log", "<ButtonPress>", on_button("press"))
root.bind_class("Log", "<ButtonRelease>", on_button("release"))
root.bind_class("Log", "<Double-ButtonPress-1>", on_button("double"))
root.bind_class("Log", "<Triple-ButtonPress-1>", on_button("triple"))
root.bind_class("Log", "<KeyPress>", on_key("key"))
root.bind_class("Log", "<KeyRelease>", on_key("keyup"))
root.bind_class("Log", "<Control-d>", lambda e: (on_key("key")(e), on_dump(e))[1])
root.bind_class("Log", "<Control-c>", lambda e: (on_key("key")(e), on_copy(e))[1])
canvas.bind("<Motion>", on_motion)

last = None


def report():
    global last
    geo = {n: [w.winfo_rootx(), w.winfo_rooty(), w.winfo_width(), w.winfo_height()]
           for n, w in widgets.items()}
    if root.winfo_viewable() and geo != last:
        last = geo
        emit(ev="geometry", widgets=geo)
    root.after(50, report)


root.after(50, report)
root.mainloop()
