//go:build cgo && (linux || windows || darwin)

package desktop

import (
	"context"
	"errors"
	"fmt"
	"image"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/go-vgo/robotgo"

	"deskpilot/actions"
	"deskpilot/internal/wait"
)

// Limits of the robotgo input, the same as the x11 backend's.
const (
	maxClicks      = 3
	maxScroll      = 100
	dragStepDelay  = 10 * time.Millisecond
	dragStepPixels = 20
	minDragSteps   = 5
	maxDragSteps   = 30
)

// errInputClosed is returned by the input's methods after the desktop closed.
var errInputClosed = errors.New("robotgo input: closed")

// rgInput is the mouse and keyboard through robotgo. robotgo sends to the
// desktop of the whole process (on X11, one Display* it opens from $DISPLAY),
// so an rgInput is the only one of its process (see openRobotgo). A mutex
// serializes the primitives; Hold releases it while it waits, like the x11
// input, so ReleaseAll can end a hold.
type rgInput struct {
	mu      sync.Mutex
	bounds  image.Rectangle
	closed  bool
	keys    map[string]bool // robotgo key names held down
	buttons map[string]bool // robotgo button names held down
	sys     rgSystem
}

// rgSystem is what the robotgo input needs from its system.
type rgSystem interface {
	// checkKeys fails for canonical key names robotgo must not be asked to
	// press here (on X11 an unmapped key is a fatal X error in robotgo's Xlib).
	checkKeys(keys []string) error
	// typeText types text, already validated (printable, "\n", "\t"). Called
	// with the input locked; it may press keys through in.
	typeText(ctx context.Context, in *rgInput, text string) error
}

func newRGInput(bounds image.Rectangle, sys rgSystem) *rgInput {
	return &rgInput{bounds: bounds, keys: map[string]bool{}, buttons: map[string]bool{}, sys: sys}
}

// begin checks ctx and locks the input for one primitive; the caller unlocks
// when it returns nil.
func (in *rgInput) begin(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	in.mu.Lock()
	if in.closed {
		in.mu.Unlock()
		return errInputClosed
	}
	return nil
}

func (in *rgInput) check(op string, p actions.Point) error {
	if err := actions.CheckPoint(p, in.bounds); err != nil {
		return fmt.Errorf("robotgo: %s: %w", op, err)
	}
	return nil
}

// Move moves the pointer to p.
func (in *rgInput) Move(ctx context.Context, p actions.Point) error {
	if err := in.check("move", p); err != nil {
		return err
	}
	if err := in.begin(ctx); err != nil {
		return fmt.Errorf("robotgo: move: %w", err)
	}
	defer in.mu.Unlock()
	robotgo.Move(p.X, p.Y)
	return nil
}

// Click moves to p and clicks b n times (1 to 3) without pause between the
// clicks, so applications see a double or triple click.
func (in *rgInput) Click(ctx context.Context, p actions.Point, b actions.Button, n int) error {
	if err := in.check("click", p); err != nil {
		return err
	}
	name, err := rgButton(b)
	if err != nil {
		return fmt.Errorf("robotgo: click: %w", err)
	}
	if n < 1 || n > maxClicks {
		return fmt.Errorf("robotgo: click: click count %d must be between 1 and %d", n, maxClicks)
	}
	if err := in.begin(ctx); err != nil {
		return fmt.Errorf("robotgo: click: %w", err)
	}
	defer in.mu.Unlock()
	robotgo.Move(p.X, p.Y)
	for range n {
		if err := in.button(name, true); err != nil {
			return fmt.Errorf("robotgo: %s click at %v: %w", b, p, err)
		}
		if err := in.button(name, false); err != nil {
			return fmt.Errorf("robotgo: %s click at %v: %w", b, p, err)
		}
	}
	return nil
}

// Drag presses the left button at from, moves to to in small steps about
// 10 ms apart, and releases it there; cancelled halfway, it releases the
// button where the pointer is.
func (in *rgInput) Drag(ctx context.Context, from, to actions.Point) error {
	if err := in.check("drag from", from); err != nil {
		return err
	}
	if err := in.check("drag to", to); err != nil {
		return err
	}
	if err := in.begin(ctx); err != nil {
		return fmt.Errorf("robotgo: drag: %w", err)
	}
	defer in.mu.Unlock()
	robotgo.Move(from.X, from.Y)
	if err := in.button("left", true); err != nil {
		return fmt.Errorf("robotgo: drag: %w", err)
	}
	dx, dy := to.X-from.X, to.Y-from.Y
	steps := min(max(max(abs(dx), abs(dy))/dragStepPixels, minDragSteps), maxDragSteps)
	for i := 1; i <= steps; i++ {
		if err := wait.Sleep(ctx, dragStepDelay); err != nil {
			return errors.Join(fmt.Errorf("robotgo: drag %v to %v: %w", from, to, err), in.button("left", false))
		}
		robotgo.Move(from.X+dx*i/steps, from.Y+dy*i/steps)
	}
	return in.button("left", false)
}

// Scroll moves to p and turns the wheel amount clicks (1 to 100).
func (in *rgInput) Scroll(ctx context.Context, p actions.Point, d actions.Direction, amount int) error {
	if err := in.check("scroll", p); err != nil {
		return err
	}
	var x, y int
	switch d {
	case actions.ScrollUp:
		y = amount
	case actions.ScrollDown:
		y = -amount
	case actions.ScrollLeft:
		x = amount
	case actions.ScrollRight:
		x = -amount
	default:
		return fmt.Errorf("robotgo: scroll: unknown direction %q: accepted directions are up, down, left, right", d)
	}
	if amount < 1 || amount > maxScroll {
		return fmt.Errorf("robotgo: scroll: amount %d must be between 1 and %d", amount, maxScroll)
	}
	if err := in.begin(ctx); err != nil {
		return fmt.Errorf("robotgo: scroll: %w", err)
	}
	defer in.mu.Unlock()
	robotgo.Move(p.X, p.Y)
	robotgo.Scroll(x, y, 0)
	return nil
}

// Press presses the combo's keys in order and releases them in reverse.
func (in *rgInput) Press(ctx context.Context, c actions.Combo) error {
	names, err := in.comboKeys(c)
	if err != nil {
		return fmt.Errorf("robotgo: press: %w", err)
	}
	if err := in.begin(ctx); err != nil {
		return fmt.Errorf("robotgo: press %s: %w", c, err)
	}
	defer in.mu.Unlock()
	if err := in.pressKeys(names); err != nil {
		return fmt.Errorf("robotgo: press %s: %w", c, err)
	}
	return nil
}

// pressKeys presses names in order and releases them in reverse. Called locked.
func (in *rgInput) pressKeys(names []string) error {
	var errs []error
	pressed := 0
	for _, n := range names {
		if err := in.key(n, true); err != nil {
			errs = append(errs, err)
			break
		}
		pressed++
	}
	for _, n := range slices.Backward(names[:pressed]) {
		errs = append(errs, in.key(n, false))
	}
	return errors.Join(errs...)
}

// Hold presses the combo, keeps it down for d (or until ctx is done or
// ReleaseAll), and releases it.
func (in *rgInput) Hold(ctx context.Context, c actions.Combo, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("robotgo: hold %s: duration %v is negative", c, d)
	}
	names, err := in.comboKeys(c)
	if err != nil {
		return fmt.Errorf("robotgo: hold: %w", err)
	}
	if err := in.begin(ctx); err != nil {
		return fmt.Errorf("robotgo: hold %s: %w", c, err)
	}
	for _, n := range names {
		if err = in.key(n, true); err != nil {
			break
		}
	}
	in.mu.Unlock()
	if err == nil {
		err = wait.Sleep(ctx, d)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if !in.closed {
		for _, n := range slices.Backward(names) {
			if in.keys[n] {
				err = errors.Join(err, in.key(n, false))
			}
		}
	}
	if err != nil {
		return fmt.Errorf("robotgo: hold %s: %w", c, err)
	}
	return nil
}

// Type types text: any Unicode; "\n" and "\r\n" press Enter, "\t" Tab;
// other control characters and invalid UTF-8 are refused before anything is
// typed. How the characters get there depends on the system (rgSystem).
func (in *rgInput) Type(ctx context.Context, text string) error {
	text, err := normalizeText(text)
	if err != nil {
		return fmt.Errorf("robotgo: type: %w", err)
	}
	if text == "" {
		return nil
	}
	if err := in.begin(ctx); err != nil {
		return fmt.Errorf("robotgo: type: %w", err)
	}
	defer in.mu.Unlock()
	if err := in.sys.typeText(ctx, in, text); err != nil {
		return fmt.Errorf("robotgo: type: %w", err)
	}
	return nil
}

// Cursor returns the pointer position.
func (in *rgInput) Cursor() (actions.Point, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return actions.Point{}, errInputClosed
	}
	x, y := robotgo.Location()
	return actions.Point{X: x, Y: y}, nil
}

// ReleaseAll releases every key and button this input holds down.
func (in *rgInput) ReleaseAll() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return errInputClosed
	}
	return in.releaseAll()
}

func (in *rgInput) releaseAll() error {
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(in.keys)) {
		errs = append(errs, in.key(k, false))
	}
	for _, b := range slices.Sorted(maps.Keys(in.buttons)) {
		errs = append(errs, in.button(b, false))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("robotgo: release all: %w", err)
	}
	return nil
}

// close releases what the input holds; later calls fail.
func (in *rgInput) close() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return nil
	}
	err := in.releaseAll()
	in.closed = true
	return err
}

// comboKeys normalizes c and returns robotgo's names for its keys, after the
// system's check.
func (in *rgInput) comboKeys(c actions.Combo) ([]string, error) {
	c, err := actions.ParseCombo(c.String())
	if err != nil {
		return nil, err
	}
	if err := in.sys.checkKeys(c.Keys()); err != nil {
		return nil, fmt.Errorf("%s: %w", c, err)
	}
	var names []string
	for _, k := range c.Keys() {
		names = append(names, rgKey(k))
	}
	return names, nil
}

// key presses or releases one key and tracks it. Called locked.
func (in *rgInput) key(name string, down bool) error {
	dir := "up"
	if down {
		dir = "down"
	}
	if err := robotgo.KeyToggle(name, dir); err != nil {
		return fmt.Errorf("key %s %s: %w", name, dir, err)
	}
	if down {
		in.keys[name] = true
	} else {
		delete(in.keys, name)
	}
	return nil
}

// button presses or releases a mouse button and tracks it. Called locked.
func (in *rgInput) button(name string, down bool) error {
	dir := "up"
	if down {
		dir = "down"
	}
	if err := robotgo.Toggle(name, dir); err != nil {
		return fmt.Errorf("button %s %s: %w", name, dir, err)
	}
	if down {
		in.buttons[name] = true
	} else {
		delete(in.buttons, name)
	}
	return nil
}

// rgButton is robotgo's name of a mouse button.
func rgButton(b actions.Button) (string, error) {
	switch b {
	case actions.Left:
		return "left", nil
	case actions.Middle:
		return "center", nil
	case actions.Right:
		return "right", nil
	}
	return "", fmt.Errorf("unknown mouse button %v: accepted buttons are left, middle, right", b)
}
