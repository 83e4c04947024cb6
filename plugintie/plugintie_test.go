package plugintie

import (
	"path/filepath"
	"testing"
)

// TestFromEnv: only the command herdr runs as a plugin's startup hook
// ties the daemon to that plugin, and herdr's registry is found from the
// plugin's config folder when that has herdr's layout.
func TestFromEnv(t *testing.T) {
	cfg := filepath.Join("/h", ".config", "herdr", "plugins", "config", "herdrtabrenamer")
	tests := []struct {
		name string
		env  map[string]string
		want Plugin
	}{
		{"not from herdr", map[string]string{}, Plugin{}},
		{"an action, not the startup hook", map[string]string{"HERDR_PLUGIN_ID": "herdrtabrenamer", "HERDR_PLUGIN_EVENT": "rename-now", "HERDR_PLUGIN_CONFIG_DIR": cfg}, Plugin{}},
		{"startup hook", map[string]string{"HERDR_PLUGIN_ID": "herdrtabrenamer", "HERDR_PLUGIN_EVENT": "startup", "HERDR_PLUGIN_CONFIG_DIR": cfg},
			Plugin{ID: "herdrtabrenamer", Registry: filepath.Join("/h", ".config", "herdr", "plugins.json")}},
		{"config folder of another shape", map[string]string{"HERDR_PLUGIN_ID": "x", "HERDR_PLUGIN_EVENT": "startup", "HERDR_PLUGIN_CONFIG_DIR": "/h/x"},
			Plugin{ID: "x"}},
		{"no config folder", map[string]string{"HERDR_PLUGIN_ID": "x", "HERDR_PLUGIN_EVENT": "startup"}, Plugin{ID: "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FromEnv(func(k string) string { return tt.env[k] }); got != tt.want {
				t.Errorf("FromEnv = %+v, want %+v", got, tt.want)
			}
		})
	}
}
