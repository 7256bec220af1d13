package dialect

import "deskpilot/agent/dialect/registry"

// ForModel returns the dialect a model was trained to speak, from its name
// (registry.ForModel); "" when no family matches: the caller uses Default.
func ForModel(model string) string { return registry.ForModel(model) }

// OptionsForModel returns the dialect options a model name implies
// (registry.PyAutoGUICoordsForModel, registry.OpenCUACoordsForModel): the
// zero Options otherwise.
func OptionsForModel(model string) Options {
	return Options{PyAutoGUICoords: registry.PyAutoGUICoordsForModel(model), OpenCUA: registry.OpenCUACoordsForModel(model)}
}

// GrounderForModel returns the grounder that reads a model's points
// (registry.GrounderForModel); "" when none is implied.
func GrounderForModel(model string) string { return registry.GrounderForModel(model) }
