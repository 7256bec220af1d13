package config_test

import (
	"net/url"
	"testing"

	"deskpilot/internal/config"
)

func TestPresets(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range config.Presets() {
		t.Run(p.Name, func(t *testing.T) {
			if seen[p.Name] {
				t.Errorf("duplicate preset %q", p.Name)
			}
			seen[p.Name] = true
			if p.Coords != "pixels" && p.Coords != "norm1000" {
				t.Errorf("coords %q", p.Coords)
			}
			if p.MaxSide < 512 || p.MaxSide > 2048 {
				t.Errorf("max side %d", p.MaxSide)
			}
			if p.Name == "custom" {
				return
			}
			if u, err := url.Parse(p.BaseURL); err != nil || u.Host == "" || u.Scheme == "" {
				t.Errorf("base URL %q: %v", p.BaseURL, err)
			}
			if p.Model == "" {
				t.Error("no model")
			}
			got, ok := config.PresetByName(p.Name)
			if !ok || got != p {
				t.Errorf("PresetByName(%q) = %+v, %v", p.Name, got, ok)
			}
		})
	}
	if p, ok := config.PresetByName("OLLAMA"); !ok || p.KeyEnv != "" || p.BaseURL != "http://localhost:11434/v1" {
		t.Errorf("PresetByName(OLLAMA) = %+v, %v", p, ok)
	}
	if _, ok := config.PresetByName("nope"); ok {
		t.Error("PresetByName(nope) found something")
	}
}

func TestCoordsFor(t *testing.T) {
	tests := []struct{ model, want string }{
		{"gpt-4.1", "pixels"},
		{"Qwen/Qwen2.5-VL-7B-Instruct", "pixels"},
		{"qwen2.5vl:7b", "pixels"},
		{"Qwen/Qwen2-VL-7B-Instruct", "norm1000"},
		{"Qwen/Qwen3-VL-8B-Instruct", "norm1000"},
		{"bytedance/UI-TARS-7B-DPO", "norm1000"},
		{"ByteDance-Seed/UI-TARS-1.5-7B", "pixels"},
		{"gemini-2.5-flash", "norm1000"},
		{"", "pixels"},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			if got := config.CoordsFor(tt.model); got != tt.want {
				t.Errorf("CoordsFor(%q) = %q, want %q", tt.model, got, tt.want)
			}
		})
	}
}
