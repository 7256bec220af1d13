#!/bin/sh
# Regenerates the workbooks, documents and images of eval/checks' tests with
# the real applications (LibreOffice headless). Run from this folder:
#   sh make.sh
set -e
out=$(mktemp -d)
for f in src/*.csv; do
	soffice --headless --convert-to xlsx --outdir "$out" "$f" >/dev/null
done
for f in "$out"/*.xlsx; do cp "$f" "xlsx-$(basename "$f")"; done
rm -rf "$out"
out=$(mktemp -d)
for f in src/doc-*.txt; do
	soffice --headless --convert-to docx:"MS Word 2007 XML" --outdir "$out" "$f" >/dev/null
done
for f in "$out"/*.docx; do cp "$f" "$(basename "$f")"; done
rm -rf "$out"
# Presentations: ppt-gold.fodp and near misses of it (one sed each), to pptx.
out=$(mktemp -d)
variant() { sed "$2" src/ppt-gold.fodp >"$out/ppt-$1.fodp"; }
cp src/ppt-gold.fodp "$out/ppt-gold.fodp"
cp src/ppt-gold.fodp "$out/ppt-same.fodp"
variant word 's/>twelve</>eleven</'
variant bold 's/<text:span text:style-name="T1">grew<\/text:span>/grew/'
variant color 's/#c9211e/#2a6099/'
variant level 's/<text:list><text:list-item><text:p>Mostly/<\/text:list-item><text:list-item><text:p>Mostly/; s/abroad<\/text:span><\/text:p><\/text:list-item><\/text:list><\/text:list-item>/abroad<\/text:span><\/text:p><\/text:list-item>/'
variant align 's/<text:p text:style-name="P1">Quarterly/<text:p>Quarterly/'
variant strike 's/<text:span text:style-name="T4">flat<\/text:span>/flat/'
variant notes 's/Speak slowly/Speak loudly/'
variant short '/<draw:page draw:name="page3"/,/<\/draw:page>/d'
variant moved 's/draw:name="Logo" svg:x="3cm"/draw:name="Logo" svg:x="4cm"/'
variant pictop 's/draw:name="Logo" svg:x="3cm" svg:y="8cm"/draw:name="Logo" svg:x="3cm" svg:y="4cm"/'
variant picright 's/draw:name="Logo" svg:x="3cm"/draw:name="Logo" svg:x="15cm"/'
variant picsize 's/draw:name="Logo" svg:x="3cm" svg:y="8cm" svg:width="6cm"/draw:name="Logo" svg:x="3cm" svg:y="8cm" svg:width="8cm"/'
variant tablelow 's/draw:name="Table" svg:x="2cm" svg:y="4cm"/draw:name="Table" svg:x="2cm" svg:y="11cm"/'
variant portrait 's/fo:page-width="28cm" fo:page-height="15.75cm" style:print-orientation="landscape"/fo:page-width="15.75cm" fo:page-height="28cm" style:print-orientation="portrait"/'
# The logo also on the first slide: small (picslide), stretched over the
# slide (stretched).
logo() {
	grep 'draw:name="Logo"' src/ppt-gold.fodp | sed "$1" >"$out/logo.xml"
	sed "/<draw:page draw:name=\"page1\"/r $out/logo.xml" src/ppt-gold.fodp >"$out/ppt-$2.fodp"
	rm "$out/logo.xml"
}
logo 's/x/x/' picslide
logo 's/svg:x="3cm" svg:y="8cm" svg:width="6cm" svg:height="4.5cm"/svg:x="0.2cm" svg:y="0cm" svg:width="27.8cm" svg:height="15.75cm"/' stretched
for f in "$out"/*.fodp; do
	soffice --headless --convert-to pptx --outdir "$out" "$f" >/dev/null
done
for f in "$out"/*.pptx; do cp "$f" "$(basename "$f")"; done
rm -rf "$out"
# PDFs: the documents' texts as Writer prints them; pdf-long has two pages.
out=$(mktemp -d)
for f in src/doc-*.txt; do cp "$f" "$out/pdf-$(basename "$f" .txt | sed 's/^doc-//').txt"; done
{ cat src/doc-gold.txt; printf '\f'; cat src/doc-word.txt; } >"$out/pdf-long.txt"
for f in "$out"/pdf-*.txt; do
	soffice --headless --convert-to pdf --outdir "$out" "$f" >/dev/null
done
for f in "$out"/*.pdf; do cp "$f" "$(basename "$f")"; done
rm -rf "$out"
