package app

import (
	"context"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Hosts installs deskpilot as an MCP server in agent hosts' configs (the
// code of `deskpilot mcp install`). Its methods may block on file I/O.
type Hosts interface {
	List() []HostState
	// Install and Remove change one host's file and say what they did.
	Install(name string) (string, error)
	Remove(name string) (string, error)
}

// HostState is one host as Settings shows it.
type HostState struct {
	Name, Title string
	Path        string // the file the host reads its servers from
	Installed   bool
	Err         string // why its file could not be read; "" when it could
}

// Sessions are the MCP sessions of other deskpilot processes (`deskpilot
// mcp`, started by a host), reached over their control sockets.
type Sessions interface {
	List(ctx context.Context) ([]RemoteSession, error)
	// Send sends "pause", "resume" or "stop" to the session id.
	Send(ctx context.Context, id, cmd string) error
}

// RemoteSession is an MCP session driving the desktop from another process.
type RemoteSession struct {
	ID, Host string
	Tool     string // the tool being called now; "" between calls
	Paused   bool
}

// hostsView is the Settings section "Use deskpilot from another agent".
type hostsView struct {
	u       *UI
	content fyne.CanvasObject
	list    *fyne.Container
	result  *widget.Label
}

func newHostsView(u *UI) *hostsView {
	v := &hostsView{u: u, list: container.NewVBox()}
	v.result = widget.NewLabel("")
	v.result.Wrapping = fyne.TextWrapWord
	v.result.Hide()
	note := widget.NewLabel("Agent hosts such as Claude Code or Cursor can drive this desktop through deskpilot: " +
		"the same guard, approvals, masking and Stop as a run here. Install adds deskpilot to the host's own MCP " +
		"settings file (a backup is kept); the host starts it when it needs the desktop.")
	note.Wrapping = fyne.TextWrapWord
	note.Importance = widget.LowImportance
	v.content = container.NewVBox(note, v.list, v.result)
	v.load()
	return v
}

// load lists the hosts and whether deskpilot is installed in each.
func (v *hostsView) load() {
	v.list.RemoveAll()
	if v.u.deps.Hosts == nil {
		v.list.Add(widget.NewLabel("Not available in this build: run `deskpilot mcp install --host HOST` instead."))
		return
	}
	for _, h := range v.u.deps.Hosts.List() {
		v.list.Add(v.row(h))
	}
}

// row is one host: its name, where deskpilot is, Install and Remove.
func (v *hostsView) row(h HostState) fyne.CanvasObject {
	name := widget.NewLabelWithStyle(h.Title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	state := widget.NewLabel("")
	state.Truncation = fyne.TextTruncateEllipsis
	install := widget.NewButtonWithIcon("Install", theme.DownloadIcon(), func() { v.change(h, true) })
	remove := widget.NewButtonWithIcon("Remove", theme.DeleteIcon(), func() { v.change(h, false) })
	remove.Importance = widget.LowImportance
	switch {
	case h.Err != "":
		state.SetText("cannot read " + h.Path + ": " + h.Err)
		state.Importance = widget.DangerImportance
		install.Disable()
		remove.Disable()
	case h.Installed:
		state.SetText("installed in " + h.Path)
		state.Importance = widget.SuccessImportance
		install.SetText("Reinstall")
	default:
		state.SetText("not installed (" + h.Path + ")")
		state.Importance = widget.LowImportance
		remove.Disable()
	}
	return container.NewBorder(nil, nil, container.New(layout.NewGridWrapLayout(fyne.NewSize(140, name.MinSize().Height)), name),
		container.NewHBox(install, remove), state)
}

// change installs or removes deskpilot in one host, off the UI goroutine.
func (v *hostsView) change(h HostState, install bool) {
	hosts := v.u.deps.Hosts
	go func() {
		var msg string
		var err error
		if install {
			msg, err = hosts.Install(h.Name)
		} else {
			msg, err = hosts.Remove(h.Name)
		}
		v.u.do(func() {
			v.load()
			if err != nil {
				showOutcome(v.result, fmt.Sprintf("%s: %v", h.Title, err), true)
				return
			}
			showOutcome(v.result, msg, false)
		})
	}()
}

// remoteGrace is how long the strip stays for a host between two calls.
const remoteGrace = 5 * time.Second

// remotePoll is how often the app looks for hosts driving the desktop.
const remotePoll = 700 * time.Millisecond

// remoteStrip shows an MCP session driving the desktop like a run: the
// host's name, the tool it calls now, Pause and Stop. It takes the window
// while the app runs nothing itself.
type remoteStrip struct {
	u       *UI
	content fyne.CanvasObject
	state   *widget.Label
	tool    *widget.Label
	pause   *widget.Button
	stop    *widget.Button
	bg      *box

	on       bool
	session  RemoteSession
	lastSeen time.Time
}

func newRemoteStrip(u *UI) *remoteStrip {
	s := &remoteStrip{u: u}
	s.state = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	s.state.Truncation = fyne.TextTruncateEllipsis
	s.tool = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	s.tool.Truncation = fyne.TextTruncateEllipsis
	s.pause = widget.NewButtonWithIcon("Pause", theme.MediaPauseIcon(), func() {
		if s.session.Paused {
			s.send("resume")
		} else {
			s.send("pause")
		}
	})
	s.stop = widget.NewButtonWithIcon("Stop", theme.MediaStopIcon(), func() { s.send("stop") })
	s.stop.Importance = widget.DangerImportance
	top := container.NewBorder(nil, nil, nil, container.NewHBox(s.pause, s.stop), s.state)
	s.bg = newBox(theme.ColorNameBackground, 0, false, container.NewPadded(container.NewVBox(top, tight(s.tool))))
	s.content = s.bg
	return s
}

// send sends cmd to the session shown.
func (s *remoteStrip) send(cmd string) {
	id, sessions := s.session.ID, s.u.deps.Sessions
	if cmd == "stop" {
		s.stop.Disable()
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		err := sessions.Send(ctx, id, cmd)
		s.u.do(func() {
			if err != nil {
				s.tool.SetText("could not reach the session: " + err.Error())
			}
		})
	}()
}

// watchRemote polls the sessions until the app quits.
func (u *UI) watchRemote() {
	if u.deps.Sessions == nil {
		return
	}
	go func() {
		for {
			time.Sleep(remotePoll)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			list, err := u.deps.Sessions.List(ctx)
			cancel()
			if err != nil {
				list = nil
			}
			u.do(func() { u.showRemote(list) })
		}
	}()
}

// showRemote folds the sessions into the remote strip: the first one calling
// a tool (or paused) takes it; it leaves remoteGrace after its last call.
func (u *UI) showRemote(list []RemoteSession) {
	s := u.rs
	now := u.now()
	var driving *RemoteSession
	for i := range list {
		if list[i].Tool != "" || list[i].Paused || (s.on && list[i].ID == s.session.ID) {
			driving = &list[i]
			break
		}
	}
	if driving != nil && (driving.Tool != "" || driving.Paused) {
		s.lastSeen = now
	}
	busy := u.run != nil || u.pending != 0 || u.compact || len(u.prompts) > 0
	switch {
	case driving != nil && now.Sub(s.lastSeen) <= remoteGrace && !busy:
		s.session = *driving
		s.render()
		if !s.on && u.autoStrip {
			s.on = true
			u.bigSize = u.win.Canvas().Size()
			u.win.SetContent(s.content)
			size := fyne.NewSize(max(stripWidth, s.content.MinSize().Width), s.content.MinSize().Height)
			u.win.Resize(size)
			u.place.toStrip(u.win, size, nil, true, nil)
		}
	case s.on:
		s.on = false
		s.stop.Enable()
		u.win.Resize(u.bigSize)
		u.win.SetContent(u.tabs)
		u.place.toFull(u.win)
	}
}

// render shows the session.
func (s *remoteStrip) render() {
	se := s.session
	s.state.SetText(se.Host + " is driving the desktop through deskpilot")
	switch {
	case se.Paused:
		s.tool.SetText("Paused — the host's next action waits until you resume.")
		s.pause.SetText("Resume")
		s.pause.SetIcon(theme.MediaPlayIcon())
		s.bg.setFill(theme.ColorNameWarning, 40, true)
	case se.Tool != "":
		s.tool.SetText("calling " + se.Tool)
		s.pause.SetText("Pause")
		s.pause.SetIcon(theme.MediaPauseIcon())
		s.bg.setFill(theme.ColorNameBackground, 0, false)
	default:
		s.tool.SetText("between calls")
		s.pause.SetText("Pause")
		s.pause.SetIcon(theme.MediaPauseIcon())
		s.bg.setFill(theme.ColorNameBackground, 0, false)
	}
}
