package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/spf13/pflag"
)

// field is one setting, read from the tags of its Settings field.
type field struct {
	index   []int
	key     string   // toml key
	envs    []string // environment variables, the later winning
	flag    string
	def     string
	usage   string
	kind    reflect.Kind
	isSlice bool
}

// fields lists the settings in declaration order. A struct field is a TOML
// table (one level: [grounder]); its settings follow in its place, their keys
// written "table.key" as in a dotted TOML key.
func fields() []field {
	t := reflect.TypeFor[Settings]()
	out := make([]field, 0, t.NumField())
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Type.Kind() != reflect.Struct {
			out = append(out, fieldOf(sf, sf.Index, ""))
			continue
		}
		table := sf.Tag.Get("toml")
		for j := range sf.Type.NumField() {
			sub := sf.Type.Field(j)
			out = append(out, fieldOf(sub, []int{i, j}, table+"."))
		}
	}
	return out
}

// fieldOf reads one setting's tags; index locates it in Settings and prefix
// is its table's ("" at the top level).
func fieldOf(sf reflect.StructField, index []int, prefix string) field {
	f := field{index: index, key: prefix + sf.Tag.Get("toml"), flag: sf.Tag.Get("flag"),
		def: sf.Tag.Get("default"), usage: sf.Tag.Get("usage"), kind: sf.Type.Kind()}
	if e := sf.Tag.Get("env"); e != "" {
		f.envs = strings.Split(e, ",")
	}
	if f.kind == reflect.Slice {
		f.isSlice, f.kind = true, sf.Type.Elem().Kind()
	}
	return f
}

func (f field) value(s *Settings) reflect.Value {
	return reflect.ValueOf(s).Elem().FieldByIndex(f.index)
}

// set parses text into the field; src names the source for errors.
func (f field) set(s *Settings, text, src string) error {
	v := f.value(s)
	switch {
	case f.isSlice:
		var items []string
		for _, it := range strings.Split(text, ",") {
			if it = strings.TrimSpace(it); it != "" {
				items = append(items, it)
			}
		}
		v.Set(reflect.ValueOf(items))
	case f.kind == reflect.String:
		v.SetString(text)
	case f.kind == reflect.Int:
		n, err := strconv.Atoi(strings.TrimSpace(text))
		if err != nil {
			return fmt.Errorf("%s: %q is not a whole number", src, text)
		}
		v.SetInt(int64(n))
	case f.kind == reflect.Float64:
		x, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil {
			return fmt.Errorf("%s: %q is not a number", src, text)
		}
		v.SetFloat(x)
	case f.kind == reflect.Bool:
		switch strings.ToLower(strings.TrimSpace(text)) {
		case "1", "true", "yes", "on":
			v.SetBool(true)
		case "0", "false", "no", "off", "":
			v.SetBool(false)
		default:
			return fmt.Errorf("%s: %q is not true or false", src, text)
		}
	default:
		return fmt.Errorf("%s: unsupported setting type %s", src, f.kind)
	}
	return nil
}

// Path is the config file: $XDG_CONFIG_HOME/deskpilot/config.toml (~/.config when unset).
func Path() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "deskpilot", "config.toml")
}

// DataHome is $XDG_DATA_HOME (~/.local/share when unset).
func DataHome() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".local", "share")
}

// LoadFile reads the config file at path; a missing file is the zero Settings.
// An unknown key is an error, and so is a relative trace_dir (it would depend on
// the folder deskpilot was started from); "~/" is expanded.
func LoadFile(path string) (Settings, error) {
	var s Settings
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("read config: %w", err)
	}
	md, err := toml.Decode(string(data), &s)
	if err != nil {
		return s, fmt.Errorf("config %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return s, fmt.Errorf("config %s: unknown setting %q", path, und[0].String())
	}
	if s.TraceDir != "" {
		d, err := expandHome(s.TraceDir)
		if err != nil {
			return s, fmt.Errorf("config %s: trace_dir: %w", path, err)
		}
		if !filepath.IsAbs(d) {
			return s, fmt.Errorf("config %s: trace_dir %q must be an absolute path or start with ~/", path, s.TraceDir)
		}
		s.TraceDir = d
	}
	return s, nil
}

// SaveFile writes s to path atomically (a temporary file, then a rename),
// creating the folder, readable by the owner only.
func SaveFile(path string, s Settings) error {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(s); err != nil {
		return fmt.Errorf("encode config: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	return nil
}

// expandHome expands a leading "~" or "~/" to the home folder.
func expandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("expand %q: %w", p, err)
	}
	return filepath.Join(home, strings.TrimPrefix(p, "~")), nil
}

// ApplyEnv overlays the environment (lookup is os.LookupEnv in production): each
// setting's variables, an empty value counting as unset.
func (s Settings) ApplyEnv(lookup func(string) (string, bool)) (Settings, error) {
	for _, f := range fields() {
		for _, name := range f.envs {
			if v, ok := lookup(name); ok && v != "" {
				if err := f.set(&s, v, name); err != nil {
					return s, err
				}
			}
		}
	}
	return s, nil
}

// Flags are the settings' command-line flags, registered on one FlagSet.
type Flags struct {
	fs   *pflag.FlagSet
	vals Settings
}

// AddFlags registers a flag for every setting that has one.
func AddFlags(fs *pflag.FlagSet) *Flags {
	f := &Flags{fs: fs}
	for _, fd := range fields() {
		if fd.flag == "" {
			continue
		}
		usage := fd.usage
		if fd.def != "" {
			usage += " (default " + fd.def + ")"
		}
		ptr := fd.value(&f.vals).Addr().Interface()
		switch p := ptr.(type) {
		case *string:
			fs.StringVar(p, fd.flag, "", usage)
		case *int:
			fs.IntVar(p, fd.flag, 0, usage)
		case *float64:
			fs.Float64Var(p, fd.flag, 0, usage)
		case *bool:
			fs.BoolVar(p, fd.flag, false, usage)
		case *[]string:
			fs.StringSliceVar(p, fd.flag, nil, usage)
		}
	}
	return f
}

// Apply overlays the flags given on the command line onto s.
func (f *Flags) Apply(s Settings) Settings {
	if f == nil {
		return s
	}
	for _, fd := range fields() {
		if fd.flag == "" {
			continue
		}
		if fl := f.fs.Lookup(fd.flag); fl != nil && fl.Changed {
			fd.value(&s).Set(fd.value(&f.vals))
		}
	}
	return s
}

// Sources are where Load reads settings from.
type Sources struct {
	Path   string                      // config file; "" = Path()
	Lookup func(string) (string, bool) // environment; nil = os.LookupEnv
	Flags  *Flags                      // command line; nil = none
}

// Load reads the file, then the environment, then the flags, and resolves the
// result (presets, defaults, checks) into a Config.
func Load(src Sources) (Config, error) {
	if src.Path == "" {
		src.Path = Path()
	}
	if src.Lookup == nil {
		src.Lookup = os.LookupEnv
	}
	s, err := LoadFile(src.Path)
	if err != nil {
		return Config{}, err
	}
	if s, err = s.ApplyEnv(src.Lookup); err != nil {
		return Config{}, err
	}
	c, err := Resolve(src.Flags.Apply(s))
	if err != nil {
		return Config{}, err
	}
	c.File = src.Path
	return c, nil
}

// EnvNames lists every environment variable a setting reads, in declaration order.
func EnvNames() []string {
	var out []string
	for _, f := range fields() {
		out = append(out, f.envs...)
	}
	return out
}
