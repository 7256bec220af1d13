// Package checks holds OSWorld's getters and metrics, each under its OSWorld
// name and with the semantics of OSWorld's Python function of that name
// (desktop_env/evaluators/getters and .../metrics): the same options and
// defaults, the same treatment of None, the same partial scores.
//
// A getter reads a value from a task's desktop through an Env (a file of the
// task's home, a command's output, the browser's DevTools endpoint, the
// accessibility tree); a metric scores a result value against an expected one.
// Values are those Python would hold, decoded the way encoding/json decodes with
// UseNumber: nil (None), bool, json.Number, string, []any, map[string]any; a
// file a getter fetched is its path (a string), as in OSWorld.
//
// Where OSWorld's Python raises (a TypeError, a KeyError, a file that does not
// parse) the function here returns an error: OSWorld records no score for such a
// task, and neither does the harness. Where Python returns 0 the function here
// returns a Score of 0 with a note saying what it saw.
//
// Lookup and LookupGetter find them by name; Names and GetterNames list them.
// Each entry says at load time whether a task's getter config or metric options
// suit it (Metric.Validate, Getter.Validate), so a task that cannot be checked
// is refused before it runs.
package checks
