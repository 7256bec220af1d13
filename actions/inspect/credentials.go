package inspect

import (
	"bytes"
	"path/filepath"
	"strings"
)

// DeniedPaths lists the credential stores under the home folder the inspector
// refuses by default, with everything below them: keys and tokens of SSH,
// GnuPG, cloud and developer tools, password managers and keyrings, and
// browser and mail profiles (saved passwords and cookies). Options.Allow
// exempts a path the person chooses to share.
func DeniedPaths() []string {
	return []string{
		".ssh", ".gnupg", ".pki", ".local/share/keyrings", ".local/share/kwalletd", ".password-store",
		".aws", ".azure", ".kube", ".docker", ".config/gcloud", ".config/gh", ".config/hub",
		".config/containers/auth.json", ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",
		".m2/settings-security.xml", ".terraform.d/credentials.tfrc.json", ".config/rclone",
		".mozilla", ".thunderbird", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware",
		".config/microsoft-edge", ".config/vivaldi", ".config/opera", "snap/firefox", "snap/chromium",
		".var/app/org.mozilla.firefox", ".var/app/com.google.Chrome", ".var/app/org.chromium.Chromium",
		".config/Bitwarden", ".config/1Password", ".config/keepassxc", ".local/share/fish/fish_history",
	}
}

// DeniedNames lists file names refused wherever they are, because such files
// hold secrets or a history of typed commands: SSH private keys, shell and
// tool histories, credential files of git, npm, PyPI, netrc and PostgreSQL,
// .env files (but not .env.example, .env.sample or .env.template, which are
// meant to be shared), key stores (.kdbx, .p12, .pfx, .ppk, .keychain). A
// name with a leading "*" matches by suffix.
func DeniedNames() []string {
	return []string{
		"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk", "identity",
		".bash_history", ".zsh_history", ".sh_history", ".history", ".python_history", ".node_repl_history",
		".psql_history", ".mysql_history", ".sqlite_history", ".rediscli_history", ".lesshst", "fish_history",
		".git-credentials", ".netrc", "_netrc", ".npmrc", ".yarnrc.yml", ".pypirc", ".pgpass", ".my.cnf",
		".env", "*.kdbx", "*.p12", "*.pfx", "*.ppk", "*.keychain", "*.keychain-db",
	}
}

// isSharedEnv reports .env variants meant to be committed and shared.
func isSharedEnv(name string) bool {
	switch name {
	case ".env.example", ".env.sample", ".env.template", ".env.dist", ".env.defaults":
		return true
	}
	return false
}

func (in *Inspector) builtinDeny() []string {
	if in.opts.Home == "" {
		return nil
	}
	paths := DeniedPaths()
	d := make([]string, len(paths))
	for i, p := range paths {
		d[i] = filepath.Join(in.opts.Home, p)
	}
	return d
}

// deniedName reports whether a resolved path's file name is denied (a key,
// a history file, a .env file), and which rule matched.
func deniedName(real string) (string, bool) {
	lower := strings.ToLower(filepath.Base(real))
	if strings.HasPrefix(lower, ".env.") && !isSharedEnv(lower) {
		return ".env", true
	}
	for _, n := range DeniedNames() {
		if suffix, ok := strings.CutPrefix(n, "*"); ok {
			if strings.HasSuffix(lower, suffix) {
				return n, true
			}
		} else if lower == n {
			return n, true
		}
	}
	return "", false
}

// isPrivateKey reports content that starts with a private key: PEM ("-----BEGIN
// ... PRIVATE KEY-----", OpenSSH's included) or a PuTTY key file.
func isPrivateKey(data []byte) bool {
	head := bytes.TrimLeft(data[:min(len(data), 4096)], " \t\r\n\xef\xbb\xbf")
	if bytes.HasPrefix(head, []byte("PuTTY-User-Key-File-")) {
		return true
	}
	if !bytes.HasPrefix(head, []byte("-----BEGIN ")) {
		return false
	}
	line, _, _ := bytes.Cut(head, []byte("\n"))
	return bytes.Contains(line, []byte("PRIVATE KEY-----"))
}
