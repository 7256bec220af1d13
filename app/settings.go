package app

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"deskpilot/agent"
	"deskpilot/agent/dialect"
	"deskpilot/internal/config"
)

// guidanceMarkdown explains how to get a model on first run.
const guidanceMarkdown = `deskpilot needs a **vision model** behind an OpenAI-compatible endpoint. Any of these works:

- **Ollama on this computer** — base URL ` + "`http://localhost:11434/v1`" + `, model e.g. ` + "`qwen2.5vl:7b`" + ` (run ` + "`ollama pull qwen2.5vl:7b`" + ` first). No key needed.
- **vLLM, LM Studio or llama.cpp server** — base URL such as ` + "`http://localhost:8000/v1`" + ` and the model name it serves.
- **A hosted API** (OpenAI, OpenRouter, Gemini, …) — pick a preset and enter your API key.

The **Console** tab works meanwhile: try code actions on the desktop without a model.`

// connectionTimeout bounds the Test connection request.
const connectionTimeout = 60 * time.Second

// settingsView edits the config file (internal/config).
type settingsView struct {
	u       *UI
	content fyne.CanvasObject

	guidance     fyne.CanvasObject
	guidanceHead *widget.Label

	preset, dialect                        *widget.Select
	dialectNote                            *widget.Label
	baseURL, model, keyEnv, key            *widget.Entry
	coords                                 *widget.RadioGroup
	maxSide, maxSteps, keep, plan, display *widget.Entry
	keyNote, envNote, result               *widget.Label
	testBtn, saveBtn, calBtn               *widget.Button
	testing                                *widget.Activity
	secrets                                *secretsView
	hosts                                  *hostsView
	grounding                              *groundingFields
	safety                                 *safetyFields
}

func newSettingsView(u *UI) *settingsView {
	v := &settingsView{u: u}
	v.buildFields()
	v.guidanceHead = heading("Set up a model to get started")
	md := widget.NewRichTextFromMarkdown(guidanceMarkdown)
	md.Wrapping = fyne.TextWrapWord
	v.guidance = tinted(theme.ColorNamePrimary, container.NewPadded(container.NewVBox(v.guidanceHead, md)))
	v.testBtn = widget.NewButtonWithIcon("Test connection", theme.MediaPlayIcon(), v.testConnection)
	v.calBtn = widget.NewButtonWithIcon("Calibrate", theme.ZoomFitIcon(), v.calibrate)
	v.saveBtn = widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), v.save)
	v.saveBtn.Importance = widget.HighImportance
	v.testing = widget.NewActivity()
	v.testing.Hide()
	v.result = widget.NewLabel("")
	v.result.Wrapping = fyne.TextWrapWord
	v.result.Hide()

	model, agentForm := v.forms()
	v.secrets = newSecretsView(u)
	v.hosts = newHostsView(u)
	strip := widget.NewCheck("Shrink the window to a small strip while a run is active", func(on bool) {
		u.autoStrip = on
		u.app.Preferences().SetBool(PrefCompactWhileRunning, on)
	})
	strip.SetChecked(u.autoStrip)
	buttons := container.NewHBox(v.testBtn, v.calBtn, container.NewStack(v.testing), layout.NewSpacer(), v.saveBtn)
	path := widget.NewLabel("Saved to " + u.deps.ConfigPath + " — the command line reads the same file.")
	path.Importance = widget.LowImportance
	path.Wrapping = fyne.TextWrapWord
	col := container.NewVBox(v.guidance,
		heading("Model"), model, v.keyNote,
		widget.NewSeparator(),
		heading("Agent"), agentForm, v.envNote,
		widget.NewSeparator(),
		heading("Grounding"), v.grounding.box,
		widget.NewSeparator(),
		heading("Safety"), v.safety.box,
		widget.NewSeparator(),
		heading("Secrets"), v.secrets.content,
		widget.NewSeparator(),
		heading("Use deskpilot from another agent"), v.hosts.content,
		widget.NewSeparator(),
		heading("Window"), strip, path)
	footer := container.NewVBox(widget.NewSeparator(), centered(container.NewVBox(buttons, v.result), 760))
	v.content = container.NewBorder(nil, container.NewPadded(footer), nil, nil,
		container.NewVScroll(container.NewPadded(centered(col, 760))))
	v.load()
	return v
}

// forms lays the fields out in two forms whose label columns line up.
func (v *settingsView) forms() (model, agent *fyne.Container) {
	const labelWidth = 170
	type field struct {
		label string
		obj   fyne.CanvasObject
	}
	grid := func(fields []field) *fyne.Container {
		var objs []fyne.CanvasObject
		for _, f := range fields {
			objs = append(objs, formLabel(f.label, labelWidth), f.obj)
		}
		return container.New(layout.NewFormLayout(), objs...)
	}
	mf := []field{{"Preset", v.preset}, {"Base URL", v.baseURL}, {"Model", v.model},
		{"Dialect", container.NewVBox(v.dialect, v.dialectNote)}}
	if v.u.deps.Secrets != nil {
		mf = append(mf, field{"API key", v.key}, field{"Key name", v.keyEnv})
	} else {
		mf = append(mf, field{"API key variable", v.keyEnv})
	}
	// Rows of the grounding and safety settings: "Name (config key)", shown
	// as the name with the key under it.
	pairs := func(rows [][2]any) *fyne.Container {
		var objs []fyne.CanvasObject
		for _, r := range rows {
			name, key, _ := strings.Cut(strings.TrimSuffix(r[0].(string), ")"), " (")
			objs = append(objs, keyedLabel(name, key, labelWidth), r[1].(fyne.CanvasObject))
		}
		return container.New(layout.NewFormLayout(), objs...)
	}
	v.grounding = newGroundingFields(pairs)
	v.safety = newSafetyFields(pairs)
	return grid(mf), grid([]field{
		{"Coordinates", v.coords}, {"Image size (px)", v.maxSide}, {"Max steps", v.maxSteps},
		{"Screenshots kept", v.keep}, {"Plan every N steps", v.plan}, {"Target display", v.display},
	})
}

func (v *settingsView) buildFields() {
	v.preset = widget.NewSelect(pickerNames(), v.pickPreset)
	v.preset.PlaceHolder = "(choose a preset to fill the fields)"
	v.baseURL = widget.NewEntry()
	v.baseURL.SetPlaceHolder("e.g. http://localhost:11434/v1 — or choose a preset")
	v.model = widget.NewEntry()
	v.model.SetPlaceHolder("e.g. qwen2.5vl:7b")
	v.dialect = widget.NewSelect(dialectChoices(), func(string) { v.refreshDialectNote() })
	v.dialectNote = widget.NewLabel("")
	v.dialectNote.Wrapping = fyne.TextWrapWord
	v.dialectNote.Importance = widget.LowImportance
	v.model.OnChanged = func(string) { v.refreshDialectNote() }
	v.keyEnv = widget.NewEntry()
	v.keyEnv.SetPlaceHolder("e.g. OPENAI_API_KEY (empty: " + config.Defaults().APIKeyEnv + ")")
	v.key = widget.NewPasswordEntry()
	v.key.SetPlaceHolder("Paste your API key (leave empty for local servers)")
	v.coords = widget.NewRadioGroup([]string{"pixels", "norm1000"}, nil)
	v.coords.Horizontal = true
	v.coords.Required = true
	num := func(ph string) *widget.Entry {
		e := widget.NewEntry()
		e.SetPlaceHolder(ph)
		return e
	}
	def := config.Defaults()
	v.maxSide = num(fmt.Sprintf("%d (longest side the model sees)", def.MaxSide))
	v.maxSteps = num(fmt.Sprint(def.MaxSteps))
	v.keep = num(fmt.Sprintf("the dialect's: %d for code, 3 for the vendors' tools, 5 for UI-TARS", agent.DefaultKeepImages))
	v.plan = num("0 = no planning")
	v.display = num("0 = primary monitor")
	v.keyNote = widget.NewLabel("")
	v.keyNote.Wrapping = fyne.TextWrapWord
	v.keyNote.Importance = widget.LowImportance
	v.envNote = widget.NewLabel("")
	v.envNote.Wrapping = fyne.TextWrapWord
	v.envNote.Importance = widget.WarningImportance
}

// load shows the saved config in the fields.
func (v *settingsView) load() {
	u := v.u
	f := formFrom(u.fileCfg)
	if p, ok := config.PresetByName(f.Preset); ok { // show the values the preset gives, as real values
		f.BaseURL, f.Model, f.KeyEnv = cmp.Or(f.BaseURL, p.BaseURL), cmp.Or(f.Model, p.Model), cmp.Or(f.KeyEnv, p.KeyEnv)
	}
	v.preset.OnChanged = nil
	if f.Preset == "" && f.BaseURL == "" && f.Model == "" {
		v.preset.ClearSelected() // nothing set up yet: the placeholder invites a choice
	} else {
		v.preset.SetSelected(pickerName(f.Preset))
	}
	v.preset.OnChanged = v.pickPreset
	v.setForm(f)
	v.key.SetText("")
	v.refreshNotes()
	v.secrets.load()
	showIf(v.guidance, !u.configured())
	if u.cfgErr != nil {
		v.showResult(fmt.Sprintf("The config file has a problem: %v", u.cfgErr), true)
	}
}

func (v *settingsView) setForm(f settingsForm) {
	v.baseURL.SetText(f.BaseURL)
	v.model.SetText(f.Model)
	v.keyEnv.SetText(f.KeyEnv)
	v.dialect.SetSelected(f.Dialect)
	v.coords.SetSelected(f.Coords)
	v.maxSide.SetText(f.MaxSide)
	v.maxSteps.SetText(f.MaxSteps)
	v.keep.SetText(f.Keep)
	v.plan.SetText(f.Plan)
	v.display.SetText(f.Display)
	v.grounding.set(f)
	v.safety.set(f)
}

func (v *settingsView) form() settingsForm {
	p := v.preset.Selected
	if p == customPreset {
		p = ""
	}
	f := settingsForm{Preset: p, BaseURL: v.baseURL.Text, Model: v.model.Text, KeyEnv: v.keyEnv.Text,
		Dialect: v.dialect.Selected, Coords: v.coords.Selected, MaxSide: v.maxSide.Text, MaxSteps: v.maxSteps.Text,
		Keep: v.keep.Text, Plan: v.plan.Text, Display: v.display.Text}
	v.grounding.read(&f)
	v.safety.read(&f)
	return f
}

// pickPreset fills the fields from a preset (saved only with Save).
func (v *settingsView) pickPreset(name string) {
	for _, p := range config.Presets() {
		if p.Name == name {
			c, err := config.WithPreset(config.Settings{}, p.Name)
			if err != nil {
				v.showResult(err.Error(), true)
				return
			}
			f := formFrom(c)
			f.MaxSteps, f.Keep, f.Plan, f.Display = v.maxSteps.Text, v.keep.Text, v.plan.Text, v.display.Text
			v.grounding.read(&f) // a preset is the model's: the rest stays as typed
			v.safety.read(&f)
			v.setForm(f)
			v.refreshNotes()
			return
		}
	}
}

// refreshDialectNote says what the dialect choice means for the model typed:
// which dialect auto picks, or that the coordinates setting is the code
// dialect's alone.
func (v *settingsView) refreshDialectNote() {
	note := autoDialectNote(v.model.Text)
	if d := v.dialect.Selected; d != "" && d != autoDialect {
		note = "Replies are read in the " + d + " format, whatever the model's name."
		if d != dialect.Default {
			note += " Its coordinate space is its own: the Coordinates setting below applies to the code dialect only."
		}
	}
	v.dialectNote.SetText(note)
}

// refreshNotes explains where the key comes from and which environment variables win.
func (v *settingsView) refreshNotes() {
	u := v.u
	name := strings.TrimSpace(v.keyEnv.Text)
	if name == "" {
		name = config.Defaults().APIKeyEnv
	}
	key, inEnv := u.env(name)
	inEnv = inEnv && key != "" // an empty variable holds no key (as apiKey reads it)
	var note string
	switch {
	case name == config.NoKey:
		note = fmt.Sprintf("This endpoint takes no key (the key variable is %q). For a hosted API, name the variable that holds its key here.", config.NoKey)
	case u.deps.Secrets != nil:
		note = fmt.Sprintf("The key is kept in the system keyring under %q, never in the config file.", name)
		if _, err := u.deps.Secrets.Get(name); err == nil {
			note += " A key is saved; type a new one to replace it."
		}
		if inEnv {
			note += fmt.Sprintf(" $%s is set and takes precedence.", name)
		}
	case inEnv:
		note = fmt.Sprintf("$%s is set. No system keyring was found, so deskpilot never stores keys: it reads them from that variable.", name)
	default:
		note = fmt.Sprintf("No system keyring was found, so deskpilot never stores keys. For a hosted API, start deskpilot with the key in that variable: export %s=… (local servers need no key).", name)
	}
	v.keyNote.SetText(note)
	if set := envOverrides(u.env); len(set) > 0 {
		v.envNote.SetText("Set in the environment and used instead of the values here: " + strings.Join(set, ", "))
		v.envNote.Show()
	} else {
		v.envNote.Hide()
	}
}

// showGuidance points at the guidance with a reason (e.g. Run without a model).
func (v *settingsView) showGuidance(reason string) {
	v.guidanceHead.SetText(reason)
	v.guidance.Show()
}

func (v *settingsView) showResult(s string, bad bool) { showOutcome(v.result, s, bad) }

// save writes the config file and, with a keyring, the typed key.
func (v *settingsView) save() {
	u := v.u
	c, err := v.form().apply(u.fileCfg)
	if err != nil {
		v.showResult(err.Error(), true)
		return
	}
	if key := strings.TrimSpace(v.key.Text); key != "" && u.deps.Secrets != nil {
		name := c.APIKeyEnv
		if name == "" {
			name = config.Defaults().APIKeyEnv
		}
		if err := u.deps.Secrets.Set(name, key); err != nil {
			v.showResult(fmt.Sprintf("Could not store the key in the keyring: %v", err), true)
			return
		}
	}
	if err := u.saveConfig(c); err != nil {
		v.showResult(fmt.Sprintf("Could not save: %v", err), true)
		return
	}
	v.key.SetText("")
	v.refreshNotes()
	showIf(v.guidance, !u.configured())
	v.showResult("Saved.", false)
}

// testConnection sends a tiny request with the values in the form.
func (v *settingsView) testConnection() {
	u := v.u
	if u.deps.TestConnection == nil {
		v.showResult("Connection testing is not available in this build.", true)
		return
	}
	c, key, err := v.testable()
	if err != nil {
		v.showResult(err.Error(), true)
		return
	}
	v.testBtn.Disable()
	v.testing.Show()
	v.testing.Start()
	v.showResult(fmt.Sprintf("Sending a small image to %s at %s…", c.Model, c.BaseURL), false)
	u.testConnection(c, key, func(msg string, ok bool) {
		v.testBtn.Enable()
		v.testing.Stop()
		v.testing.Hide()
		v.showResult(msg, !ok)
	})
}

// testable resolves the form's settings for a test or a calibration, with
// the key typed in the form or stored for them.
func (v *settingsView) testable() (config.Config, string, error) {
	s, err := v.form().apply(v.u.fileCfg)
	if err == nil {
		err = missingFields(s)
	}
	var c config.Config
	if err == nil {
		c, err = config.Resolve(s)
	}
	if err != nil {
		return c, "", err
	}
	key := strings.TrimSpace(v.key.Text)
	if key == "" {
		key = v.u.apiKey(c)
	}
	return c, key, nil
}

// testConnection sends a tiny request with an image to c's endpoint in the
// background; done gets a one-line result on the Fyne goroutine.
func (u *UI) testConnection(c config.Config, key string, done func(msg string, ok bool)) {
	test := u.deps.TestConnection
	if test == nil {
		done("Connection testing is not available in this build.", false)
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), connectionTimeout)
		defer cancel()
		err := test(ctx, c, key)
		u.do(func() {
			if err != nil {
				done("Connection failed: "+oneLine(err.Error()), false)
				return
			}
			done(fmt.Sprintf("Connected: %s answered a request with an image.", c.Model), true)
		})
	}()
}

// testSaved tests the connection of the saved settings.
func (u *UI) testSaved(done func(msg string, ok bool)) {
	c, err := u.resolved()
	if err == nil {
		err = missingFields(u.cfg)
	}
	if err != nil {
		done(err.Error(), false)
		return
	}
	u.testConnection(c, u.apiKey(c), done)
}

// missingFields says which of base URL and model are empty, and that the
// grey text in an empty field is only an example.
func missingFields(s config.Settings) error {
	var miss []string
	if s.BaseURL == "" {
		miss = append(miss, "Base URL")
	}
	if s.Model == "" {
		miss = append(miss, "Model")
	}
	if len(miss) == 0 {
		return nil
	}
	verb := "is"
	if len(miss) > 1 {
		verb = "are"
	}
	return fmt.Errorf("%s %s empty (grey text there is only an example): choose a preset, or type your server's address and model name",
		strings.Join(miss, " and "), verb)
}

// centered limits content to width and centres it horizontally.
func centered(content fyne.CanvasObject, width float32) fyne.CanvasObject {
	return container.New(&maxWidth{width: width}, content)
}

// maxWidth lays out its objects at most width wide, centred.
type maxWidth struct{ width float32 }

func (l *maxWidth) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	w := min(size.Width, l.width)
	for _, o := range objs {
		o.Resize(fyne.NewSize(w, size.Height))
		o.Move(fyne.NewPos((size.Width-w)/2, 0))
	}
}

func (l *maxWidth) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		s = s.Max(o.MinSize())
	}
	return s
}
