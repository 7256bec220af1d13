package agent

import "sync"

// dispatcher delivers events in order on its own goroutine, so the loop never waits
// on a slow consumer (the UI, a trace on a slow disk). The queue is unbounded.
type dispatcher struct {
	mu      sync.Mutex
	cond    *sync.Cond
	queue   []Event
	pending int // emitted but not yet delivered
	closed  bool
	done    chan struct{}
	deliver func(Event)
}

func newDispatcher(deliver func(Event)) *dispatcher {
	d := &dispatcher{deliver: deliver, done: make(chan struct{})}
	d.cond = sync.NewCond(&d.mu)
	go d.loop()
	return d
}

func (d *dispatcher) emit(e Event) {
	d.mu.Lock()
	if !d.closed {
		d.queue = append(d.queue, e)
		d.pending++
		d.cond.Broadcast()
	}
	d.mu.Unlock()
}

// close delivers what is queued and waits for the goroutine to end.
func (d *dispatcher) close() {
	d.mu.Lock()
	d.closed = true
	d.cond.Broadcast()
	d.mu.Unlock()
	<-d.done
}

func (d *dispatcher) loop() {
	defer close(d.done)
	for {
		d.mu.Lock()
		for len(d.queue) == 0 && !d.closed {
			d.cond.Wait()
		}
		batch := d.queue
		d.queue = nil
		closed := d.closed
		d.mu.Unlock()
		for _, e := range batch {
			d.deliver(e)
		}
		d.mu.Lock()
		d.pending -= len(batch)
		d.cond.Broadcast()
		d.mu.Unlock()
		if closed && len(batch) == 0 {
			return
		}
	}
}

// flush waits until every event emitted so far has been delivered.
func (d *dispatcher) flush() {
	d.mu.Lock()
	for d.pending > 0 && !d.closed {
		d.cond.Wait()
	}
	d.mu.Unlock()
}
