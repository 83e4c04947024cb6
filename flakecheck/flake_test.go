package flakecheck

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// root is the module root, where flake.nix lives.
const root = ".."

func readFlake(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "flake.nix"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFlakeParses runs Nix's own parser, as CI does.
func TestFlakeParses(t *testing.T) {
	nix, err := exec.LookPath("nix-instantiate")
	if err != nil {
		t.Skip("nix-instantiate not installed (apt-get install nix-bin); flake.nix syntax not checked")
	}
	out, err := exec.Command(nix, "--parse", filepath.Join(root, "flake.nix")).CombinedOutput()
	if err != nil {
		t.Fatalf("nix-instantiate --parse flake.nix: %v\n%s", err, out)
	}
}

// TestFlakeVendorHash checks flake.nix's vendorHash against the NAR hash
// of `go mod vendor`, which is what buildGoModule checks, so a go.mod
// change cannot silently break `nix build`.
func TestFlakeVendorHash(t *testing.T) {
	if testing.Short() {
		t.Skip("vendors all modules; skipped with -short")
	}
	if out, err := offlineGo("mod", "download").CombinedOutput(); err != nil {
		t.Skipf("the Go module cache lacks modules of go.mod (run go mod download first); vendorHash not checked:\n%s", out)
	}
	m := regexp.MustCompile(`vendorHash = "(sha256-[A-Za-z0-9+/=]+)";`).FindStringSubmatch(readFlake(t))
	if m == nil {
		t.Fatal(`flake.nix: no vendorHash = "sha256-..." found`)
	}
	dir := filepath.Join(t.TempDir(), "vendor")
	if out, err := offlineGo("mod", "vendor", "-o", dir).CombinedOutput(); err != nil {
		t.Fatalf("go mod vendor: %v\n%s", err, out)
	}
	got, err := narHash(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("computed vendorHash: %s", got)
	if got != m[1] {
		t.Errorf("flake.nix vendorHash is %s, but go.mod/go.sum/imports now give %s; run contrib/vendorhash.sh and update flake.nix", m[1], got)
	}
}

// offlineGo runs go in the module root without the network: the test
// checks what is in the module cache and never fetches.
func offlineGo(args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local")
	return cmd
}

// narHash is `nix hash path` (SRI sha256): the hash of the path's Nix
// archive serialisation.
func narHash(path string) (string, error) {
	h := sha256.New()
	if err := writeNAR(h, path); err != nil {
		return "", err
	}
	return "sha256-" + base64.StdEncoding.EncodeToString(h.Sum(nil)), nil
}

// writeNAR serialises path as a Nix archive: length-prefixed, 8-byte
// padded strings; directories list entries sorted by name; of a file's
// mode only the executable bit counts.
func writeNAR(w io.Writer, path string) error {
	str := func(s string) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		w.Write(n[:])
		io.WriteString(w, s)
		w.Write(make([]byte, (8-len(s)%8)%8))
	}
	var node func(p string) error
	node = func(p string) error {
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		str("(")
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			str("type")
			str("symlink")
			str("target")
			str(target)
		case fi.IsDir():
			str("type")
			str("directory")
			entries, err := os.ReadDir(p)
			if err != nil {
				return err
			}
			// os.ReadDir sorts by name, bytewise, as Nix does.
			for _, e := range entries {
				str("entry")
				str("(")
				str("name")
				str(e.Name())
				str("node")
				if err := node(filepath.Join(p, e.Name())); err != nil {
					return err
				}
				str(")")
			}
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			str("type")
			str("regular")
			if fi.Mode()&0o111 != 0 {
				str("executable")
				str("")
			}
			str("contents")
			str(string(b))
		}
		str(")")
		return nil
	}
	str("nix-archive-1")
	return node(path)
}
