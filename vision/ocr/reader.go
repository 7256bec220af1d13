package ocr

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"image"
	"math"
	"runtime"
	"slices"
	"sync"
)

// ErrClosed is returned by Read after Close.
var ErrClosed = errors.New("ocr: reader closed")

// Limits on what Read accepts and keeps.
const (
	// MaxSide is the largest frame width or height Read accepts, in pixels.
	MaxSide = 16384
	// maxWordsPerSegment bounds what one segment may contribute (noise can
	// make Tesseract see thousands of one-letter words).
	maxWordsPerSegment = 4000
)

// Tiling parameters, in frame pixels.
const (
	bandHeight = 160 // rows a band owns
	overlap    = 24  // rows a band window reaches into each neighbour: lines up to 48 px tall are read whole
	minGutter  = 24  // blank columns that split a window into segments
	rowGap     = 3   // lines on one row closer than this many heights are joined
)

// Options configures a Reader. The zero value is the default.
type Options struct {
	// Scale is how many times segments are enlarged before Tesseract reads
	// them, 1..4; 0 means 2, which small bitmap UI fonts (Xaw's buttons)
	// need.
	Scale float64
	// Workers is how many Tesseract instances read segments in parallel;
	// 0 means the number of CPUs, at most 4. Each holds about 15 MB.
	Workers int
	// CacheEntries bounds the cache of bands and segments read (least
	// recently used dropped first); 0 means 2048, a few MB.
	CacheEntries int
}

func (o Options) withDefaults() Options {
	if o.Scale <= 0 {
		o.Scale = 2
	}
	o.Scale = min(max(o.Scale, 1), 4)
	if o.Workers <= 0 {
		o.Workers = min(runtime.NumCPU(), 4)
	}
	if o.CacheEntries <= 0 {
		o.CacheEntries = 2048
	}
	return o
}

// Stats counts what a Reader did since New.
type Stats struct {
	// Reads is the number of Read calls that returned a Text.
	Reads int64
	// Recognized is the number of segments Tesseract read (engine calls).
	Recognized int64
	// SegmentHits is the number of segments taken from the cache.
	SegmentHits int64
	// BandHits is the number of bands taken from the cache whole.
	BandHits int64
}

// Reader reads the text of frames with Tesseract, caching what it read by
// region so that an unchanged region is never read twice. It is safe for
// concurrent use; Close frees it.
//
// Read stops waiting as soon as its ctx ends. Tesseract itself cannot be
// interrupted, so a segment already being read finishes in the background
// (segments are at most one band of 208 rows) and its result is cached for
// the next Read; queued segments of a cancelled Read are dropped.
type Reader struct {
	opts    Options
	seed    maphash.Seed
	factory engineFactory

	startOnce sync.Once
	ready     chan struct{} // closed when every worker has its engine, or one failed
	initErr   error         // set before ready is closed
	jobs      chan job
	done      chan struct{} // closed by Close
	workers   sync.WaitGroup
	closeOnce sync.Once

	mu       sync.Mutex
	cache    *lru
	inflight map[key]*call
	stats    Stats
}

// New returns a Reader, or an error wrapping ErrUnavailable when this build
// or machine cannot run Tesseract. Engines start on the first Read.
func New(o Options) (*Reader, error) {
	o = o.withDefaults()
	f, err := defaultEngine()
	if err != nil {
		return nil, err
	}
	return newReader(o, f), nil
}

func newReader(o Options, f engineFactory) *Reader {
	return &Reader{
		opts:     o,
		seed:     maphash.MakeSeed(),
		factory:  f,
		ready:    make(chan struct{}),
		jobs:     make(chan job, 1024),
		done:     make(chan struct{}),
		cache:    newLRU(o.CacheEntries),
		inflight: map[key]*call{},
	}
}

// Stats returns the counters so far.
func (r *Reader) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

// Close stops the workers (after the segment each is reading) and frees the
// engines. Later Reads return ErrClosed. Safe to call twice.
func (r *Reader) Close() error {
	r.closeOnce.Do(func() { close(r.done) })
	r.startOnce.Do(func() { close(r.ready) }) // never started: nothing to wait for
	r.workers.Wait()
	return nil
}

// Read returns the text of frame. Boxes are in frame's pixels (see Text).
// It blocks until every changed region is read or ctx ends; the error is then
// ctx's. An empty frame gives an empty Text.
func (r *Reader) Read(ctx context.Context, frame *image.RGBA) (*Text, error) {
	if frame == nil {
		return nil, errors.New("ocr: read: nil frame")
	}
	b := frame.Rect
	if b.Dx() > MaxSide || b.Dy() > MaxSide {
		return nil, fmt.Errorf("ocr: read: frame %dx%d is larger than %dx%d", b.Dx(), b.Dy(), MaxSide, MaxSide)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := r.start(ctx); err != nil {
		return nil, err
	}
	var lines []Line
	for _, bd := range bands(b, bandHeight, overlap) {
		inWindow, err := r.readBand(ctx, frame, bd)
		if err != nil {
			return nil, err
		}
		for _, l := range inWindow {
			if l, ok := own(translate(l, bd.window.Min), bd.core); ok {
				lines = append(lines, l)
			}
		}
	}
	sortLines(lines)
	r.mu.Lock()
	r.stats.Reads++
	r.mu.Unlock()
	return &Text{Bounds: b, Lines: mergeRows(lines, rowGap)}, nil
}

// readBand returns the lines read in the band's window, relative to the
// window's origin: from the cache when the window is unchanged, else from its
// segments.
func (r *Reader) readBand(ctx context.Context, frame *image.RGBA, bd band) ([]Line, error) {
	k := hashRect(r.seed, kindBand, frame, bd.window)
	if lines, ok := r.cached(k); ok {
		r.count(func(s *Stats) { s.BandHits++ })
		return lines, nil
	}
	ink := prepare(frame, bd.window)
	segs := segments(ink, minGutter)
	segs = toCore(ink, segs, bd.core.Sub(bd.window.Min))
	calls := make([]*call, len(segs))
	// Submit the biggest segments first so the workers finish together.
	order := make([]int, len(segs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return area(segs[b]) - area(segs[a])
	})
	for _, i := range order {
		c, err := r.segment(ctx, frame, ink, bd.window.Min, segs[i])
		if err != nil {
			return nil, err
		}
		calls[i] = c
	}
	var lines []Line
	for i, c := range calls {
		got, err := r.wait(ctx, c, func() (*call, error) { return r.segment(ctx, frame, ink, bd.window.Min, segs[i]) })
		if err != nil {
			return nil, err
		}
		for _, l := range got {
			lines = append(lines, translate(l, segs[i].Min))
		}
	}
	r.store(k, lines)
	return lines, nil
}

// segment returns the call that reads segment seg (window coordinates) of
// the window at origin: a finished call from the cache, the call already
// reading the same pixels, or a new call queued for the workers.
func (r *Reader) segment(ctx context.Context, frame *image.RGBA, ink *image.Gray, origin image.Point, seg image.Rectangle) (*call, error) {
	k := hashRect(r.seed, kindSegment, frame, seg.Add(origin))
	r.mu.Lock()
	if lines, ok := r.cache.get(k); ok {
		r.stats.SegmentHits++
		r.mu.Unlock()
		return finished(lines), nil
	}
	if c, ok := r.inflight[k]; ok {
		r.mu.Unlock()
		return c, nil
	}
	c := &call{key: k, done: make(chan struct{})}
	r.inflight[k] = c
	r.mu.Unlock()
	j := job{ctx: ctx, img: ink.SubImage(seg).(*image.Gray), call: c}
	select {
	case r.jobs <- j:
		return c, nil
	case <-ctx.Done():
		r.finish(c, nil, ctx.Err())
		return nil, ctx.Err()
	case <-r.done:
		r.finish(c, nil, ErrClosed)
		return nil, ErrClosed
	}
}

// wait returns the lines of c once it finishes. When c failed because the
// Read that queued it was cancelled while this one still runs, the segment is
// queued again with again.
func (r *Reader) wait(ctx context.Context, c *call, again func() (*call, error)) ([]Line, error) {
	for {
		select {
		case <-c.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-r.done:
			return nil, ErrClosed
		}
		if c.err == nil {
			return c.lines, nil
		}
		if !isContextErr(c.err) || ctx.Err() != nil {
			return nil, c.err
		}
		var err error
		if c, err = again(); err != nil {
			return nil, err
		}
	}
}

func (r *Reader) cached(k key) ([]Line, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cache.get(k)
}

func (r *Reader) store(k key, lines []Line) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cache.put(k, lines)
}

func (r *Reader) count(f func(*Stats)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(&r.stats)
}

// finish records the outcome of c, caches its lines, and wakes its waiters.
func (r *Reader) finish(c *call, lines []Line, err error) {
	r.mu.Lock()
	if err == nil {
		r.cache.put(c.key, lines)
	}
	delete(r.inflight, c.key)
	r.mu.Unlock()
	c.lines, c.err = lines, err
	close(c.done)
}

// call is one segment being read; lines and err are set before done closes.
type call struct {
	key   key
	done  chan struct{}
	lines []Line // relative to the segment's origin
	err   error
}

// finished returns a call that is already done with lines.
func finished(lines []Line) *call {
	c := &call{done: make(chan struct{}), lines: lines}
	close(c.done)
	return c
}

// job is a prepared segment for a worker.
type job struct {
	ctx  context.Context // of the Read that queued it: skipped once it ends
	img  *image.Gray
	call *call
}

// start starts the workers once and waits until their engines are ready.
func (r *Reader) start(ctx context.Context) error {
	r.startOnce.Do(func() {
		errs := make(chan error, r.opts.Workers)
		for range r.opts.Workers {
			r.workers.Add(1)
			go r.work(errs)
		}
		go func() {
			var first error
			for range r.opts.Workers {
				if err := <-errs; err != nil && first == nil {
					first = err
				}
			}
			r.initErr = first
			close(r.ready)
		}()
	})
	select {
	case <-r.ready:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-r.done:
		return ErrClosed
	default:
	}
	return r.initErr
}

// work is one worker: it owns an engine on a locked OS thread (Tesseract's
// thread settings are per thread) and reads jobs until Close.
func (r *Reader) work(ready chan<- error) {
	defer r.workers.Done()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	e, err := r.factory()
	ready <- err
	if err != nil {
		return
	}
	defer e.close()
	<-r.ready
	if r.initErr != nil {
		return
	}
	for {
		select {
		case <-r.done:
			return
		case j := <-r.jobs:
			if err := j.ctx.Err(); err != nil {
				r.finish(j.call, nil, err)
				continue
			}
			lines, err := r.read(j, e)
			r.finish(j.call, lines, err)
		}
	}
}

// read recognises job j's segment with e, enlarged by Options.Scale.
//
// Reading at screen size first and enlarging only the doubtful rows was
// tried: on the busy fixture it cost 8% more CPU than always enlarging (the
// first pass is not cheap: Tesseract's time goes to the LSTM, which works on
// lines normalised to its own height, not to pixels, so reading at screen
// size saved only 23%) and it still missed Xaw's labels when their first
// reading looked confident.
func (r *Reader) read(j job, e engine) ([]Line, error) {
	img := j.img
	if r.opts.Scale != 1 {
		img = upscale(j.img, j.img.Rect, r.opts.Scale)
	}
	words, err := e.recognize(img, r.opts.Scale)
	r.count(func(s *Stats) { s.Recognized++ })
	if err != nil {
		return nil, err
	}
	return toLines(words, r.opts.Scale), nil
}

// toLines groups the engine's words into lines, with boxes scaled back to
// frame pixels relative to the segment's origin.
func toLines(words []rawWord, scale float64) []Line {
	if len(words) > maxWordsPerSegment {
		words = words[:maxWordsPerSegment]
	}
	type id struct{ block, para, line int }
	var order []id
	groups := map[id][]Word{}
	for _, w := range words {
		k := id{w.block, w.para, w.line}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		box := image.Rect(int(float64(w.box.Min.X)/scale), int(float64(w.box.Min.Y)/scale),
			int(math.Ceil(float64(w.box.Max.X)/scale)), int(math.Ceil(float64(w.box.Max.Y)/scale)))
		conf := min(max(w.conf/100, 0), 1)
		groups[k] = append(groups[k], Word{Text: w.text, Box: box, Conf: conf})
	}
	lines := make([]Line, 0, len(order))
	for _, k := range order {
		lines = append(lines, newLine(groups[k]))
	}
	return lines
}

// own returns the part of l that belongs to a band's core. A line belongs
// whole to the band whose core holds its centre, so both bands that read it
// decide alike. Tesseract sometimes joins a line cut by the window's edge with
// the line next to it, giving a line much taller than its words; such a line
// is split by word, each word going where its own centre lies (the neighbour
// band reads the cut line whole and owns its words).
func own(l Line, core image.Rectangle) (Line, bool) {
	in := func(r image.Rectangle) bool {
		c := center(r)
		return c.Y >= core.Min.Y && c.Y < core.Max.Y
	}
	heights := make([]int, len(l.Words))
	for i, w := range l.Words {
		heights[i] = w.Box.Dy()
	}
	slices.Sort(heights)
	if float64(l.Box.Dy()) <= 1.5*float64(heights[len(heights)/2]) {
		return l, in(l.Box)
	}
	var words []Word
	for _, w := range l.Words {
		if in(w.Box) {
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return Line{}, false
	}
	return newLine(words), true
}

// translate returns l moved by d.
func translate(l Line, d image.Point) Line {
	words := make([]Word, len(l.Words))
	for i, w := range l.Words {
		w.Box = w.Box.Add(d)
		words[i] = w
	}
	l.Words = words
	l.Box = l.Box.Add(d)
	return l
}

func area(r image.Rectangle) int { return r.Dx() * r.Dy() }

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// resetCache forgets everything read (benchmarks of fresh reads).
func (r *Reader) resetCache() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cache = newLRU(r.opts.CacheEntries)
}
