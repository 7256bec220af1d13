//go:build linux

package eval

import (
	"context"
	"sync"
)

// The harness's download cache as a task's box sees it. box (box.go) has no
// field for it yet, so the run attaches it here for the life of the box.
var boxInputs sync.Map // *box → *Inputs

// attachInputs gives b the cache its download steps and cloud_file getters
// read; detach with the returned func when the task ends.
func (b *box) attachInputs(c *Inputs) func() {
	boxInputs.Store(b, c)
	return func() { boxInputs.Delete(b) }
}

// inputs is b's download cache; without one attached, an offline empty cache
// (every input is then not cached).
func (b *box) inputs() *Inputs {
	if c, ok := boxInputs.Load(b); ok {
		return c.(*Inputs)
	}
	return &Inputs{Dir: b.cache + "/.no-inputs", Offline: true}
}

// cloudFile returns the local copy of url from the harness's download cache
// (an error wrapping checks.ErrNotCached when it is not there).
func (b *box) cloudFile(ctx context.Context, url string) (string, error) {
	return b.inputs().Get(ctx, url)
}
