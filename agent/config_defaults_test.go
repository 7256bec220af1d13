package agent

import (
	"testing"

	"deskpilot/agent/dialect"
)

// TestImageScheduleDefaults: each dialect's screenshots kept and chunk when
// neither is set, and the chunk for a keep_images set alone, within the bound
// of DefaultImageBound screenshots a request unless the family keeps more.
func TestImageScheduleDefaults(t *testing.T) {
	for _, tt := range []struct {
		name        string
		d           dialect.Dialect
		keep, chunk int // set
		wantKeep    int
		wantChunk   int
	}{
		{"code", dialect.Code{}, 0, 0, 1, 5},
		{"anthropic", dialect.AnthropicComputer{}, 0, 0, 3, 3},
		{"openai", dialect.OpenAIComputer{}, 0, 0, 3, 3},
		{"uitars", mustDialect(t, "uitars-1.5"), 0, 0, 5, 5},
		{"code keep 2", dialect.Code{}, 2, 0, 2, 4},
		{"code keep 3", dialect.Code{}, 3, 0, 3, 3},
		{"code keep 4", dialect.Code{}, 4, 0, 4, 4},
		{"code keep 8", dialect.Code{}, 8, 0, 8, 8},
		{"code chunk set", dialect.Code{}, 0, 1, 1, 1},
		{"anthropic keep 1", dialect.AnthropicComputer{}, 1, 0, 1, 5},
	} {
		c := Config{Dialect: tt.d, KeepImages: tt.keep, ImageChunk: tt.chunk}.withDefaults()
		if c.KeepImages != tt.wantKeep || c.ImageChunk != tt.wantChunk {
			t.Errorf("%s: keep %d, chunk %d; want %d, %d", tt.name, c.KeepImages, c.ImageChunk, tt.wantKeep, tt.wantChunk)
		}
		if bound := c.KeepImages + c.ImageChunk - 1; tt.chunk == 0 && c.KeepImages <= 3 && bound != DefaultImageBound {
			t.Errorf("%s: a request holds up to %d screenshots, want %d", tt.name, bound, DefaultImageBound)
		}
	}
}

func mustDialect(t *testing.T, name string) dialect.Dialect {
	t.Helper()
	d, err := dialect.ByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
