#!/usr/bin/python3
"""A small form app the end-to-end tests drive: a name field, a notes box and a Save
button. Save writes the fields to the output file as JSON. After the window is shown,
the app writes its widgets' rectangles in root coordinates to the layout file, so a
test can compute where to click.

usage: python3 formapp.py OUTPUT.json LAYOUT.json (internal/testapps starts it)
"""
import json
import sys
import tkinter as tk

out_path, layout_path = sys.argv[1], sys.argv[2]
root = tk.Tk()
root.title("deskpilot test form")
root.geometry("520x360+120+90")
root.configure(padx=16, pady=16)

tk.Label(root, text="Name", font=("DejaVu Sans", 12)).grid(row=0, column=0, sticky="w")
name = tk.Entry(root, width=30, font=("DejaVu Sans", 12))
name.grid(row=0, column=1, sticky="we", pady=8)
tk.Label(root, text="Notes", font=("DejaVu Sans", 12)).grid(row=1, column=0, sticky="nw")
notes = tk.Text(root, width=30, height=6, font=("DejaVu Sans", 12))
notes.grid(row=1, column=1, sticky="we", pady=8)
status = tk.Label(root, text="not saved", font=("DejaVu Sans", 12))
status.grid(row=3, column=1, sticky="w")


def save(*_):
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"name": name.get(), "notes": notes.get("1.0", "end-1c")}, f, ensure_ascii=False)
    status.configure(text="saved")


button = tk.Button(root, text="Save", font=("DejaVu Sans", 12), command=save)
button.grid(row=2, column=1, sticky="e", pady=8)
root.bind("<Control-s>", save)


def rect(w):
    return {"x": w.winfo_rootx(), "y": w.winfo_rooty(), "w": w.winfo_width(), "h": w.winfo_height()}


def write_layout():
    root.update_idletasks()
    if not root.winfo_viewable():
        root.after(50, write_layout)
        return
    with open(layout_path + ".tmp", "w") as f:
        json.dump({"name": rect(name), "notes": rect(notes), "save": rect(button), "status": rect(status)}, f)
    import os
    os.replace(layout_path + ".tmp", layout_path)


# The window manager moves the window when it adds its frame: keep the layout current.
root.bind("<Configure>", lambda e: root.after(30, write_layout) if e.widget is root else None)
root.after(300, write_layout)
root.mainloop()
