package registry

import "testing"

func TestForModel(t *testing.T) {
	cases := []struct {
		model, dialect, coords, grounder string
	}{
		{"ui-tars-1.5-7b", "uitars-1.5", "", "uitars-1.5"},
		{"ByteDance-Seed/UI-TARS-1.5-7B", "uitars-1.5", "", "uitars-1.5"},
		{"hf.co/mradermacher/UI-TARS-1.5-7B-GGUF:Q4_K_M", "uitars-1.5", "", "uitars-1.5"},
		{"UI-TARS-7B-DPO", "uitars-1.0", "", "uitars-1.0"},
		{"bytedance-research/UI-TARS-72B-SFT", "uitars-1.0", "", "uitars-1.0"},
		{"ui-tars-2b-sft", "uitars-1.0", "", "uitars-1.0"},
		{"doubao-1.5-ui-tars-250328", "doubao", "", "doubao"},
		{"doubao-seed-1-6-vision", "doubao", "", "doubao"},
		{"Qwen/Qwen2.5-VL-72B-Instruct", "qwen2.5", "", "qwen2.5"},
		{"qwen2.5-vl-7b-instruct-awq", "qwen2.5", "", "qwen2.5"},
		{"qwen2.5vl:7b", "qwen2.5", "", "qwen2.5"},
		{"Qwen/Qwen3-VL-8B-Instruct-FP8", "qwen3", "", "qwen3"},
		{"qwen3-vl:30b-a3b", "qwen3", "", "qwen3"},
		{"qwen/qwen3-vl-235b-a22b-thinking", "qwen3", "", "qwen3"},
		{"xlangai/OpenCUA-7B", "opencua", "smart", ""},
		{"opencua-32b", "opencua", "smart", ""},
		{"OpenCUA-Qwen2-7B", "opencua", "unit", ""},
		{"xlangai/OpenCUA-A3B", "opencua", "unit", ""},
		{"xlangai/Aguvis-7B-720P", "pyautogui", "unit", ""},
		{"Hcompany/Holo3-35B-A3B", "holo3", "", ""},
		{"holo3-1-35b-a3b", "holo3", "", ""},
		{"Hcompany/Holo-3.1-35B-A3B", "holo3", "", ""},
		{"microsoft/Fara-7B", "fara", "", ""},
		{"computer-use-preview", "openai-computer", "", ""},
		{"gemini-2.5-computer-use-preview-10-2025", "gemini-computer", "", ""},
		{"claude-opus-4-7", "", "", ""},
		{"Salesforce/GTA1-7B-2507", "", "", "gta1"},
		{"Hcompany/Holo1.5-7B", "", "", "holo1.5"},
		{"Hcompany/Holo2-8B", "", "", "holo2"},
		{"inclusionAI/UI-Venus-Ground-7B", "", "", "ui-venus"},
		{"gpt-4o", "", "", ""},
		{"qwen2-vl-7b", "", "", ""},
		{"", "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.model, func(t *testing.T) {
			if got := ForModel(c.model); got != c.dialect {
				t.Errorf("ForModel = %q, want %q", got, c.dialect)
			}
			if got := PyAutoGUICoordsForModel(c.model) + OpenCUACoordsForModel(c.model); got != c.coords {
				t.Errorf("coordinates for the model = %q, want %q", got, c.coords)
			}
			if got := GrounderForModel(c.model); got != c.grounder {
				t.Errorf("GrounderForModel = %q, want %q", got, c.grounder)
			}
			if c.dialect != "" {
				if _, err := Dialect(c.dialect); err != nil {
					t.Errorf("Dialect(%q): %v", c.dialect, err)
				}
				if err := CheckPyAutoGUICoords(c.coords); err != nil {
					t.Errorf("CheckPyAutoGUICoords(%q): %v", c.coords, err)
				}
			}
		})
	}
}
