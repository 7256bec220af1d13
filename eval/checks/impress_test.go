package checks

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBackgroundImageInSlide: the background picture of an Impress-made
// presentation's second slide comes out of the file, the same picture as the
// one the slide was made with; the first slide, without one, gives None.
func TestBackgroundImageInSlide(t *testing.T) {
	e := dirEnv{home: t.TempDir(), cache: t.TempDir()}
	data, err := os.ReadFile(td("ppt-bgimage.pptx"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(e.home, "Desktop"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.home, "Desktop", "talk.pptx"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := func(idx int64) map[string]any {
		return map[string]any{"type": "background_image_in_slide", "ppt_file_path": "/home/user/Desktop/talk.pptx", "slide_index": idx, "dest": "bg.png"}
	}
	v, err := Get(t.Context(), e, cfg(1))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := v.(string)
	if p != filepath.Join(e.cache, "ppt", "media", "image1.png") {
		t.Fatalf("background_image_in_slide = %v", v)
	}
	m, _ := Lookup("compare_images")
	s, err := m.Fn(t.Context(), Call{Result: p, Expected: td("src/ppt-pic.png")})
	if err != nil || s.Value != 1 {
		t.Errorf("the extracted background compares %v (%s), %v with the picture it was made from", s.Value, s.Note, err)
	}
	for _, idx := range []int64{0, 7} {
		if v, err := Get(t.Context(), e, cfg(idx)); v != nil || err != nil {
			t.Errorf("slide %d = %v, %v; want None", idx, v, err)
		}
	}
}
