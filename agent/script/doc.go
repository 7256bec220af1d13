// Package script owns the code-action language of deskpilot: it runs the
// Starlark blocks a model writes, in a sandbox with persistent state, and
// turns everything that goes wrong into text the model can act on.
//
// An Executor holds one Starlark environment for a whole run. Each Exec
// parses a block, refuses what the sandbox forbids (load, assignments that
// would hide a tool), and runs it with ExecREPLChunk so globals stay mutable
// and functions defined in one block are callable — and see current
// globals — in the next. The dialect allows while loops, recursion, sets,
// global reassignment and top-level if/for/while.
//
// The sandbox has no file system, network, imports or OS access: only the
// registered Tools, Starlark's universe (print, len, range, str, ...), and
// the pure modules math and json (go.starlark.net/lib/math and lib/json)
// preloaded as globals. print is captured into Result.Output.
//
// Limits per block (Options): execution steps (10,000,000), running time
// (30 s, not counting Call.Sleep — the wait builtin — or Call.Untimed), and
// printed output (50,000 characters, middle-truncated with a notice). Cancelling
// Exec's ctx or calling Executor.Cancel stops the block promptly, also in
// the middle of a wait.
//
// final_answer(answer) is always registered: it records the answer and ends
// the block at once, even from a nested function (Starlark has no
// try/except, so code cannot catch it).
//
// Errors come back as Result.Err with a Kind (syntax, runtime, limit,
// cancelled), the line and column in the block, and a message holding the
// failing source line, the innermost Starlark frame and a hint for common
// Python habits Starlark lacks (imports, f-strings, try/except, is).
//
// Desktop returns the mouse, keyboard and screen tools, built on
// vision.Mapper for coordinates and a small Input interface for the
// primitives; other tool sets (browser, files, apps, ask_user) are Tools
// built by their owners and passed to New.
package script
