package config

import "strings"

// Preset is a known endpoint with a model that fits a desktop agent, and how to feed
// that model: the longest image side and the coordinate mode it answers in.
type Preset struct {
	Name     string  // short name used in config and flags, e.g. "ollama"
	BaseURL  string  // endpoint up to /v1; empty for "custom"
	Model    string  // default model name
	KeyEnv   string  // environment variable holding the API key; empty when none is needed
	MaxSide  int     // longest side of the screenshot sent, in pixels
	Coords   string  // "pixels" (of the image the model saw) or "norm1000" (0–1000 on both axes)
	PriceIn  float64 // USD per million prompt tokens; 0 when unknown or free
	PriceOut float64 // USD per million completion tokens; 0 when unknown or free
	Note     string  // one line for the settings dialog
}

// Image sizes of the presets. 1366 keeps a 16:9 screen at 1366x768, which OpenAI's
// vision models take without rescaling. Qwen2.5-VL cuts images into 28-pixel patches
// and answers in the pixels of the image it was given, so its presets use a multiple
// of 28 (1288x728 for 16:9) to keep its coordinate space equal to ours. Anthropic
// advises at most 1280x800 for computer use.
const (
	sideOpenAI = 1366
	sideQwen   = 1288
	sideClaude = 1280
)

// Presets returns the built-in presets; "custom" is last. The slice is new on each
// call, so callers may modify it.
func Presets() []Preset {
	return []Preset{
		{Name: "openai", BaseURL: "https://api.openai.com/v1", Model: "gpt-4.1", KeyEnv: "OPENAI_API_KEY",
			MaxSide: sideOpenAI, Coords: "pixels", PriceIn: 2, PriceOut: 8,
			Note: "OpenAI; needs OPENAI_API_KEY"},
		{Name: "openrouter", BaseURL: "https://openrouter.ai/api/v1", Model: "qwen/qwen2.5-vl-72b-instruct",
			KeyEnv: "OPENROUTER_API_KEY", MaxSide: sideQwen, Coords: "pixels",
			Note: "OpenRouter; price depends on the provider it routes to"},
		{Name: "gemini", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai", Model: "gemini-2.5-flash",
			KeyEnv: "GEMINI_API_KEY", MaxSide: sideOpenAI, Coords: "norm1000", PriceIn: 0.30, PriceOut: 2.50,
			Note: "Google Gemini through its OpenAI-compatible endpoint; Gemini points on a 0–1000 grid"},
		{Name: "anthropic", BaseURL: "https://api.anthropic.com/v1", Model: "claude-sonnet-4-5",
			KeyEnv: "ANTHROPIC_API_KEY", MaxSide: sideClaude, Coords: "pixels", PriceIn: 3, PriceOut: 15,
			Note: "Anthropic Claude through the Messages API (provider anthropic)"},
		{Name: "ollama", BaseURL: "http://localhost:11434/v1", Model: "qwen2.5vl:7b",
			MaxSide: sideQwen, Coords: "pixels", Note: "local Ollama: ollama pull qwen2.5vl:7b"},
		{Name: "vllm", BaseURL: "http://localhost:8000/v1", Model: "Qwen/Qwen2.5-VL-7B-Instruct",
			MaxSide: sideQwen, Coords: "pixels", Note: "local vLLM: vllm serve Qwen/Qwen2.5-VL-7B-Instruct"},
		{Name: "lmstudio", BaseURL: "http://localhost:1234/v1", Model: "qwen2.5-vl-7b-instruct",
			MaxSide: sideQwen, Coords: "pixels", Note: "local LM Studio server with a vision model loaded"},
		{Name: "llamacpp", BaseURL: "http://localhost:8080/v1", Model: "qwen2.5-vl-7b",
			MaxSide: sideQwen, Coords: "pixels",
			Note: "local llama-server with --mmproj; it answers with the model it loaded"},
		{Name: "custom", KeyEnv: "OPENAI_API_KEY", MaxSide: sideOpenAI, Coords: "pixels",
			Note: "any OpenAI-compatible endpoint; set base URL and model"},
	}
}

// PresetByName finds a preset by name, ignoring case.
func PresetByName(name string) (Preset, bool) {
	for _, p := range Presets() {
		if strings.EqualFold(p.Name, name) {
			return p, true
		}
	}
	return Preset{}, false
}

// CoordsFor guesses the coordinate mode a model answers in from its name, for custom
// endpoints: models trained on a 0–1000 grid (Qwen2-VL, Qwen3-VL, UI-TARS 1.0, Gemini,
// CogAgent) get "norm1000"; everything else, including Qwen2.5-VL and UI-TARS-1.5
// (which answer in pixels of the image they saw), gets "pixels".
func CoordsFor(model string) string {
	m := strings.ToLower(model)
	m = strings.NewReplacer("_", "-", " ", "-").Replace(m)
	switch {
	case strings.Contains(m, "ui-tars-1.5"), strings.Contains(m, "ui-tars1.5"):
		return "pixels"
	case strings.Contains(m, "ui-tars"), strings.Contains(m, "uitars"),
		strings.Contains(m, "qwen2-vl"), strings.Contains(m, "qwen2vl"),
		strings.Contains(m, "qwen3-vl"), strings.Contains(m, "qwen3vl"),
		strings.Contains(m, "gemini"), strings.Contains(m, "cogagent"):
		return "norm1000"
	}
	return "pixels"
}
