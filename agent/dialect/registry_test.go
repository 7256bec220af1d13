package dialect

import (
	"slices"
	"testing"

	"deskpilot/agent/dialect/registry"
)

// The registry, which settings read, names exactly the dialects and grounders
// this package implements: a new dialect is a row there too.
func TestRegistryNamesTheImplementations(t *testing.T) {
	if got, want := Names(), registry.Dialects(); !slices.Equal(got, want) {
		t.Errorf("dialects implemented %v, registry %v", got, want)
	}
	if got, want := GrounderNames(), registry.Grounders(); !slices.Equal(got, want) {
		t.Errorf("grounders implemented %v, registry %v", got, want)
	}
	for _, n := range registry.Dialects() {
		d, err := ByName(n)
		if err != nil {
			t.Errorf("registry's %q: %v", n, err)
			continue
		}
		need := ""
		if td, ok := d.(ToolDialect); ok {
			need = td.Provider()
		}
		if got := registry.Provider(n); got != need {
			t.Errorf("registry's %q speaks through provider %q; the dialect says %q", n, got, need)
		}
	}
	for _, n := range []string{"", " UITARS-1.5 ", "nope"} {
		_, err := ByName(n)
		_, rerr := registry.Dialect(n)
		if (err == nil) != (rerr == nil) || err != nil && err.Error() != rerr.Error() {
			t.Errorf("%q: dialect says %v, registry %v", n, err, rerr)
		}
		_, err = GrounderByName(n)
		_, rerr = registry.Grounder(n)
		if (err == nil) != (rerr == nil) || err != nil && err.Error() != rerr.Error() {
			t.Errorf("grounder %q: dialect says %v, registry %v", n, err, rerr)
		}
	}
}
