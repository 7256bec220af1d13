package dialect

import (
	"fmt"

	"go.starlark.net/starlark"
)

// ModuleSet returns the modules of the dialect called name, for a sandbox
// child that knows its dialect only by name (script.ServeIfChild): a builder
// over the caller that runs a builtin, or an error when the dialect has no
// modules.
func ModuleSet(name string) (func(call func(*starlark.Thread, string, starlark.Tuple, []starlark.Tuple) (starlark.Value, error)) starlark.StringDict, error) {
	d, err := ByName(name)
	if err != nil {
		return nil, err
	}
	m, ok := d.(Moduler)
	if !ok {
		return nil, fmt.Errorf("dialect %s has no modules", name)
	}
	return func(call func(*starlark.Thread, string, starlark.Tuple, []starlark.Tuple) (starlark.Value, error)) starlark.StringDict {
		return m.Modules(Caller(call))
	}, nil
}
