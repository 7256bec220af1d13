// Package inspect is deskpilot's file inspector: it turns a file into
// markdown text the model can read — plain text in any common encoding,
// Markdown, CSV/TSV (as a table), JSON, XML, RSS/Atom (a list of items),
// HTML, PDF (text in reading order with page markers), DOCX (headings,
// lists, tables, links, comments, equations), XLSX (one table per sheet),
// PPTX (one section per slide, with notes and charts as tables), EPUB
// (chapters in order), Jupyter notebooks, Outlook messages, ZIP (a listing
// and its first members inline; any member through "archive.zip/member")
// and images (size and format, and through the injected model a caption or
// an answer). With a question, the text goes to the model (Options.Ask) and
// its answer comes back. docs/formats.md says how well each format is read.
//
// PDFs are read by PDFium compiled to WebAssembly (klippa-app/go-pdfium,
// run by wazero: pure Go, no cgo), started once per PDFEngine and pooled;
// the reading order (columns apart, paragraphs, hyphenation) is laid out
// here from PDFium's characters. Other libraries are used where they are
// well kept: excelize for XLSX, richardlehane/mscfb for Outlook's compound
// files, gogs/chardet (ICU's detector) with golang.org/x/text for legacy
// encodings, actions/browser for HTML. DOCX and PPTX are read by hand with
// archive/zip and encoding/xml: they are zips of XML, the text lives in a
// handful of well-documented elements, and a small streaming reader is easy
// to fuzz and to bound.
//
// Paths are checked before anything is read: symlinks are resolved, the file
// must lie inside an allowed root (the user's home and the run's downloads
// folder by default), must be a regular file (a named pipe or device would
// block), and credential stores are refused (DeniedPaths, DeniedNames, and
// any file that starts with a private key), as is deskpilot's own config.
// Corrupt files give an error naming the format; long files are shown a part
// (or a run of PDF pages) at a time with a note saying how to read on; each
// read is bounded in time (Options.MaxTime) and memory. An Inspector is safe
// for concurrent use; the package does not log.
package inspect

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// Defaults for Options fields left at their zero value.
const (
	DefaultMaxChars     = 200_000
	DefaultMaxFileBytes = 100 << 20 // 100 MiB
	DefaultMaxTime      = 60 * time.Second
)

// Image is an image handed to the model: PNG, JPEG, GIF or WebP bytes (other
// formats are converted to PNG first).
type Image struct {
	Name          string // file name, for the prompt
	MIME          string // "image/png", "image/jpeg", "image/gif" or "image/webp"
	Data          []byte
	Width, Height int // pixels
}

// Options configure an Inspector. The zero value inspects files under the
// user's home directory, with no model.
type Options struct {
	// Roots are the folders files may be read from; nil means the user's home.
	Roots []string
	// DownloadDir is the run's downloads folder; when set it is always an
	// allowed root.
	DownloadDir string
	// Deny lists paths refused in addition to the built-in credential list
	// (see DeniedPaths and DeniedNames).
	Deny []string
	// Allow lists paths the built-in credential list would refuse but the
	// person has chosen to let the agent read (e.g. "~/.aws/config"); a path
	// is allowed with everything below it. Deny and deskpilot's own config
	// folder still win.
	Allow []string
	// MaxChars caps the text returned or sent to the model at once, in
	// characters; 0 means 200,000. Longer text is shown a part at a time
	// (Request.Page), with a note saying how to read on.
	MaxChars int
	// MaxFileBytes caps the size of a file read whole (PDF, Office, archives,
	// images); 0 means 100 MiB. Text files are read only as far as needed.
	MaxFileBytes int64
	// MaxTime bounds the time spent opening and converting one file; 0 means
	// 60s. Past it the read fails with an error saying so.
	MaxTime time.Duration
	// Ask sends a question, the file's text and any images to the model and
	// returns its answer; nil means no model (questions get the text instead).
	Ask func(ctx context.Context, question, text string, images ...Image) (string, error)
	// OCR recognises the text of a page image, for PDFs without a text layer
	// (scanned documents); nil means no OCR, and such files say so.
	OCR func(ctx context.Context, img image.Image) (string, error)
	// PDF is the PDF engine; nil means one of the Inspector's own, started on
	// the first PDF. Share one engine per process: starting it costs up to
	// seconds.
	PDF *PDFEngine
	// Home is the user's home directory for "~" and the defaults; "" means
	// os.UserHomeDir().
	Home string
	// ConfigDir is the user's config directory; "" means os.UserConfigDir().
	ConfigDir string
}

// Inspector reads files for the agent. It is safe for concurrent use.
type Inspector struct {
	opts  Options
	home  string   // resolved
	roots []string // resolved
	deny  []string // resolved
	allow []string // resolved
	own   []string // deskpilot's config: refused whatever Allow says
	pdf   *PDFEngine
	open  func(path string, max int64) ([]byte, error) // blocking; run aside
}

// New returns an Inspector with o's defaults filled in. Roots that do not
// exist are ignored.
func New(o Options) *Inspector {
	if o.MaxChars <= 0 {
		o.MaxChars = DefaultMaxChars
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.MaxTime <= 0 {
		o.MaxTime = DefaultMaxTime
	}
	if o.Home == "" {
		o.Home, _ = os.UserHomeDir()
	}
	if o.ConfigDir == "" {
		if d, err := os.UserConfigDir(); err == nil {
			o.ConfigDir = d
		} else if o.Home != "" {
			o.ConfigDir = filepath.Join(o.Home, ".config")
		}
	}
	in := &Inspector{opts: o, pdf: o.PDF, open: readCapped}
	if in.pdf == nil {
		in.pdf = NewPDFEngine(PDFOptions{})
	}
	if o.Home != "" {
		in.home = resolved(o.Home)
	}
	roots := o.Roots
	if roots == nil && o.Home != "" {
		roots = []string{o.Home}
	}
	if o.DownloadDir != "" {
		roots = append(roots[:len(roots):len(roots)], o.DownloadDir)
	}
	for _, r := range roots {
		if p, err := realPath(in.expand(r)); err == nil {
			in.roots = append(in.roots, p)
		}
	}
	for _, d := range in.builtinDeny() {
		in.deny = append(in.deny, resolved(d))
	}
	for _, a := range o.Allow {
		in.allow = append(in.allow, resolved(in.expand(a)))
	}
	if o.ConfigDir != "" {
		in.own = append(in.own, resolved(filepath.Join(o.ConfigDir, "deskpilot")))
	}
	for _, d := range o.Deny {
		in.own = append(in.own, resolved(in.expand(d)))
	}
	return in
}

// resolved is p with symlinks resolved when it exists, else made absolute.
func resolved(p string) string {
	if r, err := realPath(p); err == nil {
		return r
	}
	if a, err := filepath.Abs(p); err == nil {
		return filepath.Clean(a)
	}
	return p
}

// Errors a path check returns, wrapped with the path; test with errors.Is.
var (
	ErrOutsideRoots = errors.New("outside the folders the inspector may read")
	ErrDenied       = errors.New("in a protected location")
	ErrNotRegular   = errors.New("not a regular file")
)

// FormatError reports a file whose content does not parse as its format.
type FormatError struct {
	Format string // "pdf", "docx", ...
	Name   string // file name
	Err    error
}

// Error implements error, e.g. "pdf: file is corrupt or truncated: a.pdf: ...".
func (e *FormatError) Error() string {
	if errors.Is(e.Err, errEncrypted) {
		return fmt.Sprintf("%s: file is password-protected: %s", e.Format, e.Name)
	}
	return fmt.Sprintf("%s: file is corrupt or truncated: %s: %v", e.Format, e.Name, e.Err)
}

// Unwrap returns the parser's error.
func (e *FormatError) Unwrap() error { return e.Err }

// UnsupportedError reports a file of a format the inspector cannot read.
type UnsupportedError struct{ Name, Ext string }

// Error implements error; it lists the supported formats.
func (e *UnsupportedError) Error() string {
	what := fmt.Sprintf("%q", e.Ext)
	if e.Ext == "" {
		what = "without an extension"
	}
	return fmt.Sprintf("inspect: cannot read %s: unsupported file format %s; supported: %s", e.Name, what, supportedList())
}

// Request is one read of a file.
type Request struct {
	// Path is the file: absolute, "~/...", relative to the first root, or a
	// member of a zip ("bundle.zip/docs/a.pdf").
	Path string
	// Question, when not blank, goes to the model with the file's text; the
	// answer comes back instead of the text.
	Question string
	// Page is where to start reading a long file, from 1 (0 means 1): for a
	// PDF the document page, for other files the part of MaxChars characters.
	Page int
}

// Result is what a read returns.
type Result struct {
	// Text is the file as markdown, or the model's answer to the question,
	// ending with a note on how to read on when more remains.
	Text string
	// Path is the file as resolved (symlinks followed), with "/member" for a
	// member of an archive.
	Path string
	// Format names the format read: "pdf", "docx", "text", "folder", ...
	Format string
	// UnderHome reports a file inside the user's home folder, so the agent
	// can ask before a run that read one sends data to a new site.
	UnderHome bool
	// Page and Pages say what was shown of a long file: for a PDF the last
	// document page shown and the page count, for other files the part shown
	// and the number of parts (1 and 1 for a short file).
	Page, Pages int
}

// Inspect returns path's content as markdown, or, with a question, the
// model's answer about it: Read with the first page.
func (in *Inspector) Inspect(ctx context.Context, path, question string) (string, error) {
	r, err := in.Read(ctx, Request{Path: path, Question: question})
	return r.Text, err
}

// Read reads a file as the request says: its text, or the model's answer to
// a question about it. Opening and converting stop at MaxTime and when ctx
// ends.
func (in *Inspector) Read(ctx context.Context, req Request) (Result, error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, in.opts.MaxTime)
	defer cancel()
	if req.Page < 0 {
		return Result{}, fmt.Errorf("inspect: page %d: pages start at 1", req.Page)
	}
	req.Page = max(req.Page, 1)
	f, err := in.load(ctx, req)
	if err != nil {
		if parent.Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return Result{}, fmt.Errorf("inspect: %s: reading took longer than the %s allowed for one file: %w", filepath.Base(req.Path), in.opts.MaxTime, context.DeadlineExceeded)
		}
		return Result{}, err
	}
	res := Result{Path: f.path, Format: f.format, UnderHome: in.home != "" && within(f.real, in.home), Page: 1, Pages: 1}
	question := strings.TrimSpace(req.Question)
	if f.image != nil {
		res.Text, err = in.describeImage(ctx, f, question)
		return res, err
	}
	text, note := in.window(f, req, &res)
	if question == "" {
		res.Text = text + note
		return res, nil
	}
	if in.opts.Ask == nil {
		res.Text = "No model is configured to answer questions about files, so here is the file's text instead.\n\n" + text + note
		return res, nil
	}
	answer, err := in.opts.Ask(ctx, question, fmt.Sprintf("File: %s (%s)\n\n%s", f.name, f.format, text), f.images...)
	if err != nil {
		return Result{}, fmt.Errorf("inspect: ask the model about %s: %w", f.name, err)
	}
	if note != "" {
		answer = "Note: the model read only part of the file." + note + "\n\n" + answer
	}
	res.Text = answer
	return res, nil
}

// window picks the part of the file's text to show and the note saying how
// to read on.
func (in *Inspector) window(f *file, req Request, res *Result) (string, string) {
	max := in.opts.MaxChars
	if f.pdfPages > 0 {
		res.Page, res.Pages = f.lastPage, f.pdfPages
		text, cut := truncate(f.text, max)
		var note string
		switch {
		case f.firstPage > f.pdfPages:
			return fmt.Sprintf("The document has %d pages; there is no page %d.", f.pdfPages, f.firstPage), ""
		case cut:
			note = fmt.Sprintf("\n\n[Page %d is cut at %d characters. Read on with inspect_file(%q, page=%d).]", f.lastPage, max, f.path, f.lastPage+1)
		case f.lastPage < f.pdfPages:
			note = fmt.Sprintf("\n\n[Pages %d–%d of %d shown. Read on with inspect_file(%q, page=%d).]", f.firstPage, f.lastPage, f.pdfPages, f.path, f.lastPage+1)
		}
		if cut && f.lastPage >= f.pdfPages {
			note = fmt.Sprintf("\n\n[The last page is cut at %d characters.]", max)
		}
		return text, note
	}
	parts := splitParts(f.text, max)
	res.Pages = len(parts)
	if req.Page > len(parts) {
		res.Page = req.Page
		return fmt.Sprintf("The text has %d part(s) of up to %d characters; there is no part %d.", len(parts), max, req.Page), ""
	}
	res.Page = req.Page
	text := parts[req.Page-1]
	if len(parts) == 1 {
		return text, ""
	}
	note := fmt.Sprintf("\n\n[Part %d of %d of the text (up to %d characters each).", req.Page, len(parts), max)
	if req.Page < len(parts) {
		note += fmt.Sprintf(" Read on with inspect_file(%q, page=%d).]", f.path, req.Page+1)
	} else {
		note += " This is the end.]"
	}
	return text, note
}

// splitParts cuts s into pieces of at most max characters, each ending at a
// line break when one falls in its last tenth.
func splitParts(s string, max int) []string {
	var parts []string
	for {
		head, cut := truncate(s, max)
		if !cut {
			return append(parts, s)
		}
		if i := strings.LastIndexByte(head, '\n'); i > len(head)*9/10 {
			head = head[:i+1]
		}
		parts = append(parts, head)
		s = s[len(head):]
	}
}

// truncate cuts s to max characters.
func truncate(s string, max int) (string, bool) {
	if len(s) <= max || utf8.RuneCountInString(s) <= max {
		return s, false
	}
	i, n := 0, 0
	for i < len(s) && n < max {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
		n++
	}
	return s[:i], true
}

// file is a loaded and converted file.
type file struct {
	name   string // base name (of the member, for archives)
	path   string // as resolved, for messages
	real   string // the file on disk (the archive, for a member)
	format string // "pdf", "text", ...
	text   string
	image  *imageFile
	images []Image // page images for the model (PDFs without text)

	pdfPages, firstPage, lastPage int // PDFs: page count and pages read
}

// load checks path, reads it and converts it to text.
func (in *Inspector) load(ctx context.Context, req Request) (*file, error) {
	loc, err := in.locate(req.Path)
	if err != nil {
		return nil, err
	}
	if loc.dir {
		text, err := listDir(loc.real)
		if err != nil {
			return nil, fmt.Errorf("inspect: %w", err)
		}
		return &file{name: filepath.Base(loc.real), path: loc.real, real: loc.real, format: "folder", text: text}, nil
	}
	name, data, err := in.read(ctx, loc)
	if err != nil {
		return nil, err
	}
	display := loc.real
	if loc.member != "" {
		display += "/" + loc.member
	}
	if isPrivateKey(data) {
		return nil, fmt.Errorf("inspect: %s holds a private key: it is %w; the inspector never reads it", req.Path, ErrDenied)
	}
	f, err := in.convert(ctx, display, name, data, req)
	if err != nil {
		return nil, err
	}
	f.real = loc.real
	return f, nil
}
