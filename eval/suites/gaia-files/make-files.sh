#!/bin/sh
# Regenerates files/ from src/ with LibreOffice (Debian 12: libreoffice-writer-nogui
# and libreoffice-calc-nogui; not needed to run the suite or its tests).
#   sh make-files.sh
set -eu
cd "$(dirname "$0")"
out=$(mktemp -d)
profile=$(mktemp -d)
lo() { soffice -env:UserInstallation=file://"$profile" --headless "$@" >/dev/null; }
lo --convert-to pdf:writer_web_pdf_Export --outdir "$out" src/report.html
lo --convert-to docx:"MS Word 2007 XML" --outdir "$out" src/minutes.html
lo --infilter=CSV:44,34,76,1 --convert-to xlsx:"Calc MS Excel 2007 XML" --outdir "$out" src/sales.csv
cp "$out/report.pdf" "$out/minutes.docx" "$out/sales.xlsx" files/
rm -rf "$out" "$profile"
