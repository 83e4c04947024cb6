package realherdr

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/creack/pty"
)

// Keys of herdr 0.8.2's default keybindings (KeysConfig::default in
// src/config/model.rs) and of its rename modal (RENAME_ACTIONS in
// src/app/input/modal.rs): what a person presses.
const (
	KeyPrefix          = "\x02" // ctrl+b
	KeyRenameTab       = "T"    // prefix+shift+t: the active tab
	KeyRenameWorkspace = "W"    // prefix+shift+w: the active workspace
	KeyRenamePane      = "P"    // prefix+shift+p: the focused pane
	KeyNewTab          = "c"    // prefix+c: the new-tab prompt (ui.prompt_new_tab_name, on by default)
	KeyDetach          = "q"    // prefix+q
	KeyClear           = "\x03" // ctrl+c inside a rename modal empties its input
	KeyEnter           = "\r"   // saves a rename modal
	KeyEscape          = "\x1b" // cancels a rename modal
)

// Titles of herdr's rename modals (render_rename_overlay in
// src/ui/dialogs.rs): the screen shows one while that modal is open.
const (
	ModalRenameTab       = "rename tab"
	ModalRenameWorkspace = "rename workspace"
	ModalRenamePane      = "rename pane"
	ModalNewTab          = "new tab"
)

// clientRows and clientCols are the client's terminal size.
const clientRows, clientCols = 40, 120

// uiWait bounds every wait for the client's screen: generous, for a busy
// machine.
const uiWait = 20 * time.Second

// Client is herdr's own TUI client (`herdr client`) attached to a Server
// in a pty: what a person at the keyboard sees and types into. Everything
// it does reaches the server as a person's keystrokes.
type Client struct {
	srv  *Server
	cmd  *exec.Cmd
	tty  *os.File
	scr  *screen
	raw  *ringBuffer
	done chan struct{}
	err  error
	once sync.Once
}

// OpenClient attaches herdr's TUI client to the server and returns once it
// has drawn its first frame. Close it before stopping the server: it is
// one of the server's processes.
func (s *Server) OpenClient() (*Client, error) {
	cmd := exec.Command(s.Bin, "client")
	cmd.Env = s.Env("HERDR_DISABLE_SOUND=1")
	cmd.Dir = s.Home
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: clientRows, Cols: clientCols})
	if err != nil {
		return nil, fmt.Errorf("real herdr: start %s client: %w", s.Bin, err)
	}
	c := &Client{srv: s, cmd: cmd, tty: tty, scr: newScreen(clientRows, clientCols),
		raw: &ringBuffer{max: 64 << 10}, done: make(chan struct{})}
	go c.read()
	go func() { c.err = cmd.Wait(); close(c.done) }()
	if err := c.WaitFor("its first frame", func(lines []string) bool { return strings.TrimSpace(strings.Join(lines, "")) != "" }); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

// read feeds the client's output to the screen and answers the terminal
// queries in it, until the pty closes.
func (c *Client) read() {
	buf := make([]byte, 8192)
	for {
		n, err := c.tty.Read(buf)
		if n > 0 {
			_, _ = c.raw.Write(buf[:n])
			_, _ = c.scr.Write(buf[:n])
			if r := c.scr.takeReplies(); len(r) > 0 {
				_, _ = c.tty.Write(r)
			}
		}
		if err != nil {
			return
		}
	}
}

// Close detaches the client (prefix+q, as a person leaves herdr running)
// and waits for it to exit, killing it after a while.
func (c *Client) Close() error {
	var err error
	c.once.Do(func() {
		_, _ = c.tty.Write([]byte(KeyPrefix))
		time.Sleep(50 * time.Millisecond)
		_, _ = c.tty.Write([]byte(KeyDetach))
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.done
			err = errors.New("real herdr: the TUI client did not detach within 10 s; killed")
		}
		c.tty.Close()
	})
	return err
}

// Press writes keys to the client as typed, one key at a time: herdr reads
// a lone ESC as the Escape key only when nothing follows it at once.
func (c *Client) Press(keys ...string) error {
	for i, k := range keys {
		if i > 0 {
			time.Sleep(20 * time.Millisecond)
		}
		if _, err := c.tty.Write([]byte(k)); err != nil {
			return fmt.Errorf("real herdr: type %q into the TUI client: %w", k, err)
		}
	}
	return nil
}

// Screen is the client's screen as lines of text.
func (c *Client) Screen() []string { return c.scr.text() }

// WaitFor polls the screen until ok holds for it; what is a failure to the
// caller is told by what, with the screen as it was.
func (c *Client) WaitFor(what string, ok func(lines []string) bool) error {
	deadline := time.Now().Add(uiWait)
	for {
		lines := c.Screen()
		if ok(lines) {
			return nil
		}
		select {
		case <-c.done:
			return fmt.Errorf("real herdr: the TUI client exited (%v) waiting for %s; screen:\n%s", c.err, what, strings.Join(lines, "\n"))
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("real herdr: no %s on the TUI client's screen within %v; screen:\n%s", what, uiWait, strings.Join(lines, "\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Modal is the rename modal open on the screen: its title and the text in
// its input field; ok is false when none is open.
func (c *Client) Modal() (title, input string, ok bool) {
	return modalOn(c.Screen())
}

// modalOn finds a rename modal on a screen: a line holding one of the
// titles alone between the box's borders, with the input field two lines
// below it.
func modalOn(lines []string) (title, input string, ok bool) {
	for i, l := range lines {
		for _, t := range []string{ModalRenameWorkspace, ModalRenameTab, ModalRenamePane, ModalNewTab} {
			at := strings.Index(l, t)
			if at < 0 || i+2 >= len(lines) || strings.TrimSpace(boxInner(l, at)) != t {
				continue
			}
			return t, strings.TrimSpace(boxInner(lines[i+2], at)), true
		}
	}
	return "", "", false
}

// boxInner is the part of line inside the box whose left border is the
// nearest one left of column at (a byte index of line), up to its right
// border.
func boxInner(line string, at int) string {
	left := strings.LastIndexAny(line[:min(at, len(line))], "│┃|")
	if left < 0 {
		return line
	}
	rest := line[left:]
	_, size := firstRune(rest)
	rest = rest[size:]
	if right := strings.IndexAny(rest, "│┃|"); right >= 0 {
		rest = rest[:right]
	}
	return rest
}

func firstRune(s string) (rune, int) {
	for _, r := range s {
		return r, len(string(r))
	}
	return 0, 0
}

// OpenModal presses the prefix and key, and waits until the modal titled
// title is open.
func (c *Client) OpenModal(key, title string) error {
	if err := c.Press(KeyPrefix, key); err != nil {
		return err
	}
	return c.WaitFor("the "+title+" modal", func(lines []string) bool {
		got, _, ok := modalOn(lines)
		return ok && got == title
	})
}

// Fill empties the open modal's input (ctrl+c) and types text into it, as
// one burst of keys, and waits until the input shows it.
func (c *Client) Fill(text string) error {
	if err := c.Press(KeyClear); err != nil {
		return err
	}
	if err := c.WaitFor("an empty input", inputIs("")); err != nil {
		return err
	}
	if text == "" {
		return nil
	}
	if err := c.Press(text); err != nil {
		return err
	}
	return c.WaitFor(fmt.Sprintf("%q in the input", text), inputIs(strings.TrimSpace(text)))
}

// inputIs holds when a modal is open whose input reads want (the screen
// shows it without its surrounding blanks).
func inputIs(want string) func([]string) bool {
	return func(lines []string) bool {
		_, in, ok := modalOn(lines)
		return ok && in == want
	}
}

// Save presses Enter in the open modal and waits until it has closed:
// herdr has then applied what the modal does.
func (c *Client) Save() error { return c.closeModal(KeyEnter) }

// Cancel presses Escape in the open modal and waits until it has closed.
func (c *Client) Cancel() error { return c.closeModal(KeyEscape) }

func (c *Client) closeModal(key string) error {
	if err := c.Press(key); err != nil {
		return err
	}
	return c.WaitFor("the modal closed", func(lines []string) bool {
		_, _, ok := modalOn(lines)
		return !ok
	})
}

// FocusTab makes tab the active one, through herdr's tab.focus: the path a
// click on the tab takes (focus_tab_idx_via_api).
func (c *Client) FocusTab(tab string) error {
	_, err := c.srv.CLI("tab", "focus", tab)
	return err
}

// FocusWorkspace makes ws the active workspace, through herdr's
// workspace.focus, as a click in the sidebar does.
func (c *Client) FocusWorkspace(ws string) error {
	_, err := c.srv.CLI("workspace", "focus", ws)
	return err
}

// PrepareRenameTab focuses tab, opens its rename modal and types label,
// leaving the modal open: Save then renames at a moment of the caller's
// choosing.
func (c *Client) PrepareRenameTab(tab, label string) error {
	if err := c.FocusTab(tab); err != nil {
		return err
	}
	if err := c.OpenModal(KeyRenameTab, ModalRenameTab); err != nil {
		return err
	}
	return c.Fill(label)
}

// RenameTab renames tab as a person does: focus it, open the rename modal
// (prefix, shift+t), empty the input, type label, Enter.
func (c *Client) RenameTab(tab, label string) error {
	if err := c.PrepareRenameTab(tab, label); err != nil {
		return err
	}
	return c.Save()
}

// RenamePane renames the focused pane of tab as a person does: focus the
// tab, open the pane's rename modal (prefix, shift+p), empty the input,
// type label ("" clears the label), Enter.
func (c *Client) RenamePane(tab, label string) error {
	if err := c.FocusTab(tab); err != nil {
		return err
	}
	if err := c.OpenModal(KeyRenamePane, ModalRenamePane); err != nil {
		return err
	}
	if err := c.Fill(label); err != nil {
		return err
	}
	return c.Save()
}

// PrepareRenameWorkspace focuses ws, opens its rename modal and types
// label, leaving the modal open for Save.
func (c *Client) PrepareRenameWorkspace(ws, label string) error {
	if err := c.FocusWorkspace(ws); err != nil {
		return err
	}
	if err := c.OpenModal(KeyRenameWorkspace, ModalRenameWorkspace); err != nil {
		return err
	}
	return c.Fill(label)
}

// RenameWorkspace renames ws as a person does: focus it, open the rename
// modal (prefix, shift+w), empty the input, type label, Enter.
func (c *Client) RenameWorkspace(ws, label string) error {
	if err := c.PrepareRenameWorkspace(ws, label); err != nil {
		return err
	}
	return c.Save()
}

// NewTab creates a tab in the active workspace from herdr's new-tab prompt
// (prefix, c), named label ("" leaves the prompt's input empty), and
// returns its id: the tab that was not there before.
func (c *Client) NewTab(label string) (string, error) {
	before, err := c.tabIDs()
	if err != nil {
		return "", err
	}
	if err := c.OpenModal(KeyNewTab, ModalNewTab); err != nil {
		return "", err
	}
	if err := c.Fill(label); err != nil {
		return "", err
	}
	if err := c.Save(); err != nil {
		return "", err
	}
	after, err := c.tabIDs()
	if err != nil {
		return "", err
	}
	for _, id := range after {
		if !slices.Contains(before, id) {
			return id, nil
		}
	}
	return "", fmt.Errorf("real herdr: the new-tab prompt made no tab (tabs %v)", after)
}

// tabIDs lists every tab's id, through herdr's CLI.
func (c *Client) tabIDs() ([]string, error) {
	out, err := c.srv.CLI("tab", "list")
	if err != nil {
		return nil, err
	}
	var list struct {
		Result struct {
			Tabs []struct {
				ID string `json:"tab_id"`
			} `json:"tabs"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		return nil, fmt.Errorf("real herdr: tab list answered %q: %w", out, err)
	}
	ids := make([]string, len(list.Result.Tabs))
	for i, tb := range list.Result.Tabs {
		ids[i] = tb.ID
	}
	return ids, nil
}
