// Package app is deskpilot's desktop UI (Fyne): the task entry, the live view of
// what the model sees, the timeline of steps, the status bar and compact strip,
// the takeover banner, the ask/confirm dialogs, settings, past runs and the console.
//
// The UI never drives the desktop itself: it starts runs through a Runner, runs
// console code through a Console and reads traces with agent/trace. All state that
// events change lives in plain types (runModel, stepState) that are rendered by
// widgets; background goroutines reach widgets only through fyne.Do.
//
// Window placement: while a run is active the window resizes itself to a small strip
// (status, what the agent thinks and does, Pause, Stop); questions and approvals
// show inside it, so the window stays compact unless the person expands it. Fyne
// cannot move windows, so on X11 the app asks the window manager itself (placer):
// the strip goes to a corner of the work area and stays above other windows, so Stop
// is always in reach, and it moves to another corner when it covers the pointer, the
// agent's last actions, the window the agent works in, or a point the agent is about
// to click (the MakeRoom hook); the full window comes back where it was, raised, when
// the run ends. The agent masks the visible parts of deskpilot's windows out of the
// screenshots it sends and refuses clicks into them.
package app

import (
	"deskpilot/internal/config"
	"errors"
	"fmt"
	"image"
	"os"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Title is the main window's title; the agent finds its own window by it.
const Title = "deskpilot"

// PrefCompactWhileRunning is the Fyne preference (bool, default true) that shrinks
// the window to a strip while a run is active.
const PrefCompactWhileRunning = "compact_while_running"

// The size of the main window when nothing else is known, in Fyne units.
const (
	fullWidth  = 1280
	fullHeight = 820
)

// UI is the deskpilot desktop app. Its methods must be called on the Fyne
// goroutine, except the hooks it hands to runs, which are safe from any goroutine.
type UI struct {
	app    fyne.App
	win    fyne.Window
	deps   Deps
	sensor *inputSensor // under the content when deps.OwnInput is set

	// followTrace is the trace of the last answered run, which the next task
	// may follow up (runView.follow); "" when there is none.
	followTrace string
	followRun   Run // the run followTrace records

	do   func(func())     // runs f on the Fyne goroutine; fyne.Do in production
	now  func() time.Time // clock for the status bar
	tick time.Duration    // status refresh while running; 0 = none
	env  func(string) (string, bool)

	fileCfg config.Settings // the config file as saved
	cfg     config.Settings // effective: file, then environment
	cfgErr  error           // why loading failed, shown in settings

	tabs                                     *container.AppTabs
	runTab, runsTab, consoleTab, settingsTab *container.TabItem

	rv *runView
	sv *settingsView
	cv *consoleView
	tv *tracesView
	st *strip
	rs *remoteStrip // an MCP host driving from another process (mcp.go)

	// The current run; gen tells events of an old run from the current one.
	run        Run
	gen        int
	pending    int // gen of a run waiting for the strip to be in place; 0 = none
	model      runModel
	compact    bool // showing the strip
	place      placer
	autoStrip  bool // shrink to the strip while running; default true
	bigSize    fyne.Size
	stopTick   chan struct{}
	prompts    []*prompt     // questions and approvals waiting, the first on the screen
	recent     []image.Point // the agent's last action points, root coordinates
	refitting  bool          // a second fitStrip is due
	open       func(path string) error
	openFailed *widget.Label // the path shown when a report did not open
}

// New builds the main window on a and returns the UI. It loads the settings from
// d.ConfigPath (plus the environment) and, with no model configured, opens on the
// settings. It does not show the window; call Run or Window().Show.
func New(a fyne.App, d Deps) *UI {
	return newUI(a, d, fyne.Do, time.Now, time.Second)
}

func newUI(a fyne.App, d Deps, do func(func()), now func() time.Time, tick time.Duration) *UI {
	if d.ConfigPath == "" {
		d.ConfigPath = config.Path()
	}
	env := d.LookupEnv
	if env == nil {
		env = os.LookupEnv
	}
	u := &UI{app: a, deps: d, do: do, now: now, tick: tick, env: env, open: openFile,
		autoStrip: a.Preferences().BoolWithFallback(PrefCompactWhileRunning, true)}
	u.loadConfig()
	a.Settings().SetTheme(newReadableTheme())
	if a.Icon() == nil {
		a.SetIcon(icon())
	}
	u.win = a.NewWindow(Title)
	u.win.SetIcon(icon())
	u.build()
	u.setContent(u.tabs)
	u.win.Resize(fyne.NewSize(fullWidth, fullHeight))
	u.bigSize = fyne.NewSize(fullWidth, fullHeight)
	if !u.configured() {
		u.tabs.Select(u.settingsTab)
	}
	if u.tabs.Selected() == u.runTab { // a hidden tab's widgets cannot take the focus
		u.win.Canvas().Focus(u.rv.task)
	}
	u.win.SetCloseIntercept(u.onClose)
	u.win.Canvas().SetOnTypedKey(u.typedKey)
	return u
}

// typedKey handles keys no widget took: Esc takes a running run's full
// window back to the strip.
func (u *UI) typedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && u.run != nil && !u.compact && u.autoStrip && len(u.prompts) == 0 {
		u.setCompact(true)
	}
}

// Window is the main window.
func (u *UI) Window() fyne.Window { return u.win }

// Run shows the main window with the task entry focused (or the settings on first
// run) and runs the Fyne event loop until the window closes.
func (u *UI) Run() {
	u.win.Show()
	u.watchRemote()
	if u.tabs.Selected() == u.runTab {
		u.win.Canvas().Focus(u.rv.task)
	}
	u.app.Run()
}

func (u *UI) build() {
	u.rv = newRunView(u)
	u.sv = newSettingsView(u)
	u.cv = newConsoleView(u)
	u.tv = newTracesView(u)
	u.st = newStrip(u)
	u.rs = newRemoteStrip(u)
	u.runTab = container.NewTabItemWithIcon("Run", theme.MediaPlayIcon(), u.rv.content)
	u.runsTab = container.NewTabItemWithIcon("Runs", theme.HistoryIcon(), u.tv.content)
	u.consoleTab = container.NewTabItemWithIcon("Console", theme.ComputerIcon(), u.cv.content)
	u.settingsTab = container.NewTabItemWithIcon("Settings", theme.SettingsIcon(), u.sv.content)
	u.tabs = container.NewAppTabs(u.runTab, u.runsTab, u.consoleTab, u.settingsTab)
	u.tabs.OnSelected = func(t *container.TabItem) {
		switch t {
		case u.runTab:
			u.win.Canvas().Focus(u.rv.task)
		case u.runsTab:
			u.tv.reload()
		case u.consoleTab:
			u.win.Canvas().Focus(u.cv.code)
		}
	}
}

// loadConfig reads the config file and overlays the environment.
func (u *UI) loadConfig() {
	fc, err := config.LoadFile(u.deps.ConfigPath)
	u.fileCfg, u.cfgErr = fc, err
	u.applyEnv()
}

func (u *UI) applyEnv() {
	c, err := u.fileCfg.ApplyEnv(u.env)
	if err != nil {
		u.cfgErr = errors.Join(u.cfgErr, err)
	}
	u.cfg = c
}

// saveConfig persists c as the config file and refreshes the effective config.
func (u *UI) saveConfig(c config.Settings) error {
	if err := config.SaveFile(u.deps.ConfigPath, c); err != nil {
		return err
	}
	u.fileCfg, u.cfgErr = c, nil
	u.applyEnv()
	u.rv.refreshPicker()
	return nil
}

// environ lists the environment (KEY=value entries).
func (u *UI) environ() []string {
	if u.deps.Environ != nil {
		return u.deps.Environ()
	}
	return os.Environ()
}

// resolved is the effective settings resolved, or an error naming the bad setting.
func (u *UI) resolved() (config.Config, error) { return config.Resolve(u.cfg) }

// resolvedOrDefaults is the effective settings resolved, or the defaults when
// they do not resolve (for what the UI shows: the trace folder, the key variable).
func (u *UI) resolvedOrDefaults() config.Config {
	c, err := u.resolved()
	if err != nil {
		return config.Defaults()
	}
	return c
}

// configured reports whether a model endpoint and name are set, directly or
// through a preset.
func (u *UI) configured() bool {
	c, err := u.resolved()
	return err == nil && c.HasModel()
}

// preset returns the preset named by the effective config, if any.
func (u *UI) preset() *config.Preset {
	if p, ok := config.PresetByName(u.cfg.Preset); ok {
		return &p
	}
	return nil
}

// apiKey resolves the key for cfg like the CLI does: the environment variable the
// config names, then the keyring.
func (u *UI) apiKey(cfg config.Config) string {
	name := cfg.APIKeyEnv
	if name == config.NoKey {
		return ""
	}
	if v, ok := u.env(name); ok && v != "" {
		return v
	}
	if u.deps.Secrets != nil {
		if v, err := u.deps.Secrets.Get(name); err == nil {
			return v
		}
	}
	return ""
}

// showError shows err in a dialog on the main window.
func (u *UI) showError(err error) {
	dialog.ShowError(err, u.win)
}

// onClose stops a running run before the window closes.
func (u *UI) onClose() {
	if u.run == nil {
		u.win.Close()
		return
	}
	dialog.ShowConfirm("Stop the run?", "A run is active. Stop it and quit deskpilot?",
		func(ok bool) {
			if ok {
				u.run.Stop()
				u.win.Close()
			}
		}, u.win)
}

// CheckDisplay reports, before any window is made, whether a graphical display is
// reachable, with a message that says what to do when not. lookup is os.LookupEnv
// in production.
func CheckDisplay(lookup func(string) (string, bool)) error {
	for _, name := range []string{"DISPLAY", "WAYLAND_DISPLAY"} {
		if v, ok := lookup(name); ok && v != "" {
			return nil
		}
	}
	return fmt.Errorf("no display: deskpilot's app needs a graphical session (DISPLAY is not set); " +
		"run it from your desktop, or use `deskpilot run TASK` to run headless (for example under xvfb-run)")
}
