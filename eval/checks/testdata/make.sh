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
# Images: a scene drawn by ImageMagick and edits of it as an image editor
# makes them; a GIMP profile's config files written by GIMP itself.
scene() {
	convert -size 96x64 gradient:'#3060c0-#f0d040' -fill '#c02020' -draw 'rectangle 10,10 40,40' \
		-fill '#20a040' -draw 'circle 70,32 70,50' -fill black -draw 'line 0,60 95,5' "$1"
}
scene img-base.png
scene img-base.jpg
scene img-base.gif
convert img-base.png img-same.png
convert img-base.png -modulate 70 img-darker.png
convert img-base.png -modulate 100,160 img-saturated.png
convert img-base.png -sigmoidal-contrast 6x50% img-contrast.png
convert img-base.png -flop img-mirror.png
convert img-base.png -resize 48x32! img-small.png
convert img-base.png -colors 16 PNG8:img-palette.png
convert img-base.png -alpha set PNG32:img-rgba.png
convert img-base.png -colorspace Gray img-gray.png
convert img-base.png -attenuate 0.6 +noise Gaussian img-noise.png
convert img-base.png -fill white -draw 'rectangle 50,0 95,63' img-half.png
convert -size 80x80 xc:white -fill yellow -draw 'polygon 40,28 30,48 50,48' img-tri-center.png
convert -size 80x80 xc:white -fill yellow -draw 'polygon 10,5 2,20 18,20' img-tri-corner.png
convert -size 100x60 xc:white -fill black -draw 'rectangle 2,20 30,30' img-text-left.png
convert -size 100x60 xc:white -fill black -draw 'rectangle 40,20 70,30' img-text-right.png
convert -size 60x60 xc:white -fill black -draw 'circle 30,30 30,45' img-object-white.png
convert -size 60x60 xc:'#20c040' -fill black -draw 'circle 30,30 30,45' img-object-green.png
convert -size 60x60 xc:'#c0c040' -fill black -draw 'circle 30,30 30,45' img-object-olive.png
# 8-bit PNGs of the colour type Pillow should see: RGB unless named.
for f in img-*.png; do
	case $f in
	img-palette.png) ;;
	img-rgba.png) convert "$f" -depth 8 PNG32:"$f" ;;
	img-gray.png) convert "$f" -depth 8 -define png:color-type=0 "$f" ;;
	*) convert "$f" -depth 8 -define png:color-type=2 PNG24:"$f" ;;
	esac
done
home=$(mktemp -d)
HOME=$home xvfb-run -a gimp -b '(gimp-gimprc-set "layer-new-name" "Square")' \
	-b '(gimp-gimprc-set "undo-levels" "100")' -b '(gimp-quit 0)' >/dev/null 2>&1
for f in sessionrc gimprc; do cp "$home/.config/GIMP/2.10/$f" "gimp-$f"; done
rm -rf "$home"
# Archives (zip and tar) of the PDFs and texts above.
out=$(mktemp -d)
mkdir -p "$out/gold/lecture_slides" "$out/word/lecture_slides" "$out/missing/lecture_slides" "$out/text"
cp pdf-gold.pdf "$out/gold/lecture_slides/a.pdf"; cp pdf-gold.pdf "$out/gold/lecture_slides/b.pdf"
cp pdf-gold.pdf "$out/word/lecture_slides/a.pdf"; cp pdf-word.pdf "$out/word/lecture_slides/b.pdf"
cp pdf-gold.pdf "$out/missing/lecture_slides/a.pdf"
cp src/doc-gold.txt "$out/text/gold.txt"; cp src/doc-spaces.txt "$out/text/spaces.txt"
here=$(pwd)
for v in gold word missing; do (cd "$out/$v" && zip -qrX "$here/arc-$v.zip" lecture_slides); done
(cd "$out/gold" && tar -czf "$here/arc-gold.tar.gz" lecture_slides)
(cd "$out/text" && zip -qX "$here/arc-text.zip" gold.txt spaces.txt)
(cd "$out/text" && cp spaces.txt gold.txt && zip -qX "$here/arc-text2.zip" gold.txt spaces.txt)
(cd "$out/gold/lecture_slides" && cp "$here/src/doc-gold.txt" notes.txt && zip -qX "$here/zip-gold.zip" a.pdf notes.txt)
(cd "$out/word/lecture_slides" && cp "$here/src/doc-gold.txt" notes.txt && zip -qX "$here/zip-pdfword.zip" b.pdf notes.txt && mv b.pdf a.pdf && zip -qX "$here/zip-word.zip" a.pdf notes.txt)
(cd "$out/gold/lecture_slides" && cp "$here/src/doc-word.txt" notes.txt && zip -qX "$here/zip-notes.zip" a.pdf notes.txt)
rm -rf "$out"
# Thunderbird profiles: prefs.js as Thunderbird 153 writes it, fresh
# (tb-prefs-fresh.js) and with preferences set through user.js (tb-prefs.js).
tbprofile() {
	home=$(mktemp -d)
	mkdir "$home/p"
	HOME=$home thunderbird --headless -CreateProfile "dp $home/p" >/dev/null 2>&1
	[ -n "$2" ] && printf '%s\n' "$2" >"$home/p/user.js"
	HOME=$home timeout -s TERM 25 thunderbird --headless --profile "$home/p" >/dev/null 2>&1
	cp "$home/p/prefs.js" "$1"
	rm -rf "$home"
}
tbprofile tb-prefs-fresh.js ""
tbprofile tb-prefs.js 'user_pref("mail.identity.id1.htmlSigText", "Anonym\nXYZ Lab");
user_pref("extensions.activeThemeID", "thunderbird-compact-dark@mozilla.org");
user_pref("mail.server.default.applyIncomingFilters", true);
user_pref("mail.imap.use_status_for_biff", false);
user_pref("mail.identity.id1.auto_quote", false);
user_pref("mail.server.default.autosync_offline_stores", false);'
# tb-filters.dat (msgFilterRules.dat) and the folder files tb-inbox,
# tb-empty and tb-upper are written by hand in Thunderbird's formats: a
# headless Thunderbird makes no filters or messages.
# VLC settings: the vlcrc VLC 3.0 writes with its defaults (every setting a
# comment), and the lines its preferences write when settings change.
home=$(mktemp -d)
chmod 777 "$home"
if [ "$(id -u)" = 0 ]; then as="setpriv --reuid=65534 --regid=65534 --clear-groups"; else as=""; fi
HOME=$home $as cvlc --reset-config vlc://quit >/dev/null 2>&1
cp "$home/.config/vlc/vlcrc" vlc-default.vlcrc
rm -rf "$home"
sed 's/^#qt-bgcone=1/qt-bgcone=0/; s/^#qt-minimal-view=0/qt-minimal-view=1/; s/^#qt-max-volume=125/qt-max-volume=200/;
s|^#input-record-path=|input-record-path=/home/user/Desktop|; s/^#global-key-play-pause=/global-key-play-pause=Ctrl+p/;
s/^#qt-slider-colours=.*/qt-slider-colours=10;20;30;40;50;60;70;80;90;0;0;0/; s/^#one-instance-when-started-from-file=1/one-instance-when-started-from-file=0/' \
	vlc-default.vlcrc >vlc-set.vlcrc
# VLC's status.xml (its HTTP interface) while it plays a tone, and paused.
home=$(mktemp -d)
chmod 777 "$home"
python3 -c "
import wave, struct, math
w = wave.open('$home/tone.wav', 'wb'); w.setnchannels(1); w.setsampwidth(2); w.setframerate(8000)
w.writeframes(b''.join(struct.pack('<h', int(8000 * math.sin(i / 10))) for i in range(8000 * 60))); w.close()"
chmod 644 "$home/tone.wav"
HOME=$home $as cvlc -I http --http-host 127.0.0.1 --http-port 18080 --http-password password --aout dummy --no-video "$home/tone.wav" >/dev/null 2>&1 &
vlc=$!
sleep 3
curl -s -u :password http://127.0.0.1:18080/requests/status.xml >vlc-playing.xml
curl -s -u :password 'http://127.0.0.1:18080/requests/status.xml?command=pl_pause' >/dev/null
sleep 1
curl -s -u :password http://127.0.0.1:18080/requests/status.xml >vlc-paused.xml
kill $vlc
rm -rf "$home"
# An SQLite database (written by SQLite itself) with what the reader must
# follow: overflow pages, a rowid alias, a column added after rows were
# written, an index, UTF-8 text and blobs.
rm -f sqlite-sample.db
python3 -c "
import sqlite3
db = sqlite3.connect('sqlite-sample.db')
db.execute('CREATE TABLE urls (id INTEGER PRIMARY KEY AUTOINCREMENT, url LONGVARCHAR, title LONGVARCHAR, visit_count INTEGER DEFAULT 0 NOT NULL)')
db.execute('CREATE INDEX urls_url ON urls (url)')
for i in range(80):
    db.execute('INSERT INTO urls (url, title, visit_count) VALUES (?, ?, ?)', ('https://example.com/%d' % i, 'Zürich ' * (i % 7) + 'x' * (i * 37 % 5000), i))
db.execute(\"ALTER TABLE urls ADD COLUMN hidden INTEGER DEFAULT 7 NOT NULL\")
db.execute(\"ALTER TABLE urls ADD COLUMN note TEXT DEFAULT 'none'\")
db.execute('INSERT INTO urls (url, title, hidden, note) VALUES (?, ?, 1, ?)', ('https://last', None, 'é' * 3000))
db.execute('CREATE TABLE blobs (k TEXT, v BLOB, f REAL)')
db.execute('INSERT INTO blobs VALUES (?, ?, ?)', ('a', bytes(range(256)) * 40, 1.5))
db.execute('INSERT INTO blobs VALUES (?, ?, ?)', ('b', None, -2e300))
db.commit()
"
# LibreOffice's registrymodifications.xcu: a first run writes it (lo-fresh.xcu);
# settings added to it are read and written back by a second run (lo-set.xcu).
# Presentations with a transition on the first slide (dissolve, fade).
lo=$(mktemp -d)
soffice -env:UserInstallation=file://$lo --headless --convert-to pdf --outdir "$lo" src/doc-gold.txt >/dev/null 2>&1
cp "$lo/user/registrymodifications.xcu" lo-fresh.xcu
sed -i 's|</oor:items>|<item oor:path="/org.openoffice.Office.Common/Save/Document"><prop oor:name="AutoSaveTimeIntervall" oor:op="fuse"><value>3</value></prop></item>\n<item oor:path="/org.openoffice.Office.Impress/Misc/Start"><prop oor:name="EnablePresenterScreen" oor:op="fuse"><value>false</value></prop></item>\n</oor:items>|' "$lo/user/registrymodifications.xcu"
soffice -env:UserInstallation=file://$lo --headless --convert-to pdf --outdir "$lo" src/doc-word.txt >/dev/null 2>&1
cp "$lo/user/registrymodifications.xcu" lo-set.xcu
rm -rf "$lo"
out=$(mktemp -d)
for t in dissolve fade; do
	sed 's/<draw:page draw:name="page1" /<draw:page draw:name="page1" draw:style-name="dp9" /
s|<office:automatic-styles>|<office:automatic-styles><style:style style:name="dp9" style:family="drawing-page"><style:drawing-page-properties presentation:transition-type="manual" smil:type="'$t'" presentation:duration="PT1S"/></style:style>|
s|<office:document |<office:document xmlns:smil="urn:oasis:names:tc:opendocument:xmlns:smil-compatible:1.0" |' src/ppt-gold.fodp >"$out/ppt-$t.fodp"
	soffice --headless --convert-to pptx --outdir "$out" "$out/ppt-$t.fodp" >/dev/null 2>&1
	cp "$out/ppt-$t.pptx" .
done
rm -rf "$out"
# A presentation whose second slide has a picture (src/ppt-pic.png) as its
# background.
out=$(mktemp -d)
b64=$(base64 -w0 src/ppt-pic.png)
sed 's/<draw:page draw:name="page2" /<draw:page draw:name="page2" draw:style-name="dpbg" /
s|<office:styles>|<office:styles><draw:fill-image draw:name="Logo_bg"><office:binary-data>'"$b64"'</office:binary-data></draw:fill-image>|
s|<office:automatic-styles>|<office:automatic-styles><style:style style:name="dpbg" style:family="drawing-page"><style:drawing-page-properties draw:fill="bitmap" draw:fill-image-name="Logo_bg" style:repeat="stretch" presentation:background-visible="true"/></style:style>|' \
	src/ppt-gold.fodp >"$out/ppt-bgimage.fodp"
soffice --headless --convert-to pptx --outdir "$out" "$out/ppt-bgimage.fodp" >/dev/null 2>&1
cp "$out/ppt-bgimage.pptx" .
rm -rf "$out"
# MP3s encoded by lame from a tone, tagged by lame (ID3v2.3), by mid3v2
# (ID3v2.4, Chinese title), with two artists (mutagen: python3-mutagen),
# and untagged. Needs lame and mid3v2 (python3-mutagen).
out=$(mktemp -d)
python3 -c "
import wave, struct, math
w = wave.open('$out/tone.wav', 'wb'); w.setnchannels(1); w.setsampwidth(2); w.setframerate(8000)
w.writeframes(b''.join(struct.pack('<h', int(8000 * math.sin(i / 10))) for i in range(8000))); w.close()"
lame --quiet --id3v2-only --tt "Missing You" --ta "Cheng Xiang" "$out/tone.wav" mp3-lame.mp3
lame --quiet "$out/tone.wav" mp3-notag.mp3
cp mp3-notag.mp3 mp3-mid3v2.mp3
mid3v2 -t "思念" -a "Cheng Xiang" -A "Songs" mp3-mid3v2.mp3
cp mp3-notag.mp3 mp3-two.mp3
python3 -c "
from mutagen.easyid3 import EasyID3
t = EasyID3(); t['title'] = 'Tears'; t['artist'] = ['Han Baoyi', 'Guest']; t.save('mp3-two.mp3')"
rm -rf "$out"
# Writer documents with fonts, line spacing and a page-number footer
# (src/doc-fmt.fodt), and near misses of it.
out=$(mktemp -d)
cp src/doc-fmt.fodt "$out/fmt-gold.fodt"
sed '/style:name="P2"/s/fo:line-height="150%"/fo:line-height="200%"/' src/doc-fmt.fodt >"$out/fmt-spacing.fodt"
sed '/style:name="P2"/s/style:font-name="DejaVu Serif"/style:font-name="DejaVu Sans"/' src/doc-fmt.fodt >"$out/fmt-font.fodt"
sed 's|Page <text:page-number text:select-page="current">1</text:page-number>|Confidential|' src/doc-fmt.fodt >"$out/fmt-nofooter.fodt"
for f in "$out"/fmt-*.fodt; do
	soffice --headless --convert-to docx:"MS Word 2007 XML" --outdir "$out" "$f" >/dev/null 2>&1
done
for f in "$out"/*.docx; do cp "$f" "doc-$(basename "$f")"; done
rm -rf "$out"
# Writer documents for docxmore_test.go: src/doc-tabs.fodt and src/doc-more.fodt
# and near misses of them (one sed each), to docx (and doc-more to odt);
# src/doc-pic.png is the picture in doc-more (src/doc-pic.svg in doc-more-svg, which
# Writer 7.4 stores rendered as a PNG), src/doc-pic2.png the same with one
# pixel changed.
out=$(mktemp -d)
tabs() { sed "$2" src/doc-tabs.fodt >"$out/doc-tabs-$1.fodt"; }
tabs gold 's/x/x/'
tabs shifted 's/style:position="17cm"/style:position="15.3cm"/'
tabs center 's/style:type="right"/style:type="center"/'
tabs four 's/Order your books/Order all your books/'
more() { sed "$2" src/doc-more.fodt >"$out/doc-more-$1.fodt"; }
more gold 's/x/x/'
more nosub 's/ style:text-position="sub 58%"//'
more super 's/style:text-position="sub 58%"/style:text-position="super 58%"/'
more ital12 's/fo:font-size="14pt"/fo:font-size="12pt"/'
more bluenear 's/fo:color="#0000ff"/fo:color="#0a00ff"/'
more blueoff 's/fo:color="#0000ff"/fo:color="#5000ff"/'
more nocolor 's/<style:text-properties fo:color="#0000ff"\/>/<style:text-properties\/>/'
more noimage 's/Logo: <draw:frame.*<\/draw:frame>/Logo: /'
more picfirst 's/Logo: \(<draw:frame.*<\/draw:frame>\)/\1Logo: /'
more pic2 "s|<office:binary-data>[^<]*</office:binary-data>|<office:binary-data>$(base64 -w0 src/doc-pic2.png)</office:binary-data>|"
convert src/doc-pic.png -define png:compression-level=0 "$out/pic0.png"
more picsame "s|<office:binary-data>[^<]*</office:binary-data>|<office:binary-data>$(base64 -w0 "$out/pic0.png")</office:binary-data>|"
more svg "s|<office:binary-data>[^<]*</office:binary-data>|<office:binary-data>$(base64 -w0 src/doc-pic.svg)</office:binary-data>|"
more nostrike 's/ style:text-line-through-style="solid" style:text-line-through-type="single"//'
more word 's/Water and life/Water and Life/'
more biblio 's/<text:p>References</<text:p>Bibliography</'
more yellow 's/fo:background-color="transparent"/fo:background-color="#ffff00"/'
more green 's/fo:background-color="transparent"/fo:background-color="#00ff00"/'
(cd "$out" && soffice --headless --convert-to docx:"MS Word 2007 XML" doc-*.fodt >/dev/null 2>&1 &&
	soffice --headless --convert-to odt doc-more-gold.fodt doc-more-yellow.fodt doc-more-green.fodt doc-more-word.fodt >/dev/null 2>&1)
for f in "$out"/*.docx "$out"/*.odt; do cp "$f" "$(basename "$f")"; done
rm -rf "$out"
# registrymodifications.xcu with Writer's default font set (Tools > Options >
# LibreOffice Writer > Basic Fonts), rewritten by LibreOffice itself.
lo=$(mktemp -d)
soffice -env:UserInstallation=file://$lo --headless --convert-to pdf --outdir "$lo" src/doc-gold.txt >/dev/null 2>&1
sed -i 's|</oor:items>|<item oor:path="/org.openoffice.Office.Writer/DefaultFont"><prop oor:name="Standard" oor:op="fuse"><value>Times New Roman</value></prop></item>\n</oor:items>|' "$lo/user/registrymodifications.xcu"
soffice -env:UserInstallation=file://$lo --headless --convert-to pdf --outdir "$lo" src/doc-word.txt >/dev/null 2>&1
cp "$lo/user/registrymodifications.xcu" lo-font.xcu
rm -rf "$lo"
# Thunderbird's message index (src/sql-gloda.sql) with no star, a star on
# every Bills message, and a star on the Inbox message only; the starred one
# also in write-ahead-log mode.
sqlite3 sql-nostar.sqlite <src/sql-gloda.sql
sqlite3 sql-star.sqlite <src/sql-gloda.sql
sqlite3 sql-star.sqlite "INSERT INTO messageAttributes VALUES (1, 1, 58, 1), (2, 2, 58, 1), (3, 3, 58, 1);"
sqlite3 sql-inbox.sqlite <src/sql-gloda.sql
sqlite3 sql-inbox.sqlite "INSERT INTO messageAttributes VALUES (4, 4, 58, 1), (1, 1, 58, 0);"
sqlite3 sql-wal.sqlite <src/sql-gloda.sql
sqlite3 sql-wal.sqlite "PRAGMA journal_mode=WAL; INSERT INTO messageAttributes VALUES (1, 1, 58, 1); PRAGMA wal_checkpoint(TRUNCATE);"
rm -f sql-wal.sqlite-wal sql-wal.sqlite-shm
# Calc's HTML export of two sheets, and near misses of it (one sed each).
out=$(mktemp -d)
for f in gold offbyone; do cp src/$f.csv "$out/html-$f.csv"; done
(cd "$out" && soffice --headless --convert-to html html-gold.csv html-offbyone.csv >/dev/null 2>&1)
cp "$out/html-gold.html" "$out/html-offbyone.html" .
sed 's/<td align="left">Qty<\/td>/<td align="right">Qty<\/td>/' html-gold.html >html-align.html
sed 's/<table cellspacing="0" border="0">/<table class=" grid  wide" cellspacing="0" border="0">/' html-gold.html >html-class1.html
sed 's/<table cellspacing="0" border="0">/<table border="0" class="grid wide" cellspacing="0">/' html-gold.html >html-class2.html
sed 's/>fresh</>fresh </' html-gold.html >html-space.html
sed 's/<\/body>/<p>more<\/p><\/body>/' html-gold.html >html-more.html
sed 's/<title><\/title>/<title>Sheet<\/title>/' html-gold.html >html-title.html
sed 's/<!-- \*/<!-- -/' html-gold.html >html-comment.html
sed 's/>ripe</>ripe<\/p></' html-gold.html >html-endp.html
rm -rf "$out"
# A hand-written page with misnested and omitted tags, and near misses.
cp src/html-messy.html html-messy.html
sed 's/<li>2/<li>2<\/li>/; s/var x = "<b>"/var x = "<i>"/' src/html-messy.html >html-messy2.html
sed 's/<td> q <\/p>/<td> q <\/td><\/p>/' src/html-messy.html >html-messy3.html
sed 's/<p>in<\/p>/<p>out<\/p>/' src/html-messy.html >html-messy4.html
{ cat html-gold.html; printf "<!-- end -->\n"; } >html-tail.html
# Slide backgrounds: ppt-gold.fodp with every page blue, every page dark
# blue, two of three pages blue, and the master page blue.
out=$(mktemp -d)
bg() { sed "s|<office:automatic-styles>|<office:automatic-styles><style:style style:name=\"dpB\" style:family=\"drawing-page\"><style:drawing-page-properties draw:fill=\"solid\" draw:fill-color=\"$2\"/></style:style>|; $3" src/ppt-gold.fodp >"$out/fill-$1.fodp"; }
bg blue '#0000ff' 's|<draw:page draw:name|<draw:page draw:style-name="dpB" draw:name|'
bg dark '#000080' 's|<draw:page draw:name|<draw:page draw:style-name="dpB" draw:name|'
bg two '#0000ff' 's|<draw:page draw:name="page\([12]\)"|<draw:page draw:style-name="dpB" draw:name="page\1"|'
bg master '#0000ff' 's|<style:master-page style:name="Default" |<style:master-page style:name="Default" draw:style-name="dpB" |'
(cd "$out" && soffice --headless --convert-to pptx fill-*.fodp >/dev/null 2>&1)
cp "$out"/fill-*.pptx .
rm -rf "$out"
# Writer documents of Futian addresses: three, three with one misspelt, four
# words, two (multi_apps/7ff48d5b).
out=$(mktemp -d)
for f in src/place-*.txt; do
	soffice --headless --convert-to docx:"MS Word 2007 XML" --outdir "$out" "$f" >/dev/null 2>&1
done
cp "$out"/place-*.docx .
rm -rf "$out"
# Images turned into PDFs by LibreOffice Draw (multi_apps/a503b07f): the
# base image twice (two files, the same drawing) and a darker copy.
out=$(mktemp -d)
cp img-base.png "$out/pdfimg-base.png"; cp img-base.png "$out/pdfimg-again.png"; cp img-darker.png "$out/pdfimg-darker.png"
(cd "$out" && soffice --headless --convert-to pdf pdfimg-base.png pdfimg-again.png pdfimg-darker.png >/dev/null 2>&1)
cp "$out"/pdfimg-*.pdf .
rm -rf "$out"
