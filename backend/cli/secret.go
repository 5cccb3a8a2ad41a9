package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"proofglass/backend/config"
)

// secretFlag is a secret a command takes (a PDF password, a server token). It can come from a no-echo prompt,
// from standard input (--NAME-stdin), or from an environment variable; --NAME VALUE still works but warns, because
// every local user can read a command line in /proc/PID/cmdline.
type secretFlag struct {
	name   string // flag name: "password", "token"
	env    string // environment variable, "" = none
	value  string
	stdin  bool
	prompt bool
}

// addSecretFlags registers --NAME, --NAME-stdin and --ask-NAME.
func addSecretFlags(cmd *cobra.Command, s *secretFlag, usage string) {
	f := cmd.Flags()
	f.StringVar(&s.value, s.name, "", usage+" (visible to other users in the process list: prefer --"+s.name+"-stdin or --ask-"+s.name+")")
	f.BoolVar(&s.stdin, s.name+"-stdin", false, "read the "+s.name+" from the first line of standard input")
	f.BoolVar(&s.prompt, "ask-"+s.name, false, "ask for the "+s.name+" on the terminal, without echo")
}

// promptSecret reads a line from the terminal without echo; tests replace it.
var promptSecret = func(label string) (string, error) {
	fd := int(os.Stdin.Fd())
	if !term.IsTerminal(fd) {
		return "", errors.New("standard input is not a terminal")
	}
	fmt.Fprint(os.Stderr, label)
	b, err := term.ReadPassword(fd)
	fmt.Fprintln(os.Stderr)
	return string(b), err
}

// read returns the secret ("" when none was given) from whichever source was named; giving two is an error.
func (s *secretFlag) read(cmd *cobra.Command) (string, error) {
	onCLI := cmd.Flags().Changed(s.name)
	n := 0
	for _, b := range []bool{onCLI, s.stdin, s.prompt} {
		if b {
			n++
		}
	}
	if n > 1 {
		return "", fmt.Errorf("give the %s one way: --%s, --%s-stdin or --ask-%s", s.name, s.name, s.name, s.name)
	}
	switch {
	case s.stdin:
		line, err := bufio.NewReader(io.LimitReader(cmd.InOrStdin(), 64<<10)).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("read the %s from standard input: %w", s.name, err)
		}
		v := strings.TrimRight(line, "\r\n")
		if v == "" {
			return "", fmt.Errorf("--%s-stdin: standard input held no %s", s.name, s.name)
		}
		return v, nil
	case s.prompt:
		v, err := promptSecret(strings.ToUpper(s.name[:1]) + s.name[1:] + ": ")
		if err != nil {
			return "", fmt.Errorf("--ask-%s: %w (use --%s-stdin in scripts)", s.name, err, s.name)
		}
		return v, nil
	case onCLI:
		fmt.Fprintf(cmd.ErrOrStderr(), "proofglass: warning: a %s given on the command line is visible to every local user "+
			"(ps, /proc); use --%s-stdin, --ask-%s%s instead\n", s.name, s.name, s.name, envHint(s.env))
		return s.value, nil
	case s.env != "":
		return config.Getenv(strings.TrimPrefix(s.env, config.EnvPrefix)), nil
	}
	return "", nil
}

func envHint(env string) string {
	if env == "" {
		return ""
	}
	return " or $" + env
}
