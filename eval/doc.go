//go:build linux

// Package eval owns deskpilot's evaluation harness: it loads suites of tasks,
// runs each task on a fresh private X display through a Runner (the agent, wired
// by the caller), checks the result, and records everything in a results folder.
// It is the work of `deskpilot eval`.
//
// # Suites
//
// Two formats are read (Load):
//
//   - GAIA: a JSONL file (or a folder with metadata.jsonl) of questions with
//     GAIA's own fields task_id, Question, "Final answer", Level and file_name
//     (an attached file, resolved next to the JSONL and handed to the runner).
//     Answers are scored with ScoreGAIA, the official GAIA scorer's semantics.
//   - OSWorld: a folder of task files, one JSON object each, with id,
//     instruction, config steps (command, execute, launch, open, sleep, and
//     deskpilot's wait_window) and an evaluator: func (exact_match,
//     check_include_exclude, is_in_list, match_in_list, fuzzy_match,
//     compare_text_file, file_contains; a list joined by conj "and"/"or"),
//     result and expected getters (vm_command_line, vm_command_error, vm_file,
//     rule, and deskpilot's answer: the run's final answer), options and
//     postconfig. An optional "deskpilot" object sets max_steps,
//     timeout_seconds and screen ("1280x800"). A task needing anything else is
//     reported as unsupported, never run and never passed.
//
// The starter suites are in suites/; docs/eval.md says how to write tasks.
//
// # Running
//
// Run runs a suite: Options.Parallel tasks at once, each on its own Xvfb +
// openbox display (vision/xdisplay) with its own X authority and a fresh home
// folder. Every program the task starts (its setup steps, its getters'
// commands, what the agent launches through Job.Launch) runs in the task's
// bubblewrap box (bwrap.go): its own user, PID, mount, IPC, UTS and network
// namespaces, the home at /home/user, only its display's socket and cookie, an
// environment without the evaluator's variables; the box's Python modules
// include a pyautogui (package eval/pyautogui). The Runner gets the display in
// a Job. Displays and every process of the box are always ended: after the
// check, on a timeout, a runner's panic, or cancellation.
//
// # Results folder
//
//	run.json         what is being evaluated: suite, model, shard, task ids
//	results.jsonl    one Result per finished task, appended as tasks finish
//	summary.json     the Summary (what --json prints), written at the end
//	index.html       the summary page, linking each trace's report.html
//	tasks/<id>/      home/ (the task's HOME), trace/ (Job.TraceDir), cache/,
//	                 setup.log (every step, command and check of the task)
//
// Options.Resume goes on with an evaluation in its folder; Options.Shard runs
// every N-th task (one pod of a Kubernetes Indexed Job each); Merge combines the
// shards' folders.
package eval
