package dialect

import "testing"

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
