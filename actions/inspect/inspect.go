// Package inspect is deskpilot's file inspector: it turns a file into
// markdown text the model can read — plain text, Markdown, CSV/TSV (as a
// table), JSON, XML, HTML, PDF (text in reading order with page markers),
// DOCX (headings, lists, tables, links), XLSX (one table per sheet), PPTX (one
// section per slide, with notes), ZIP (a listing; members are read through
// "archive.zip/member" paths) and images (size and format, and through the
// injected model a caption or an answer). With a question, the text goes to
// the model (Options.Ask) and its answer comes back.
//
// Libraries are used where they are well kept: excelize for XLSX,
// JohannesKaufmann/html-to-markdown (through actions/browser) for HTML,
// ledongthuc/pdf for parsing PDF (the line layout is ours). DOCX and PPTX are
// read by hand with archive/zip and encoding/xml: they are zips of XML, the
// text lives in a handful of well-documented elements, and no pure-Go library
// for them is both maintained and free of cgo or licence strings; a small
// streaming reader is also easy to fuzz and to bound.
//
// Paths are checked before anything is read: symlinks are resolved, the file
// must lie inside an allowed root (the user's home and the run's downloads
// folder by default), and credential stores (~/.ssh, ~/.gnupg, keyrings) and
// deskpilot's own config are refused. Corrupt files give an error naming the
// format; huge files are truncated with a notice. An Inspector is safe for
// concurrent use; the package does not log.
package inspect

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Defaults for Options fields left at their zero value.
const (
	DefaultMaxChars     = 200_000
	DefaultMaxFileBytes = 100 << 20 // 100 MiB
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
	// Deny lists paths refused in addition to the built-in ones, which cannot
	// be turned off: ~/.ssh, ~/.gnupg, ~/.local/share/keyrings,
	// ~/.password-store, ~/.aws, ~/.kube, ~/.docker, ~/.netrc and deskpilot's
	// config folder ($XDG_CONFIG_HOME/deskpilot).
	Deny []string
	// MaxChars caps the text returned or sent to the model, in characters;
	// 0 means 200,000. Longer text is cut with a notice.
	MaxChars int
	// MaxFileBytes caps the size of a file read whole (PDF, Office, archives,
	// images); 0 means 100 MiB. Text files are read only as far as needed.
	MaxFileBytes int64
	// Ask sends a question, the file's text and any images to the model and
	// returns its answer; nil means no model (questions get the text instead).
	Ask func(ctx context.Context, question, text string, images ...Image) (string, error)
	// Home is the user's home directory for "~" and the defaults; "" means
	// os.UserHomeDir().
	Home string
	// ConfigDir is the user's config directory; "" means os.UserConfigDir().
	ConfigDir string
}

// Inspector reads files for the agent. It is safe for concurrent use.
type Inspector struct {
	opts  Options
	roots []string // resolved
	deny  []string // resolved
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
	in := &Inspector{opts: o}
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
	for _, d := range append(in.builtinDeny(), o.Deny...) {
		if p, err := realPath(in.expand(d)); err == nil {
			in.deny = append(in.deny, p)
		} else if p, err := filepath.Abs(in.expand(d)); err == nil {
			in.deny = append(in.deny, filepath.Clean(p))
		}
	}
	return in
}

func (in *Inspector) builtinDeny() []string {
	var d []string
	if h := in.opts.Home; h != "" {
		for _, p := range []string{".ssh", ".gnupg", ".local/share/keyrings", ".password-store", ".aws", ".kube", ".docker", ".netrc"} {
			d = append(d, filepath.Join(h, p))
		}
	}
	if in.opts.ConfigDir != "" {
		d = append(d, filepath.Join(in.opts.ConfigDir, "deskpilot"))
	}
	return d
}

// Errors a path check returns, wrapped with the path; test with errors.Is.
var (
	ErrOutsideRoots = errors.New("outside the folders the inspector may read")
	ErrDenied       = errors.New("in a protected location")
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

// Inspect returns path's content as markdown, or, with a question, the
// model's answer about it. path may be "~/..." or relative to the first root,
// and may name a member of a zip ("bundle.zip/docs/a.pdf").
func (in *Inspector) Inspect(ctx context.Context, path, question string) (string, error) {
	f, err := in.load(ctx, path)
	if err != nil {
		return "", err
	}
	if f.image != nil {
		return in.describeImage(ctx, f, strings.TrimSpace(question))
	}
	text, truncated := truncate(f.text, in.opts.MaxChars)
	question = strings.TrimSpace(question)
	if question == "" {
		if truncated {
			text += fmt.Sprintf("\n\n[Truncated: the text is longer than %d characters; only the first %d are shown.]", in.opts.MaxChars, in.opts.MaxChars)
		}
		return text, nil
	}
	if in.opts.Ask == nil {
		return "No model is configured to answer questions about files, so here is the file's text instead.\n\n" + text, nil
	}
	answer, err := in.opts.Ask(ctx, question, fmt.Sprintf("File: %s (%s)\n\n%s", f.name, f.format, text))
	if err != nil {
		return "", fmt.Errorf("inspect: ask the model about %s: %w", f.name, err)
	}
	if truncated {
		answer = fmt.Sprintf("Note: the file's text was truncated to its first %d characters before the model read it.\n\n%s", in.opts.MaxChars, answer)
	}
	return answer, nil
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
	format string // "pdf", "text", ...
	text   string
	image  *imageFile
}

// load checks path, reads it and converts it to text.
func (in *Inspector) load(ctx context.Context, path string) (*file, error) {
	loc, err := in.locate(path)
	if err != nil {
		return nil, err
	}
	if loc.dir {
		text, err := listDir(loc.real)
		if err != nil {
			return nil, fmt.Errorf("inspect: %w", err)
		}
		return &file{name: filepath.Base(loc.real), path: loc.real, format: "folder", text: text}, nil
	}
	name, data, err := in.read(loc)
	if err != nil {
		return nil, err
	}
	display := loc.real
	if loc.member != "" {
		display += "/" + loc.member
	}
	return in.convert(ctx, display, name, data)
}
