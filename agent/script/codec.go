package script

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// wireValue is a Starlark value on its way between the sandbox process and the
// process that runs the tools: the arguments of a tool call one way, its result
// the other. Values a tool can take or return travel exactly (None, bool, int,
// float, string, bytes, list, tuple, dict, set, struct); anything else (a
// function, a module) travels as its type and repr, so a tool that gets one
// reports the same "must be a number, got function" it would in process.
type wireValue struct {
	T string      `json:"t"`           // type: none bool int float string bytes list tuple dict set struct opaque
	B bool        `json:"b,omitempty"` // bool
	S string      `json:"s,omitempty"` // int (decimal), float (non-finite), string, bytes, opaque repr, struct constructor
	F float64     `json:"f,omitempty"` // finite float
	L []wireValue `json:"l,omitempty"` // list, tuple, set items; dict keys and values interleaved
	N []string    `json:"n,omitempty"` // struct field names (values in L), opaque type name (N[0])
}

// maxWireDepth bounds nesting on the wire; deeper values travel as opaque.
const maxWireDepth = 64

// errWireDepth is a value nested deeper than the wire carries.
var errWireDepth = errors.New("value nested too deeply to pass to a tool")

// toWire encodes v.
func toWire(v starlark.Value, depth int) (wireValue, error) {
	if depth > maxWireDepth {
		return wireValue{}, errWireDepth
	}
	items := func(t string, it starlark.Iterable) (wireValue, error) {
		w := wireValue{T: t}
		iter := it.Iterate()
		defer iter.Done()
		var x starlark.Value
		for iter.Next(&x) {
			e, err := toWire(x, depth+1)
			if err != nil {
				return wireValue{}, err
			}
			w.L = append(w.L, e)
		}
		return w, nil
	}
	switch v := v.(type) {
	case starlark.NoneType:
		return wireValue{T: "none"}, nil
	case starlark.Bool:
		return wireValue{T: "bool", B: bool(v)}, nil
	case starlark.Int:
		return wireValue{T: "int", S: v.String()}, nil
	case starlark.Float:
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return wireValue{T: "float", S: v.String()}, nil
		}
		return wireValue{T: "float", F: f}, nil
	case starlark.String:
		return wireValue{T: "string", S: string(v)}, nil
	case starlark.Bytes:
		return wireValue{T: "bytes", S: string(v)}, nil
	case *starlark.List:
		return items("list", v)
	case starlark.Tuple:
		return items("tuple", v)
	case *starlark.Set:
		return items("set", v)
	case *starlark.Dict:
		w := wireValue{T: "dict"}
		for _, kv := range v.Items() {
			k, err := toWire(kv[0], depth+1)
			if err != nil {
				return wireValue{}, err
			}
			x, err := toWire(kv[1], depth+1)
			if err != nil {
				return wireValue{}, err
			}
			w.L = append(w.L, k, x)
		}
		return w, nil
	case *starlarkstruct.Struct:
		w := wireValue{T: "struct", S: v.Constructor().String()}
		for _, name := range v.AttrNames() {
			a, err := v.Attr(name)
			if err != nil {
				return wireValue{}, err
			}
			x, err := toWire(a, depth+1)
			if err != nil {
				return wireValue{}, err
			}
			w.N, w.L = append(w.N, name), append(w.L, x)
		}
		return w, nil
	}
	return wireValue{T: "opaque", S: v.String(), N: []string{v.Type()}}, nil
}

// fromWire decodes w.
func fromWire(w wireValue, depth int) (starlark.Value, error) {
	if depth > maxWireDepth {
		return nil, errWireDepth
	}
	list := func() ([]starlark.Value, error) {
		out := make([]starlark.Value, 0, len(w.L))
		for _, e := range w.L {
			x, err := fromWire(e, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, nil
	}
	switch w.T {
	case "none":
		return starlark.None, nil
	case "bool":
		return starlark.Bool(w.B), nil
	case "int":
		n, ok := new(big.Int).SetString(w.S, 10)
		if !ok {
			return nil, fmt.Errorf("bad int %q on the wire", w.S)
		}
		return starlark.MakeBigInt(n), nil
	case "float":
		if w.S == "" {
			return starlark.Float(w.F), nil
		}
		switch w.S {
		case "+inf":
			return starlark.Float(math.Inf(1)), nil
		case "-inf":
			return starlark.Float(math.Inf(-1)), nil
		}
		return starlark.Float(math.NaN()), nil
	case "string":
		return starlark.String(w.S), nil
	case "bytes":
		return starlark.Bytes(w.S), nil
	case "list":
		xs, err := list()
		return starlark.NewList(xs), err
	case "tuple":
		xs, err := list()
		return starlark.Tuple(xs), err
	case "set":
		xs, err := list()
		if err != nil {
			return nil, err
		}
		s := starlark.NewSet(len(xs))
		for _, x := range xs {
			if err := s.Insert(x); err != nil {
				return nil, err
			}
		}
		return s, nil
	case "dict":
		xs, err := list()
		if err != nil || len(xs)%2 != 0 {
			return nil, errors.Join(err, errors.New("bad dict on the wire"))
		}
		d := starlark.NewDict(len(xs) / 2)
		for i := 0; i < len(xs); i += 2 {
			if err := d.SetKey(xs[i], xs[i+1]); err != nil {
				return nil, err
			}
		}
		return d, nil
	case "struct":
		xs, err := list()
		if err != nil || len(xs) != len(w.N) {
			return nil, errors.Join(err, errors.New("bad struct on the wire"))
		}
		fields := starlark.StringDict{}
		for i, n := range w.N {
			fields[n] = xs[i]
		}
		return starlarkstruct.FromStringDict(starlark.String(strings.Trim(w.S, `"`)), fields), nil
	case "opaque":
		typ := "value"
		if len(w.N) > 0 {
			typ = w.N[0]
		}
		return opaque{typ: typ, repr: w.S}, nil
	}
	return nil, fmt.Errorf("unknown value type %q on the wire", w.T)
}

// opaque stands for a value that cannot cross the process boundary (a
// function, a module): it keeps the original's type name and repr, so a tool
// given one reports the type it got.
type opaque struct{ typ, repr string }

func (o opaque) String() string        { return o.repr }
func (o opaque) Type() string          { return o.typ }
func (o opaque) Freeze()               {}
func (o opaque) Truth() starlark.Bool  { return starlark.True }
func (o opaque) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: %s", o.typ) }

// tupleToWire encodes a call's arguments.
func tupleToWire(args starlark.Tuple, kwargs []starlark.Tuple) ([]wireValue, [][2]wireValue, error) {
	var pos []wireValue
	for _, a := range args {
		w, err := toWire(a, 0)
		if err != nil {
			return nil, nil, err
		}
		pos = append(pos, w)
	}
	var kw [][2]wireValue
	for _, p := range kwargs {
		k, err := toWire(p[0], 0)
		if err != nil {
			return nil, nil, err
		}
		v, err := toWire(p[1], 0)
		if err != nil {
			return nil, nil, err
		}
		kw = append(kw, [2]wireValue{k, v})
	}
	return pos, kw, nil
}

// tupleFromWire decodes a call's arguments.
func tupleFromWire(pos []wireValue, kw [][2]wireValue) (starlark.Tuple, []starlark.Tuple, error) {
	var args starlark.Tuple
	for _, w := range pos {
		v, err := fromWire(w, 0)
		if err != nil {
			return nil, nil, err
		}
		args = append(args, v)
	}
	var kwargs []starlark.Tuple
	for _, p := range kw {
		k, err := fromWire(p[0], 0)
		if err != nil {
			return nil, nil, err
		}
		v, err := fromWire(p[1], 0)
		if err != nil {
			return nil, nil, err
		}
		kwargs = append(kwargs, starlark.Tuple{k, v})
	}
	return args, kwargs, nil
}
