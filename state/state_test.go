package state

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestEditKeepsNothingStale(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	cli, err := Load(path, "")
	if err != nil {
		t.Fatal(err)
	}
	// The daemon names the tab after the CLI read the (empty) file.
	daemonSide, _ := Load(path, "")
	if err := daemonSide.Update(func(tabs map[string]TabMemory) { tabs["w1:t1"] = TabMemory{Label: "vim"} }); err != nil {
		t.Fatal(err)
	}
	cli.Tabs["w1:t1"] = TabMemory{Label: "stale"}
	if err := cli.Edit(func(tabs map[string]TabMemory) {
		m := tabs["w1:t1"]
		m.Locked = true
		tabs["w1:t1"] = m
	}); err != nil {
		t.Fatal(err)
	}
	got, _ := Load(path, "")
	if m := got.Tabs["w1:t1"]; m.Label != "vim" || !m.Locked {
		t.Fatalf("after lock: %+v, want the daemon's label vim, locked", m)
	}
}

// `lock` and `release` run as separate processes: each loads the state,
// then updates it under the file lock. Whatever another writer saved in
// between must survive; a flag a user set must never be lost.
func TestConcurrentLockReleaseLoseNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	const n = 100
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for _, who := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				st, _ := Load(path, "sock")
				id := fmt.Sprintf("w1:t%s%d", who, i)
				if err := st.Update(func(tabs map[string]TabMemory) {
					m := tabs[id]
					m.Locked = true
					tabs[id] = m
				}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	st, warn := Load(path, "sock")
	if warn != nil {
		t.Fatal(warn)
	}
	var lost []string
	for _, who := range []string{"a", "b"} {
		for i := range n {
			id := fmt.Sprintf("w1:t%s%d", who, i)
			if !st.Tabs[id].Locked {
				lost = append(lost, id)
			}
		}
	}
	if len(lost) > 0 {
		t.Fatalf("%d of %d locks lost by concurrent writers, e.g. %v", len(lost), 2*n, lost[:min(5, len(lost))])
	}
}

// The state's temporary files go beside it (where a killed
// writer's litter is cleaned), never into $TMPDIR.
func TestStateTempFilesStayBesideTheState(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(tmp, past, past); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "state.json")
	st, _ := Load(path, "sock")
	if err := st.Update(func(tabs map[string]TabMemory) { tabs["w1:t1"] = TabMemory{Label: "a"} }); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.ModTime().Equal(past) {
		t.Fatalf("$TMPDIR was written to while saving the state (mtime %v, was %v)", fi.ModTime(), past)
	}
	// A killed writer's litter beside the file goes at the next write.
	litter := filepath.Join(filepath.Dir(path), ".state.json123456")
	if err := os.WriteFile(litter, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := st.Update(func(map[string]TabMemory) {}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(litter); !os.IsNotExist(err) {
		t.Fatalf("temp litter %s survived a write: %v", litter, err)
	}
}

// A tab renamed forever keeps at most MaxPending labels, newest last; a
// file an older version wrote (one pending string) still reads.
func TestLabelSet(t *testing.T) {
	var l LabelSet
	for i := range 3 * MaxPending {
		l = l.Add(string(rune('a' + i)))
	}
	if len(l) != MaxPending || l[len(l)-1] != string(rune('a'+3*MaxPending-1)) {
		t.Fatalf("LabelSet after %d adds: %q", 3*MaxPending, l)
	}
	l = l.Add(l[0])
	if len(l) != MaxPending || !l.Has(l[len(l)-1]) {
		t.Fatalf("re-adding moved nothing to the end: %q", l)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"pending":"x"}`, "[x]"},
		{`{"pending":["x","y"]}`, "[x y]"},
		{`{"pending":""}`, "[]"},
	} {
		var m TabMemory
		if err := json.Unmarshal([]byte(tc.in), &m); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if got := fmt.Sprint([]string(m.Pending)); got != tc.want {
			t.Errorf("%s: pending %s, want %s", tc.in, got, tc.want)
		}
	}
}
