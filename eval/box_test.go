//go:build linux

package eval

import (
	"bufio"
	"context"
	"deskpilot/eval/checks"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"deskpilot/vision/xdisplay"
)

// testBox starts a private display and a box on it, closed at the test's end.
func testBox(t *testing.T) *box {
	t.Helper()
	needTools(t, "Xvfb", "openbox", "bwrap", "python3")
	d, err := xdisplay.Start(t.Context(), xdisplay.Options{Width: 800, Height: 600, Accessibility: true, OnlyA11yActivation: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	b, err := newBox(d, t.TempDir(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.close)
	if err := b.prepareApps(); err != nil {
		t.Fatal(err)
	}
	return b
}

func shell(script string) command { return command{args: []string{script}, shell: true} }

// TestBoxIdentity: the task's commands see the user "user" with its home at
// /home/user (the fresh home), its display, and nothing of the harness's.
func TestBoxIdentity(t *testing.T) {
	b := testBox(t)
	res, err := b.exec(t.Context(), shell(`echo "user=$(id -un) uid=$(id -u) USER=$USER LOGNAME=$LOGNAME HOME=$HOME tilde=$(echo ~user) pwd=$(pwd)"
echo "sockets=$(ls /tmp/.X11-unix | tr '\n' ' ')"
echo "pid1=$(cat /proc/1/comm)"
echo "lock=$(gsettings get org.gnome.desktop.screensaver lock-enabled 2>&1)"
xdpyinfo >/dev/null && echo "display=ok"
echo hello > ~/made-in-box.txt`))
	if err != nil {
		t.Fatal(err)
	}
	num := strings.TrimPrefix(b.d.Name, ":")
	for _, want := range []string{
		"user=user uid=1000 USER=user LOGNAME=user HOME=/home/user tilde=/home/user pwd=/home/user",
		"sockets=X" + num + " \n",
		"pid1=bwrap",
		"lock=false",
		"display=ok",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("box says:\n%s%s\nwant %q in it", res.stdout, res.stderr, want)
		}
	}
	if data, err := os.ReadFile(filepath.Join(b.home, "made-in-box.txt")); err != nil || string(data) != "hello\n" {
		t.Errorf("the file the box wrote in ~ is not in the task's home: %q, %v", data, err)
	}
}

// TestBoxDial: the harness reaches a port on the box's own loopback (as the
// Chrome steps reach DevTools), not the host's.
func TestBoxDial(t *testing.T) {
	b := testBox(t)
	if err := os.WriteFile(filepath.Join(b.home, "index.html"), []byte("from the box"), 0o600); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	if err := b.launch(t.Context(), []string{"python3", "-m", "http.server", strconv.Itoa(port), "--bind", "127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return b.dial(ctx, port)
	}}}
	var body []byte
	for try := 0; ; try++ {
		resp, err := c.Get("http://box/index.html")
		if err == nil {
			body, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			break
		}
		if try == 50 {
			t.Fatalf("the box's server never answered: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if string(body) != "from the box" {
		t.Errorf("got %q from the box's port %d", body, port)
	}
	if conn, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))); err == nil {
		conn.Close()
		t.Errorf("the box's server listens on the host's loopback too")
	}
}

// TestBoxAgentLaunch: what the agent launches runs in the task's box, with
// the paths of the task's home it names as the harness sees them.
func TestBoxAgentLaunch(t *testing.T) {
	b := testBox(t)
	if err := os.WriteFile(filepath.Join(b.home, "a.txt"), []byte("from the agent"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := b.agentLaunch("cp", filepath.Join(b.home, "a.txt"), filepath.Join(b.home, "b.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.agentLaunch("sh", "-c", "echo $(id -un) $HOME $(ls /tmp/.X11-unix) > ~/who.txt"); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"b.txt": "from the agent", "who.txt": "user /home/user X" + strings.TrimPrefix(b.d.Name, ":") + "\n"}
	for name, text := range want {
		var got []byte
		for range 50 {
			if got, _ = os.ReadFile(filepath.Join(b.home, name)); string(got) == text {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if string(got) != text {
			t.Errorf("%s = %q, want %q", name, got, text)
		}
	}
}

// TestBoxCheckPaths: a getter reads the task's files where the task names
// them, and nothing of the machine outside them.
func TestBoxCheckPaths(t *testing.T) {
	b := testBox(t)
	secret := filepath.Join(t.TempDir(), "id_ed25519")
	for p, text := range map[string]string{filepath.Join(b.home, "a.txt"): "mine", secret: "PLANTED"} {
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(secret, filepath.Join(b.home, "link")); err != nil {
		t.Fatal(err)
	}
	env := b.checkEnv("")
	for _, p := range []string{"/home/user/a.txt", "~/a.txt", "$HOME/a.txt"} {
		if data, err := os.ReadFile(env.Path(p)); err != nil || string(data) != "mine" {
			t.Errorf("Path(%q) = %s: %q, %v; want the task's a.txt", p, env.Path(p), data, err)
		}
	}
	for _, p := range []string{secret, "/etc/passwd", "/home/user/link", "~/../../../../../../" + secret} {
		if data, err := os.ReadFile(env.Path(p)); err == nil {
			t.Errorf("Path(%q) = %s reads %q: a file outside the task's", p, env.Path(p), data)
		}
	}
}

// freePort is a TCP port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// hostileRun runs tasks (OSWorld task files: id → the JSON of its config
// steps and evaluator) with runner, and returns their results by id.
func hostileRun(t *testing.T, o Options, run Runner, tasks map[string][2]string) map[string]Result {
	t.Helper()
	return suiteRun(t, o, run, tasks, nil)
}

// suiteRun is hostileRun with more files (name → content) in the suite's
// folder.
func suiteRun(t *testing.T, o Options, run Runner, tasks map[string][2]string, files map[string]string) map[string]Result {
	t.Helper()
	needTools(t, "Xvfb", "openbox", "bwrap", "python3")
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for id, te := range tasks {
		task := fmt.Sprintf(`{"id": %q, "instruction": "be hostile", "snapshot": "os", "related_apps": ["os"], "config": %s, "evaluator": %s}`, id, te[0], te[1])
		if err := os.WriteFile(filepath.Join(dir, id+".json"), []byte(task), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	o.Suite, o.Model, o.Screen = dir, "hostile", image1280()
	if o.Out == "" {
		o.Out = t.TempDir()
	}
	if run == nil {
		run = idleRunner
	}
	sum, err := Run(t.Context(), o, run)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Result{}
	for _, r := range sum.Results {
		out[r.ID] = r
	}
	return out
}

// taskFile reads a file a task left in its home.
func taskFile(t *testing.T, out, id, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, tasksDir, safeName(id), "home", name))
	if err != nil {
		t.Fatalf("the task left no %s: %v", name, err)
	}
	return string(data)
}

// execStep is an execute step running script with /bin/sh.
func execStep(script string) string {
	return fmt.Sprintf(`{"type": "execute", "parameters": {"command": %q, "shell": true}}`, script)
}

const answerEval = `{"func": "exact_match", "result": {"type": "vm_command_line", "command": "echo nothing", "shell": true}, "expected": {"type": "rule", "rules": {"expected": "something"}}}`

// TestHostileEnviron: a setup command reading the parent's environ (and every
// other process's it can see) finds none of the evaluator's secrets.
func TestHostileEnviron(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-planted-openai-4242")
	t.Setenv("DESKPILOT_SECRET_X", "planted-secret-x-4242")
	out := t.TempDir()
	hostileRun(t, Options{Out: out}, nil, map[string][2]string{"environ": {
		"[" + execStep(`{ env; for f in /proc/$PPID/environ /proc/[0-9]*/environ; do tr '\0' '\n' < $f; done; } > ~/loot.txt 2>&1; echo done >> ~/loot.txt`) + "]",
		answerEval,
	}})
	loot := taskFile(t, out, "environ", "loot.txt")
	if !strings.Contains(loot, "HOME=/home/user") || !strings.Contains(loot, "done") {
		t.Fatalf("the probe did not run as the task: %q", loot)
	}
	for _, secret := range []string{"sk-planted-openai-4242", "planted-secret-x-4242", "OPENAI_API_KEY", "DESKPILOT_SECRET"} {
		if strings.Contains(loot, secret) {
			t.Errorf("the task read %q:\n%s", secret, loot)
		}
	}
}

// TestHostileDisplays: a task reaches its own display and no other: not the
// harness's (DISPLAY and XAUTHORITY of the evaluator), not the other task
// running beside it.
func TestHostileDisplays(t *testing.T) {
	host, err := xdisplay.Start(t.Context(), xdisplay.Options{Width: 640, Height: 480, NoWindowManager: true})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	t.Setenv("DISPLAY", host.Name)
	t.Setenv("XAUTHORITY", host.XAuthority)
	probe := fmt.Sprintf(`{ echo "own=$DISPLAY sockets=$(ls /tmp/.X11-unix | tr '\n' ' ')"
xdpyinfo >/dev/null 2>&1 && echo own-ok
for k in $(seq 0 63); do
  [ ":$k" = "$DISPLAY" ] && continue
  XAUTHORITY=%s xdpyinfo -display ":$k" >/dev/null 2>&1 && echo "reached :$k"
done
sleep 1
for k in $(seq 0 63); do [ ":$k" = "$DISPLAY" ] || { xdpyinfo -display ":$k" >/dev/null 2>&1 && echo "reached :$k"; }; done
echo done; } > ~/probe.txt 2>&1`, host.XAuthority)
	out := t.TempDir()
	tasks := map[string][2]string{}
	for _, id := range []string{"display-a", "display-b"} {
		tasks[id] = [2]string{"[" + execStep(probe) + "]", answerEval}
	}
	hostileRun(t, Options{Out: out, Parallel: 2}, nil, tasks)
	for id := range tasks {
		p := taskFile(t, out, id, "probe.txt")
		if !strings.Contains(p, "own-ok") || !strings.Contains(p, "done") {
			t.Errorf("%s: the probe could not use its own display: %q", id, p)
		}
		if strings.Contains(p, "reached") {
			t.Errorf("%s reached another display (the harness's is %s):\n%s", id, host.Name, p)
		}
		if strings.Count(p, "X") != 1 {
			t.Errorf("%s sees more than its own X socket: %q", id, p)
		}
	}
}

// TestHostileHome: the harness's home is out of reach: a task reading its
// secrets by path finds nothing, writing there changes nothing, and ~ is the
// task's fresh home. Results are the evaluator's alone (0600, folders 0700).
func TestHostileHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	const key = "PLANTED-PRIVATE-KEY-4242"
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte(key), 0o600); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	hostileRun(t, Options{Out: out}, nil, map[string][2]string{"home": {
		"[" + execStep(fmt.Sprintf(`{ cat %[1]s/.ssh/id_ed25519; cat ~/.ssh/id_ed25519; ls -la ~ /root; echo pwned > %[1]s/pwned; echo "home=$HOME"; } > ~/loot.txt 2>&1; ls %[2]s/tasks > ~/results-listing.txt 2>&1`, home, out)) + "]",
		answerEval,
	}})
	loot := taskFile(t, out, "home", "loot.txt")
	if !strings.Contains(loot, "home=/home/user") {
		t.Fatalf("the probe did not run as the task: %q", loot)
	}
	if strings.Contains(loot, key) {
		t.Errorf("the task read the harness's ~/.ssh:\n%s", loot)
	}
	if _, err := os.Stat(filepath.Join(home, "pwned")); err == nil {
		t.Errorf("the task wrote into the harness's home")
	}
	if l := taskFile(t, out, "home", "results-listing.txt"); !strings.Contains(l, "No such file or directory") {
		t.Errorf("the task listed the results folder (its own and other tasks' homes): %q", l)
	}
	for _, p := range []string{out, filepath.Join(out, tasksDir), filepath.Join(out, resultsFile), filepath.Join(out, tasksDir, "home", "setup.log")} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm()&^want != 0 {
			t.Errorf("%s is %v: others may read it", p, fi.Mode().Perm())
		}
	}
}

// TestHostileNetwork: a task cannot connect to a listener on the host's
// loopback, unless the evaluation gives it the host's network.
func TestHostileNetwork(t *testing.T) {
	for _, tt := range []struct {
		network string
		reach   bool
	}{{"", false}, {"host", true}} {
		t.Run("network="+tt.network, func(t *testing.T) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			got := make(chan string, 4)
			go func() {
				for {
					c, err := l.Accept()
					if err != nil {
						return
					}
					line, _ := bufio.NewReader(c).ReadString('\n')
					got <- line
					c.Close()
				}
			}()
			port := l.Addr().(*net.TCPAddr).Port
			out := t.TempDir()
			hostileRun(t, Options{Out: out, TaskNetwork: tt.network}, nil, map[string][2]string{"net": {
				"[" + execStep(fmt.Sprintf(`python3 -c "import socket; socket.create_connection(('127.0.0.1', %d), 5).sendall(b'loot\n')" > ~/net.txt 2>&1; echo "exit=$?" >> ~/net.txt`, port)) + "]",
				answerEval,
			}})
			p := taskFile(t, out, "net", "net.txt")
			select {
			case line := <-got:
				if !tt.reach {
					t.Errorf("the task reached the host's 127.0.0.1:%d and sent %q (%s)", port, line, p)
				}
			default:
				if tt.reach {
					t.Errorf("with the host's network the task did not reach 127.0.0.1:%d: %s", port, p)
				}
			}
			if !strings.Contains(p, "exit=") {
				t.Errorf("the probe did not run: %q", p)
			}
		})
	}
}

// marked lists the host's processes whose command line holds mark.
func marked(t *testing.T, mark string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmdline), mark) && !strings.Contains(string(cmdline), "-c") {
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	return out
}

// TestHostileChildren: what a task leaves running (setsid, nohup, &, in setup
// and from a launched app) is gone once the task has ended.
func TestHostileChildren(t *testing.T) {
	mark := fmt.Sprintf("1001.%d", os.Getpid()) // sleep's seconds: no other process has it
	seen := 0
	run := func(ctx context.Context, j Job) (Outcome, error) {
		for range 50 { // the children run while the agent does
			if seen = len(marked(t, mark)); seen >= 3 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		return Outcome{Outcome: "failed", Exit: 1}, nil
	}
	hostileRun(t, Options{}, run, map[string][2]string{"children": {
		"[" + execStep("setsid sleep "+mark+" & nohup sleep "+mark+" >/dev/null 2>&1 &") + `,
		{"type": "launch", "parameters": {"command": "setsid sleep ` + mark + ` & exec sleep ` + mark + `", "shell": true}}]`,
		answerEval,
	}})
	if seen < 3 {
		t.Fatalf("the task's children were not running during the task (%d seen): the probe proves nothing", seen)
	}
	var left []string
	for range 50 {
		if left = marked(t, mark); len(left) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("processes left running after the task: %v", left)
}

// TestHostileActivation: a task that asks the display's session bus (which
// runs outside the box) to start a service gets none started: GNOME
// Terminal's real client, asked to run a command, does not run it outside
// the box, and Nautilus is not activated. The box's gnome-terminal runs the
// same command, in the box.
func TestHostileActivation(t *testing.T) {
	needTools(t, "gnome-terminal", "gdbus")
	host := filepath.Join(os.TempDir(), fmt.Sprintf("deskpilot-activation-%d", os.Getpid()))
	t.Cleanup(func() { os.Remove(host) })
	script := `/usr/bin/gnome-terminal -- sh -c 'hostname > ` + host + `; hostname > ~/outside'; ` +
		`gdbus call --session --dest org.gnome.Nautilus --object-path /org/gnome/Nautilus --method org.freedesktop.DBus.Peer.Ping > ~/nautilus 2>&1; ` +
		`gnome-terminal -- sh -c 'hostname > ~/inside'; sleep 3`
	out := t.TempDir()
	res := hostileRun(t, Options{Out: out}, nil, map[string][2]string{"activation": {"[" + execStep(script) + "]", answerEval}})
	if r := res["activation"]; r.Status != "" || strings.HasPrefix(r.Error, "setup") {
		t.Fatalf("the task did not run: %+v", r)
	}
	if data, err := os.ReadFile(host); err == nil {
		t.Errorf("the task's command ran outside its box (on %q)", data)
	}
	home := filepath.Join(out, tasksDir, "activation", "home")
	if data, err := os.ReadFile(filepath.Join(home, "outside")); err == nil {
		t.Errorf("/usr/bin/gnome-terminal ran the command, on %q: through a server started outside the box?", data)
	}
	if got := taskFile(t, out, "activation", "nautilus"); !strings.Contains(got, "ServiceUnknown") {
		t.Errorf("gdbus asking for Nautilus: %q, want ServiceUnknown (nothing activated)", got)
	}
	if got := taskFile(t, out, "activation", "inside"); got != boxHost+"\n" {
		t.Errorf("the box's gnome-terminal ran the command on %q, want %q", got, boxHost)
	}
}

// TestHostileSetupTimeout: a setup loop that never ends is cut at the task's
// timeout, and the agent never runs.
func TestHostileSetupTimeout(t *testing.T) {
	called := false
	run := func(ctx context.Context, j Job) (Outcome, error) {
		called = true
		return Outcome{Outcome: "failed", Exit: 1}, nil
	}
	res := hostileRun(t, Options{Timeout: 2 * time.Second}, run, map[string][2]string{
		"until-shell": {"[" + execStep("until false; do sleep 0.2; done") + "]", answerEval},
		"until-step":  {`[{"type": "execute", "parameters": {"command": "false", "shell": true, "until": {"returncode": 0}}}]`, answerEval},
	})
	for id, r := range res {
		if !strings.Contains(r.Error, "setup: timeout: the task's 2s ran out during setup") {
			t.Errorf("%s: error %q, want the task's timeout during setup", id, r.Error)
		}
	}
	if called {
		t.Errorf("the agent ran after a setup that timed out")
	}
}

// typedApp is a one-line Tk entry that saves what it holds to ~/typed.txt on
// ctrl+s.
const typedApp = `import os, tkinter as tk
root = tk.Tk()
root.title("Typed")
e = tk.Entry(root, width=40)
e.pack()
e.focus_force()
def save(_):
    with open(os.path.expanduser("~/typed.txt"), "w", encoding="utf-8") as f:
        f.write(e.get())
root.bind("<Control-s>", save)
root.mainloop()
`

// TestBoxPyautogui: OSWorld's `python -c "import pyautogui; ..."` steps type
// into a real app on the task's display, through the box's pyautogui module;
// a call the module lacks fails the step. A launch that such a step follows
// waits for the app's window ("slow-start": the window comes 3 s after the
// launch, and the keys still reach it).
func TestBoxPyautogui(t *testing.T) {
	needTools(t, "python3")
	open := `{"type": "launch", "parameters": {"command": "exec python3 \"$DESKPILOT_TASK_DIR/typed.py\"", "shell": true}},
		{"type": "wait_window", "parameters": {"title": "Typed"}}`
	py := func(code string) string {
		return fmt.Sprintf(`{"type": "execute", "parameters": {"command": ["python", "-c", %q]}}`, code)
	}
	typed := func(want string) string {
		return fmt.Sprintf(`{"func": "exact_match", "result": {"type": "vm_command_line", "command": "cat ~/typed.txt", "shell": true}, "expected": {"type": "rule", "rules": {"expected": %q}}}`, want)
	}
	res := suiteRun(t, Options{Out: os.Getenv("KEEP_OUT")}, nil, map[string][2]string{
		"typewrite": {"[" + open + "," + py("import pyautogui; pyautogui.typewrite('hello'); pyautogui.hotkey('ctrl','s')") + "]", typed("hello")},
		"write-press": {"[" + open + "," + py(`import pyautogui; w, h = pyautogui.size(); pyautogui.click(w // 2, h // 2); pyautogui.write("Hi wörld!"); pyautogui.press(["left"], presses=2); pyautogui.press("x"); pyautogui.hotkey(["ctrl", "s"])`) + "]",
			typed("Hi wörlxd!")},
		"no-save": {"[" + open + "," + py("import pyautogui; pyautogui.typewrite('hello')") + "]", typed("hello")},
		"slow-start": {`[{"type": "launch", "parameters": {"command": "sleep 3; exec python3 \"$DESKPILOT_TASK_DIR/typed.py\"", "shell": true}},` +
			py("import pyautogui; pyautogui.typewrite('hello'); pyautogui.hotkey('ctrl','s')") + "]", typed("hello")},
		"unsupported": {"[" + open + "," + py("import pyautogui; pyautogui.locateOnScreen('button.png')") + "]", typed("hello")},
		"unknown-key": {"[" + open + "," + py("import pyautogui; pyautogui.press('hyper-enter')") + "]", typed("hello")},
	}, map[string]string{"typed.py": typedApp})
	for id, want := range map[string]struct {
		correct bool
		err     string
	}{
		"typewrite":   {true, ""},
		"write-press": {true, ""},
		"no-save":     {false, `got ""`},
		"slow-start":  {true, ""},
		"unsupported": {false, `setup: config step 3 (execute): unsupported pyautogui call "pyautogui.locateOnScreen"`},
		"unknown-key": {false, `unsupported pyautogui call "key 'hyper-enter'"`},
	} {
		r := res[id]
		if r.Correct != want.correct || !strings.Contains(r.Error+r.Check, want.err) || (want.err == "" && r.Error != "") {
			t.Errorf("%s: correct %v, error %q, check %q; want correct %v and %q", id, r.Correct, r.Error, r.Check, want.correct, want.err)
		}
	}
}

// TestBoxChromeDevTools: Chromium, started as OSWorld's tasks start
// google-chrome, runs in the box on the task's display, and the harness
// reaches its DevTools port on the box's loopback (the Chrome steps and
// getters).
func TestBoxChromeDevTools(t *testing.T) {
	needTools(t, "chromium")
	b := testBox(t)
	boxedChrome(t, b)
}

// boxedChrome starts Chromium in the box as OSWorld's tasks start
// google-chrome, with DevTools on 9222, and waits for its page.
func boxedChrome(t *testing.T, b *box) {
	t.Helper()
	if err := b.launch(t.Context(), []string{"google-chrome", "--remote-debugging-port=9222", "data:text/html,<title>boxed</title>"}); err != nil {
		t.Fatal(err)
	}
	c := b.devtools()
	var err error
	// A cold Chromium under load takes long to listen: up to a minute.
	for range 240 {
		var all []target
		if err = devtoolsCall(t.Context(), c, http.MethodGet, "/json/list", &all); err == nil {
			for _, p := range all {
				if p.Type == "page" && strings.Contains(p.URL, "boxed") {
					return
				}
			}
			err = fmt.Errorf("no page of ours in %+v", all)
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("chrome's DevTools in the box: %v", err)
}

// waitChromiumGone waits until no Chromium runs in the box, a minute at most.
func waitChromiumGone(t *testing.T, b *box) {
	t.Helper()
	for range 240 {
		if res, err := b.exec(t.Context(), command{args: []string{"pgrep", "chromium"}}); err == nil && res.code == 1 {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatal("Chromium still runs a minute after pkill chrome")
}

// TestBoxPkillChrome: "pkill chrome", as OSWorld's postconfig steps end
// Chrome, ends Chromium in the box, which shuts down as it does on SIGTERM,
// writing its profile ("SessionEnded", not a crash). Other patterns reach
// pkill as they are.
func TestBoxPkillChrome(t *testing.T) {
	needTools(t, "chromium", "pkill")
	b := testBox(t)
	boxedChrome(t, b)
	run := func(args ...string) int {
		t.Helper()
		res, err := b.exec(t.Context(), command{args: args})
		if err != nil {
			t.Fatal(err)
		}
		return res.code
	}
	if code := run("pkill", "-x", "no-such-program"); code != 1 {
		t.Errorf("pkill -x no-such-program: exit %d, want 1 (nothing matched)", code)
	}
	if code := run("pkill", "chrome"); code != 0 {
		t.Fatalf("pkill chrome: exit %d, want 0", code)
	}
	prefs := filepath.Join(b.home, ".config", "google-chrome", "Default", "Preferences")
	waitChromiumGone(t, b)
	data, err := os.ReadFile(prefs)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Profile struct {
			ExitType string `json:"exit_type"`
		} `json:"profile"`
	}
	if err := json.Unmarshal(data, &p); err != nil || p.Profile.ExitType != "SessionEnded" {
		t.Errorf("Preferences after pkill chrome: exit_type %q (%v), want SessionEnded (written as Chromium shuts down on SIGTERM)", p.Profile.ExitType, err)
	}
}

// TestBoxScreenLockTask runs OSWorld's os/a4d98375 ("lock my computer
// automatically"), verbatim: doing nothing fails it (a fresh home has the
// screen lock off, as OSWorld's VM snapshot), turning the lock on with
// gsettings, launched by the agent, passes it.
func TestBoxScreenLockTask(t *testing.T) {
	needTools(t, "Xvfb", "openbox", "bwrap", "python3", "gsettings")
	const id = "a4d98375-215b-4a4d-aee9-3d4370fccc41" // results may key it os/ID
	solve := func(ctx context.Context, j Job) (Outcome, error) {
		if _, err := j.Launch("gsettings", "set", "org.gnome.desktop.screensaver", "lock-enabled", "true"); err != nil {
			return Outcome{}, err
		}
		keyfile := filepath.Join(j.Home, ".config", "glib-2.0", "settings", "keyfile")
		for range 100 {
			if data, _ := os.ReadFile(keyfile); strings.Contains(string(data), "lock-enabled=true") {
				return Outcome{Outcome: "answered", Steps: 1}, nil
			}
			time.Sleep(50 * time.Millisecond)
		}
		return Outcome{}, fmt.Errorf("gsettings did not write %s", keyfile)
	}
	for _, tt := range []struct {
		name string
		run  Runner
		pass bool
	}{{"idle", idleRunner, false}, {"solved", solve, true}} {
		t.Run(tt.name, func(t *testing.T) {
			sum, err := Run(t.Context(), Options{Suite: "testdata/osworld-box", Out: t.TempDir(), Model: tt.name, Screen: image1280()}, tt.run)
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.Results) != 1 {
				t.Fatalf("%d results, want 1", len(sum.Results))
			}
			r := sum.Results[0]
			if !strings.HasSuffix(r.ID, id) || r.Correct != tt.pass || r.Error != "" {
				t.Errorf("%s: correct %v (error %q, check %q), want %v", r.ID, r.Correct, r.Error, r.Check, tt.pass)
			}
		})
	}
}

// BenchmarkBoxExec measures one command of a task (`true`) run in its box,
// the box already up: what every config step and getter command costs.
func BenchmarkBoxExec(bm *testing.B) {
	d, err := xdisplay.Start(bm.Context(), xdisplay.Options{Width: 640, Height: 480, NoWindowManager: true})
	if err != nil {
		bm.Fatal(err)
	}
	defer d.Close()
	b, err := newBox(d, bm.TempDir(), bm.TempDir())
	if err != nil {
		bm.Fatal(err)
	}
	defer b.close()
	if _, err := b.exec(bm.Context(), command{args: []string{"true"}}); err != nil {
		bm.Fatal(err)
	}
	for bm.Loop() {
		if _, err := b.exec(bm.Context(), command{args: []string{"true"}}); err != nil {
			bm.Fatal(err)
		}
	}
}

// BenchmarkBoxStart measures starting a task's box (bwrap and its init) and
// running its first command.
func BenchmarkBoxStart(bm *testing.B) {
	d, err := xdisplay.Start(bm.Context(), xdisplay.Options{Width: 640, Height: 480, NoWindowManager: true})
	if err != nil {
		bm.Fatal(err)
	}
	defer d.Close()
	for bm.Loop() {
		b, err := newBox(d, bm.TempDir(), bm.TempDir())
		if err != nil {
			bm.Fatal(err)
		}
		if _, err := b.exec(bm.Context(), command{args: []string{"true"}}); err != nil {
			bm.Fatal(err)
		}
		b.close()
	}
}

// TestBoxMissingApp: a program the box does not have is reported as not
// installed, by the preflight (before any display starts) and by the box
// itself (a program a shell-less step names only in the box).
func TestBoxMissingApp(t *testing.T) {
	b := testBox(t)
	if _, err := b.exec(t.Context(), command{args: []string{"deskpilot-no-such-app"}}); !strings.Contains(fmt.Sprint(err), "app not installed: deskpilot-no-such-app") {
		t.Errorf("exec of a missing program: %v, want app not installed", err)
	}
	if _, err := b.agentLaunch("deskpilot-no-such-app"); !strings.Contains(fmt.Sprint(err), "app not installed: deskpilot-no-such-app") {
		t.Errorf("agent launch of a missing program: %v, want app not installed", err)
	}
	res := hostileRun(t, Options{}, nil, map[string][2]string{"missing": {
		`[{"type": "launch", "parameters": {"command": ["code", "--new-window"]}}]`, answerEval}})
	if r := res["missing"]; r.Error != "setup: app not installed: code" {
		t.Errorf("a task launching VS Code: error %q, want setup: app not installed: code", r.Error)
	}
}

// TestBoxChromeSnapshotProfile: a fresh home has a browser profile, as
// OSWorld's VM snapshot: chrome/3299584d's setup edits its Preferences with
// jq (its command, verbatim), Chromium starts on it and keeps the edit, and
// the check reads start-up pages, not Chrome's default.
func TestBoxChromeSnapshotProfile(t *testing.T) {
	needTools(t, "chromium", "jq", "pkill")
	b := testBox(t)
	const setup = `cd /home/user/.config/google-chrome/Default && jq '. + {"session":{"restore_on_startup":4, "startup_urls":["http://funbrain.com/"]}}' Preferences > temp && mv temp Preferences`
	if res, err := b.exec(t.Context(), shell(setup)); err != nil || res.code != 0 {
		t.Fatalf("the task's jq edit: %+v %v", res, err)
	}
	boxedChrome(t, b)
	if res, err := b.exec(t.Context(), command{args: []string{"pkill", "chrome"}}); err != nil || res.code != 0 {
		t.Fatalf("pkill chrome: %+v %v", res, err)
	}
	waitChromiumGone(t, b)
	env := b.checkEnv("")
	v, err := checks.Get(t.Context(), env, map[string]any{"type": "new_startup_page"})
	if err != nil || v != "false" {
		t.Errorf("new_startup_page after Chromium ran on the edited profile: %#v %v, want \"false\"", v, err)
	}
	data, err := os.ReadFile(filepath.Join(b.home, ".config", "google-chrome", "Default", "Preferences"))
	if err != nil || !strings.Contains(string(data), "funbrain.com") || !strings.Contains(string(data), `"extensions"`) {
		t.Errorf("Preferences after Chromium ran: %v; want the start-up page kept, in a file Chromium wrote", err)
	}
}
