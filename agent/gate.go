package agent

import (
	"context"
	"sync"
)

// gate pauses the loop and the script between primitives. Pause and Resume are safe
// from any goroutine; Wait blocks while paused, until resumed or ctx ends.
type gate struct {
	mu     sync.Mutex
	paused bool
	reason string
	open   chan struct{} // closed while not paused
	notes  []string      // what the person said on resume, for the next observation
}

func newGate() *gate {
	ch := make(chan struct{})
	close(ch)
	return &gate{open: ch}
}

// pause closes the gate; it reports false when it was already closed.
func (g *gate) pause(reason string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.paused {
		return false
	}
	g.paused, g.reason = true, reason
	g.open = make(chan struct{})
	return true
}

// resume opens the gate and keeps the note for the model.
func (g *gate) resume(note string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.paused {
		return false
	}
	g.paused = false
	g.notes = append(g.notes, note) // even empty: the model must learn the person acted
	close(g.open)
	return true
}

func (g *gate) isPaused() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.paused
}

// wait blocks while the gate is closed.
func (g *gate) wait(ctx context.Context) error {
	g.mu.Lock()
	ch := g.open
	g.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// takeNotes returns and clears the resume notes.
func (g *gate) takeNotes() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := g.notes
	g.notes = nil
	return n
}
