package ocr

import "container/list"

// lru is a least-recently-used cache of lines by key, bounded by entry
// count. It is not safe for concurrent use (the Reader holds its mutex).
type lru struct {
	max   int
	order *list.List // front: most recently used; values are *entry
	index map[key]*list.Element
}

type entry struct {
	key   key
	lines []Line
}

func newLRU(max int) *lru {
	return &lru{max: max, order: list.New(), index: map[key]*list.Element{}}
}

// get returns the lines stored under k and marks them used.
func (c *lru) get(k key) ([]Line, bool) {
	e, ok := c.index[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*entry).lines, true
}

// put stores lines under k, dropping the least recently used entries beyond
// the bound.
func (c *lru) put(k key, lines []Line) {
	if e, ok := c.index[k]; ok {
		e.Value.(*entry).lines = lines
		c.order.MoveToFront(e)
		return
	}
	c.index[k] = c.order.PushFront(&entry{key: k, lines: lines})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.index, last.Value.(*entry).key)
	}
}
