package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"deskpilot/agent/secret"

	"deskpilot/vision"
)

// File names inside a trace folder.
const (
	EventsFile = "trace.jsonl" // one JSON event per line
	ReportFile = "report.html" // self-contained viewer, written by Close
	FramesDir  = "frames"      // frames/NNNN.png, frames/NNNN-K.png (.jpeg, .webp)
)

// maxSlug is the longest task slug in a folder name, in bytes.
const maxSlug = 40

// Writer records one run into its own folder. All methods are safe for concurrent use:
// lines never interleave and frame names never collide.
//
// Every event goes to the operating system as one write(2) of a whole line before
// Write returns, and the file is fsynced at the end of each step (observation,
// final_answer, paused, run_end), so a killed process leaves a valid trace up to its
// last event and a crashed machine one up to its last finished step.
//
// Frames are content-addressed within a run: an image equal to one stored before (the
// screen did not change, the model was sent the same picture) is not written again,
// and its earlier path is returned instead.
type Writer struct {
	dir string
	now func() time.Time
	crc *crc32.Table // CRC-32C: the checksum the CPU computes fastest

	encMu sync.Mutex     // guards enc
	enc   vision.Encoder // PNG of full frames; remembers the last frame's bands

	mu       sync.Mutex // guards everything below
	f        *os.File
	red      redactor
	frames   map[int]int       // frames written per step
	stored   map[uint32]string // CRC-32C of a stored file's bytes -> its path
	closed   bool
	closeErr error
}

// Option configures a Writer.
type Option func(*Writer)

// WithClock makes the Writer stamp events and name its folder with now instead of
// time.Now, so tests and goldens are deterministic.
func WithClock(now func() time.Time) Option {
	return func(w *Writer) { w.now = now }
}

// WithSecrets registers strings that must never appear in the trace (API keys,
// type_secret values): every occurrence in any string field of any event is replaced
// by "[redacted]" before the line is written. Empty strings are ignored.
func WithSecrets(secrets ...string) Option {
	return func(w *Writer) { w.red.add(secrets...) }
}

// WithRedactor makes the Writer redact events with r, the agent's (shared
// with the model, the terminal and the app), instead of a redactor of its own:
// named secrets then show as [secret:NAME]. Values WithSecrets and AddSecrets
// give are added to r.
func WithRedactor(r *secret.Redactor) Option {
	return func(w *Writer) {
		if r != nil {
			w.red.use(r)
		}
	}
}

// Create makes a new trace folder <root>/<UTC start time>-<task slug>/ (a numeric suffix
// keeps it unique), opens trace.jsonl and writes start as its first line. start.Type
// may be empty; V is set to Version; a zero start.T is taken from the clock. The
// folder and files are private to the user (0700/0600): frames show the desktop.
func Create(root string, start Event, opts ...Option) (*Writer, error) {
	w := &Writer{now: time.Now, crc: crc32.MakeTable(crc32.Castagnoli), frames: map[int]int{}, stored: map[uint32]string{}}
	for _, o := range opts {
		o(w)
	}
	if start.Type == "" {
		start.Type = TypeRunStart
	}
	if start.Type != TypeRunStart {
		return nil, fmt.Errorf("trace: create: first event is %q, want %q", start.Type, TypeRunStart)
	}
	start.V = Version
	if start.T.IsZero() {
		start.T = w.now()
	}
	start.BaseURL = cleanURL(start.BaseURL)
	start = w.red.event(start)

	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("trace: create: %w", err)
	}
	dir, err := makeRunDir(root, start.T.UTC().Format("20060102T150405Z")+"-"+slug(start.Task))
	if err != nil {
		return nil, fmt.Errorf("trace: create: %w", err)
	}
	if err := os.Mkdir(filepath.Join(dir, FramesDir), 0o700); err != nil {
		return nil, fmt.Errorf("trace: create: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, EventsFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("trace: create: %w", err)
	}
	w.dir, w.f = dir, f
	if err := w.writeLocked(start); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// makeRunDir creates root/name, or root/name-2, root/name-3, ... when it exists.
func makeRunDir(root, name string) (string, error) {
	for i := 1; i <= 1000; i++ {
		dir := filepath.Join(root, name)
		if i > 1 {
			dir += "-" + strconv.Itoa(i)
		}
		err := os.Mkdir(dir, 0o700)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("no free folder name for %s", name)
}

// Dir is the trace folder.
func (w *Writer) Dir() string { return w.dir }

// AddSecrets registers more strings to redact from events written from now on (see
// WithSecrets).
func (w *Writer) AddSecrets(secrets ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.red.add(secrets...)
}

// Write appends e as one line. A zero e.T is stamped from the clock; times are written
// in UTC; secrets are redacted. run_start is written by Create only. Write after Close
// fails with an error wrapping fs.ErrClosed.
func (w *Writer) Write(e Event) error {
	if e.Type == "" || e.Type == TypeRunStart {
		return fmt.Errorf("trace: write: bad event type %q", e.Type)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fmt.Errorf("trace: write %s: %w", e.Type, fs.ErrClosed)
	}
	if e.T.IsZero() {
		e.T = w.now()
	}
	e.V = 0
	return w.writeLocked(w.red.event(e))
}

// writeLocked marshals e (already redacted) and writes it with one system call.
func (w *Writer) writeLocked(e Event) error {
	e.T = e.T.UTC()
	if e.Action != nil && !e.Action.Start.IsZero() {
		e.Action.Start = e.Action.Start.UTC() // e.Action is the redactor's copy
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return fmt.Errorf("trace: write %s: %w", e.Type, err)
	}
	if _, err := w.f.WriteString(b.String()); err != nil {
		return fmt.Errorf("trace: write %s: %w", e.Type, err)
	}
	switch e.Type {
	case TypeRunStart, TypeObservation, TypeFinalAnswer, TypePaused, TypeRunEnd:
		if err := w.f.Sync(); err != nil {
			return fmt.Errorf("trace: sync %s: %w", e.Type, err)
		}
	}
	return nil
}

// Frame stores img, a full-resolution screen, as frames/NNNN.png (NNNN = step) and
// returns that path relative to the trace folder, with forward slashes, for an event's
// Frame. Later files of the same step are NNNN-1.png, NNNN-2.png, ... When img equals
// an image stored before in this run (the screen did not change), nothing is written
// and the earlier path is returned, so an observation's frame may name a file of an
// earlier step.
//
// The PNG comes from vision's banded encoder, which compresses on every core and
// compresses again only the bands that changed since the previous Frame; call Frame
// off the agent's step path (the agent's recorder does). The file appears atomically
// under its final name.
func (w *Writer) Frame(step int, img image.Image) (string, error) {
	if err := w.check(step); err != nil {
		return "", err
	}
	if m, ok := img.(*image.RGBA); img == nil || ok && m == nil {
		return "", fmt.Errorf("trace: frame %d: no image", step)
	}
	w.encMu.Lock()
	data, err := w.enc.Encode(img)
	w.encMu.Unlock()
	if err != nil {
		return "", fmt.Errorf("trace: frame %d: %w", step, err)
	}
	return w.store(step, vision.FormatPNG.Ext(), data)
}

// FrameData stores an image that is already encoded, as it was sent to the model (the
// model's view, a zoom crop, a screenshot attachment), named like Frame with the
// extension ext ("png", "jpeg", "jpg" or "webp"), and returns its path relative to the
// trace folder for an event's ModelFrame or Attachments. It saves encoding the same
// image twice, and keeps what the model got byte for byte. Bytes equal to a file
// stored before in this run are not written again: the earlier path is returned.
func (w *Writer) FrameData(step int, data []byte, ext string) (string, error) {
	switch ext {
	case "png", "jpeg", "jpg", "webp":
	default:
		return "", fmt.Errorf("trace: frame %d: extension %q is not png, jpeg or webp", step, ext)
	}
	if err := w.check(step); err != nil {
		return "", err
	}
	return w.store(step, ext, data)
}

// check refuses a negative step and a closed Writer.
func (w *Writer) check(step int) error {
	if step < 0 {
		return fmt.Errorf("trace: frame: negative step %d", step)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fmt.Errorf("trace: frame %d: %w", step, fs.ErrClosed)
	}
	return nil
}

// store returns the path of a stored file holding exactly data, or names the next
// frame file of step and writes data into a temporary file renamed into place. The
// checksum only finds a candidate: a match is confirmed against the file's bytes, so a
// collision (even a crafted one) costs a read and a write, never a wrong frame.
func (w *Writer) store(step int, ext string, data []byte) (string, error) {
	h := crc32.Checksum(data, w.crc)
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return "", fmt.Errorf("trace: frame %d: %w", step, fs.ErrClosed)
	}
	prev, seen := w.stored[h]
	w.mu.Unlock()
	if seen && path.Ext(prev) == "."+ext {
		if old, err := os.ReadFile(filepath.Join(w.dir, filepath.FromSlash(prev))); err == nil && bytes.Equal(old, data) {
			return prev, nil
		}
	}

	w.mu.Lock()
	n := w.frames[step]
	w.frames[step] = n + 1
	w.mu.Unlock()
	name := fmt.Sprintf("%04d.%s", step, ext)
	if n > 0 {
		name = fmt.Sprintf("%04d-%d.%s", step, n, ext)
	}
	err := writeFile(filepath.Join(w.dir, FramesDir, name), func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("trace: frame %d: %w", step, err)
	}
	rel := path.Join(FramesDir, name)
	w.mu.Lock()
	w.stored[h] = rel
	w.mu.Unlock()
	return rel, nil
}

// writeFile writes full+".tmp" with write and renames it into place.
func writeFile(full string, write func(*os.File) error) error {
	tmp := full + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, full)
}

// Close syncs and closes trace.jsonl, then writes report.html from what was recorded.
// Calling it again returns the first call's result.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return w.closeErr
	}
	w.closed = true
	err := errors.Join(w.f.Sync(), w.f.Close())
	if err == nil {
		err = w.writeReport()
	}
	if err != nil {
		w.closeErr = fmt.Errorf("trace: close %s: %w", w.dir, err)
	}
	return w.closeErr
}

// writeReport renders report.html next to trace.jsonl.
func (w *Writer) writeReport() error {
	t, err := Read(w.dir)
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(w.dir, ReportFile), func(f *os.File) error { return Report(t, f) })
}

// slug turns a task into a folder-name part: lowercase ASCII letters and digits joined
// by single dashes, accents dropped, at most maxSlug bytes (cut between words where it
// can be); "run" when nothing is left.
func slug(task string) string {
	var b strings.Builder
	dash := false
	for _, r := range norm.NFKD.String(task) {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			need := 1
			if dash && b.Len() > 0 {
				need = 2
			}
			if b.Len()+need > maxSlug {
				out := b.String()
				if i := strings.LastIndexByte(out, '-'); need == 1 && i > 0 {
					out = out[:i] // do not end on a cut word
				}
				return finishSlug(out)
			}
			if need == 2 {
				b.WriteByte('-')
			}
			b.WriteRune(unicode.ToLower(r))
			dash = false
		case unicode.Is(unicode.Mn, r): // a combining accent of a decomposed letter
		default:
			dash = true
		}
	}
	return finishSlug(b.String())
}

func finishSlug(s string) string {
	if s == "" {
		return "run"
	}
	return s
}

// cleanURL drops credentials, query and fragment from an endpoint URL, where keys hide
// (https://user:key@host/v1?key=...). An unparsable URL is dropped entirely.
func cleanURL(s string) string {
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}
