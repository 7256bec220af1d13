//go:build linux

package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"deskpilot/eval/checks"
	"deskpilot/eval/gdrive"
	"deskpilot/internal/smallfile"
)

// OSWorld's googledrive and login steps (SetupController._googledrive_setup
// and _login_setup) and the credentials they and the googledrive_file getter
// need. The harness process alone talks to Google Drive (package
// eval/gdrive): the OAuth client secret and the tokens never enter the
// task's box, its log or its results. The login step types the account's
// email and password into the box's Chrome, as OSWorld does.

// driveSetup is a googledrive step: its settings file and operations.
type driveSetup struct {
	settings string
	ops      []driveOp
}

// driveOp is one operation of a googledrive step.
type driveOp struct {
	kind  string // delete, mkdirs, upload
	query string // delete
	trash bool   // delete
	path  []string
	url   string          // upload: the file's URL (an input of the cache)
	title json.RawMessage // upload: the title sent, as OSWorld sends it
}

// googleDriveURL is the page the login step opens.
const googleDriveURL = "https://drive.google.com/drive/my-drive"

// decodeDrive reads a googledrive step as _googledrive_setup reads its
// keyword arguments: settings_file (OSWorld's default when absent),
// operation (a list) and args (one object per operation). What the method
// would fail on (an unknown operation, a missing args entry or key) is a
// task error; other parameters are ignored, as its **config does.
func decodeDrive(s *step, raw json.RawMessage) error {
	var p map[string]json.RawMessage
	if err := json.Unmarshal(raw, &p); err != nil || p == nil {
		return errors.New("googledrive: want a JSON object")
	}
	d := &driveSetup{settings: checks.DriveSettingsDefault}
	if v, ok := p["settings_file"]; ok {
		if err := str(v, &d.settings); err != nil {
			return errors.New("googledrive: settings_file must be a string")
		}
	}
	var ops []string
	if err := json.Unmarshal(p["operation"], &ops); err != nil || isNull(p["operation"]) {
		return errors.New("googledrive: operation must be a list of operation names")
	}
	var args []json.RawMessage
	if len(ops) > 0 {
		if err := json.Unmarshal(p["args"], &args); err != nil || isNull(p["args"]) {
			return errors.New("googledrive: args must be a list of objects, one per operation")
		}
	}
ops:
	for i, name := range ops {
		switch name {
		case "delete", "mkdirs", "upload":
		default:
			return fmt.Errorf("googledrive: operation %q: OSWorld raises ValueError (not implemented clean type)", name)
		}
		if i >= len(args) {
			return fmt.Errorf("googledrive: operation %d (%s) has no args entry (IndexError in OSWorld)", i, name)
		}
		var a map[string]json.RawMessage
		if err := json.Unmarshal(args[i], &a); err != nil || a == nil {
			return fmt.Errorf("googledrive: args[%d] must be an object", i)
		}
		op := driveOp{kind: name}
		switch name {
		case "delete":
			if v, ok := a["query"]; ok {
				if err := str(v, &op.query); err != nil {
					return fmt.Errorf("googledrive: args[%d].query must be a string", i)
				}
			}
			op.trash = pyTruthy(a["trash"])
		case "mkdirs":
			var one string
			if err := json.Unmarshal(a["path"], &op.path); err != nil || isNull(a["path"]) {
				if str(a["path"], &one) != nil || isNull(a["path"]) {
					return fmt.Errorf("googledrive: args[%d].path must be a folder name or a list of them", i)
				}
				op.path = []string{one}
			}
		case "upload":
			if err := str(a["url"], &op.url); err != nil || op.url == "" {
				return fmt.Errorf("googledrive: args[%d].url must be a non-empty string", i)
			}
			if _, ok := a["path"]; !ok || isNull(a["path"]) {
				return fmt.Errorf("googledrive: args[%d] needs path (KeyError in OSWorld)", i)
			}
			var buf bytes.Buffer
			if err := json.Compact(&buf, a["path"]); err != nil {
				return err
			}
			op.title = buf.Bytes()
			d.ops = append(d.ops, op)
			// OSWorld's loop returns after its first upload: the operations
			// after it never run, whatever they are.
			break ops
		}
		d.ops = append(d.ops, op)
	}
	s.drive = d
	return nil
}

// decodeLogin reads a login step: settings_file (a JSON file with email and
// password) and platform, which must be googledrive (OSWorld raises
// NotImplementedError for any other).
func decodeLogin(s *step, raw json.RawMessage) error {
	var p map[string]json.RawMessage
	if err := json.Unmarshal(raw, &p); err != nil || p == nil {
		return errors.New("login: want a JSON object")
	}
	var platform string
	if err := str(p["settings_file"], &s.login); err != nil || s.login == "" {
		return errors.New("login: settings_file must be a non-empty string (KeyError in OSWorld)")
	}
	if err := str(p["platform"], &platform); err != nil || platform != "googledrive" {
		return errors.New("login: platform must be googledrive, the only one OSWorld implements")
	}
	return nil
}

// osworldRoot is the folder OSWorld runs from, which its relative settings
// paths are relative to: $DESKPILOT_OSWORLD_ROOT when set, else the folder
// above the evaluation_examples folder the task file is in; "" when
// neither.
func osworldRoot(taskDir string) string {
	if r := os.Getenv("DESKPILOT_OSWORLD_ROOT"); r != "" {
		return r
	}
	for d := filepath.Clean(taskDir); ; {
		if filepath.Base(d) == "evaluation_examples" {
			return filepath.Dir(d)
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}

// settingsPath resolves a task's settings file as OSWorld does.
func settingsPath(file, taskDir string) (string, error) {
	if filepath.IsAbs(file) {
		return file, nil
	}
	root := osworldRoot(taskDir)
	if root == "" {
		return "", fmt.Errorf("%s is relative to OSWorld's repository, and the task is not in an evaluation_examples folder (set DESKPILOT_OSWORLD_ROOT to that repository)", file)
	}
	return filepath.Join(root, file), nil
}

// NeedsCredentialsError is a task that uses its author's Google account
// (googledrive and login steps, the googledrive_file getter) while the
// settings or credentials files it names are not there: it is not run.
type NeedsCredentialsError struct {
	What string // googledrive, login
	Err  error
}

func (e *NeedsCredentialsError) Error() string {
	return "needs credentials: " + e.What + ": " + e.Err.Error()
}

func (e *NeedsCredentialsError) Unwrap() error { return e.Err }

// credentialsProblem says which credentials t needs that are missing, or
// nil. It reads the files and makes no request.
func credentialsProblem(t *Task) error {
	dir := t.os.dir
	checkDrive := func(file string) error {
		p, err := settingsPath(file, dir)
		if err == nil {
			err = gdrive.Check(p, osworldRoot(dir))
		}
		if err != nil {
			return &NeedsCredentialsError{What: "googledrive", Err: err}
		}
		return nil
	}
	for _, s := range append(append([]step{}, t.os.config...), t.os.eval.post...) {
		switch {
		case s.drive != nil:
			if err := checkDrive(s.drive.settings); err != nil {
				return err
			}
		case s.kind == "login":
			if _, _, err := loginAccount(s.login, dir); err != nil {
				return &NeedsCredentialsError{What: "login", Err: err}
			}
		}
	}
	for _, gs := range [][]*getter{t.os.eval.result, t.os.eval.expected} {
		for _, g := range gs {
			if g == nil {
				continue
			}
			if file, ok := checks.DriveSettings(g.config()); ok {
				if err := checkDrive(file); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// loginAccount reads the login step's settings file (OSWorld's
// settings/google/settings.json): {"email", "password"}.
func loginAccount(file, taskDir string) (email, password string, err error) {
	p, err := settingsPath(file, taskDir)
	if err != nil {
		return "", "", err
	}
	data, err := smallfile.Read(p, 64<<10)
	if errors.Is(err, os.ErrNotExist) {
		return "", "", &gdrive.MissingError{What: "account file", File: p, Why: `OSWorld's login step reads {"email", "password"} from it`}
	}
	if err != nil {
		return "", "", err
	}
	var acc struct {
		Email    *string `json:"email"`
		Password *string `json:"password"`
	}
	if json.Unmarshal(data, &acc) != nil || acc.Email == nil || acc.Password == nil {
		return "", "", fmt.Errorf("%s: want a JSON object with email and password strings", p)
	}
	return *acc.Email, *acc.Password, nil
}

// driveClient is the Drive a task's settings file names.
func (b *box) driveClient(settings string) (*gdrive.Client, error) {
	p, err := settingsPath(settings, b.taskDir)
	if err != nil {
		return nil, &NeedsCredentialsError{What: "googledrive", Err: err}
	}
	c, err := gdrive.Open(gdrive.Config{Settings: p, Root: osworldRoot(b.taskDir), API: b.driveAPI})
	var me *gdrive.MissingError
	if errors.As(err, &me) {
		return nil, &NeedsCredentialsError{What: "googledrive", Err: err}
	}
	return c, err
}

// googleDrive runs a googledrive step's operations in order, as
// _googledrive_setup does.
func (b *box) googleDrive(ctx context.Context, d *driveSetup) error {
	c, err := b.driveClient(d.settings)
	if err != nil {
		return err
	}
	for _, op := range d.ops {
		switch op.kind {
		case "delete":
			if err := b.driveDelete(ctx, c, op); err != nil {
				return err
			}
		case "mkdirs":
			if _, err := b.driveMkdirs(ctx, c, op.path); err != nil {
				return err
			}
		case "upload":
			src, err := b.inputs().Get(ctx, op.url)
			if err != nil {
				return err
			}
			// OSWorld builds paths = [params['path']] whatever path is (its
			// test `params['path'] != list` compares with the type list, so
			// it always holds): the folders it makes are those of
			// paths[:-1], none, so the file goes to the Drive's root, and its
			// title is path itself (a list as a list: ["invoice.pdf"]).
			// PyDrive's SetContentFile guesses the MIME type from the
			// temporary file's name, which has no extension: null.
			meta := json.RawMessage(`{"title":` + string(op.title) + `,"mimeType":null}`)
			f, err := c.Upload(ctx, meta, src)
			if err != nil {
				return err
			}
			b.log.printf("googledrive: uploaded %s as %s (id %s)\n", op.url, op.title, f.ID)
			return nil // OSWorld returns after its first upload
		}
	}
	return nil
}

// driveDelete trashes or deletes what the query finds: the files first,
// then the folders (and what they hold with them). An empty query is every
// file, then every folder.
func (b *box) driveDelete(ctx context.Context, c *gdrive.Client, op driveOp) error {
	notFolder := "mimeType != '" + gdrive.FolderType + "'"
	isFolder := "mimeType = '" + gdrive.FolderType + "'"
	qFile, qFolder := notFolder, isFolder
	if trimmed := bytes.TrimSpace([]byte(op.query)); len(trimmed) > 0 {
		qFile = "( " + op.query + " ) and " + notFolder
		qFolder = "( " + op.query + " ) and " + isFolder
	}
	files, err := c.List(ctx, qFile)
	if err != nil {
		return err
	}
	folders, err := c.List(ctx, qFolder)
	if err != nil {
		return err
	}
	verb := map[bool]string{true: "trashed", false: "deleted"}[op.trash]
	for _, f := range append(files, folders...) {
		if op.trash {
			err = c.Trash(ctx, f.ID)
		} else {
			err = c.Delete(ctx, f.ID)
		}
		if err != nil {
			return err
		}
		b.log.printf("googledrive: %s %v (id %s)\n", verb, f.Title, f.ID)
	}
	if len(files)+len(folders) == 0 {
		b.log.printf("googledrive: nothing matches %q\n", op.query)
	}
	return nil
}

// driveMkdirs is mkdir_in_googledrive: each folder of path under the one
// before, from the root, made when no folder of that title (not trashed)
// is there; it returns the last one's id.
func (b *box) driveMkdirs(ctx context.Context, c *gdrive.Client, path []string) (string, error) {
	parent := "root"
	for _, p := range path {
		q := `"` + parent + `" in parents and title = "` + p + `" and mimeType = "` + gdrive.FolderType + `" and trashed = false`
		found, err := c.List(ctx, q)
		if err != nil {
			return "", err
		}
		if len(found) > 0 {
			parent = found[0].ID
			continue
		}
		f, err := c.CreateFolder(ctx, p, parent)
		if err != nil {
			return "", err
		}
		b.log.printf("googledrive: made folder %s (id %s)\n", p, f.ID)
		parent = f.ID
	}
	return parent, nil
}

// login is _login_setup for Google Drive: once Chrome's DevTools answer
// (OSWorld's 15 attempts), the sign-in in a new tab.
func (b *box) login(ctx context.Context, settings string) error {
	email, password, err := loginAccount(settings, b.taskDir)
	if err != nil {
		return &NeedsCredentialsError{What: "login", Err: err}
	}
	if _, err := b.pages(ctx, b.devtools()); err != nil {
		return err
	}
	return checks.GoogleDriveLogin(ctx, b.checkEnv(""), email, password, b.log.printf)
}

// GoogleDrive is the task author's Drive, for the googledrive_file getter.
func (e *checkEnv) GoogleDrive(settings string) (*gdrive.Client, error) {
	return e.b.driveClient(settings)
}
