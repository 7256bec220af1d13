package app

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// secretsView is the Secrets section of the settings: the values type_secret
// may type, by name. Values go to the keyring and never come back to the
// screen; the list shows names only.
type secretsView struct {
	u       *UI
	content fyne.CanvasObject

	list   *fyne.Container
	name   *widget.Entry
	value  *widget.Entry
	addBtn *widget.Button
	note   *widget.Label
	result *widget.Label
}

func newSecretsView(u *UI) *secretsView {
	v := &secretsView{u: u}
	v.list = container.NewVBox()
	v.note = widget.NewLabel("")
	v.note.Wrapping = fyne.TextWrapWord
	v.note.Importance = widget.LowImportance
	v.result = widget.NewLabel("")
	v.result.Wrapping = fyne.TextWrapWord
	v.result.Hide()
	v.name = widget.NewEntry()
	v.name.SetPlaceHolder("name, e.g. github_password")
	v.value = widget.NewPasswordEntry()
	v.value.SetPlaceHolder("value (stored in the keyring)")
	v.addBtn = widget.NewButtonWithIcon("Add", theme.ContentAddIcon(), v.add)
	add := container.NewBorder(nil, nil, nil, v.addBtn, container.NewGridWithColumns(2, v.name, v.value))
	if u.deps.Secrets == nil {
		add.Hide()
	}
	v.content = container.NewVBox(v.note, v.list, add, v.result)
	v.load()
	return v
}

// load lists the stored names and those the environment sets.
func (v *secretsView) load() {
	u := v.u
	v.list.RemoveAll()
	env := envSecretNames(u.environ())
	var stored []string
	if u.deps.Secrets != nil {
		var err error
		if stored, err = (secretStore{u.deps.Secrets}).names(); err != nil {
			v.show(err.Error(), true)
		}
	}
	for _, n := range stored {
		v.list.Add(v.row(n, "keyring", true))
	}
	for _, n := range env {
		v.list.Add(v.row(n, fmt.Sprintf("environment ($%s%s)", secretEnvPrefix, strings.ToUpper(n)), false))
	}
	note := "The agent types these with type_secret(\"name\"); the model, the trace and this window only ever see the name."
	switch {
	case u.deps.Secrets == nil:
		note += " No system keyring was found: set " + secretEnvPrefix + "<NAME>=… in the environment before starting deskpilot."
	default:
		note += " Values are kept in the system keyring; a " + secretEnvPrefix + "<NAME> variable of the same name wins."
	}
	v.note.SetText(note)
}

// row is one secret: its name, where it comes from, and Remove for stored ones.
func (v *secretsView) row(name, from string, removable bool) fyne.CanvasObject {
	n := widget.NewLabelWithStyle(name, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	src := widget.NewLabel(from)
	src.Importance = widget.LowImportance
	var right fyne.CanvasObject
	if removable {
		rm := widget.NewButtonWithIcon("Remove", theme.DeleteIcon(), func() { v.remove(name) })
		rm.Importance = widget.LowImportance
		right = rm
	}
	return container.NewBorder(nil, nil, n, right, src)
}

func (v *secretsView) add() {
	st := secretStore{v.u.deps.Secrets}
	if v.u.deps.Secrets == nil {
		return
	}
	name := strings.ToLower(strings.TrimSpace(v.name.Text))
	if err := st.set(name, v.value.Text); err != nil {
		v.show(err.Error(), true)
		return
	}
	v.name.SetText("")
	v.value.SetText("")
	v.load()
	v.show(fmt.Sprintf("Saved %q; the agent can type it with type_secret(%q).", name, name), false)
}

func (v *secretsView) remove(name string) {
	if err := (secretStore{v.u.deps.Secrets}).remove(name); err != nil {
		v.show(err.Error(), true)
		return
	}
	v.load()
	v.show(fmt.Sprintf("Removed %q.", name), false)
}

func (v *secretsView) show(s string, bad bool) { showOutcome(v.result, s, bad) }
