package agent_test

import (
	"strings"
	"testing"

	"deskpilot/internal/config"
)

// Secret names match whatever their case: DESKPILOT_SECRET_PASSWORD is
// type_secret("PASSWORD") as well as type_secret("password").
func TestTypeSecretNameIgnoresCase(t *testing.T) {
	r := newRig(t, config.Settings{}, code(`type_secret("PASSWORD")
type_secret("Password")
final_answer("typed")`))
	fin := r.run("type it")
	if fin.Answer != "typed" {
		t.Fatalf("got %s %q (%s); observation:\n%s", fin.Outcome, fin.Answer, fin.Error, r.lastUser(1))
	}
	if v, ok := r.agent.Secret("PassWord"); !ok || v != "hunter2-Secret" {
		t.Errorf("Secret(PassWord) = %q, %v", v, ok)
	}
	if _, ok := r.agent.Secret("passwor"); ok {
		t.Error("a name that is not a secret's matched")
	}
	for _, req := range r.srv.Requests() {
		if strings.Contains(string(req.Body), "hunter2") {
			t.Fatal("the secret reached the model")
		}
	}
}
