package checks

import (
	"context"
	"fmt"
	"os"
)

// pyEpubText is OSWorld's process_epub, run by python3 with lxml (the
// library OSWorld's function uses, so the HTML is pretty-printed exactly as
// there): for each epub it lists the texts process_epub writes, in the order
// of its sorted file list. toc.ncx without its navPoint lines, content.opf
// without its dc:identifier lines, each .html file parsed by lxml.html with
// its line breaks taken out and pretty-printed. An archive that is not a zip
// gives none, as in OSWorld; a missing toc.ncx or content.opf, text that is
// not UTF-8, or an .html file in a folder of the archive (which OSWorld's
// function cannot write out) is an error, as the exception it raises there.
// The texts go to the file named by the first argument.
const pyEpubText = `import json, sys, zipfile
import lxml.html

def texts(filename):
    names, text = [], {}
    try:
        with zipfile.ZipFile(filename, "r") as z:
            with z.open("toc.ncx") as f:
                text["toc.ncx"] = "".join(l + "\n" for l in f.read().decode().splitlines() if "navPoint" not in l)
            names.append("toc.ncx")
            with z.open("content.opf") as f:
                text["content.opf"] = "".join(l + "\n" for l in f.read().decode().splitlines() if "dc:identifier" not in l)
            names.append("content.opf")
            for n in z.namelist():
                if n.endswith(".html"):
                    if "/" in n:
                        raise FileNotFoundError(n + ": an .html file in a folder of the epub, which process_epub cannot write out")
                    with z.open(n) as f:
                        html = lxml.html.fromstring("".join(ch for ch in f.read().decode() if ch != "\n" and ch != "\r").encode())
                        text[n] = lxml.html.tostring(html, pretty_print=True, encoding="unicode")
                    names.append(n)
    except zipfile.BadZipFile:
        return []
    return [text[n] for n in sorted(names)]

out = [texts(p) for p in sys.argv[2:]]
with open(sys.argv[1], "w") as f:
    json.dump(out, f)
`

// compareEpub is OSWorld's compare_epub: the product of diff_text_file over
// the pairs of the two epubs' texts (pyEpubText), as many pairs as the
// shorter list has (so an archive that is not a zip scores 1, as in
// OSWorld). The texts are made in the task's box, python3 with lxml: the two
// files are copied into a new folder of its home, removed afterwards.
func compareEpub(ctx context.Context, c Call) (Score, error) {
	res, ok, err := pathArg(c.Result, "compare_epub")
	if err != nil {
		return Score{}, err
	}
	if !ok {
		return Score{Note: "the result file does not exist"}, nil
	}
	exp, ok, err := pathArg(c.Expected, "compare_epub")
	if err != nil {
		return Score{}, err
	}
	if !ok {
		return Score{}, errNoExpected
	}
	folder, inBox, err := boxFolder(c.Env, ".osworld-epub-", [][2]string{{res, "result.epub"}, {exp, "expected.epub"}})
	if err != nil {
		return Score{}, fmt.Errorf("compare_epub: %w", err)
	}
	defer os.RemoveAll(folder)
	r, err := c.Env.Exec(ctx, []any{"python3", "-I", "-c", pyEpubText, inBox + "/texts.json", inBox + "/result.epub", inBox + "/expected.epub"}, false)
	if err != nil {
		return Score{}, fmt.Errorf("compare_epub: %w", err)
	}
	if r.Code != 0 {
		return Score{}, fmt.Errorf("compare_epub: reading the epubs failed (exit %d): %s", r.Code, stderrLine(r.Stderr))
	}
	var texts [][]string
	if err := readBoxJSON(folder, "texts.json", &texts); err != nil || len(texts) != 2 {
		return Score{}, fmt.Errorf("compare_epub: the epubs' texts: %v", err)
	}
	v, worst := 1.0, ""
	for i := range min(len(texts[0]), len(texts[1])) {
		// as diff_text_file reads the files process_epub wrote
		r := seqRatio(splitLines(universalNewlines(texts[0][i])), splitLines(universalNewlines(texts[1][i])))
		if r < 1 && worst == "" {
			worst = fmt.Sprintf("file %d of the result is %.3f similar", i+1, r)
		}
		v *= r
	}
	return Score{Value: v, Note: worst}, nil
}
