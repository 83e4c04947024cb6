package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// manPage is the manual page of this source at version, which the binary
// makes from its own command-line grammar: a build for this machine with
// the release's flags prints it (`herdrtabrenamer man`), dated with the
// archives' time, so every build of one source gives the same bytes.
func manPage(version, dir string) ([]byte, error) {
	host := target{runtime.GOOS, runtime.GOARCH}
	if _, err := goBuild(host, version, dir); err != nil {
		return nil, fmt.Errorf("the manual page: %w", err)
	}
	cmd := exec.Command(filepath.Join(dir, host.exe()), "man", "--date", mtime.Format(time.DateOnly))
	// No config file and no HERDRTABRENAMER_* variable of the builder's
	// reaches it.
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
