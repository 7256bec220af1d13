package checks

import (
	"math"
	"strconv"
	"testing"
)

// TestCheckMP3Meta runs check_mp3_meta on MP3s lame encoded and lame,
// mid3v2 and mutagen tagged (testdata/make.sh). Each want is what OSWorld's
// check_mp3_meta (metrics/others.py at eac51b51, mutagen 1.46) gave on the
// same files.
func TestCheckMP3Meta(t *testing.T) {
	tests := []struct{ file, rules, want string }{
		{"mp3-lame.mp3", `{"title": {"method": "eq", "ref": "Missing You"}, "artist": {"method": "eq", "ref": "Cheng Xiang"}}`, "1.0"},
		{"mp3-lame.mp3", `{"title": {"method": "eq", "ref": "Missing Me"}}`, "0.0"},
		{"mp3-mid3v2.mp3", `{"title": {"method": "eq", "ref": "思念"}, "album": {"method": "re", "ref": "^Son"}}`, "1.0"},
		{"mp3-mid3v2.mp3", `{"genre": {"method": "eq", "ref": ""}}`, "1.0"},
		{"mp3-two.mp3", `{"artist": {"method": "eq", "ref": "Han Baoyi,Guest"}}`, "1.0"},
		{"mp3-two.mp3", `{"artist": {"method": "eq", "ref": "Han Baoyi"}}`, "0.0"},
		{"mp3-notag.mp3", `{"title": {"method": "eq", "ref": ""}}`, "error"},
	}
	m, _ := Lookup("check_mp3_meta")
	for _, tt := range tests {
		s, err := m.Fn(t.Context(), Call{Result: td(tt.file), Expected: rulesOf(t, tt.rules)})
		if tt.want == "error" {
			if err == nil {
				t.Errorf("%s %s = %v, want an error", tt.file, tt.rules, s.Value)
			}
			continue
		}
		w, _ := strconv.ParseFloat(tt.want, 64)
		if err != nil || math.Abs(s.Value-w) > 0 {
			t.Errorf("%s %s = %v (%s), %v; want %v", tt.file, tt.rules, s.Value, s.Note, err, w)
		}
	}
}
