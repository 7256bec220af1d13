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
