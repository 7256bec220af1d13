package editdist

import (
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"enter", "entr", 1}, {"escape", "escpae", 1},
		{"kitten", "sitting", 3}, {"東京", "京東", 1}, {"pushbutton", "push button", 1},
		{strings.Repeat("a", 10000), strings.Repeat("a", 64) + "b", 0}, // only the first 64 runes count
		{strings.Repeat("é", 70), strings.Repeat("é", 63) + "e", 1},
	}
	for _, tt := range tests {
		name := tt.a[:min(len(tt.a), 12)] + "/" + tt.b[:min(len(tt.b), 12)]
		t.Run(name, func(t *testing.T) {
			if got := Distance(tt.a, tt.b); got != tt.want {
				t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
		})
	}
}
