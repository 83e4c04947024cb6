package herdrsim

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// WorkspaceRename is one workspace.rename the server answered.
type WorkspaceRename struct {
	WorkspaceID string
	Label       string
	At          time.Time
}

type workspaceResult struct {
	Type      string          `json:"type"`
	Workspace herdr.Workspace `json:"workspace"`
}

// label is the workspace's display name (docs/herdr.md §6): a custom name
// once anyone set one, else herdr's automatic label, recomputed from the
// first tab's root pane every time, so it follows that pane's cwd. herdr
// refreshes its cached git part periodically; the sim is always fresh.
func (ws *workspace) label() string {
	if ws.custom != nil {
		return *ws.custom
	}
	if len(ws.tabs) == 0 || len(ws.tabs[0].panes) == 0 {
		return "workspace"
	}
	// The root pane is the tab's first pane; splits go after it, and when
	// it closes the next one in layout order stands in for herdr's
	// promoted root.
	cwd, _ := ws.tabs[0].panes[0].cwds(0)
	if cwd == "" {
		return "workspace"
	}
	return AutoWorkspaceLabel(cwd, os.Getenv("HOME"))
}

// AutoWorkspaceLabel is herdr 0.8.2's automatic workspace label for a cwd
// (derive_label_from_cwd in src/workspace/git/discovery.rs): the base name
// of the git work tree root that holds cwd, else cwd's own base name, or
// "~" when cwd is home. It reads the file system, as herdr does.
func AutoWorkspaceLabel(cwd, home string) string {
	cwd = filepath.Clean(cwd)
	if root := gitRoot(cwd); root != "" {
		if b := filepath.Base(root); b != "/" && b != "." {
			return b
		}
	}
	if home != "" && cwd == filepath.Clean(home) {
		return "~"
	}
	if b := filepath.Base(cwd); b != "/" && b != "." {
		return b
	}
	return cwd
}

// gitRoot is herdr's git_repo_root: the nearest ancestor (cwd included)
// whose .git directory, or the gitdir a .git file names, holds a HEAD
// file. herdr's bare-repository layout is left out.
func gitRoot(dir string) string {
	for {
		dotGit := filepath.Join(dir, ".git")
		gitDir := ""
		if fi, err := os.Stat(dotGit); err == nil && fi.IsDir() {
			gitDir = dotGit
		} else if b, err := os.ReadFile(dotGit); err == nil {
			if rel, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:"); ok {
				gitDir = strings.TrimSpace(rel)
				if !filepath.IsAbs(gitDir) {
					gitDir = filepath.Join(dir, gitDir)
				}
			}
		}
		if gitDir != "" {
			if fi, err := os.Stat(filepath.Join(gitDir, "HEAD")); err == nil && fi.Mode().IsRegular() {
				return dir
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// workspaceRename is herdr's handle_workspace_rename: any label, "" too,
// becomes the custom name (which stops the automatic label), then
// workspace_renamed and a workspace_info reply.
func (s *Server) workspaceRename(pr *params) (any, error) {
	id, _ := pr.str("workspace_id", true)
	label, _ := pr.str("label", true)
	if pr.err != nil {
		return nil, pr.err
	}
	ws := s.sess.findWorkspace(id)
	if ws == nil {
		return nil, errf("workspace_not_found", "workspace %s not found", id)
	}
	ws.custom = &label
	s.wsNames = append(s.wsNames, WorkspaceRename{WorkspaceID: ws.id, Label: label, At: time.Now()})
	s.emit("workspace_renamed", map[string]any{"workspace_id": ws.id, "label": label})
	return workspaceResult{Type: "workspace_info", Workspace: s.sess.wsInfo(ws)}, nil
}

// WorkspaceRenames lists every workspace.rename the API answered, in order.
func (s *Server) WorkspaceRenames() []WorkspaceRename {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]WorkspaceRename(nil), s.wsNames...)
}

// HumanRenameWorkspace is a person's rename of a workspace in herdr's TUI,
// saved with Enter (docs/herdr.md §6): herdr saves it through
// workspace.rename's own handler, so any name, the automatic label too,
// becomes the custom name and workspace_renamed follows. The name is
// trimmed as by HumanRename; an empty input does nothing. It is not
// counted in WorkspaceRenames, which are the API's.
func (s *Server) HumanRenameWorkspace(wsID, label string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := s.sess.findWorkspace(wsID)
	if ws == nil {
		s.misuse("HumanRenameWorkspace: workspace %q not found", wsID)
		return
	}
	if label = modalName(label); label == "" {
		return
	}
	ws.custom = &label
	s.emit("workspace_renamed", map[string]any{"workspace_id": ws.id, "label": label})
}

// Workspace returns a workspace's current WorkspaceInfo.
func (s *Server) Workspace(wsID string) (herdr.Workspace, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := s.sess.findWorkspace(wsID)
	if ws == nil {
		return herdr.Workspace{}, false
	}
	return s.sess.wsInfo(ws), true
}
