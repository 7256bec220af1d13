// Package trace owns deskpilot's run recordings (format v1): the Writer that records a
// run as it happens, the reader that loads a recording back grouped into steps, the
// listing of recordings, the self-contained HTML report, and the JSONL export of steps
// as training data. It does not import package agent; the agent converts its events
// into trace Events.
//
// # Layout
//
// One folder per run, <root>/<UTC start, 20261129T192000Z>-<task slug>/ (the slug is
// lowercase ASCII, at most 40 bytes; "-2", "-3", ... keep names unique):
//
//	trace.jsonl   one JSON Event per line, append-only
//	frames/       0003.png (full-resolution screen after step 3), 0003-1.png, ... (more
//	              images of the same step, as sent to the model: its view, zoom crops;
//	              .png, .jpeg or .webp)
//	report.html   written by Writer.Close; open it in any browser
//
// Each image is stored once per run: when the screen did not change, an observation's
// frame names the file an earlier step wrote (see Writer.Frame), so a step on a still
// screen adds only its event lines.
//
// # Events
//
// Every line has "type", "t" (RFC 3339 with nanoseconds, UTC) and "step" (1-based; 0
// before the first step). The first line is {"v":1,"type":"run_start",...}. Empty fields
// are omitted. By type:
//
//	run_start     v, task, model, base_url (no credentials, no query), coord_mode,
//	              screen {x,y,w,h}, image {w,h}, max_steps, app_version, host_os
//	step_start    (none)
//	model_output  text, usage {in,out}, duration_ms, attempts
//	code          code
//	action        action {name, args, model [x,y], screen [x,y], to [x,y], start,
//	              duration_ms, result, error}
//	observation   text, error, changed, frame, model_frame, attachments, settle_ms
//	              (step 0 holds the initial screenshot)
//	paused        reason
//	resumed       reason
//	final_answer  answer
//	run_end       outcome (answered|failed|max_steps|cancelled), answer, error, steps,
//	              usage {in,out}, elapsed_ms
//
// Frame paths are relative to the trace folder with forward slashes. Readers ignore
// fields they do not know and keep events of types they do not know, so later versions
// may add both without changing "v". The full schema, with examples, is in
// docs/trace-format.md.
//
// # Guarantees
//
// Each event reaches the operating system as one whole line before Writer.Write returns,
// and the file is fsynced at the end of every step, so a killed process leaves a trace
// that Read loads up to its last complete line. Strings registered with WithSecrets or
// Writer.AddSecrets (API keys, type_secret values) are replaced by "[redacted]" in every
// string field before anything is written. Report escapes everything it shows: model
// output and screen text are untrusted.
package trace
