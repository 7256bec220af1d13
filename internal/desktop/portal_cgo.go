//go:build linux && cgo

package desktop

import "errors"

func openPortal(o Options) (backend, error) { return nil, errors.New("portal backend: not yet") }
