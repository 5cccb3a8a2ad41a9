package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"proofglass/backend/fixture"
)

func TestSecretFlag(t *testing.T) {
	cases := map[string]struct {
		args, stdin, env, prompt string
		want, wantErr            string
		warns                    bool
	}{
		"from stdin":                {args: "--token-stdin", stdin: "s3cret\n", want: "s3cret"},
		"stdin without newline":     {args: "--token-stdin", stdin: "s3cret", want: "s3cret"},
		"stdin CRLF":                {args: "--token-stdin", stdin: "s3cret\r\nnext\n", want: "s3cret"},
		"empty stdin is an error":   {args: "--token-stdin", stdin: "", wantErr: "held no token"},
		"from the environment":      {env: "from-env", want: "from-env"},
		"stdin wins over env":       {args: "--token-stdin", stdin: "in\n", env: "from-env", want: "in"},
		"command line still works":  {args: "--token on-cli", want: "on-cli", warns: true},
		"command line beats env":    {args: "--token on-cli", env: "from-env", want: "on-cli", warns: true},
		"prompt":                    {args: "--ask-token", prompt: "typed", want: "typed"},
		"two ways is an error":      {args: "--token x --token-stdin", stdin: "y\n", wantErr: "one way"},
		"nothing given is no token": {want: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv("PROOFGLASS_TEST_TOKEN", tc.env)
			old := promptSecret
			promptSecret = func(string) (string, error) {
				if tc.prompt == "" {
					return "", errors.New("no terminal")
				}
				return tc.prompt, nil
			}
			defer func() { promptSecret = old }()
			s := secretFlag{name: "token", env: "PROOFGLASS_TEST_TOKEN"}
			var got string
			var rerr error
			cmd := &cobra.Command{Use: "x", RunE: func(cmd *cobra.Command, _ []string) error {
				got, rerr = s.read(cmd)
				return nil
			}}
			addSecretFlags(cmd, &s, "a token")
			var errw bytes.Buffer
			cmd.SetErr(&errw)
			cmd.SetIn(strings.NewReader(tc.stdin))
			cmd.SetArgs(strings.Fields(tc.args))
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if tc.wantErr != "" {
				if rerr == nil || !strings.Contains(rerr.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", rerr, tc.wantErr)
				}
				return
			}
			if rerr != nil || got != tc.want {
				t.Fatalf("got %q %v, want %q", got, rerr, tc.want)
			}
			warned := strings.Contains(errw.String(), "warning")
			if warned != tc.warns {
				t.Errorf("warning printed: %v, want %v (%q)", warned, tc.warns, errw.String())
			}
			if strings.Contains(errw.String(), tc.want) && tc.want != "" {
				t.Errorf("stderr shows the secret: %q", errw.String())
			}
		})
	}
}

// TestAddPasswordStdin: `proofglass add --password-stdin` opens an encrypted PDF with the password read from standard
// input and remembers it for that file only; a wrong password of the batch is not stored.
func TestAddPasswordStdin(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent") // the 0600 file store, never the real keyring
	t.Setenv("PROOFGLASS_PDF_PASSWORD", "")
	data := t.TempDir()
	opens := fixture.Path(t, "bad/pdf/qpdf/enc-R3,V2,U=view,O=master.pdf")
	wrong := fixture.Path(t, "bad/pdf/debian/a-text-pass-A5d.pdf")
	root := NewRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetIn(strings.NewReader("view\n"))
	root.SetArgs([]string{"--data", data, "add", "--no-ocr", "--json", "--password-stdin", opens, wrong})
	err := root.ExecuteContext(context.Background())
	if err == nil || !strings.Contains(err.Error(), "1 of 2 files failed") {
		t.Fatalf("err = %v, want the wrong-password file failed:\n%s", err, out.String())
	}
	if strings.Contains(out.String(), "view") && !strings.Contains(out.String(), "U=view") {
		t.Errorf("the output shows the password:\n%s", out.String())
	}
	b, err := os.ReadFile(filepath.Join(data, "secrets.json"))
	if err != nil {
		t.Fatalf("no secret stored: %v", err)
	}
	var m map[string]string
	json.Unmarshal(b, &m)
	var pw []string
	for k, v := range m {
		if strings.HasPrefix(k, "pdf-password/") {
			pw = append(pw, v)
		}
	}
	if len(pw) != 1 || pw[0] != "view" {
		t.Errorf("stored passwords %q, want only the one that opened a file", pw)
	}
	// On the command line it still works, with a warning.
	o, err := run(t, data, "documents", "retry", "--no-ocr", "--failed", "--password", "A5d")
	if err != nil || !strings.Contains(o, "warning: a password given on the command line") {
		t.Errorf("retry --password: %v\n%s", err, o)
	}
}

// TestSecretsClear: `secrets clear` forgets the stored server token (here in the 0600 fallback file: the test keeps
// the OS keyring out of reach, so a developer's own keyring is never touched), and the next `serve token` makes a new
// one.
func TestSecretsClear(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/proofglass-test-bus")
	data := t.TempDir()
	first, err := run(t, data, "serve", "token")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(data, "secrets.json")
	if _, err := os.Stat(file); err != nil {
		t.Skipf("the token went to an OS keyring this test cannot reach safely: %v", err)
	}
	again, _ := run(t, data, "serve", "token")
	if strings.TrimSpace(again) != strings.TrimSpace(first) {
		t.Fatalf("the stored token changed before clear: %q → %q", first, again)
	}
	out, err := run(t, data, "secrets", "clear")
	if err != nil || !strings.Contains(out, file+": gone") {
		t.Fatalf("secrets clear: %v\n%s", err, out)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s is still there (%v)", file, err)
	}
	next, _ := run(t, data, "serve", "token")
	if strings.TrimSpace(next) == "" || strings.TrimSpace(next) == strings.TrimSpace(first) {
		t.Errorf("after clear, serve token gave %q (before: %q)", next, first)
	}
}
