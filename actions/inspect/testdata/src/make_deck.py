# Builds deck.pptx with LibreOffice Impress through UNO (run with /usr/bin/python3).
import subprocess, time, uno, os
from com.sun.star.beans import PropertyValue

def prop(n, v):
    p = PropertyValue(); p.Name = n; p.Value = v; return p

proc = subprocess.Popen(["soffice", "--headless", "--invisible", "--norestore",
    "--accept=socket,host=127.0.0.1,port=2202;urp;"])
ctx = uno.getComponentContext()
resolver = ctx.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", ctx)
for _ in range(60):
    try:
        rctx = resolver.resolve("uno:socket,host=127.0.0.1,port=2202;urp;StarOffice.ComponentContext"); break
    except Exception:
        time.sleep(0.5)
desktop = rctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", rctx)
doc = desktop.loadComponentFromURL("private:factory/simpress", "_blank", 0, (prop("Hidden", True),))
pages = doc.DrawPages

def placeholders(page):
    out = {}
    for i in range(page.Count):
        s = page.getByIndex(i)
        out.setdefault(s.ShapeType, []).append(s)
    return out

slides = [
    (0, "Bakery Expansion Plan", ["Board meeting, October 2024"], "Welcome everyone and introduce the agenda."),
    (1, "Why Lisbon", ["Foot traffic doubled since 2022", "Rent is 20% below Porto"], "Mention the survey from March."),
    (1, "Budget", ["Oven: 12000", "Two new ovens are needed"], ""),
]
for i, (layout, title, body, notes) in enumerate(slides):
    page = pages.getByIndex(0) if i == 0 else pages.insertNewByIndex(i - 1)
    page.Layout = layout
    ph = placeholders(page)
    ph["com.sun.star.presentation.TitleTextShape"][0].String = title
    key = "com.sun.star.presentation.SubtitleShape" if layout == 0 else "com.sun.star.presentation.OutlinerShape"
    ph[key][0].String = "\n".join(body)
    if notes:
        np = page.NotesPage
        for j in range(np.Count):
            s = np.getByIndex(j)
            if s.ShapeType == "com.sun.star.presentation.NotesShape":
                s.String = notes
page3 = pages.getByIndex(2)
tbl = doc.createInstance("com.sun.star.drawing.TableShape")
page3.add(tbl)
from com.sun.star.awt import Point, Size
tbl.Position = Point(2000, 9000); tbl.Size = Size(12000, 3000)
model = tbl.Model
model.Columns.insertByIndex(0, 1)
model.Rows.insertByIndex(0, 2)
cells = [["Item", "Cost"], ["Oven", "12000"], ["Mixer", "2500"]]
for r, row in enumerate(cells):
    for c, v in enumerate(row):
        model.getCellByPosition(c, r).String = v
out = "file://" + os.path.abspath("deck.pptx")
doc.storeToURL(out, (prop("FilterName", "Impress MS PowerPoint 2007 XML"),))
doc.close(True)
try:
    desktop.terminate()
except Exception:
    pass
proc.wait(timeout=30)
