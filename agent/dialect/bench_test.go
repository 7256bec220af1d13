package dialect

import (
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"deskpilot/vision"
)

// BenchmarkParse measures parsing and compiling one typical reply per
// dialect (the work a step adds before its program runs).
func BenchmarkParse(b *testing.B) {
	replies := map[string]string{
		"code":       "Thought: click Save.\n```python\nclick(812, 604)\ntype_text(\"hello\")\n```",
		"uitars-1.5": "Thought: I will type the address and submit it.\nAction: click(start_box='(197,525)')\n\ntype(content='doubao.com\\n')",
		"doubao":     "Thought: search.\nAction: click(point='<point>510 150</point>')\n\ntype(content='weather\\n')",
		"qwen2.5":    "Clicking the search box.\n" + toolCall(`{"action": "left_click", "coordinate": [960, 540]}`) + toolCall(`{"action": "type", "text": "weather\n"}`),
		"qwen3":      "Action: click the search box.\n" + toolCall(`{"action": "left_click", "coordinate": [447, 81]}`),
		"pyautogui":  "The box is at the top.\n```python\nimport pyautogui\npyautogui.click(960, 540)\ntime.sleep(0.5)\npyautogui.write('weather')\npyautogui.press('enter')\n```",
	}
	for _, name := range Names() {
		reply, ok := replies[name]
		if !ok {
			continue
		}
		d, _ := ByName(name)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := d.Parse(reply); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkObserveSpace is the observation each dialect costs on a busy
// 1920x1080 screen that changes every step: scaled to the dialect's image
// size (1366x768 for code, smart-resized 1932x1092 for UI-TARS and
// Qwen2.5-VL, 1920x1088 for Qwen3-VL), cursor drawn, PNG-encoded. Two frames
// that differ in every row alternate, so nothing is reused.
func BenchmarkObserveSpace(b *testing.B) {
	f, err := os.Open(filepath.Join("..", "..", "vision", "testdata", "busy1080.png"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		b.Fatal(err)
	}
	src := image.NewRGBA(img.Bounds())
	draw.Draw(src, src.Rect, img, img.Bounds().Min, draw.Src)
	moved := image.NewRGBA(src.Rect) // every row shifted by 3 pixels
	for y := range src.Rect.Dy() {
		row := src.Pix[y*src.Stride : y*src.Stride+src.Rect.Dx()*4]
		copy(moved.Pix[y*moved.Stride+12:], row[:len(row)-12])
	}
	frames := []*image.RGBA{src, moved}
	for _, name := range []string{"code", "uitars-1.5", "qwen3"} {
		d, _ := ByName(name)
		sp := d.Space(src.Rect.Size(), 0)
		b.Run(fmt.Sprintf("%s-%dx%d", name, sp.Image.X, sp.Image.Y), func(b *testing.B) {
			o := vision.Observer{Mapper: vision.Mapper{Display: src.Rect, Image: sp.Image, Mode: sp.Mode}}
			cursor := image.Pt(700, 300)
			i := 0
			for b.Loop() {
				if _, err := o.Observe(frames[i%2], vision.Overlay{Cursor: &cursor}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
