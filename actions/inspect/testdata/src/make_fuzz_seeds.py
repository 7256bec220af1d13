# Writes the fuzz seed corpora under fuzz/ from the fixtures and a few
# hand-written edge cases. Run from actions/inspect/testdata:
#   python3 src/make_fuzz_seeds.py
import zipfile

def lit(b):
    out = []
    for c in b:
        if c == 0x22: out.append('\\"')
        elif c == 0x5c: out.append('\\\\')
        elif 0x20 <= c < 0x7f: out.append(chr(c))
        elif c == 10: out.append('\\n')
        else: out.append('\\x%02x' % c)
    return ''.join(out)

def seed(target, name, data):
    with open(f"fuzz/{target}/{name}", "w") as f:
        f.write('go test fuzz v1\n[]byte("' + lit(data) + '")\n')

W = b'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"'
def wdoc(body):
    return b'<w:document ' + W + b'><w:body>' + body + b'</w:body></w:document>'

seed("FuzzDOCX", "libreoffice_report", zipfile.ZipFile("report.docx").read("word/document.xml"))
seed("FuzzDOCX", "nested_tables", wdoc(b'<w:tbl><w:tr><w:tc><w:tcPr><w:gridSpan w:val="2"/></w:tcPr><w:p><w:r><w:t>a|b</w:t></w:r></w:p><w:tbl><w:tr><w:tc><w:p><w:r><w:t>inner</w:t></w:r></w:p></w:tc></w:tr></w:tbl></w:tc></w:tr><w:tr><w:tc><w:tcPr><w:vMerge/></w:tcPr><w:p/></w:tc><w:tc><w:p><w:pPr><w:numPr><w:ilvl w:val="1"/><w:numId w:val="2"/></w:numPr></w:pPr><w:r><w:t>item</w:t></w:r></w:p></w:tc></w:tr></w:tbl>'))
seed("FuzzDOCX", "textbox_fallback", wdoc(b'<w:p><w:r><w:t>before </w:t></w:r><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><w:txbxContent><w:p><w:r><w:t>in the box</w:t></w:r></w:p></w:txbxContent></w:drawing></mc:Choice><mc:Fallback><w:pict><w:txbxContent><w:p><w:r><w:t>in the box</w:t></w:r></w:p></w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r><w:r><w:t>after</w:t></w:r></w:p>'))
seed("FuzzDOCX", "links_and_deletions", wdoc(b'<w:p><w:pPr><w:outlineLvl w:val="2"/></w:pPr><w:hyperlink r:id="rId2"><w:r><w:t>link</w:t></w:r><w:hyperlink r:id="rId2"><w:r><w:t>nested</w:t></w:r></w:hyperlink></w:hyperlink><w:del><w:r><w:delText>gone</w:delText></w:r></w:del><w:r><w:tab/><w:t>x</w:t><w:br/><w:t>y</w:t></w:r></w:p>'))
seed("FuzzDOCX", "deep", wdoc(b'<w:tbl><w:tr><w:tc>' * 40 + b'<w:p><w:r><w:t>deep</w:t></w:r></w:p>' + b'</w:tc></w:tr></w:tbl>' * 40))
seed("FuzzDOCX", "unbalanced", wdoc(b'<w:p><w:r><w:t>open') + b'</w:p></w:tbl></w:hyperlink>')

P = b'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
def sld(tree):
    return b'<p:sld ' + P + b'><p:cSld><p:spTree>' + tree + b'</p:spTree></p:cSld></p:sld>'
z = zipfile.ZipFile("deck.pptx")
for i in (1, 2, 3):
    seed("FuzzPPTX", f"libreoffice_slide{i}", z.read(f"ppt/slides/slide{i}.xml"))
seed("FuzzPPTX", "bullets_groups_pictures", sld(b'<p:grpSp><p:sp><p:nvSpPr><p:cNvPr id="2" name="b"/><p:nvPr><p:ph idx="1"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:pPr lvl="1"/><a:r><a:t>level one</a:t></a:r><a:br/><a:r><a:t>wrapped</a:t></a:r></a:p><a:p><a:pPr><a:buNone/></a:pPr><a:fld type="slidenum"><a:t>3</a:t></a:fld></a:p></p:txBody></p:sp></p:grpSp><p:pic><p:nvPicPr><p:cNvPr id="3" name="pic" descr="A bar chart of sales"/></p:nvPicPr><p:blipFill><a:blip r:embed="rId9"/></p:blipFill></p:pic><p:sp><p:nvSpPr><p:nvPr><p:ph type="sldNum"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>7</a:t></a:r></a:p></p:txBody></p:sp>'))
seed("FuzzPPTX", "table_in_group", sld(b'<p:graphicFrame><a:graphic><a:graphicData><a:tbl><a:tr><a:tc><a:txBody><a:p><a:r><a:t>a</a:t></a:r></a:p><a:p><a:r><a:t>b</a:t></a:r></a:p></a:txBody></a:tc><a:tc hMerge="1"/></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>'))
seed("FuzzPPTX", "unbalanced", sld(b'<p:sp><a:p><a:t>x') + b'</a:tbl></p:sp>')

pdf = open("paper.pdf", "rb").read()
seed("FuzzPDF", "libreoffice_paper", pdf)
seed("FuzzPDF", "truncated", open("corrupt/truncated.pdf", "rb").read())
seed("FuzzPDF", "garbage", open("corrupt/garbage.pdf", "rb").read())
