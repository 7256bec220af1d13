# Writes the corrupt and truncated fixtures under corrupt/ from the good ones.
# Run from actions/inspect/testdata: python3 src/make_corrupt.py
import zipfile, io

def read(p):
    with open(p, "rb") as f:
        return f.read()

def write(p, b):
    with open(p, "wb") as f:
        f.write(b)

def replace_part(src, part, data):
    out = io.BytesIO()
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            body = data if item.filename == part else zin.read(item.filename)
            zout.writestr(item, body)
    return out.getvalue()

pdf = read("paper.pdf")
write("corrupt/truncated.pdf", pdf[: len(pdf) // 2])
write("corrupt/garbage.pdf", b"%PDF-1.4\n" + bytes(range(256)) * 4 + b"\nstartxref\n99999\n%%EOF\n")
docx = read("report.docx")
write("corrupt/truncated.docx", docx[:3000])
write("corrupt/badxml.docx", replace_part("report.docx", "word/document.xml",
      b'<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>cut off'))
nodoc = io.BytesIO()
with zipfile.ZipFile(nodoc, "w") as z:
    z.writestr("readme.txt", "not a word document")
write("corrupt/notword.docx", nodoc.getvalue())
xlsx = read("budget.xlsx")
write("corrupt/truncated.xlsx", xlsx[:2000])
pptx = read("deck.pptx")
write("corrupt/truncated.pptx", pptx[: len(pptx) // 2])
write("corrupt/badxml.pptx", replace_part("deck.pptx", "ppt/slides/slide2.xml", b"<p:sld><p:cSld><p:spTree><p:sp>"))
write("corrupt/truncated.zip", read("bundle.zip")[:1000])
write("corrupt/bad.json", b'{"bridge": "Vellmar", "segments": [1, 2')
write("corrupt/bad.xml", b"<catalog><book></catalog>\n")
write("corrupt/truncated.png", read("chart.png")[:40])
