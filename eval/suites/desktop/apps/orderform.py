#!/usr/bin/python3
"""Order form: a small Tk app the desktop suite's tasks drive.

usage: python3 orderform.py OUTPUT.json [ORDER_NUMBER]

The form has a name and an email field, a quantity spinbox, shipping radio
buttons, a gift-wrap check box, a country list and a notes box. Save (or Ctrl+S)
writes every field to OUTPUT.json and shows "Saved". Keyboard order (Tab): name,
email, quantity, the three shipping options, gift wrap, country list, notes
(Ctrl+Tab leaves the notes box), Save.
"""
import json
import os
import sys
import tkinter as tk

out_path = sys.argv[1]
order_number = sys.argv[2] if len(sys.argv) > 2 else "A-1000"
COUNTRIES = ["Brazil", "Canada", "France", "Germany", "Japan", "Kenya"]
FONT = ("DejaVu Sans", 12)

root = tk.Tk()
root.title("Order form")
root.geometry("+200+120")
root.configure(padx=20, pady=16)
root.option_add("*Font", FONT)

tk.Label(root, text="Order number: " + order_number, font=("DejaVu Sans", 13, "bold")).grid(
    row=0, column=0, columnspan=2, sticky="w", pady=(0, 10))

tk.Label(root, text="Name").grid(row=1, column=0, sticky="w")
name = tk.Entry(root, width=32)
name.grid(row=1, column=1, sticky="we", pady=4)

tk.Label(root, text="Email").grid(row=2, column=0, sticky="w")
email = tk.Entry(root, width=32)
email.grid(row=2, column=1, sticky="we", pady=4)

tk.Label(root, text="Quantity").grid(row=3, column=0, sticky="w")
quantity = tk.Spinbox(root, from_=1, to=20, width=5)
quantity.grid(row=3, column=1, sticky="w", pady=4)

tk.Label(root, text="Shipping").grid(row=4, column=0, sticky="nw")
shipping = tk.StringVar(value="Standard")
ship_box = tk.Frame(root)
ship_box.grid(row=4, column=1, sticky="w", pady=4)
for option in ("Standard", "Express", "Overnight"):
    tk.Radiobutton(ship_box, text=option, value=option, variable=shipping).pack(side="left", padx=(0, 12))

gift = tk.BooleanVar(value=False)
tk.Checkbutton(root, text="Gift wrap", variable=gift).grid(row=5, column=1, sticky="w", pady=4)

tk.Label(root, text="Country").grid(row=6, column=0, sticky="nw")
country = tk.Listbox(root, height=len(COUNTRIES), exportselection=False, width=16)
for c in COUNTRIES:
    country.insert("end", c)
country.grid(row=6, column=1, sticky="w", pady=4)

tk.Label(root, text="Notes").grid(row=7, column=0, sticky="nw")
notes = tk.Text(root, width=32, height=4)
notes.grid(row=7, column=1, sticky="we", pady=4)

status = tk.Label(root, text="Not saved", fg="#555")
status.grid(row=9, column=1, sticky="w")


def save(*_):
    picked = country.curselection()
    data = {
        "name": name.get(),
        "email": email.get(),
        "quantity": quantity.get(),
        "shipping": shipping.get(),
        "gift_wrap": gift.get(),
        "country": COUNTRIES[picked[0]] if picked else "",
        "notes": notes.get("1.0", "end-1c"),
    }
    tmp = out_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False)
    os.replace(tmp, out_path)
    status.configure(text="Saved", fg="#0a7d32")
    return "break"


tk.Button(root, text="Save", command=save, width=10).grid(row=8, column=1, sticky="e", pady=8)
root.bind_all("<Control-s>", save)
root.after(200, lambda: (root.focus_force(), name.focus_set()))
root.mainloop()
