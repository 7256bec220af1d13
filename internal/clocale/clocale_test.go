package clocale

import "testing"

func TestApply(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string // LANGUAGE afterwards
	}{
		{"C.UTF-8", map[string]string{"LANG": "C.UTF-8"}, "en"},
		{"POSIX with charset in LC_ALL", map[string]string{"LC_ALL": "POSIX.UTF-8", "LANG": "de_DE.UTF-8"}, "en"},
		{"a real locale wins", map[string]string{"LC_MESSAGES": "de_DE.UTF-8", "LANG": "C.UTF-8"}, ""},
		{"plain C needs nothing", map[string]string{"LANG": "C"}, ""},
		{"LANGUAGE set by the person", map[string]string{"LANG": "C.UTF-8", "LANGUAGE": "fr"}, "fr"},
		{"nothing set", map[string]string{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range tt.env {
				env[k] = v
			}
			apply(func(k string) string { return env[k] }, func(k, v string) error { env[k] = v; return nil })
			if env["LANGUAGE"] != tt.want {
				t.Errorf("LANGUAGE = %q, want %q", env["LANGUAGE"], tt.want)
			}
		})
	}
}
