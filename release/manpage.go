package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// manPage is the manual page that exe, a release build for this machine,
// makes from its own command-line grammar (`herdrtabrenamer man`), dated
// with the archives' time, so every build of one source gives the same
// bytes.
func manPage(exe string) ([]byte, error) {
	cmd := exec.Command(exe, "man", "--date", mtime.Format(time.DateOnly))
	// No config file and no HERDRTABRENAMER_* variable of the builder's
	// reaches it.
	dir := filepath.Dir(exe)
	cmd.Env = []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + dir}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("the manual page: herdrtabrenamer man: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	if !bytes.HasPrefix(stdout.Bytes(), []byte(".TH ")) {
		return nil, fmt.Errorf("the manual page: herdrtabrenamer man printed no page: %.80q", stdout.String())
	}
	return stdout.Bytes(), nil
}
