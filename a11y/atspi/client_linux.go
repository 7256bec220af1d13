package atspi

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"strings"
	"sync"
	"time"

	"deskpilot/a11y"
)

// maxApps bounds the applications one walk considers.
const maxApps = 256

// appWorkers is how many applications are read at once.
const appWorkers = 4

// Client reads the accessibility tree of one X display. It is safe for concurrent
// use; Close releases it.
type Client struct {
	o      Options
	bus    *busConn
	x      *xview
	bounds image.Rectangle

	mu   sync.Mutex
	hung map[string]time.Time // bus name -> when it last let a call expire
	big  map[string]bool      // bus names whose cache exceeded MaxNodes

	closeOnce sync.Once
}

// Connect opens the X display and the accessibility bus (see the package doc for
// how the bus is found) and checks that the AT-SPI registry answers. It fails with an
// *a11y.UnavailableError when there is no display, no bus or no registry.
func Connect(ctx context.Context, o Options) (*Client, error) {
	o = o.withDefaults()
	x, err := openX(o.XDisplay, o.XAuthority)
	if err != nil {
		return nil, &a11y.UnavailableError{Reason: fmt.Sprintf("cannot open X display %q", o.XDisplay), Err: err}
	}
	bus, err := connectA11y(ctx, o, x.busProperty)
	if err != nil {
		x.close()
		return nil, err
	}
	c := &Client{o: o, bus: bus, x: x, bounds: o.Bounds,
		hung: map[string]time.Time{}, big: map[string]bool{}}
	if c.bounds.Empty() {
		c.bounds = x.size
	}
	return c, nil
}

// Close closes the bus and display connections. Calls after Close fail.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.bus.close()
		c.x.close()
	})
	return nil
}

// Elements reads the visible elements of the display's applications and returns
// those q selects, ordered as a11y.Match orders them. The a11y.Note says what was cut or
// skipped. The error is a *a11y.QueryError for a bad query, ctx's error when ctx ended,
// an *a11y.UnavailableError when the registry does not answer; an application that fails
// is only skipped.
func (c *Client) Elements(ctx context.Context, q a11y.Query) ([]a11y.Element, a11y.Note, error) {
	if _, err := a11y.Match(nil, q); err != nil {
		return nil, a11y.Note{}, err
	}
	all, note, err := c.walk(ctx)
	if err != nil {
		return nil, note, err
	}
	out, err := a11y.Match(all, q)
	return out, note, err
}

// registered is an application the registry lists.
type registered struct {
	root ref
	pid  int
}

// walk reads every visible element of the display, in registry then tree order.
func (c *Client) walk(ctx context.Context) ([]a11y.Element, a11y.Note, error) {
	var note a11y.Note
	w := &walker{conn: c.bus.Conn, o: c.o, caller: ctx, bounds: c.bounds}
	var cancel context.CancelFunc
	w.ctx, cancel = context.WithTimeout(ctx, c.o.MaxTime)
	defer cancel()
	w.budget.Store(int64(c.o.MaxNodes))
	apps, err := c.applications(w)
	if err != nil {
		return nil, note, err
	}
	plans, err := c.plan(apps, &note)
	if err != nil {
		return nil, note, err
	}
	results := make([]appResult, len(plans))
	sem := make(chan struct{}, appWorkers)
	var wg sync.WaitGroup
	for i, p := range plans {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = c.readApp(w, p)
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, note, fmt.Errorf("a11y: elements: %w", err)
	}
	var all []a11y.Element
	timeUp := false
	for _, r := range results {
		note.Nodes += r.nodes
		timeUp = timeUp || r.timeUp
		switch {
		case r.skip != nil:
			note.Skipped = append(note.Skipped, *r.skip)
		case r.other:
			note.OtherDisplay++
		case len(r.elems) > 0 || !r.timeUp:
			note.Apps++
		}
		all = append(all, r.elems...)
		for _, cut := range r.cut {
			note.Cut = appendOnce(note.Cut, cut)
		}
	}
	if timeUp {
		note.Cut = appendOnce(note.Cut, fmt.Sprintf("time limit %v reached", c.o.MaxTime))
	}
	return all, note, nil
}

// applications lists the registry's applications with their process ids.
func (c *Client) applications(w *walker) ([]registered, error) {
	var kids []objRef
	list := &dcall{bus: registryName, path: registryRoot, method: ifAccessible + ".GetChildren", out: &kids}
	err := w.do([]*dcall{list})
	if err == nil {
		err = list.err
	}
	if err != nil {
		if w.caller.Err() != nil {
			return nil, fmt.Errorf("a11y: elements: %w", w.caller.Err())
		}
		return nil, &a11y.UnavailableError{Reason: "the AT-SPI registry does not answer", Err: err}
	}
	kids = kids[:min(len(kids), maxApps)]
	pids := make([]uint32, len(kids))
	calls := make([]*dcall, len(kids))
	for i, k := range kids {
		calls[i] = &dcall{bus: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
			method: "org.freedesktop.DBus.GetConnectionUnixProcessID", args: []any{k.Bus}, out: &pids[i]}
	}
	if err := w.do(calls); err != nil {
		var ae *appError
		if !errors.As(err, &ae) {
			return nil, fmt.Errorf("a11y: elements: %w", err)
		}
	}
	out := make([]registered, 0, len(kids))
	for i, k := range kids {
		if k.Bus == "" || k.Path == "" {
			continue
		}
		out = append(out, registered{root: ref{k.Bus, string(k.Path)}, pid: int(pids[i])})
	}
	return out, nil
}

// plan is an application to read, and how.
type plan struct {
	registered
	keepTop func(image.Rectangle) bool // nil: all its windows
	hungAgo time.Duration              // > 0: skip, it hung this long ago
}

// plan decides which applications are on the display: those owning one of its
// windows, and those whose windows match one of its windows of unknown process.
func (c *Client) plan(apps []registered, note *a11y.Note) ([]plan, error) {
	wins, err := c.x.windows()
	if err != nil {
		return nil, &a11y.UnavailableError{Reason: "cannot list the X display's windows", Err: err}
	}
	appPIDs := map[int]bool{}
	for _, a := range apps {
		appPIDs[a.pid] = true
	}
	onDisplay := map[int]bool{}
	var unclaimed []xwin
	for _, w := range wins {
		if w.pid > 0 && appPIDs[w.pid] {
			onDisplay[w.pid] = true
		} else {
			unclaimed = append(unclaimed, w)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forget(apps)
	var out []plan
	for _, a := range apps {
		p := plan{registered: a}
		switch {
		case a.pid > 0 && onDisplay[a.pid]:
		case len(unclaimed) > 0:
			p.keepTop = func(r image.Rectangle) bool { return matchesWindow(r, unclaimed) }
		default:
			note.OtherDisplay++
			continue
		}
		if t, ok := c.hung[a.root.bus]; ok {
			p.hungAgo = max(time.Since(t), time.Nanosecond)
		}
		out = append(out, p)
	}
	return out, nil
}

// forget drops what the client remembers of applications no longer registered
// and hung marks that expired, so a long run keeps no more than the live
// applications. Called with c.mu held.
func (c *Client) forget(apps []registered) {
	live := make(map[string]bool, len(apps))
	for _, a := range apps {
		live[a.root.bus] = true
	}
	for bus, t := range c.hung {
		if !live[bus] || time.Since(t) >= c.o.HungRetry {
			delete(c.hung, bus)
		}
	}
	for bus := range c.big {
		if !live[bus] {
			delete(c.big, bus)
		}
	}
}

// matchesWindow reports whether extents r are those of one of the windows (client
// area or frame) within a few pixels.
func matchesWindow(r image.Rectangle, wins []xwin) bool {
	near := func(a, b image.Rectangle) bool {
		const tol = 4
		return abs(a.Min.X-b.Min.X) <= tol && abs(a.Min.Y-b.Min.Y) <= tol &&
			abs(a.Max.X-b.Max.X) <= tol && abs(a.Max.Y-b.Max.Y) <= tol
	}
	for _, w := range wins {
		if near(r, w.bounds) || near(r, w.frame) {
			return true
		}
	}
	return false
}

// appResult is what reading one application gave.
type appResult struct {
	elems  []a11y.Element
	nodes  int
	cut    []string
	skip   *a11y.Skip
	timeUp bool
	other  bool // read, but none of its windows is on the display
}

// readApp reads one application: its tree (from its cache when it has one), what
// is visible of it, and the details of that. When the walk's time runs out, what
// was read by then is kept (without the details not read yet).
func (c *Client) readApp(w *walker, p plan) appResult {
	info := appInfo{pid: p.pid, name: processName(p.pid)}
	if p.hungAgo > 0 {
		return appResult{skip: &a11y.Skip{App: info.name, PID: p.pid, Reason: fmt.Sprintf(
			"did not answer %v ago; not asked again for %v", p.hungAgo.Round(time.Second), c.o.HungRetry)}}
	}
	a := &appTree{root: p.root, index: map[ref]int{}}
	err := c.gather(w, a)
	var ae *appError
	if errors.As(err, &ae) {
		if ae.hung {
			c.mu.Lock()
			c.hung[p.root.bus] = time.Now()
			c.mu.Unlock()
		}
		return appResult{nodes: len(a.nodes), skip: &a11y.Skip{App: info.name, PID: p.pid, Reason: ae.reason}}
	}
	res := appResult{nodes: len(a.nodes), timeUp: err != nil} // errTimeUp, or cancellation (walk checks)
	if len(a.nodes) == 0 {
		return res
	}
	info.name = cleanText(cmp.Or(a.nodes[0].name, info.name), 80)
	ks, depthCut := visible(a.nodes, c.bounds, c.o.MaxDepth, p.keepTop)
	if depthCut {
		a.cut = appendOnce(a.cut, fmt.Sprintf("depth limit %d reached", c.o.MaxDepth))
	}
	if err == nil {
		err = w.details(a, ks)
		if errors.As(err, &ae) {
			return appResult{nodes: len(a.nodes), skip: &a11y.Skip{App: info.name, PID: p.pid, Reason: ae.reason}}
		}
		res.timeUp = err != nil
	}
	res.elems = toElements(a.nodes, ks, info, c.o.MaxText, c.o.Containers)
	res.cut = a.cut
	res.other = p.keepTop != nil && len(res.elems) == 0 // no window of it matched one of the display's
	return res
}

// gather reads an application's tree, from its cache unless it has none, its
// cache was too big last time or Options.NoCache.
func (c *Client) gather(w *walker, a *appTree) error {
	c.mu.Lock()
	big := c.big[a.root.bus] || c.o.NoCache
	c.mu.Unlock()
	if !big {
		ok, err := w.fromCache(a)
		if a.big {
			c.mu.Lock()
			c.big[a.root.bus] = true
			c.mu.Unlock()
		}
		if ok || err != nil {
			return err
		}
		*a = appTree{root: a.root, index: map[ref]int{}}
	}
	return w.fromObjects(a)
}

// processName returns the command name of process pid, "" when unknown.
func processName(pid int) string {
	if pid <= 0 {
		return ""
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// appendOnce appends s unless list has it.
func appendOnce(list []string, s string) []string {
	for _, v := range list {
		if v == s {
			return list
		}
	}
	return append(list, s)
}
