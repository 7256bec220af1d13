package agent

import "testing"

// The marks and layers of an observation go before the words that introduce
// the screenshot; a turn of the screenshot alone gets none.
func TestWithLayers(t *testing.T) {
	const notes = "Marks on the screenshot:\n[1] push button \"OK\"\n"
	tests := []struct {
		name, text, notes, want string
	}{
		{"code dialect", "Printed output:\n1\nThis is the screen now:", notes,
			"Printed output:\n1\n" + notes + "This is the screen now:"},
		{"first turn", "New task:\nsave\n\nThis is the screen now:", notes,
			"New task:\nsave\n\n" + notes + "This is the screen now:"},
		{"prose of another dialect", "Step 2 done.", notes, "Step 2 done.\n" + notes[:len(notes)-1]},
		{"screenshot alone", "", notes, ""},
		{"no notes", "This is the screen now:", "", "This is the screen now:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := withLayers(tt.text, tt.notes); got != tt.want {
				t.Errorf("withLayers(%q, %q) = %q, want %q", tt.text, tt.notes, got, tt.want)
			}
		})
	}
}
