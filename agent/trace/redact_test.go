package trace

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fillStrings sets every string and []string field of the struct v points to (and of
// the structs its pointer fields point to) to text.
func fillStrings(v reflect.Value, text string) {
	v = v.Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch {
		case f.Kind() == reflect.String:
			f.SetString(text)
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
			f.Set(reflect.ValueOf([]string{text, text}))
		case f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.Struct:
			f.Set(reflect.New(f.Type().Elem()))
			fillStrings(f, text)
		}
	}
}

func TestRedaction(t *testing.T) {
	const key, pin, late = "sk-proj-AbCdEf0123456789", "4711", "hunter2-late"
	text := "before " + key + " middle " + pin + " end"
	want := "before " + Redacted + " middle " + Redacted + " end"

	start := Event{Task: text, Model: text, BaseURL: "https://u:" + key + "@api.example.com/" + key + "?k=" + key}
	w, err := Create(t.TempDir(), start, WithSecrets(key, pin, ""))
	if err != nil {
		t.Fatal(err)
	}
	var every Event
	fillStrings(reflect.ValueOf(&every), text)
	every.Type, every.Step = TypeObservation, 1
	original := every
	origAction := *every.Action
	if err := w.Write(every); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*every.Action, origAction) || every.Text != original.Text {
		t.Error("Write changed the caller's event")
	}
	w.AddSecrets(late)
	if err := w.Write(Event{Type: TypeObservation, Step: 2, Text: "typed " + late}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	for _, name := range []string{EventsFile, ReportFile} {
		data, err := os.ReadFile(filepath.Join(w.Dir(), name))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{key, pin, late} {
			if strings.Contains(string(data), s) {
				t.Errorf("%s contains the secret %q", name, s)
			}
		}
	}
	tr, err := Read(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.Start.BaseURL; got != "https://api.example.com/"+Redacted {
		t.Errorf("base_url %q", got)
	}
	if tr.Start.Task != want || tr.Start.Model != want {
		t.Errorf("run_start task %q model %q, want %q", tr.Start.Task, tr.Start.Model, want)
	}
	var wantEvent Event
	fillStrings(reflect.ValueOf(&wantEvent), want)
	wantEvent.Type, wantEvent.Step = TypeObservation, 1
	got := tr.Steps[0].Events[0]
	got.T = wantEvent.T
	if !reflect.DeepEqual(got, wantEvent) {
		t.Errorf("redacted event:\n got %+v\nwant %+v", got, wantEvent)
	}
	if got := tr.Steps[1].Events[0].Text; got != "typed "+Redacted {
		t.Errorf("secret added mid-run: %q", got)
	}
}

func TestRedactorLongestSecretWins(t *testing.T) {
	var r redactor
	r.add("abcd", "abcd-ef", "abcd")
	if got := r.str("xx abcd-ef yy abcd"); got != "xx "+Redacted+" yy "+Redacted {
		t.Errorf("got %q", got)
	}
	var none redactor
	if got := none.str("abc"); got != "abc" {
		t.Errorf("zero redactor changed %q", got)
	}
}

// A short or placeholder API key never blanks out ordinary text; a secret
// shorter than secret.FragmentLen is redacted only where it stands as a
// whole token, a longer one (and any run of FragmentLen of its characters)
// wherever it is.
func TestRedactOnlyWhatIsSecret(t *testing.T) {
	tests := []struct{ name, text, secret, want string }{
		{"one letter", "fix the x axis", "x", "fix the x axis"},
		{"placeholder", "EMPTY means none", "EMPTY", "EMPTY means none"},
		{"ollama", "run ollama serve", "ollama", "run ollama serve"},
		{"whole token", "key=sk-live-1234abcd;", "sk-live-1234abcd", "key=" + Redacted + ";"},
		{"inside a longer token", "hunter2pass9", "hunter2pass", Redacted + "9"},
		{"a part of it", "the hunter2 password", "hunter2pass", "the " + Redacted + " password"},
		{"long after an escape", `"\ask-live-0123456789abcdef"`, "sk-live-0123456789abcdef", `"\a` + Redacted + `"`},
		{"a pin", "code 4711 entered", "4711", "code " + Redacted + " entered"},
		{"pin inside a number", "order 847112", "4711", "order 847112"},
		{"in a URL", "https://u:hunter2pass@host/", "hunter2pass", "https://u:" + Redacted + "@host/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Redact(tt.text, tt.secret); got != tt.want {
				t.Errorf("Redact(%q, %q) = %q, want %q", tt.text, tt.secret, got, tt.want)
			}
		})
	}
}
