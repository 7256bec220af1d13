package script

import (
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// defTable keeps the source of the top-level functions defined by earlier
// blocks so each block can define them afresh (prepend).
//
// Why: starlark.ExecREPLChunk gives every block its own module, and a
// function reads globals through the module it was defined in. Without the
// refresh, a function from block 1 would keep seeing block 1's values after
// block 2 reassigned a global or redefined a helper it calls. Defining the
// functions again inside each block makes them read the block's globals,
// which are the live ones, so they behave as in Python. Function values
// stored elsewhere (in a list, or assigned from a lambda) are not refreshed.
type defTable struct {
	recs []defRecord
}

type defRecord struct {
	name string         // the global the def binds
	file string         // block file name, e.g. "block3"
	line int32          // line of the def in that block
	src  string         // the def's lines, preceded by blank lines so positions match the block
	fn   starlark.Value // the function value the global holds now
}

// prepend returns a file that first defines every recorded function again,
// then runs f. The first statement is a no-op at f's line 1 so the top level
// keeps f's file name in tracebacks.
func (t *defTable) prepend(opts *syntax.FileOptions, f *syntax.File) (*syntax.File, error) {
	if len(t.recs) == 0 {
		return f, nil
	}
	path := f.Path
	stmts := []syntax.Stmt{&syntax.ExprStmt{X: &syntax.Ident{NamePos: syntax.MakePosition(&path, 1, 1), Name: "None"}}}
	for _, rec := range t.recs {
		pf, err := opts.Parse(rec.file, rec.src, 0)
		if err != nil {
			return f, err
		}
		stmts = append(stmts, pf.Stmts...)
	}
	stmts = append(stmts, f.Stmts...)
	return &syntax.File{Path: f.Path, Stmts: stmts, Options: opts}, nil
}

// update records the top-level defs of the file just run (block name, source
// src) whose function is still what its global holds, and forgets records
// whose global now holds something else.
func (t *defTable) update(f *syntax.File, name, src string, globals starlark.StringDict) {
	var lines []string
	for _, s := range f.Stmts {
		def, ok := s.(*syntax.DefStmt)
		if !ok || hasCall(def.Params) {
			continue
		}
		file, line := def.Def.Filename(), def.Def.Line
		fn, ok := globals[def.Name.Name].(*starlark.Function)
		if !ok || fn.Position().Filename() != file || fn.Position().Line != line {
			continue // not run, or since rebound
		}
		rec := defRecord{name: def.Name.Name, file: file, line: line, fn: fn}
		if file == name {
			if lines == nil {
				lines = strings.SplitAfter(src, "\n")
			}
			_, end := def.Span()
			rec.src = strings.Repeat("\n", int(line)-1) + strings.Join(lines[line-1:min(int(end.Line), len(lines))], "")
		} else if old := t.find(file, line); old != nil {
			rec.src = old.src
		} else {
			continue
		}
		t.put(rec)
	}
	kept := t.recs[:0]
	for _, rec := range t.recs {
		if globals[rec.name] == rec.fn {
			kept = append(kept, rec)
		}
	}
	clear(t.recs[len(kept):])
	t.recs = kept
}

func (t *defTable) put(rec defRecord) {
	for i := range t.recs {
		if t.recs[i].name == rec.name {
			t.recs[i] = rec
			return
		}
	}
	t.recs = append(t.recs, rec)
}

func (t *defTable) find(file string, line int32) *defRecord {
	for i := range t.recs {
		if t.recs[i].file == file && t.recs[i].line == line {
			return &t.recs[i]
		}
	}
	return nil
}

// sourceLine returns line n of the recorded function source from file, or "".
func (t *defTable) sourceLine(file string, n int) string {
	for _, rec := range t.recs {
		if rec.file == file {
			if s := sourceLine(rec.src, n); s != "" {
				return s
			}
		}
	}
	return ""
}

// hasCall reports whether any parameter default calls a function (which a
// refresh would call again).
func hasCall(params []syntax.Expr) bool {
	found := false
	for _, p := range params {
		syntax.Walk(p, func(n syntax.Node) bool {
			if _, ok := n.(*syntax.CallExpr); ok {
				found = true
			}
			return !found
		})
	}
	return found
}
