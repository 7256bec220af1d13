package checks

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Score is a metric's verdict: Value in 0..1 (1 is a pass) and, below 1, a note
// saying what the metric saw.
type Score struct {
	Value float64
	Note  string
}

// Call is one metric call: OSWorld's metric(result, expected, **options), or
// metric(result, **options) when Expected is nil (no expected getter, or one
// that gave None).
type Call struct {
	Env      Env
	Result   any
	Expected any
	Options  map[string]any
}

// Metric is one OSWorld metric.
type Metric struct {
	// Fn scores a call.
	Fn func(ctx context.Context, c Call) (Score, error)
	// Options are the keyword arguments the Python function reads; with Kwargs
	// it takes **options and ignores others, without it another option is the
	// TypeError Python would raise, found at load time.
	Options []string
	Kwargs  bool
	// Check, when set, looks at the getters' configs and the options when the
	// task loads (a rule object missing a key the function subscripts).
	Check func(result, expected map[string]any, opts map[string]any) error
}

// Validate checks a task's use of the metric when it loads: its options, and
// what Check looks at. expected is nil when the task has no expected getter.
func (m Metric) Validate(result, expected, opts map[string]any) error {
	if !m.Kwargs {
		for _, k := range slices.Sorted(maps.Keys(opts)) {
			if !slices.Contains(m.Options, k) {
				return fmt.Errorf("unexpected keyword argument %q", k)
			}
		}
	}
	if m.Check != nil {
		return m.Check(result, expected, opts)
	}
	return nil
}

// Getter is one OSWorld getter, named by its config's "type".
type Getter struct {
	// Fn reads the value; cfg is the getter's JSON object.
	Fn func(ctx context.Context, env Env, cfg map[string]any) (any, error)
	// Check, when set, looks at cfg when the task loads.
	Check func(cfg map[string]any) error
	// Web, when set, is the site on the internet the getter reads whatever
	// the task's config says (gotoRecreationPage_and_get_html_content goes
	// to recreation.gov): a task box with only a loopback cannot give it.
	Web string
}

// Validate checks a getter config when the task loads.
func (g Getter) Validate(cfg map[string]any) error {
	if g.Check != nil {
		return g.Check(cfg)
	}
	return nil
}

// Lookup returns the metric named name; ok is false for one this package
// lacks.
func Lookup(name string) (Metric, bool) {
	m, ok := metrics()[name]
	return m, ok
}

// LookupGetter returns the getter whose config type is typ.
func LookupGetter(typ string) (Getter, bool) {
	g, ok := getters()[typ]
	return g, ok
}

// Names lists the metrics, sorted.
func Names() []string { return slices.Sorted(maps.Keys(metrics())) }

// GetterNames lists the getter types, sorted.
func GetterNames() []string { return slices.Sorted(maps.Keys(getters())) }

// Get runs the getter cfg names.
func Get(ctx context.Context, env Env, cfg map[string]any) (any, error) {
	typ, _ := cfg["type"].(string)
	g, ok := LookupGetter(typ)
	if !ok {
		return nil, fmt.Errorf("no getter %q", typ)
	}
	return g.Fn(ctx, env, cfg)
}

// errNoExpected is Python's TypeError for a metric called without the
// expected value its signature needs.
var errNoExpected = errors.New("missing 1 required positional argument (the expected value is None)")

// metrics is the registry of metrics by OSWorld name.
func metrics() map[string]Metric {
	m := map[string]Metric{}
	for _, part := range []map[string]Metric{
		pendingMetrics(), generalMetrics(), fileMetrics(), tableMetrics(), docsMetrics(), chromeMetrics(), slidesMetrics(), pdfMetrics(), imageMetrics(), archiveMetrics(), thunderbirdMetrics(), vlcMetrics(), docxFormatMetrics(), basicOSMetrics(), miscMetrics(),
	} {
		maps.Copy(m, part)
	}
	return m
}

// getters is the registry of getters by config type.
func getters() map[string]Getter {
	g := map[string]Getter{}
	for _, part := range []map[string]Getter{
		pendingGetters(), fileGetters(), generalGetters(), chromeGetters(), appGetters(), activeTabGetters(), chromeDBGetters(), impressGetters(), driveGetters(),
	} {
		maps.Copy(g, part)
	}
	return g
}
