package app

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/widget"

	"deskpilot/actions"
	"deskpilot/agent"
	"deskpilot/internal/config"
)

func TestRunModel(t *testing.T) {
	m := &runModel{}
	for _, e := range runScript() {
		m.apply(e)
	}
	if len(m.Steps) != 2 || m.Usage != (agent.Usage{Input: 2700, Output: 140}) || m.FrameStep != 1 {
		t.Fatalf("steps=%d usage=%+v frameStep=%d", len(m.Steps), m.Usage, m.FrameStep)
	}
	if m.phase() != phaseThinking || !m.Steps[1].Failed() || m.Steps[0].Failed() {
		t.Errorf("phase=%v failed=%v,%v", m.phase(), m.Steps[0].Failed(), m.Steps[1].Failed())
	}
	m.apply(agent.Paused{Reason: "takeover"})
	if m.stateText() != "Paused" {
		t.Errorf("state %q", m.stateText())
	}
	m.apply(agent.Finished{Outcome: agent.MaxSteps, Steps: 30, Elapsed: 90 * time.Second})
	if m.Paused || m.stateText() != "Step limit reached" || m.elapsed(time.Time{}) != 90*time.Second {
		t.Errorf("finished: paused=%v state=%q", m.Paused, m.stateText())
	}
	if got := m.statusLine(time.Time{}, nil); got != "Step 30 / 30  ·  1:30  ·  2.7k in  ·  140 out" {
		t.Errorf("status %q", got)
	}
}

func TestFormatting(t *testing.T) {
	tests := []struct{ name, got, want string }{
		{"tokens small", tokens(950), "950"},
		{"tokens k", tokens(12_345), "12k"},
		{"tokens 1k", tokens(1_234), "1.2k"},
		{"tokens M", tokens(2_500_000), "2.5M"},
		{"clock", clock(75 * time.Second), "1:15"},
		{"clock hours", clock(3723 * time.Second), "1:02:03"},
		{"seconds ms", seconds(850 * time.Millisecond), "850 ms"},
		{"seconds", seconds(3200 * time.Millisecond), "3.2 s"},
		{"drag", actionText(actions.Record{Name: "drag", Args: "1, 2, 3, 4", Screen: &[2]int{2, 4}, To: &[2]int{6, 8}}),
			"drag(1, 2, 3, 4) → screen (2, 4)–(6, 8)"},
		{"failed", actionText(actions.Record{Name: "press", Args: `"ctl+s"`, Error: "unknown key ctl"}), `press("ctl+s") — unknown key ctl`},
		{"clip", clipLines("a\nb\nc\nd", 2), "a\nb\n… 2 more lines (see Runs for the whole text)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

func TestCost(t *testing.T) {
	tests := []struct {
		name string
		p    *config.Preset
		want string
		ok   bool
	}{
		{"no preset", nil, "", false},
		{"free", &config.Preset{}, "", false},
		{"priced", &config.Preset{PriceIn: 3, PriceOut: 15}, "$0.12", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := cost(agent.Usage{Input: 30_000, Output: 2_000}, tt.p)
			if got != tt.want || ok != tt.ok {
				t.Errorf("cost = %q, %v", got, ok)
			}
		})
	}
}

func TestTokenize(t *testing.T) {
	toks := tokenize("for x in xs:  # loop\n    click(x, 10)\nfinal_answer('a\\'b')")
	var kinds []string
	for _, tk := range toks {
		switch tk.Kind {
		case tokKeyword:
			kinds = append(kinds, "K:"+tk.Text)
		case tokBuiltin:
			kinds = append(kinds, "B:"+tk.Text)
		case tokString:
			kinds = append(kinds, "S:"+tk.Text)
		case tokNumber:
			kinds = append(kinds, "N:"+tk.Text)
		case tokComment:
			kinds = append(kinds, "C:"+tk.Text)
		}
	}
	want := "K:for K:in C:# loop B:click N:10 B:final_answer S:'a\\'b'"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("tokens\n got %s\nwant %s", got, want)
	}
	var all strings.Builder
	for _, tk := range toks {
		all.WriteString(tk.Text)
	}
	if all.String() != "for x in xs:  # loop\n    click(x, 10)\nfinal_answer('a\\'b')" {
		t.Error("tokens do not add up to the source")
	}
}

func TestCodeSegmentsWrap(t *testing.T) {
	tests := []struct {
		name string
		cols int
		want string
	}{
		{"no wrap", 0, "click(1, 2)\ntype_text(\"hello world\")"},
		{"wrap at 12", 12, "click(1, 2)\ntype_text(\"h\n↪ ello world\n↪ \")"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			for _, s := range codeSegments("click(1, 2)\ntype_text(\"hello world\")", tt.cols) {
				b.WriteString(s.(*widget.TextSegment).Text)
			}
			if b.String() != tt.want {
				t.Errorf("got %q, want %q", b.String(), tt.want)
			}
		})
	}
}

func TestSettingsForm(t *testing.T) {
	base := config.Settings{TraceDir: "/keep/me", Temperature: 0.3}
	tests := []struct {
		name    string
		form    settingsForm
		wantErr string
		check   func(c config.Settings) bool
	}{
		{"defaults stay zero", settingsForm{BaseURL: "http://h:1/v1/", Model: " m ", Coords: "pixels"}, "",
			func(c config.Settings) bool {
				return c.BaseURL == "http://h:1/v1" && c.Model == "m" && c.CoordMode == "" && c.MaxSteps == 0 && c.TraceDir == "/keep/me" && c.Temperature == 0.3
			}},
		{"numbers", settingsForm{MaxSide: "800", MaxSteps: "5", Keep: "1", Plan: "0", Display: "2", Coords: "norm1000"}, "",
			func(c config.Settings) bool {
				return c.MaxSide == 800 && c.MaxSteps == 5 && c.KeepImages == 1 && c.Display == 2 && c.CoordMode == "norm1000"
			}},
		{"bad number", settingsForm{MaxSteps: "many"}, "max steps: \"many\" is not a whole number", nil},
		{"too small", settingsForm{MaxSide: "10"}, "image size: 10 is below the minimum 256", nil},
		{"bad url", settingsForm{BaseURL: "localhost:11434"}, "must start with http", nil},
		{"key as variable", settingsForm{KeyEnv: "sk-proj-abc"}, "not the key itself", nil},
		{"bad coords", settingsForm{Coords: "inches"}, "want pixels or norm1000", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tt.form.apply(base)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !tt.check(c) {
				t.Fatalf("apply = %+v, %v", c, err)
			}
			if back := formFrom(c); back.Model != strings.TrimSpace(tt.form.Model) {
				t.Errorf("round trip model %q", back.Model)
			}
		})
	}
}

func TestRunModelDropsRetriedText(t *testing.T) {
	m := &runModel{}
	m.apply(agent.StepStarted{Step: 1, Max: 5})
	m.apply(agent.TextDelta{Step: 1, Text: "Thought: half a rep"})
	m.apply(agent.TextDelta{Step: 1, Reset: true})
	m.apply(agent.TextDelta{Step: 1, Text: "Thought: whole reply"})
	if got := m.Steps[0].Reply; got != "Thought: whole reply" {
		t.Errorf("reply after a retried stream = %q", got)
	}
}
